"""A game is one plug-in record: the test game Nim (``tests/plugin_game``: a package and its
``dist-info`` metadata naming the record in the entry point group ``spielwerk.games``) joins
every front end of spielwerk with no edit outside its folder - found through
``importlib.metadata`` once the folder is on ``PYTHONPATH``, exactly as a game in another
distribution would be. Everything central loops over the records and names no game."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from spielwerk import plugins
from spielwerk.plugins import GamePlugin, PluginError, builtin_plugins

HERE = Path(__file__).resolve().parent
PLUGIN_DIR = HERE / "plugin_game"
SRC = HERE.parent / "src" / "spielwerk"


def _env(with_nim: bool = True, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([str(PLUGIN_DIR), *paths] if with_nim else paths)
    env.update(extra)
    return env


def spielwerk(*args: str, stdin: str = "", with_nim: bool = True,
              **extra: str) -> subprocess.CompletedProcess[str]:
    """``spielwerk ARGS`` in a fresh process, with the test game's folder on PYTHONPATH."""
    return subprocess.run([sys.executable, "-m", "spielwerk.cli.main", *args], input=stdin,
                          capture_output=True, text=True, timeout=600,
                          env=_env(with_nim, **extra), cwd=HERE.parent)


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr[-3000:] + result.stdout[-3000:]
    return result.stdout


# ----------------------------------------------------------------------------- the CLI
def test_nim_is_listed_by_spielwerk_games_only_with_its_folder() -> None:
    out = _ok(spielwerk("games", COLUMNS="200"))
    assert "Nim (the test plug-in game)" in out
    assert "nim agents (spec with defaults - description):" in out
    assert "perfect  - leaves a multiple of take+1 stones" in out  # its agent registered
    without = _ok(spielwerk("games", with_nim=False, COLUMNS="200"))
    assert "nim agents" not in without and "kalah agents" in without


def test_nim_brings_its_command_group_and_help_line() -> None:
    out = _ok(spielwerk("--help"))
    assert "nim" in out and "Nim (a plug-in game): solve a pile." in out
    assert "Kalah" in out and "Nim" in out.split("Strong game AI for", 1)[1].split("\n")[0]
    assert "the player to move loses" in _ok(spielwerk("nim", "solve", "--stones", "8"))
    assert "wins by taking 2" in _ok(spielwerk("nim", "solve", "--stones", "10"))


def test_nim_plays_in_the_arena_on_worker_processes() -> None:
    out = _ok(spielwerk("arena", "nim", "perfect", "random", "--games", "8", "--seed", "3",
                        "--workers", "2", "--json"))
    data = json.loads(out)
    assert data["games_played"] == 8 and data["config"]["game"] == "nim(stones=7,take=3)"
    (pair,) = data["standings"]["pairs"]
    # from 7 stones the first player wins by taking 3; perfect never loses a game it starts
    assert pair["a"] == "perfect" and pair["b"] == "random"
    assert pair["games"] == 8 and pair["wins"] >= 4 and pair["wins"] > pair["losses"]


def test_nim_plays_every_seating_of_the_arena() -> None:
    # no final-details hook and no match report: a duplicate match prints the standings
    data = json.loads(_ok(spielwerk("arena", "nim", "perfect", "random", "--seating",
                                    "duplicate", "--deals", "3", "--seed", "3", "--json",
                                    "-e", "serial")))
    assert data["config"]["kind"] == "nim-duplicate" and data["games_played"] == 6
    seq = _ok(spielwerk("arena", "nim", "perfect", "random", "--seating", "sequential",
                        "--games", "4", "--extend", "2", "--max-games", "6", "--json",
                        "-e", "serial"))
    (pair,) = [json.loads(line) for line in seq.splitlines()]
    assert pair["agent"] == "perfect" and 4 <= pair["wins"] + pair["losses"] + pair["draws"] <= 6


