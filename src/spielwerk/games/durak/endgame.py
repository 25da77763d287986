"""Exact solver of 2-player Durak endgames (stock empty, every card known), and a
paranoid search for endgames of more seats (:func:`paranoid_best`).

A game of more players whose stock is empty and in which only two seats still hold
cards is such an endgame too: :func:`two_seat_state` maps it to the 2-player game
(same cards, same actions, the same durak).

Alpha-beta on an explicit stack (numba cannot cache recursive functions, and a
deep recursion would overflow the C stack) over the rule kernel of
:mod:`spielwerk.games.durak.kernel`, with the shared transposition table of
:mod:`spielwerk.search.tt`. Values are for seat 0: ``WIN`` (+1), ``DRAW`` (0),
``LOSS`` (-1). Every search runs to the end of the game, so entries are stored
at ``tt.DEPTH_INF`` as bounds ``lo <= value <= hi`` inside ``[LOSS, WIN]``: a
fail-high stores ``(best, WIN)``, a fail-low ``(LOSS, best)``, an exact value
``(v, v)`` (``tt.bound_of`` / ``tt.tighten``). Move ordering: the greedy policy's
move first (a best move kept in the table saved no nodes here: every position is
searched once, there is no re-search to reuse it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.games.durak.kernel import (
    ATTACK,
    ATTACKER,
    BOUT,
    DEFENCE,
    DEFENDER,
    HANDS,
    KNOWN,
    LOSER,
    MAX_ACTIONS,
    MAX_PLAYERS,
    NPLAYERS,
    OPEN,
    PH_OVER,
    PHASE,
    ROUND,
    SHOWN,
    STATE_LEN,
    TO_MOVE,
    apply_action,
    legal_actions,
)
from spielwerk.games.durak.policies import greedy_action
from spielwerk.search import tt

WIN = 1
DRAW = 0
LOSS = -1
BUDGET_EXHAUSTED = -9  # the value reported when the node budget ran out
MAX_DEPTH = 400


def two_seat_state(S: np.ndarray, seats: tuple[int, int]) -> np.ndarray:
    """The 2-player state of a position of more players in which the stock is empty and
    only ``seats`` (a, b) hold cards: seat a becomes 0, b becomes 1. The two remaining
    players then play a 2-player game (the others never move again: throw-ins and
    transfers pass over empty hands), the same actions are legal in both, and whoever
    is the durak of the one is the durak of the other."""
    a, b = seats
    T = S.copy()
    seat = {a: 0, b: 1}
    for q in range(MAX_PLAYERS):
        T[HANDS + q] = 0
        T[KNOWN + q] = 0
    for q, new in seat.items():
        T[HANDS + new] = S[HANDS + q]
        T[KNOWN + new] = S[KNOWN + q]
    for field in (ATTACKER, DEFENDER, TO_MOVE):
        if S[field] >= 0:
            T[field] = seat[int(S[field])]
    if S[LOSER] >= 0:
        T[LOSER] = seat[int(S[LOSER])]
    T[NPLAYERS] = 2
    T[ROUND] = 0  # the attacker is the only thrower left, at position 0 of the round
    return T


@njit(cache=True)
def position_key(S: np.ndarray) -> int:
    """64-bit hash of everything that decides an endgame (stock empty): the hands, the
    table, whose turn, the throw-in order and whether the first bout is over."""
    h = S[HANDS] * 0x9E3779B97F4A7C15
    h ^= S[HANDS + 1] * 0xC2B2AE3D27D4EB4F + (h >> 29)
    h ^= S[ATTACK] * 0x165667B19E3779F9 + (h >> 31)
    h ^= S[OPEN] * 0x27D4EB2F165667C5 + (h >> 27)
    h ^= S[DEFENCE] * 0x94D049BB133111EB + (h >> 30)
    for q in range(2, S[NPLAYERS]):  # more seats (paranoid search): their hands too
        h ^= S[HANDS + q] * (0x9E3779B97F4A7C15 + 2 * q) + (h >> (25 + q))
    small = (S[ATTACKER] | (S[DEFENDER] << 3) | (S[PHASE] << 6) | (S[TO_MOVE] << 9)
             | (S[ROUND] << 12) | (min(S[BOUT], 1) << 15))
    h ^= (small + S[SHOWN]) * 0xFF51AFD7ED558CCD + (h >> 33)
    return h if h != -1 else 0  # -1 marks an empty table slot


@njit(cache=True)
def _greedy_first(S: np.ndarray, row: np.ndarray, n: int) -> None:
    """Move the greedy policy's action to the front of ``row[:n]`` (a good first guess)."""
    first = greedy_action(S, False)
    for i in range(n):
        if row[i] == first:
            row[i] = row[0]
            row[0] = first
            return


