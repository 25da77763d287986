"""Arena statistics: Wilson intervals, standard errors, Bradley-Terry Elo, standings."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import binomtest

from spielwerk.arena.match import GameResult
from spielwerk.arena.stats import (
    DecisiveRecord,
    StatsError,
    bradley_terry_elo,
    decisive_records,
    mean_and_se,
    standings,
    wilson_interval,
    z_value,
)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (17, 40), (250, 1000), (1, 1)])
@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.98])
def test_wilson_matches_scipy(k: int, n: int, confidence: float) -> None:
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    lo, hi = wilson_interval(k, n, confidence)
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


def test_wilson_hand_computed() -> None:
    # 8 of 10, z = 1.959964: centre (0.8 + z^2/20) / (1 + z^2/10) = 0.716741,
    # half width z * sqrt(0.016 + z^2/400) / (1 + z^2/10) = 0.226135.
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.490162, abs=1e-6)
    assert hi == pytest.approx(0.943318, abs=1e-6)
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.98) == pytest.approx(2.326348, abs=1e-6)


def test_wilson_edge_cases_and_errors() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(5.5, 10)  # draws count half: fractional successes allowed
    assert 0.0 < lo < 0.55 < hi < 1.0
    with pytest.raises(StatsError, match="confidence"):
        wilson_interval(1, 2, confidence=1.5)
    with pytest.raises(StatsError):
        wilson_interval(3, 2)


def test_mean_and_se_against_numpy() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(2.0, 3.0, size=57).tolist()
    mean, se = mean_and_se(values)
    assert mean == pytest.approx(float(np.mean(values)))
    assert se == pytest.approx(float(np.std(values, ddof=1) / math.sqrt(57)))
    assert math.isnan(mean_and_se([1.0])[1])
    assert math.isnan(mean_and_se([])[0])


def test_elo_two_players_without_prior_is_the_logit() -> None:
    # a scores 75%: Bradley-Terry MLE gives odds 3, i.e. 400*log10(3) Elo apart.
    elo = bradley_terry_elo(["a", "b"], {("a", "b"): 30.0}, {("a", "b"): 40.0}, prior_games=0.0)
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert elo["a"] + elo["b"] == pytest.approx(0.0, abs=1e-9)


def test_elo_is_the_map_of_the_bradley_terry_likelihood() -> None:
    labels = ["a", "b", "c", "d"]
    scores = {("a", "b"): 14.5, ("a", "c"): 18.0, ("b", "c"): 9.0, ("c", "d"): 20.0,
              ("a", "d"): 20.0}
    games = {("a", "b"): 20.0, ("a", "c"): 20.0, ("b", "c"): 20.0, ("c", "d"): 20.0,
             ("a", "d"): 20.0}
    prior = 2.0
    elo = bradley_terry_elo(labels, scores, games, prior_games=prior)

    def negative_log_posterior(theta: np.ndarray) -> float:
        # theta = natural log strengths; reference player has strength 1 (theta 0)
        total = 0.0
        idx = {x: i for i, x in enumerate(labels)}
        for (a, b), n in games.items():
            s = scores[(a, b)]
            ta, tb = theta[idx[a]], theta[idx[b]]
            total += s * (ta - np.logaddexp(ta, tb)) + (n - s) * (tb - np.logaddexp(ta, tb))
        for t in theta:  # prior: half a win, half a loss of `prior` games vs the reference
            total += prior / 2 * (t - np.logaddexp(t, 0.0)) + prior / 2 * (-np.logaddexp(t, 0.0))
        return -float(total)

    best = optimize.minimize(negative_log_posterior, np.zeros(4), method="BFGS", tol=1e-12)
    expected = 400 / math.log(10) * best.x
    expected -= expected.mean()
    for i, label in enumerate(labels):
        assert elo[label] == pytest.approx(expected[i], abs=1e-3)


def test_elo_stays_finite_for_a_perfect_score() -> None:
    elo = bradley_terry_elo(["a", "b"], {("a", "b"): 10.0}, {("a", "b"): 10.0})
    assert math.isfinite(elo["a"]) and elo["a"] > 200


def _result(task: str, labels: tuple[str, ...], returns: tuple[float, ...]) -> GameResult:
    return GameResult(task, "g", labels, labels, 1, 2, 0, 0, returns, 10, 0.01)


def test_standings_two_player_counts_by_hand() -> None:
    results = [
        _result("1", ("x", "y"), (3.0, -3.0)),
        _result("2", ("y", "x"), (5.0, -5.0)),
        _result("3", ("x", "y"), (0.0, 0.0)),
        _result("4", ("y", "x"), (-2.0, 2.0)),
        _result("5", ("x", "z"), (1.0, -1.0)),
    ]
    st = standings(results, ["x", "y", "z"], confidence=0.98)
    by = {a.label: a for a in st.agents}
    assert (by["x"].wins, by["x"].draws, by["x"].losses) == (3, 1, 1)
    assert (by["y"].wins, by["y"].draws, by["y"].losses) == (1, 1, 2)
    assert (by["z"].wins, by["z"].draws, by["z"].losses) == (0, 0, 1)
    assert by["x"].score == pytest.approx(3.5 / 5)
    assert (by["x"].ci_low, by["x"].ci_high) == pytest.approx(wilson_interval(3.5, 5, 0.98))
    assert by["x"].mean_return == pytest.approx((3 - 5 + 0 + 2 + 1) / 5)
    assert by["x"].games == 5
    pair = next(p for p in st.pairs if (p.a, p.b) == ("x", "y"))
    assert (pair.games, pair.wins, pair.draws, pair.losses) == (4, 2, 1, 1)
    assert pair.mean_return == pytest.approx(0.0)
    assert st.agents[0].label == "x"  # best Elo first
    d = st.to_dict()
    assert d["confidence"] == 0.98 and len(d["pairs"]) == 2


def test_standings_three_player_game_counts_each_comparison() -> None:
    st = standings([_result("1", ("a", "b", "c"), (2.0, 1.0, 1.0))], ["a", "b", "c"])
    by = {a.label: a for a in st.agents}
    assert (by["a"].wins, by["a"].draws, by["a"].losses) == (2, 0, 0)
    assert (by["b"].wins, by["b"].draws, by["b"].losses) == (0, 1, 1)
    assert by["b"].games == 1


def test_standings_rejects_unknown_labels() -> None:
    with pytest.raises(StatsError, match="unknown agent"):
        standings([_result("1", ("a", "q"), (1.0, -1.0))], ["a", "b"])


def test_decisive_record_rates_over_decisive_games() -> None:
    p = DecisiveRecord("a", "b", wins=30, losses=10, draws=60)
    d = p.to_dict(0.98)
    assert d["win_rate"] == 0.75 and d["draws"] == 60 and p.games == 100
    assert (d["ci_low"], d["ci_high"]) == pytest.approx(wilson_interval(30, 40, 0.98), abs=1e-4)
    assert p.decided(0.98)
    assert not DecisiveRecord("a", "b", 5, 5, 0).decided(0.98)
    empty = DecisiveRecord("a", "b", draws=3)
    assert math.isnan(empty.win_rate) and empty.to_dict(0.95)["win_rate"] is None
    assert not empty.decided(0.95)
    p.add(DecisiveRecord("a", "b", wins=1, losses=2, draws=3))
    assert (p.wins, p.losses, p.draws) == (31, 12, 63)
    with pytest.raises(StatsError, match="cannot add"):
        p.add(DecisiveRecord("b", "a", wins=1))


def test_decisive_records_count_by_hand_and_agree_with_standings() -> None:
    results = [
        _result("1", ("x", "y"), (1.0, -1.0)),
        _result("2", ("y", "x"), (1.0, -1.0)),
        _result("3", ("x", "y"), (0.0, 0.0)),
        _result("4", ("y", "x"), (-1.0, 1.0)),
        _result("5", ("x", "z"), (1.0, -1.0)),
    ]
    recs = decisive_records(results, ["x", "y", "z"])
    assert list(recs) == [("x", "y"), ("x", "z"), ("y", "z")]  # every pairing, label order
    xy = recs[("x", "y")]
    assert (xy.wins, xy.losses, xy.draws) == (2, 1, 1)
    assert (recs[("x", "z")].wins, recs[("x", "z")].losses) == (1, 0)
    assert recs[("y", "z")].games == 0
    pair = next(p for p in standings(results, ["x", "y", "z"]).pairs if (p.a, p.b) == ("x", "y"))
    assert (pair.wins, pair.draws, pair.losses) == (xy.wins, xy.draws, xy.losses)
    with pytest.raises(StatsError, match="unknown agent"):
        decisive_records([_result("6", ("x", "q"), (1.0, -1.0))], ["x", "y"])
