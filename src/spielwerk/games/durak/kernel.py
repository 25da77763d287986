"""Durak rules as numba kernels on one flat ``int64`` array (the single source of truth).

A state is ``S = np.zeros(STATE_LEN, np.int64)``. Hands, known cards, the
table and the discard pile are 52-bit card masks (card ``c = rank * 4 + suit``,
rank 0 = deuce ... 12 = ace; suits C, D, H, S), so copying a state is one
small array copy and move generation is a handful of bit operations. The
``State`` class in :mod:`rules` only wraps these functions; search code calls
them directly. Agent policies (greedy, smart, random, playouts) are in
:mod:`policies`, the exact 2-player endgame solver in :mod:`endgame`.

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

import importlib
from typing import Any

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
    return int(S[STOCK_LEN] - S[STOCK_TOP])


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
            return int(q)
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
    return int(S[HANDS + p] & rank_union(S[ATTACK] | S[DEFENCE]))


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
            return int(q)
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


@njit(cache=True, inline="always")
def _emit(out: np.ndarray, k: int, cards: int, base: int) -> int:
    """Write ``base + card`` for every card of the mask ``cards`` (ascending) from
    ``out[k]``; return the new count."""
    while cards:
        out[k] = base + lowest_card(cards)
        cards &= cards - 1
        k += 1
    return k


@njit(cache=True)
def _lead_actions(S: np.ndarray, hand: int, out: np.ndarray) -> int:
    limit = min(attack_cap(S), popcount(S[HANDS + S[DEFENDER]]))
    multi = (S[FLAGS] & F_MULTI_LEAD) != 0
    k = 0
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


@njit(cache=True)
def _defend_actions(S: np.ndarray, p: int, hand: int, out: np.ndarray) -> int:
    k = _emit(out, 0, hand & beaters(lowest_card(S[OPEN]), S[TRUMP_SUIT]), DEFEND)
    if (S[FLAGS] & F_TRANSFER) and S[DEFENCE] == 0:
        natt = popcount(S[ATTACK])
        room = popcount(S[HANDS + next_active(S, p)])
        same = hand & rank_union(S[ATTACK])
        if natt + 1 <= room and natt + 1 <= attack_cap(S):
            k = _emit(out, k, same, TRANSFER)
        if (S[FLAGS] & F_SHOW_TRUMP) and natt <= room:
            k = _emit(out, k, same & suit_mask(S[TRUMP_SUIT]) & ~S[SHOWN], SHOW)
    out[k] = TAKE
    return k + 1


@njit(cache=True)
def legal_actions(S: np.ndarray, out: np.ndarray) -> int:
    """Write the legal actions (ascending) into ``out``; return how many."""
    ph = S[PHASE]
    if ph == PH_DEAL:
        return _emit(out, 0, deck_mask(S[DECK]) & ~dealt_mask(S), DEAL)
    if ph == PH_OVER:
        return 0
    p = S[TO_MOVE]
    hand = S[HANDS + p]
    if ph == PH_LEAD:
        return _lead_actions(S, hand, out)
    if ph == PH_DEFEND:
        return _defend_actions(S, p, hand, out)
    # PH_THROW / PH_TAKE
    k = _emit(out, 0, throw_mask(S, p), THROW)
    out[k] = PASS
    return k + 1


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
    """Apply a legal ``action`` (not validated: it must be one :func:`legal_actions` lists).

    Takes and transfers can repeat positions, so a game still running after
    ``PLY_CAP`` actions ends as a draw: every game terminates.
    """
    _apply(S, action)
    S[PLIES] += 1
    if S[PLIES] >= PLY_CAP and S[PHASE] != PH_OVER:
        S[PHASE] = PH_OVER
        S[TO_MOVE] = TERMINAL_PLAYER
        S[LOSER] = -1


@njit(cache=True, inline="always")
def _to_attack(S: np.ndarray, p: int, cards: int) -> None:
    """Seat ``p`` puts ``cards`` on the table as open attacks."""
    S[HANDS + p] &= ~cards
    S[KNOWN + p] &= ~cards
    S[ATTACK] |= cards
    S[OPEN] |= cards


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
        _to_attack(S, p, sm << (4 * r))
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
            _to_attack(S, p, 1 << (action - TRANSFER))
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
    _to_attack(S, p, 1 << (action - THROW))
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
    return int(m)


@njit(cache=True)
def card_count(S: np.ndarray) -> int:
    """Number of cards in hands, stock, table and discard (each card counted per place)."""
    n = popcount(S[ATTACK]) + popcount(S[DEFENCE]) + popcount(S[DISCARD])
    for p in range(S[NPLAYERS]):
        n += popcount(S[HANDS + p])
    return n + stock_size(S)


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


# The agent policies and the endgame solver lived here before they got modules of their
# own; old call sites (``kernel.greedy_action``, ``kernel.solve_best``) keep working.
_MOVED = {
    "card_value": "policies", "random_action": "policies", "greedy_action": "policies",
    "playout": "policies", "random_playouts": "policies",
    "position_key": "endgame", "solve_root": "endgame", "solve_best": "endgame",
}


def __getattr__(name: str) -> Any:
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"spielwerk.games.durak.{module}"), name)
