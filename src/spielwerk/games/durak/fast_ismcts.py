"""SO-ISMCTS for Durak compiled whole (numba): the search loop of :mod:`spielwerk.mc.ismcts`
(the same tree policy, availability-aware UCB, one node added per iteration) with the
world dealing, the moves and the greedy/smart rollouts all inside one kernel.

The generic search spends most of an iteration in Python (dealing a world, listing
and applying moves one call at a time); here an iteration costs a few microseconds,
so the same time buys several times the iterations. The tree is kept in flat arrays
(columns :data:`N`, :data:`AVAIL`, :data:`ACTION`, :data:`CHILD`, :data:`SIBLING`, one
row per node, children as a linked list; the summed rewards in their own float
array) so a search can run in chunks: :func:`ismcts_durak` calls the kernel until the
iteration or time budget is spent, reading the clock between chunks of a few
milliseconds. The kernel releases the GIL, so ``threads`` > 1 runs independent trees
on several cores at once and adds up their root statistics (root parallelism).
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numba import njit

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.inference import hidden_places
from spielwerk.games.durak.policies import POLICY_SMART, finish, greedy_action
from spielwerk.games.durak.rules import DurakInfoState
from spielwerk.games.durak.worlds import fill_world, weighted_into
from spielwerk.mc.mcts import SearchError, SearchResult

N, AVAIL, ACTION, CHILD, SIBLING = range(5)
COLUMNS = 5
CHUNK_SECONDS = 0.004
"""Under a time budget the kernel runs in chunks of about this long (the clock is read
between chunks, so a move overruns its budget by at most about one chunk)."""
FIRST_CHUNK = 32
"""Iterations of the first chunk, before the rate is known."""
MAX_NODES = 1 << 22
"""A tree stops growing here (about 200 MB): the search then ends, whatever its budget
(a stalled clock cannot make it eat the memory)."""


@njit(cache=True)
def _find_child(T: np.ndarray, node: int, action: int) -> int:
    ch = T[node, CHILD]
    while ch >= 0:
        if T[ch, ACTION] == action:
            return int(ch)
        ch = T[ch, SIBLING]
    return -1


@njit(cache=True)
def _deal(P: np.ndarray, player: int, own_hand: int, known: np.ndarray, sizes: np.ndarray,
          stock: int, unseen: np.ndarray, counts: np.ndarray, weights: np.ndarray,
          order: np.ndarray) -> np.ndarray:
    """One world: the unseen cards shuffled (or dealt by ``weights``, one row per hidden
    seat) into the hidden places."""
    if weights.shape[0] == 0:
        order[:] = unseen
        np.random.shuffle(order)
    else:
        weighted_into(unseen, counts, weights, order)
    return fill_world(P, player, own_hand, known, sizes, stock, order)


@njit(cache=True, nogil=True)
def ismcts_iterations(T: np.ndarray, W: np.ndarray, used: np.ndarray, P: np.ndarray,
                      player: int, own_hand: int, known: np.ndarray, sizes: np.ndarray,
                      stock: int, unseen: np.ndarray, counts: np.ndarray,
                      weights: np.ndarray, c: float, policy: int, eps: float, lo: float,
                      span: float, bias_own: float, bias_other: float, iterations: int,
                      seed: int) -> int:
    """Run up to ``iterations`` iterations on the tree ``T``/``W`` (``used[0]`` rows in use,
    row 0 the root); return how many ran (fewer only when the tree is full).

    Progressive bias: at a node of ``player`` (``bias_own``) or of another seat
    (``bias_other``) a weight ``b`` > 0 makes the heuristic's move in the sampled world
    (greedy, or smart when that is the rollout policy) the first child expanded and adds
    ``b / (n + 1)`` to its UCB score. At another seat's node that models the seat as
    playing its own (sampled) hand the heuristic's way, until the visits say otherwise."""
    np.random.seed(seed)
    buf = np.empty(K.MAX_ACTIONS, np.int64)
    rollout_buf = np.empty(K.MAX_ACTIONS, np.int64)
    chs = np.empty(K.MAX_ACTIONS, np.int64)
    path = np.empty(K.PLY_CAP + 2, np.int64)
    movers = np.empty(K.PLY_CAP + 2, np.int64)
    ret = np.zeros(P[K.NPLAYERS])
    order = np.empty(len(unseen), np.int64)
    cap = T.shape[0]
    done = 0
    for _ in range(iterations):
        if used[0] >= cap:
            break
        S = _deal(P, player, own_hand, known, sizes, stock, unseen, counts, weights, order)
        node = 0
        path[0] = 0
        movers[0] = -1
        depth = 1
        expanded = False
        while S[K.PHASE] != K.PH_OVER:
            mover = S[K.TO_MOVE]
            nl = K.legal_actions(S, buf)
            if mover < 0:  # a dealing step (chance): not stored in the tree
                K.apply_action(S, buf[np.random.randint(nl)])
                continue
            b = bias_own if mover == player else bias_other
            h = greedy_action(S, policy == POLICY_SMART) if b > 0 and nl > 1 else -1
            untried = 0
            h_untried = False
            for i in range(nl):
                chs[i] = _find_child(T, node, buf[i])
                if chs[i] < 0:
                    untried += 1
                    if buf[i] == h:
                        h_untried = True
            if untried > 0:
                a = -1
                if h_untried:
                    a = h
                else:
                    k = np.random.randint(untried)
                    for i in range(nl):
                        if chs[i] < 0:
                            if k == 0:
                                a = buf[i]
                                break
                            k -= 1
                new = used[0]
                used[0] += 1
                T[new, N] = 0
                T[new, AVAIL] = 0
                T[new, ACTION] = a
                T[new, CHILD] = -1
                T[new, SIBLING] = T[node, CHILD]
                T[node, CHILD] = new
                W[new] = 0.0
                for i in range(nl):
                    if chs[i] >= 0:
                        T[chs[i], AVAIL] += 1
                T[new, AVAIL] += 1
                K.apply_action(S, a)
                path[depth] = new
                movers[depth] = mover
                depth += 1
                expanded = True
                break
            best_score = -1.0
            best = -1
            best_a = -1
            for i in range(nl):
                ch = chs[i]
                T[ch, AVAIL] += 1
                n = T[ch, N]
                score = W[ch] / n + c * math.sqrt(math.log(T[ch, AVAIL]) / n)
                if buf[i] == h:
                    score += b / (n + 1)
                if score > best_score:
                    best_score = score
                    best = ch
                    best_a = buf[i]
            K.apply_action(S, best_a)
            node = best
            path[depth] = node
            movers[depth] = mover
            depth += 1
        if expanded:
            finish(S, policy, 0.2, eps, rollout_buf)
        K.returns_into(S, ret)
        for d in range(depth):
            nd = path[d]
            T[nd, N] += 1
            if movers[d] >= 0:
                W[nd] += (ret[movers[d]] - lo) / span
        done += 1
    return done


