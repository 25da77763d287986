"""Start-up paths: a light ``import spielwerk``, ``spielwerk --help`` from a table that
matches the real commands, games loaded on first use, kernels cached in the user's folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
import typer.main

from spielwerk.cli import main as cli_main


def run_python(code: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_spielwerk_loads_no_numba_numpy_or_game() -> None:
    out = run_python(
        "import sys, spielwerk\n"
        "print(sorted(m for m in ('numba', 'numpy', 'spielwerk.games.kalah', 'typer', 'scipy')"
        " if m in sys.modules))\n"
        "spielwerk.load_game('kalah')\n"
        "print('spielwerk.games.kalah.rules' in sys.modules,\n"
        "      'spielwerk.games.skat.rules' in sys.modules)\n"
        "print(len(spielwerk.list_games()), 'spielwerk.games.skat.rules' in sys.modules)\n"
    )
    # a game's plug-in record is read without its rules: only kalah's rules load
    assert out.splitlines() == ["[]", "True False", "3 True"]


def test_agents_of_every_game_are_found_after_loading_one_game() -> None:
    out = run_python(
        "import spielwerk\n"
        "game = spielwerk.load_game('kalah')\n"
        "agent = spielwerk.make_agent('mcts:iters=5', game, seed=1)\n"  # registered by mc/durak
        "print(type(agent).__name__)\n"
        "from spielwerk.core.agent import list_agents\n"
        "print('ismcts' in {e.name for e in list_agents('durak')})\n"
    )
    assert out.splitlines() == ["MCTSAgent", "True"]


def test_help_table_matches_the_registered_commands() -> None:
    group = typer.main.get_command(cli_main.app)
    ctx = click.Context(group)
    registered = {}
    for name in group.list_commands(ctx):  # type: ignore[attr-defined]
        command = group.get_command(ctx, name)  # type: ignore[attr-defined]
        registered[name] = command.get_short_help_str(limit=500)
    assert registered == cli_main.command_help()
    assert list(registered) == list(cli_main.command_help())  # listed in the same order
    assert group.help == cli_main.app_help()
    assert set(cli_main.command_help()) > set(cli_main.COMMAND_HELP)  # the games' groups


def test_top_level_help_needs_no_typer_and_lists_every_command() -> None:
    out = run_python(
        "import sys\n"
        "sys.argv = ['spielwerk', '--help']\n"
        "from spielwerk.cli.main import main\n"
        "main()\n"
        "print(sorted(m for m in sys.modules if m in ('typer', 'rich', 'numba', 'numpy')"
        " or m.endswith('.rules')\n"
        "             or m.startswith('spielwerk.cli.') and m != 'spielwerk.cli.main'))\n"
    )
    lines = out.splitlines()
    assert any("Usage: spielwerk [OPTIONS] COMMAND [ARGS]..." in x for x in lines[:3])
    assert lines[-1] == "[]"
    joined = " ".join(out.replace("│", " ").split())
    for name, text in cli_main.command_help().items():
        assert f"{name} {' '.join(text.split())}" in joined, name


def test_kernels_are_cached_in_the_user_cache_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SPIELWERK_CACHE_DIR"] = str(tmp_path)
    out = run_python(
        "import os, spielwerk\n"
        "state = spielwerk.load_game('kalah(pits=2,seeds=1)').new_initial_state()\n"
        "state.apply(state.legal_actions()[0])\n"
        "print(os.environ['NUMBA_CACHE_DIR'])\n",
        env=env,
    )
    from spielwerk._jit import source_digest

    assert out == str(tmp_path / "numba" / f"src-{source_digest()}")
    assert list((tmp_path / "numba").rglob("*.nbi")), "no kernel index written there"
    # an explicit NUMBA_CACHE_DIR wins
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = run_python("import os, spielwerk\nspielwerk.load_game('kalah')\n"
                     "print(os.environ['NUMBA_CACHE_DIR'])", env=env)
    assert out == str(tmp_path / "mine")


def test_kernel_folder_changes_with_the_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    # numba checks a cached kernel only against its own file: an edit elsewhere (an inlined
    # helper) must give the kernels a new folder, or a stale caller would be loaded
    from spielwerk import _jit

    pkg = tmp_path / "pkg"
    (pkg / "search").mkdir(parents=True)
    (pkg / "_jit.py").write_text("x = 1\n")
    (pkg / "search" / "tt.py").write_text("def store(): return 1\n")
    monkeypatch.setattr(_jit, "__file__", str(pkg / "_jit.py"))
    first = _jit.source_digest()
    assert first == _jit.source_digest()
    (pkg / "search" / "tt.py").write_text("def store(): return 2\n")
    second = _jit.source_digest()
    assert second != first and len(second) == 12
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path / "c"))
    assert _jit.kernel_folder() == tmp_path / "c" / "numba" / f"src-{second}"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert _jit.kernel_folder() == tmp_path / "mine"


def test_a_command_imports_only_its_own_module() -> None:
    out = run_python(
        "import sys\n"
        "sys.argv = ['spielwerk', 'kalah', 'solve', '--pits', '2', '--seeds', '1', '--quiet']\n"
        "from spielwerk.cli.main import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(sorted(m for m in ('spielwerk.games.skat.cli', 'spielwerk.games.skat.rules',"
        " 'spielwerk.games.skat_ai', 'spielwerk.games.durak.cli', 'spielwerk.games.durak.rules')"
        " if m in sys.modules))\n"
    )
    assert "value +2 for South" in out
    assert out.splitlines()[-1] == "[]"


def test_every_command_runs_through_its_own_lazy_app() -> None:
    names = list(cli_main.COMMAND_MODULE)
    out = run_python(
        "import contextlib, io, sys\n"
        "from spielwerk.cli import main as cli\n"
        f"for name in {names!r}:\n"
        "    sys.argv = ['spielwerk', name, '--help']\n"
        "    buf = io.StringIO()\n"
        "    with contextlib.redirect_stdout(buf):\n"
        "        try:\n"
        "            cli.main()\n"
        "        except SystemExit as exc:\n"
        "            assert not exc.code, (name, exc.code)\n"
        "    assert f'spielwerk {name}' in buf.getvalue(), (name, buf.getvalue())\n"
        "    print(name)\n"
    )
    assert out.splitlines() == names


def test_import_spielwerk_loads_nothing_until_an_entry_point_is_used() -> None:
    out = run_python(
        "import sys, spielwerk\n"
        "print(sorted(m for m in sys.modules if m.startswith('spielwerk')),\n"
        "      'typing' in sys.modules)\n"
        "from spielwerk import load_game, list_games, make_agent\n"
        "print(load_game is spielwerk.core.registry.load_game, callable(make_agent))\n"
        "print('load_game' in dir(spielwerk), 'arena' in dir(spielwerk))\n"
    )
    assert out.splitlines() == ["['spielwerk'] False", "True True", "True True"]


def test_direct_entry_points_compute_what_the_dispatcher_does() -> None:
    from spielwerk._jit import direct
    from spielwerk.games.skat import kernel

    entry = direct(kernel.legal_cards, 0, 0, 0)
    assert entry is not kernel.legal_cards  # a compiled entry point, not the dispatcher
    for hand, led, game in ((0xFFFF, 3, 0), (0xF0F0F0, 9, 4), (0x80000001, 31, 5), (7, -1, 2)):
        assert entry(hand, led, game) == kernel.legal_cards(hand, led, game)

    def plain(x: int) -> int:
        return x + 1

    assert direct(plain, 1) is plain  # no numba dispatcher: itself


def test_games_and_states_still_pickle_after_moves_through_entry_points() -> None:
    import pickle
    import random

    from spielwerk import load_game

    for spec in ("kalah", "skat", "durak"):
        game = load_game(spec)
        state = game.new_initial_state()
        rng = random.Random(0)
        for _ in range(40):  # past the deal: the card kernels are bound by now
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        copy = pickle.loads(pickle.dumps(state))
        assert copy.fingerprint() == state.fingerprint(), spec
        if not copy.is_terminal():
            copy.apply(copy.legal_actions()[0])  # the copy's game binds its kernels anew
        assert pickle.loads(pickle.dumps(game)).spec() == game.spec()
