"""The standings of a tournament as tables (rich) or JSON: every game's, every seating's."""

from __future__ import annotations

import json
import math

from rich import box
from rich.console import Console
from rich.table import Table

from spielwerk.arena.stats import Standings
from spielwerk.arena.tournament import TournamentResult
from spielwerk.core.registry import load_game


def _fmt(x: float, spec: str = ".1f", signed: bool = False) -> str:
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return format(x, ("+" if signed else "") + spec)


def _ci(lo: float, hi: float) -> str:
    return f"{100 * lo:.1f}-{100 * hi:.1f}"


def standings_tables(st: Standings, title: str, value: str = "margin") -> tuple[Table, Table]:
    """The rich standings table and the pairwise table.

    ``value`` names the mean return: "margin" for two-player zero-sum games.
    """
    level = f"{100 * st.confidence:g}% CI"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False)
    table.add_column("agent", no_wrap=True, style="bold")
    table.add_column("games", justify="right")
    table.add_column("W/D/L", justify="right", no_wrap=True)
    table.add_column("score%", justify="right", min_width=6)
    table.add_column(level, justify="right", no_wrap=True)
    table.add_column(f"{value} ± SE", justify="right", no_wrap=True)
    table.add_column("Elo", justify="right")
    for a in st.agents:
        table.add_row(
            a.label,
            str(a.games),
            f"{a.wins}/{a.draws}/{a.losses}",
            _fmt(100 * a.score),
            _ci(a.ci_low, a.ci_high),
            f"{_fmt(a.mean_return, '.1f', True)} ± {_fmt(a.se_return, '.1f')}",
            _fmt(a.elo, ".0f", True),
        )
    pairs = Table(title="Pairings (first agent's view)", title_justify="left",
                  box=box.SIMPLE_HEAVY, pad_edge=False)
    pairs.add_column("agent", no_wrap=True)
    pairs.add_column("opponent", no_wrap=True)
    pairs.add_column("W/D/L", justify="right", no_wrap=True)
    pairs.add_column("score%", justify="right", min_width=6)
    pairs.add_column(level, justify="right", no_wrap=True)
    pairs.add_column(f"{value}±SE", justify="right", no_wrap=True)
    for p in st.pairs:
        pairs.add_row(
            p.a,
            p.b,
            f"{p.wins}/{p.draws}/{p.losses}",
            _fmt(100 * p.score),
            _ci(p.ci_low, p.ci_high),
            f"{_fmt(p.mean_return, '.1f', True)}±{_fmt(p.se_return, '.1f')}",
        )
    return table, pairs


def print_standings(result: TournamentResult, confidence: float, footer: str, as_json: bool,
                    described: str = "", wall_s: float | None = None) -> None:
    """The standings and pairings tables of ``result`` and ``footer`` (``--json``: the
    standings as JSON, with ``wall_s`` when given)."""
    config = result.config
    if as_json:
        data = result.to_dict(confidence)
        if wall_s is not None:
            data["wall_s"] = round(wall_s, 3)
        print(json.dumps(data, indent=2))
        return
    out = Console()
    if not out.is_terminal:  # piped or captured: do not squeeze the tables into 80 columns
        out = Console(width=160)
    what = f"; {described}" if described else f", seed {config.seed}"
    title = (
        f"Standings: {config.game}\n{len(result.results)} games{what}, "
        "Elo: Bradley-Terry fit, mean 0"
    )
    game_type = load_game(config.game).game_type
    value = "margin" if game_type.num_players == 2 and game_type.zero_sum else "return"
    table, pairs = standings_tables(result.standings(confidence), title, value)
    out.print(table)
    if game_type.num_players > 2:
        others = game_type.num_players - 1
        out.print(
            f"W/D/L compares each game's return with each of the {others} opponents at the "
            f"table, so W+D+L is {others} x games; score% = (W + D/2) / (W + D + L).",
            highlight=False,
        )
    out.print(pairs)
    out.print(footer, highlight=False)
