"""The open-hand defence, for measuring only: defenders who see every card.

:func:`open_hand_card` is the card a defender plays who sees all three hands and the
skat and answers with the double-dummy best card: one after which the declarer can no
longer reach the contract's goal (:meth:`~spielwerk.games.skat.scoring.Contract.goal`)
if there is one, among those (and when none is left) the one that leaves the declarer
the fewest card points (suit and grand games). No defence can do better, so the share of
games it beats that a real defence lets through - the *defence gap* - bounds what a
better defence could still gain. It reads the whole state, so it is a chooser for
:func:`spielwerk.core.play.play` (``chooser(state, seat)``), never an agent: agents
decide from their seat's information only.
"""

from __future__ import annotations

from spielwerk.core.game import State
from spielwerk.games.skat.cards import DISPLAY_ORDER, NULL
from spielwerk.games.skat.dds import Solver
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat.rules import PLAY, SkatState


class OpenHandDefence:
    """``chooser(state, seat)`` for the defenders' seats (one solver, its tables kept
    between the cards of a deal). Outside the card play, or for the declarer, it refuses:
    give it the defenders' seats only, after the declaration."""

    def __init__(self) -> None:
        self.solver = Solver()
        self.cards = 0  # cards chosen, for the caller's figures

    def __call__(self, state: State, seat: int) -> int:
        if not isinstance(state, SkatState) or state.phase != PLAY or state.contract is None:
            raise ValueError("the open-hand defence plays the cards of a declared game")
        if seat == state.declarer:
            raise ValueError("the open-hand defence defends: it does not play the declarer")
        self.cards += 1
        return open_hand_card(state, self.solver)


def open_hand_card(state: SkatState, solver: Solver) -> int:
    """The defender's double-dummy best card in ``state`` (see the module docstring); ties
    go to the first card in display order, so the choice is deterministic."""
    legal = [a for a in state.legal_actions() if a < 32]
    if len(legal) == 1:
        return legal[0]
    assert state.contract is not None
    pos = deal_from_state(state)
    wins = solver.move_values(pos, state.contract.goal())
    beaten = [c for c in legal if not wins.get(c, True)]
    candidates = beaten or legal
    if pos.game != NULL and len(candidates) > 1:
        points = solver.move_values(pos, "exact")
        low = min(int(points[c]) for c in candidates)
        candidates = [c for c in candidates if int(points[c]) == low]
    rank = {c: i for i, c in enumerate(DISPLAY_ORDER)}
    return min(candidates, key=lambda c: rank.get(c, 99))
