"""Skat card play by PIMC over the double-dummy solver (spec ``pimc:worlds=64``).

For each card decision the agent samples worlds from its info state, solves
every world with :mod:`dds` for every legal card, and plays the card that is
best in the most worlds (ties: most total value, then seeded random). When
no more worlds are consistent than ``worlds``, all of them are listed
(:func:`enumerate_deals`) and each is solved once. Values:

* ``values=win`` (default): 1 if the mover's side reaches its goal (the
  declarer: 61, 90 when schneider is announced, every trick when schwarz is
  announced; null: no declarer trick), else 0. Threshold tests prune far more
  than exact values, which keeps a decision at trick 1 to seconds;
* ``values=points`` (as the seed describes): the declarer's final card points
  under perfect play (defenders use 120 minus that); in null, the number of
  tricks the defenders take. Exact values for every card are about ten times
  dearer (minutes per early decision on a busy 2-core machine).

With ``endgame=N`` the card of the last N tricks is chosen by αμ search over
the same worlds (:mod:`alphamu`: one card for all the worlds the player cannot
tell apart, which PIMC's vote does not ensure).

Bidding, the skat and the declaration come from the rule baseline
(:class:`SkatRuleAgent`), so matches compare card play with the contract
fixed by the baseline bidder. Offers to concede are declined, as the
baseline does.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from spielwerk.core.agent import Agent, check_declared, param, register_declared
from spielwerk.core.game import Game, InfoState
from spielwerk.games.skat.cards import NULL, TOTAL_POINTS, cards_of
from spielwerk.games.skat.dds import (
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    DealPosition,
    SearchLimitError,
    Solver,
    SolverConfig,
)
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.position import deal_from_state, deal_position
from spielwerk.games.skat.rules import PLAY, PLAY_ON
from spielwerk.games.skat_ai.alphamu import AlphaMuLimit, alphamu_card
from spielwerk.games.skat_ai.baseline import SkatRuleAgent
from spielwerk.games.skat_ai.infer_models import BID_MODELS
from spielwerk.games.skat_ai.inference import (
    INFERENCES,
    PLAY_MODELS,
    Inference,
    InferenceSettings,
    weighted_deals,
    weighted_listed,
)
from spielwerk.games.skat_ai.null_play import (
    null_declarer_preference,
    null_defender_preference,
)
from spielwerk.games.skat_ai.suit_defence import margin_preference, suit_defender_preference
from spielwerk.mc.pimc import PimcError, PimcResult, pimc_search

_T = TypeVar("_T")


class _OutOfTime(Exception):
    """The decision's deadline passed during a tie-break's search."""


INFER_BATCH = 8
"""Weighted worlds are drawn this many at a time (from ``candidates`` times as many uniform
ones), so that a decision stopped by its time limit drew few more than it solved."""


def goal_query(info: SkatInfoState) -> str:
    """The solver query that decides the declarer's win in this contract."""
    contract = info.contract
    assert contract is not None
    return contract.goal()


