"""Null's win chance after picking up, from the ten cards kept and the two put
(``null_model=features``).

The calibrated chance of a null (:mod:`winprob`) comes from the neighbours' value and the
hand's summed null risk; on the bot's own plain nulls it separates the won from the lost
ones poorly (``docs/evaluations/skat-null-model.md``). After picking up the declarer knows
all twelve cards, and a few plain features of the ten kept say more. Per suit, in null
order (7 8 9 T J Q K A), a held card is *exposed* by how far its null rank, less the put
cards below it (out of play), lies above twice the number of own cards below it (the
exposure of :mod:`knowledge.features`, with the put known); a suit's risk is its largest
exposure (0 = safe). The features (:data:`FEATURES`):

1. ``safe`` - 1 when no suit is at risk;
2. ``fewest_out`` - the fewest cards the defenders hold in a suit at risk (at most 7, and
   7 when none is at risk);
3. ``voids`` - suits without a card;
4. ``risk`` - the suits' risks, each capped at 4, summed;
5. ``suits_at_risk``;
6. ``short_risk`` - the capped risk of the suits at risk with one or two cards;
7. ``long_risk`` - that of the suits at risk with three or more;
8. ``forehand`` - 1 when the declarer leads the first trick.

The chance is a logistic regression on them, fitted on the bot's own plain nulls against
its own defence (``experiments/skat_null_model.py``, weights in
``data/skat_calibration/null_put.json``). The put chosen for a null is the one with the
highest chance (:func:`best_null_put`). Null ouvert after picking up keeps the calibration's
chance unless every suit is safe (:func:`all_safe`); then it takes the plain null's: on the
bot's own nulls of two seeds every such null ouvert was won (336 of 336), where the
calibration told 0.81.
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

import numpy as np

from spielwerk.games.skat.cards import NULL_RANK
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import CALIBRATION_DIR

FEATURES = ("safe", "fewest_out", "voids", "risk", "suits_at_risk", "short_risk",
            "long_risk", "forehand")
MODEL_FILE = "null_put"
"""``data/skat_calibration/null_put.json``: the fitted weights and how they were made."""
FORMAT = "spielwerk-skat-null-model"
RISK_CAP = 4
_ORDER = sorted(range(8), key=lambda r: NULL_RANK[r])
"""Rank indices in null order (7 8 9 T J Q K A)."""


def null_put_features(ten: int, put: int, position: int) -> np.ndarray:
    """The eight features (module docstring) of a null with the ten cards ``ten`` kept and
    ``put`` put, the declarer at ``position`` (0 forehand)."""
    risk = at_risk = short = long_ = voids = 0
    fewest = 7
    for suit in range(4):
        base = suit * 8
        own = [NULL_RANK[r] for r in _ORDER if ten >> (base + r) & 1]
        gone = [NULL_RANK[r] for r in _ORDER if put >> (base + r) & 1]
        if not own:
            voids += 1
            continue
        exposure = max(0, *(rank - sum(1 for g in gone if g < rank) - 2 * i
                            for i, rank in enumerate(own)))
        if exposure > 0:
            capped = min(exposure, RISK_CAP)
            risk += capped
            at_risk += 1
            if len(own) <= 2:
                short += capped
            else:
                long_ += capped
            fewest = min(fewest, 8 - len(own) - len(gone))
    return np.array([float(at_risk == 0), fewest, voids,
                     risk, at_risk, short, long_, float(position == 0)])


def all_safe(ten: int, put: int) -> bool:
    """Is every suit of the ten cards kept safe (no card exposed, the put out of play)? Then
    the defenders cannot force a trick on the declarer even seeing the cards, and null ouvert
    is as safe as the plain null (``null_model=features`` gives it the same chance)."""
    return bool(null_put_features(ten, put, 1)[0] == 1.0)


@cache
def null_model() -> dict[str, Any]:
    """The shipped weights (``intercept`` and one per feature), checked."""
    path = CALIBRATION_DIR / f"{MODEL_FILE}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise KnowledgeBaseError(f"cannot read the null model {path}: {e}") from e
    weights = data.get("weights")
    if (data.get("format") != FORMAT or not isinstance(weights, dict)
            or set(weights) != {"intercept", *FEATURES}
            or not all(isinstance(w, (int, float)) and math.isfinite(w)
                       for w in weights.values())):
        raise KnowledgeBaseError(f"{path} is not a {FORMAT} file with a finite weight for "
                                 f"the intercept and each of {', '.join(FEATURES)}")
    return data


def null_put_chance(ten: int, put: int, position: int, shift: float = 0.0) -> float:
    """The null's win chance from :func:`null_put_features`, with ``shift`` taken off its
    log-odds (``put_null_shift`` when the game is chosen)."""
    w = null_model()["weights"]
    x = null_put_features(ten, put, position)
    z = w["intercept"] + sum(w[f] * float(v) for f, v in zip(FEATURES, x, strict=True)) - shift
    return 1.0 / (1.0 + math.exp(-z))


def best_null_put(twelve: int, position: int) -> tuple[int, float]:
    """(put, chance) of the put of two of ``twelve`` cards that gives a null the highest
    chance (the lowest put mask among equals)."""
    cards = [c for c in range(32) if twelve >> c & 1]
    best = (-1.0, 0)
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            put = (1 << a) | (1 << b)
            chance = null_put_chance(twelve & ~put, put, position)
            if chance > best[0] or chance == best[0] and put < best[1]:
                best = (chance, put)
    return best[1], best[0]
