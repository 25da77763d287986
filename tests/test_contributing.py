"""Every code block in CONTRIBUTING.md runs: the page shows today's code, not yesterday's.

```python blocks run one by one in a fresh interpreter (in a temporary folder, so
nothing they write lands in the checkout); ```sh blocks run with bash in the
repository root. A block that must not run here (it installs, or runs the whole
suite) says so with the info string ``sh not-run``; there may be only a few.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "CONTRIBUTING.md"
FENCE = re.compile(r"^( *)```([^\n`]*)\n(.*?)^\1```\s*$", re.S | re.M)
RUNS = {"python", "sh"}  # run by this test
NOT_CODE = {"text"}  # diagrams and listings
NOT_RUN = "sh not-run"
MOST_NOT_RUN = 2


def blocks() -> list[tuple[str, str, int]]:
    """(info string, dedented body, line number) of each fenced block."""
    text = PAGE.read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append((match.group(2).strip(), textwrap.dedent(match.group(3)), line))
    return found


def test_every_block_is_run_or_explicitly_not() -> None:
    infos = [info for info, _, _ in blocks()]
    assert infos, "no code blocks found in CONTRIBUTING.md"
    unknown = [i for i in infos if i not in RUNS | NOT_CODE | {NOT_RUN}]
    assert not unknown, f"code blocks with an info string this test does not run: {unknown}"
    skipped = infos.count(NOT_RUN)
    ran = sum(i in RUNS for i in infos)
    assert skipped <= MOST_NOT_RUN and skipped < ran, (
        f"{skipped} blocks marked '{NOT_RUN}' against {ran} run: mark only what cannot run here")
    assert "python" in infos


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env


@pytest.mark.parametrize(
    ("body", "line"),
    [pytest.param(b, n, id=f"line{n}") for i, b, n in blocks() if i == "python"])
def test_python_block_runs(body: str, line: int, tmp_path: Path) -> None:
    script = tmp_path / "block.py"
    script.write_text(body)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"CONTRIBUTING.md line {line}:\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize(
    ("body", "line"), [pytest.param(b, n, id=f"line{n}") for i, b, n in blocks() if i == "sh"])
def test_shell_block_runs(body: str, line: int) -> None:
    if not (ROOT / ".venv" / "bin" / "spielwerk").exists() and ".venv/bin/" in body:
        pytest.skip("no .venv in this checkout (make install)")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"CONTRIBUTING.md line {line}:\n{done.stdout}\n{done.stderr}"


def test_the_agent_example_plays_a_game() -> None:
    """The agent block does something real: it registers an agent and plays a game with it."""
    (body,) = [b for i, b, _ in blocks() if i == "python" and "register_declared(" in b]
    done = subprocess.run([sys.executable, "-c", body], env=_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"\d+ moves, returns \[.*\]\n", done.stdout), done.stdout
