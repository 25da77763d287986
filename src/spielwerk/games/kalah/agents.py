"""Kalah agents: greedy and depth-limited alpha-beta (store difference evaluation)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.core.agent import Agent, register_agent
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
    """Value for ``player`` (store difference) of a depth-limited search."""
    own = board[player * (m + 1) + m]
    opp = board[(1 - player) * (m + 1) + m]
    if depth == 0:
        return own - opp
    best = -1_000_000
    base = player * (m + 1)
    for i in range(m):
        if board[base + i] == 0:
            continue
        child = board.copy()
        nxt = kernel.sow(child, player, i, m, empty_capture, end_rule)
        if nxt < 0:
            v = child[player * (m + 1) + m] - child[(1 - player) * (m + 1) + m]
        elif nxt == player:
            v = _negamax(child, player, depth - 1, alpha, beta, m, empty_capture, end_rule)
        else:
            v = -_negamax(child, nxt, depth - 1, -beta, -alpha, m, empty_capture, end_rule)
        if v > best:
            best = v
        if v > alpha:
            alpha = v
        if alpha >= beta:
            break
    return best


def _root_values(board, player, depth, m, empty_capture, end_rule):  # type: ignore[no-untyped-def]
    """Exact depth-limited value of every root move (-10**9 for illegal pits).

    Plain Python on purpose: a cached numba function that calls the recursive
    ``_negamax`` cannot be reloaded from numba's cache (it dies with a missing
    symbol), so only ``_negamax`` itself is compiled.
    """
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
    return _root_values(state.board, state.current_player, max(1, depth), g.pits,
                        g.empty_capture, g.end_rule)


class AlphaBetaAgent(Agent):
    """Depth-limited alpha-beta; evaluation = store difference. Ties at random (seeded)."""

    def __init__(self, game: Game, seed: int | None = None, depth: int = 6) -> None:
        super().__init__(game, seed)
        if depth < 1:
            raise SpielwerkError("alphabeta: depth must be at least 1")
        self.depth = depth

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
register_agent(
    "alphabeta",
    AlphaBetaAgent,
    {"depth": 6},
    "depth-limited alpha-beta, store difference evaluation",
    ("kalah",),
    {"depth": "search depth in moves (an extra turn counts as a move)"},
    {"depth": (1, 30)},
)
