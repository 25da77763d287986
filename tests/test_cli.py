"""The command line and the core API in a user's hands: seats, finished games,
illegal-action text, damaged numba caches, the ``games`` listing and the terminal Kalah
table."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import spielwerk
from spielwerk.cli.main import app
from spielwerk.core.errors import IllegalActionError, SeatError, SpielwerkError

runner = CliRunner()


def _dealt(game: str):  # type: ignore[no-untyped-def]
    state = spielwerk.load_game(game).new_initial_state()
    while state.is_chance_node():
        state.apply(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("game", ["kalah", "durak", "skat"])
@pytest.mark.parametrize("seat", [5, -1, 2.0])
def test_info_state_refuses_seats_not_at_the_table(game: str, seat: object) -> None:
    state = spielwerk.load_game(game).new_initial_state()
    if game == "skat" and seat == 2.0:
        seat = 3
    with pytest.raises(SpielwerkError) as info:
        state.info_state(seat)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
    if game != "skat":
        assert isinstance(info.value, SeatError)


@pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta:depth=2", "mcts:iters=5"])
def test_act_on_a_finished_game_is_refused(spec: str) -> None:
    game = spielwerk.load_game("kalah(pits=1,seeds=1)")
    state = game.new_initial_state()
    state.apply(0)
    assert state.is_terminal()
    agent = spielwerk.make_agent(spec, game, seed=0)
    with pytest.raises(SpielwerkError, match="game is over"):
        agent.act(state.info_state(0))


def test_illegal_action_text_names_the_action_sensibly() -> None:
    kalah = _dealt("kalah")
    with pytest.raises(IllegalActionError) as info:
        kalah.apply(99)
    text = info.value.one_line()
    assert "written '100'" in text and "legal: 1, 2, 3, 4, 5, 6" in text
    durak = _dealt("durak")
    with pytest.raises(IllegalActionError) as info:
        durak.apply(-5)
    text = info.value.one_line()
    assert "+" not in text.split("(legal")[0]  # no made-up card combination for -5
    assert ">= 0" in text


def test_cli_prints_an_illegal_action_as_one_line() -> None:
    # the CLI's error printer uses one_line(); the full text carries the board picture
    kalah = _dealt("kalah")
    with pytest.raises(IllegalActionError) as info:
        kalah.apply(99)
    assert "\n" in str(info.value) and "\n" not in info.value.one_line()


def test_damaged_numba_cache_file_is_recompiled_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "tinykernel.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def add_one(x):
            return x + 1
    """))
    script = textwrap.dedent("""
        import sys
        if sys.argv[1] == "fix":
            from spielwerk._numba_cache import install
            install()
        import tinykernel
        print(tinykernel.add_one(41))
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH":
           os.pathsep.join([str(tmp_path), *sys.path])}

    def run(mode: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", script, mode], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)

    assert run("fix").stdout.strip() == "42"
    data = list((tmp_path / "cache").rglob("*.nbc"))
    assert data
    for f in data:
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    unpatched = run("plain")
    assert unpatched.returncode != 0 and "Traceback" in unpatched.stderr  # numba alone
    fixed = run("fix")
    assert fixed.returncode == 0 and fixed.stdout.strip() == "42"
    assert "damaged" in fixed.stderr and ".nbc" in fixed.stderr
    again = run("fix")  # the file was rewritten: no message the next time
    assert again.returncode == 0 and "damaged" not in again.stderr


def test_games_listing_keeps_agent_specs_whole_on_a_narrow_terminal() -> None:
    result = runner.invoke(app, ["games"], env={"COLUMNS": "60"})
    assert result.exit_code == 0
    assert "mcts:worlds=30:iters=30:time=0.0:c=1.4:final=visits" in result.stdout
    assert "perfect:time=5.0:egdb=-1:tt=-1" in result.stdout


def test_kalah_terminal_play_names_the_side_labels_stores_and_ends_once() -> None:
    moves = "\n".join(["1", "2", "3"] * 10) + "\n"
    result = runner.invoke(app, ["play", "kalah(pits=3,seeds=2)", "--vs", "greedy"],
                           input=moves)
    out = result.stdout
    assert result.exit_code == 0, out
    assert "you are seat 0, South" in out
    assert "stores: North left, South right" in out
    assert out.count("game over") == 1
    assert "you play 1" in out


def test_plain_import_reaches_the_arena() -> None:
    # a fresh interpreter: in this test session another module may have imported it already
    code = ("import spielwerk; assert callable(spielwerk.arena.run_tournament); "
            "assert spielwerk.arena.TournamentConfig")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    with pytest.raises(AttributeError):
        spielwerk.no_such_thing  # noqa: B018


def test_an_os_error_reaches_the_user_as_one_line(monkeypatch, capsys) -> None:
    from spielwerk.cli import main as cli_main

    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device", "/tmp/out.jsonl")

    monkeypatch.setattr(cli_main, "app", boom)
    with pytest.raises(SystemExit) as info:
        cli_main.main()
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert "No space left on device: /tmp/out.jsonl" in err and "Traceback" not in err


# ---------------------------------------------------------------- checked number options
def _main(monkeypatch, capsys, *args: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run the ``spielwerk`` script's main() on ``args``: (exit code, stderr)."""
    from spielwerk.cli import main as cli_main

    monkeypatch.setattr(sys, "argv", ["spielwerk", *args])
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as info:
        cli_main.main()
    return int(info.value.code or 0), capsys.readouterr().err


DURAK = ["durak", "tournament", "-a", "random", "greedy", "-n", "2", "--executor", "serial"]
ARENA = ["arena", "kalah(pits=2,seeds=1)", "random", "greedy", "-n", "2", "-e", "serial"]


@pytest.mark.parametrize(("args", "text"), [
    (["kalah", "split", "--pits", "2", "--seeds", "1", "--stop-after", "-1"],
     "--stop-after must be at least 0, not -1"),
    ([*DURAK, "--extend", "-1"], "--extend must be at least 0, not -1"),
    ([*DURAK, "--max-games", "-3"], "--max-games must be at least 0"),
    ([*DURAK, "--seed", "-1"], "--seed must be at least 0"),
    ([*DURAK, "--confidence", "nan"], "--confidence must be a finite number, not nan"),
    ([*DURAK, "--time-per-move", "nan"], "--time-per-move must be a finite number"),
    (["serve", "--host", "256.0.0.1", "--abandon", "-5"], "--abandon must be at least 0, not -5"),
    (["serve", "--host", "256.0.0.1", "--abandon", "nan"], "--abandon must be a finite number"),
    (["kalah", "analyze", "start", "--time", "nan"], "--time must be a finite number, not nan"),
    (["kalah", "analyze", "start", "--time", "inf"], "--time must be a finite number, not inf"),
    ([*ARENA, "--confidence", "nan"], "--confidence must be a finite number"),
    ([*ARENA, "--games", "0"], "--games must be at least 1, not 0"),
    (["play", "kalah(pits=2,seeds=1)", "--seed", "-1"], "--seed must be at least 0"),
    (["durak", "play", "--seed", "-1"], "--seed must be at least 0"),
    (["kalah", "egdb", "--pits", "2", "--max-seeds", "-1"], "--max-seeds must be in 0..40"),
    (["kalah", "solve", "--pits", "1.5"], "--pits must be a whole number, not '1.5'"),
])
def test_bad_numbers_are_refused_in_one_line_with_exit_code_2(monkeypatch, capsys,
                                                               args: list[str],
                                                               text: str) -> None:
    code, err = _main(monkeypatch, capsys, *args)
    assert code == 2, err
    assert text in err and err.count("\n") == 1, err


def _commands(command, path=()):  # type: ignore[no-untyped-def]
    subs = getattr(command, "commands", None)
    if subs is None:
        yield path, command
        return
    for name, sub in subs.items():
        yield from _commands(sub, (*path, name))


def test_every_number_option_refuses_nan_and_text_and_values_below_its_minimum() -> None:
    from typer.main import get_command

    from spielwerk.cli.options import OptionValueError

    checked = 0
    for path, command in _commands(get_command(app)):
        for param in command.params:
            annotation = getattr(param.type_descriptor, "annotation", None)
            if annotation not in (int, float) or not param.opts[0].startswith("-"):
                continue
            opt = param.opts[0]
            bad = ["abc"] + (["nan", "inf"] if annotation is float else [])
            if getattr(param, "min", None) is not None:
                bad.append(str(param.min - 1))
            for value in bad:
                result = runner.invoke(app, [*path, opt, value])
                assert isinstance(result.exception, OptionValueError), (path, opt, value)
                assert opt in str(result.exception)
                checked += 1
    assert checked > 60


@pytest.mark.parametrize("args", [
    [*ARENA, "-o", "{tmp}"],
    [*DURAK, "-o", "{tmp}"],
    ["serve", "--host", "256.0.0.1", "--db", "{tmp}"],
])
def test_an_output_file_that_is_a_folder_is_refused_before_any_work(
        monkeypatch, capsys, tmp_path: Path, args: list[str]) -> None:
    code, err = _main(monkeypatch, capsys, *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 2 and f"{tmp_path} is a folder; give a file name" in err, err


# --------------------------------------------------------------------------- one help style
MY_COMMANDS = ("games", "play", "arena", "fuzz", "serve", "kalah", "durak", "warmup", "bench",
               "skat")


def _help(*path: str) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.exception
    return result.stdout


def test_help_looks_the_same_everywhere() -> None:
    from typer.main import get_command

    from spielwerk.cli.main import top_level_help

    assert "╭─ Commands" in top_level_help("spielwerk")  # boxes, as every command's help
    for path, command in _commands(get_command(app)):
        if path[0] not in MY_COMMANDS:
            continue
        text = _help(*path)
        assert "<bool>" not in text, path  # flags take no value
        usage = next(line for line in text.splitlines() if "Usage:" in line)
        assert "{" not in usage, (path, usage)  # GAME, not {game} or {GAME}
        for param in command.params:
            if param.name.upper() in usage.split():
                continue
            words = (param.help or "x").split()
            first = words[0]
            assert not (first[0].isupper() and first[1:].islower()), (path, param.help)
            assert not param.help or not param.help.endswith("."), (path, param.help)


def test_defaults_agree_between_commands() -> None:
    from typer.main import get_command

    group = get_command(app)

    def default(path: tuple[str, ...], name: str) -> object:
        command = dict(_commands(group))[path]
        return next(p.default for p in command.params if p.name == name)

    assert default(("kalah", "split"), "seeds") == default(("kalah", "solve"), "seeds")
    game_default = spielwerk.load_game("durak").spec()
    assert default(("durak", "tournament"), "preset") in game_default
    assert default(("durak", "play"), "preset") in game_default


def test_a_long_error_is_one_line_when_piped_at_80_columns(tmp_path: Path) -> None:
    """The error line is not wrapped to the terminal's (or a pipe's default) width."""
    folder = tmp_path / ("a-folder-with-a-long-name-" * 4)
    folder.mkdir()
    env = {**os.environ, "COLUMNS": "80"}
    out = subprocess.run([sys.executable, "-m", "spielwerk.cli.main", "serve", "--db",
                          str(folder)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2
    assert out.stderr.endswith("\n") and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("error: --db ") and len(out.stderr) > 160
    assert f"{folder / 'web.sqlite3'}" in out.stderr
