"""Skat card play by PIMC over the double-dummy solver (spec ``pimc:worlds=64``).

For each card decision the agent samples worlds from its info state, solves
every world with :mod:`dds` for every legal card, and plays the card that is
best in the most worlds (ties: most total value, then seeded random). Values:

* ``values=points`` (default, as the seed describes): the declarer's final
  card points under perfect play (defenders use 120 minus that); in null,
  the number of tricks the defenders take (the declarer wants all of them);
* ``values=win``: 1 if the declarer's side reaches its goal (61, 90 when
  schneider is announced, every trick when schwarz is announced; null: no
  declarer trick), else 0 - cheaper, since threshold tests prune more.

Bidding, the skat and the declaration come from the rule baseline
(:class:`SkatRuleAgent`), so matches compare card play with the contract
fixed by the baseline bidder. Offers to concede are declined, as the
baseline does.
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.agent import Agent, AgentSpecError, register_agent
from spielwerk.core.game import Game, InfoState
from spielwerk.games.skat import kernel
from spielwerk.games.skat.agents import SkatRuleAgent
from spielwerk.games.skat.dds import (
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    DealPosition,
    Solver,
    SolverConfig,
)
from spielwerk.games.skat.position import deal_from_state
from spielwerk.games.skat.rules import PLAY, PLAY_ON, SkatInfoState
from spielwerk.mc.pimc import PimcResult, pimc_search


def goal_query(info: SkatInfoState) -> str:
    """The solver query that decides the declarer's win in this contract."""
    contract = info.contract
    assert contract is not None
    if contract.game == kernel.NULL:
        return "null"
    if contract.schwarz_announced:
        return "schwarz"
    if contract.schneider_announced:
        return "90"
    return "61"


class SkatPimcAgent(Agent):
    """PIMC card play with the double-dummy solver; rule baseline elsewhere."""

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        worlds: int = 64,
        time: float = 0.0,
        values: str = "points",
    ) -> None:
        super().__init__(game, seed)
        if worlds < 1:
            raise AgentSpecError(f"pimc: worlds must be at least 1, not {worlds}")
        if time < 0:
            raise AgentSpecError(f"pimc: time must be >= 0 seconds, not {time}")
        if values not in ("points", "win"):
            raise AgentSpecError(f"pimc: values must be 'points' or 'win', not {values!r}")
        self.worlds = worlds
        self.time_limit = time if time > 0 else None
        self.values = values
        self.solver = Solver(SolverConfig(tt_log2=20))
        self.fallback = SkatRuleAgent(game, seed)
        self.last: PimcResult | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fallback.reset(seed)

    def inform(self, action: int) -> None:
        self.fallback.inform(action)

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if not isinstance(info_state, SkatInfoState) or not legal:
            return self.fallback.act(info_state)
        if PLAY_ON in legal:
            return PLAY_ON
        if info_state.phase != PLAY or info_state.contract is None:
            return self.fallback.act(info_state)  # bidding, skat, declaration, Ramsch
        cards = [a for a in legal if a < 32]
        if len(cards) == 1:
            return cards[0]
        self.last = self.decide(info_state)
        return self.last.action

    def decide(self, info: SkatInfoState) -> PimcResult:
        """Run PIMC for the card to play now."""
        query = goal_query(info)
        me_declarer = info.player == info.declarer

        def sample(rng: Any) -> DealPosition:
            return deal_from_state(info.sample_world(rng))

        def solve(pos: DealPosition) -> dict[int, float]:
            return self.card_values(pos, query, me_declarer)

        return pimc_search(
            sample, solve, self.rng, worlds=self.worlds, time_limit=self.time_limit
        )

    def card_values(self, pos: DealPosition, query: str, me_declarer: bool) -> dict[int, float]:
        """Value of each legal card in one world, from the mover's side (higher is better)."""
        if self.values == "win":
            won = self.solver.move_values(pos, query)
            return {c: float(bool(v) == me_declarer) for c, v in won.items()}
        if pos.game == kernel.NULL:
            if pos.declarer_tricks > 0:  # already lost: nothing to choose by
                return {c: 0.0 for c in self.solver.move_values(pos, "null")}
            raw = self.solver.remaining_move_values(pos, MODE_DEFENDER_TRICKS)
            return {c: float(v if me_declarer else -v) for c, v in raw.items()}
        raw = self.solver.remaining_move_values(pos, MODE_POINTS)
        final = {c: pos.declarer_points + v for c, v in raw.items()}
        return {c: float(v if me_declarer else 120 - v) for c, v in final.items()}


register_agent(
    "pimc",
    SkatPimcAgent,
    {"worlds": 64, "time": 0.0, "values": "points"},
    "PIMC card play: sampled worlds solved double-dummy, the card best in most worlds",
    games=("skat",),
    parameter_help={
        "worlds": "worlds sampled per card decision",
        "time": "seconds per decision (0: no limit; stops sampling early)",
        "values": "points (final card points, as the seed) or win (goal reached 1/0)",
    },
)
