"""The Python API of the double-dummy solver: positions, switches, queries, results."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.cards import ALL_CARDS_MASK, DISPLAY_ORDER, GRAND, NULL
from spielwerk.games.skat.dds import search
from spielwerk.games.skat.dds.bounds import upper_bound
from spielwerk.games.skat.dds.keys import (
    MODE_DECLARER_TRICKS,
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    card_order,
    generation,
)
from spielwerk.games.skat.dds.ordering import (
    ORDER_FOLLOW,
    ORDER_HASH_MOVE,
    ORDER_HISTORY,
    ORDER_KILLERS,
    ORDER_LEAD,
)
from spielwerk.games.skat.dds.search import (
    CFG_SIZE,
    MAX_MOVES,
    MAX_PLY,
)
from spielwerk.games.skat.dds.steps import (
    STACK_FIELDS,
    STAT_ABORTED,
    STAT_NODES,
    STATS_SIZE,
)
from spielwerk.games.skat.kernel import legal_cards
from spielwerk.search import tt
from spielwerk.search.nullwindow import narrow, next_beta

if TYPE_CHECKING:
    from spielwerk.games.skat.scoring import Contract


class SolverError(SpielwerkError, ValueError):
    """A position or query the solver cannot answer (bad game code, bad threshold)."""


class SearchLimitError(SolverError):
    """The search passed its node limit (``SolverConfig.node_limit``) without an answer."""


@dataclass(frozen=True)
class DealPosition:
    """A play-phase position with every hand known, in kernel form.

    ``hands`` are card masks per seat; ``trick`` the cards on the table in
    play order; ``leader`` the seat that led the current trick (the player to
    move is ``(leader + len(trick)) % 3``). ``declarer_points`` include the
    skat (it counts for the declarer); the trick counts are of finished tricks.
    """

    game: int
    declarer: int
    hands: tuple[int, int, int]
    trick: tuple[int, ...] = ()
    leader: int = 0
    declarer_points: int = 0
    defender_points: int = 0
    declarer_tricks: int = 0
    defender_tricks: int = 0

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 3

    @property
    def tricks_left(self) -> int:
        """Tricks not finished yet (the current one included)."""
        return (sum(int(h).bit_count() for h in self.hands) + len(self.trick)) // 3


@dataclass(frozen=True)
class SolverConfig:
    """One switch per technique, for the ablation; each works on its own.

    Defaults: table, equivalence classes, move ordering, null window and
    quick tricks on; history and killers off (measured: they cost nodes here).
    """

    transposition_table: bool = True
    """Table of bounds at trick boundaries (shared :mod:`spielwerk.search.tt` clustered table)."""
    equivalence: bool = True
    """Search one card of each run of interchangeable cards; compact table keys."""
    move_ordering: bool = True
    """Hash move from the table, the defenders' lead look-ahead and fewest replies on lead,
    win cheaply / feed the partner when following (flags ``ORDER_HASH_MOVE``,
    ``ORDER_LEAD``, ``ORDER_FOLLOW``)."""
    history: bool = False
    """Also order by a history of cut-off moves (measured: costs nodes here, so off)."""
    killers: bool = False
    """Also try two killer moves per ply early (measured: costs nodes here, so off)."""
    null_window: bool = True
    """Null-window tests for thresholds and MTD-bi for exact values (off: one full window)."""
    quick_tricks: bool = True
    """Cut when either side surely takes enough points (sure points; points objective)."""
    tt_log2: int = 20
    node_limit: int = 0
    """Give up (:class:`SearchLimitError`) after this many nodes in one call; 0: never."""
    keep_table_on_abort: bool = False
    """After a search given up at its node limit, keep the table (it holds only nodes
    searched to the end: an aborted search stores nothing), so that the same search started
    again goes on from there; off: the table is emptied."""

    def order_flags(self) -> int:
        """The ``ORDER_*`` flags of the move-ordering switches."""
        flags = ORDER_HASH_MOVE | ORDER_LEAD | ORDER_FOLLOW if self.move_ordering else 0
        if self.history:
            flags |= ORDER_HISTORY
        if self.killers:
            flags |= ORDER_KILLERS
        return flags


QUERIES = ("exact", "61", "90", "schwarz", "null")


@dataclass
class SolveResult:
    """Answer to a query; ``moves`` maps each legal card to its value (int or bool)."""

    query: str
    value: int | bool
    best: int
    moves: dict[int, int | bool]
    nodes: int
    seconds: float
    extra: dict[str, int] = field(default_factory=dict)


class Solver:
    """A double-dummy solver with its own transposition table and move-ordering tables.

    Table entries are keyed by the full remaining position (owner of every
    card), so they stay valid across deals and calls with the same game,
    declarer and objective (a table *generation* per context); :meth:`clear`
    empties everything (used for reproducible node counts).
    """

    def __init__(self, config: SolverConfig | None = None) -> None:
        self.config = config or SolverConfig()
        if not 2 <= self.config.tt_log2 <= 30:
            raise SolverError(f"tt_log2 must be 2..30 (a bucket holds {tt.CLUSTER} entries), "
                              f"not {self.config.tt_log2}")
        self._tt = tt.new_cluster_table(self.config.tt_log2)
        self._hist = np.zeros((3, 32), dtype=np.int64)
        self._killers = np.full((MAX_PLY, 2), -1, dtype=np.int64)
        self._mbuf = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self._sbuf = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.stats = np.zeros(STATS_SIZE, dtype=np.int64)
        self._stk = np.zeros((MAX_PLY, STACK_FIELDS), dtype=np.int64)
        self._orders: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def clear(self) -> None:
        """Forget all table entries, history and killers."""
        self._tt[:] = 0
        self._hist[:] = 0
        self._killers[:] = -1
        self.stats[:] = 0

    @property
    def nodes(self) -> int:
        return int(self.stats[STAT_NODES])

    # ---- internals
    def _prepare(
        self, pos: DealPosition, mode: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not 0 <= pos.game <= NULL:
            raise SolverError(f"game code {pos.game} is not 0..{NULL}")
        if not 0 <= pos.declarer <= 2 or not 0 <= pos.leader <= 2:
            raise SolverError("declarer and leader are seats 0..2")
        if len(pos.trick) > 2:
            raise SolverError("at most two cards can lie on the table before the next card")
        c = self.config
        okey = (pos.game, mode)
        if okey not in self._orders:
            self._orders[okey] = card_order(pos.game, mode, c.equivalence)
        order, group = self._orders[okey]
        cfg = np.zeros(CFG_SIZE, dtype=np.int64)
        cfg[search.CFG_GAME] = pos.game
        cfg[search.CFG_DECL] = pos.declarer
        cfg[search.CFG_MODE] = mode
        cfg[search.CFG_USE_TT] = c.transposition_table
        cfg[search.CFG_USE_EQUIV] = c.equivalence
        cfg[search.CFG_ORDER] = c.order_flags()
        cfg[search.CFG_GEN] = generation(pos.game, pos.declarer, mode, c.equivalence)
        cfg[search.CFG_TT_MASK] = (1 << c.tt_log2) - 1
        cfg[search.CFG_NODE_LIMIT] = self.nodes + c.node_limit if c.node_limit else 0
        cfg[search.CFG_USE_QUICK] = c.quick_tricks
        hands = np.array(pos.hands, dtype=np.int64)
        table = np.full(3, -1, dtype=np.int64)
        for i, card in enumerate(pos.trick):
            table[i] = card
        return cfg, order, group, hands, table

    def _check_limit(self) -> None:
        if self.stats[STAT_ABORTED]:
            self.stats[STAT_ABORTED] = 0
            if not self.config.keep_table_on_abort:
                self._tt[:] = 0
            raise SearchLimitError(f"gave up after the node limit {self.config.node_limit}")

    def _run_value(self, pos: DealPosition, mode: int, threshold: bool, target: int) -> int:
        cfg, order, group, hands, table = self._prepare(pos, mode)
        value = int(search.value(
            hands, table, len(pos.trick), pos.leader, target, bool(self.config.null_window),
            bool(threshold), cfg, order, group, self._tt, self._hist, self._killers, self._mbuf,
            self._sbuf, self.stats, self._stk, 0))
        self._check_limit()
        return value

    def _run_moves(self, pos: DealPosition, mode: int, threshold: bool, target: int,
                   want: int = ALL_CARDS_MASK) -> dict[int, int]:
        cfg, order, group, hands, table = self._prepare(pos, mode)
        out = np.full(32, -1, dtype=np.int64)
        search.move_values(hands, table, len(pos.trick), pos.leader, target, bool(threshold),
                           bool(self.config.null_window), cfg, order, group, self._tt, self._hist,
                           self._killers, self._mbuf, self._sbuf, self.stats, self._stk, out,
                           want)
        self._check_limit()
        return {c: int(out[c]) for c in range(32) if out[c] >= 0 and (want >> c) & 1}

    def remaining_move_values(self, pos: DealPosition, mode: int) -> dict[int, int]:
        """Exact value of the rest of the game after each legal card, in objective ``mode``.

        ``MODE_POINTS``: card points the declarer takes from here on (the table's
        cards included); the trick modes count tricks.
        """
        if mode not in (MODE_POINTS, MODE_DECLARER_TRICKS, MODE_DEFENDER_TRICKS):
            raise SolverError(f"unknown objective {mode}")
        return self._run_moves(pos, mode, False, 0)

    @staticmethod
    def _query_setup(pos: DealPosition, query: str) -> tuple[int, bool, int | None]:
        """(mode, threshold?, target on the remaining value or None if already lost)."""
        if query not in QUERIES:
            raise SolverError(f"unknown query {query!r}; choose one of {', '.join(QUERIES)}")
        if query == "null":
            if pos.game != NULL:
                raise SolverError("the null query needs a null game")
            if pos.declarer_tricks > 0:
                return MODE_DEFENDER_TRICKS, True, None
            return MODE_DEFENDER_TRICKS, True, pos.tricks_left
        if pos.game == NULL:
            raise SolverError(f"query {query!r} is for suit and grand games; null has 'null'")
        if query == "exact":
            return MODE_POINTS, False, 0
        if query == "schwarz":
            if pos.defender_tricks > 0:
                return MODE_DECLARER_TRICKS, True, None
            return MODE_DECLARER_TRICKS, True, pos.tricks_left
        return MODE_POINTS, True, int(query) - pos.declarer_points

    # ---- public queries
    def exact(self, pos: DealPosition) -> int:
        """The declarer's final card points (skat included) under perfect play."""
        if pos.game == NULL:
            raise SolverError("exact card points are not defined for null games")
        return pos.declarer_points + self._run_value(pos, MODE_POINTS, False, 0)

    def exact_within(self, pos: DealPosition, lower: int, upper: int) -> int:
        """:meth:`exact` when the final points are known to lie in ``lower..upper``.

        The same MTD-bi tests as :meth:`exact` (the shared null-window driver),
        started inside the bounds instead of ``0..upper bound``: e.g. a game known
        won without schneider (61..89) needs about five tests, not seven. The
        bounds are the caller's promise; a value outside them comes back clamped
        to the nearer bound.
        """
        if pos.game == NULL:
            raise SolverError("exact card points are not defined for null games")
        if lower > upper:
            raise SolverError(f"empty bounds {lower}..{upper}")
        cfg, order, group, hands, table = self._prepare(pos, MODE_POINTS)
        nt = len(pos.trick)
        top = int(upper_bound(hands, table, nt, MODE_POINTS))
        lo = max(0, lower - pos.declarer_points)
        hi = min(top, upper - pos.declarer_points)
        g = lo
        while lo < hi:
            beta = int(next_beta(lo, hi, g, 0, 1, True))
            g = int(search.alpha_beta(hands, table, nt, pos.leader, beta - 1, beta, 0, cfg, order,
                                      group, self._tt, self._hist, self._killers, self._mbuf,
                                      self._sbuf, self.stats, self._stk))
            self._check_limit()
            lo, hi = (int(x) for x in narrow(lo, hi, beta, g, 0, 1))
        return pos.declarer_points + lo

    def reaches(self, pos: DealPosition, points: int) -> bool:
        """Can the declarer end with at least ``points`` card points?"""
        if pos.game == NULL:
            raise SolverError("point thresholds are for suit and grand games")
        return bool(self._run_value(pos, MODE_POINTS, True, points - pos.declarer_points))

    def move_reaches(self, pos: DealPosition, points: int,
                     cards: int = ALL_CARDS_MASK) -> dict[int, bool]:
        """After each legal card (those in the mask ``cards``), can the declarer end with at
        least ``points`` card points? (:meth:`reaches` per card.)"""
        if pos.game == NULL:
            raise SolverError("point thresholds are for suit and grand games")
        raw = self._run_moves(pos, MODE_POINTS, True, points - pos.declarer_points, cards)
        return {c: bool(v) for c, v in raw.items()}

    def query(self, pos: DealPosition, query: str) -> bool | int:
        """``exact`` -> final declarer points; thresholds -> bool (declarer succeeds)."""
        mode, threshold, target = self._query_setup(pos, query)
        if not threshold:
            return self.exact(pos)
        if target is None:
            return False
        return bool(self._run_value(pos, mode, True, target))

    def wins(self, pos: DealPosition, contract: Contract) -> bool:
        """Can the declarer still win ``contract`` (its :meth:`Contract.goal`) from here?"""
        return bool(self.query(pos, contract.goal()))

    def move_values(
        self, pos: DealPosition, query: str = "exact", cards: int = ALL_CARDS_MASK
    ) -> dict[int, int | bool]:
        """Value after each legal card of the player to move (same meaning as :meth:`query`).

        ``cards`` (a mask) limits the answer to those legal cards; the others
        are not searched.
        """
        mode, threshold, target = self._query_setup(pos, query)
        if target is None:  # already decided: every card fails
            leg = legal_cards(pos.hands[pos.to_move], pos.trick[0] if pos.trick else -1, pos.game)
            return {c: False for c in range(32) if leg >> c & cards >> c & 1}
        raw = self._run_moves(pos, mode, threshold, target, cards)
        if not threshold:
            return {c: pos.declarer_points + v for c, v in raw.items()}
        return {c: bool(v) for c, v in raw.items()}

    def solve(self, pos: DealPosition, query: str = "exact") -> SolveResult:
        """Value, best card and the value of every legal card, with nodes and time."""
        start_nodes = self.nodes
        t0 = time.perf_counter()
        moves = self.move_values(pos, query)
        if not moves:
            raise SolverError("the player to move has no card")
        declarer_moves = pos.to_move == pos.declarer
        scored = {c: int(v) for c, v in moves.items()}
        value_int = max(scored.values()) if declarer_moves else min(scored.values())
        best = next(c for c in DISPLAY_ORDER if scored.get(c, -1) == value_int)
        value: int | bool = value_int if query == "exact" else bool(value_int)
        seconds = time.perf_counter() - t0
        return SolveResult(query, value, best, moves, self.nodes - start_nodes, seconds)


def best_cards(values: dict[int, int | bool], maximize: bool) -> set[int]:
    """Cards whose value is optimal for the mover (declarer maximises)."""
    scored = {c: int(v) for c, v in values.items()}
    target = max(scored.values()) if maximize else min(scored.values())
    return {c for c, v in scored.items() if v == target}


__all__ = ["GRAND", "NULL", "DealPosition", "QUERIES", "SearchLimitError", "SolveResult",
           "Solver", "SolverConfig", "SolverError", "best_cards"]
