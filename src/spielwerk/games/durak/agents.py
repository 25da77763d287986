"""Durak agents as in Zarlykov (2023): random, greedy, smart, minimax, mcts, ismcts.

The heuristic agents read :meth:`DurakInfoState.view` (own hand and public
facts only). The search agents sample worlds with ``sample_world`` and use
greedy playouts (numba, a few microseconds per game). Once the stock is empty
in a 2-player game every card is known, so the search agents switch to the
exact alpha-beta solver of :mod:`endgame` (falling back to their search if the
position is too big for the node budget); with ``paranoid=N`` they also search
endgames of three or more seats (stock empty), each seat against all the others,
over N sampled deals of the unseen cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spielwerk.core.agent import (
    Agent,
    AgentSpecError,
    check_declared,
    param,
    register_agent,
    register_declared,
)
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import Game, InfoState, State
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak import policies
from spielwerk.games.durak.endgame import (
    BUDGET_EXHAUSTED,
    paranoid_best,
    solve_best_counted,
    two_seat_state,
)
from spielwerk.games.durak.fast_ismcts import ismcts_durak
from spielwerk.games.durak.inference import card_weights, weighted_sampler
from spielwerk.games.durak.rules import DurakGame, DurakInfoState, DurakState
from spielwerk.mc.agents import (
    ISMCTSAgent,
    ISMCTSParams,
    MCTSAgent,
    MCTSParams,
    MinimaxAgent,
    minimax_time_param,
    search_budget,
    search_clock,
    worlds_param,
)
from spielwerk.mc.determinize import Sampler
from spielwerk.mc.mcts import Rollout

POLICIES = {"random": policies.POLICY_RANDOM, "greedy": policies.POLICY_GREEDY,
            "smart": policies.POLICY_SMART}


def _durak_info(info_state: InfoState) -> DurakInfoState:
    if not isinstance(info_state, DurakInfoState):
        raise SpielwerkError("this agent plays Durak only")
    return info_state


def _durak_game(game: Game) -> DurakGame:
    if not isinstance(game, DurakGame):
        raise AgentSpecError(f"this agent plays Durak only, not {game.name}")
    return game


def make_rollout(policy: str, eps: float = 0.0) -> Rollout:
    """A rollout that plays a Durak world to the end with a kernel policy; with ``eps`` > 0
    each of greedy's or smart's decisions is a random legal move with probability ``eps``."""
    if policy not in POLICIES:
        raise AgentSpecError(f"rollout must be one of {', '.join(POLICIES)}, not {policy!r}")
    code = POLICIES[policy]
    noisy = eps > 0 and code != policies.POLICY_RANDOM

    def rollout(state: State, rng: np.random.Generator) -> Sequence[float]:
        assert isinstance(state, DurakState)
        S = state.S
        seed = int(rng.integers(2**31 - 1)) if code == policies.POLICY_RANDOM or noisy else 0
        if noisy:
            policies.noisy_playout(S, code, eps, seed)
        else:
            policies.playout(S, code, 0.2, seed)
        out = np.zeros(state.dgame.players)
        K.returns_into(S, out)
        return out.tolist()

    return rollout


def endgame_seats(info: DurakInfoState) -> list[int]:
    """The seats still in play once the stock is empty (none before, or at the deal): those
    with cards, and mid-bout the attacker and defender (an attacker may have just played
    its last card)."""
    P = info.public
    if info.stock != 0 or P[K.PHASE] == K.PH_DEAL:
        return []
    return sorted({q for q in range(info.dgame.players) if info.hand_sizes[q] > 0}
                  | {int(P[K.ATTACKER]), int(P[K.DEFENDER])})


def known_endgame(info: DurakInfoState, rng: np.random.Generator) -> np.ndarray | None:
    """The whole position as a 2-player state once two seats are left in play with the
    stock empty (the other then holds exactly the cards ``info``'s player has not seen),
    else None."""
    seats = endgame_seats(info)
    if len(seats) != 2:
        return None
    world = info.sample_world(rng)  # unique: the opponent holds exactly the unseen cards
    return world.S if info.dgame.players == 2 else two_seat_state(world.S, (seats[0], seats[1]))


def endgame_counted(info: DurakInfoState, rng: np.random.Generator, nodes: int,
                    tt_bits: int = 20, worlds: int = 0) -> tuple[int | None, int]:
    """The exact best action once everything is known (stock empty, two seats with cards),
    else None; and the solver nodes it spent (0 where it did not solve).

    Known endgames: the stock is empty and two seats still hold cards (a 2-player game,
    or a bigger one where the others went out): the other seat then holds exactly the
    unseen cards. With ``worlds`` > 0 also endgames of three or more seats (stock empty):
    the paranoid search of :func:`~spielwerk.games.durak.endgame.paranoid_best` over that
    many sampled deals of the unseen cards."""
    if worlds < 0:
        raise SpielwerkError(f"endgame worlds must not be negative, not {worlds}")
    seats = endgame_seats(info)
    if len(seats) > 2:
        if worlds == 0:
            return None, 0
        action, used = paranoid_best([info.sample_world(rng).S for _ in range(worlds)],
                                     nodes, tt_bits)
        return action, used
    S = known_endgame(info, rng)
    if S is None:
        return None, 0
    (action, value), used = solve_best_counted(S, nodes, tt_bits)
    if value == BUDGET_EXHAUSTED:
        return None, used
    return int(action), used


SOLVER_SHARE = 0.4
"""Under a time budget the exact solver may use this share of the move's time (by its
measured speed); the search gets what is left, counted from the start of the move."""
SOLVER_START_RATE = 1_000_000.0
"""Solver nodes per second assumed before the first solve has been timed (cautious: it
searched 1.3-3 million per second on one core here)."""


def _table_bits(nodes: int) -> int:
    """Transposition table size for a node budget: about two slots per node, 2**12..2**20
    (allocating the full 2**20-slot table alone takes about 9 ms)."""
    return min(20, max(12, int(nodes).bit_length() + 1))


@dataclass(frozen=True)
class DurakRandomParams:
    """Durak's ``random``: its parameter declared once."""

    voluntary: float = param(0.2, "probability of a voluntary take or pass", (0, 1))

    def __post_init__(self) -> None:
        check_declared("random", self)


