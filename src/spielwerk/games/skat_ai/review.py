"""The PIMC view of a finished Skat deal, card by card, from what the player could know.

For every card the person (the record's seat) played in a declared game, the
info state they had then is given to PIMC: worlds consistent with it are sampled
and solved double-dummy for every legal card. The answer per card: the mean final
card points of the player's side after each legal card, the best of them, and what
the card played cost against it on average over the worlds the player could not
rule out (null: the defenders' tricks), with the win shares beside. The
double-dummy verdict (:func:`spielwerk.games.skat.table.review`) sees all hands; this
view does not.
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.registry import load_game
from spielwerk.games.skat import rules as R
from spielwerk.games.skat.cards import NULL, card_to_string

REVIEW_WORLDS = 16
"""Worlds per card decision of the review (points and win shares each)."""
REVIEW_SECONDS = 2.0
"""Seconds per card decision at most (the worlds sampled by then count)."""


def pimc_review(spec: str, history: list[int], seat: int, worlds: int = 0,
                seconds: float = -1.0) -> list[dict[str, Any]]:
    """Per card ``seat`` played (with a choice of more than one card): ``{"ply", "card",
    "worlds", "values": {card: mean}, "best", "cost", "win": {card: share}, "null"}``,
    keyed by ply; ``cost`` is the best card's mean minus the played card's (points of the
    player's side; null: defenders' tricks, counted from the player's side). ``worlds``
    and ``seconds`` default to :data:`REVIEW_WORLDS` and :data:`REVIEW_SECONDS`."""
    from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent

    worlds = worlds or REVIEW_WORLDS
    seconds = REVIEW_SECONDS if seconds < 0 else seconds
    game = load_game(spec)
    state: Any = game.new_initial_state()
    out: list[dict[str, Any]] = []
    for ply, action in enumerate(history):
        if (state.current_player == seat and state.phase == R.PLAY
                and state.contract is not None and action < 32):
            cards = [a for a in state.legal_actions() if a < 32]
            if len(cards) > 1:
                info = state.info_state(seat)  # what the player knew then, nothing more
                pts = SkatPimcAgent(game, ply, worlds=worlds, time=seconds,
                                    values="points").decide(info)
                win = SkatPimcAgent(game, ply, worlds=worlds, time=seconds,
                                    prune=False).decide(info)
                null = state.contract.game == NULL
                means = {c: pts.totals.get(c, 0.0) / max(1, pts.worlds) for c in cards}
                best = max(cards, key=lambda c: (means[c], -c))
                shown = {card_to_string(c): round(abs(v) if null else v, 1)
                         for c, v in means.items()}
                out.append({
                    "ply": ply, "card": card_to_string(action), "worlds": pts.worlds,
                    "values": shown, "best": card_to_string(best),
                    "cost": round(means[best] - means[action], 1),
                    "win": {card_to_string(c): round(win.totals.get(c, 0.0)
                                                     / max(1, win.worlds), 3) for c in cards},
                    "null": null,
                })
        state.apply(int(action))
    return out
