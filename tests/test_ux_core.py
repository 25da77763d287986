"""Issue 11: seats, finished games, illegal-action text, damaged numba caches, the
``games`` listing and the terminal Kalah table."""

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
    assert "perfect:time=5.0:egdb=-1:tt=0" in result.stdout


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