def test_nim_plays_in_the_terminal_through_its_front_end() -> None:
    # seat 1: the default opponent (the record's: perfect) takes 3 of 7, then 3 of 3
    out = _ok(spielwerk("play", "nim", "--seat", "1", stdin="1\n1\n1\n"))
    assert "Nim: take 1 to 3 stones; the last stone wins" in out  # the record's front end
    assert "you are seat 1, Second: you take second" in out  # the record's seat names
    assert "seat 0 plays 3" in out and "you play 1" in out
    assert "returns: +1, -1 (you are seat 1, Second)" in out


def test_nim_is_fuzzed() -> None:
    result = spielwerk("fuzz", "nim(stones=9,take=2)", "--games", "300", "--workers", "1")
    out = _ok(result)
    assert "nim(stones=9,take=2): 300 games (seeds 0..299)" in out
    assert "all invariants held" in out


def test_nim_is_benched_with_its_recorded_signature() -> None:
    out = _ok(spielwerk("bench", "--game", "nim"))
    assert "nim    pile 12, take 3" in out
    assert "nim            3        2,808" in out and out.rstrip().endswith("signature: 2808")
    assert "ok" in out.split("nim            3", 1)[1].splitlines()[0]


def test_nim_is_warmed(tmp_path: Path) -> None:
    marker = tmp_path / "warmed.txt"
    out = _ok(spielwerk("warmup", "--game", "nim", SPIELWERK_NIM_WARMED=str(marker)))
    assert "nim: kernels ready" in out and "kalah" not in out
    assert marker.read_text() == "warmed\n"


WEB_SCRIPT = textwrap.dedent("""
    import json, sys
    from fastapi.testclient import TestClient
    from spielwerk.web.app import create_app

    app = create_app(sys.argv[1], workers=0)
    out = {}
    with TestClient(app) as client:
        games = client.get("/api/games").json()["games"]
        out["nim"] = games.get("nim")
        out["page"] = "/games/nim/nim.js" in client.get("/").text
        out["script"] = client.get("/games/nim/nim.js").status_code
        made = client.post("/api/tables", json={"game": "nim", "opponents": ["perfect"],
                                                 "seat": 1, "seed": 2, "time": 0.5})
        tid = made.json()["id"]
        views = []
        with client.websocket_connect(f"/ws/{tid}") as ws:
            while True:
                msg = ws.receive_json()
                assert msg["type"] != "error", msg
                if msg["type"] != "view":
                    continue
                v = msg["view"]
                views.append(v)
                if v["over"]:
                    break
                if v["to_move"] == v["seat"] and msg["thinking"] is None:
                    ws.send_text(json.dumps({"type": "act", "action": v["legal"][0]["id"],
                                             "ply": v["ply"]}))
        out["stones"] = [v.get("stones") for v in views]
        out["returns"] = views[-1].get("returns")
    print(json.dumps(out))
""")


def test_nim_is_offered_and_played_at_the_web_table(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-c", WEB_SCRIPT, str(tmp_path / "web.sqlite3")],
                            capture_output=True, text=True, timeout=600, env=_env())
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    nim = out["nim"]
    assert nim is not None and nim["title"] == "Nim" and nim["default_opponent"] == "perfect"
    assert [f["param"] for f in nim["lobby"]] == ["stones", "take"]
    assert out["page"] and out["script"] == 200  # its page code is served with the page
    # perfect moves first from 7 (takes 3), the person takes 1, perfect takes the last 3
    seen = [s for i, s in enumerate(out["stones"]) if i == 0 or s != out["stones"][i - 1]]
    assert seen == [7, 4, 3, 0] and out["returns"] == [1.0, -1.0]


# ----------------------------------------------------------------------------- in-process
def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module or "")
    return found


def test_record_modules_import_nothing_but_the_record_type() -> None:
    records = sorted(SRC.glob("games/*/plugin.py")) + [PLUGIN_DIR / "spielwerk_nim/plugin.py"]
    assert len(records) == 4
    assert {p.name: _imports(p) for p in records} == {p.name: {"spielwerk.plugins"}
                                                     for p in records}
    assert {m for m in _imports(SRC / "plugins.py") if m.startswith("spielwerk")} == set()


