"""What one Skat seat knows (:class:`SkatInfoState`) and how worlds consistent with it are
drawn (``sample_world``: hidden cards uniform over the hidden places, subject to the voids
shown, by exact counting)."""
from __future__ import annotations

from collections.abc import Hashable
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from spielwerk.core.game import InfoState
from spielwerk.games.skat.actions import (
    DEAL,
    DEAL_ORDER,
    OVER,
    PHASE_NAMES,
    SKAT_PLACE,
    SkatRuleError,
    action_to_string,
)
from spielwerk.games.skat.cards import (
    ALL_CARDS_MASK,
    card_to_string,
    cards_of,
    mask_to_string,
    popcount,
)

if TYPE_CHECKING:
    from spielwerk.games.skat.rules import SkatGame
    from spielwerk.games.skat.state import SkatState


# ----- information states -----------------------------------------------------------------
class SkatInfoState(InfoState):
    """What one seat knows: own cards, the public actions, ouvert/claimed cards, and
    (as declarer) the skat after picking it up and the two cards put."""

    def __init__(self, state: SkatState, player: int) -> None:
        super().__init__(state.game, player)
        self.sgame: SkatGame = state.sgame
        self.phase = state.phase
        self._current = state.current_player
        self._legal = state.legal_actions() if self._current == player else []
        self.deal_index = state.deal_index
        self.declarer = state.declarer
        self.contract = state.contract
        self.is_ramsch = state.is_ramsch
        self.game_code = state.game_code
        self.bid = state.auction.value
        self.picked_up = state.picked_up
        self.own_dealt = state.dealt[player]
        self.hand = state.hands[player]
        knows_skat = (player == state.declarer and state.picked_up) or (
            state.is_ramsch and state.phase == OVER  # the skat is counted openly
        )
        self.skat: int | None = state.skat if knows_skat else None
        self.put: int | None = state.put if player == state.declarer else None
        self.played = list(state.played)
        self.voids = list(state.voids)
        self.revealed = state.revealed
        self.trick = list(state.trick)
        self.leader = state.leader
        self.trick_history = list(state.trick_history)
        self.won = list(state.won)
        self.trick_count = list(state.trick_count)
        self.result = state.result
        self.public = tuple(
            -1 if (is_put and player != state.declarer) else a for a, is_put in state.log
        )
        self.puts_done = popcount(state.put)

    @property
    def current_player(self) -> int:
        return self._current

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def action_to_string(self, action: int) -> str:
        return action_to_string(action)

    @property
    def position(self) -> int:
        """0 forehand, 1 middlehand, 2 rearhand, -1 a 4-table dealer."""
        return self.sgame.position_of(self.player)

    def fingerprint(self) -> Hashable:
        return (
            self.player, self.deal_index, self.own_dealt, self.skat, self.put,
            self.revealed if self.phase != DEAL else 0, self.public,
        )

    def declarer_hand_known(self) -> int | None:
        """The declarer's current hand if it is public (ouvert or claimed), else None."""
        if self.revealed == 0 or self.declarer < 0:
            return None
        return self.revealed & ~self.played[self.declarer]

    def unseen(self) -> int:
        """Cards whose place this player does not know."""
        known = self.own_dealt | self.hand
        for m in self.played:
            known |= m
        if self.skat is not None:
            known |= self.skat
        if self.put is not None:
            known |= self.put
        shown = self.declarer_hand_known()
        if shown is not None:
            known |= shown
        return ALL_CARDS_MASK & ~known

    def hidden_places(self) -> list[tuple[int, int, int]]:
        """Where the :meth:`unseen` cards can be: ``(seat, count, forbidden mask)`` per other
        hand not shown, then ``(-1, count, 0)`` for the skat when this player does not know
        it; ``forbidden`` are the suits the seat has shown void in. Shared by sampling
        (:meth:`sample_world`) and enumeration (PIMC's ``enumerate_deals``)."""
        p = self.player
        d = self.declarer
        shown = self.declarer_hand_known()
        places: list[tuple[int, int, int]] = []
        for s in self.sgame.positions:
            if s == p or (s == d and shown is not None):
                continue
            count = 10 - popcount(self.played[s])
            if s == d and self.picked_up:
                count = 12 - self.puts_done - popcount(self.played[s])
            places.append((s, count, self.voids[s]))
        if self.skat is None and not (p == d and self.picked_up):
            count = self.puts_done if self.picked_up else 2
            if count:
                places.append((-1, count, 0))
        return places

    # ----- determinization ------------------------------------------------------------------
    def place_sampler(self) -> PlaceSampler:
        """The uniform sampler of the :meth:`unseen` cards over the :meth:`hidden_places`
        (built once per information state)."""
        sampler: PlaceSampler | None = getattr(self, "_place_sampler", None)
        if sampler is None:
            sampler = PlaceSampler(cards_of(self.unseen()),
                                   [(c, f) for _, c, f in self.hidden_places()])
            self._place_sampler = sampler
        return sampler

    def sample_world(self, rng: np.random.Generator) -> SkatState:
        """A full state consistent with this knowledge; hidden cards uniform over the
        hidden places subject to the voids shown (exact, by counting)."""
        game = self.sgame
        p = self.player
        if self.phase == DEAL and self.deal_index < 32:
            return self._sample_during_deal(rng)
        d = self.declarer
        shown = self.declarer_hand_known()
        places = self.hidden_places()
        fill = self.place_sampler().draw(rng)
        hands_now: dict[int, int] = {}
        skat_place = 0
        for (seat, _, _), cards in zip(places, fill, strict=True):
            m = 0
            for c in cards:
                m |= 1 << c
            if seat >= 0:
                hands_now[seat] = m
            else:
                skat_place = m
        if shown is not None:
            hands_now[d] = shown
        hands_now[p] = self.hand
        # rebuild the deal
        dealt: dict[int, int] = {}
        for s in game.positions:
            dealt[s] = hands_now[s] | self.played[s]
        if p == d and self.picked_up:
            assert self.skat is not None and self.put is not None
            original_skat = self.skat
            dealt[d] = self.own_dealt
            put_cards: list[int] = []  # the declarer's own puts are in ``public``
        elif self.picked_up:
            twelve = dealt[d] | skat_place
            cards12 = cards_of(twelve)
            pick = rng.choice(len(cards12), size=2, replace=False)
            original_skat = (1 << cards12[int(pick[0])]) | (1 << cards12[int(pick[1])])
            dealt[d] = twelve & ~original_skat
            put_cards = cards_of(skat_place)
            rng.shuffle(put_cards)
        else:
            original_skat = skat_place if self.skat is None else self.skat
            put_cards = []
        if p != d or not self.picked_up:
            dealt[p] = self.own_dealt
        history = _deal_actions(game, dealt, original_skat, rng)
        state = game.new_initial_state()
        for a in history:
            state.apply(a)
        put_iter = iter(put_cards)
        for a in self.public:
            state.apply(next(put_iter) if a == -1 else a)
        return state

    def _sample_during_deal(self, rng: np.random.Generator) -> SkatState:
        # only possible while dealing: replay what this seat saw of the deal so far
        state = self.sgame.new_initial_state()
        own = cards_of(self.own_dealt)
        rng.shuffle(own)
        pool = cards_of(ALL_CARDS_MASK & ~self.own_dealt)
        rng.shuffle(pool)
        for i in range(self.deal_index):
            place = DEAL_ORDER[i]
            if place != SKAT_PLACE and self.sgame.seat_of(place) == self.player:
                state.apply(own.pop())
            else:
                state.apply(pool.pop())
        return state

    def __str__(self) -> str:
        lines = [f"seat {self.player}, phase {PHASE_NAMES[self.phase]}"]
        lines.append(f"hand: {mask_to_string(self.hand)}")
        if self.contract is not None:
            lines.append(f"game: {self.contract} by seat {self.declarer}, bid {self.bid}")
        if self.trick:
            lines.append("trick: " + " ".join(card_to_string(c) for c in self.trick))
        return "\n".join(lines)


