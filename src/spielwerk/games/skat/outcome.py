"""The outcome of a finished Skat deal as a duplicate match keeps it with each game.

:func:`final_details` is the game's ``final_details`` hook (its plug-in record): the arena
calls it on the final state of every game of a duplicate match, so nothing is replayed to
read the result. The Seeger-Fabian figures of a match are computed from these records
(:mod:`spielwerk.games.skat_ai.match_stats`).
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import State
from spielwerk.games.skat.rules import SkatState
from spielwerk.games.skat.scoring import seeger_fabian


class SkatOutcomeError(SpielwerkError, ValueError):
    """A state whose outcome a Skat match cannot record (not Skat, unfinished, Ramsch)."""


def final_details(state: State) -> dict[str, Any]:
    """The JSON-ready outcome of a finished deal: declarer seat (-1: passed in), contract
    (ISS notation), bid, won, value, the declarer's card points and tricks, schneider,
    schwarz, overbid and the Seeger-Fabian points of every seat."""
    if not isinstance(state, SkatState):
        raise SkatOutcomeError(f"a Skat match records Skat deals, not {type(state).__name__}")
    res = state.result
    if res is None:
        raise SkatOutcomeError("a Skat duplicate match needs a finished deal without Ramsch")
    contract = res.contract
    return {
        "declarer": res.declarer,
        "contract": contract.iss() if contract is not None else None,
        "bid": res.bid,
        "won": res.won,
        "value": res.value,
        "declarer_points": res.declarer_points,
        "declarer_tricks": res.declarer_tricks,
        "schneider": res.schneider,
        "schwarz": res.schwarz,
        "overbid": res.overbid,
        "seeger": seeger_fabian(res, 3),
    }
