"""The presentation face of the Game API: each game's sizes, tensors and view come from its
own package; the interop adapters hold no game names."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import spielwerk
from spielwerk.core.game import Game
from spielwerk.core.presentation import NoPresentationError, Presentation, bits_into
from spielwerk.plugins import builtin_plugins

BUILTIN_GAMES = [r.name for r in builtin_plugins()]

SRC = Path(__file__).resolve().parents[1] / "src" / "spielwerk"
SPECS = ["kalah(pits=4,seeds=3)", "durak", "durak(players=4)", "skat", "skat(players=4)"]


@pytest.mark.parametrize("spec", SPECS)
def test_each_game_presents_itself_from_its_own_package(spec: str) -> None:
    game = spielwerk.load_game(spec)
    face = game.presentation()
    assert isinstance(face, Presentation) and game.presentation() is face  # built once
    assert type(face).__module__ == f"spielwerk.games.{game.name}.presentation"
    sizes = face.sizes()
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
        out = np.zeros(face.tensor_size(), np.float32)
        face.encode_into(info, out)
        assert 0.0 <= out.min() and out.max() <= face.tensor_high() and out.any()
        legal = info.legal_actions()
        assert all(0 <= a < sizes.num_actions for a in legal)
        view = face.view(info)
        assert json.loads(json.dumps(view)) == view  # JSON-ready
        assert [x["action"] for x in view["legal"]] == legal
        assert view["seat"] == state.current_player and not view["over"]
        state.apply(legal[int(rng.integers(len(legal)))])


def test_a_game_without_a_presentation_says_so(toy_game: Callable[..., Game]) -> None:
    game = toy_game()
    with pytest.raises(NoPresentationError, match="toy_highcard has no presentation"):
        game.presentation()


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
