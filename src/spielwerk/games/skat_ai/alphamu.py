"""Endgame card choice with less strategy fusion: αμ search over a set of worlds.

PIMC solves every world on its own, as if the player would know the world at
each of its later decisions; it can pick a card that wins in every world
*separately* but needs a different continuation in each, which the player
cannot choose without seeing the cards ("strategy fusion", Frank & Basin
1998). αμ (Cazenave & Ventos 2020) searches all worlds at once: at the
player's own turns one card is chosen for every world still consistent with
the cards seen (the same information the player will have), while the other
seats choose per world, as PIMC lets them (the opponents as if they saw every
card - a cautious model - and a defender's partner as well).

Values are win/loss per world (the declarer's goal: 61, 90, schwarz; null:
no trick), so a continuation's result is a vector of bits over the worlds
(a Python int). A node's value is a Pareto front: the vectors no other one
covers, one per strategy of the player worth keeping. At the player's turns
the fronts of the cards are united; at the others' turns they are combined
world by world (a partner takes the better card in each world, an opponent
the worse: bitwise or / and). The card chosen is the one whose front holds
the vector with the most weight of worlds won. The search goes to the end of
the game, so it is used in the last tricks only (``endgame`` tricks left),
and it gives up - the caller keeps PIMC's card - when it passes its node or
time limit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.cards import NULL
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.kernel import class_mask, points, trick_winner

GOALS = ("61", "90", "schwarz", "null")


class AlphaMuError(SpielwerkError, ValueError):
    """Worlds that do not fit together, or an unknown goal."""


class AlphaMuLimit(SpielwerkError):
    """The search passed its node or time limit."""


@dataclass
class AlphaMuResult:
    """The card chosen, each card's score (weight of worlds won by its best vector), the
    total weight, and the search's nodes."""

    card: int
    scores: dict[int, float]
    total: float
    nodes: int


def pareto(vectors: Sequence[int] | set[int]) -> list[int]:
    """The vectors no other one covers (as bit sets), most bits first."""
    out: list[int] = []
    for v in sorted(set(vectors), key=lambda x: -x.bit_count()):
        if not any(v & ~k == 0 for k in out):
            out.append(v)
    return out


