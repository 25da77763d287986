"""Kalah agents: greedy and depth-limited alpha-beta (store difference evaluation)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from spielwerk.core.agent import Agent, check_declared, param, register_agent, register_declared
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game, InfoState, PerfectInfoState
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.rules import KalahGame, KalahState


def _kalah_state(info_state: InfoState) -> KalahState:
    if not isinstance(info_state, PerfectInfoState) or not isinstance(info_state.state, KalahState):
        raise SpielwerkError("this agent plays Kalah only")
    return info_state.state


class GreedyAgent(Agent):
    """Maximises the immediate store gain; an extra turn counts as better than any gain.

    Ties are broken at random (seeded).
    """

    def act(self, info_state: InfoState) -> int:
        state = _kalah_state(info_state)
        g = state.kgame
        me = state.current_player
        best: list[int] = []
        best_key: tuple[int, int] | None = None
        for a in state.legal_actions():
            board = state.board.copy()
            before = int(board[me * (g.pits + 1) + g.pits])
            nxt = kernel.sow(board, me, a, g.pits, g.empty_capture, g.end_rule)
            gain = int(board[me * (g.pits + 1) + g.pits]) - before
            key = (1 if nxt == me else 0, gain)
            if best_key is None or key > best_key:
                best, best_key = [a], key
            elif key == best_key:
                best.append(a)
        return best[int(self.rng.integers(len(best)))]


@njit(cache=True)
def _negamax(board, player, depth, alpha, beta, m, empty_capture, end_rule):  # type: ignore[no-untyped-def]
    """Value for ``player`` (store difference) of a depth-limited alpha-beta search.

    An explicit stack of ``depth + 1`` frames, no recursion: a recursive numba
    kernel loaded from the cache in a second process crashes. Frame ``k``
    searches ``boards[k]`` for ``who[k]`` at remaining depth ``depth - k``; an
    extra turn keeps the window and the sign (``same[k]``), a change of mover
    negates both.
    """
    if depth <= 0:
        return board[player * (m + 1) + m] - board[(1 - player) * (m + 1) + m]
    boards = np.empty((depth + 1, board.shape[0]), board.dtype)
    who = np.empty(depth + 1, np.int64)
    alphas = np.empty(depth + 1, np.int64)
    betas = np.empty(depth + 1, np.int64)
    best = np.empty(depth + 1, np.int64)
    nxt_pit = np.empty(depth + 1, np.int64)
    same = np.empty(depth + 1, np.int64)
    boards[0] = board
    who[0], alphas[0], betas[0], best[0], nxt_pit[0] = player, alpha, beta, -1_000_000, 0
    k = 0
    while True:
        p = who[k]
        pushed = False
        while nxt_pit[k] < m:
            i = nxt_pit[k]
            nxt_pit[k] += 1
            if boards[k, p * (m + 1) + i] == 0:
                continue
            child = boards[k + 1]
            child[:] = boards[k]
            nxt = kernel.sow(child, p, i, m, empty_capture, end_rule)
            if nxt >= 0 and k + 1 < depth:
                who[k + 1], best[k + 1], nxt_pit[k + 1] = nxt, -1_000_000, 0
                if nxt == p:
                    alphas[k + 1], betas[k + 1], same[k + 1] = alphas[k], betas[k], 1
                else:
                    alphas[k + 1], betas[k + 1], same[k + 1] = -betas[k], -alphas[k], 0
                k += 1
                pushed = True
                break
            v = child[p * (m + 1) + m] - child[(1 - p) * (m + 1) + m]  # over, or a leaf
            best[k] = max(best[k], v)
            alphas[k] = max(alphas[k], v)
            if alphas[k] >= betas[k]:
                nxt_pit[k] = m
        if pushed:
            continue
        if k == 0:
            return best[0]
        v = best[k] if same[k] == 1 else -best[k]
        k -= 1
        best[k] = max(best[k], v)
        alphas[k] = max(alphas[k], v)
        if alphas[k] >= betas[k]:
            nxt_pit[k] = m


def _root_values(board, player, depth, m, empty_capture, end_rule):  # type: ignore[no-untyped-def]
    """Exact depth-limited value of every root move (-10**9 for illegal pits)."""
    out = np.full(m, -1_000_000_000, np.int64)
    base = player * (m + 1)
    for i in range(m):
        if board[base + i] == 0:
            continue
        child = board.copy()
        nxt = kernel.sow(child, player, i, m, empty_capture, end_rule)
        if nxt < 0:
            out[i] = child[player * (m + 1) + m] - child[(1 - player) * (m + 1) + m]
        elif nxt == player:
            out[i] = _negamax(child, player, depth - 1, -1_000_000, 1_000_000, m, empty_capture,
                              end_rule)
        else:
            out[i] = -_negamax(child, nxt, depth - 1, -1_000_000, 1_000_000, m, empty_capture,
                               end_rule)
    return out


def alphabeta_root_values(state: KalahState, depth: int) -> np.ndarray:
    """Depth-limited values (store difference for the mover) of every pit; illegal = -1e9."""
    g = state.kgame
    # a numba kernel without annotations
    values: np.ndarray = _root_values(  # type: ignore[no-untyped-call]
        state.board, state.current_player, max(1, depth), g.pits, g.empty_capture, g.end_rule)
    return values


@dataclass(frozen=True)
class AlphaBetaParams:
    """``alphabeta``: its parameter declared once."""

    depth: int = param(6, "search depth in moves (an extra turn counts as a move)", (1, 30))

    def __post_init__(self) -> None:
        check_declared("alphabeta", self)


class AlphaBetaAgent(Agent):
    """Depth-limited alpha-beta; evaluation = store difference. Ties at random (seeded)."""

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(game, seed)
        self.depth = AlphaBetaParams(**params).depth

    def act(self, info_state: InfoState) -> int:
        state = _kalah_state(info_state)
        values = alphabeta_root_values(state, self.depth)
        best = np.flatnonzero(values == values.max())
        return int(best[int(self.rng.integers(len(best)))])


def _greedy(game: Game, seed: int | None = None) -> Agent:
    if not isinstance(game, KalahGame):
        raise SpielwerkError("greedy (kalah) needs a Kalah game")
    return GreedyAgent(game, seed)


register_agent("greedy", _greedy, {}, "largest immediate store gain, extra turns first", ("kalah",))
register_declared("alphabeta", AlphaBetaAgent, AlphaBetaParams,
                  "depth-limited alpha-beta, store difference evaluation", ("kalah",))
