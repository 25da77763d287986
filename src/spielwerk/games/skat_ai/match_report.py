"""Skat's figures of a duplicate match as tables: the game's ``match_report`` (its plug-in
record), printed by ``spielwerk arena skat ... --seating duplicate`` and ``spielwerk skat
match`` alike. The figures are :mod:`spielwerk.games.skat_ai.match_stats`'."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from rich import box
from rich.table import Table

from spielwerk.games.skat_ai.match_stats import (
    GAME_CATEGORIES,
    CategoryCount,
    Played,
    SkatMatchStats,
    skat_match_stats,
)

EXPERT_MIX = {"grand": "28-30%", "null": "7-8%"}
"""The declared mix of expert players (Edelkamp's 50,000 expert games, via the seed): grand
about 28-30% of declared games, null 7-8%."""

def _f(x: float, spec: str = ".1f", signed: bool = False) -> str:
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return format(x, ("+" if signed else "") + spec)


def _ci(lo: float, hi: float, spec: str = ".1f") -> str:
    return "-" if math.isnan(lo) else f"{_f(lo, spec)} .. {_f(hi, spec)}"


def _short_names(stats: SkatMatchStats) -> dict[str, str]:
    """Agent names for the tables: the spec, or its letter (A, B, C as in the title) when
    the spec is too long for a column (e.g. one with a base directory)."""
    return {a.label: a.label if len(a.label) <= 28 else "ABC"[i]
            for i, a in enumerate(stats.agents)}


def _category_table(title: str, stats: SkatMatchStats, short: dict[str, str],
                    cell: Callable[[CategoryCount], str]) -> Table:
    """One row per agent, one column per game category (:data:`GAME_CATEGORIES`)."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    table.add_column("agent", no_wrap=True)
    for c in GAME_CATEGORIES:
        table.add_column(c, justify="right", no_wrap=True)
    for a in stats.agents:
        table.add_row(short[a.label], *(cell(a.categories[c]) for c in GAME_CATEGORIES))
    return table


def stats_tables(stats: SkatMatchStats, title: str) -> list[Table]:
    """The agent table, the game-type table and the paired differences."""
    level = f"{100 * stats.confidence:g}%"
    short = _short_names(stats)
    agents = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    for name, justify in (
        ("agent", "left"), ("seat-games", "right"), ("declared", "right"),
        ("won", "right"), ("win rate", "right"), (f"{level} CI", "right"),
        ("passed in", "right"), ("mean value", "right"), ("SF / 36 games", "right"),
        (f"{level} CI", "right"),
    ):
        agents.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for a in stats.agents:
        agents.add_row(
            short[a.label], str(a.seat_games), str(a.declared), str(a.won),
            _f(a.win_rate, ".3f"), _ci(a.win_low, a.win_high, ".3f"), str(a.passed_in),
            _f(a.mean_value), _f(a.seeger_per_list, ".0f", True),
            _ci(a.seeger_low, a.seeger_high, ".0f"),
        )
    kinds = _category_table(
        "Declared games by type and announcement: declared / won, declarer's SF points per "
        "36 seat-games (suit, grand and null hold each game once; hand to overbid count some "
        "of them again)", stats, short,
        lambda n: f"{n.declared}/{n.won} ({_f(n.seeger_per_list, '.0f', True)})")
    mix = _category_table(
        "Declared mix: share of the agent's declared games, win rate, mean value, declarer's "
        "SF points per declared game", stats, short,
        lambda n: "-" if not n.declared else (
            f"{100 * n.share:.1f}% {n.win_rate:.2f} {n.mean_value:.0f} "
            f"{_f(n.seeger_per_game, '.0f', True)}"))
    mix.add_row("experts", *(EXPERT_MIX.get(c, "") for c in GAME_CATEGORIES))
    diffs = Table(title="Paired difference on the same deals (SF points per 36 games)",
                  title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    for name in ("agent", "minus", "deals", "difference", f"{level} CI"):
        diffs.add_column(name, no_wrap=True)
    for d in stats.differences:
        diffs.add_row(short[d.a], short[d.b], str(d.deals), _f(d.mean, ".0f", True),
                      _ci(d.low, d.high, ".0f"))
    return [agents, kinds, mix, diffs]


def title(stats: SkatMatchStats, described: str) -> str:
    """The first table's title: the match and what its figures cover."""
    text = (f"Skat duplicate match: {described}\n{stats.deals} complete deals, "
            f"{stats.games} games, {stats.passed_in_games} passed in")
    if stats.incomplete_deals:
        text += f" ({stats.incomplete_deals} incomplete deals left out)"
    return text


class SkatMatchReport:
    """Seeger-Fabian figures and tables (:class:`spielwerk.arena.duplicate.DuplicateReport`)."""

    def figures(self, results: Sequence[Played], labels: Sequence[str], games_per_deal: int,
                confidence: float) -> SkatMatchStats:
        return skat_match_stats(results, labels, games_per_deal, confidence)

    def to_dict(self, figures: Any) -> dict[str, Any]:
        stats: SkatMatchStats = figures
        return stats.to_dict()

    def renderables(self, figures: Any, described: str) -> list[Any]:
        stats: SkatMatchStats = figures
        return list(stats_tables(stats, title(stats, described)))


REPORT = SkatMatchReport()