class AlphaMu:
    """αμ over ``worlds`` (positions that differ only in the hidden cards), for the player to
    move in them; ``weights`` per world (e.g. how often the sampler drew it)."""

    def __init__(self, worlds: Sequence[DealPosition], weights: Sequence[float], goal: str,
                 *, node_limit: int = 200_000, deadline: float | None = None) -> None:
        if not worlds:
            raise AlphaMuError("αμ needs at least one world")
        if len(weights) != len(worlds):
            raise AlphaMuError("one weight per world")
        if goal not in GOALS:
            raise AlphaMuError(f"unknown goal {goal!r}; choose one of {', '.join(GOALS)}")
        first = worlds[0]
        for w in worlds:
            if (w.game, w.declarer, w.trick, w.leader, w.defender_points, w.declarer_tricks,
                    w.defender_tricks) != (first.game, first.declarer, first.trick, first.leader,
                                           first.defender_points, first.declarer_tricks,
                                           first.defender_tricks):
                raise AlphaMuError("the worlds differ in more than the hidden cards")
            if w.hands[first.to_move] != first.hands[first.to_move]:
                raise AlphaMuError("the player to move holds different cards in the worlds")
        self.worlds = list(worlds)
        self.weights = [float(x) for x in weights]
        self.goal = goal
        self.game = first.game
        self.declarer = first.declarer
        self.me = first.to_move
        self.n = len(worlds)
        self.all = (1 << self.n) - 1
        # hold[s][c]: the worlds in which seat s holds card c
        self.hold = [[0] * 32 for _ in range(3)]
        for i, w in enumerate(worlds):
            for s in range(3):
                h = w.hands[s]
                while h:
                    c = (h & -h).bit_length() - 1
                    h &= h - 1
                    self.hold[s][c] |= 1 << i
        self.hand_union = [0, 0, 0]
        for s in range(3):
            for c in range(32):
                if self.hold[s][c]:
                    self.hand_union[s] |= 1 << c
        self.follow = [int(class_mask(self.game, c)) for c in range(32)]
        self.base_points = [w.declarer_points for w in worlds]  # the skat differs per world
        self.target = {"61": 61, "90": 90}.get(goal, 0)
        self.node_limit = node_limit
        self.deadline = deadline
        self.nodes = 0
        self.memo: dict[tuple[int, ...], list[int]] = {}
        self.defender_points0 = first.defender_points

    # ---- leaves -----------------------------------------------------------------------------
    def _declarer_wins(self, worlds: int, gained: int, f_gained: int, d_tricks: int,
                       f_tricks: int, finished: bool) -> int | None:
        """The worlds the declarer wins, once that is settled in all of ``worlds`` (None: not
        yet). ``gained`` / ``f_gained``: card points the declarer / defenders took in this
        search."""
        if self.goal == "null":
            if d_tricks > 0:
                return 0
            return worlds if finished else None
        if self.goal == "schwarz":
            if f_tricks > 0:
                return 0
            return worlds if finished else None
        # settled when the game is over, or the defenders hold so many points that the
        # target is out of reach in every world, or it is reached in every world
        out_of_reach = self.defender_points0 + f_gained > 120 - self.target
        won = 0
        for i in _bits(worlds):
            if self.base_points[i] + gained >= self.target:
                won |= 1 << i
        return won if finished or out_of_reach or won == worlds else None

    # ---- search -----------------------------------------------------------------------------
    def choose(self) -> AlphaMuResult:
        """The card whose best vector wins the most weight of worlds (ties: the lowest card
        number; the caller may break them otherwise from ``scores``)."""
        first = self.worlds[0]
        self.nodes = 0
        self.memo.clear()
        scores: dict[int, float] = {}
        lead = first.trick[0] if first.trick else -1
        for c, sub in self._moves(self.me, self.all, lead, 0):
            front = self._play(sub, first.leader, first.trick, 0, c, self.me, 0, 0,
                               first.declarer_tricks, first.defender_tricks)
            scores[c] = max(self._weight(v) for v in front)
        best = max(scores.values())
        card = min(c for c, v in scores.items() if v == best)
        return AlphaMuResult(card, scores, self._weight(self.all), self.nodes)

    def _weight(self, v: int) -> float:
        return sum(self.weights[i] for i in _bits(v))

    def _moves(self, seat: int, worlds: int, lead: int, played: int) -> list[tuple[int, int]]:
        """(card, the worlds of ``worlds`` in which it is legal) for ``seat``."""
        hold = self.hold[seat]
        cards = self.hand_union[seat] & ~played
        if lead < 0:
            return [(c, hold[c] & worlds) for c in _bits(cards) if hold[c] & worlds]
        cls = self.follow[lead] & cards
        can_follow = 0
        for c in _bits(cls):
            can_follow |= hold[c]
        out = []
        for c in _bits(cards):
            sub = hold[c] & worlds
            if not (cls >> c) & 1:
                sub &= ~can_follow
            if sub:
                out.append((c, sub))
        return out

    def _play(self, worlds: int, leader: int, trick: tuple[int, ...], played: int, card: int,
              seat: int, gained: int, f_gained: int, d_tricks: int, f_tricks: int) -> list[int]:
        """The front after ``seat`` plays ``card`` in ``worlds``."""
        trick = (*trick, card)
        played |= 1 << card
        if len(trick) == 3:
            winner = (leader + int(trick_winner(trick[0], trick[1], trick[2], self.game))) % 3
            pts = int(points((1 << trick[0]) | (1 << trick[1]) | (1 << trick[2])))
            if winner == self.declarer:
                gained += pts
                d_tricks += 1
            else:
                f_gained += pts
                f_tricks += 1
            leader, trick = winner, ()
        return self._node(worlds, leader, trick, played, gained, f_gained, d_tricks, f_tricks)

    def _node(self, worlds: int, leader: int, trick: tuple[int, ...], played: int, gained: int,
              f_gained: int, d_tricks: int, f_tricks: int) -> list[int]:
        self.nodes += 1
        if self.nodes > self.node_limit or (
                self.deadline is not None and self.nodes & 255 == 0
                and time.perf_counter() > self.deadline):
            raise AlphaMuLimit("αμ passed its node or time limit")
        mover = (leader + len(trick)) % 3
        finished = not trick and not (self.hand_union[mover] & ~played)
        decl = self._declarer_wins(worlds, gained, f_gained, d_tricks, f_tricks, finished)
        if decl is not None:
            return [decl if self.me == self.declarer else worlds & ~decl]
        key = (worlds, leader, played, gained, d_tricks, f_tricks, *trick)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        lead = trick[0] if trick else -1
        moves = self._moves(mover, worlds, lead, played)
        args = (leader, trick, played)
        if mover == self.me:  # one card for every world: unite the fronts
            found: list[int] = []
            for c, sub in moves:
                front = self._play(sub, *args, c, mover, gained, f_gained, d_tricks, f_tricks)
                if worlds in front:  # wins everywhere: nothing better
                    found = [worlds]
                    break
                found.extend(front)
            out = pareto(found)
        else:
            mine = (mover == self.declarer) == (self.me == self.declarer)
            acc = [0] if mine else [worlds]
            for c, sub in moves:
                front = self._play(sub, *args, c, mover, gained, f_gained, d_tricks, f_tricks)
                rest = worlds & ~sub
                if mine:  # the partner picks the better card in each world
                    acc = pareto([a | v for a in acc for v in front])
                else:  # the opponent picks the worse card in each world
                    acc = pareto([a & (v | rest) for a in acc for v in front])
                    if acc == [0]:
                        break
            out = acc
        self.memo[key] = out
        return out


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def alphamu_card(worlds: Sequence[DealPosition], goal: str, *, node_limit: int = 200_000,
                 deadline: float | None = None) -> AlphaMuResult:
    """αμ's card over ``worlds`` (repeats count as weight); raises :class:`AlphaMuLimit`
    when the search passes its limits."""
    distinct: dict[DealPosition, float] = {}
    for w in worlds:
        distinct[w] = distinct.get(w, 0.0) + 1.0
    if len(distinct) == 0:
        raise AlphaMuError("αμ needs at least one world")
    if next(iter(distinct)).game == NULL and goal != "null":
        raise AlphaMuError("a null game's goal is 'null'")
    search = AlphaMu(list(distinct), list(distinct.values()), goal, node_limit=node_limit,
                     deadline=deadline)
    return search.choose()
