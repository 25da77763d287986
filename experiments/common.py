"""Helpers the research pipelines in this folder share; no experiment imports another.

The putting studies (``skat_selection_glassbox.py``, ``skat_selection_exact.py``,
``skat_selection_selfplay.py``, ``skat_selection_winprob.py``) share their file format
(JSON Lines, one row per deal, later passes appending ``"update": true`` lines that are
merged into the deal's row; a half-written last line of a killed run is cut), the
thresholds of won / schneider, the Seeger points of an outcome and the set-up of a
declarer with a fixed game and put. A script in this folder imports them as
``from common import ...`` (``python experiments/SCRIPT.py`` puts this folder first on
the import path); the shipped package never imports anything from here.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from spielwerk.core.registry import load_game
from spielwerk.games.skat.actions import BID_BASE, DECLARATIONS, DECLARE_BASE, HOLD, PASS, PICKUP
from spielwerk.games.skat.cards import string_to_card
from spielwerk.games.skat.kernel import matadors
from spielwerk.games.skat.rules import DEAL_ORDER, PLAY, PUT, SKAT_PLACE, SkatState
from spielwerk.games.skat.scoring import Contract, evaluate, seeger_fabian
from spielwerk.games.skat_ai.baseline import SkatRuleAgent

STRATEGIES = ("random", "knn", "refined", "pimc", "rule")
"""The putting strategies of the studies, in the order of their tables."""


WIN, SCHNEIDER, LOSE_SCHNEIDER = 61, 90, 30
"""Card points: the declarer wins with 61, makes schneider with 90, is schneider at 30."""


def put_mask(twelve: int, text: str) -> int:
    """The card mask of ``text`` (e.g. ``"D7 D8"``), which must lie within ``twelve``."""
    m = sum(1 << string_to_card(t) for t in text.split())
    assert m & twelve == m
    return m


def cards_mask(text: str) -> int:
    """The card mask of ``text`` (e.g. ``"D7 D8"``)."""
    return sum(1 << string_to_card(t) for t in text.split())


def seeger(twelve: int, game: int, won: bool, schneider: bool) -> int:
    """Declarer's extended-Seeger points of a suit/grand game won or lost, with or
    without schneider (bid 18, not schwarz), through :func:`scoring.evaluate`."""
    if won:
        points = SCHNEIDER if schneider else WIN
    else:
        points = LOSE_SCHNEIDER if schneider else WIN - 1
    result = evaluate(Contract(game), 18, int(matadors(twelve, game)), points, 5)
    return seeger_fabian(result, 3, 0)[0]


def ci(xs: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% interval (normal approximation)."""
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")
    return m, h


def repair(out: Path) -> None:
    """Cut a last line left half-written by a killed run, so appending stays valid."""
    if out.exists():
        data = out.read_bytes()
        if data and not data.endswith(b"\n"):
            out.write_bytes(data[: data.rfind(b"\n") + 1])


def past(until: str | None) -> bool:
    """Is the wall clock (UTC, ``HH:MM``) past ``until``? Lets a run stop at a time."""
    return until is not None and time.strftime("%H:%M", time.gmtime()) >= until


def load(out: Path, fix: bool = True) -> dict[int, dict]:
    """Rows by deal, update lines merged into their deal's row. ``fix=False`` reads
    only (a half-written last line is skipped, not cut: another run may be writing)."""
    rows: dict[int, dict] = {}
    if fix:
        repair(out)
    if not out.exists():
        return rows
    text = out.read_text()
    if not fix and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    for line in text.splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if r.pop("update", False):
            row = rows[r["deal"]]
            for k, v in r.items():
                if isinstance(v, dict):
                    row.setdefault(k, {}).update(v)
                else:
                    row[k] = v
        else:
            rows[r["deal"]] = r
    return rows


def merge_exact(rows: dict[int, dict], path: Path) -> None:
    """Merge the exact card points written by ``skat_selection_exact.py`` (a separate
    file, so that run never races this one's appends); a point counts only for the
    put it was solved for."""
    for deal, line in load(path, fix=False).items():
        row = rows.get(deal)
        if row is None:
            continue
        for k, pts in line["points"].items():
            if row["puts"].get(k) == line["puts"][k]:
                row.setdefault("points", {})[k] = pts


def bounds(won: bool, schneider: bool) -> tuple[int, int]:
    """The final card points the threshold answers leave possible."""
    if won:
        return (SCHNEIDER, 120) if schneider else (WIN, SCHNEIDER - 1)
    return (0, 120 - SCHNEIDER) if schneider else (120 - SCHNEIDER + 1, WIN - 1)


def missing(row: dict, have: dict) -> dict[str, str]:
    """Strategy -> put of the puts of one deal without exact points in either file."""
    solved = {**row.get("points", {}), **have.get("points", {})}
    return {k: p for k, p in row["puts"].items()
            if k not in solved or have.get("puts", {}).get(k, p) != p}


def load_rows(out: Path) -> dict[int, dict]:
    """Rows by deal; update lines (strategies played later) merged into their row."""
    rows: dict[int, dict] = {}
    if not out.exists():
        return rows
    for line in out.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if r.pop("update", False):
            rows[r["deal"]]["results"].update(r["results"])
        else:
            rows[r["deal"]] = r
    return rows


def set_up(hands: tuple[int, int, int], skat: int, position: int, game: int,
            put: int | None) -> SkatState:
    """The deal dealt, the declarer at ``position`` holding 18 against two passes and
    picking up the skat; then ``put`` put and ``game`` declared (the state before the
    first card), or with ``put`` None the state where the declarer puts."""
    state = load_game("skat").new_initial_state()
    assert isinstance(state, SkatState)
    pools = {p: [c for c in range(32) if hands[p] >> c & 1] for p in range(3)}
    pools[SKAT_PLACE] = [c for c in range(32) if skat >> c & 1]
    state.deal_cards([pools[place].pop(0) for place in DEAL_ORDER])
    declarer = state.sgame.seat_of(position)
    contract = DECLARE_BASE + DECLARATIONS.index(Contract(game))
    put_cards = [c for c in range(32) if (put or 0) >> c & 1]
    while state.phase != PLAY and not (put is None and state.phase == PUT):
        legal = state.legal_actions()
        if state.current_player != declarer:
            action = PASS
        elif BID_BASE in legal:
            action = BID_BASE  # 18
        elif HOLD in legal:
            action = HOLD
        elif PICKUP in legal:
            action = PICKUP
        elif contract in legal:
            action = contract
        else:
            action = put_cards.pop()
        state.apply(action)
    assert state.declarer == declarer, "the set-up did not take"
    return state


def start(hands: tuple[int, int, int], skat: int, position: int, game: int,
          put: int) -> SkatState:
    """The state before the first card: ``position`` declares ``game`` at 18 with ``put``."""
    state = set_up(hands, skat, position, game, put)
    assert state.put == put, "the put did not take"
    return state


def rule_put(hands: tuple[int, int, int], skat: int, position: int) -> int:
    """The rule baseline's own put of the twelve cards (two :class:`SkatRuleAgent`
    decisions; it guards the trumps of the game it would choose itself)."""
    state = set_up(hands, skat, position, 0, None)
    agent = SkatRuleAgent(state.game, seed=0)
    while state.phase == PUT:
        state.apply(agent.act(state.info_state(state.current_player)))
    return state.put
