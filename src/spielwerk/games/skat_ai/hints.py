"""Hints for the person at a Skat table, computed from their info state only.

* Bidding and the skat (hand game or pick up): the ``knn`` engine's decision for
  the ten cards dealt - its highest bid, its game - and every game's expected
  Seeger-Fabian list score from the calibrated win chance of its neighbours'
  value (:func:`bidding.options`, the numbers ``decision=score`` compares); where it
  would pick up, the game it then declares over skats drawn from the info state.
* Putting and declaring after picking up: for each game the engine's put of the
  twelve cards, the neighbours' value, win chance and expected list score (the
  numbers :func:`putting.choose_game` weighs), and the engine's own choice.
* A card: for each legal card its PIMC win share (the share of sampled worlds,
  solved double-dummy, in which the player's side still reaches its goal after
  that card) and its expected final card points of the player's side.

Every number comes from ``state.info_state(seat)`` (:func:`hint_for`): a hidden card
cannot change a hint, which the tests check by giving another world with the same
info state. The web table asks for it through the game's table face
(:func:`spielwerk.core.table_face.register_advice`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.games.skat import rules as R
from spielwerk.games.skat.cards import GAME_NAMES, NULL, card_to_string, mask_to_string
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.table import label

HINT_WORLDS = 24
"""Worlds of a card hint's win shares (each world solved for every legal card)."""
HINT_POINT_WORLDS = 12
"""Worlds of its expected card points (exact values cost about ten times more)."""
HINT_TIME_S = 10.0
"""Seconds at least for each of a card hint's two PIMC runs (more where the table's engine
time is more). Each stops once its worlds are solved (a second or two on an idle machine);
the time stops it earlier on a loaded one, and the hint then says so. The first world is
the dearest (the solver's table is still empty: three times the mean at the first card),
and the 3 s the hints had before, judged from it, ended a loaded machine's hint after one
world."""
PICKUP_SKATS = 12
"""Skats drawn from what the seat knows to tell which game the engine declares after
picking up (its put and game for each: milliseconds)."""


def _game_text(game: int, hand: bool, ouvert: bool = False) -> str:
    text = GAME_NAMES[game]
    if ouvert:
        text += " ouvert"
    return text + (" hand" if hand else "")


def _knn(game: Any, seed: int) -> Any:
    from spielwerk.games.skat_ai.knn_agent import SkatKnnAgent

    agent = make_agent("knn", game, seed=seed)
    assert isinstance(agent, SkatKnnAgent)
    return agent


def _engine_choice(agent: Any, info: SkatInfoState) -> str:
    return label(int(agent.act(info)))[0]


def after_pickup(agent: Any, info: SkatInfoState, seed: int) -> list[dict[str, Any]]:
    """The games the engine declares after picking up (its put and game for the twelve
    cards), over :data:`PICKUP_SKATS` skats drawn from what the seat knows: each game with
    the number of those skats, most first."""
    rng = np.random.default_rng([seed, 11])
    counts: dict[str, int] = {}
    for _ in range(PICKUP_SKATS):
        world = info.sample_world(rng)
        world.apply(R.PICKUP)
        d = agent.put_decision(world.info_state(info.player))
        name = _game_text(d.game, False, d.ouvert)
        counts[name] = counts.get(name, 0) + 1
    return [{"game": g, "skats": n}
            for g, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]


def _then_text(games: list[dict[str, Any]]) -> str:
    """``then it declares clubs (9 of 12 skats you cannot rule out), grand (3)``."""
    first, rest = games[0], games[1:]
    total = sum(int(g["skats"]) for g in games)
    text = (f"then it declares {first['game']} ({first['skats']} of {total} skats you "
            "cannot rule out")
    return text + "".join(f"; {g['game']} in {g['skats']}" for g in rest) + ")"


def bid_hint(info: SkatInfoState, seed: int) -> dict[str, Any]:
    """The engine's bid and game for the ten cards dealt, and each game's expected list
    score (with and without the skat), best first; before picking up, the game it would
    declare after picking up (over skats drawn from what the seat knows)."""
    from spielwerk.games.skat_ai.bidding import options as game_options

    agent = _knn(info.game, seed)
    position = agent.position(info.player)
    d = agent.bid_decision(info.own_dealt, position)
    options = sorted(game_options(info.own_dealt, agent.params, position, d),
                     key=lambda o: (-float(o[0]), -int(o[3])))
    action = int(agent.act(info))
    out: dict[str, Any] = {
        "kind": "bid",
        "engine": label(action)[0],
        "max_bid": int(d.max_bid) if d.game >= 0 else None,
        "game": None if d.game < 0 else _game_text(d.game, d.hand_game, d.ouvert),
        "options": [{"game": _game_text(g, is_hand, ouvert), "value": int(value),
                     "expected": round(float(e), 1)} for e, g, is_hand, value, ouvert
                    in options[:8]],
    }
    if info.phase == R.SKAT and action == R.PICKUP:
        out["after_pickup"] = after_pickup(agent, info, seed)
        out["then"] = _then_text(out["after_pickup"])
    return out