class _Tree:
    """One search tree and its inputs; :meth:`run` adds iterations (growing the arrays when
    they are full)."""

    def __init__(self, args: tuple[Any, ...], capacity: int) -> None:
        self.T = np.empty((max(2, capacity), COLUMNS), np.int64)
        self.W = np.zeros(max(2, capacity))
        self.T[0] = (0, 0, -1, -1, -1)
        self.used = np.ones(1, np.int64)
        self.args = args
        self.iterations = 0

    def run(self, iterations: int, seed: int) -> None:
        left = iterations
        while left > 0:
            if self.used[0] >= len(self.T):
                if len(self.T) >= MAX_NODES:
                    return
                grow = min(len(self.T), MAX_NODES - len(self.T))
                self.T = np.concatenate([self.T, np.empty((grow, COLUMNS), np.int64)])
                self.W = np.concatenate([self.W, np.zeros(grow)])
            done = ismcts_iterations(self.T, self.W, self.used, *self.args, left, seed)  # type: ignore[call-arg]
            self.iterations += done
            left -= done
            seed = (seed * 1_103_515_245 + 12_345) % (2**31 - 1)

    def full(self) -> bool:
        """The tree reached :data:`MAX_NODES`."""
        return int(self.used[0]) >= MAX_NODES

    def root(self) -> tuple[dict[int, int], dict[int, float]]:
        visits: dict[int, int] = {}
        values: dict[int, float] = {}
        ch = int(self.T[0, CHILD])
        while ch >= 0:
            a, n = int(self.T[ch, ACTION]), int(self.T[ch, N])
            visits[a] = n
            values[a] = float(self.W[ch]) / n if n else 0.0
            ch = int(self.T[ch, SIBLING])
        return visits, values