@njit(cache=True)
def _terminal_value(S: np.ndarray, root: int) -> int:
    loser = S[LOSER]
    return DRAW if loser < 0 else (LOSS if loser == root else WIN)


@njit(cache=True)
def _cutoff(table: np.ndarray, key: int, alpha: int, beta: int) -> tuple[bool, int]:
    """The stored bounds of ``key`` decide the node in the window (alpha, beta)?"""
    slot = tt.probe(table, key)
    if slot < 0:
        return False, 0
    data = table[2 * slot + 1]
    lo = tt.data_lo(data)
    hi = tt.data_hi(data)
    if lo == hi:
        return True, lo
    if lo >= beta:
        return True, lo
    if hi <= alpha:
        return True, hi
    return False, 0


@njit(cache=True)
def _solve(S0: np.ndarray, alpha0: int, beta0: int, table: np.ndarray,
           budget: np.ndarray) -> int:
    """Value for seat 0 of a 2-player position, searched in the window (alpha0, beta0).

    ``budget[0]`` counts down nodes; when it reaches 0 the search stops and the
    result is meaningless (callers check the budget).
    """
    return _search(S0, alpha0, beta0, table, budget, 0)


@njit(cache=True)
def _search(S0: np.ndarray, alpha0: int, beta0: int, table: np.ndarray,
            budget: np.ndarray, root: int) -> int:
    """Paranoid value for seat ``root``: ``root`` maximizes, every other seat minimizes
    (``WIN`` someone else is the durak, ``LOSS`` ``root`` is, ``DRAW`` nobody). With two
    players and ``root`` 0 this is the exact value of :func:`_solve`."""
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
                v = _terminal_value(S, root)
                done = True
            else:
                budget[0] -= 1
                if budget[0] <= 0 or d + 1 >= D:
                    budget[0] = 0
                    return 0
                keys[d] = position_key(S)
                done, v = _cutoff(table, keys[d], al[d], be[d])
            if not done:
                row = acts[d]
                n = legal_actions(S, row)
                _greedy_first(S, row, n)
                nact[d] = n
                a0[d] = al[d]
                b0[d] = be[d]
                maxi[d] = S[TO_MOVE] == root
                best[d] = LOSS - 1 if maxi[d] else WIN + 1
                idx[d] = 0
        else:
            # hand the value v of node d + 1 to its parent d
            if maxi[d]:
                best[d] = max(best[d], v)
                al[d] = max(al[d], v)
            else:
                best[d] = min(best[d], v)
                be[d] = min(be[d], v)
            done = al[d] >= be[d] or idx[d] == nact[d]
            if done:
                v = best[d]
                lo, hi = tt.tighten(LOSS, WIN, v, tt.bound_of(v, a0[d], b0[d]))
                tt.store(table, keys[d], tt.DEPTH_INF, lo, hi, tt.NO_MOVE)
        if done:
            if d == 0:
                return v
            d -= 1
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
def _solve_root(S: np.ndarray, table: np.ndarray, budget: np.ndarray) -> np.ndarray:
    return _root_values(S, table, budget, 0, 1 if S[TO_MOVE] == 0 else -1)


@njit(cache=True)
def _root_values(S: np.ndarray, table: np.ndarray, budget: np.ndarray, root: int,
                 sign: int) -> np.ndarray:
    """Rows (action, ``sign`` x the value for ``root`` after it) for every legal action."""
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(S, buf)
    out = np.empty((n, 2), np.int64)
    for i in range(n):
        child = S.copy()
        apply_action(child, buf[i])
        v = _search(child, LOSS, WIN, table, budget, root)
        out[i, 0] = buf[i]
        out[i, 1] = v * sign
    if budget[0] <= 0:
        for i in range(n):
            out[i, 1] = BUDGET_EXHAUSTED
    return out