@dataclass(frozen=True)
class PimcSettings:
    """The ``pimc`` agent's parameters, each declared once (default, help, limits)."""

    worlds: int = param(64, "worlds sampled per card decision", (1, None))
    time: float = param(0.0, "seconds per decision (0: no limit; stops sampling early)",
                        (0, None))
    values: str = param("win", "win (goal reached 1/0, fast) or points (final card points, as "
                               "the seed)", ("win", "points"))
    prune: bool = param(True, "win values: stop solving cards that can no longer win the vote "
                              "(same choice)")
    deadline: bool = param(False, "time: also stop a world's search when the decision's time "
                                  "is spent (the clock read between slices of the search); a "
                                  "decision that finished no world plays the rule agent's card")
    null_ties: bool = param(True, "null declarer: cards the vote ties are chosen as null "
                                  "declarers play (null_play.py), not at random")
    null_lead: bool = param(False, "null declarer leading: of the cards the vote ties, the one "
                                   "the defenders can least easily let win the trick "
                                   "(null_play.py), not at random")
    null_defence: bool = param(False, "null defender: of the cards the vote ties, the one "
                                      "that makes the declarer take the current trick in the "
                                      "most worlds (null_play.py), not at random")
    suit_defence: bool = param(False, "suit and grand defender: of the cards the vote ties, "
                                      "the one that brings the defenders the most card points "
                                      "in the current trick over the worlds (suit_defence.py)")
    suit_margin: int = param(0, "suit and grand defender: of the cards the vote ties, the "
                                "one that holds the declarer below the goal + this many card "
                                "points (below the goal - this where he fails) in the most "
                                "worlds (suit_defence.py); 0: off",
                             (0, 60))
    suit_slack: int = param(0, "suit_margin: the cards within this many worlds of the vote's "
                               "best count are weighed too, by 2 per world they beat the game "
                               "plus the margin's credit (suit_defence.py); 0: exact ties only",
                            (0, 8))
    infer: str = param("none", "worlds drawn uniformly (none) or weighted by the likelihood "
                               "of the auction (auction), of the cards played (play) or both, "
                               "under models of our own bot (inference.py)", INFERENCES)
    candidates: int = param(InferenceSettings.candidates, "infer: uniform candidates drawn "
                            "per world", (1, 64))
    floor: float = param(InferenceSettings.floor, "infer: likelihood floor (an opponent who "
                         "bids unlike the model)", (0, 1))
    power: float = param(InferenceSettings.power, "infer: exponent of the auction's "
                         "likelihood", (0, 4))
    play_power: float = param(InferenceSettings.play_power, "infer: exponent of the play's "
                              "likelihood", (0, 4))
    play_model: str = param(InferenceSettings.play_model, "infer=play/both: the play's "
                            "likelihood from the network fitted to our bot's cards (net) or "
                            "the table's rule of thumb (heuristic: points onto the own side's "
                            "tricks)", PLAY_MODELS)
    bid_model: str = param(InferenceSettings.bid_model, "infer=auction/both: the bids' "
                           "likelihood from the network fitted to this bidder's bidding: knn2 "
                           "(the frozen bots' and the default's) or knn10 (refitted on the "
                           "default's own bidding)", tuple(BID_MODELS))
    endgame: int = param(0, "win values: with this many tricks left or fewer, choose the card "
                            "by alpha-mu search over the same worlds (one card for all the "
                            "worlds the player cannot tell apart: less strategy fusion; "
                            "alphamu.py); 0: off", (0, 4))

    def __post_init__(self) -> None:
        check_declared("pimc", self)


