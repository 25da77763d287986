"""Hints for the person at a Durak table, worked out from their info state only.

* A known endgame (the stock empty and two seats with cards: the other holds exactly the
  cards the person has not seen): the exact result of every legal move under best play
  (the solver of :mod:`endgame`, as the engines play it).
* Otherwise the ``ismcts`` engine's search with its default settings (the table's strongest
  measured opponent) from the info state, a fixed number of iterations and no clock: for
  every legal move the share of the iterations that chose it and its mean result. The same
  info state and seed give the same hint on any machine.

The web table asks for it through the game's table face
(:func:`spielwerk.core.table_face.register_advice`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.games.durak.rules import DurakInfoState, describe_action

HINT_ITERATIONS = 20_000
"""ISMCTS iterations of a hint (a fraction of a second compiled; the web server's own limit
on a hint task guards a very slow machine)."""
HINT_SOLVER_NODES = 2_000_000
"""Solver nodes for an endgame hint's exact values (beyond them the search's hint)."""
RESULT_TEXT = {1: "win", 0: "draw", -1: "lose"}


def _result_range(players: int) -> str:
    return (f"-1 if you end as the durak, {1 / (players - 1):+.2g} if another does, 0 for a "
            "draw")


def _known_endgame(info: DurakInfoState, seed: int) -> dict[str, Any] | None:
    """Exact values of every legal move once the other seat's cards are known."""
    from spielwerk.games.durak.agents import known_endgame
    from spielwerk.games.durak.endgame import BUDGET_EXHAUSTED, solve_root

    S = known_endgame(info, np.random.default_rng(seed))
    if S is None:
        return None
    rows = solve_root(S, HINT_SOLVER_NODES, 20)
    if len(rows) == 0 or int(rows[0][1]) == BUDGET_EXHAUSTED:
        return None
    values = {int(a): int(v) for a, v in rows}
    best = max(values.values())
    order = sorted(values, key=lambda a: (-values[a], a))
    return {
        "kind": "moves",
        "text": (f"every card is known: with best play on both sides you {RESULT_TEXT[best]}"
                 + (" whatever you play" if len(set(values.values())) == 1 else
                    f" after {' or '.join(describe_action(a) for a in order if values[a] == best)}"
                    )),
        "columns": ["move", "result with best play"],
        "rows": [[describe_action(a), RESULT_TEXT[values[a]]] for a in order],
        "best": [a for a in order if values[a] == best],
        "exact": True,
    }


def _search(info: DurakInfoState, seed: int) -> dict[str, Any]:
    from spielwerk.games.durak.agents import POLICIES, DurakISMCTSParams
    from spielwerk.games.durak.fast_ismcts import ismcts_durak
    from spielwerk.games.durak.inference import card_weights

    p = DurakISMCTSParams()
    weights = card_weights(info, p.infer) if p.infer > 0 else None
    res = ismcts_durak(info, iterations=HINT_ITERATIONS, c=p.c,
                       policy=POLICIES[p.rollout], eps=p.rollout_eps,
                       rng=np.random.default_rng(seed), weights=weights, bias=p.bias,
                       bias_other=p.bias_other)
    total = max(1, sum(res.visits.values()))
    game_type = info.game.game_type
    lo, span = float(game_type.min_utility), float(game_type.max_utility - game_type.min_utility)
    legal = info.legal_actions()
    order = sorted(legal, key=lambda a: (-res.visits.get(a, 0), -res.values.get(a, 0.0), a))
    best = res.best("visits")
    return {
        "kind": "moves",
        "text": (f"ISMCTS over hands you cannot rule out, {res.iterations:,} iterations:"
                 f" it prefers {describe_action(best)}; a move's mean result: "
                 f"{_result_range(info.dgame.players)}"),
        "columns": ["move", "chosen in", "mean result"],
        "rows": [[describe_action(a), f"{res.visits.get(a, 0) / total:.0%}",
                  f"{lo + span * res.values.get(a, 0.5):+.2f}" if res.visits.get(a) else "—"]
                 for a in order],
        "best": [best],
        "exact": False,
    }


def hint(info: Any, seed: int, time_s: float) -> dict[str, Any]:
    """The hint for ``info``'s player (see the module's text); ``time_s``, the table's
    time, is not used: a fixed amount of work makes the hint reproducible."""
    assert isinstance(info, DurakInfoState)
    legal = info.legal_actions()
    if len(legal) == 1:
        only = describe_action(legal[0])
        return {"kind": "moves", "text": f"only one move: {only}", "columns": [], "rows": [],
                "best": legal, "exact": True}
    exact = _known_endgame(info, seed)
    if exact is not None:
        return exact
    if info.open_state is not None:  # every card open: the engine's own move, as it plays
        choice = int(make_agent("ismcts", info.game, seed=seed).act(info))
        return {"kind": "moves", "text": f"every card is open: the ismcts engine plays "
                f"{describe_action(choice)}", "columns": [], "rows": [], "best": [choice],
                "exact": False}
    return _search(info, seed)