def _deal_actions(game: SkatGame, dealt: dict[int, int], skat: int,
                  rng: np.random.Generator) -> list[int]:
    """Chance actions that deal ``dealt`` and ``skat`` in the dealing order."""
    pools: dict[int, list[int]] = {}
    for pos in range(3):
        cards = cards_of(dealt[game.seat_of(pos)])
        rng.shuffle(cards)
        pools[pos] = cards
    pools[SKAT_PLACE] = cards_of(skat)
    return [pools[place].pop() for place in DEAL_ORDER]


def _sample_places(
    cards: list[int], places: list[tuple[int, int]], rng: np.random.Generator
) -> list[list[int]]:
    """Distribute ``cards`` over places ``(count, forbidden mask)`` uniformly among all
    assignments that respect the forbidden masks (exact, by counting)."""
    return PlaceSampler(cards, places).draw(rng)


class PlaceSampler:
    """Uniform draws of ``cards`` over places ``(count, forbidden mask)`` among all
    assignments that respect the forbidden masks (exact, by counting). The counting is done
    once, so many draws from one information state cost little each."""

    def __init__(self, cards: list[int], places: list[tuple[int, int]]) -> None:
        self.k = len(places)
        if sum(c for c, _ in places) != len(cards):
            raise SkatRuleError("inconsistent information state: hidden card count mismatch")
        groups: dict[int, list[int]] = {}
        for c in cards:
            allowed = 0
            for i, (_, forbidden) in enumerate(places):
                if not (forbidden >> c) & 1:
                    allowed |= 1 << i
            groups.setdefault(allowed, []).append(c)
        self.groups = groups
        self.keys = sorted(groups)
        self.sizes = [len(groups[g]) for g in self.keys]
        self.caps = tuple(c for c, _ in places)
        self._counts: dict[tuple[int, tuple[int, ...]], int] = {}
        self._options: dict[tuple[int, tuple[int, ...]],
                            tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], list[int]]] = {}
        if self.count(0, self.caps) == 0:
            raise SkatRuleError("inconsistent information state: no deal fits the known voids")

    def compositions(self, n: int, allowed: int, caps: tuple[int, ...]
                     ) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []
        k = self.k

        def rec(i: int, left: int, acc: list[int]) -> None:
            if i == k:
                if left == 0:
                    out.append(tuple(acc))
                return
            top = min(left, caps[i]) if (allowed >> i) & 1 else 0
            for x in range(top + 1):
                acc.append(x)
                rec(i + 1, left - x, acc)
                acc.pop()

        rec(0, n, [])
        return out

    @staticmethod
    def ways(n: int, comp: tuple[int, ...]) -> int:
        total, left = 1, n
        for x in comp:
            total *= comb(left, x)
            left -= x
        return total

    def count(self, gi: int, caps: tuple[int, ...]) -> int:
        """Assignments of groups ``gi..`` to places with ``caps`` cards still to fill."""
        key = (gi, caps)
        if key not in self._counts:
            if gi == len(self.keys):
                self._counts[key] = 1 if not any(caps) else 0
            else:
                self._counts[key] = sum(self.options(gi, caps)[1])
        return self._counts[key]

    def options(self, gi: int, caps: tuple[int, ...]
                ) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], list[int]]:
        """How group ``gi`` can be split over the places (and the caps left after each
        split), with each split's number of completions."""
        key = (gi, caps)
        if key not in self._options:
            options, weights = [], []
            size = self.sizes[gi]
            for comp in self.compositions(size, self.keys[gi], caps):
                rest = tuple(c - x for c, x in zip(caps, comp, strict=True))
                sub = self.count(gi + 1, rest)
                if sub:
                    options.append((comp, rest))
                    weights.append(self.ways(size, comp) * sub)
            self._options[key] = (options, weights)
        return self._options[key]

    def draw(self, rng: np.random.Generator) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in range(self.k)]
        caps = self.caps
        for gi, g in enumerate(self.keys):
            options, weights = self.options(gi, caps)
            r = _big_rand(rng, sum(weights))
            acc = 0
            chosen = options[-1]
            for option, w in zip(options, weights, strict=True):
                acc += w
                if r < acc:
                    chosen = option
                    break
            comp, rest = chosen
            cards_g = list(self.groups[g])
            rng.shuffle(cards_g)
            pos = 0
            for i, x in enumerate(comp):
                out[i].extend(cards_g[pos : pos + x])
                pos += x
            caps = rest
        return out


def _big_rand(rng: np.random.Generator, total: int) -> int:
    value = 0
    bits = total.bit_length() + 64
    while bits > 0:
        value = (value << 62) | int(rng.integers(0, 2**62))
        bits -= 62
    return value % total


