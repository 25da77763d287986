"""Which defending card beats which attack card in the current Durak bout.

The rules keep the bout as three card sets (attack, open attacks, defence); a
defence always beats the lowest open attack card, so the pairs follow from the
public moves of the bout. They are found by replaying the game's actions with
the rules and noting, before each defence, the attack card it covers. Only
cards already on the table (public) are returned.
"""

from __future__ import annotations

from typing import Any

from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import card_name


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def bout_pairs(state: Any) -> list[list[str | None]]:
    """``[[attack, defence or None], ...]`` for the bout on the table, in the order the
    attack cards were played (a card name, or None where it is not beaten yet)."""
    replay: Any = state.game.new_initial_state()
    order: list[int] = []  # attack cards of this bout as they were played
    beaten: dict[int, int] = {}
    bout = -1
    for action in state.history:
        S = replay.S
        if int(S[K.BOUT]) != bout or int(S[K.ATTACK]) == 0:
            bout, order, beaten = int(S[K.BOUT]), [], {}
        before = int(S[K.ATTACK])
        if K.DEFEND <= action < K.TRANSFER:
            beaten[_lowest(int(S[K.OPEN]))] = action - K.DEFEND
        replay.apply(int(action))
        added = int(replay.S[K.ATTACK]) & ~before
        while added:
            c = _lowest(added)
            order.append(c)
            added &= added - 1
    attack = int(state.S[K.ATTACK])
    if attack == 0:
        return []
    return [[card_name(c), card_name(beaten[c]) if c in beaten else None]
            for c in order if attack >> c & 1]
