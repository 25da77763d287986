"""Tournament statistics: win/draw/loss, score with Wilson intervals, mean return, Elo.

Outcomes are pairwise: in every game, each two seated agents are compared by
their returns (higher wins, equal draws). In a two-player game that is the
usual win/draw/loss; in an n-player game each agent gets n-1 comparisons per
game. The *score* is (wins + draws/2) / comparisons; its confidence interval
is the Wilson score interval with draws counted as half a win (the usual
convention in engine testing; exact for draw-free results).

Elo ratings are the maximum a-posteriori Bradley-Terry model fitted to all
pairwise scores (draws as half a win each way) by Hunter's (2004) MM
iteration, not an order-dependent iterated Elo. A weak prior - ``prior_games``
virtual games scoring 50% against a fixed reference player - keeps ratings
finite when an agent wins or loses everything. Ratings are centred so their
mean is 0; 400 points is a factor 10 in odds.

Games with many draws (Durak) are also reported over decisive games only
(:class:`DecisiveRecord`: win rate = wins / (wins + losses), draws apart).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from spielwerk.arena.match import GameResult
from spielwerk.core.intervals import StatsError as StatsError
from spielwerk.core.intervals import mean_and_se as mean_and_se
from spielwerk.core.intervals import wilson_interval as wilson_interval
from spielwerk.core.intervals import z_value as z_value


def bradley_terry_elo(
    labels: Sequence[str],
    scores: dict[tuple[str, str], float],
    games: dict[tuple[str, str], float],
    prior_games: float = 2.0,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> dict[str, float]:
    """Elo ratings from pairwise results (see module docstring).

    ``scores[(a, b)]`` is a's score against b (wins + draws/2) and
    ``games[(a, b)]`` the number of comparisons; keys may be given in either
    order or both (they are combined). ``prior_games`` >= 0; with 0 and a
    perfect score the ratings diverge, so it must then be positive.
    """
    if prior_games < 0:
        raise StatsError("prior_games must be non-negative")
    idx = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    n = [[0.0] * k for _ in range(k)]
    won = [0.0] * k
    for (a, b), g in games.items():
        i, j = idx[a], idx[b]
        s = scores.get((a, b), 0.0)
        n[i][j] += g
        n[j][i] += g
        won[i] += s
        won[j] += g - s
    gamma = [1.0] * k
    for _ in range(max_iter):
        change = 0.0
        new = []
        for i in range(k):
            denom = sum(n[i][j] / (gamma[i] + gamma[j]) for j in range(k) if n[i][j])
            denom += prior_games / (gamma[i] + 1.0)
            numer = won[i] + prior_games / 2.0
            if denom == 0.0 or numer == 0.0:
                new.append(gamma[i] if denom == 0.0 else 1e-300)
                continue
            new.append(numer / denom)
        for i in range(k):
            change = max(change, abs(math.log(new[i]) - math.log(gamma[i])))
        gamma = new
        if change < tol:
            break
    elo = [400.0 * math.log10(g) for g in gamma]
    mean = math.fsum(elo) / k if k else 0.0
    return {label: elo[i] - mean for label, i in idx.items()}


@dataclass(frozen=True)
class AgentStanding:
    """One agent's line in the standings (pairwise outcomes, see module docstring)."""

    label: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    ci_low: float
    ci_high: float
    mean_return: float
    se_return: float
    elo: float


@dataclass(frozen=True)
class PairStanding:
    """Results of ``a`` against ``b``, from a's side; ``mean_return`` is a's return."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    ci_low: float
    ci_high: float
    mean_return: float
    se_return: float


@dataclass(frozen=True)
class Standings:
    """Agents sorted by Elo (then score), and every pairing."""

    agents: list[AgentStanding]
    pairs: list[PairStanding]
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        def clean(d: dict[str, Any]) -> dict[str, Any]:
            return {
                k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()
            }

        return {
            "confidence": self.confidence,
            "agents": [clean(asdict(a)) for a in self.agents],
            "pairs": [clean(asdict(p)) for p in self.pairs],
        }


def _compare(x: float, y: float) -> int:
    return (x > y) - (x < y)


_Pairwise = tuple[
    dict[str, list[float]], dict[tuple[str, str], list[int]], dict[tuple[str, str], list[float]]
]


def _pairwise(results: Sequence[GameResult], order: dict[str, int]) -> _Pairwise:
    """Every agent's returns, and per pairing ``(a, b)`` (a first in ``order``) a's
    [wins, draws, losses] and a's returns (see module docstring)."""
    returns: dict[str, list[float]] = {label: [] for label in order}
    pair_wdl: dict[tuple[str, str], list[int]] = {}
    pair_returns: dict[tuple[str, str], list[float]] = {}
    for r in results:
        for seat, label in enumerate(r.labels):
            if label not in order:
                raise StatsError(f"result {r.task_id} has unknown agent {label!r}")
            returns[label].append(r.returns[seat])
        for s in range(len(r.labels)):
            for t in range(s + 1, len(r.labels)):
                a, b, ra, rb = r.labels[s], r.labels[t], r.returns[s], r.returns[t]
                if order[a] > order[b]:
                    a, b, ra, rb = b, a, rb, ra
                slot = 1 - _compare(ra, rb)  # win 0, draw 1, loss 2
                pair_wdl.setdefault((a, b), [0, 0, 0])[slot] += 1
                pair_returns.setdefault((a, b), []).append(ra)
    return returns, pair_wdl, pair_returns


