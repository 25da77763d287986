"""Skat putting for the bots and the command line: the strategies by name.

:func:`bot_put` is the ``knn`` bot's decision: the game chosen by KNN
(:func:`knowledge.knn.knn_put`), the two cards put by the named strategy -
``knn`` (the neighbours), ``refined`` (:func:`selection.refined_put`),
``random`` or ``pimc`` (:func:`selection.pimc_put`) - from the declarer's
position. :func:`put_for_game` is ``skat put --game`` (docs/skat-selection.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spielwerk.games.skat.knowledge.knn import KnnModel, KnnParams, PutDecision, knn_put
from spielwerk.games.skat.selection import (
    GAME_KEYS,
    SelectionError,
    _check,
    all_puts,
    pimc_put,
    random_put,
    refined_put,
)

PIMC_PUT_WORLDS = 8
GAME_BY_NAME = {name: g for g, name in enumerate(GAME_KEYS)}
PUTTINGS = ("knn", "refined", "random", "pimc")


def bot_put(model: KnnModel, twelve: int, bid: int, params: KnnParams | None, putting: str,
            position: int = 0, prefer: int = -1, choose_by_put: bool = False) -> PutDecision:
    """The bot's putting decision: the game as KNN chooses it (:func:`knn_put`), the put by
    ``putting`` (knn, refined, random, pimc) for that game, from the declarer's ``position``.

    ``choose_by_put`` (refined only): the games are compared by the neighbours' values of
    the refined put of each game instead of the KNN put's; ``prefer``: the game bid on (see
    :func:`knn_put`)."""
    twelve = _check(twelve, 0, position)
    if putting not in PUTTINGS:
        raise SelectionError(f"putting must be one of {', '.join(PUTTINGS)}, not {putting!r}")
    if putting == "refined" and choose_by_put:
        d = knn_put(model, twelve, bid, params, position, prefer=prefer,
                    put_for=lambda g: refined_put(twelve, g, position, bid).put)
        return d
    d = knn_put(model, twelve, bid, params, position, prefer=prefer)
    if putting == "knn":
        return d
    if putting == "refined":
        s = refined_put(twelve, d.game, position, bid)
        put, value, n = s.put, s.scores[s.put], len(s.candidates)
    elif putting == "random":
        put, value, n = random_put(twelve, np.random.default_rng([twelve, d.game])), 0.0, 66
    else:
        r = pimc_put(twelve, d.game, position, PIMC_PUT_WORLDS,
                     np.random.default_rng([twelve, d.game]))
        put, value, n = r.put, r.scores[r.put], len(r.candidates)
    return PutDecision(put, d.game, value, n, d.per_game, d.ouvert)


def put_for_game(twelve: int | Any, game: int, putting: str, position: int = 0,
                 bid: int = 18, model: KnnModel | None = None, worlds: int = PIMC_PUT_WORLDS,
                 seed: int = 0) -> dict[str, Any]:
    """One putting decision for a fixed game, as the ``skat put --game`` JSON object:
    ``{"put": [c1, c2], "game": ..., "putting": ..., "candidates": N, "scores": {...}}``.

    ``candidates`` are the puts the strategy ranks (refined and pimc: those left by the
    hard rules; knn: its own pruning; random: all 66, unscored)."""
    from spielwerk.games.skat.cards import mask_to_string

    twelve = _check(twelve, game, position)
    if putting not in PUTTINGS:
        raise SelectionError(f"putting must be one of {', '.join(PUTTINGS)}, not {putting!r}")
    scores: dict[int, float] = {}
    if putting == "refined":
        s = refined_put(twelve, game, position, bid)
        put, candidates, scores = s.put, s.candidates, s.scores
    elif putting == "random":
        candidates = all_puts(twelve)
        put = random_put(twelve, np.random.default_rng([seed, twelve]))
    elif putting == "pimc":
        r = pimc_put(twelve, game, position, worlds, np.random.default_rng([seed, twelve]))
        put, candidates, scores = r.put, r.candidates, r.scores
    else:
        if model is None:
            raise SelectionError("knn putting needs a knowledge-base model")
        candidates = model.put_candidates(twelve, game)
        values = model.put_values(twelve, game, candidates)
        scores = {p: float(v) for p, v in zip(candidates, values, strict=True)}
        put = max(candidates, key=lambda p: (scores[p], -p))
    return {
        "put": mask_to_string(put).split(),
        "game": GAME_KEYS[game],
        "putting": putting,
        "candidates": len(candidates),
        "scores": {mask_to_string(p): round(v, 3) for p, v in
                   sorted(scores.items(), key=lambda kv: -kv[1])},
    }
