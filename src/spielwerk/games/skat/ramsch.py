"""Ramsch (a house rule, ``ramsch=true``): scoring when all pass and the deal is played.

The player with the most card points loses that many (every player tied for
most loses); a player without a trick (Jungfrau) doubles the loss; a player
who takes every trick (Durchmarsch) wins 120. Returns stay zero-sum.
"""

from __future__ import annotations

from dataclasses import dataclass

from spielwerk.games.skat.kernel_deal import ramsch_outcome


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
    """Score a Ramsch from each seat's card points (skat included) and tricks (the rule is
    :func:`kernel_deal.ramsch_outcome`, over the three seats in ascending order)."""
    seats = sorted(points)
    r0, r1, r2, march, jungfrau, losers = ramsch_outcome(
        points[seats[0]], points[seats[1]], points[seats[2]],
        tricks[seats[0]], tricks[seats[1]], tricks[seats[2]],
    )
    rets = dict(zip(seats, (r0, r1, r2), strict=True))
    if march >= 0:
        return RamschResult(dict(points), (), seats[march], False, rets)
    return RamschResult(
        dict(points), tuple(s for i, s in enumerate(seats) if losers >> i & 1), -1, jungfrau, rets
    )
