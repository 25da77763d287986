"""Golden playthroughs: one seeded game per game, every state's text, legal actions and returns.

A playthrough is a random game (chance by its probabilities, players uniform
over their legal actions, one numpy generator seeded as in :data:`GAMES`)
played through the one play loop, written down state by state. The test
replays it and compares the text line by line, so any change in the rules,
the notation or a state's text shows up here as a readable diff.

Regenerate only on purpose (a deliberate rule or notation change), then read
the diff before committing it:

    .venv/bin/python tests/test_playthroughs.py --regenerate
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import numpy as np
import pytest

from spielwerk.core.game import CHANCE, State
from spielwerk.core.play import play
from spielwerk.core.registry import load_game

FOLDER = Path(__file__).parent / "data" / "playthroughs"
GAMES = {  # file stem -> (game spec, seed)
    "kalah": ("kalah(pits=4,seeds=3)", 1),
    "skat": ("skat", 1),
    "durak": ("durak", 1),
}
HEADER = ("# spielwerk golden playthrough; regenerate only on purpose:\n"
          "#   .venv/bin/python tests/test_playthroughs.py --regenerate\n")


def _actions(state: State, actions: list[int]) -> str:
    return ", ".join(f"{a} ({state.action_to_string(a)})" for a in actions) or "-"


def _describe(state: State, index: int) -> list[str]:
    player = state.current_player
    who = "chance" if player == CHANCE else "terminal" if state.is_terminal() else str(player)
    return [
        f"## state {index}",
        str(state),
        f"current player: {who}",
        f"legal: {_actions(state, state.legal_actions())}",
        f"returns: {', '.join(f'{r:g}' for r in state.returns())}",
    ]


def playthrough(spec: str, seed: int) -> str:
    """The playthrough text of game ``spec`` with ``seed``."""
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    lines = [HEADER.rstrip("\n"), f"game: {game.spec()}", f"seed: {seed}", ""]
    count = [0]

    def policy(state: State, seat: int) -> int:
        legal = state.legal_actions()
        return legal[int(rng.integers(len(legal)))]

    def record(state: State, player: int, action: int) -> None:
        lines.extend(_describe(state, count[0]))
        lines.extend([f"action: {_actions(state, [action])}", ""])
        count[0] += 1

    played = play(game.new_initial_state(), [policy] * game.num_players, rng, before=record)
    lines.extend(_describe(played.state, count[0]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_playthrough_matches_the_golden_file(name: str) -> None:
    spec, seed = GAMES[name]
    path = FOLDER / f"{name}.txt"
    expected = path.read_text(encoding="utf-8")
    actual = playthrough(spec, seed)
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            f"{path.name} (golden)", f"{path.name} (now)",
        ))[:60])
        pytest.fail(f"{name} playthrough differs from {path} (regenerate only on purpose):\n"
                    f"{diff}")


def test_golden_playthroughs_end_in_a_terminal_state() -> None:
    for name in GAMES:
        text = (FOLDER / f"{name}.txt").read_text(encoding="utf-8")
        last = text.rstrip("\n").split("## state ")[-1]
        assert "current player: terminal" in last and "legal: -" in last, name


def regenerate() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, (spec, seed) in sorted(GAMES.items()):
        path = FOLDER / f"{name}.txt"
        path.write_text(playthrough(spec, seed), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit("usage: python tests/test_playthroughs.py --regenerate")
    regenerate()
