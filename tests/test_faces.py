"""A game's three faces, one per audience (:mod:`spielwerk.core.faces`): the observation
face for host libraries (sizes, tensors, strings), the table face for people (the web
table, its lobby, the terminal's default opponents) and the record format (text
records). Each comes from a module of the game's own package; the interop adapters and
the web hold no game names."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import spielwerk
from spielwerk.core.faces import NoFaceError
from spielwerk.core.game import Game
from spielwerk.core.observation import ObservationFace, bits_into, observation_face
from spielwerk.core.record_format import RecordFormat, record_format
from spielwerk.core.table_face import TableFace, table_face
from spielwerk.interop import encoding
from spielwerk.plugins import builtin_plugins

BUILTIN_GAMES = [r.name for r in builtin_plugins()]

SRC = Path(__file__).resolve().parents[1] / "src" / "spielwerk"
PLUGIN_DIR = Path(__file__).resolve().parent / "plugin_game"
SPECS = ["kalah(pits=4,seeds=3)", "durak", "durak(players=4)", "skat", "skat(players=4)"]

# (lookup, base class, module in the game's package)
FACES: list[tuple[Callable[[Game], object], type, str]] = [
    (observation_face, ObservationFace, "observation"),
    (table_face, TableFace, "table_face"),
    (record_format, RecordFormat, "records"),
]


def _members(kind: type) -> set[str]:
    """The face's protocol: its public methods, properties and attributes."""
    return {name for name in dir(kind) if not name.startswith("_")}


@pytest.mark.parametrize("name", BUILTIN_GAMES)
@pytest.mark.parametrize("lookup, kind, module", FACES, ids=[m for *_, m in FACES])
def test_each_built_in_game_provides_each_face_from_its_own_package(
        name: str, lookup: Callable[[Game], object], kind: type, module: str) -> None:
    game = spielwerk.load_game(name)
    face = lookup(game)
    assert isinstance(face, kind) and lookup(game) is face  # built once per game
    own = importlib.import_module(f"spielwerk.games.{name}.{module}")
    assert callable(getattr(own, lookup.__name__))  # the factory the lookup calls
    missing = {m for m in _members(kind) if not hasattr(face, m)}
    assert missing == set()
    assert face.game is game  # type: ignore[attr-defined]


def test_the_faces_share_no_member() -> None:
    """Each hook has one audience: no member is in two faces (``game`` aside)."""
    members = [_members(kind) - {"game"} for _, kind, _ in FACES]
    assert all(not (a & b) for i, a in enumerate(members) for b in members[i + 1:])
    assert importlib.util.find_spec("spielwerk.core.presentation") is None  # the old one
    assert not list(SRC.glob("games/*/presentation.py"))


def test_the_table_face_gives_the_default_opponents_of_the_record() -> None:
    """The terminal (``spielwerk play``) and the table read the same defaults."""
    for record in builtin_plugins():
        face = table_face(spielwerk.load_game(record.name))
        assert face.default_opponents == record.default_opponents
        assert face.title == record.title and face.table


@pytest.mark.parametrize("spec", SPECS)
def test_each_game_observes_and_shows_itself_from_the_info_state(spec: str) -> None:
    game = spielwerk.load_game(spec)
    obs, table = observation_face(game), table_face(game)
    sizes = obs.sizes()
    assert sizes.min_players <= game.num_players <= sizes.max_players
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(40):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(state.chance_outcomes()[0][0])
            continue
        info = state.info_state(state.current_player)
        out = np.zeros(obs.tensor_size(), np.float32)
        obs.encode_into(info, out)
        assert 0.0 <= out.min() and out.max() <= obs.tensor_high() and out.any()
        legal = info.legal_actions()
        assert all(0 <= a < sizes.num_actions for a in legal)
        assert encoding.observation_string(info) == obs.observation_string(info) == str(info)
        assert encoding.info_string(info).startswith(f"seat {info.player} knows ")
        view = table.table_view(info)
        assert json.loads(json.dumps(view)) == view  # JSON-ready
        assert [x["id"] for x in view["legal"]] == legal
        state.apply(legal[int(rng.integers(len(legal)))])


def test_only_skat_has_a_text_record_format() -> None:
    formats = {n: record_format(spielwerk.load_game(n)).format_name for n in BUILTIN_GAMES}
    assert formats == {**dict.fromkeys(BUILTIN_GAMES), "skat": "ISS"}
    kalah = spielwerk.load_game("kalah")
    assert not record_format(kalah).has_text_record(kalah.new_initial_state())
    assert record_format(kalah).read_text_record("anything") is None


@pytest.mark.parametrize("lookup, kind, module", FACES, ids=[m for *_, m in FACES])
def test_a_game_without_a_face_says_so(toy_game: Callable[..., Game],
                                       lookup: Callable[[Game], object], kind: type,
                                       module: str) -> None:
    game = toy_game()
    with pytest.raises(NoFaceError, match=rf"toy_highcard has no .*face .*: add .*\.{module} "
                                          rf"with the factory"):
        lookup(game)


def test_the_plug_in_game_brings_its_three_faces() -> None:
    """Nim (``tests/plugin_game``) finds its faces in its own package, as a built-in game."""
    code = textwrap.dedent("""
        import spielwerk
        from spielwerk.core.observation import observation_face
        from spielwerk.core.record_format import record_format
        from spielwerk.core.table_face import table_face
        from spielwerk.interop import encoding
        game = spielwerk.load_game("nim(stones=7,take=3)")
        state = game.new_initial_state()
        print(observation_face(game).sizes().num_actions, encoding.encode(state.info_state(0)),
              table_face(game).title, record_format(game).format_name,
              type(table_face(game)).__module__)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(PLUGIN_DIR), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300, check=True).stdout
    assert out.split() == ["3", "[7.", "1.", "0.]", "Nim", "None", "spielwerk_nim.table_face"]


def test_the_core_faces_are_small() -> None:
    """One module per face, each documented and under 250 lines."""
    for module in ("faces", "observation", "table_face", "record_format"):
        path = SRC / "core" / f"{module}.py"
        assert len(path.read_text().splitlines()) < 250, path
        assert ast.get_docstring(ast.parse(path.read_text())), path
    for _, kind, _ in FACES:
        undocumented = [m for m, v in vars(kind).items() if not m.startswith("_")
                        and inspect.isfunction(v) and not v.__doc__]
        assert undocumented == [], kind


def test_bits_into_sets_the_planes_of_a_mask() -> None:
    out = np.zeros(8, np.float32)
    bits_into(out, 2, 0b1011, 4)
    assert out.tolist() == [0, 0, 1, 1, 0, 1, 0, 0]


def _game_names_in_code(path: Path) -> list[str]:
    """Built-in game names written as string constants in code (docstrings aside)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            if any(name in node.value.lower().split("(")[0].split() or
                   node.value.lower().split("(")[0] == name for name in BUILTIN_GAMES):
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return found


def test_interop_holds_no_game_names() -> None:
    found = [hit for path in sorted((SRC / "interop").glob("*.py"))
             for hit in _game_names_in_code(path)]
    # the example default of the PettingZoo constructors is the one name left: a spec
    # string a user may pass, not knowledge of the game
    assert all("pettingzoo.py" in hit and "'kalah'" in hit for hit in found), found