def _inputs(info: DurakInfoState, weights: np.ndarray | None) -> tuple[Any, ...]:
    """The kernel's view of the info state: public array, own hand, known cards, hand
    sizes, stock, the unseen cards, per hidden seat its count and (optional) weights."""
    unseen, counts, W = hidden_places(info, weights)
    if len(unseen) != int(counts.sum()) + max(info.stock - 1, 0):
        raise SpielwerkError("durak: the unseen cards do not fill the hidden places")
    known = np.array(info.known, np.int64)
    sizes = np.array(info.hand_sizes, np.int64)
    return (info.public, info.player, info.own_hand, known, sizes, info.stock, unseen,
            counts, W)


def ismcts_durak(
    info: DurakInfoState,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    c: float = 0.7,
    policy: int = 1,
    eps: float = 0.0,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
    threads: int = 1,
    start: float | None = None,
    bias: float = 0.0,
    bias_other: float = 0.0,
) -> SearchResult:
    """SO-ISMCTS from ``info`` in the compiled kernel; root statistics as
    :func:`spielwerk.mc.ismcts.ismcts_search` returns them.

    ``policy`` is the rollout policy (``policies.POLICY_*``), ``eps`` its chance of a
    random move; ``bias`` and ``bias_other`` the progressive bias toward greedy's move
    (smart's with smart rollouts) at the player's own and at the other seats' nodes (0:
    none); ``weights`` (seats x 52,
    or None for uniform worlds) deal the hidden cards as :mod:`inference` does.
    ``iterations`` and/or ``time_limit`` (seconds from ``start``) bound the search, at
    least one iteration per tree; ``threads`` trees
    search at once (each the full budget of time, or its share of the iterations).
    """
    if iterations is None and time_limit is None:
        raise SearchError("give a budget: iterations, a time limit, or both")
    if iterations is not None and iterations < 1:
        raise SearchError(f"iterations must be at least 1, not {iterations}")
    if threads < 1:
        raise SearchError(f"threads must be at least 1, not {threads}")
    if bias < 0 or bias_other < 0:
        raise SearchError(f"the biases must not be negative, not {bias} and {bias_other}")
    if not info.legal_actions():
        raise SearchError("ISMCTS: the player has no move here")
    if info.open_state is not None or info.public[K.PHASE] == K.PH_DEAL:
        raise SpielwerkError("the compiled ISMCTS searches hidden-card positions after the deal")
    start = time.perf_counter() if start is None else start
    gt = info.game.game_type
    lo, span = float(gt.min_utility), float(gt.max_utility - gt.min_utility)
    base = _inputs(info, weights)
    args = (*base, float(c), int(policy), float(eps), lo, span, float(bias), float(bias_other))
    shares = [None] * threads if iterations is None else [
        iterations // threads + (1 if i < iterations % threads else 0) for i in range(threads)]
    trees = [_Tree(args, (share or 4096) + 1) for share in shares]
    seeds = [int(s) for s in rng.integers(2**31 - 1, size=threads)]

    def search(i: int) -> None:
        tree, share, seed = trees[i], shares[i], seeds[i]
        if time_limit is None:
            tree.run(max(1, share or 1), seed)
            return
        chunk = FIRST_CHUNK if share is None else min(FIRST_CHUNK, share)
        while True:
            t = time.perf_counter()
            tree.run(chunk, seed)
            seed += 1
            now = time.perf_counter()
            left = time_limit - (now - start)
            if left <= 0 or (share is not None and tree.iterations >= share) or tree.full():
                return
            rate = chunk / max(now - t, 1e-6)
            chunk = max(1, int(rate * min(CHUNK_SECONDS, left)))
            if share is not None:
                chunk = min(chunk, share - tree.iterations)

    if threads == 1:
        search(0)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(search, range(threads)))
    visits: dict[int, int] = {}
    totals: dict[int, float] = {}
    for tree in trees:
        v, m = tree.root()
        for a, n in v.items():
            visits[a] = visits.get(a, 0) + n
            totals[a] = totals.get(a, 0.0) + m[a] * n
    values = {a: totals[a] / n for a, n in visits.items() if n}
    return SearchResult(visits, values, sum(t.iterations for t in trees),
                        time.perf_counter() - start)