class SkatPimcAgent(Agent):
    """PIMC card play with the double-dummy solver; rule baseline elsewhere."""

    def __init__(self, game: Game, seed: int | None = None, **settings: Any) -> None:
        super().__init__(game, seed)
        s = self.settings = PimcSettings(**settings)
        self.worlds = s.worlds
        self.time_limit = s.time if s.time > 0 else None
        self.values = s.values
        self.prune = s.prune
        self.inference = Inference.of(s.infer, InferenceSettings(
            floor=s.floor, candidates=s.candidates, power=s.power, play_power=s.play_power,
            play_model=s.play_model, bid_model=s.bid_model))
        # a search cut by the deadline keeps its table: the next slice goes on from there
        self.solver = Solver(SolverConfig(tt_log2=20, keep_table_on_abort=True))
        self.node_rate = INITIAL_NODE_RATE  # nodes a second, measured over this agent's solves
        self.clock: Callable[[], float] = time.perf_counter  # every time check (tests step it)
        self._deadline: float | None = None
        self._rate_measured = False
        self.fallback = SkatRuleAgent(game, seed)
        self.last: PimcResult | None = None
        self.endgame_fallbacks = 0  # αμ searches that passed their limits

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fallback.reset(seed)

    def inform(self, action: int) -> None:
        self.fallback.inform(action)

    def decides_deterministically(self, info_state: InfoState) -> bool:
        """The rule agent's decisions (all but the card play) and forced cards."""
        if not isinstance(info_state, SkatInfoState):
            return False
        if info_state.phase != PLAY or info_state.contract is None:
            return True
        return len([a for a in info_state.legal_actions() if a < 32]) <= 1

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if not isinstance(info_state, SkatInfoState) or not legal:
            return self.fallback.act(info_state)
        if PLAY_ON in legal:
            return PLAY_ON
        if info_state.phase != PLAY or info_state.contract is None:
            return self.fallback.act(info_state)  # bidding, skat, declaration, Ramsch
        cards = [a for a in legal if a < 32]
        if len(cards) == 1:
            return cards[0]
        try:
            self.last = self.decide(info_state)
        except PimcError:  # deadline: no world finished in time
            self.last = None
            return self.fallback.act(info_state)
        return self.last.action

    def decide(self, info: SkatInfoState) -> PimcResult:
        """Run PIMC for the card to play now."""
        query = goal_query(info)
        me_declarer = info.player == info.declarer
        inference = self.inference
        self._deadline = (self.clock() + self.time_limit
                          if self.time_limit and self.settings.deadline else None)
        self._rate_measured = False  # the node rate of this decision (card_values)
        pool: list[DealPosition] = []
        solved: dict[DealPosition, dict[int, float]] = {}  # weighted worlds may repeat

        def sample(rng: Any) -> DealPosition:
            if inference is None:
                return deal_from_state(info.sample_world(rng))
            if not pool:  # drawn by weight a batch at a time; PIMC takes them in turn
                pool.extend(weighted_deals(info, rng, min(INFER_BATCH, self.worlds), inference))
            return pool.pop()

        def listed(limit: int) -> list[DealPosition] | None:
            found = enumerate_deals(info, limit)
            if found is None or inference is None:
                return found
            return weighted_listed(info, found, self.worlds, self.rng, inference)

        seen: list[DealPosition] = []  # the worlds the vote solved, for a tie-break

        def solve(pos: DealPosition) -> dict[int, float]:
            seen.append(pos)
            if pos not in solved:
                solved[pos] = self.card_values(pos, query, me_declarer)
            return solved[pos]

        def solve_some(pos: DealPosition, cards: frozenset[int] | None) -> dict[int, float]:
            seen.append(pos)
            if pos in solved:  # solved for more cards than are still alive
                return {c: v for c, v in solved[pos].items() if cards is None or c in cards}
            mask = 0xFFFFFFFF if cards is None else sum(1 << c for c in cards)
            solved[pos] = self.card_values(pos, query, me_declarer, mask)
            return solved[pos]

        prefer: Callable[[list[int]], int | None] | None = None
        if self.settings.null_ties and info.player == info.declarer:
            prefer = lambda tied: null_declarer_preference(  # noqa: E731
                info, tied, lead=self.settings.null_lead)
        elif info.player != info.declarer and info.game_code == NULL:
            if self.settings.null_defence:
                prefer = lambda tied: null_defender_preference(info, tied, seen)  # noqa: E731
        elif info.player != info.declarer and (self.settings.suit_defence
                                               or self.settings.suit_margin):
            prefer = lambda tied: self._suit_preference(info, tied, seen, solved, query)  # noqa: E731
        time_limit = self.time_limit
        if (self.settings.endgame and self.values == "win"
                and int(info.hand).bit_count() <= self.settings.endgame):
            t0 = self.clock()
            chosen = self._endgame(info, query, sample, listed, prefer)
            if chosen is not None:
                return chosen
            if time_limit is not None:  # PIMC's card, in the time left
                time_limit = max(0.2 * time_limit, time_limit - (self.clock() - t0))
        slack = self.settings.suit_slack if (
            self.settings.suit_margin and self.values == "win" and info.game_code != NULL
            and info.player != info.declarer) else 0
        return pimc_search(
            sample, solve, self.rng, worlds=self.worlds, time_limit=time_limit,
            enumerate_worlds=listed,
            solve_some=solve_some if self.values == "win" and self.prune else None,
            prefer=prefer, deadline=self._deadline, clock=self.clock, slack=slack,
        )

    def _suit_preference(self, info: SkatInfoState, tied: list[int], seen: list[DealPosition],
                         solved: dict[DealPosition, dict[int, float]],
                         query: str) -> int | None:
        """A suit or grand defender's card among ``tied``: by the declarer's margin
        (``suit_margin``; with a deadline its searches are sliced as the vote's, and none is
        chosen when the time runs out), else by the current trick's points
        (``suit_defence``), else None (a seeded random pick)."""
        s = self.settings

        def reaches(pos: DealPosition, points: int, mask: int) -> dict[int, bool]:
            found = self._sliced(lambda: self.solver.move_reaches(pos, points, mask))
            if found is None:
                raise _OutOfTime
            return found

        if s.suit_margin and self.values == "win":  # the margin reads 0/1 votes
            try:
                pick = margin_preference(info, tied, seen, lambda pos: solved.get(pos, {}),
                                         reaches, s.suit_margin)
            except _OutOfTime:  # the deadline passed: the seeded random pick
                return None
            if pick is not None:
                return pick
        if not s.suit_defence:
            return None
        if s.suit_slack:  # asked about near ties too: the trick's points break exact ones
            beats = {c: sum(solved.get(pos, {}).get(c) == 1.0 for pos in seen) for c in tied}
            tied = [c for c in tied if beats[c] == max(beats.values())]
        return suit_defender_preference(info, tied, seen) if len(tied) > 1 else None

    def _endgame(self, info: SkatInfoState, query: str, sample: Callable[[Any], DealPosition],
                 listed: Callable[[int], list[DealPosition] | None],
                 prefer: Callable[[list[int]], int | None] | None) -> PimcResult | None:
        """αμ's card over the worlds PIMC would solve (all of them when they can be listed,
        else ``worlds`` drawn, within half the time); None when the search passes its limits
        (then PIMC decides)."""
        start = time.perf_counter()
        found = listed(self.worlds)
        exhaustive = found is not None and self.inference is None
        worlds: list[DealPosition] = found if found is not None else []
        while found is None and len(worlds) < self.worlds:
            worlds.append(sample(self.rng))
            if self.time_limit and time.perf_counter() - start > 0.5 * self.time_limit:
                break
        if not worlds:
            return None
        deadline = start + 0.8 * self.time_limit if self.time_limit else None
        try:
            res = alphamu_card(worlds, query, node_limit=ENDGAME_NODES, deadline=deadline)
        except AlphaMuLimit:
            self.endgame_fallbacks += 1
            return None
        best = max(res.scores.values())
        tied = [c for c, v in sorted(res.scores.items()) if v == best]
        action = tied[0]
        if len(tied) > 1:
            pick = prefer(tied) if prefer is not None else None
            action = pick if pick in tied else tied[int(self.rng.integers(len(tied)))]
        return PimcResult(action, {c: int(v == best) for c, v in res.scores.items()},
                          dict(res.scores), len(worlds), exhaustive,
                          time.perf_counter() - start, {"alphamu_nodes": res.nodes})

    def card_values(
        self, pos: DealPosition, query: str, me_declarer: bool, cards: int = 0xFFFFFFFF
    ) -> dict[int, float]:
        """Value of each legal card (those in the mask ``cards``) in one world, from the
        mover's side (higher is better); with a deadline, nothing (an empty answer) when the
        time ran out during the search.

        With a deadline the search runs in slices of at most :data:`DEADLINE_SLICE` of the
        decision's time, each a node limit at the node rate measured on the slice before
        (the machine's load may change it at any time); the clock is read between slices,
        and a slice cut by its node limit leaves its table to the next, which goes on from
        there. A search past the deadline stops within one slice."""
        values = self._sliced(lambda: self._card_values(pos, query, me_declarer, cards))
        return {} if values is None else values

    def _sliced(self, search: Callable[[], _T]) -> _T | None:
        """``search()`` (a solver search), with a deadline in slices (:meth:`card_values`);
        None when the deadline passed before it finished."""
        if self._deadline is None:
            return search()
        solver = self.solver
        longest = max(MIN_SLICE_S, DEADLINE_SLICE * (self.time_limit or 0.0))
        try:
            while True:
                now = self.clock()
                left = self._deadline - now
                if left <= 0:
                    return None
                # the decision's first slice is short: the rate it goes by is not yet measured
                # on this decision (the one assumed, or an older one's, may be far off)
                slice_s = longest if self._rate_measured else MIN_SLICE_S
                limit = max(MIN_SLICE_NODES, int(min(left, slice_s) * self.node_rate))
                solver.config = replace(solver.config, node_limit=limit)
                nodes = solver.nodes
                try:
                    return search()
                except SearchLimitError:
                    continue  # the clock decides whether another slice follows
                finally:
                    spent = self.clock() - now
                    if spent > 0.005 or solver.nodes - nodes >= limit:  # a rate to go by
                        self.node_rate = max(1.0, (solver.nodes - nodes) / max(spent, 1e-6))
                        self._rate_measured = True
        finally:
            solver.config = replace(solver.config, node_limit=0)

    def _card_values(
        self, pos: DealPosition, query: str, me_declarer: bool, cards: int = 0xFFFFFFFF
    ) -> dict[int, float]:
        if self.values == "win":
            won = self.solver.move_values(pos, query, cards)
            return {c: float(bool(v) == me_declarer) for c, v in won.items()}
        if pos.game == NULL:
            if pos.declarer_tricks > 0:  # already lost: nothing to choose by
                return {c: 0.0 for c in self.solver.move_values(pos, "null")}
            raw = self.solver.remaining_move_values(pos, MODE_DEFENDER_TRICKS)
            return {c: float(v if me_declarer else -v) for c, v in raw.items()}
        raw = self.solver.remaining_move_values(pos, MODE_POINTS)
        final = {c: pos.declarer_points + v for c, v in raw.items()}
        return {c: float(v if me_declarer else TOTAL_POINTS - v) for c, v in final.items()}


