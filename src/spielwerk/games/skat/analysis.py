"""Double-dummy review of a played Skat game: after every card, could each side still win?

:func:`analyze_state_history` replays a finished deal and solves the position
before and after every card with the double-dummy solver, marking the cards
that lost value and the decisive ones (a won game turned into a lost one),
with the cards that would have kept it. ``spielwerk skat analyze`` prints it;
the web table's review shows it per card.
"""

from __future__ import annotations

from dataclasses import dataclass

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat.cards import DISPLAY_ORDER, NULL
from spielwerk.games.skat.dds import DealPosition, Solver
from spielwerk.games.skat.position import deal_from_state


class AnalysisError(SpielwerkError, ValueError):
    """A record that cannot be analysed (passed in, Ramsch, no such game id)."""


@dataclass
class CardAnalysis:
    """One card of a replayed game with the double-dummy view before and after it."""

    trick: int
    position: int
    declarer_side: bool
    card: int
    value_before: int | None
    value_after: int | None
    win_before: bool
    win_after: bool
    better: tuple[int, ...] = ()

    @property
    def mistake(self) -> bool:
        """The card lost value (points, or the win) for its own side."""
        if self.win_before != self.win_after:
            return self.win_before == self.declarer_side
        if self.value_before is None or self.value_after is None:
            return False
        if self.declarer_side:
            return self.value_after < self.value_before
        return self.value_after > self.value_before

    @property
    def decisive(self) -> bool:
        """The card turned a won game into a lost one for its side."""
        return self.win_before != self.win_after and self.win_before == self.declarer_side


def analyze_state_history(final_state: object) -> list[CardAnalysis]:
    """Replay a finished game's actions and solve before and after every card."""
    from spielwerk.games.skat.rules import PLAY, SkatState

    if not isinstance(final_state, SkatState):
        raise AnalysisError("analysis needs a Skat game")
    if final_state.contract is None:
        raise AnalysisError("this deal was passed in (or played as Ramsch): nothing to analyse")
    solver = Solver()
    state = final_state.game.new_initial_state()
    assert isinstance(state, SkatState)
    out: list[CardAnalysis] = []
    goal = ""
    cache: dict[DealPosition, tuple[int | None, bool]] = {}

    def view(pos: DealPosition) -> tuple[int | None, bool]:
        if pos not in cache:
            value = None if pos.game == NULL else solver.exact(pos)
            cache[pos] = (value, bool(solver.query(pos, goal)))
        return cache[pos]

    for action in final_state.history:
        if state.phase == PLAY and action < 32 and state.contract is not None:
            contract = state.contract
            goal = contract.goal()
            before = deal_from_state(state)
            v0, w0 = view(before)
            mover = before.to_move
            trick_no = state.tricks_done + 1
            state.apply(action)
            if state.phase == PLAY and state.contract is not None:
                v1, w1 = view(deal_from_state(state))
            else:  # the game ended with this card: read the result
                res = state.result
                assert res is not None
                v1 = None if before.game == NULL else res.declarer_points
                w1 = contract.is_won(res.declarer_points, res.declarer_tricks)
            item = CardAnalysis(trick_no, mover, mover == before.declarer, action, v0, v1, w0, w1)
            if item.decisive:
                moves = solver.move_values(before, goal)
                want = item.declarer_side
                item.better = tuple(c for c in DISPLAY_ORDER if c in moves and moves[c] == want)
            out.append(item)
        else:
            state.apply(action)
    return out
