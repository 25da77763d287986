"""Skat states staged at a chosen point of a deal, for studies and analysis.

:func:`stage_put` deals the given hands and skat and plays the auction so that the
seat at ``position`` (0 forehand, 1 middlehand, 2 rearhand) is the declarer at 18
(it bids or holds 18, the others pass) and picks up the skat: the state where the
declarer puts. :func:`stage_play` goes on: ``put`` put and ``game`` declared, the
state before the first card. Both play the real rules (every action legal), so the
state is one a game can reach.
"""

from __future__ import annotations

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.registry import load_game
from spielwerk.games.skat.actions import (
    BID_BASE,
    DEAL_ORDER,
    DECLARATIONS,
    DECLARE_BASE,
    HOLD,
    PASS,
    PICKUP,
    PLAY,
    PUT,
    SKAT_PLACE,
)
from spielwerk.games.skat.scoring import Contract
from spielwerk.games.skat.state import SkatState


class StagingError(SpielwerkError, ValueError):
    """Cards or a put that do not make the staged deal."""


def _stage(hands: tuple[int, int, int], skat: int, position: int, game: int,
           put: int | None) -> SkatState:
    if not 0 <= position <= 2:
        raise StagingError(f"position must be 0 (forehand), 1 or 2, not {position}")
    cards = [*hands, skat]
    if [m.bit_count() for m in cards] != [10, 10, 10, 2] or \
            hands[0] | hands[1] | hands[2] | skat != (1 << 32) - 1:
        raise StagingError("three hands of ten cards and a skat of two, all 32 cards once")
    twelve = hands[position] | skat
    if put is not None and (put.bit_count() != 2 or put & ~twelve):
        raise StagingError("the put is two of the declarer's twelve cards")
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
    return state


def stage_put(hands: tuple[int, int, int], skat: int, position: int) -> SkatState:
    """The deal with ``position`` the declarer at 18, the skat picked up: the declarer
    puts next. Hands and skat are card masks (see :mod:`spielwerk.games.skat.cards`)."""
    return _stage(hands, skat, position, 0, None)


def stage_play(hands: tuple[int, int, int], skat: int, position: int, game: int,
               put: int) -> SkatState:
    """The state before the first card: ``position`` declares ``game`` (a suit or grand,
    :data:`~spielwerk.games.skat.cards.CLUBS` .. ``GRAND``, or null) at 18 after picking
    up the skat and putting ``put``."""
    return _stage(hands, skat, position, game, put)
