"""Every registered game passes ``check_game``; Kalah in many variants.

The registered games are read from ``list_games()`` at collection time, so a
new game is checked as soon as it registers itself in ``spielwerk.games``.
"""

from __future__ import annotations

import itertools

import pytest

from spielwerk import list_games, load_game
from spielwerk.core.testing import check_game

REGISTERED = [entry.name for entry in list_games()]

KALAH_SIZES = [(1, 1), (1, 4), (2, 1), (2, 3), (3, 3), (4, 3), (5, 2), (6, 4), (8, 1)]
KALAH_VARIANTS = [
    f"kalah(pits={m},seeds={n},empty_capture={cap},end_rule={end})"
    for (m, n), cap, end in itertools.product(
        KALAH_SIZES, ("false", "true"), ("either_empty", "mover_empty")
    )
]


def test_builtin_games_are_registered() -> None:
    assert "kalah" in REGISTERED


@pytest.mark.parametrize("name", REGISTERED)
def test_registered_game_conforms(name: str) -> None:
    game = load_game(name)
    report = check_game(game, n_games=30, seed=0)
    assert report.games == 30 and report.moves > 0


@pytest.mark.parametrize("spec", KALAH_VARIANTS)
def test_kalah_variant_conforms(spec: str) -> None:
    report = check_game(load_game(spec), n_games=25, seed=1000)
    assert report.games == 25


@pytest.mark.slow
@pytest.mark.parametrize("name", REGISTERED)
def test_registered_game_conforms_long(name: str) -> None:
    check_game(load_game(name), n_games=100, seed=10_000, deep_every=1)