def standings(
    results: Sequence[GameResult], labels: Sequence[str], confidence: float = 0.95,
    prior_games: float = 2.0,
) -> Standings:
    """Compute the standings of ``labels`` from finished games."""
    z_value(confidence)  # validate early
    order = {label: i for i, label in enumerate(labels)}
    returns, pair_wdl, pair_returns = _pairwise(results, order)
    wdl = {label: [0, 0, 0] for label in labels}
    for (a, b), (w, d, lo) in pair_wdl.items():
        wdl[a] = [wdl[a][0] + w, wdl[a][1] + d, wdl[a][2] + lo]
        wdl[b] = [wdl[b][0] + lo, wdl[b][1] + d, wdl[b][2] + w]
    scores = {p: v[0] + 0.5 * v[1] for p, v in pair_wdl.items()}
    counts = {p: float(sum(v)) for p, v in pair_wdl.items()}
    elo = bradley_terry_elo(list(labels), scores, counts, prior_games)
    agents = []
    for label in labels:
        w, d, lo = wdl[label]
        n = w + d + lo
        score = (w + 0.5 * d) / n if n else math.nan
        ci = wilson_interval(w + 0.5 * d, n, confidence)
        mean, se = mean_and_se(returns[label])
        agents.append(
            AgentStanding(label, len(returns[label]), w, d, lo, score, ci[0], ci[1], mean, se,
                          elo[label])
        )
    agents.sort(key=lambda a: (-a.elo, -(0.0 if math.isnan(a.score) else a.score), order[a.label]))
    pairs = []
    for (a, b), (w, d, lo) in sorted(pair_wdl.items(), key=lambda kv: (order[kv[0][0]],
                                                                       order[kv[0][1]])):
        n = w + d + lo
        ci = wilson_interval(w + 0.5 * d, n, confidence)
        mean, se = mean_and_se(pair_returns[(a, b)])
        pairs.append(PairStanding(a, b, n, w, d, lo, (w + 0.5 * d) / n, ci[0], ci[1], mean, se))
    return Standings(agents, pairs, confidence)


@dataclass
class DecisiveRecord:
    """``agent`` against ``opponent`` counted over decisive games only: the win rate is
    wins / (wins + losses) with a Wilson interval, draws are kept apart (Durak reports
    results this way, Zarlykov 2023)."""

    agent: str
    opponent: str
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def interval(self, confidence: float) -> tuple[float, float]:
        return wilson_interval(self.wins, self.wins + self.losses, confidence)

    @property
    def win_rate(self) -> float:
        """nan while no game was decisive."""
        n = self.wins + self.losses
        return self.wins / n if n else math.nan

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def decided(self, confidence: float) -> bool:
        """The interval excludes 50%: one agent is the stronger at this confidence."""
        lo, hi = self.interval(confidence)
        return self.wins + self.losses > 0 and (lo > 0.5 or hi < 0.5)

    def add(self, other: DecisiveRecord) -> None:
        """Count the games of ``other`` (same pairing, same orientation) as well."""
        if (other.agent, other.opponent) != (self.agent, self.opponent):
            raise StatsError(f"cannot add {other.agent} vs {other.opponent} to "
                             f"{self.agent} vs {self.opponent}")
        self.wins += other.wins
        self.losses += other.losses
        self.draws += other.draws

    def to_dict(self, confidence: float) -> dict[str, object]:
        lo, hi = self.interval(confidence)
        rate = self.win_rate
        return {
            "agent": self.agent, "opponent": self.opponent, "wins": self.wins,
            "losses": self.losses, "draws": self.draws,
            "win_rate": None if math.isnan(rate) else round(rate, 4),
            "ci_low": round(lo, 4), "ci_high": round(hi, 4),
        }


def decisive_records(
    results: Sequence[GameResult], labels: Sequence[str]
) -> dict[tuple[str, str], DecisiveRecord]:
    """A :class:`DecisiveRecord` for every pairing ``(a, b)`` of ``labels`` (a listed
    first), games without both counted as no games; outcomes as in :func:`standings`."""
    order = {label: i for i, label in enumerate(labels)}
    _, pair_wdl, _ = _pairwise(results, order)
    records = {}
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            w, d, lo = pair_wdl.get((a, b), (0, 0, 0))
            records[(a, b)] = DecisiveRecord(a, b, wins=w, losses=lo, draws=d)
    return records
