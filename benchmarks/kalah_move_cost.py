"""Where a Kalah move's time goes through the Python API, ours beside pyspiel's ``mancala``.

    .venv/bin/python benchmarks/kalah_move_cost.py [--games 2000] [--rounds 6]

Three views of the same costs (Kalah(6,4), CPU time, nanoseconds):

* **each call alone** (``timeit``, the best of 5): the state's methods of both libraries, and
  a call into a do-nothing compiled kernel through its entry point with int arguments and
  with the board array, with and without numba's reference counting (``kernel.step``
  runs without: what every ``apply`` pays to reach the kernel);
* **each call in the loop**: the benchmark's natural random-game loop
  (``api_speed.py``) with one more call of a method per move; the extra time per move is
  what that call costs where the ratio to pyspiel is measured (caches and branch
  predictors as in play; every loop, the plain one too, calls a hook per move that makes
  the extra call, so the hook's own cost cancels);
* **apply by replay**: recorded games replayed through ``apply``, through the kernel's
  entry point alone, and inside one compiled loop (the kernel's own work).

Prints the figures and the machine; never fails on time.
"""

from __future__ import annotations

import argparse
import random
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from spielwerk import load_game
from spielwerk._jit import direct, njit_no_refcount
from spielwerk.core.machine import describe
from spielwerk.games.kalah import kernel

SPEC = "kalah(pits=6,seeds=4)"


@njit(cache=True)
def _nothing(board: np.ndarray, code: int, action: int) -> int:
    return code + action


@njit_no_refcount()
def _nothing_plain(board: np.ndarray, code: int, action: int) -> int:
    return code + action


@njit(cache=True)
def _nothing_ints(address: int, code: int, action: int) -> int:
    return code + action


@njit(cache=True)
def _replay(actions: np.ndarray, start: np.ndarray, code0: int) -> int:
    moves = 0
    for i in range(actions.shape[0]):
        board = start.copy()
        code = code0
        for j in range(actions.shape[1]):
            if actions[i, j] < 0:
                break
            code = kernel.step(board, code, actions[i, j])
            moves += 1
    return moves


@njit(cache=True)
def _copies(actions: np.ndarray, start: np.ndarray) -> int:
    total = 0
    for _ in range(actions.shape[0]):
        total += start.copy()[0]
    return total


def best_of(stmt: str, env: dict[str, object], number: int = 200_000) -> float:
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=5)) / number * 1e9


def calls_alone() -> None:
    import pyspiel

    ours = load_game(SPEC).new_initial_state()
    ours.apply(2)
    theirs = pyspiel.load_game("mancala").new_initial_state()
    theirs.apply_action(3)
    board = ours.board
    env: dict[str, object] = {
        "s": ours, "p": theirs, "board": board, "rng": random.Random(1),
        "nothing": direct(_nothing, board, 0, 0), "ints": direct(_nothing_ints, 0, 0, 0),
        "plain": direct(_nothing_plain, board, 0, 0)}
    print("\n## each call alone (timeit, ns)")
    print(f"{'call':22s} {'spielwerk':>10s} {'pyspiel':>10s}")
    for ours_call, theirs_call in (("is_terminal()", "is_terminal()"),
                                   ("is_chance_node()", "is_chance_node()"),
                                   ("legal_actions()", "legal_actions()"),
                                   ("returns()", "returns()")):
        print(f"{ours_call:22s} {best_of('s.' + ours_call, env):10.1f} "
              f"{best_of('p.' + theirs_call, env):10.1f}")
    print(f"{'rng.randrange(5)':22s} {best_of('rng.randrange(5)', env):10.1f}")
    print(f"kernel entry point, ints {best_of('ints(0, 1, 2)', env):8.1f}   "
          f"with the board {best_of('nothing(board, 1, 2)', env):.1f}, the board without "
          f"reference counting (as kernel.step) {best_of('plain(board, 1, 2)', env):.1f}")


HOOKS: dict[str, Callable[[Any, random.Random], object]] = {
    "none": lambda s, r: None,
    "is_terminal": lambda s, r: s.is_terminal(),
    "is_chance_node": lambda s, r: s.is_chance_node(),
    "legal_actions": lambda s, r: s.legal_actions(),
    "randrange": lambda s, r: r.randrange(5),
    "current_player": lambda s, r: s.current_player,
}
"""One more call per move; every loop calls its hook, so the hook's own call cancels out."""


def _loop(extra: str) -> Callable[[int], int]:
    game = load_game(SPEC)
    hook = HOOKS[extra]

    def one(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            hook(state, rng)
            if not state.is_chance_node():
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
            moves += 1
        state.returns()
        return moves

    return one


def calls_in_loop(games: int, rounds: int) -> None:
    names = tuple(HOOKS)
    loops = {n: _loop(n) for n in names}
    for loop in loops.values():
        for seed in range(200):
            loop(seed)
    cpu = dict.fromkeys(names, 0.0)
    moves = 0
    for _ in range(rounds):
        for name in names:
            t0 = time.process_time()
            n = sum(loops[name](seed) for seed in range(games))
            cpu[name] += time.process_time() - t0
        moves += n
    base = cpu["none"] / moves * 1e9
    print(f"\n## each call in the loop ({rounds} rounds of {games} games; the loop alone "
          f"{base:.0f} ns per move)")
    for name in names[1:]:
        print(f"{name:22s} {cpu[name] / moves * 1e9 - base:8.1f} ns per move")


def apply_by_replay(games: int) -> None:
    game = load_game(SPEC)
    histories = []
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        histories.append(state.history)
    start = game.new_initial_state()
    step = direct(kernel.step, start.board, 0, 0)

    def through_apply() -> None:
        for h in histories:
            s = game.new_initial_state()
            for a in h:
                s.apply(a)

    def through_step() -> None:
        for h in histories:
            s = game.new_initial_state()
            board, code = s.board, s._code
            for a in h:
                code = step(board, code, a)

    def empty() -> None:
        for h in histories:
            game.new_initial_state()
            for _a in h:
                pass

    moves = sum(map(len, histories))
    cost = {}
    for name, fn in (("apply", through_apply), ("step", through_step), ("empty", empty)):
        fn()
        t0 = time.process_time()
        for _ in range(3):
            fn()
        cost[name] = (time.process_time() - t0) / (3 * moves) * 1e9
    width = max(map(len, histories))
    actions = np.full((len(histories), width), -1, np.int64)
    for i, h in enumerate(histories):
        actions[i, : len(h)] = h
    _replay(actions, start.board, start._code)
    _copies(actions, start.board)
    t0 = time.process_time()
    for _ in range(20):
        _replay(actions, start.board, start._code)
    t1 = time.process_time()
    for _ in range(20):
        _copies(actions, start.board)
    own = ((t1 - t0) - (time.process_time() - t1)) / (20 * moves) * 1e9
    print(f"\n## apply by replay ({games} recorded games, {moves:,} moves)")
    print(f"apply {cost['apply'] - cost['empty']:.0f} ns per move; the kernel call alone "
          f"{cost['step'] - cost['empty']:.0f} ns; the kernel's own work {own:.0f} ns")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    print(f"machine: {describe()}")
    calls_alone()
    calls_in_loop(args.games, args.rounds)
    apply_by_replay(args.games)


if __name__ == "__main__":
    main()
