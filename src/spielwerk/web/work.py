"""The functions engine workers run: plain data in, plain data out.

Each rebuilds the state from the game spec and the action history (a game
record), so a worker never holds a table's state between tasks. An engine's
agent comes parsed (:class:`AgentSpec`): the server parses a seat's spec once
per move, and the time budget and the fallback's smaller search are set on
that object, never written back to text and parsed again.
"""

from __future__ import annotations

from spielwerk.core.agent import AgentSpec, list_agents, make_agent
from spielwerk.core.game import State
from spielwerk.core.registry import load_game
from spielwerk.core.table_face import table_face
from spielwerk.web.tasks import task


def replay(spec: str, history: list[int]) -> State:
    game = load_game(spec)
    state = game.new_initial_state()
    for a in history:
        state.apply(int(a))
    return state


def timed_spec(spec: AgentSpec, game_name: str, budget_s: float) -> AgentSpec:
    """Give an agent with a ``time`` parameter the table's budget unless the spec sets it,
    and keep it within that budget (``deadline=true``) where the agent can and the spec does
    not say otherwise."""
    entry = next((e for e in list_agents(game_name) if e.name == spec.name), None)
    raw = spec.params
    if entry is None or "time" not in entry.defaults or "time" in raw:
        return spec
    timed = spec.with_params(time=f"{budget_s:g}")
    strict = "deadline" in entry.defaults and "deadline" not in raw
    return timed.with_params(deadline=True) if strict else timed


# the search-size parameters an agent's own fallback turns down: fewer worlds, iterations,
# playouts, plies, and little time - the same agent, quickly
_SMALLER = {"worlds": 1, "iters": 20, "playouts": 1, "depth": 2, "time": 0.05}


def fallback_spec(spec: AgentSpec, game_name: str) -> AgentSpec:
    """The agent of ``spec`` with the smallest search (:data:`_SMALLER` for each parameter it
    has): what answers for an engine that did not answer in time or failed."""
    entry = next((e for e in list_agents(game_name) if e.name == spec.name), None)
    if entry is None:
        return spec
    raw, smaller = spec.params, {}
    for key, small in _SMALLER.items():
        if key in entry.defaults:
            current = float(raw.get(key, entry.defaults[key]))
            smaller[key] = f"{min(current, small):g}" if current > 0 else f"{small:g}"
    return spec.with_params(**smaller)


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
def engine_move(spec: str, history: list[int], seat: int, agent: AgentSpec, seed: int,
                budget_s: float) -> int:
    """The action ``agent`` chooses for ``seat`` after ``history`` (sees only its info state;
    the spec comes parsed, as the server parsed it once)."""
    state = replay(spec, history)
    if state.current_player != seat:
        raise ValueError(f"seat {seat} is not to move")
    bot = make_agent(timed_spec(agent, state.game.name, budget_s), state.game, seed=seed)
    action = int(bot.act(state.info_state(seat)))
    if action not in state.legal_actions():
        raise ValueError(f"agent {agent} chose an illegal action {action}")
    return action


def _sample_position(game_name: str, seed: int, stage: str) -> State:
    """A seeded position of ``game_name`` with a choice to make at the warm-up ``stage``
    (the game's table face names the stages, the agent that plays up to them and where
    each is; by default the first decision)."""
    import numpy as np

    from spielwerk.core.game import CHANCE, sample_chance

    game = load_game(game_name)
    face = table_face(game)
    for attempt in range(200):
        state = game.new_initial_state()
        rng = np.random.default_rng([seed, attempt])
        bot = face.warm_bot(stage)
        bots = {s: make_agent(bot, game, seed=s) for s in range(game.num_players)} if bot else {}
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            if not bots or face.at_stage(state, stage):
                return state
            seat = state.current_player
            state.apply(int(bots[seat].act(state.info_state(seat))))
    raise ValueError(f"no {game_name} position at {stage!r} found")


@task
def compile_kernels(games: list[str]) -> float:
    """Compile ``games``' kernels into the cache (their part of ``spielwerk warmup``: on a
    fresh machine the workers share the games out); returns the seconds taken."""
    from spielwerk.warmup import warm_up as compile_games

    return round(compile_games(games=games), 3)


@task
def warm_up(opponents: dict[str, str], budget_s: float = 0.05) -> dict[str, float]:
    """Load what the default opponents need before the first table asks (the knn model,
    the putting tables, the numba kernels of the solvers and searches): one small decision
    of each at every warm-up stage its game's table face names (``warm_stages``: the
    bidding, putting and card play where each loads something). Returns the seconds spent
    per game."""
    import time

    out = {}
    for game_name, agent in opponents.items():
        t0 = time.perf_counter()
        timed = timed_spec(AgentSpec.parse(agent), game_name, budget_s)
        for stage in table_face(load_game(game_name)).warm_stages:
            state = _sample_position(game_name, 1, stage)
            seat = state.current_player
            bot = make_agent(timed, state.game, seed=0)
            bot.act(state.info_state(seat))
        out[game_name] = round(time.perf_counter() - t0, 3)
    return out
