"""Durak agent policies as numba kernels: random, greedy/smart (Zarlykov 2023), playouts.

They read the flat state array of :mod:`spielwerk.games.durak.kernel` (the
rules) and return action numbers, so an agent calls them on its view and
search code calls them as rollout policies. The random policy draws from
numba's generator seeded at every kernel entry from an explicit ``seed``
argument (callers derive it from their ``numpy.random.Generator``): the same
seed gives the same games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.durak.kernel import (
    ATTACK,
    DEFEND,
    DEFENDER,
    F_MULTI_LEAD,
    FLAGS,
    HANDS,
    KNOWN,
    LEAD,
    LOSER,
    MAX_ACTIONS,
    NPLAYERS,
    OPEN,
    PASS,
    PH_DEFEND,
    PH_LEAD,
    PH_OVER,
    PHASE,
    TAKE,
    THROW,
    TO_MOVE,
    TRUMP_SUIT,
    apply_action,
    attack_cap,
    beaters,
    legal_actions,
    lowest_card,
    popcount,
    returns_into,
    stock_size,
    suit_mask,
    throw_mask,
)

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_SMART = 2


@njit(cache=True)
def card_value(c: int, trump: int) -> int:
    """Greedy's card value: the rank (0 = deuce ... 12 = ace); a trump counts rank + 13,
    so every trump ranks above every plain card (Zarlykov 2023)."""
    r = c >> 2
    if (c & 3) == trump:
        return r + 13
    return r


@njit(cache=True)
def random_action(S: np.ndarray, buf: np.ndarray, voluntary: float) -> int:
    """Uniform legal action; with probability ``voluntary`` take/pass when allowed.

    Draws from numba's generator: seed it in the same kernel call (:func:`playout`,
    :func:`random_playouts` do) so results follow the caller's seed.
    """
    n = legal_actions(S, buf)
    last = buf[n - 1]
    if n > 1 and (last == TAKE or last == PASS) and np.random.random() < voluntary:
        return int(last)
    return int(buf[np.random.randint(n)])


@njit(cache=True)
def _greedy_lead(S: np.ndarray, smart: bool) -> int:
    p = S[TO_MOVE]
    hand = S[HANDS + p]
    trump = S[TRUMP_SUIT]
    best = -1
    bestv = 1 << 30
    opp_known = S[KNOWN + S[DEFENDER]]
    m = hand
    while m:
        c = lowest_card(m)
        m &= m - 1
        v = card_value(c, trump) * 4
        if smart:
            if (opp_known & beaters(c, trump)) == 0 and popcount(opp_known) > 0:
                v -= 6  # the weakness rule: known hand cannot beat it
        if v < bestv:
            bestv = v
            best = c
    cards = 1 << best
    if S[FLAGS] & F_MULTI_LEAD and (best & 3) != trump:
        limit = min(attack_cap(S), popcount(S[HANDS + S[DEFENDER]]))
        same = hand & (15 << (4 * (best >> 2))) & ~suit_mask(trump)
        while popcount(cards) < limit and (same & ~cards):
            cards |= (same & ~cards) & -(same & ~cards)
    r = best >> 2
    return LEAD + r * 16 + ((cards >> (4 * r)) & 15)


@njit(cache=True)
def _greedy_defend(S: np.ndarray) -> int:
    hand = S[HANDS + S[TO_MOVE]]
    trump = S[TRUMP_SUIT]
    target = lowest_card(S[OPEN])
    m = hand & beaters(target, trump)
    best = -1
    bestv = 1 << 30
    while m:
        c = lowest_card(m)
        m &= m - 1
        v = card_value(c, trump)
        if v < bestv:
            bestv = v
            best = c
    if best < 0:
        return TAKE
    if stock_size(S) > 0 and (best & 3) == trump and (target & 3) != trump:
        # saving trumps early: take a single low card rather than spend a high trump
        if popcount(S[ATTACK]) == 1 and (best >> 2) >= 10 and (target >> 2) < 8:
            return TAKE
    return DEFEND + best


@njit(cache=True)
def _greedy_throw(S: np.ndarray, smart: bool) -> int:
    trump = S[TRUMP_SUIT]
    stock = stock_size(S)
    m = throw_mask(S, S[TO_MOVE])
    best = -1
    bestv = 1 << 30
    d_known = S[KNOWN + S[DEFENDER]]
    while m:
        c = lowest_card(m)
        m &= m - 1
        if stock > 0 and ((c & 3) == trump or (c >> 2) > 8):
            continue
        v = card_value(c, trump) * 4
        if smart and (d_known & beaters(c, trump)) == 0 and popcount(d_known) > 0:
            v -= 6
        if v < bestv:
            bestv = v
            best = c
    if best < 0:
        return PASS
    return THROW + best


@njit(cache=True)
def greedy_action(S: np.ndarray, smart: bool) -> int:
    """Zarlykov's greedy (and, with ``smart``, the smart) heuristic on the mover's view.

    Reads only the mover's hand and public facts (table, known cards, stock
    size), so it is a fair policy for an agent and a fast rollout policy.
    Greedy: lead the lowest card (value = rank, trumps rank + 13, i.e. above
    every plain card), lead all cards of that rank when allowed; defend with the
    lowest card that beats; throw in the lowest fitting card, but no trumps and
    nothing above a ten while the stock is not empty. Smart adds the
    "weakness" rule: prefer leads and throw-ins the defender is known not to
    be able to beat (known cards, taken piles) and lead ranks the opponent is
    known to lack.
    """
    ph = S[PHASE]
    if ph == PH_LEAD:
        return _greedy_lead(S, smart)
    if ph == PH_DEFEND:
        return _greedy_defend(S)
    return _greedy_throw(S, smart)


@njit(cache=True)
def finish(S: np.ndarray, policy: int, voluntary: float, eps: float, buf: np.ndarray) -> None:
    """Play ``S`` to the end in place with ``policy``; greedy's or smart's decisions are a
    uniformly random legal action with probability ``eps`` (> 0). Draws from numba's
    generator as it stands (the caller seeds it); ``buf`` holds ``MAX_ACTIONS`` actions."""
    while S[PHASE] != PH_OVER:
        if policy == POLICY_RANDOM:
            a = random_action(S, buf, voluntary)
        elif eps > 0 and np.random.random() < eps:
            a = random_action(S, buf, 0.0)
        else:
            a = greedy_action(S, policy == POLICY_SMART)
        apply_action(S, a)


@njit(cache=True)
def playout(S: np.ndarray, policy: int, voluntary: float, seed: int) -> int:
    """Play ``S`` to the end in place (``POLICY_RANDOM``, ``POLICY_GREEDY`` or
    ``POLICY_SMART``); return the loser. ``seed`` seeds the random policy (the
    greedy ones draw nothing)."""
    if policy == POLICY_RANDOM:
        np.random.seed(seed)
    finish(S, policy, voluntary, 0.0, np.empty(MAX_ACTIONS, np.int64))
    return int(S[LOSER])


@njit(cache=True)
def noisy_playout(S: np.ndarray, policy: int, eps: float, seed: int) -> int:
    """Play ``S`` to the end in place with ``policy`` (``POLICY_GREEDY`` or ``POLICY_SMART``),
    but at each decision, with probability ``eps``, a uniformly random legal action
    instead; return the loser. ``seed`` seeds numba's generator (same seed, same game)."""
    np.random.seed(seed)
    finish(S, policy, 0.0, eps, np.empty(MAX_ACTIONS, np.int64))
    return int(S[LOSER])


@njit(cache=True)
def random_playouts(S0: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` games of uniformly random legal actions (the deal included) from ``S0``.

    ``S0`` is left unchanged; the same ``seed`` gives the same games. Row ``i``:
    every player's return (:func:`~spielwerk.games.durak.kernel.returns_into`),
    then the number of actions in the last column.
    """
    np.random.seed(seed)
    players = S0[NPLAYERS]
    out = np.zeros((n, players + 1))
    buf = np.empty(MAX_ACTIONS, np.int64)
    ret = np.zeros(players)
    for g in range(n):
        S = S0.copy()
        moves = 0
        while S[PHASE] != PH_OVER:
            apply_action(S, random_action(S, buf, 0.0))
            moves += 1
        returns_into(S, ret)
        for p in range(players):
            out[g, p] = ret[p]
        out[g, players] = moves
    return out