ENDGAME_NODES = 100_000
"""Nodes an αμ endgame search may visit before PIMC decides instead."""

INITIAL_NODE_RATE = 2_000_000.0
"""Nodes a second assumed for the deadline until the agent has measured its own rate."""

DEADLINE_SLICE = 0.1
"""With a deadline, a world's search runs in slices of at most this share of the decision's
time, the clock read between them (a search cannot read the clock itself)."""
MIN_SLICE_S = 0.01
"""The shortest slice (seconds)."""
MIN_SLICE_NODES = 1000
"""The smallest node limit of a slice."""


register_declared(
    "pimc", SkatPimcAgent, PimcSettings,
    "PIMC card play: sampled worlds solved double-dummy, the card best in most worlds",
    games=("skat",),
)


def enumerate_deals(info: SkatInfoState, limit: int, cap: int = 20000) -> list[DealPosition] | None:
    """Every world consistent with ``info`` as solver positions, or None if more than ``limit``.

    The hidden cards (:meth:`SkatInfoState.unseen`) are spread over the hidden
    places - the other hands (cards not shown) and the skat when this player
    does not know it - respecting the voids each player has shown. Worlds are
    equally likely, as in ``sample_world``. ``cap`` bounds the work: when the
    unconstrained count is above it, the answer is None without listing.
    """
    if info.phase != PLAY or info.contract is None:
        return None
    g = info.sgame
    me = info.player
    d = info.declarer
    shown = info.declarer_hand_known()
    places = info.hidden_places()  # (seat or -1 for the skat, count, forbidden)
    unseen = cards_of(info.unseen())
    if sum(c for _, c, _ in places) != len(unseen):
        return None
    total = math.factorial(len(unseen))
    for _, c, _ in places:
        total //= math.factorial(c)
    if total > cap:
        return None
    fills: list[list[int]] = []

    def rec(i: int, left: list[int], acc: list[int]) -> bool:
        if i == len(places):
            fills.append(list(acc))
            return len(fills) <= limit
        _, count, forbidden = places[i]
        allowed = [c for c in left if not (forbidden >> c) & 1]
        for combo in itertools.combinations(allowed, count):
            m = sum(1 << c for c in combo)
            acc.append(m)
            ok = rec(i + 1, [c for c in left if not (m >> c) & 1], acc)
            acc.pop()
            if not ok:
                return False
        return True

    if not rec(0, unseen, []):
        return None
    hands_now = dict.fromkeys(g.positions, 0)
    hands_now[me] = info.hand
    if shown is not None:
        hands_now[d] = shown
    out = []
    for fill in fills:
        hands = dict(hands_now)
        skat_cards = info.put if (me == d and info.picked_up) else None
        for (seat, _, _), m in zip(places, fill, strict=True):
            if seat < 0:
                skat_cards = m
            else:
                hands[seat] = m
        if skat_cards is None:  # the declarer's put cards are known to this player
            skat_cards = info.put or info.skat or 0
        out.append(deal_position(info, hands, skat_cards))
    return out
