"""The open-hand duplicate match (:mod:`spielwerk.games.skat_ai.open_match`). Two agents
that decide alike play alike there (the seeds depend on the deal and the seat, not the
seating), so their difference is exactly 0."""

from __future__ import annotations

import pytest

from spielwerk.games.skat_ai.open_match import ORDERS, OpenMatch, match_figures


def test_the_six_seatings_are_skat_matchs() -> None:
    from spielwerk.arena.duplicate import arrangements

    assert ORDERS == arrangements(2, 3, "pairs")


def test_agents_that_decide_alike_score_alike() -> None:
    specs = ["knn3:worlds=1", "knn:worlds=1:caution=0"]
    match = OpenMatch(specs)
    rows = [match.play_deal(3, d) for d in range(3)]
    for row in rows:
        by_order = {tuple(g["order"]): g["details"] for g in row["games"]}
        for seat in range(3):  # agent 0 alone in the seat against agent 1 alone there
            a = by_order[tuple(0 if s == seat else 1 for s in range(3))]
            b = by_order[tuple(1 if s == seat else 0 for s in range(3))]
            assert a == b
        assert row["played"] <= len(row["games"])
    figures = match_figures(specs, rows)
    assert figures.deals == 3
    assert [d.mean for d in figures.differences] == [0.0]


def test_a_cautious_agent_declares_no_more_and_the_figures_count_every_game() -> None:
    specs = ["knn:worlds=1:caution=1", "knn3:worlds=1"]
    match = OpenMatch(specs)
    rows = [match.play_deal(11, d) for d in range(4)]
    figures = match_figures(specs, rows)
    assert figures.games == 24
    careful, plain = figures.agents
    assert careful.seat_games == plain.seat_games == 36
    assert careful.declared <= plain.declared


def test_two_agents_only() -> None:
    with pytest.raises(ValueError, match="2 agents"):
        OpenMatch(["knn"])
