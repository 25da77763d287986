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

from spielwerk.games.skat_ai.knowledge.features import card_bits, null_exposure
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import CALIBRATION_DIR

FEATURES = ("safe", "fewest_out", "voids", "risk", "suits_at_risk", "short_risk",
            "long_risk", "forehand")
MODEL_FILE = "null_put"
"""``data/skat_calibration/null_put.json``: the fitted weights and how they were made."""
FORMAT = "spielwerk-skat-null-model"
RISK_CAP = 4


def null_put_features_of(tens: np.ndarray, puts: np.ndarray, position: int) -> np.ndarray:
    """(n, 8) features (module docstring) of nulls with the ten cards ``tens`` kept and
    ``puts`` put (card masks), the declarer at ``position`` (0 forehand): the exposure of
    :func:`knowledge.features.null_exposure` with the put out of play."""
    gone = card_bits(puts)
    risk, length = null_exposure(card_bits(tens), gone)
    capped = np.minimum(risk, RISK_CAP)
    at_risk = risk > 0
    out = 8 - length - gone.reshape(-1, 4, 8).sum(axis=2)  # the defenders' cards per suit
    x = np.empty((len(tens), len(FEATURES)))
    x[:, 0] = ~at_risk.any(axis=1)
    x[:, 1] = np.minimum(np.where(at_risk, out, 7).min(axis=1), 7)
    x[:, 2] = (length == 0).sum(axis=1)
    x[:, 3] = capped.sum(axis=1)
    x[:, 4] = at_risk.sum(axis=1)
    x[:, 5] = np.where(at_risk & (length <= 2), capped, 0).sum(axis=1)
    x[:, 6] = np.where(at_risk & (length > 2), capped, 0).sum(axis=1)
    x[:, 7] = float(position == 0)
    return x


def null_put_features(ten: int, put: int, position: int) -> np.ndarray:
    """The eight features of one null (:func:`null_put_features_of`)."""
    row: np.ndarray = null_put_features_of(np.array([ten], dtype=np.int64),
                                           np.array([put], dtype=np.int64), position)[0]
    return row


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


def _chances(x: np.ndarray, shift: float) -> np.ndarray:
    w = null_model()["weights"]
    z = w["intercept"] + (x * np.array([w[f] for f in FEATURES])).sum(axis=1) - shift
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
    return out


def null_put_chance(ten: int, put: int, position: int, shift: float = 0.0) -> float:
    """The null's win chance from :func:`null_put_features`, with ``shift`` taken off its
    log-odds (``put_null_shift`` when the game is chosen)."""
    return float(_chances(null_put_features(ten, put, position)[None, :], shift)[0])


def best_null_put(twelve: int, position: int) -> tuple[int, float]:
    """(put, chance) of the put of two of ``twelve`` cards that gives a null the highest
    chance (the lowest put mask among equals)."""
    cards = [c for c in range(32) if twelve >> c & 1]
    puts = np.array(sorted((1 << a) | (1 << b) for i, a in enumerate(cards)
                           for b in cards[i + 1:]), dtype=np.int64)
    chances = _chances(null_put_features_of(twelve & ~puts, puts, position), 0.0)
    i = int(np.argmax(chances))  # the first of the highest: the lowest mask
    return int(puts[i]), float(chances[i])
