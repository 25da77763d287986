"""Ramsch (a house rule, ``ramsch=true``): scoring when all pass and the deal is played.

The player with the most card points loses that many (every player tied for
most loses); a player without a trick (Jungfrau) doubles the loss; a player
who takes every trick (Durchmarsch) wins 120. Returns stay zero-sum.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RamschResult:
    """The outcome of a Ramsch: card points, losers, and zero-sum returns by seat."""

    points: dict[int, int]
    losers: tuple[int, ...]
    durchmarsch: int  # seat that took every trick, else -1
    jungfrau: bool  # someone took no trick: the loss is doubled
    returns: dict[int, float]

    def describe(self) -> str:
        if self.durchmarsch >= 0:
            return f"Ramsch: seat {self.durchmarsch} took every trick (Durchmarsch, +120)"
        pts = ", ".join(f"seat {s} {p}" for s, p in sorted(self.points.items()))
        who = " and ".join(f"seat {s}" for s in self.losers)
        return f"Ramsch ({pts}): {who} lose{'s' if len(self.losers) == 1 else ''}" + (
            " (Jungfrau: doubled)" if self.jungfrau else ""
        )


def ramsch_result(points: dict[int, int], tricks: dict[int, int]) -> RamschResult:
    """Score a Ramsch from each seat's card points (skat included) and tricks."""
    seats = sorted(points)
    for s in seats:
        if tricks[s] == 10:
            rets = {t: (120.0 if t == s else -60.0) for t in seats}
            return RamschResult(dict(points), (), s, False, rets)
    top = max(points.values())
    losers = tuple(s for s in seats if points[s] == top)
    jungfrau = any(tricks[s] == 0 for s in seats)
    loss = top * (2 if jungfrau else 1)
    winners = [s for s in seats if s not in losers]
    rets = {s: 0.0 for s in seats}
    if winners:  # three-way ties (40-40-40) cost nobody anything
        for s in losers:
            rets[s] = -float(loss)
        for s in winners:
            rets[s] = loss * len(losers) / len(winners)
    return RamschResult(dict(points), losers, -1, jungfrau, rets)