CENTRAL = ["core/registry.py", "core/parallel.py", "games/__init__.py", "plugins.py", "bench.py",
           "warmup.py", "cli/main.py", "cli/play.py", "cli/bench.py", "cli/warmup.py"]


@pytest.mark.parametrize("path", CENTRAL)
def test_the_central_tables_name_no_game(path: str) -> None:
    names = {r.name for r in builtin_plugins()} | {"skat_ai"}
    tree = ast.parse((SRC / path).read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            words = node.value.lower().replace(".", " ").replace("(", " ").replace(",", " ")
            found += [node.value for w in words.split() if w.strip("'\"`") in names]
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names]
            found += [m for m in modules if set(m.split(".")) & names]
    # an example in a help text ('game spec, e.g. "kalah(pits=6)"') is the one kind allowed
    assert [f for f in found if "e.g." not in f] == []


def test_the_built_in_records_are_found_without_installed_metadata(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    plugins.game_plugins.cache_clear()
    try:
        names = [r.name for r in plugins.game_plugins()]
    finally:
        plugins.game_plugins.cache_clear()
    assert names == ["skat", "kalah", "durak"]  # by rank: the bench's documented order


def test_stale_and_broken_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    def points(*pairs: tuple[str, str]) -> None:
        made = [EntryPoint(name, value, plugins.ENTRY_POINT_GROUP) for name, value in pairs]
        monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: made)
        plugins.game_plugins.cache_clear()

    try:
        # a record of spielwerk itself that moved since the metadata was written: skipped,
        # the record beside the game is found instead
        points(("kalah", "spielwerk.games.kalah.moved_away:PLUGIN"))
        assert "kalah" in [r.name for r in plugins.game_plugins()]
        points(("chess", "no_such_chess_package.plugin:PLUGIN"))
        with pytest.raises(PluginError, match="'chess'.*does not load"):
            plugins.game_plugins()
        points(("chess", "spielwerk.plugins:ENTRY_POINT_GROUP"))
        with pytest.raises(PluginError, match="not a spielwerk.plugins.GamePlugin"):
            plugins.game_plugins()
        points(("chess", "spielwerk.games.kalah.plugin:PLUGIN"))
        with pytest.raises(PluginError, match="declares the game 'kalah'"):
            plugins.game_plugins()
    finally:
        plugins.game_plugins.cache_clear()


def test_a_game_may_not_take_a_command_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from spielwerk.cli import main as cli_main

    clash = GamePlugin(name="bench", title="Bench", packages=(), cli="somewhere")
    monkeypatch.setattr(cli_main, "_plugins", lambda: (clash,))
    with pytest.raises(cli_main.CommandModuleError, match="may not take that name"):
        cli_main.command_modules()


def test_contributing_shows_the_test_games_record() -> None:
    """The record in CONTRIBUTING.md's "Adding a game" runs and is the test game's own."""
    import re

    text = (HERE.parent / "CONTRIBUTING.md").read_text()
    section = text[text.index("## Adding a game"):text.index("## Adding an agent")]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    namespace: dict[str, object] = {}
    exec(textwrap.dedent(block), namespace)  # noqa: S102 - our own documentation
    sys.path.insert(0, str(PLUGIN_DIR))
    try:
        from spielwerk_nim.plugin import PLUGIN  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(PLUGIN_DIR))
    assert namespace["PLUGIN"] == PLUGIN


def test_a_games_own_agent_wins_where_only_its_rules_were_loaded() -> None:
    """A worker that unpickles a game has imported its rules alone (the package's
    ``__init__`` imports nothing): ``make_agent`` loads the game's own packages before it
    would take a generic agent of the same name (Durak has its own ``random``)."""
    code = textwrap.dedent("""
        import pickle, sys
        from spielwerk.games.durak.rules import DurakGame
        game = pickle.loads(pickle.dumps(DurakGame({"preset": "classic", "players": 2,
                                                    "deck": 36})))
        print("spielwerk.games.durak.agents" in sys.modules)
        from spielwerk.core.agent import make_agent
        print(type(make_agent("random", game, seed=1)).__name__)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["False", "DurakRandomAgent"]
