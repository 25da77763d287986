"""The end of a Skat deal: claims and resignations, the result, the returns and the state's
description - the part of :class:`~spielwerk.games.skat.state.SkatState` that runs once a
deal (:class:`DealEnd`, its base class), apart from the moves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spielwerk.games.skat import kernel
from spielwerk.games.skat.actions import CLAIM, OVER, PHASE_NAMES, RESPONSE
from spielwerk.games.skat.bidding import POSITION_NAMES
from spielwerk.games.skat.cards import card_to_string, mask_to_string
from spielwerk.games.skat.kernel_deal import declarer_score, game_value
from spielwerk.games.skat.ramsch import ramsch_result
from spielwerk.games.skat.scoring import passed_in, value_args

if TYPE_CHECKING:
    from spielwerk.games.skat.bidding import Auction
    from spielwerk.games.skat.ramsch import RamschResult
    from spielwerk.games.skat.rules import SkatGame
    from spielwerk.games.skat.scoring import Contract, DealResult, ValueArgs


class DealEnd:
    """Claims and resignations, the end of the deal and its returns, the description."""

    if TYPE_CHECKING:  # what SkatState holds, as far as these methods read it
        game: SkatGame
        phase: int
        declarer: int
        contract: Contract | None
        tricks_done: int
        revealed: int
        end_reason: str
        skat: int
        put: int
        hands: list[int]
        dealt: list[int]
        won: list[int]
        trick_count: list[int]
        trick: list[int]
        offers: dict[int, int]
        responders: list[int]
        auction: Auction
        _result: DealResult | tuple[int, Contract, ValueArgs] | None
        ramsch_result: RamschResult | None

        @property
        def result(self) -> DealResult | None: ...
        @property
        def sgame(self) -> SkatGame: ...
        def defenders(self) -> list[int]: ...
        def to_play(self) -> int: ...
        def _next_seat(self, seat: int) -> int: ...

    def _offer(self, action: int) -> None:
        """A claim (``SC``) or a resignation (``RE``) during the card play."""
        if action == CLAIM:
            self.offers[0] = self.tricks_done
            self.revealed |= self.hands[self.declarer]
            self.responders = self.defenders()
            self._order_responders()
            self.phase = RESPONSE
            return
        seat = self.to_play()
        if seat == self.declarer:
            self.offers[0] = self.tricks_done
            self._finish("declarer resigned")
        else:
            self.offers[1] = self.tricks_done
            self.responders = [s for s in self.defenders() if s != seat]
            self.phase = RESPONSE

    def _order_responders(self) -> None:
        first = self._next_seat(self.declarer)
        self.responders.sort(key=lambda s: 0 if s == first else 1)

    def _finish(self, reason: str) -> None:
        self.end_reason = reason
        self.phase = OVER
        self.responders = []
        contract = self.contract
        if contract is None:
            if reason == "passed":
                self._result = passed_in()
                return
            positions = self.game.positions  # Ramsch
            self.ramsch_result = ramsch_result(
                {s: int(kernel.points(self.won[s])) for s in positions},
                {s: self.trick_count[s] for s in positions},
            )
            return
        d = self.declarer
        game = contract.game
        if reason == "defenders resigned" and game != kernel.NULL:
            rest = 0  # the cards still in play: every hand and the open trick
            hands = self.hands
            for s in self.game.positions:
                rest |= hands[s]
                hands[s] = 0
            for c in self.trick:
                rest |= 1 << c
            self.won[d] |= rest
            self.trick_count[d] += 10 - self.tricks_done
            self.trick = []
        skat_points = kernel.points(self.put or self.skat)  # the put if the skat was picked up
        self._result = d, contract, value_args(  # the DealResult is made when read
            contract,
            self.auction.value,
            int(kernel.matadors(self.dealt[d] | self.skat, game)),
            int(kernel.points(self.won[d])) + int(skat_points),
            self.trick_count[d],
            reason == "declarer resigned",
        )

    def returns(self) -> list[float]:
        out = [0.0] * self.game.players
        if self.phase != OVER:
            return out
        if self.ramsch_result is not None:
            for s, v in self.ramsch_result.returns.items():
                out[s] = v
            return out
        r = self._result
        if r is None:
            return out
        if isinstance(r, tuple):  # the result not made yet: its value and win alone
            won, value = game_value(*r[2])[:2]
        elif r.declarer < 0:  # passed in
            return out
        else:
            won, value = r.won, r.value
        score = float(declarer_score(won, value))
        for s in self.game.positions:
            out[s] = -score / 2
        out[self.declarer] = score
        return out

    def card_points(self) -> dict[str, int]:
        """Card points taken so far: declarer (tricks only), defenders, and the skat."""
        d = self.declarer
        dec = int(kernel.points(self.won[d])) if d >= 0 else 0
        dfn = sum(int(kernel.points(self.won[s])) for s in self.game.positions if s != d)
        return {"declarer": dec, "defenders": dfn}

    def __str__(self) -> str:
        g = self.sgame
        lines = [f"phase: {PHASE_NAMES[self.phase]}   dealer: seat {g.dealer}"]
        for s in range(g.players):
            pos = g.position_of(s)
            name = POSITION_NAMES[pos] if pos >= 0 else "dealer (sits out)"
            tag = " (declarer)" if s == self.declarer else ""
            lines.append(f"seat {s} {name}{tag}: {mask_to_string(self.hands[s])}")
        lines.append(f"skat: {mask_to_string(self.skat)}")
        if self.auction.value:
            lines.append(f"bid: {self.auction.value}")
        if self.contract is not None:
            lines.append(f"game: {self.contract}")
        if self.trick:
            lines.append("trick: " + " ".join(card_to_string(c) for c in self.trick))
        if self.result is not None:
            lines.append(f"result: {self.result.describe()}")
        if self.ramsch_result is not None:
            lines.append(f"result: {self.ramsch_result.describe()}")
        return "\n".join(lines)