def put_hint(info: SkatInfoState, seed: int) -> dict[str, Any]:
    """After picking up: each game's put of the twelve cards with its neighbours' value,
    win chance and expected list score at this bid, and the engine's choice."""
    from spielwerk.games.skat_ai.params import expected_score
    from spielwerk.games.skat_ai.putting import put_chance
    from spielwerk.games.skat_ai.winprob import game_value

    agent = _knn(info.game, seed)
    decision = agent.put_decision(info)
    twelve = info.hand | (info.put or 0)
    position = agent.position(info.player)
    rows: list[dict[str, Any]] = []
    for g, (put, value) in sorted(decision.per_game.items()):
        worth = max(game_value(twelve, g), info.bid)
        chance = put_chance(agent.params, (put, value), twelve, g, position)
        rows.append({"game": GAME_NAMES[g], "put": mask_to_string(put).split(),
                     "value": round(float(value), 1), "win": round(float(chance), 2),
                     "expected": round(expected_score(chance, worth,
                                                      agent.params.loss_bonus), 1)})
    rows.sort(key=lambda r: -float(r["expected"]))
    return {"kind": "put", "engine": _engine_choice(agent, info),
            "game": _game_text(decision.game, False, decision.ouvert),
            "put": mask_to_string(decision.put).split(), "options": rows}


def worlds_note(result: Any, stated: int, time_s: float) -> str | None:
    """Why a PIMC run of a hint solved fewer worlds than the ``stated`` number, in words
    (None: it solved them all)."""
    planned = int(result.details.get("planned", stated))
    n = int(result.worlds)
    if result.exhaustive and n < stated:
        return (f"only {n} world{'s are' if n != 1 else ' is'} consistent with what you "
                "know: all solved")
    if result.details.get("stopped") == "time":
        return f"the hint's time ({time_s:g} s) ran out after {n} of {planned} worlds"
    return None


def card_hint(info: SkatInfoState, seed: int, time_s: float) -> dict[str, Any]:
    """Each legal card's PIMC win share and expected final card points of the player's
    side (null: the defenders' tricks, the declarer's side wants none), each run given at
    least :data:`HINT_TIME_S` (``time_s`` 0: no limit); where a run solved fewer worlds
    than stated, the hint says why (``worlds_note``, ``point_worlds_note``)."""
    from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent

    cards = [a for a in info.legal_actions() if a < 32]
    if len(cards) == 1:
        return {"kind": "card", "worlds": 0, "forced": card_to_string(cards[0]), "cards": []}
    t = max(time_s, HINT_TIME_S) if time_s > 0 else 0.0
    runs = []
    for worlds, values in ((HINT_WORLDS, "win"), (HINT_POINT_WORLDS, "points")):
        runs.append(SkatPimcAgent(info.game, seed, worlds=worlds, time=t, values=values,
                                  prune=values != "win").decide(info))
    win, pts = runs
    null = info.contract is not None and info.contract.game == NULL
    scored = []
    for c in cards:
        share = win.totals.get(c, 0.0) / max(1, win.worlds)
        mean = pts.totals.get(c, 0.0) / max(1, pts.worlds)
        # null: the solver's value is the defenders' tricks from here (the declarer's side
        # counts them as its value, the defenders' as minus): shown as the tricks
        scored.append((share, mean, c))
    scored.sort(key=lambda r: (-r[0], -r[1], r[2]))
    rows = [{"card": card_to_string(c), "win": round(share, 3),
             "points": round(abs(mean) if null else mean, 1)} for share, mean, c in scored]
    return {"kind": "card", "worlds": win.worlds, "point_worlds": pts.worlds,
            "worlds_note": worlds_note(win, HINT_WORLDS, t),
            "point_worlds_note": worlds_note(pts, HINT_POINT_WORLDS, t),
            "exhaustive": win.exhaustive, "null": null, "cards": rows,
            "declarer": info.player == info.declarer}


def hint_for(info: SkatInfoState, seed: int, time_s: float = 0.0) -> dict[str, Any]:
    """The hint for the seat whose info state this is (see the module docstring)."""
    legal = info.legal_actions()
    if not legal:
        return {"kind": "none", "text": "it is not your turn"}
    if info.is_ramsch:
        return {"kind": "none", "text": "no hint in Ramsch (the engines' hints value a "
                                        "declared game)"}
    if info.phase in (R.BIDDING, R.SKAT):
        return bid_hint(info, seed)
    if info.phase in (R.PUT, R.DECLARE):
        return put_hint(info, seed)
    if R.PLAY_ON in legal:
        return {"kind": "none", "text": "a claim or concession is offered: no card hint"}
    if info.phase == R.PLAY:
        return card_hint(info, seed, time_s)
    return {"kind": "none", "text": "no hint here"}
