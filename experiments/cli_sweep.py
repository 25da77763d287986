"""A repeatable "new user" sweep of the ``spielwerk`` command line (issue #45).

Runs bad, odd and documented inputs through every command and sub-command,
one at a time, each in a fresh temporary working folder, and checks what a
user sees:

- the exit code is the expected one (0 valid, 2 usage/input error, 1 only
  where a real failure is meant);
- no "Traceback" on stdout or stderr;
- an input error is one line on stderr (the usage block typer prints for a
  missing argument or an unknown option/command is allowed where the case
  says so), and a non-zero exit says something on stderr;
- the case finishes within its time limit (else it is killed: failure);
- the peak RSS of the process tree stays under the limit (sampled from /proc
  every 0.1 s; killed when exceeded: failure);
- every file placed in the working folder before the command (inputs, foreign
  files, earlier results) has the same bytes and mtime afterwards, unless the
  case says the command writes it; a command that fails with exit code 2
  leaves no new files behind;
- no process of the command's process group is left once it has exited.

The Ctrl-C group starts long commands, sends SIGINT after 3 s (waiting up to
5 s more while the command has printed nothing yet), and requires exit
within 10 s with no traceback and nothing left in the process group. By
default SIGINT goes to the command's process, as ``kill -INT PID`` does; the
cases named ``ctrl-c-group/...`` send it to the whole process group, as a
terminal's Ctrl-C does; the ``sigterm/...`` cases send SIGTERM to the command's
process (``kill PID``), which it answers as a Ctrl-C, with exit code 143.

Usage::

    .venv/bin/python experiments/cli_sweep.py --out /tmp/sweep.jsonl
    .venv/bin/python experiments/cli_sweep.py --only arena/ --list

Standard library only. Environment: ``NUMBA_CACHE_DIR`` and the rest of the
environment are passed on as they are, except ``COLUMNS``/``LINES`` (removed:
output is redirected, as in a pipe) and ``SPIELWERK_DATA_DIR`` (set to the
case's working folder so ``serve`` never touches the user's database).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

OK = (0,)
USAGE = (2,)
BIG = "1000000000000"
SKAT_HAND = ["CJ", "SJ", "CA", "CT", "C9", "SA", "HT", "H7", "D7", "D8"]
KALAH_START = "4,4,4,4,4,4|4,4,4,4,4,4|0-0 S"
EXC_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning)\b")


@dataclasses.dataclass
class Case:
    """One command line and what it must do."""

    name: str
    args: list[str]
    expect: tuple[int, ...] = OK
    usage_block: bool = False  # typer's usage block on stderr is fine here
    files: dict[str, str | bytes] = dataclasses.field(default_factory=dict)  # extra input files
    writes: tuple[str, ...] = ()  # files the command may change
    pre: list[list[str]] = dataclasses.field(default_factory=list)  # commands run first (exit 0)
    stdin: str | None = None  # text on stdin (None: /dev/null; "" for sigint: an open pipe)
    timeout: float | None = None
    sigint: bool = False
    sigint_group: bool = False
    signum: int = signal.SIGINT  # what "sigint" sends (SIGTERM: `kill PID`, a batch job's end)
    early_ok: tuple[
        int, ...
    ] = ()  # Ctrl-C cases: exiting before the SIGINT with these codes is fine
    hold_port: bool = False  # {port} is a port a socket of the sweep listens on
    check: Callable[[str, str, Path], str | None] | None = None  # (stdout, stderr, cwd) -> problem


@dataclasses.dataclass
class Result:
    name: str
    argv: list[str]
    expect: list[int]
    rc: int | None
    seconds: float
    peak_rss_mb: float
    verdict: str
    problems: list[str]
    stderr_head: str
    stdout_tail: str


# ---------------------------------------------------------------- fixtures


def _foreign_sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, balance REAL)")
    con.executemany(
        "INSERT INTO customers (name, balance) VALUES (?, ?)",
        [("Ada", 12.5), ("Grace", 99.0), ("Linus", -3.0)],
    )
    con.commit()
    con.close()


def make_fixtures(cwd: Path) -> None:
    """The files a new user might hand to any command, in every working folder."""
    shutil.copy(EXAMPLES / "skat_position.json", cwd / "pos.json")
    shutil.copy(EXAMPLES / "iss_games.sgf", cwd / "games.sgf")
    (cwd / "notes.txt").write_text("my shopping list\nmilk\neggs\n")
    (cwd / "bin.dat").write_bytes(random.Random(45).randbytes(4096))
    (cwd / "empty.txt").write_bytes(b"")
    (cwd / "bad.json").write_text('{"game": "grand", "hands": [[')
    (cwd / "list.json").write_text("[1, 2, 3]\n")
    _foreign_sqlite(cwd / "foreign.sqlite3")
    (cwd / "adir").mkdir()
    (cwd / "fdir").mkdir()
    (cwd / "fdir" / "keep.txt").write_text("someone else's folder\n")
    past = time.time() - 3600  # an mtime a write would visibly change
    for p in cwd.rglob("*"):
        if p.is_file():
            os.utime(p, (past, past))


def snapshot(cwd: Path) -> dict[str, tuple[str, int]]:
    out = {}
    for p in sorted(cwd.rglob("*")):
        if p.is_file() and not p.is_symlink():
            with contextlib.suppress(OSError):
                out[str(p.relative_to(cwd))] = (
                    hashlib.sha256(p.read_bytes()).hexdigest(),
                    p.stat().st_mtime_ns,
                )
    return out


def tree(cwd: Path) -> set[str]:
    return {str(p.relative_to(cwd)) for p in cwd.rglob("*")}


# ---------------------------------------------------------------- /proc


def _stat(pid: int) -> tuple[int, int] | None:
    """(ppid, pgid) of a live process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[2])


def family(root: int, pgid: int) -> set[int]:
    """Processes in the group ``pgid`` and all descendants of ``root``."""
    parents: dict[int, int] = {}
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = _stat(int(entry))
        if st is None:
            continue
        parents[int(entry)] = st[0]
        if st[1] == pgid:
            found.add(int(entry))
    changed = True
    while changed:
        changed = False
        for pid, ppid in parents.items():
            if pid not in found and (ppid in found or ppid == root):
                found.add(pid)
                changed = True
    found.discard(os.getpid())
    return found


