"""Random deals for the knowledge bases and their double-dummy labels.

A deal is dealt from the declarer's point of view: ``position`` (0 forehand,
1 middlehand, 2 rearhand; ``deal_id % 3``), the three hands by position and
the skat. Deal ``i`` of a build with seed ``s`` is drawn from
``numpy.random.default_rng([s, i])`` alone, so any subset of deals can be
(re)computed anywhere, in any order, with the same result.

**Denser where it matters**: random hands are mostly hopeless, and a
strong hand's nearest neighbours in a uniform base are far away (weaker), so
its value is pulled down. Bases keep every "biddable" declarer hand (jacks +
longest suit + aces >= 7, or a null risk of at most 4) and only ``WEAK_ACCEPT`` (25%)
of the others. Acceptance looks at the declarer's cards only, so the
distribution of results *given* a hand is unchanged.

**Card floor** (the seed asks that every card appears in the declarer's hand
at least a given number of times): deal ``i`` puts card ``i % 32`` into the
declarer's hand and deals the other 31 cards at random. Over every 32
consecutive deals this leaves each hand uniformly distributed (every card
has probability 10/32), so the base is not biased, and every card appears at
least ``deals // 32`` times by construction; the measured counts (about
``10 * deals / 32``) are written to the manifest.

Labels (all by :mod:`spielwerk.games.skat.dds`, forehand leads):

* **hand** stage: the declarer plays the ten dealt cards, the skat counts for
  him. For each suit and grand: his final card points (skat included, exact)
  and, when that is 120, whether he can take every trick (schwarz); for null,
  whether he can avoid every trick.
* **pick-up** stage: the declarer takes the skat and puts two cards chosen by
  the KNN putting over a hand base (:func:`spielwerk.games.skat_ai.knn.best_put`),
  one put per game; the points of the put cards count for him.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from spielwerk.games.skat.cards import NULL, TOTAL_POINTS, points_of
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig

_SOLVER: Solver | None = None


def _solver() -> Solver:
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = Solver(SolverConfig(tt_log2=18))
    return _SOLVER


WEAK_ACCEPT = 0.25
"""Share of weak declarer hands kept (see :func:`make_deal`)."""


def biddable(hand: int) -> bool:
    """A hand worth a closer look: jacks + longest suit + aces >= 7, or low null risk."""
    from spielwerk.games.skat_ai.knowledge.features import null_features

    jacks = sum(hand >> (s * 8 + 7) & 1 for s in range(4))
    longest = max(bin(hand >> (s * 8) & 0x7F).count("1") for s in range(4))
    aces = sum(hand >> (s * 8 + 6) & 1 for s in range(4))
    if jacks + longest + aces >= 7:
        return True
    return float(null_features(hand)[0, 0::2].sum()) <= 4


def make_deal(seed: int, deal_id: int, weak_accept: float = 1.0
              ) -> tuple[int, tuple[int, int, int], int]:
    """(declarer position, hands by position, skat) of deal ``deal_id``.

    With ``weak_accept`` < 1 a deal whose declarer hand is not :func:`biddable`
    is kept only with that probability (else the next candidate is drawn from
    the same generator). The choice looks at the declarer's ten cards only, so
    the results of hands with given cards are not biased - the base is just
    denser where bidding decisions are made.
    """
    rng = np.random.default_rng([seed, deal_id])
    position = deal_id % 3
    forced = deal_id % 32
    rest = np.array([c for c in range(32) if c != forced], dtype=np.int64)
    while True:
        perm = rng.permutation(rest)
        declarer = (1 << forced) | sum(1 << int(c) for c in perm[:9])
        if weak_accept >= 1.0 or biddable(declarer) or rng.random() < weak_accept:
            break
    others = perm[9:].tolist()
    hands = [0, 0, 0]
    hands[position] = declarer
    defenders = [p for p in range(3) if p != position]
    hands[defenders[0]] = sum(1 << int(c) for c in others[:10])
    hands[defenders[1]] = sum(1 << int(c) for c in others[10:20])
    skat = sum(1 << int(c) for c in others[20:22])
    return position, (hands[0], hands[1], hands[2]), skat


def solve_points(game: int, position: int, hands: tuple[int, int, int], skat_points: int) -> int:
    """Declarer's final card points (skat / put cards included) under perfect play."""
    return _solver().exact(DealPosition(game, position, hands, declarer_points=skat_points))


def solve_schwarz(game: int, position: int, hands: tuple[int, int, int]) -> bool:
    return bool(_solver().query(DealPosition(game, position, hands), "schwarz"))


def solve_null(position: int, hands: tuple[int, int, int]) -> bool:
    return bool(_solver().query(DealPosition(NULL, position, hands), "null"))


def label_hand(seed: int, deal_id: int, weak_accept: float = WEAK_ACCEPT) -> dict[str, Any]:
    """The hand-stage labels of one deal."""
    position, hands, skat = make_deal(seed, deal_id, weak_accept)
    sp = points_of(skat)
    pts = [solve_points(g, position, hands, sp) for g in range(5)]
    schwarz = [p == TOTAL_POINTS and solve_schwarz(g, position, hands) for g, p in enumerate(pts)]
    return {
        "deal_id": deal_id, "position": position, "hands": hands, "skat": skat,
        "points": pts, "schwarz": schwarz, "null": solve_null(position, hands),
    }


def label_pickup(
    seed: int, deal_id: int, puts: list[int], weak_accept: float = WEAK_ACCEPT
) -> dict[str, Any]:
    """Pick-up labels of one deal given the put (a 2-card mask) for games 0..5."""
    position, hands, skat = make_deal(seed, deal_id, weak_accept)
    twelve = hands[position] | skat
    pts = []
    for g in range(5):
        h = list(hands)
        h[position] = twelve & ~puts[g]
        pts.append(solve_points(g, position, (h[0], h[1], h[2]), points_of(puts[g])))
    h = list(hands)
    h[position] = twelve & ~puts[NULL]
    return {"deal_id": deal_id, "points": pts, "null": solve_null(position, (h[0], h[1], h[2]))}


def label_wins(task: tuple[int, int, int]) -> tuple[dict[str, np.ndarray], float]:
    """Held-out labels of the deals ``first .. first+count-1`` of ``seed`` (``task`` is
    ``(seed, first, count)``, deals of every strength: ``weak_accept`` 1) by the cheap
    threshold queries: per deal whether the declarer reaches 61 with the ten dealt cards
    in each suit and grand (the skat counts for him) and wins null. The arrays
    ``deal_id``, ``position``, ``hands``, ``skat``, ``win`` (deals x 5) and ``null``,
    and the CPU seconds spent (a task of plain data, for a process pool or a Dask
    cluster)."""
    seed, first, count = task
    start = time.process_time()
    s = _solver()
    hands, skats, pos, win, null = [], [], [], [], []
    for i in range(first, first + count):
        position, h, skat = make_deal(seed, i)
        sp = points_of(skat)
        win.append([bool(s.query(DealPosition(g, position, h, declarer_points=sp), "61"))
                    for g in range(5)])
        null.append(bool(s.query(DealPosition(NULL, position, h), "null")))
        hands.append(h)
        skats.append(skat)
        pos.append(position)
    arrays = {"deal_id": np.arange(first, first + count), "position": np.array(pos),
              "hands": np.array(hands, dtype=np.uint32),
              "skat": np.array(skats, dtype=np.uint32), "win": np.array(win),
              "null": np.array(null)}
    return arrays, time.process_time() - start
