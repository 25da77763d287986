"""What the other players' moves suggest about their hidden cards (numba kernel).

Every move is public, so from a game's action history a player may read more
than which cards were seen going into a hand:

- *certain*: an attacker skipped in a throw-in round (the rules skip a player
  who has no card of a rank on the table, while the defender's hand and the
  caps would allow one more card) holds no card of those ranks;
- *likely*, under the heuristic policies as a model of the opponent
  (Zarlykov's greedy and smart, :mod:`policies`): a defender who took had no
  card that greedy would have beaten with; one who beat with a card had no
  lower-valued beater; a lead or a throw-in shows no card that greedy and smart
  would both have played first; a pass shows no card greedy would have thrown
  in.

:func:`collect` replays a history and lists one row per such observation of a
seat other than the viewer: ``(seat, kind, mask, draws, tested, contradicted)``,
where ``mask`` is the set of cards the seat probably (kind ``SKIP``: certainly)
did not hold then, ``draws`` the number of cards it had drawn from the stock
until then, ``tested`` whether some of its cards were known then, and
``contradicted`` whether a known card lay in ``mask`` (the model was wrong
there, for certain: how often that happens tells how far to trust it).
Only public facts are read for the rows (the table, the trump, the stock and
hand sizes, the action): the hidden cards of the replayed deal decide nothing
but the replay itself. :mod:`inference` turns the rows into card weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.durak.kernel import (
    ATTACK,
    BOUT,
    DECK,
    DEFENCE,
    DEFEND,
    DEFENDER,
    HANDS,
    KNOWN,
    LEAD,
    MAX_PLAYERS,
    NPLAYERS,
    OPEN,
    PASS,
    PH_DEAL,
    PH_DEFEND,
    PH_LEAD,
    PH_TAKE,
    PH_THROW,
    PHASE,
    ROUND,
    TAKE,
    THROW,
    TO_MOVE,
    TRANSFER,
    TRUMP_SUIT,
    apply_action,
    attack_cap,
    beaters,
    deck_mask,
    lowest_card,
    new_state,
    popcount,
    rank_union,
    seat_in_round,
    stock_size,
    suit_mask,
)
from spielwerk.games.durak.policies import card_value

SKIP = 0  # certain: no card of the table's ranks
TOOK = 1  # took: no beater greedy would have used
BEAT = 2  # beat with a card: no lower-valued beater
LED = 3  # led a card: no lower-valued card
THREW = 4  # threw in a card: no lower-valued card greedy would throw in
PASSED = 5  # passed: no card greedy would throw in
KINDS = 6
COLUMNS = 6  # seat, kind, mask, draws, tested, contradicted


@njit(cache=True)
def _below(cards: int, value: int, trump: int) -> int:
    """The cards of ``cards`` whose greedy value is below ``value``."""
    out = 0
    m = cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        if card_value(c, trump) < value:
            out |= 1 << c
    return out


@njit(cache=True)
def _smart_value(c: int, trump: int, d_known: int) -> int:
    """Smart's ordering value of card ``c`` (greedy's value x 4, less 6 where the defender's
    known cards cannot beat it), as in :func:`policies.greedy_action`."""
    v = card_value(c, trump) * 4
    if d_known != 0 and (d_known & beaters(c, trump)) == 0:
        v -= 6
    return v


@njit(cache=True)
def _preferred(cards: int, c: int, S: np.ndarray) -> int:
    """The cards of ``cards`` that greedy and smart would both play before ``c`` (a lead or
    a throw-in): the model is either of them, so only what both agree on is evidence."""
    trump = S[TRUMP_SUIT]
    d_known = S[KNOWN + S[DEFENDER]]
    v = card_value(c, trump)
    sv = _smart_value(c, trump, d_known)
    out = 0
    m = cards
    while m:
        x = lowest_card(m)
        m &= m - 1
        if card_value(x, trump) < v and _smart_value(x, trump, d_known) < sv:
            out |= 1 << x
    return out


@njit(cache=True)
def _throwable(S: np.ndarray, table: int) -> int:
    """Cards greedy would throw in on ``table`` (public rule: no trump, nothing above the
    ten while the stock lasts)."""
    full = deck_mask(S[DECK])
    m = rank_union(table) & full
    if stock_size(S) > 0:
        m &= ~suit_mask(S[TRUMP_SUIT])
        m &= (1 << 36) - 1  # ranks up to the ten (rank 8: cards 32..35)
    return int(m)


@njit(cache=True)
def _choice_row(S: np.ndarray, a: int) -> tuple[int, int]:
    """``(kind, mask)`` of a decision ``a`` in ``S`` under the greedy model (mask 0: none)."""
    ph = S[PHASE]
    trump = S[TRUMP_SUIT]
    full = deck_mask(S[DECK])
    if ph == PH_DEFEND:
        if a >= TRANSFER and a != TAKE:
            return TOOK, 0  # transfers and shows: greedy has no such move
        target = lowest_card(S[OPEN])
        beat = beaters(target, trump) & full
        if a == TAKE:
            if (stock_size(S) > 0 and (target & 3) != trump and popcount(S[ATTACK]) == 1
                    and (target >> 2) < 8):
                # greedy takes rather than spend a trump queen, king or ace here
                beat &= ~(suit_mask(trump) & ~((1 << 40) - 1))
            return TOOK, int(beat)
        c = a - DEFEND
        return BEAT, _below(beat, card_value(c, trump), trump)
    if ph == PH_LEAD:
        r = (a - LEAD) // 16
        sm = (a - LEAD) % 16
        c = lowest_card(sm << (4 * r))
        return LED, _preferred(full, c, S)
    table = S[ATTACK] | S[DEFENCE]
    throw = _throwable(S, table)
    if a == PASS:
        return PASSED, throw
    return THREW, _preferred(throw, a - THROW, S)


@njit(cache=True)
def _before_thrower_search(S: np.ndarray, a: int) -> np.ndarray:
    """The state right after the table effect of ``a`` and before the rules look for the
    next thrower (a copy): where the skips are decided."""
    T = S.copy()
    ph = S[PHASE]
    p = S[TO_MOVE]
    if ph == PH_DEFEND and DEFEND <= a < TRANSFER:
        bit = 1 << (a - DEFEND)
        T[HANDS + p] &= ~bit
        T[DEFENCE] |= bit
        T[OPEN] &= ~(1 << lowest_card(S[OPEN]))
    elif ph == PH_TAKE and THROW <= a < DEFEND:
        bit = 1 << (a - THROW)
        T[HANDS + p] &= ~bit
        T[ATTACK] |= bit
        T[OPEN] |= bit
    return T


@njit(cache=True)
def _skip_rows(S: np.ndarray, a: int, after: np.ndarray, viewer: int, out: np.ndarray,
               k: int, draws: np.ndarray) -> int:
    """Rows for the attackers the rules skipped when ``a`` was applied to ``S`` (giving
    ``after``): round positions from where the search for a thrower began up to the one
    that got the move (all of them if the bout ended)."""
    ph = S[PHASE]
    if ph == PH_DEFEND and a == TAKE:
        first = 0
    elif ph == PH_DEFEND and DEFEND <= a < TRANSFER and popcount(S[OPEN]) == 1:
        first = 0  # the last open attack beaten: the throw-in round starts
    elif (ph == PH_THROW or ph == PH_TAKE) and a == PASS:
        first = S[ROUND] + 1
    elif ph == PH_TAKE:
        first = S[ROUND]  # a throw-in while taking: the thrower keeps priority
    else:
        return k
    T = _before_thrower_search(S, a)
    if popcount(T[ATTACK]) >= attack_cap(T):
        return k  # the cap, not the hands, stopped the throw-ins
    if popcount(T[OPEN]) + 1 > popcount(T[HANDS + T[DEFENDER]]):
        return k  # the defender's hand size (public) stopped them
    n = S[NPLAYERS]
    same_bout = after[BOUT] == S[BOUT] and (after[PHASE] == PH_THROW or after[PHASE] == PH_TAKE)
    found = after[ROUND] if same_bout else n - 1
    lacks = rank_union(T[ATTACK] | T[DEFENCE]) & deck_mask(S[DECK])
    for i in range(first, found):
        q = seat_in_round(T, i)
        if q < 0 or q == viewer:
            continue
        out[k, 0] = q
        out[k, 1] = SKIP
        out[k, 2] = lacks
        out[k, 3] = draws[q]
        k += 1
    return k


@njit(cache=True)
def collect(nplayers: int, deck: int, flags: int, history: np.ndarray,
            viewer: int) -> tuple[np.ndarray, np.ndarray]:
    """Replay ``history`` (every action from the empty deck on) and return the rows
    ``(seat, kind, mask, draws)`` of what the moves of seats other than ``viewer`` show,
    and every seat's number of cards drawn from the stock so far (the deal included)."""
    S = new_state(nplayers, deck, flags)
    out = np.zeros((2 * len(history) + 8, COLUMNS), np.int64)
    draws = np.zeros(MAX_PLAYERS, np.int64)
    k = 0
    for a in history:
        ph = S[PHASE]
        if ph != PH_DEAL:
            p = S[TO_MOVE]
            if p != viewer:
                kind, mask = _choice_row(S, a)
                if mask != 0:
                    known = S[KNOWN + p]
                    out[k, 0] = p
                    out[k, 1] = kind
                    out[k, 2] = mask
                    out[k, 3] = draws[p]
                    # a card known to be in that hand could have shown the model wrong
                    out[k, 4] = known != 0
                    out[k, 5] = (known & mask) != 0
                    k += 1
        before = S.copy()
        apply_action(S, a)
        if ph != PH_DEAL:
            k = _skip_rows(before, a, S, viewer, out, k, draws)
        table = before[ATTACK] | before[DEFENCE] | (1 << (a - THROW) if THROW <= a < DEFEND
                                                     else 0)
        for q in range(nplayers):
            new = S[HANDS + q] & ~before[HANDS + q] & ~table
            draws[q] += popcount(new)
    return out[:k].copy(), draws[:nplayers].copy()
