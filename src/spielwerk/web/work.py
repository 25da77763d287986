"""The functions engine workers run: plain data in, plain data out.

Each rebuilds the state from the game spec and the action history (a game
record), so a worker never holds a table's state between tasks.
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.agent import list_agents, make_agent, parse_agent_spec
from spielwerk.core.game import State
from spielwerk.core.registry import load_game
from spielwerk.web.tasks import task


def replay(spec: str, history: list[int]) -> State:
    game = load_game(spec)
    state = game.new_initial_state()
    for a in history:
        state.apply(int(a))
    return state


def timed_spec(spec: str, game_name: str, budget_s: float) -> str:
    """Give an agent with a ``time`` parameter the table's budget unless the spec sets it."""
    name, raw = parse_agent_spec(spec)
    entry = next((e for e in list_agents(game_name) if e.name == name), None)
    if entry is None or "time" not in entry.defaults or "time" in raw:
        return spec
    return f"{spec}:time={budget_s:g}"


# the search-size parameters an agent's own fallback turns down: fewer worlds, iterations,
# playouts, plies, and little time - the same agent, quickly
_SMALLER = {"worlds": 1, "iters": 20, "playouts": 1, "depth": 2, "time": 0.05}


def fallback_spec(spec: str, game_name: str) -> str:
    """The agent of ``spec`` with the smallest search (:data:`_SMALLER` for each parameter it
    has): what answers for an engine that did not answer in time or failed."""
    name, raw = parse_agent_spec(spec)
    entry = next((e for e in list_agents(game_name) if e.name == name), None)
    if entry is None:
        return spec
    params = dict(raw)
    for key, small in _SMALLER.items():
        if key in entry.defaults:
            current = float(raw.get(key, entry.defaults[key]))
            params[key] = f"{min(current, small):g}" if current > 0 else f"{small:g}"
    return ":".join([name, *(f"{k}={v}" for k, v in params.items())])


BASELINES = ("rule", "greedy")
"""The last resort when an engine and its fallback both failed: the game's deterministic
baseline agent (rules only, milliseconds), never a random move."""


def baseline_move(state: State, seat: int, seed: int) -> tuple[int, str]:
    """(action, agent) of the first of :data:`BASELINES` registered for the game."""
    names = {e.name for e in list_agents(state.game.name)}
    name = next(b for b in BASELINES if b in names)
    bot = make_agent(name, state.game, seed=seed)
    return int(bot.act(state.info_state(seat))), name


@task
def engine_move(spec: str, history: list[int], seat: int, agent: str, seed: int,
                budget_s: float) -> int:
    """The action ``agent`` chooses for ``seat`` after ``history`` (sees only its info state)."""
    state = replay(spec, history)
    if state.current_player != seat:
        raise ValueError(f"seat {seat} is not to move")
    bot = make_agent(timed_spec(agent, state.game.name, budget_s), state.game, seed=seed)
    action = int(bot.act(state.info_state(seat)))
    if action not in state.legal_actions():
        raise ValueError(f"agent {agent} chose an illegal action {action}")
    return action


def _sample_position(game_name: str, seed: int, stage: str) -> State:
    """A seeded position of ``game_name`` with a choice to make. Skat (reached with rule
    bots): ``"start"`` the first bid, ``"put"`` a declarer putting after picking up,
    ``"play"`` the card play of a declared game; the other games at the start."""
    import numpy as np

    from spielwerk.core.game import CHANCE, sample_chance

    game = load_game(game_name)
    for attempt in range(200):
        state = game.new_initial_state()
        rng = np.random.default_rng([seed, attempt])
        bots = {}
        if game_name == "skat" and stage != "start":
            bots = {s: make_agent("rule", game, seed=s) for s in range(game.num_players)}
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            if not bots or _at_stage(state, stage):
                return state
            seat = state.current_player
            state.apply(int(bots[seat].act(state.info_state(seat))))
    raise ValueError(f"no {game_name} position at {stage!r} found")


def _at_stage(state: State, stage: str) -> bool:
    from spielwerk.games.skat.rules import PLAY, PUT

    st: Any = state
    if stage == "put":
        return bool(st.phase == PUT)
    return bool(st.phase == PLAY and st.contract is not None
                and len([a for a in st.legal_actions() if a < 32]) > 1)


WARM_STAGES = {"skat": ("start", "put", "play")}
"""The decisions a warm-up makes per game (others: the start): Skat's bidding loads the
knn model, its putting builds the refined put's win-chance table (tens of seconds once per
process), its card play loads the double-dummy solver."""


@task
def warm_up(opponents: dict[str, str], budget_s: float = 0.05) -> dict[str, float]:
    """Load what the default opponents need before the first table asks (the knn model,
    the putting tables, the numba kernels of the solvers and searches): one small decision
    of each at every stage of :data:`WARM_STAGES`. Returns the seconds spent per game."""
    import time

    out = {}
    for game_name, agent in opponents.items():
        t0 = time.perf_counter()
        for stage in WARM_STAGES.get(game_name, ("start",)):
            state = _sample_position(game_name, 1, stage)
            seat = state.current_player
            bot = make_agent(timed_spec(agent, game_name, budget_s), state.game, seed=0)
            bot.act(state.info_state(seat))
        out[game_name] = round(time.perf_counter() - t0, 3)
    return out