def rss_kb(pids: set[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            pass
    return total


def kill_all(root: int, pgid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)
    for pid in family(root, pgid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------- running


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def held_port() -> Iterator[int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        yield int(s.getsockname()[1])
    finally:
        s.close()


def child_env(cwd: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    env["SPIELWERK_DATA_DIR"] = str(cwd / ".spielwerk-data")
    return env


def usage_block_only(lines: list[str]) -> bool:
    """stderr is typer's usage block: Usage:, Try '... --help', an error box."""
    text = "\n".join(lines)
    return "Usage:" in text and ("╭─ Error" in text or "Error:" in text or "Try " in text)


def run_case(case: Case, exe: str, time_limit: float, mem_limit_mb: float) -> Result:
    limit = case.timeout or time_limit
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cli-sweep-") as tmp, contextlib.ExitStack() as stack:
        cwd = Path(tmp)
        make_fixtures(cwd)
        for name, content in case.files.items():
            p = cwd / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)
        env = child_env(cwd)
        subs = {"port": str(free_port())}
        if case.hold_port:
            subs["port"] = str(stack.enter_context(held_port()))
        for pre in case.pre:
            r = subprocess.run(
                [exe, *pre],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            if r.returncode != 0:
                problems.append(
                    f"setup command {pre} exited {r.returncode}: "
                    f"{(r.stderr.strip().splitlines() or [''])[-1][:200]}"
                )
        before = snapshot(cwd)
        names_before = tree(cwd)
        argv = [exe, *(a.format(**subs) for a in case.args)]
        out_path, err_path = cwd.parent / f"{cwd.name}.out", cwd.parent / f"{cwd.name}.err"
        stdin_arg: int | object
        if case.stdin is not None and not case.sigint:
            in_path = cwd.parent / f"{cwd.name}.in"
            in_path.write_text(case.stdin)
            stdin_f = stack.enter_context(open(in_path, "rb"))
            stdin_arg = stdin_f
        elif case.sigint and case.stdin is not None:
            stdin_arg = subprocess.PIPE  # held open: the command waits at its prompt
        else:
            stdin_arg = subprocess.DEVNULL
        with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
            t0 = time.monotonic()
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=stdin_arg,
                stdout=fo,
                stderr=fe,
                start_new_session=True,
            )
            pgid = proc.pid
            peak = 0
            sent_at: float | None = None
            killed = None
            stack.callback(kill_all, proc.pid, pgid)  # also when the sweep itself is interrupted
            while True:
                rc = proc.poll()
                now = time.monotonic() - t0
                if rc is not None:
                    break
                peak = max(peak, rss_kb(family(proc.pid, pgid)))
                if peak > mem_limit_mb * 1024:
                    killed = f"peak RSS over {mem_limit_mb:.0f} MB after {now:.1f} s: killed"
                    break
                if case.sigint and sent_at is None:
                    printed = out_path.stat().st_size + err_path.stat().st_size > 0
                    if now >= 3.0 and (printed or now >= 8.0):
                        if case.sigint_group:
                            os.killpg(pgid, case.signum)
                        else:
                            proc.send_signal(case.signum)
                        sent_at = now
                if sent_at is not None and now - sent_at > 10.0:
                    killed = (f"still running 10 s after {signal.Signals(case.signum).name} "
                              "(ignored): killed")
                    break
                if sent_at is None and now > limit:
                    killed = f"over the time limit of {limit:.0f} s: killed"
                    break
                time.sleep(0.1)
            if killed:
                kill_all(proc.pid, pgid)
                rc = proc.wait()
                problems.append(killed)
            seconds = time.monotonic() - t0
            if proc.stdin:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
        # anything left of the command: wait up to 3 s, then report and kill it
        left = family(proc.pid, pgid)
        deadline = time.monotonic() + 3.0
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = family(proc.pid, pgid)
        if left and not killed:
            names = []
            for pid in sorted(left):
                with contextlib.suppress(OSError):
                    names.append(
                        Path(f"/proc/{pid}/cmdline")
                        .read_bytes()
                        .replace(b"\0", b" ")
                        .decode(errors="replace")
                        .strip()[:60]
                    )
            problems.append(f"{len(left)} process(es) left in its group: {'; '.join(names)}")
        if left:
            kill_all(proc.pid, pgid)
        stdout = out_path.read_text(errors="replace")
        stderr = err_path.read_text(errors="replace")
        after = snapshot(cwd)
        names_after = tree(cwd)

    if not killed:
        if case.sigint and sent_at is None:
            if rc not in case.early_ok:
                problems.append(f"exited {rc} after {seconds:.1f} s, before Ctrl-C was sent")
        elif case.sigint and rc not in case.expect:
            problems.append(
                f"exit code {rc} after Ctrl-C, expected {' or '.join(map(str, case.expect))}"
            )
        elif rc not in case.expect:
            problems.append(f"exit code {rc}, expected {' or '.join(map(str, case.expect))}")
    if "Traceback" in stdout or "Traceback" in stderr:
        problems.append("traceback: " + first_traceback_line(stdout + "\n" + stderr))
    err_lines = [ln for ln in stderr.splitlines() if ln.strip()]
    if rc == 2 and not killed and len(err_lines) > 1:
        if not (case.usage_block and usage_block_only(err_lines)):
            problems.append(f"error is {len(err_lines)} lines on stderr")
    help_shown = case.usage_block and "Usage:" in stdout
    # a failure verdict (exit 1: a fuzz run that found a failing game, a record that
    # disagrees) may be reported on stdout with its table; anything else says why on stderr
    reported = rc == 1 and bool(stdout.strip())
    if (rc not in (0, None) and not killed and not err_lines and not case.sigint
            and not help_shown and not reported):
        problems.append(f"exit code {rc} with nothing on stderr")
    for name, (digest, mtime) in before.items():
        if name in case.writes:
            continue
        if name not in after:
            problems.append(f"input file {name} removed")
        elif after[name][0] != digest:
            problems.append(f"input file {name} changed (bytes)")
        elif after[name][1] != mtime:
            problems.append(f"input file {name} touched (mtime)")
    new = sorted(
        n
        for n in names_after - names_before
        if not n.startswith(".spielwerk-data") and n not in case.writes
    )
    if rc == 2 and not case.sigint and new:
        problems.append(f"failed, but left new files: {', '.join(new[:4])}")
    if case.check and not killed and rc == 0 and not problems:
        msg = case.check(stdout, stderr, cwd)
        if msg:
            problems.append(msg)
    return Result(
        name=case.name,
        argv=["spielwerk", *argv[1:]],
        expect=list(case.expect),
        rc=rc,
        seconds=round(seconds, 2),
        peak_rss_mb=round(peak / 1024, 1),
        verdict="FAIL" if problems else "ok",
        problems=problems,
        stderr_head="\n".join(stderr.splitlines()[:6])[:1000],
        stdout_tail="\n".join(stdout.splitlines()[-6:])[:1000],
    )


def first_traceback_line(text: str) -> str:
    """The exception line of a traceback (what went wrong), else its first line."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if "Traceback" in ln), None)
    if start is None:
        return ""
    found = [
        ln.strip(" │")
        for ln in lines[start + 1 :]
        if EXC_LINE.match(ln.strip(" │")) and not ln.startswith(("  ", "│  "))
    ]
    return (found[-1] if found else lines[start].strip())[:200]


# ---------------------------------------------------------------- checks


def is_json(stdout: str, _stderr: str, _cwd: Path) -> str | None:
    try:
        json.loads(stdout)
    except ValueError:
        try:
            for line in stdout.splitlines():
                if line.strip():
                    json.loads(line)
        except ValueError as e:
            return f"--json output is not JSON: {e}"
    return None


def prints(word: str) -> Callable[[str, str, Path], str | None]:
    def check(stdout: str, _stderr: str, _cwd: Path) -> str | None:
        return None if word in stdout else f"stdout lacks {word!r}"

    return check


# ---------------------------------------------------------------- cases


def position(**changes: object) -> str:
    base = json.loads((EXAMPLES / "skat_position.json").read_text())
    base.update(changes)
    return json.dumps(base)


def cases() -> list[Case]:
    c: list[Case] = []

    def add(name: str, args: list[str], expect: tuple[int, ...] = OK, **kw: object) -> None:
        c.append(Case(name, args, expect, **kw))  # type: ignore[arg-type]

    # warm the kernels first, so later time limits measure the commands, not numba
    add("warmup/plain", ["warmup"], timeout=600)
    add("warmup/extra-arg", ["warmup", "now"], USAGE, usage_block=True)

    # top level
    add("top/help", ["--help"])
    add("top/no-args", [], (0, 2), usage_block=True)
    add("top/unknown-command", ["nosuch"], USAGE, usage_block=True)
    add("top/version-option", ["--version"], (0, 2), usage_block=True)
    add("top/group-skat-no-sub", ["skat"], (0, 2), usage_block=True)
    add("top/group-durak-no-sub", ["durak"], (0, 2), usage_block=True)
    add("top/group-kalah-no-sub", ["kalah"], (0, 2), usage_block=True)
    add("top/group-kb-no-sub", ["skat", "kb"], (0, 2), usage_block=True)
    add("top/skat-unknown-sub", ["skat", "nosuch"], USAGE, usage_block=True)
    add("top/kalah-unknown-sub", ["kalah", "nosuch"], USAGE, usage_block=True)
    add("games/plain", ["games"], check=prints("kalah"))
    add("games/extra-arg", ["games", "kalah"], USAGE, usage_block=True)
    add("games/unknown-option", ["games", "--bogus"], USAGE, usage_block=True)

    # bench
    add("bench/kalah-quiet", ["bench", "-g", "kalah", "-q"], timeout=120)
    add("bench/unknown-game", ["bench", "-g", "chess"], USAGE)
    add("bench/empty-game", ["bench", "-g", ""], USAGE)
    add("bench/game-spec", ["bench", "-g", "kalah(pits=4)"], USAGE)

    # arena
    a = ["arena", "kalah", "random", "greedy"]
    add(
        "arena/readme",
        ["arena", "kalah", "random", "greedy", "alphabeta:depth=4", "--games", "20"],
        timeout=120,
    )
    add("arena/serial", [*a, "-n", "2", "-e", "serial"])
    add("arena/json", [*a, "-n", "2", "--json"], check=is_json)
    add("arena/variant", ["arena", "kalah(pits=4,seeds=3)", "random", "greedy", "-n", "2"])
    add("arena/durak", ["arena", "durak", "random", "greedy", "-n", "2", "-e", "serial"])
    add("arena/skat-3", ["arena", "skat", "random", "rule", "rule", "-n", "3", "-e", "serial"])
    add("arena/permutations", [*a, "-n", "2", "--seating", "permutations"])
    add(
        "arena/openspiel-agent",
        ["arena", "kalah", "openspiel:mcts:iters=20", "random", "-n", "2"],
        (0, 2),
    )
    add("arena/missing-agents", ["arena", "kalah"], USAGE, usage_block=True)
    add("arena/one-agent", ["arena", "kalah", "random"], USAGE)
    add("arena/unknown-game", ["arena", "chess", "random", "greedy", "-n", "2"], USAGE)
    add("arena/unknown-agent", ["arena", "kalah", "random", "foo", "-n", "2"], USAGE)
    add(
        "arena/agent-unknown-param",
        ["arena", "kalah", "random", "alphabeta:foo=1", "-n", "2"],
        USAGE,
    )
    add(
        "arena/agent-negative", ["arena", "kalah", "random", "alphabeta:depth=-1", "-n", "2"], USAGE
    )
    add(
        "arena/agent-wrong-type",
        ["arena", "kalah", "random", "alphabeta:depth=abc", "-n", "2"],
        USAGE,
    )
    add(
        "arena/agent-huge-depth",
        ["arena", "kalah", "random", "alphabeta:depth=1000000", "-n", "2"],
        USAGE,
        timeout=30,
    )
    add("arena/agent-no-value", ["arena", "kalah", "random", "alphabeta:depth", "-n", "2"], USAGE)
    add("arena/agent-zero-iters", ["arena", "kalah", "random", "mcts:iters=0", "-n", "2"], USAGE)
    add("arena/agent-negative-time", ["arena", "kalah", "random", "mcts:time=-1", "-n", "2"], USAGE)
    add("arena/agent-nan-time", ["arena", "kalah", "random", "mcts:time=nan", "-n", "2"], USAGE)
    add("arena/agent-trailing-colon", ["arena", "kalah", "random", "greedy:", "-n", "2"], (0, 2))
    add("arena/game-zero-pits", ["arena", "kalah(pits=0)", "random", "greedy", "-n", "2"], USAGE)
    add("arena/game-bad-type", ["arena", "kalah(pits=abc)", "random", "greedy", "-n", "2"], USAGE)
    add(
        "arena/game-negative-seeds",
        ["arena", "kalah(seeds=-1)", "random", "greedy", "-n", "2"],
        USAGE,
    )
    add("arena/game-unbalanced", ["arena", "kalah(pits=4", "random", "greedy", "-n", "2"], USAGE)
    add("arena/game-unknown-param", ["arena", "kalah(foo=1)", "random", "greedy", "-n", "2"], USAGE)
    add(
        "arena/game-huge-pits",
        ["arena", "kalah(pits=1000000000)", "random", "greedy", "-n", "2"],
        USAGE,
        timeout=30,
    )
    add(
        "arena/game-durak-7-players",
        ["arena", "durak(players=7)", "random", "greedy", "-n", "2"],
        USAGE,
    )
    add("arena/n-zero", [*a, "-n", "0"], USAGE)
    add("arena/n-negative", [*a, "-n", "-1"], USAGE)
    add("arena/n-odd", [*a, "-n", "3"], USAGE)
    add("arena/n-abc", [*a, "-n", "abc"], USAGE)
    add("arena/n-huge", [*a, "-n", BIG], USAGE, timeout=30)
    add("arena/games-1e9", [*a, "--games", "1000000000"], USAGE, timeout=30)
    add("arena/workers-zero", [*a, "-n", "2", "-w", "0"], USAGE)
    add("arena/workers-negative", [*a, "-n", "2", "-w", "-1"], USAGE)
    add("arena/workers-100000", [*a, "-n", "2", "-w", "100000"], USAGE, timeout=30)
    add("arena/seed-negative", [*a, "-n", "2", "-s", "-1"], USAGE)
    add("arena/seed-abc", [*a, "-n", "2", "-s", "abc"], USAGE)
    add("arena/seed-2^64", [*a, "-n", "2", "-s", str(2**64)], (0, 2))
    add("arena/executor-unknown", [*a, "-n", "2", "-e", "cluster"], USAGE)
    add("arena/executor-dask-down", [*a, "-n", "2", "-e", "dask://127.0.0.1:9"], (1, 2), timeout=45)
    add("arena/confidence-1.5", [*a, "-n", "2", "--confidence", "1.5"], USAGE)
    add("arena/confidence-zero", [*a, "-n", "2", "--confidence", "0"], USAGE)
    add("arena/confidence-nan", [*a, "-n", "2", "--confidence", "nan"], USAGE)
    add("arena/seating-unknown", [*a, "-n", "2", "--seating", "shuffle"], USAGE)
    add("arena/output-new", [*a, "-n", "2", "-o", "r.jsonl"])
    add("arena/output-missing-folder", [*a, "-n", "2", "-o", "no/such/r.jsonl"], (0, 2))
    add("arena/output-directory", [*a, "-n", "2", "-o", "adir"], USAGE)
    add("arena/output-foreign-text", [*a, "-n", "2", "-o", "notes.txt"], USAGE)
    add("arena/output-binary", [*a, "-n", "2", "-o", "bin.dat"], USAGE)
    add("arena/output-sqlite", [*a, "-n", "2", "-o", "foreign.sqlite3"], USAGE)
    add("arena/resume-foreign", [*a, "-n", "2", "-o", "notes.txt", "--resume"], USAGE)
    add("arena/resume-no-output", [*a, "-n", "2", "--resume"], USAGE)
    add("arena/resume-and-fresh", [*a, "-n", "2", "-o", "r.jsonl", "--resume", "--fresh"], USAGE)
    add(
        "arena/output-exists-again",
        [*a, "-n", "2", "-o", "r.jsonl"],
        USAGE,
        pre=[[*a, "-n", "2", "-o", "r.jsonl"]],
    )
    add(
        "arena/output-resume",
        [*a, "-n", "2", "-o", "r.jsonl", "--resume"],
        pre=[[*a, "-n", "2", "-o", "r.jsonl"]],
        writes=("r.jsonl",),
    )
    add(
        "arena/output-fresh",
        [*a, "-n", "2", "-o", "r.jsonl", "--fresh"],
        pre=[[*a, "-n", "2", "-o", "r.jsonl"]],
        writes=("r.jsonl",),
    )
    add(
        "arena/resume-other-agents",
        ["arena", "kalah", "random", "alphabeta:depth=2", "-n", "2", "-o", "r.jsonl", "--resume"],
        USAGE,
        pre=[[*a, "-n", "2", "-o", "r.jsonl"]],
    )
    add("arena/unknown-option", [*a, "--bogus"], USAGE, usage_block=True)

    # play (interactive)
    add("play/kalah-quit", ["play", "kalah"], stdin="q\n")
    add("play/readme-alphabeta8", ["play", "kalah", "--vs", "alphabeta:depth=8"], stdin="q\n")
    add("play/kalah-eof", ["play", "kalah"], (0, 1), stdin="")
    add("play/kalah-bad-moves", ["play", "kalah"], stdin="99\nabc\n\n-1\n0\nq\n")
    add("play/kalah-a-move", ["play", "kalah(pits=4,seeds=3)", "--vs", "random"], stdin="1\nq\n")
    add("play/skat-quit", ["play", "skat", "--vs", "rule"], stdin="q\n")
    add("play/durak-quit", ["play", "durak", "--vs", "mcts"], stdin="q\n")
    add("play/unknown-game", ["play", "chess"], USAGE, stdin="q\n")
    add("play/unknown-agent", ["play", "kalah", "--vs", "nosuch"], USAGE, stdin="q\n")
    add("play/agent-bad-param", ["play", "kalah", "--vs", "alphabeta:depth=x"], USAGE, stdin="q\n")
    add(
        "play/too-many-opponents",
        ["play", "kalah", "--vs", "random", "--vs", "random"],
        USAGE,
        stdin="q\n",
    )
    add("play/seat-out-of-range", ["play", "kalah", "--seat", "5"], USAGE, stdin="q\n")
    add("play/seat-negative", ["play", "kalah", "--seat", "-1"], USAGE, stdin="q\n")
    add("play/seed-negative", ["play", "kalah", "--seed", "-1"], USAGE, stdin="q\n")
    add("play/missing-game", ["play"], USAGE, usage_block=True)

    # fuzz
    k43 = "kalah(pits=4,seeds=3)"
    add("fuzz/readme", ["fuzz", k43, "--games", "10000"], timeout=120)
    add("fuzz/kalah-inprocess", ["fuzz", "kalah", "-n", "10", "-w", "1"])
    add("fuzz/skat", ["fuzz", "skat", "-n", "5", "-w", "1"])
    add("fuzz/durak", ["fuzz", "durak", "-n", "5", "-w", "1"])
    add("fuzz/max-moves-1-fails", ["fuzz", "kalah", "-n", "3", "-w", "1", "--max-moves", "1"], (1,))
    add("fuzz/n-zero", ["fuzz", "kalah", "-n", "0"], USAGE)
    add("fuzz/n-negative", ["fuzz", "kalah", "-n", "-1"], USAGE)
    add("fuzz/n-huge", ["fuzz", "kalah", "-n", BIG], USAGE, timeout=30)
    # a run of years is refused at once (a billion games: about 80 days on 2 cores, played)
    add("fuzz/games-1e12", ["fuzz", "kalah", "--games", "1000000000000"], USAGE, timeout=30)
    add("fuzz/workers-100000", ["fuzz", "kalah", "-n", "10", "-w", "100000"], USAGE, timeout=30)
    add("fuzz/workers-negative", ["fuzz", "kalah", "-n", "10", "-w", "-1"], USAGE)
    add("fuzz/max-moves-zero", ["fuzz", "kalah", "--max-moves", "0"], USAGE)
    add("fuzz/max-failures-zero", ["fuzz", "kalah", "--max-failures", "0"], USAGE)
    add("fuzz/seed-negative", ["fuzz", "kalah", "-s", "-5"], USAGE)
    add("fuzz/unknown-game", ["fuzz", "chess"], USAGE)
    add("fuzz/bad-variant", ["fuzz", "kalah(pits=0)"], USAGE)
    add("fuzz/skat-bad-variant", ["fuzz", "skat(players=5)"], USAGE)

    # serve (a valid start runs until Ctrl-C: see the Ctrl-C group)
    add("serve/port-zero", ["serve", "--port", "0"], USAGE)
    add("serve/port-70000", ["serve", "--port", "70000"], USAGE)
    add("serve/port-abc", ["serve", "--port", "abc"], USAGE)
    add("serve/engines-65", ["serve", "--engines", "65"], USAGE)
    add("serve/engines-negative", ["serve", "--engines", "-1"], USAGE)
    add("serve/abandon-negative", ["serve", "--abandon", "-1"], USAGE)
    add(
        "serve/db-foreign-sqlite",
        ["serve", "--port", "{port}", "--db", "foreign.sqlite3"],
        USAGE,
        timeout=20,
    )
    add("serve/db-text", ["serve", "--port", "{port}", "--db", "notes.txt"], USAGE, timeout=20)
    add("serve/db-binary", ["serve", "--port", "{port}", "--db", "bin.dat"], USAGE, timeout=20)
    add("serve/db-directory", ["serve", "--port", "{port}", "--db", "adir"], USAGE, timeout=20)
    add("serve/db-json", ["serve", "--port", "{port}", "--db", "pos.json"], USAGE, timeout=20)
    add(
        "serve/port-in-use",
        ["serve", "--port", "{port}", "--db", "web.sqlite3"],
        (1, 2),
        hold_port=True,
        timeout=20,
    )
    add(
        "serve/host-invalid",
        ["serve", "--host", "999.1.1.1", "--port", "{port}", "--db", "web.sqlite3"],
        (1, 2),
        timeout=20,
    )
    add("serve/unknown-option", ["serve", "--bogus"], USAGE, usage_block=True)

    # skat replay
    add("skat-replay/examples", ["skat", "replay", "games.sgf"])
    add("skat-replay/quiet", ["skat", "replay", "-q", "games.sgf"])
    add("skat-replay/text-file", ["skat", "replay", "notes.txt"], USAGE)
    add("skat-replay/readme", ["skat", "replay", str(ROOT / "README.md")], USAGE)
    add("skat-replay/binary", ["skat", "replay", "bin.dat"], USAGE)
    add("skat-replay/empty", ["skat", "replay", "empty.txt"], USAGE)
    add("skat-replay/missing", ["skat", "replay", "missing.sgf"], USAGE)
    add("skat-replay/directory", ["skat", "replay", "adir"], USAGE)
    add("skat-replay/json", ["skat", "replay", "pos.json"], USAGE)
    add("skat-replay/sqlite", ["skat", "replay", "foreign.sqlite3"], USAGE)
    add("skat-replay/dev-null", ["skat", "replay", "/dev/null"], USAGE)
    sgf_lines = (EXAMPLES / "iss_games.sgf").read_text().splitlines()
    tampered = sgf_lines[0].replace("v:-54", "v:54")
    add(
        "skat-replay/wrong-result",
        ["skat", "replay", "t.sgf"],
        (1,),
        files={"t.sgf": "\n".join([tampered, *sgf_lines[1:]]) + "\n"},
    )
    add(
        "skat-replay/truncated-record",
        ["skat", "replay", "t.sgf"],
        (1, 2),
        files={"t.sgf": sgf_lines[0][: len(sgf_lines[0]) // 2] + "\n"},
    )
    add("skat-replay/missing-arg", ["skat", "replay"], USAGE, usage_block=True)

    # skat analyze
    first_id = sgf_lines[1].split("ID[", 1)[1].split("]", 1)[0]
    add("skat-analyze/examples", ["skat", "analyze", "games.sgf"], timeout=120)
    add("skat-analyze/game-id", ["skat", "analyze", "games.sgf", "--game", first_id], timeout=120)
    add("skat-analyze/game-unknown", ["skat", "analyze", "games.sgf", "--game", "nosuch"], USAGE)
    add("skat-analyze/text-file", ["skat", "analyze", "notes.txt"], USAGE)
    add("skat-analyze/binary", ["skat", "analyze", "bin.dat"], USAGE)
    add("skat-analyze/empty", ["skat", "analyze", "empty.txt"], USAGE)
    add("skat-analyze/missing", ["skat", "analyze", "missing.sgf"], USAGE)
    add("skat-analyze/directory", ["skat", "analyze", "adir"], USAGE)

    # skat solve
    add("skat-solve/example", ["skat", "solve", "pos.json"])
    add("skat-solve/json", ["skat", "solve", "pos.json", "--json"], check=is_json)
    for q in ("61", "90", "schwarz"):
        add(f"skat-solve/query-{q}", ["skat", "solve", "pos.json", "--query", q])
    add("skat-solve/query-unknown", ["skat", "solve", "pos.json", "--query", "everything"], USAGE)
    add("skat-solve/query-null-on-grand", ["skat", "solve", "pos.json", "--query", "null"], (0, 2))
    add("skat-solve/missing", ["skat", "solve", "missing.json"], USAGE)
    add("skat-solve/directory", ["skat", "solve", "adir"], USAGE)
    add("skat-solve/binary", ["skat", "solve", "bin.dat"], USAGE)
    add("skat-solve/bad-json", ["skat", "solve", "bad.json"], USAGE)
    add("skat-solve/json-list", ["skat", "solve", "list.json"], USAGE)
    add("skat-solve/empty-file", ["skat", "solve", "empty.txt"], USAGE)
    add("skat-solve/sgf", ["skat", "solve", "games.sgf"], USAGE)
    add("skat-solve/empty-object", ["skat", "solve", "p.json"], USAGE, files={"p.json": "{}"})
    add(
        "skat-solve/unknown-game",
        ["skat", "solve", "p.json"],
        USAGE,
        files={"p.json": position(game="bridge")},
    )
    add(
        "skat-solve/bad-card",
        ["skat", "solve", "p.json"],
        USAGE,
        files={
            "p.json": position(hands=[["CJ", "SJ", "XX"], ["HA", "H7", "ST"], ["DA", "D7", "S7"]])
        },
    )
    add(
        "skat-solve/duplicate-card",
        ["skat", "solve", "p.json"],
        USAGE,
        files={
            "p.json": position(hands=[["CJ", "SJ", "SA"], ["CJ", "H7", "ST"], ["DA", "D7", "S7"]])
        },
    )
    add(
        "skat-solve/uneven-hands",
        ["skat", "solve", "p.json"],
        USAGE,
        files={
            "p.json": position(
                hands=[["CJ", "SJ", "SA", "C7"], ["HA", "H7", "ST"], ["DA", "D7", "S7"]]
            )
        },
    )
    add(
        "skat-solve/declarer-5",
        ["skat", "solve", "p.json"],
        USAGE,
        files={"p.json": position(declarer=5)},
    )
    add(
        "skat-solve/to-move-string",
        ["skat", "solve", "p.json"],
        USAGE,
        files={"p.json": position(to_move="one")},
    )
    add(
        "skat-solve/points-over-120",
        ["skat", "solve", "p.json"],
        USAGE,
        files={"p.json": position(declarer_points=500)},
    )
    add("skat-solve/missing-arg", ["skat", "solve"], USAGE, usage_block=True)

    # skat bid / put
    add("skat-bid/readme", ["skat", "bid", *SKAT_HAND])
    add(
        "skat-bid/middlehand-json",
        ["skat", "bid", *SKAT_HAND, "--position", "middlehand", "--json"],
        check=is_json,
    )
    add("skat-bid/nine-cards", ["skat", "bid", *SKAT_HAND[:9]], USAGE)
    add("skat-bid/eleven-cards", ["skat", "bid", *SKAT_HAND, "DA"], USAGE)
    add("skat-bid/duplicate", ["skat", "bid", *SKAT_HAND[:9], "CJ"], USAGE)
    add("skat-bid/bad-card", ["skat", "bid", *SKAT_HAND[:9], "XX"], USAGE)
    add("skat-bid/lowercase", ["skat", "bid", *(x.lower() for x in SKAT_HAND)], (0, 2))
    add("skat-bid/position-unknown", ["skat", "bid", *SKAT_HAND, "--position", "dealer"], USAGE)
    add("skat-bid/k-zero", ["skat", "bid", *SKAT_HAND, "--k", "0"], USAGE)
    add("skat-bid/k-huge", ["skat", "bid", *SKAT_HAND, "--k", "100000000"], USAGE, timeout=30)
    add("skat-bid/base-missing", ["skat", "bid", *SKAT_HAND, "--base", "nokb"], USAGE)
    add("skat-bid/base-empty-dir", ["skat", "bid", *SKAT_HAND, "--base", "adir"], USAGE)
    add("skat-bid/base-foreign-dir", ["skat", "bid", *SKAT_HAND, "--base", "fdir"], USAGE)
    add("skat-bid/base-file", ["skat", "bid", *SKAT_HAND, "--base", "notes.txt"], USAGE)
    add("skat-bid/play-unknown", ["skat", "bid", *SKAT_HAND, "--play", "magic"], USAGE)
    put = [*SKAT_HAND, "DA", "DT"]
    add("skat-put/readme", ["skat", "put", *put])
    add("skat-put/bid-30", ["skat", "put", *put, "--bid", "30"])
    add(
        "skat-put/readme-refined",
        [
            "skat",
            "put",
            "CJ",
            "SJ",
            "HJ",
            "CA",
            "CT",
            "C9",
            "SA",
            "S7",
            "HT",
            "H8",
            "D7",
            "D8",
            "--game",
            "clubs",
            "--putting",
            "refined",
            "--json",
        ],
        check=is_json,
    )
    add("skat-put/ten-cards", ["skat", "put", *SKAT_HAND], USAGE)
    add("skat-put/duplicate", ["skat", "put", *SKAT_HAND, "DA", "CJ"], USAGE)
    add("skat-put/bid-17", ["skat", "put", *put, "--bid", "17"], USAGE)
    add("skat-put/bid-1000", ["skat", "put", *put, "--bid", "1000"], USAGE)
    add("skat-put/bid-negative", ["skat", "put", *put, "--bid", "-1"], USAGE)
    add("skat-put/game-unknown", ["skat", "put", *put, "--game", "hearts7"], USAGE)
    add("skat-put/putting-unknown", ["skat", "put", *put, "--putting", "best"], USAGE)
    add("skat-put/base-file", ["skat", "put", *put, "--base", "bin.dat"], USAGE)

    # skat play (interactive)
    add("skat-play/quit", ["skat", "play"], stdin="q\n")
    add("skat-play/eof", ["skat", "play"], (0, 1), stdin="")
    add("skat-play/nonsense-then-quit", ["skat", "play"], stdin="hello\n999\nXX\nq\n")
    add("skat-play/seat-3", ["skat", "play", "--seat", "3"], USAGE, stdin="q\n")
    add("skat-play/dealer-3", ["skat", "play", "--dealer", "3"], USAGE, stdin="q\n")
    add("skat-play/unknown-agent", ["skat", "play", "--vs", "nosuch"], USAGE, stdin="q\n")
    add(
        "skat-play/three-opponents",
        ["skat", "play", "--vs", "rule", "--vs", "rule", "--vs", "rule"],
        USAGE,
        stdin="q\n",
    )
    add("skat-play/agent-bad-param", ["skat", "play", "--vs", "pimc:worlds=0"], USAGE, stdin="q\n")

    # skat match
    m = ["skat", "match", "rule", "random"]
    add(
        "skat-match/readme",
        [
            "skat",
            "match",
            "knn:worlds=4",
            "rule",
            "--deals",
            "2",
            "--seed",
            "1",
            "-o",
            "results/knn-rule.jsonl",
            "--workers",
            "2",
        ],
        timeout=120,
    )
    add(
        "skat-match/readme-summarize",
        ["skat", "match", "--summarize", "r.jsonl"],
        pre=[[*m, "-n", "2", "-e", "serial", "-o", "r.jsonl"]],
    )
    add("skat-match/serial-json", [*m, "-n", "2", "-e", "serial", "--json"], check=is_json)
    add(
        "skat-match/three-agents",
        ["skat", "match", "rule", "random", "rule:threshold=9", "-n", "1", "-e", "serial"],
    )
    add("skat-match/no-agents", ["skat", "match"], USAGE, usage_block=True)
    add("skat-match/one-agent", ["skat", "match", "rule"], USAGE)
    add("skat-match/four-agents", ["skat", "match", "rule", "rule", "rule", "rule"], USAGE)
    add("skat-match/unknown-agent", ["skat", "match", "nosuch", "rule"], USAGE)
    add(
        "skat-match/agent-zero-worlds", ["skat", "match", "pimc:worlds=0", "rule", "-n", "1"], USAGE
    )
    add("skat-match/agent-negative", ["skat", "match", "pimc:worlds=-3", "rule", "-n", "1"], USAGE)
    add(
        "skat-match/agent-unknown-param",
        ["skat", "match", "pimc:nosuch=1", "rule", "-n", "1"],
        USAGE,
    )
    add("skat-match/durak-agent", ["skat", "match", "smart", "rule", "-n", "1"], USAGE)
    add("skat-match/deals-zero", [*m, "-n", "0"], USAGE)
    add("skat-match/deals-negative", [*m, "-n", "-1"], USAGE)
    add("skat-match/deals-2^31", [*m, "--deals", "2147483648"], USAGE, timeout=30)
    add("skat-match/deals-1e9", [*m, "--deals", "1000000000"], USAGE, timeout=30)
    add("skat-match/deals-huge", [*m, "-n", BIG], USAGE, timeout=30)
    add("skat-match/workers-100000", [*m, "-n", "1", "-w", "100000"], USAGE, timeout=30)
    add("skat-match/seating-unknown", [*m, "-n", "1", "--seating", "round"], USAGE)
    add("skat-match/seating-permutations-2", [*m, "-n", "1", "--seating", "permutations"], USAGE)
    add("skat-match/confidence-2", [*m, "-n", "1", "--confidence", "2"], USAGE)
    add("skat-match/executor-unknown", [*m, "-n", "1", "-e", "gpu"], USAGE)
    add("skat-match/summarize-missing", ["skat", "match", "--summarize", "missing.jsonl"], USAGE)
    add("skat-match/summarize-text", ["skat", "match", "--summarize", "notes.txt"], USAGE)
    add("skat-match/summarize-binary", ["skat", "match", "--summarize", "bin.dat"], USAGE)
    add("skat-match/summarize-directory", ["skat", "match", "--summarize", "adir"], USAGE)
    add("skat-match/summarize-empty", ["skat", "match", "--summarize", "empty.txt"], (0, 2))
    add("skat-match/output-directory", [*m, "-n", "1", "-o", "adir"], USAGE)
    add("skat-match/output-foreign", [*m, "-n", "1", "-o", "notes.txt"], USAGE)
    add("skat-match/output-foreign-fresh", [*m, "-n", "1", "-o", "notes.txt", "--fresh"], USAGE)
    add(
        "skat-match/output-sqlite-fresh", [*m, "-n", "1", "-o", "foreign.sqlite3", "--fresh"], USAGE
    )
    add(
        "skat-match/output-missing-folder",
        [*m, "-n", "1", "-e", "serial", "-o", "no/such/r.jsonl"],
        (0, 2),
    )
    add("skat-match/resume-no-output", [*m, "-n", "1", "--resume"], USAGE)
    add(
        "skat-match/output-exists-again",
        [*m, "-n", "2", "-e", "serial", "-o", "r.jsonl"],
        USAGE,
        pre=[[*m, "-n", "2", "-e", "serial", "-o", "r.jsonl"]],
    )
    add(
        "skat-match/resume-other-agents",
        [
            "skat",
            "match",
            "rule",
            "rule:threshold=9",
            "-n",
            "2",
            "-e",
            "serial",
            "-o",
            "r.jsonl",
            "--resume",
        ],
        USAGE,
        pre=[[*m, "-n", "2", "-e", "serial", "-o", "r.jsonl"]],
    )

    # skat kb build
    kb = ["skat", "kb", "build"]
    add(
        "skat-kb/build-2", [*kb, "--deals", "2", "--out", "kb", "--executor", "serial"], timeout=120
    )
    add("skat-kb/missing-out", [*kb, "--deals", "2"], USAGE, usage_block=True)
    add("skat-kb/missing-deals", [*kb, "--out", "kb"], USAGE, usage_block=True)
    add("skat-kb/deals-zero", [*kb, "--deals", "0", "--out", "kb"], USAGE)
    add("skat-kb/deals-negative", [*kb, "--deals", "-1", "--out", "kb"], USAGE)
    add("skat-kb/deals-2^31", [*kb, "--deals", "2147483648", "--out", "kb"], USAGE)
    add("skat-kb/deals-2^31-1", [*kb, "--deals", "2147483647", "--out", "kb"], USAGE, timeout=30)
    add("skat-kb/out-file", [*kb, "--deals", "2", "--out", "notes.txt"], USAGE)
    add("skat-kb/out-foreign-dir", [*kb, "--deals", "2", "--out", "fdir"], USAGE)
    add("skat-kb/workers-zero", [*kb, "--deals", "2", "--out", "kb", "--workers", "0"], USAGE)
    add(
        "skat-kb/workers-100000",
        [*kb, "--deals", "2", "--out", "kb", "--workers", "100000"],
        USAGE,
        timeout=30,
    )
    add("skat-kb/chunk-zero", [*kb, "--deals", "2", "--out", "kb", "--chunk", "0"], USAGE)
    add("skat-kb/weak-accept-2", [*kb, "--deals", "2", "--out", "kb", "--weak-accept", "2"], USAGE)
    add(
        "skat-kb/weak-accept-negative",
        [*kb, "--deals", "2", "--out", "kb", "--weak-accept", "-0.5"],
        USAGE,
    )
    add(
        "skat-kb/put-scaling-unknown",
        [*kb, "--deals", "2", "--out", "kb", "--put-scaling", "log"],
        USAGE,
    )
    add(
        "skat-kb/put-base-missing",
        [*kb, "--deals", "2", "--out", "kb", "--put-base", "nokb"],
        USAGE,
    )
    add(
        "skat-kb/put-base-file",
        [*kb, "--deals", "2", "--out", "kb", "--put-base", "bin.dat"],
        USAGE,
    )
    add(
        "skat-kb/executor-unknown", [*kb, "--deals", "2", "--out", "kb", "--executor", "gpu"], USAGE
    )
    add(
        "skat-kb/resume-missing",
        [*kb, "--deals", "2", "--out", "kb", "--resume", "--executor", "serial"],
        (0, 2),
        timeout=120,
    )

    # durak tournament / play
    dt = ["durak", "tournament", "--agents", "greedy", "smart"]
    add(
        "durak-tournament/readme",
        [*dt, "--games", "2", "--time-per-move", "0.1", "-o", "results/durak.jsonl"],
        timeout=120,
    )
    add("durak-tournament/json", [*dt, "-n", "2", "--json"], check=is_json)
    add("durak-tournament/deck-24-open", [*dt, "-n", "2", "--deck", "24", "--open-world"])
    add(
        "durak-tournament/partial",
        [*dt, "-n", "2", "-o", "d.jsonl", "--partial"],
        pre=[[*dt, "-n", "2", "-o", "d.jsonl"]],
    )
    add("durak-tournament/no-agents", ["durak", "tournament"], USAGE)
    add("durak-tournament/one-agent", ["durak", "tournament", "--agents", "greedy"], USAGE)
    add(
        "durak-tournament/unknown-agent",
        ["durak", "tournament", "--agents", "nosuch", "greedy"],
        USAGE,
    )
    add(
        "durak-tournament/agent-bad-param",
        ["durak", "tournament", "--agents", "mcts:worlds=-1", "greedy"],
        USAGE,
    )
    add("durak-tournament/games-zero", [*dt, "-n", "0"], USAGE)
    add("durak-tournament/games-odd", [*dt, "-n", "3"], USAGE)
    add("durak-tournament/games-negative", [*dt, "-n", "-1"], USAGE)
    add("durak-tournament/games-1e9", [*dt, "--games", "1000000000"], USAGE, timeout=30)
    add("durak-tournament/games-huge", [*dt, "-n", BIG], USAGE, timeout=30)
    add("durak-tournament/players-3", [*dt, "--players", "3"], USAGE)
    add("durak-tournament/deck-40", [*dt, "--deck", "40"], USAGE)
    add("durak-tournament/preset-unknown", [*dt, "--preset", "fool"], USAGE)
    add("durak-tournament/time-negative", [*dt, "--time-per-move", "-1"], USAGE)
    add("durak-tournament/confidence-5", [*dt, "--confidence", "5"], USAGE)
    add("durak-tournament/workers-100000", [*dt, "-n", "2", "-w", "100000"], USAGE, timeout=30)
    add("durak-tournament/executor-unknown", [*dt, "-n", "2", "--executor", "gpu"], USAGE)
    add("durak-tournament/partial-no-output", [*dt, "--partial"], USAGE)
    add("durak-tournament/partial-missing", [*dt, "--partial", "-o", "missing.jsonl"], USAGE)
    add("durak-tournament/partial-foreign", [*dt, "--partial", "-o", "notes.txt"], USAGE)
    add("durak-tournament/output-foreign", [*dt, "-n", "2", "-o", "notes.txt"], USAGE)
    add("durak-tournament/output-directory", [*dt, "-n", "2", "-o", "adir"], USAGE)
    add("durak-tournament/heatmap-directory", [*dt, "-n", "2", "--heatmap", "adir"], USAGE)
    add(
        "durak-tournament/heatmap-missing-folder",
        [*dt, "-n", "2", "--heatmap", "no/such/h.png"],
        (0, 2),
    )
    add("durak-play/quit", ["durak", "play"], stdin="q\n")
    add("durak-play/eof", ["durak", "play"], (0, 1), stdin="")
    add(
        "durak-play/nonsense-then-quit",
        ["durak", "play", "--vs", "greedy"],
        stdin="hello\nS6\ntake\npass\nq\n",
    )
    add("durak-play/players-7", ["durak", "play", "--players", "7"], USAGE, stdin="q\n")
    add("durak-play/players-1", ["durak", "play", "--players", "1"], USAGE, stdin="q\n")
    add(
        "durak-play/deck-too-small",
        ["durak", "play", "--players", "5", "--deck", "24"],
        USAGE,
        stdin="q\n",
    )
    add("durak-play/seat-5", ["durak", "play", "--seat", "5"], USAGE, stdin="q\n")
    add("durak-play/unknown-agent", ["durak", "play", "--vs", "nosuch"], USAGE, stdin="q\n")

    # kalah solve
    add(
        "kalah-solve/readme-6-3",
        ["kalah", "solve", "--pits", "6", "--seeds", "3"],
        timeout=120,
        check=prints("+2"),
    )
    add("kalah-solve/4-3-quiet", ["kalah", "solve", "--pits", "4", "--seeds", "3", "-q"])
    add("kalah-solve/pits-zero", ["kalah", "solve", "--pits", "0"], USAGE)
    add("kalah-solve/pits-16", ["kalah", "solve", "--pits", "16"], USAGE)
    add("kalah-solve/seeds-zero", ["kalah", "solve", "--seeds", "0"], USAGE)
    add(
        "kalah-solve/seeds-1e9",
        ["kalah", "solve", "--pits", "6", "--seeds", "1000000000"],
        USAGE,
        timeout=30,
    )
    add("kalah-solve/tt-5", ["kalah", "solve", "--pits", "3", "--seeds", "2", "--tt", "5"], USAGE)
    add("kalah-solve/tt-40", ["kalah", "solve", "--pits", "3", "--seeds", "2", "--tt", "40"], USAGE)
    add(
        "kalah-solve/egdb-negative",
        ["kalah", "solve", "--pits", "3", "--seeds", "2", "--egdb", "-5"],
        USAGE,
    )
    add(
        "kalah-solve/egdb-1000",
        ["kalah", "solve", "--pits", "3", "--seeds", "2", "--egdb", "1000", "--egdb-dir", "edb"],
        USAGE,
        timeout=30,
    )
    add(
        "kalah-solve/egdb-dir-file",
        ["kalah", "solve", "--pits", "3", "--seeds", "2", "--egdb", "4", "--egdb-dir", "notes.txt"],
        USAGE,
    )
    add("kalah-solve/threads-zero", ["kalah", "solve", "--threads", "0"], USAGE)
    add("kalah-solve/threads-1000", ["kalah", "solve", "--threads", "1000"], USAGE)
    add("kalah-solve/depth-max-zero", ["kalah", "solve", "--depth-max", "0"], USAGE)
    add("kalah-solve/guess-abc", ["kalah", "solve", "--guess", "abc"], USAGE)

    # kalah analyze
    ka = ["kalah", "analyze"]
    add("kalah-analyze/readme-time-10", [*ka, KALAH_START, "--time", "10"], timeout=60)
    add("kalah-analyze/small-exact", [*ka, "3,3,3|3,3,3|0-0 S", "-q"])
    add("kalah-analyze/north", [*ka, "3,3,3|3,3,3|0-0 N", "-q"])
    add("kalah-analyze/start-3-2", [*ka, "start", "--pits", "3", "--seeds", "2", "-q"])
    add("kalah-analyze/one-pit", [*ka, "5|5|0-0 S", "-q"])
    add("kalah-analyze/garbage", [*ka, "x"], USAGE)
    add("kalah-analyze/empty", [*ka, ""], USAGE)
    add("kalah-analyze/uneven-sides", [*ka, "1,2,3|4,5|0-0 S"], USAGE)
    add("kalah-analyze/letters", [*ka, "a,b|c,d|0-0 S"], USAGE)
    add("kalah-analyze/side-X", [*ka, "3,3,3|3,3,3|0-0 X"], USAGE)
    # a leading '-' reads as an option (click's usage block: "No such option: -1");
    # after '--' the position's own one-line error
    add("kalah-analyze/negative-seeds", [*ka, "-1,3,3|3,3,3|0-0 S"], USAGE, usage_block=True)
    add("kalah-analyze/negative-seeds-after-dashes", [*ka, "--", "-1,3,3|3,3,3|0-0 S"], USAGE)
    add("kalah-analyze/bad-stores", [*ka, "3,3,3|3,3,3|0-0-0 S"], USAGE)
    add(
        "kalah-analyze/16-pits",
        [*ka, ",".join(["1"] * 16) + "|" + ",".join(["1"] * 16) + "|0-0 S"],
        USAGE,
    )
    add("kalah-analyze/too-many-seeds", [*ka, "1000000,4,4|4,4,4|0-0 S"], USAGE, timeout=30)
    add("kalah-analyze/huge-seeds-overflow", [*ka, f"{2**70},4,4|4,4,4|0-0 S"], USAGE, timeout=30)
    add("kalah-analyze/finished", [*ka, "0,0,0|0,0,0|9-9 S"], USAGE)
    add("kalah-analyze/side-empty", [*ka, "0,0,0|1,2,3|6-6 S"], USAGE)
    add("kalah-analyze/time-negative", [*ka, "3,3,3|3,3,3|0-0 S", "--time", "-1"], USAGE)
    add("kalah-analyze/time-nan", [*ka, "3,3,3|3,3,3|0-0 S", "--time", "nan"], USAGE)
    add("kalah-analyze/tt-5", [*ka, "3,3,3|3,3,3|0-0 S", "--tt", "5"], USAGE)
    add(
        "kalah-analyze/start-huge-seeds",
        [*ka, "start", "--pits", "6", "--seeds", "1000000000", "--time", "1"],
        USAGE,
        timeout=30,
    )
    add("kalah-analyze/missing-arg", ka, USAGE, usage_block=True)

    # kalah graph / egdb / split
    add("kalah-graph/readme-4-3", ["kalah", "graph", "--pits", "4", "--seeds", "3"], timeout=120)
    add("kalah-graph/2-1-quiet", ["kalah", "graph", "--pits", "2", "--seeds", "1", "-q"])
    add("kalah-graph/pits-zero", ["kalah", "graph", "--pits", "0"], USAGE)
    add("kalah-graph/seeds-zero", ["kalah", "graph", "--seeds", "0"], USAGE)
    add(
        "kalah-graph/too-big-6-6",
        ["kalah", "graph", "--pits", "6", "--seeds", "6"],
        USAGE,
        timeout=30,
    )
    add("kalah-egdb/3-4", ["kalah", "egdb", "--pits", "3", "--max-seeds", "4", "--egdb-dir", "edb"])
    add(
        "kalah-egdb/max-seeds-41",
        ["kalah", "egdb", "--max-seeds", "41", "--egdb-dir", "edb"],
        USAGE,
    )
    add(
        "kalah-egdb/max-seeds-negative",
        ["kalah", "egdb", "--max-seeds", "-1", "--egdb-dir", "edb"],
        USAGE,
    )
    add("kalah-egdb/pits-zero", ["kalah", "egdb", "--pits", "0", "--egdb-dir", "edb"], USAGE)
    add(
        "kalah-egdb/dir-file",
        ["kalah", "egdb", "--pits", "3", "--max-seeds", "4", "--egdb-dir", "notes.txt"],
        USAGE,
    )
    add("kalah-egdb/threads-zero", ["kalah", "egdb", "--threads", "0", "--egdb-dir", "edb"], USAGE)
    add(
        "kalah-egdb/too-big-15-40",
        ["kalah", "egdb", "--pits", "15", "--max-seeds", "40", "--egdb-dir", "edb"],
        USAGE,
        timeout=30,
    )
    ks = ["kalah", "split", "--pits", "3", "--seeds", "2"]
    add(
        "kalah-split/readme-4-3",
        [
            "kalah",
            "split",
            "--pits",
            "4",
            "--seeds",
            "3",
            "--workers",
            "2",
            "--checkpoint",
            "k43.json",
        ],
        timeout=120,
    )
    add("kalah-split/serial", [*ks, "-e", "serial", "-q"])
    add("kalah-split/threads", [*ks, "-e", "threads", "-w", "2", "-q"])
    add("kalah-split/stop-after-zero", [*ks, "-e", "serial", "--stop-after", "0", "-q"], (0, 1))
    add("kalah-split/checkpoint-foreign", [*ks, "-e", "serial", "--checkpoint", "notes.txt"], USAGE)
    add("kalah-split/checkpoint-binary", [*ks, "-e", "serial", "--checkpoint", "bin.dat"], USAGE)
    add(
        "kalah-split/checkpoint-json-other",
        [*ks, "-e", "serial", "--checkpoint", "pos.json"],
        USAGE,
    )
    add("kalah-split/checkpoint-directory", [*ks, "-e", "serial", "--checkpoint", "adir"], USAGE)
    add(
        "kalah-split/checkpoint-missing-folder",
        [*ks, "-e", "serial", "--checkpoint", "no/such/k.json"],
        (0, 2),
    )
    add(
        "kalah-split/checkpoint-other-game",
        ["kalah", "split", "--pits", "3", "--seeds", "3", "-e", "serial", "--checkpoint", "k.json"],
        USAGE,
        pre=[[*ks, "-e", "serial", "-q", "--checkpoint", "k.json"]],
    )
    add("kalah-split/executor-unknown", [*ks, "-e", "gpu"], USAGE)
    add("kalah-split/workers-zero", [*ks, "-w", "0"], USAGE)
    add("kalah-split/workers-257", [*ks, "-w", "257"], USAGE)
    add("kalah-split/node-budget-10", [*ks, "--node-budget", "10"], USAGE)
    add("kalah-split/strategy-unknown", [*ks, "--strategy", "guess"], USAGE)
    add("kalah-split/stop-after-negative", [*ks, "--stop-after", "-1"], USAGE)
    add(
        "kalah-split/seeds-1e9",
        ["kalah", "split", "--pits", "6", "--seeds", "1000000000"],
        USAGE,
        timeout=30,
    )

    # Ctrl-C: long commands, SIGINT after 3 s
    long_cmds: list[tuple[str, list[str], tuple[int, ...]]] = [
        (
            "arena",
            [
                "arena",
                "kalah",
                "mcts:iters=300",
                "alphabeta:depth=7",
                "-n",
                "400",
                "-w",
                "2",
                "-o",
                "r.jsonl",
            ],
            (),
        ),
        (
            "skat-match",
            ["skat", "match", "pimc:worlds=4", "rule", "-n", "500", "-w", "2", "-o", "r.jsonl"],
            (),
        ),
        (
            "durak-tournament",
            [
                "durak",
                "tournament",
                "--agents",
                "greedy",
                "mcts",
                "-n",
                "200",
                "-w",
                "2",
                "-o",
                "d.jsonl",
            ],
            (),
        ),
        ("fuzz", ["fuzz", "skat", "-n", "2000000", "-w", "2"], ()),
        (
            "skat-kb-build",
            ["skat", "kb", "build", "--deals", "1000", "--out", "kb", "--workers", "2"],
            (),
        ),
        (
            "kalah-split",
            [
                "kalah",
                "split",
                "--pits",
                "6",
                "--seeds",
                "5",
                "--workers",
                "2",
                "--egdb",
                "0",
                "--checkpoint",
                "k.json",
            ],
            (),
        ),
        ("serve", ["serve", "--port", "{port}", "--db", "web.sqlite3"], ()),
    ]
    for name, args, early in long_cmds:
        expect = (0, 130) if name == "serve" else (130, 1, 2)
        add(f"ctrl-c/{name}", args, expect, sigint=True, early_ok=early)
        add(f"ctrl-c-group/{name}", args, expect, sigint=True, sigint_group=True, early_ok=early)
        add(f"sigterm/{name}", args, (0, 143) if name == "serve" else (143, 1, 2), sigint=True,
            signum=signal.SIGTERM, early_ok=early)
    more: list[tuple[str, list[str]]] = [
        # refused at once without --force (months of search): --force to reach the search
        ("kalah-solve", ["kalah", "solve", "--pits", "6", "--seeds", "5", "--egdb", "0",
                         "--force"]),
        (
            "kalah-analyze",
            ["kalah", "analyze", "start", "--pits", "6", "--seeds", "4", "--egdb", "0"],
        ),
        ("kalah-egdb", ["kalah", "egdb", "--pits", "6", "--max-seeds", "22", "--egdb-dir", "edb"]),
        ("kalah-graph", ["kalah", "graph", "--pits", "6", "--seeds", "3"]),
        ("bench", ["bench"]),
    ]
    for name, args in more:
        # bench takes about 2 s with its kernels cached: done before the signal is fine
        add(f"ctrl-c/{name}", args, (130, 1, 2), sigint=True,
            early_ok=(0,) if name == "bench" else ())
    for name, args in (
        ("play-kalah", ["play", "kalah"]),
        ("skat-play", ["skat", "play"]),
        ("durak-play", ["durak", "play"]),
    ):
        add(f"ctrl-c/{name}-at-prompt", args, (0, 1, 130), sigint=True, stdin="")
    return c


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--spielwerk",
        default=str(Path(sys.executable).parent / "spielwerk"),
        help="the spielwerk executable (default: next to this python)",
    )
    ap.add_argument("--out", type=Path, help="write one JSON line per case here")
    ap.add_argument(
        "--only",
        action="append",
        default=[],
        help="run only cases whose name contains this (repeatable)",
    )
    ap.add_argument(
        "--skip",
        action="append",
        default=[],
        help="leave out cases whose name contains this (repeatable)",
    )
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per case (default 60)")
    ap.add_argument(
        "--mem-limit-mb",
        type=float,
        default=2048.0,
        help="peak RSS of the process tree in MB (default 2048)",
    )
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    opts = ap.parse_args(argv)
    # a shell's background job starts with SIGINT ignored, and an ignored signal stays ignored
    # across exec: give the commands the default Ctrl-C a terminal would
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

    selected = [
        k
        for k in cases()
        if (not opts.only or any(s in k.name for s in opts.only))
        and not any(s in k.name for s in opts.skip)
    ]
    if opts.list:
        for k in selected:
            print(f"{k.name:45} spielwerk {' '.join(k.args)}")
        print(f"{len(selected)} cases")
        return 0
    if not Path(opts.spielwerk).exists():
        print(f"error: no spielwerk at {opts.spielwerk} (use --spielwerk PATH)", file=sys.stderr)
        return 2
    out = open(opts.out, "w") if opts.out else None  # noqa: SIM115 - open for the whole sweep
    results: list[Result] = []
    t_start = time.monotonic()
    print(f"{'case':45} {'exit':>5} {'sec':>7} {'RSS MB':>8}  verdict", flush=True)
    try:
        for k in selected:
            r = run_case(k, opts.spielwerk, opts.time_limit, opts.mem_limit_mb)
            results.append(r)
            rc = "-" if r.rc is None else str(r.rc)
            line = f"{r.name:45} {rc:>5} {r.seconds:7.1f} {r.peak_rss_mb:8.0f}  {r.verdict}"
            if r.problems:
                line += ": " + "; ".join(r.problems)
            print(line, flush=True)
            if out:
                out.write(json.dumps(dataclasses.asdict(r)) + "\n")
                out.flush()
    except KeyboardInterrupt:
        print("sweep interrupted", file=sys.stderr)
    finally:
        if out:
            out.close()
    failed = [r for r in results if r.verdict != "ok"]
    print(f"\n{len(results)} cases, {len(failed)} failed, {time.monotonic() - t_start:.0f} s")
    for r in failed:
        print(f"  FAIL {r.name}: {'; '.join(r.problems)}")
    return 1 if failed or len(results) < len(selected) else 0


if __name__ == "__main__":
    sys.exit(main())