class DurakRandomAgent(Agent):
    """Uniformly random, but takes/passes voluntarily with probability ``voluntary``."""

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(_durak_game(game), seed)
        self.voluntary = DurakRandomParams(**params).voluntary

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if len(legal) > 1 and legal[-1] in (K.TAKE, K.PASS) and self.rng.random() < self.voluntary:
            return legal[-1]
        return legal[int(self.rng.integers(len(legal)))]


class DurakGreedyAgent(Agent):
    """Lowest card first (trumps above all plain cards), saves trumps while the stock lasts."""

    smart = False

    def __init__(self, game: Game, seed: int | None = None) -> None:
        super().__init__(_durak_game(game), seed)

    def decides_deterministically(self, info_state: InfoState) -> bool:
        return True  # no random choice anywhere

    def act(self, info_state: InfoState) -> int:
        info = _durak_info(info_state)
        return int(policies.greedy_action(info.view(), self.smart))


class DurakSmartAgent(DurakGreedyAgent):
    """Greedy plus the weakness rule: prefer cards the defender is known not to beat."""

    smart = True


class _EndgameMixin:
    """Durak's search agents: the generic search on a Durak game, the exact solver in known
    endgames, and rollouts by a kernel policy (where the search has rollouts)."""

    solver: bool
    solver_nodes: int
    rng: np.random.Generator
    params: Any

    def __init__(self, game: Game, seed: int | None = None, **params: Any) -> None:
        super().__init__(_durak_game(game), seed, **params)  # type: ignore[call-arg]
        p = self.params
        self.solver, self.solver_nodes = p.solver, p.solver_nodes
        self.solver_rate = SOLVER_START_RATE  # nodes per second, as measured
        if hasattr(p, "rollout"):
            self._rollout = make_rollout(p.rollout, p.rollout_eps)

    def rollout(self) -> Rollout:
        return self._rollout

    def act(self, info_state: InfoState) -> int:
        """A forced move at once; the exact solver in a known endgame; else the search.

        Under a time budget (``time``) the move's clock starts here: the solver gets at
        most :data:`SOLVER_SHARE` of it and the search the rest."""
        start = search_clock()
        legal = info_state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        exact = self._endgame(info_state)
        if exact is not None:
            return exact
        return int(self.search_action(info_state, start))  # type: ignore[attr-defined]

    def sampler(self, info_state: InfoState) -> Sampler | None:
        """Worlds weighted by the opponents' observed moves (``infer`` > 0), else uniform."""
        trust = float(getattr(self.params, "infer", 0.0))
        if trust <= 0:
            return None
        info = _durak_info(info_state)
        W = card_weights(info, trust)
        return None if W is None else weighted_sampler(info, W)

    def _endgame(self, info_state: InfoState) -> int | None:
        if not self.solver:
            return None
        info = _durak_info(info_state)
        seconds = float(getattr(self.params, "time", 0.0))
        worlds = int(getattr(self.params, "paranoid", 0))
        if seconds <= 0:  # iteration budgets: the fixed node budget, load-independent
            return endgame_counted(info, self.rng, self.solver_nodes, worlds=worlds)[0]
        nodes = max(1000, min(self.solver_nodes, int(self.solver_rate * SOLVER_SHARE * seconds)))
        t = search_clock()
        action, used = endgame_counted(info, self.rng, nodes, _table_bits(nodes), worlds)
        spent = search_clock() - t
        if used >= 2000 and spent > 0:
            self.solver_rate = 0.7 * self.solver_rate + 0.3 * used / spent
        return action


ROLLOUTS = ("greedy", "smart", "random")


def _rollout_param() -> Any:
    return param("greedy", "greedy, smart or random", ROLLOUTS)


def _solver_param() -> Any:
    return param(True, "exact solver once the 2-player stock is empty")


def _solver_nodes_param() -> Any:
    return param(300_000, "node budget of the solver (falls back to search)")