@task
def skat_review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Double-dummy verdict per card (as ``spielwerk skat analyze``), keyed by ply."""
    from spielwerk.games.skat.analysis import analyze_state_history
    from spielwerk.games.skat.cards import card_to_string

    final = replay(spec, history)
    items = analyze_state_history(final)
    # map the i-th played card to its ply in the history
    plies = []
    probe = load_game(spec).new_initial_state()
    from spielwerk.games.skat.rules import PLAY

    for i, a in enumerate(history):
        if probe.phase == PLAY and a < 32:  # type: ignore[attr-defined]
            plies.append(i)
        probe.apply(a)
    out = []
    for ply, it in zip(plies, items, strict=False):
        out.append({
            "ply": ply, "card": card_to_string(it.card), "trick": it.trick,
            "declarer_side": it.declarer_side, "value_before": it.value_before,
            "value_after": it.value_after, "win_before": it.win_before,
            "win_after": it.win_after, "mistake": it.mistake, "decisive": it.decisive,
            "better": [card_to_string(c) for c in it.better],
        })
    return out


KALAH_MAX_SEEDS_IN_PLAY = 30
"""Positions with at most this many seeds in the pits are solved exactly in a review."""

KALAH_ESTIMATE_SECONDS = 0.25
"""Time for each larger position: depth-limited estimates, marked as such (as
``kalah analyze --time``), exact where the search finishes within it."""


@task
def kalah_review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Value of each legal move (final margin for the mover, as ``kalah analyze``) for
    every position of the game: exact with few enough seeds left in the pits, else the
    deepest estimate found in ``KALAH_ESTIMATE_SECONDS`` (``exact`` false, ``depth``)."""
    from spielwerk.games.kalah import kernel
    from spielwerk.games.kalah.perfect import analyze_within
    from spielwerk.games.kalah.solver import Solver

    game: Any = load_game(spec)
    state: Any = game.new_initial_state()
    m = game.pits
    solver = Solver(m, game.empty_capture, game.end_rule, max_seeds=2 * m * game.seeds,
                    egdb_seeds=0, tt_log2=20)
    out = []
    for ply, action in enumerate(history):
        board = state.board
        mover = state.current_player
        in_pits = int(board.sum()) - int(board[m]) - int(board[2 * m + 1])
        if game.end_rule == kernel.END_EITHER_EMPTY:
            rel = solver.relative(board, mover)
            if in_pits <= KALAH_MAX_SEEDS_IN_PLAY:
                move_values, depth = solver.analyze(rel).move_values, -1
            else:
                timed = analyze_within(solver, rel, KALAH_ESTIMATE_SECONDS)
                move_values, depth = timed.move_values, timed.depth
            diff = int(board[m] - board[2 * m + 1]) * (1 if mover == 0 else -1)
            values = {str(p + 1): int(v) + diff for p, v in sorted(move_values.items())}
            best = max(values.values())
            out.append({"ply": ply, "mover": mover, "move": str(action + 1), "values": values,
                        "best": best, "played": values.get(str(action + 1)),
                        "mistake": values.get(str(action + 1)) != best,
                        "exact": depth == -1, "depth": depth})
        state.apply(action)
    return out


@task
def durak_review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Exact endgame value (for the player to move: +1 win, 0 draw, -1 lose) of every
    2-player position once the stock is empty, and whether the move kept it."""
    from spielwerk.games.durak import kernel as K

    state: Any = load_game(spec).new_initial_state()
    if state.dgame.players != 2:
        return []
    # (ply, mover, value for the mover or None if over budget, best action, action played)
    solved: list[tuple[int, int, int | None, int, int]] = []
    for ply, action in enumerate(history):
        S = state.S
        if S[K.PHASE] not in (K.PH_DEAL, K.PH_OVER) and K.stock_size(S) == 0:
            best, value = K.solve_best(S.copy(), 1_000_000, 20)
            solved.append((ply, int(S[K.TO_MOVE]), None if value == -9 else int(value),
                           int(best), action))
        state.apply(action)
    final = state.returns() if state.is_terminal() else None
    out: list[dict[str, Any]] = []
    probe: Any = load_game(spec).new_initial_state()
    for i, (ply, mover, value, best, action) in enumerate(solved):
        if value is None:
            continue
        if i + 1 < len(solved) and solved[i + 1][0] == ply + 1:
            nxt = solved[i + 1]
            played = None if nxt[2] is None else (nxt[2] if nxt[1] == mover else -nxt[2])
        elif final is not None and ply == len(history) - 1:
            played = int(final[mover])
        else:
            played = None
        while len(probe.history) < ply:
            probe.apply(history[len(probe.history)])
        out.append({"ply": ply, "mover": mover, "value": value,
                    "best": probe.action_to_string(best),
                    "move": probe.action_to_string(action), "played": played,
                    "mistake": played is not None and played < value})
    return out
