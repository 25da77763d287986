"""Skat putting for the bots and the command line: the strategies by name (:data:`PUTTINGS`).

:func:`knn_put` is the seed's KNN putting with game choice: every put of 2 of the 12 cards
per game, pruned as the seed allows (no jacks, no trumps; all 66 for null), valued by the
neighbours with the skat's points taken out and the put's added; the best (game, put) is
declared, never a certainly overbid game while another is not (:func:`choose_game`).
:func:`bot_put` is the ``knn`` bot's decision: the game chosen by KNN, the two cards put by
the named strategy -
``knn`` (the neighbours), ``refined`` (:func:`selection.refined_put`),
``random`` or ``pimc`` (:func:`selection.pimc_put`) - from the declarer's
position. :func:`put_for_game` is ``skat put --game`` (docs/skat-selection.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spielwerk.games.skat.cards import GAME_NAMES, NULL, mask_to_string
from spielwerk.games.skat.scoring import BASE_VALUES, NULL_VALUES, suit_game_value
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.features import hand_count, null_count
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.null_model import all_safe, best_null_put, null_put_chance
from spielwerk.games.skat_ai.params import (
    KnnParams,
    expected_score,
    has_ouvert,
)
from spielwerk.games.skat_ai.selection import (
    SelectionError,
    _check,
    all_puts,
    pimc_put,
    random_put,
    refined_put,
)
from spielwerk.games.skat_ai.winprob import game_value

PIMC_PUT_WORLDS = 8
GAME_BY_NAME = {name: g for g, name in enumerate(GAME_NAMES)}
PUTTINGS = ("knn", "refined", "random", "pimc")


@dataclass
class PutDecision:
    """What :func:`decide_put` found for twelve cards."""

    put: int  # 2-card mask
    game: int
    value: float
    candidates: int
    per_game: dict[int, tuple[int, float]] = field(default_factory=dict)
    ouvert: bool = False

    @property
    def game_name(self) -> str:
        return GAME_NAMES[self.game]


def knn_put(model: KnnModel, twelve: int, bid: int, params: KnnParams | None = None,
            position: int = 0, put_for: Callable[[int], int] | None = None,
            prefer: int = -1) -> PutDecision:
    """The seed's KNN putting with game choice (see the module docstring); ``position``
    matters only for ``put_rules="hard"``. ``put_for(game)``, when given, is the put of each
    suit/grand game (another strategy's), valued by the neighbours and compared the same way.
    ``prefer`` (the game the hand was bid on) is kept unless another game's value is higher
    by more than ``params.switch_margin``."""
    p = params or KnnParams()
    games = list(range(6)) if p.extensions else list(range(5))
    per_game: dict[int, tuple[int, float]] = {}
    candidates = 0
    for g in games:
        if put_for is not None and g != NULL:
            put = put_for(g)
            per_game[g] = (put, float(model.put_values(twelve, g, [put], p.k)[0]))
            candidates += 1
            continue
        if g == NULL and p.null_model == "features" and p.decision == "score":
            put = best_null_put(twelve, position)[0]
            value, n = float(model.put_values(twelve, g, [put], p.k)[0]), 66
        else:
            put, value, n = model.best_put(twelve, g, p.k, p.put_rules, position)
        per_game[g] = (put, value)
        candidates += n
    choice, ouvert = choose_game(per_game, twelve, bid, p, prefer, position)
    put, value = per_game[choice]
    return PutDecision(put, choice, value, candidates, per_game, ouvert)


def choose_game(per_game: dict[int, tuple[int, float]], twelve: int, bid: int, p: KnnParams,
                prefer: int = -1, position: int = 0) -> tuple[int, bool]:
    """(game, null ouvert) from each game's (put, value) after picking up: the best value
    among the games whose plain value reaches the bid, else among those that could with
    schneider and schwarz; never a certainly overbid game while another is not."""
    def plain_value(g: int) -> int:
        return game_value(twelve, g)

    def max_value(g: int) -> int:
        if g == NULL:
            return NULL_VALUES[(False, True)]
        return suit_game_value(twelve, g, schneider=True, schwarz=True)

    suits = [g for g in per_game if g != NULL]
    safe = [g for g in suits if plain_value(g) >= bid]
    possible = [g for g in suits if max_value(g) >= bid]
    null_ok = NULL in per_game and per_game[NULL][1] >= p.null_threshold
    choice: int
    pool = safe or possible

    def expected(g: int, ouvert: bool = False) -> float:
        value = max(plain_value(g), bid)
        if g == NULL:
            value = NULL_VALUES[(False, ouvert)] if ouvert else (
                plain_value(g) if plain_value(g) >= bid else max_value(g))
        return expected_score(put_chance(p, per_game[g], twelve, g, position, ouvert,
                                         p.put_shift(g)), value, p.loss_bonus)

    def merit(g: int) -> tuple[float, int]:
        if p.game_choice == "ev":
            return expected(g), g
        return per_game[g][1], plain_value(g)

    if p.decision == "score":  # every game that is not certainly overbid, null included
        scored = pool + ([NULL] if NULL in per_game and max_value(NULL) >= bid else [])
        if scored:
            own_ouvert = has_ouvert(p.win_chances)
            options = [(expected(g), g, False) for g in scored]
            if NULL in scored and own_ouvert:  # null ouvert by its own win chances
                options = [o for o in options if o[1] != NULL or plain_value(NULL) >= bid]
                options.append((expected(NULL, True), NULL, True))
            if p.null_floor > 0.0:  # a weak null gives way (grand reaches any bid null can)
                options = [o for o in options if o[1] != NULL or put_chance(
                    p, per_game[NULL], twelve, NULL, position, o[2]) >= p.null_floor
                           ] or options
            _, choice, ouvert = max(options, key=lambda o: (o[0], o[1], o[2]))
            if choice == NULL and not own_ouvert:
                ouvert = plain_value(NULL) < bid or per_game[NULL][1] >= 1.0
            return choice, ouvert
    if pool:
        choice = max(pool, key=merit)
        if (p.game_choice == "value" and prefer in pool
                and per_game[prefer][1] >= per_game[choice][1] - p.switch_margin):
            choice = prefer
        if null_ok and per_game[choice][1] < p.pickup_threshold and max_value(NULL) >= bid:
            choice = NULL
    elif null_ok and max_value(NULL) >= bid:
        choice = NULL
    else:  # every game is overbid: lose the least
        choice = min(suits, key=lambda g: (-(-bid // BASE_VALUES[g]) * BASE_VALUES[g],
                                           -per_game[g][1]))
    ouvert = choice == NULL and (plain_value(NULL) < bid or per_game[NULL][1] >= 1.0)
    return choice, ouvert


def put_chance(p: KnnParams, put_value: tuple[int, float], twelve: int, game: int,
               position: int, ouvert: bool = False, shift: float = 0.0) -> float:
    """The win chance of ``game`` declared after picking up with the (put, neighbour value)
    ``put_value``: the calibration's (stage ``put``), or with ``null_model=features`` for a
    plain null that of :func:`null_model.null_put_chance`, and for null ouvert the same where
    every suit is safe (:func:`null_model.all_safe`: the defenders cannot force a trick on
    the declarer even seeing the cards); ``shift`` off its log-odds."""
    put, value = put_value
    if game == NULL and p.null_model == "features" and (
            not ouvert or all_safe(twelve & ~put, put)):
        return null_put_chance(twelve & ~put, put, position, shift)
    return p.chance(value, "put", position, put_count(twelve & ~put, game), game, shift,
                    ouvert)


def put_count(ten: int, game: int) -> float:
    """The ``count`` feature of a game's win chance after the put (ten cards): the trump
    games' :func:`features.hand_count`, null's :func:`features.null_count`."""
    return float(null_count(ten)[0]) if game == NULL else hand_count(ten, game)


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
        "game": GAME_NAMES[game],
        "putting": putting,
        "candidates": len(candidates),
        "scores": {mask_to_string(p): round(v, 3) for p, v in
                   sorted(scores.items(), key=lambda kv: -kv[1])},
    }


def decide_put(model: KnnModel, twelve: int, bid: int = 18, params: KnnParams | None = None,
               putting: str = "knn") -> PutDecision:
    """Put two of twelve cards and choose the game, with the named strategy."""
    if putting not in PUTTINGS:
        raise KnowledgeBaseError(f"unknown putting strategy {putting!r}; known: "
                                 f"{', '.join(PUTTINGS)}")
    if putting == "knn":
        return knn_put(model, twelve, bid, params)
    return bot_put(model, twelve, bid, params, putting, 0)
