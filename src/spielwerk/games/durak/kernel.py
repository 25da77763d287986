"""Durak rules as numba kernels on one flat ``int64`` array (the single source of truth).

A state is ``S = np.zeros(STATE_LEN, np.int64)``. Hands, known cards, the
table and the discard pile are 52-bit card masks (card ``c = rank * 4 + suit``,
rank 0 = deuce ... 12 = ace; suits C, D, H, S), so copying a state is one
small array copy and move generation is a handful of bit operations. The
``State`` class in :mod:`rules` only wraps these functions; search code calls
them directly.

Turn structure (one decision per action):

- ``PH_DEAL``: chance picks the card for the next position of the shuffled
  deck (positions ``i < 6P`` go to seat ``i % P``; then the trump card, which
  lies face up under the stock; then the stock from the top).
- ``PH_LEAD``: the main attacker leads one card, or (``multi_lead``) several
  cards of one rank at once (``LEAD + rank * 16 + suit mask``).
- ``PH_DEFEND``: the defender beats the first open attack (lowest card id)
  with ``DEFEND + card``, takes (``TAKE``), or - perevodnoy, while nothing is
  beaten - transfers with a card of the attack rank (``TRANSFER + card``) or by
  showing a trump of that rank (``SHOW + card``).
- ``PH_THROW`` (everything beaten) / ``PH_TAKE`` (the defender takes): the
  attackers, main attacker first then clockwise, may throw in cards of ranks
  on the table (``THROW + card``) or ``PASS``. A player without a possible
  throw-in is skipped automatically. When every attacker has passed in a row
  the bout ends.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_PLAYERS = 6
HAND_SIZE = 6

# ----- actions
LEAD = 0  # + rank * 16 + suit mask (1..15)
THROW = 256  # + card
DEFEND = 320  # + card
TRANSFER = 384  # + card
SHOW = 448  # + card (a trump of the attack rank, shown, not played)
TAKE = 512
PASS = 513
DEAL = 600  # + card (chance)
NUM_ACTION_IDS = DEAL + 52  # every action number is below this
MAX_ACTIONS = 256

# ----- phases
PH_DEAL = 0
PH_LEAD = 1
PH_DEFEND = 2
PH_THROW = 3
PH_TAKE = 4
PH_OVER = 5

# ----- rule flags
F_CAPS = 1  # at most 5 cards in the first bout, 6 later
F_TRANSFER = 2  # perevodnoy transfers
F_SHOW_TRUMP = 4  # transfer by showing a trump of the attack rank
F_MULTI_LEAD = 8  # lead several cards of one rank at once

# ----- layout of S
HANDS = 0  # 6 masks
KNOWN = 6  # 6 masks: cards publicly known to lie in each hand
ATTACK = 12  # all attack cards of this bout
OPEN = 13  # attack cards not yet beaten
DEFENCE = 14  # defending cards of this bout
DISCARD = 15
TRUMP_SUIT = 16
TRUMP_CARD = 17
STOCK_TOP = 18  # index of the next card to draw
STOCK_LEN = 19  # stock[STOCK_LEN - 1] is the trump card while it is in the stock
ATTACKER = 20  # main attacker
DEFENDER = 21
PHASE = 22
TO_MOVE = 23  # seat, -1 chance, -2 over
ROUND = 24  # position in the throw-in order (0 = main attacker)
BOUT = 25  # bouts finished so far
SHOWN = 26  # trumps shown for a transfer in this bout
NPLAYERS = 27
DECK = 28  # 24, 36 or 52
FLAGS = 29
LOSER = 30  # seat of the durak, -1 draw, -3 not over
DEAL_POS = 31
PLIES = 32
STOCK = 33  # 52 card slots: the shuffled deck while dealing, then the stock
STATE_LEN = STOCK + 52

PLY_CAP = 2000  # actions (deal included) after which a game is a draw
NO_RESULT = -3
CHANCE_PLAYER = -1
TERMINAL_PLAYER = -2

LOW_NIBBLES = 0x1111111111111  # bit 0 of each of the 13 rank nibbles


@njit(cache=True)
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def lowest_card(x: int) -> int:
    """Index of the lowest set bit (x != 0)."""
    low = x & -x
    i = 0
    while low > 1:
        low >>= 1
        i += 1
    return i


@njit(cache=True)
def deck_mask(deck: int) -> int:
    lowest_rank = 13 - deck // 4
    full = (1 << 52) - 1
    return full & ~((1 << (4 * lowest_rank)) - 1)


@njit(cache=True)
def suit_mask(suit: int) -> int:
    return LOW_NIBBLES << suit


@njit(cache=True)
def rank_union(cards: int) -> int:
    """All four cards of every rank present in ``cards``."""
    g = (cards | (cards >> 1) | (cards >> 2) | (cards >> 3)) & LOW_NIBBLES
    return g * 15


@njit(cache=True)
def beaters(attack: int, trump: int) -> int:
    """Mask of all cards that beat card ``attack``."""
    s = attack & 3
    higher = suit_mask(s) & ~((1 << (attack + 1)) - 1)
    if s != trump:
        higher |= suit_mask(trump)
    return higher


@njit(cache=True)
def new_state(nplayers: int, deck: int, flags: int) -> np.ndarray:
    S = np.zeros(STATE_LEN, np.int64)
    S[NPLAYERS] = nplayers
    S[DECK] = deck
    S[FLAGS] = flags
    S[PHASE] = PH_DEAL
    S[TO_MOVE] = CHANCE_PLAYER
    S[LOSER] = NO_RESULT
    S[TRUMP_CARD] = -1
    S[TRUMP_SUIT] = -1
    return S


@njit(cache=True)
def dealt_mask(S: np.ndarray) -> int:
    m = 0
    for i in range(S[DEAL_POS]):
        m |= 1 << S[STOCK + i]
    return m


@njit(cache=True)
def stock_size(S: np.ndarray) -> int:
    return S[STOCK_LEN] - S[STOCK_TOP]


@njit(cache=True)
def active(S: np.ndarray, p: int) -> bool:
    """Still in the game: holds cards or can still draw."""
    return S[HANDS + p] != 0 or stock_size(S) > 0


@njit(cache=True)
def next_active(S: np.ndarray, p: int) -> int:
    """The next seat clockwise from ``p`` that is still in the game (-1 if none)."""
    n = S[NPLAYERS]
    for k in range(1, n + 1):
        q = (p + k) % n
        if active(S, q):
            return q
    return -1


@njit(cache=True)
def _draw(S: np.ndarray, p: int) -> None:
    while popcount(S[HANDS + p]) < HAND_SIZE and S[STOCK_TOP] < S[STOCK_LEN]:
        c = S[STOCK + S[STOCK_TOP]]
        S[STOCK_TOP] += 1
        S[HANDS + p] |= 1 << c
        if c == S[TRUMP_CARD]:
            S[KNOWN + p] |= 1 << c  # everyone saw the trump card go to p


@njit(cache=True)
def _finish_deal(S: np.ndarray) -> None:
    n = S[NPLAYERS]
    deck = S[DECK]
    dealt = HAND_SIZE * n
    for i in range(dealt):
        S[HANDS + i % n] |= 1 << S[STOCK + i]
    if dealt < deck:
        trump = S[STOCK + dealt]
        # stock in drawing order: the rest from the top, the trump card last
        k = 0
        for i in range(dealt + 1, deck):
            S[STOCK + k] = S[STOCK + i]
            k += 1
        S[STOCK + k] = trump
        S[STOCK_LEN] = k + 1
    else:
        trump = S[STOCK + deck - 1]  # the last card dealt, shown, stays in its hand
        S[KNOWN + (deck - 1) % n] |= 1 << trump
        S[STOCK_LEN] = 0
    for i in range(S[STOCK_LEN], 52):
        S[STOCK + i] = -1
    S[STOCK_TOP] = 0
    S[TRUMP_CARD] = trump
    S[TRUMP_SUIT] = trump & 3
    # the holder of the lowest trump shows it and attacks first (seat 0 if nobody has one)
    first = 0
    best = 99
    tmask = suit_mask(trump & 3)
    for p in range(n):
        t = S[HANDS + p] & tmask
        if t:
            c = lowest_card(t)
            if c < best:
                best = c
                first = p
    if best < 99:
        S[KNOWN + first] |= 1 << best
    _start_bout(S, first)


@njit(cache=True)
def _start_bout(S: np.ndarray, attacker: int) -> None:
    n_active = 0
    last = -1
    for p in range(S[NPLAYERS]):
        if active(S, p):
            n_active += 1
            last = p
    if n_active <= 1:
        S[PHASE] = PH_OVER
        S[TO_MOVE] = TERMINAL_PLAYER
        S[LOSER] = last  # -1: everybody went out at once, a draw
        return
    if not active(S, attacker):
        attacker = next_active(S, attacker)
    S[ATTACKER] = attacker
    S[DEFENDER] = next_active(S, attacker)
    S[ATTACK] = 0
    S[OPEN] = 0
    S[DEFENCE] = 0
    S[SHOWN] = 0
    S[ROUND] = 0
    S[PHASE] = PH_LEAD
    S[TO_MOVE] = attacker


@njit(cache=True)
def attack_cap(S: np.ndarray) -> int:
    """Most attack cards this bout may have (the defender's hand limits open ones)."""
    if S[FLAGS] & F_CAPS:
        return 5 if S[BOUT] == 0 else 6
    return 52


@njit(cache=True)
def throw_mask(S: np.ndarray, p: int) -> int:
    """Cards seat ``p`` may throw in now (0 if none)."""
    if popcount(S[ATTACK]) >= attack_cap(S):
        return 0
    if popcount(S[OPEN]) + 1 > popcount(S[HANDS + S[DEFENDER]]):
        return 0
    return S[HANDS + p] & rank_union(S[ATTACK] | S[DEFENCE])


@njit(cache=True)
def seat_in_round(S: np.ndarray, i: int) -> int:
    """Seat at position ``i`` of the throw-in order (main attacker, then clockwise)."""
    n = S[NPLAYERS]
    a = S[ATTACKER]
    d = S[DEFENDER]
    k = 0
    for j in range(n):
        q = (a + j) % n
        if q == d:
            continue
        if k == i:
            return q
        k += 1
    return -1


@njit(cache=True)
def _next_thrower(S: np.ndarray, start: int) -> None:
    """Give the move to the first attacker from round position ``start`` who can throw in."""
    n = S[NPLAYERS]
    for i in range(start, n - 1):
        q = seat_in_round(S, i)
        if throw_mask(S, q):
            S[ROUND] = i
            S[TO_MOVE] = q
            return
    _end_bout(S)


@njit(cache=True)
def _end_bout(S: np.ndarray) -> None:
    n = S[NPLAYERS]
    a = S[ATTACKER]
    d = S[DEFENDER]
    table = S[ATTACK] | S[DEFENCE]
    if S[PHASE] == PH_TAKE:
        S[HANDS + d] |= table
        S[KNOWN + d] |= table
        took = True
    else:
        S[DISCARD] |= table
        took = False
    S[ATTACK] = 0
    S[OPEN] = 0
    S[DEFENCE] = 0
    # refill: main attacker, the other attackers clockwise, the defender last
    for j in range(n):
        q = (a + j) % n
        if q != d:
            _draw(S, q)
    _draw(S, d)
    S[BOUT] += 1
    if took:
        _start_bout(S, next_active(S, d) if next_active(S, d) >= 0 else d)
    else:
        _start_bout(S, d)


@njit(cache=True)
def legal_actions(S: np.ndarray, out: np.ndarray) -> int:
    """Write the legal actions (ascending) into ``out``; return how many."""
    ph = S[PHASE]
    k = 0
    if ph == PH_DEAL:
        used = dealt_mask(S)
        full = deck_mask(S[DECK])
        m = full & ~used
        while m:
            c = lowest_card(m)
            m &= m - 1
            out[k] = DEAL + c
            k += 1
        return k
    if ph == PH_OVER:
        return 0
    p = S[TO_MOVE]
    hand = S[HANDS + p]
    if ph == PH_LEAD:
        limit = min(attack_cap(S), popcount(S[HANDS + S[DEFENDER]]))
        multi = (S[FLAGS] & F_MULTI_LEAD) != 0
        for r in range(13):
            cards = (hand >> (4 * r)) & 15
            if cards == 0:
                continue
            for sm in range(1, 16):
                if sm & ~cards:
                    continue
                cnt = popcount(sm)
                if cnt > 1 and (not multi or cnt > limit):
                    continue
                out[k] = LEAD + r * 16 + sm
                k += 1
        return k
    if ph == PH_DEFEND:
        target = lowest_card(S[OPEN])
        m = hand & beaters(target, S[TRUMP_SUIT])
        while m:
            c = lowest_card(m)
            m &= m - 1
            out[k] = DEFEND + c
            k += 1
        if (S[FLAGS] & F_TRANSFER) and S[DEFENCE] == 0:
            nxt = next_active(S, p)
            natt = popcount(S[ATTACK])
            room = popcount(S[HANDS + nxt])
            same = hand & rank_union(S[ATTACK])
            if natt + 1 <= room and natt + 1 <= attack_cap(S):
                m = same
                while m:
                    c = lowest_card(m)
                    m &= m - 1
                    out[k] = TRANSFER + c
                    k += 1
            if (S[FLAGS] & F_SHOW_TRUMP) and natt <= room:
                m = same & suit_mask(S[TRUMP_SUIT]) & ~S[SHOWN]
                while m:
                    c = lowest_card(m)
                    m &= m - 1
                    out[k] = SHOW + c
                    k += 1
        out[k] = TAKE
        k += 1
        return k
    # PH_THROW / PH_TAKE
    m = throw_mask(S, p)
    while m:
        c = lowest_card(m)
        m &= m - 1
        out[k] = THROW + c
        k += 1
    out[k] = PASS
    k += 1
    return k


@njit(cache=True)
def is_legal(S: np.ndarray, action: int) -> bool:
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(S, buf)
    for i in range(n):
        if buf[i] == action:
            return True
    return False


@njit(cache=True)
def _after_defence_step(S: np.ndarray) -> None:
    """After the defender beat a card: more to beat, or the attackers' throw-in round."""
    if S[OPEN] != 0:
        S[TO_MOVE] = S[DEFENDER]
        return
    S[PHASE] = PH_THROW
    _next_thrower(S, 0)


@njit(cache=True)
def apply_action(S: np.ndarray, action: int) -> None:
    """Apply a legal ``action`` (not validated: use :func:`is_legal` first).

    Takes and transfers can repeat positions, so a game still running after
    ``PLY_CAP`` actions ends as a draw: every game terminates.
    """
    _apply(S, action)
    S[PLIES] += 1
    if S[PLIES] >= PLY_CAP and S[PHASE] != PH_OVER:
        S[PHASE] = PH_OVER
        S[TO_MOVE] = TERMINAL_PLAYER
        S[LOSER] = -1


@njit(cache=True)
def _apply(S: np.ndarray, action: int) -> None:
    ph = S[PHASE]
    if ph == PH_DEAL:
        S[STOCK + S[DEAL_POS]] = action - DEAL
        S[DEAL_POS] += 1
        if S[DEAL_POS] == S[DECK]:
            _finish_deal(S)
        return
    p = S[TO_MOVE]
    if ph == PH_LEAD:
        r = (action - LEAD) // 16
        sm = (action - LEAD) % 16
        cards = sm << (4 * r)
        S[HANDS + p] &= ~cards
        S[KNOWN + p] &= ~cards
        S[ATTACK] |= cards
        S[OPEN] |= cards
        S[PHASE] = PH_DEFEND
        S[TO_MOVE] = S[DEFENDER]
        return
    if ph == PH_DEFEND:
        if action == TAKE:
            S[PHASE] = PH_TAKE
            _next_thrower(S, 0)
            return
        if action >= SHOW:
            c = action - SHOW
            S[SHOWN] |= 1 << c
            S[KNOWN + p] |= 1 << c
            _transfer(S, p)
            return
        if action >= TRANSFER:
            c = action - TRANSFER
            bit = 1 << c
            S[HANDS + p] &= ~bit
            S[KNOWN + p] &= ~bit
            S[ATTACK] |= bit
            S[OPEN] |= bit
            _transfer(S, p)
            return
        c = action - DEFEND
        bit = 1 << c
        target = lowest_card(S[OPEN])
        S[HANDS + p] &= ~bit
        S[KNOWN + p] &= ~bit
        S[DEFENCE] |= bit
        S[OPEN] &= ~(1 << target)
        _after_defence_step(S)
        return
    # PH_THROW / PH_TAKE
    if action == PASS:
        _next_thrower(S, S[ROUND] + 1)
        return
    c = action - THROW
    bit = 1 << c
    S[HANDS + p] &= ~bit
    S[KNOWN + p] &= ~bit
    S[ATTACK] |= bit
    S[OPEN] |= bit
    if ph == PH_THROW:
        S[PHASE] = PH_DEFEND
        S[TO_MOVE] = S[DEFENDER]
    else:
        _next_thrower(S, S[ROUND])  # the thrower keeps priority while taking


@njit(cache=True)
def _transfer(S: np.ndarray, p: int) -> None:
    nxt = next_active(S, p)
    S[ATTACKER] = p
    S[DEFENDER] = nxt
    S[TO_MOVE] = nxt


@njit(cache=True)
def returns_into(S: np.ndarray, out: np.ndarray) -> None:
    """Durak -1, everyone else +1/(P-1); a draw (nobody left) is 0 for all."""
    n = S[NPLAYERS]
    for p in range(n):
        out[p] = 0.0
    loser = S[LOSER]
    if S[PHASE] != PH_OVER or loser < 0:
        return
    for p in range(n):
        out[p] = -1.0 if p == loser else 1.0 / (n - 1)


@njit(cache=True)
def card_total(S: np.ndarray) -> int:
    """Mask union of everything: hands, stock, table, discard (for conservation checks)."""
    m = S[ATTACK] | S[DEFENCE] | S[DISCARD]
    for p in range(S[NPLAYERS]):
        m |= S[HANDS + p]
    for i in range(S[STOCK_TOP], S[STOCK_LEN]):
        m |= 1 << S[STOCK + i]
    return m


@njit(cache=True)
def card_count(S: np.ndarray) -> int:
    """Number of cards in hands, stock, table and discard (each card counted per place)."""
    n = popcount(S[ATTACK]) + popcount(S[DEFENCE]) + popcount(S[DISCARD])
    for p in range(S[NPLAYERS]):
        n += popcount(S[HANDS + p])
    return n + stock_size(S)


# ----------------------------------------------------------------------------- policies
@njit(cache=True)
def card_value(c: int, trump: int) -> int:
    """Greedy's card value: the rank, a trump counts rank + 9 (Zarlykov 2023)."""
    r = c >> 2
    if (c & 3) == trump:
        return r + 13
    return r


@njit(cache=True)
def random_action(S: np.ndarray, buf: np.ndarray, voluntary: float) -> int:
    """Uniform legal action; with probability ``voluntary`` take/pass when allowed."""
    n = legal_actions(S, buf)
    last = buf[n - 1]
    if n > 1 and (last == TAKE or last == PASS) and np.random.random() < voluntary:
        return last
    return buf[np.random.randint(n)]


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
    p = S[TO_MOVE]
    hand = S[HANDS + p]
    trump = S[TRUMP_SUIT]
    stock = stock_size(S)
    if ph == PH_LEAD:
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
    if ph == PH_DEFEND:
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
        if stock > 0 and (best & 3) == trump and (target & 3) != trump:
            # saving trumps early: take a single low card rather than spend a high trump
            if popcount(S[ATTACK]) == 1 and (best >> 2) >= 10 and (target >> 2) < 8:
                return TAKE
        return DEFEND + best
    # throw-in
    m = throw_mask(S, p)
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
def playout(S: np.ndarray, policy: int, voluntary: float) -> int:
    """Play ``S`` to the end in place (0 random, 1 greedy, 2 smart); return the loser."""
    buf = np.empty(MAX_ACTIONS, np.int64)
    while S[PHASE] != PH_OVER:
        if policy == 0:
            a = random_action(S, buf, voluntary)
        else:
            a = greedy_action(S, policy == 2)
        apply_action(S, a)
    return S[LOSER]


@njit(cache=True)
def random_playouts(S0: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` games of uniformly random legal actions (the deal included) from ``S0``.

    ``S0`` is left unchanged. Row ``i``: every player's return (:func:`returns_into`),
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


@njit(cache=True)
def legal_action_masks(states: np.ndarray) -> np.ndarray:
    """Row ``i`` of ``states`` (one state array per row): a bool mask over the
    ``NUM_ACTION_IDS`` action numbers, True where :func:`legal_actions` lists it."""
    n = states.shape[0]
    out = np.zeros((n, NUM_ACTION_IDS), np.bool_)
    buf = np.empty(MAX_ACTIONS, np.int64)
    for i in range(n):
        k = legal_actions(states[i], buf)
        for j in range(k):
            out[i, buf[j]] = True
    return out


@njit(cache=True)
def seed_numba(seed: int) -> None:
    """Seed numba's own generator (used by the random rollout policy)."""
    np.random.seed(seed)


# ----------------------------------------------------------------------------- exact solver
TT_EXACT = 0
TT_LOWER = 1
TT_UPPER = 2


@njit(cache=True)
def position_key(S: np.ndarray) -> int:
    """64-bit hash of everything that decides a 2-player endgame (stock empty)."""
    h = S[HANDS] * 0x9E3779B97F4A7C15
    h ^= S[HANDS + 1] * 0xC2B2AE3D27D4EB4F + (h >> 29)
    h ^= S[ATTACK] * 0x165667B19E3779F9 + (h >> 31)
    h ^= S[OPEN] * 0x27D4EB2F165667C5 + (h >> 27)
    h ^= S[DEFENCE] * 0x94D049BB133111EB + (h >> 30)
    small = (S[ATTACKER] | (S[DEFENDER] << 3) | (S[PHASE] << 6) | (S[TO_MOVE] << 9)
             | (S[ROUND] << 12) | (min(S[BOUT], 1) << 15))
    h ^= (small + S[SHOWN]) * 0xFF51AFD7ED558CCD + (h >> 33)
    return h


MAX_DEPTH = 400


@njit(cache=True)
def _solve(S0: np.ndarray, alpha0: int, beta0: int, tt_key: np.ndarray, tt_val: np.ndarray,
           budget: np.ndarray) -> int:
    """Value for seat 0 (+1 win, 0 draw, -1 loss) of a 2-player position: alpha-beta with a
    transposition table, on an explicit stack (numba cannot cache recursive functions, and
    a deep recursion would overflow the C stack). ``budget[0]`` counts down nodes; when it
    reaches 0 the search stops and the result is meaningless."""
    D = MAX_DEPTH
    st = np.empty((D, STATE_LEN), np.int64)
    acts = np.empty((D, MAX_ACTIONS), np.int64)
    nact = np.zeros(D, np.int64)
    idx = np.zeros(D, np.int64)
    al = np.zeros(D, np.int64)
    be = np.zeros(D, np.int64)
    a0 = np.zeros(D, np.int64)
    b0 = np.zeros(D, np.int64)
    best = np.zeros(D, np.int64)
    keys = np.zeros(D, np.int64)
    maxi = np.zeros(D, np.bool_)
    size_mask = tt_key.shape[0] - 1
    st[0, :] = S0
    al[0] = alpha0
    be[0] = beta0
    d = 0
    v = 0
    entering = True
    while True:
        if entering:
            S = st[d]
            done = False
            if S[PHASE] == PH_OVER:
                loser = S[LOSER]
                v = 0 if loser < 0 else (1 if loser == 1 else -1)
                done = True
            else:
                budget[0] -= 1
                if budget[0] <= 0 or d + 1 >= D:
                    budget[0] = 0
                    return 0
                key = position_key(S)
                keys[d] = key
                slot = key & size_mask
                if tt_key[slot] == key:
                    tv = tt_val[slot] // 4 - 2
                    flag = tt_val[slot] % 4
                    if (flag == TT_EXACT or (flag == TT_LOWER and tv >= be[d])
                            or (flag == TT_UPPER and tv <= al[d])):
                        v = tv
                        done = True
            if not done:
                row = acts[d]
                n = legal_actions(S, row)
                first = greedy_action(S, False)  # a good first guess orders the search
                for i in range(n):
                    if row[i] == first:
                        row[i] = row[0]
                        row[0] = first
                        break
                nact[d] = n
                a0[d] = al[d]
                b0[d] = be[d]
                maxi[d] = S[TO_MOVE] == 0
                best[d] = -2 if maxi[d] else 2
                st[d + 1, :] = st[d, :]
                apply_action(st[d + 1], row[0])
                idx[d] = 1
                al[d + 1] = al[d]
                be[d + 1] = be[d]
                d += 1
                continue
        # hand the value v of node d to its parent
        if d == 0:
            return v
        d -= 1
        if maxi[d]:
            if v > best[d]:
                best[d] = v
            if v > al[d]:
                al[d] = v
        else:
            if v < best[d]:
                best[d] = v
            if v < be[d]:
                be[d] = v
        if al[d] >= be[d] or idx[d] == nact[d]:
            flag = TT_EXACT
            if best[d] <= a0[d]:
                flag = TT_UPPER
            elif best[d] >= b0[d]:
                flag = TT_LOWER
            slot = keys[d] & size_mask
            tt_key[slot] = keys[d]
            tt_val[slot] = (best[d] + 2) * 4 + flag
            v = best[d]
            entering = False
            continue
        st[d + 1, :] = st[d, :]
        apply_action(st[d + 1], acts[d, idx[d]])
        idx[d] += 1
        al[d + 1] = al[d]
        be[d + 1] = be[d]
        d += 1
        entering = True


@njit(cache=True)
def solve_root(S: np.ndarray, node_budget: int, tt_bits: int) -> np.ndarray:
    """Exact value (for the mover) of every legal action of a 2-player position.

    Returns rows ``(action, value)``; value -9 everywhere if the node budget ran out.
    """
    tt_key = np.full(1 << tt_bits, -1, np.int64)
    tt_val = np.zeros(1 << tt_bits, np.int64)
    budget = np.array([node_budget], np.int64)
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(S, buf)
    out = np.empty((n, 2), np.int64)
    sign = 1 if S[TO_MOVE] == 0 else -1
    for i in range(n):
        child = S.copy()
        apply_action(child, buf[i])
        v = _solve(child, -1, 1, tt_key, tt_val, budget)
        out[i, 0] = buf[i]
        out[i, 1] = v * sign
    if budget[0] <= 0:
        for i in range(n):
            out[i, 1] = -9
    return out


@njit(cache=True)
def solve_best(S: np.ndarray, node_budget: int, tt_bits: int) -> np.ndarray:
    """Best action and its exact value (for the mover) of a 2-player position.

    Root children are searched with the window (best so far, win), so the search
    stops at the first winning move. Returns ``[action, value]``; value -9 if the
    node budget ran out.
    """
    tt_key = np.full(1 << tt_bits, -1, np.int64)
    tt_val = np.zeros(1 << tt_bits, np.int64)
    budget = np.array([node_budget], np.int64)
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(S, buf)
    first = greedy_action(S, False)
    for i in range(n):
        if buf[i] == first:
            buf[i] = buf[0]
            buf[0] = first
            break
    mover0 = S[TO_MOVE] == 0
    best = -2
    best_a = buf[0]
    for i in range(n):
        child = S.copy()
        apply_action(child, buf[i])
        if mover0:
            v = _solve(child, best, 1, tt_key, tt_val, budget)
        else:
            v = -_solve(child, -1, -best, tt_key, tt_val, budget)
        if budget[0] <= 0:
            return np.array([best_a, -9], np.int64)
        if v > best:
            best = v
            best_a = buf[i]
        if best >= 1:
            break
    return np.array([best_a, best], np.int64)
