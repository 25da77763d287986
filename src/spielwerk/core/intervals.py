"""Confidence intervals of match figures: the normal quantile, Wilson's interval for a
proportion, a mean and its standard error. Plain math, shared by the arena's standings and
a game's own match figures (:mod:`spielwerk.games.skat_ai.match_stats`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from spielwerk.core.errors import SpielwerkError

__all__ = ["StatsError", "mean_and_se", "wilson_interval", "z_value"]


class StatsError(SpielwerkError, ValueError):
    """Bad input to a statistic (e.g. a confidence level outside (0, 1))."""


def z_value(confidence: float) -> float:
    """Two-sided normal quantile for ``confidence`` (1.95996... for 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise StatsError(f"confidence must be between 0 and 1 (e.g. 0.95), not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n`` (``(0, 1)`` when ``n == 0``)."""
    if n < 0 or successes < 0 or successes > n:
        raise StatsError(f"need 0 <= successes <= n, got {successes} of {n}")
    z = z_value(confidence)
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample std / sqrt(n)); SE is nan for n < 2."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.nan
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)