@njit(cache=True)
def _solve_best(S: np.ndarray, table: np.ndarray, budget: np.ndarray) -> np.ndarray:
    buf = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(S, buf)
    _greedy_first(S, buf, n)
    mover0 = S[TO_MOVE] == 0
    best = LOSS - 1
    best_a = buf[0]
    for i in range(n):
        child = S.copy()
        apply_action(child, buf[i])
        if mover0:
            v = _solve(child, best, WIN, table, budget)
        else:
            v = -_solve(child, LOSS, -best, table, budget)
        if budget[0] <= 0:
            return np.array([best_a, BUDGET_EXHAUSTED], np.int64)
        if v > best:
            best = v
            best_a = buf[i]
        if best >= WIN:
            break
    return np.array([best_a, best], np.int64)


def solve_root(S: np.ndarray, node_budget: int, tt_bits: int) -> np.ndarray:
    """Exact value (for the mover) of every legal action of a 2-player position.

    Returns rows ``(action, value)``; value ``BUDGET_EXHAUSTED`` (-9) everywhere if
    the node budget ran out. The table has ``2 ** tt_bits`` slots of 16 bytes.
    """
    budget = np.array([node_budget], np.int64)
    return _solve_root(S, tt.new_table(tt_bits), budget)


def solve_best(S: np.ndarray, node_budget: int, tt_bits: int) -> np.ndarray:
    """Best action and its exact value (for the mover) of a 2-player position.

    Root children are searched with the window (best so far, win), so the search
    stops at the first winning move. Returns ``[action, value]``; value
    ``BUDGET_EXHAUSTED`` (-9) if the node budget ran out.
    """
    budget = np.array([node_budget], np.int64)
    return _solve_best(S, tt.new_table(tt_bits), budget)


def solve_root_counted(S: np.ndarray, node_budget: int, tt_bits: int) -> tuple[np.ndarray, int]:
    """:func:`solve_root` and the number of nodes it searched (``spielwerk bench``)."""
    budget = np.array([node_budget], np.int64)
    rows = _solve_root(S, tt.new_table(tt_bits), budget)
    return rows, node_budget - int(budget[0])


def solve_best_counted(S: np.ndarray, node_budget: int,
                       tt_bits: int) -> tuple[np.ndarray, int]:
    """:func:`solve_best` and the number of nodes it searched (the agents' time budgets)."""
    budget = np.array([node_budget], np.int64)
    row = _solve_best(S, tt.new_table(tt_bits), budget)
    return row, node_budget - int(budget[0])


def paranoid_best(worlds: list[np.ndarray], node_budget: int,
                  tt_bits: int) -> tuple[int | None, int]:
    """The mover's best action over ``worlds`` (states of one position of 3-6 players,
    stock empty, the hidden cards dealt differently): in each world the paranoid value
    of every action (the mover against all the others, :func:`_search`), summed over
    the worlds; ties go to the first action in the rules' order.

    Returns ``(action, nodes searched)``, or ``(None, nodes)`` when the node budget (for
    all worlds together) ran out. One transposition table serves every world (the keys
    hold every hand)."""
    if not worlds:
        raise ValueError("paranoid_best needs at least one world")
    root = int(worlds[0][TO_MOVE])
    if root < 0 or any(int(W[TO_MOVE]) != root for W in worlds):
        raise ValueError("paranoid_best: the worlds must be one position with a seat to move")
    table = tt.new_table(tt_bits)
    budget = np.array([node_budget], np.int64)
    total: dict[int, int] = {}
    for W in worlds:
        rows = _root_values(W, table, budget, root, 1)
        if budget[0] <= 0:
            return None, node_budget
        for a, v in rows:
            total[int(a)] = total.get(int(a), 0) + int(v)
    best = max(total.values())
    action = next(a for a, v in total.items() if v == best)
    return action, node_budget - int(budget[0])