def _paranoid_param() -> Any:
    return param(0, "3+ seats, stock empty: paranoid search over this many sampled "
                 "deals of the unseen cards, within the solver's budget (0: off)", (0, 64))


def _rollout_eps_param() -> Any:
    return param(0.0, "chance of a random move at each step of a greedy/smart rollout", (0, 1))


def _infer_param() -> Any:
    return param(0.0, "weight sampled hands by the opponents' moves: trust in the greedy "
                 "model of them, 0 (uniform worlds) to 1", (0, 1))


@dataclass(frozen=True)
class DurakMCTSParams(MCTSParams):
    """The generic ``mcts`` parameters, Zarlykov's final choice, and Durak's own."""

    final: str = param("mean", "mean (Zarlykov) or visits", ("mean", "visits"))
    rollout: str = _rollout_param()
    rollout_eps: float = _rollout_eps_param()
    solver: bool = _solver_param()
    solver_nodes: int = _solver_nodes_param()
    paranoid: int = _paranoid_param()
    infer: float = _infer_param()


@dataclass(frozen=True)
class DurakISMCTSParams(ISMCTSParams):
    """The generic ``ismcts`` parameters and Durak's own."""

    engine: str = param("numba", "numba (the search compiled whole: several times the "
                        "iterations) or python (the generic search)", ("numba", "python"))
    threads: int = param(1, "trees searched at once on as many cores, root statistics "
                         "added up (numba engine)", (1, 64))
    bias: float = param(0.0, "progressive bias toward greedy's move (smart's with smart "
                        "rollouts) at the player's own nodes (numba engine; 0: none)",
                        (0, 100))
    bias_other: float = param(10.0, "the same at the other seats' nodes: models them as "
                              "playing their sampled hands the heuristic's way (numba "
                              "engine; 0: none; 10, the default, measured strongest)",
                              (0, 100))
    rollout: str = _rollout_param()
    rollout_eps: float = _rollout_eps_param()
    solver: bool = _solver_param()
    solver_nodes: int = _solver_nodes_param()
    paranoid: int = _paranoid_param()
    infer: float = _infer_param()


@dataclass(frozen=True)
class DurakMinimaxParams:
    """``minimax`` for Durak: worlds and depth as the generic one (the evaluation is a
    greedy playout, so there are no random playouts to count), and the endgame solver."""

    worlds: int = worlds_param("sampled worlds")
    depth: int = param(3, "plies searched", (1, 64))
    time: float = minimax_time_param()
    solver: bool = _solver_param()
    solver_nodes: int = _solver_nodes_param()
    paranoid: int = _paranoid_param()

    def __post_init__(self) -> None:
        check_declared("minimax", self)


class DurakMCTSAgent(_EndgameMixin, MCTSAgent):
    """Determinized MCTS with greedy rollouts; exact solver in 2-player endgames."""

    Params = DurakMCTSParams


class DurakISMCTSAgent(_EndgameMixin, ISMCTSAgent):
    """SO-ISMCTS with greedy rollouts; exact solver in 2-player endgames. The default
    engine runs the whole search compiled (:mod:`fast_ismcts`)."""

    Params = DurakISMCTSParams

    def search_action(self, info_state: InfoState, start: float) -> int:
        info = _durak_info(info_state)
        p = self.params
        if p.engine == "python" or info.open_state is not None or info.public[K.PHASE] == K.PH_DEAL:
            return super().search_action(info_state, start)
        weights = card_weights(info, p.infer) if p.infer > 0 else None
        res = ismcts_durak(
            info, **search_budget(p.iters, p.time), c=p.c, policy=POLICIES[p.rollout],
            eps=p.rollout_eps, rng=self.rng, weights=weights, threads=p.threads, start=start,
            bias=p.bias, bias_other=p.bias_other)
        return res.best("visits")


class DurakMinimaxAgent(_EndgameMixin, MinimaxAgent):
    """Determinized alpha-beta (worlds x depth), evaluation = greedy-vs-greedy playout."""

    Params = DurakMinimaxParams  # type: ignore[assignment]

    def evaluate(self, state: State, player: int) -> float:
        assert isinstance(state, DurakState)
        S = state.S.copy()
        policies.playout(S, policies.POLICY_GREEDY, 0.2, 0)
        out = np.zeros(state.dgame.players)
        K.returns_into(S, out)
        return float(out[player])


_G = ("durak",)
register_declared("random", DurakRandomAgent, DurakRandomParams,
                  "uniformly random; takes/passes voluntarily 20% of the time", _G)
register_agent("greedy", DurakGreedyAgent, {}, "lowest card first, trumps saved early", _G)
register_agent("smart", DurakSmartAgent, {}, "greedy plus the weakness rule and known cards", _G)
register_declared("mcts", DurakMCTSAgent, DurakMCTSParams,
                  "determinized MCTS, greedy rollouts, exact endgames", _G)
register_declared("ismcts", DurakISMCTSAgent, DurakISMCTSParams,
                  "SO-ISMCTS, greedy rollouts, exact endgames", _G)
register_declared("minimax", DurakMinimaxAgent, DurakMinimaxParams,
                  "determinized alpha-beta, greedy-playout evaluation, exact endgames", _G)
