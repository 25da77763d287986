"""Refined skat selection (Edelkamp, "On the Power of Refined Skat Selection").

The declarer holds twelve cards and a fixed game; of the 66 ways to put two
cards, **hard rules** keep the plausible ones (the seed: usually 5-20), and a
**soft score** ``sum_i lambda_i * f_i`` ranks them. Everything below is our
reading of the seed's text (which is partly garbled); where it is vague the
choice is written next to the rule.

Game sub-types (:func:`subtype`), from the twelve cards:

* grand: ``standard_grand`` with 3-4 jacks; ``two_jack_grand`` with 2 jacks and at
  most 2 aces; ``high_card_grand`` with 0-1 jacks, or 2 jacks and 3-4 aces;
* suit: ``high_trump_suit`` when the club or spade jack is held with at least one
  more jack; else ``low_trump_suit``;
* null: ``null`` (no hard rules; scored by the null winning probability).

Hard rules (:data:`HARD_RULES`, each a small named predicate ``rule(ctx, put)``
that is True when the put may stay), in priority order; each applies to the
sub-types listed in :data:`RULES_BY_SUBTYPE`:

* :func:`no_trump_put` - suit games: never put a trump (jacks included);
* :func:`blank_tens_put` - put the blank (sole) tens, unless there are three or more;
* :func:`no_jack_put` - two-jack and standard grands keep their jacks (the seed
  permits jack puts in high-card and standard grands; we keep them in the standard
  grand, where our soft score alone put jacks for their two eyes);
* :func:`no_ace_put` - low-trump suit games and high-card grands keep their aces
  (the seed: "in a standard trump game we do not allow A to be put, while in
  high-card trumps we do"; a high-card grand plays from above);
* :func:`prefer_ace_to_ten` - high-card grand: of A and T of one suit put the A;
* :func:`ace_ten_need_king` - high-card grand: no A + T of one suit put when the
  suit is three cards long without the king (our reading of the seed's sentence);
* :func:`low_card_equivalence` - no 9 put while the 8 of the suit stays, no 8
  while the 7 stays (equivalent cards: put the lowest);
* :func:`ten_with_blank_low` - no ten and low card put while a blank low card
  (a singleton 7/8/9) of another suit stays;
* :func:`guarded_ten_stays` - while a once-guarded ten (T + one non-ace card)
  stays, no put of two cards below the ten from other suits (the seed's "no K, N'
  if N, 10 remain ..." rules).

The **high-card theorem** (:func:`high_card_theorem_puts`, grands): a put after
which the high cards the declarer secures (aces, tens with their ace, and the
eyes put) are at least the tricks he expects to lose wins; when such puts
exist, only they stay. **Fallback**: the rules filter one after the other; a
rule that would leave no put (e.g. no trump put with eleven trumps) falls back
to its relaxed form (:data:`RELAXED`: put only the lowest trumps needed) or,
without one, is dropped; the dropped rules are reported.

Soft features of a put (the ten cards kept), side suits being the non-trump
suits (grand: all four, jacks apart):

f1 winning probability in percent (:mod:`winprob`); f2 free (void) side suits;
f3 card points put; f4 good tens (A + T of a side suit kept); f5 bad tens (a
side ten kept without its ace) - a cost, it enters with a minus sign; f6 100%
standing cards (the top sequence of a side suit from the ace, cards put count
as gone); f7 / f8 cards standing later (after the opponents' higher cards are
drawn) with / without the power to retake the lead (2+ jacks, or 5+ trumps in a
suit game); f9 side suits led with an ace or retaken shortly (T + K).

The lambda tables (:data:`LAMBDAS`) are the seed's; where it gives a range
("2-25") the value moves from the low end in forehand to the high end in
rear hand (the seed partitions by position; the exact split is ours).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import (
    ACE,
    CLUBS,
    EIGHT,
    GAME_NAMES,
    GRAND,
    JACK,
    KING,
    NINE,
    NULL,
    SEVEN,
    SPADES,
    TEN,
    HandError,
    as_hand,
    has_card,
    points_of,
    side_suits,
    suit_cards,
)
from spielwerk.games.skat_ai.winprob import (
    WinProbTable,
    default_table,
    estimated_losers,
    expected_score,
    game_value,
)

LOW = (SEVEN, EIGHT, NINE)

Range = float | tuple[float, float]
LAMBDAS: dict[str, tuple[Range, ...]] = {
    "high_card_grand": (2, 2, 2, 2, 1, 2, 4, 1, 1),
    "two_jack_grand": (3, (2, 25), (3, 6), (3, 6), 1, 10, 4, 41, (1, 5)),
    "standard_grand": (10, 60, 3, 4, 5, 40, 40, 1, 1),
    "high_trump_suit": (15, 75, 2, 2, 2, 60, 60, 30, 0),
    "low_trump_suit": (2, (35, 100), (2, 4), (20, 50), 2, 40, 12, 12, (20, 25)),
}
"""lambda_1 .. lambda_9 per sub-type, as the seed lists them."""
SIGNS = (1, 1, 1, 1, -1, 1, 1, 1, 1)
"""f5 (bad tens) is a cost: it lowers the score."""
FEATURE_NAMES = ("win probability %", "free suits", "points put", "good tens", "bad tens",
                 "100% standing", "standing with retaking", "standing without retaking",
                 "suits led with ace or retaken")


class SelectionError(HandError):
    """A skat selection that cannot be made as asked (wrong cards, game or position)."""


# --------------------------------------------------------------------------- context
def subtype(twelve: int, game: int) -> str:
    """The game sub-type that picks the rules and the lambda table (module docstring)."""
    jacks = sum(has_card(twelve, s, JACK) for s in range(4))
    if game == NULL:
        return "null"
    if game == GRAND:
        aces = sum(has_card(twelve, s, ACE) for s in range(4))
        if jacks >= 3:
            return "standard_grand"
        if jacks == 2 and aces <= 2:
            return "two_jack_grand"
        return "high_card_grand"
    top = has_card(twelve, CLUBS, JACK) or has_card(twelve, SPADES, JACK)
    return "high_trump_suit" if top and jacks >= 2 else "low_trump_suit"


@dataclass(frozen=True)
class Context:
    twelve: int
    game: int
    position: int
    kind: str

    @property
    def trumps(self) -> int:
        return int(kernel.trump_mask(self.game)) if self.game != NULL else 0


# --------------------------------------------------------------------------- hard rules
def no_trump_put(ctx: Context, put: int) -> bool:
    """Suit games: no trump (jacks included) is put."""
    return not put & ctx.trumps


def blank_tens(cards: int, game: int) -> list[int]:
    """Tens that are the only non-jack card of their side suit."""
    return [s * 8 + TEN for s in side_suits(game) if suit_cards(cards, s) == 1 << TEN]


def blank_tens_put(ctx: Context, put: int) -> bool:
    """Blank tens are put (all of them when two; none forced when three or more)."""
    tens = blank_tens(ctx.twelve, ctx.game)
    if not 1 <= len(tens) <= 2:
        return True
    return all(put >> c & 1 for c in tens)


def no_jack_put(ctx: Context, put: int) -> bool:
    """No jack is put."""
    return not put & kernel.JACKS


def no_ace_put(ctx: Context, put: int) -> bool:
    """No ace is put."""
    return not any(put >> (s * 8 + ACE) & 1 for s in range(4))


def prefer_ace_to_ten(ctx: Context, put: int) -> bool:
    """Of ace and ten of one suit, the ace is put, not the ten alone."""
    for s in side_suits(ctx.game):
        if has_card(put, s, TEN) and has_card(ctx.twelve, s, ACE) and not has_card(put, s, ACE):
            return False
    return True


def ace_ten_need_king(ctx: Context, put: int) -> bool:
    """No A + T of one suit put when that suit is three cards without the king."""
    for s in side_suits(ctx.game):
        if has_card(put, s, ACE) and has_card(put, s, TEN):
            cards = suit_cards(ctx.twelve, s)
            if cards.bit_count() == 3 and not cards >> KING & 1:
                return False
    return True


def low_card_equivalence(ctx: Context, put: int) -> bool:
    """No 9 put while the 8 of its suit stays, no 8 put while the 7 stays."""
    for s in side_suits(ctx.game):
        for high, low in ((NINE, EIGHT), (EIGHT, SEVEN)):
            if (has_card(put, s, high) and has_card(ctx.twelve, s, low)
                    and not has_card(put, s, low)):
                return False
    return True


def ten_with_blank_low(ctx: Context, put: int) -> bool:
    """No ten + low card put while a blank low card of another suit stays in hand."""
    tens = [s for s in side_suits(ctx.game) if has_card(put, s, TEN)]
    lows = [s for s in side_suits(ctx.game) for r in LOW if has_card(put, s, r)]
    if not tens or not lows:
        return True
    rest = ctx.twelve & ~put
    for s in side_suits(ctx.game):
        cards = suit_cards(rest, s)
        if s not in tens and s not in lows and cards.bit_count() == 1 and (
                cards & sum(1 << r for r in LOW)):
            return False
    return True


def guarded_ten_stays(ctx: Context, put: int) -> bool:
    """While a once-guarded ten (T + one non-ace card) stays, no two low cards of other
    suits (below the ten: K, Q, 9, 8, 7) are put."""
    rest = ctx.twelve & ~put
    guarded = [s for s in side_suits(ctx.game)
               if suit_cards(rest, s).bit_count() == 2 and has_card(rest, s, TEN)
               and not has_card(rest, s, ACE)]
    if not guarded:
        return True
    put_suits = {c >> 3 for c in range(32) if put >> c & 1}
    below_ten = all(c & 7 in (SEVEN, EIGHT, NINE, 3, KING) for c in range(32) if put >> c & 1)
    return not (below_ten and not put_suits & set(guarded))


def lowest_trumps_put(ctx: Context, put: int) -> bool:
    """The relaxed :func:`no_trump_put` when fewer than two non-trumps are held: only
    as many trumps as needed, and the lowest ones."""
    held = [c for c in _trump_order_low_first(ctx.game) if ctx.twelve >> c & 1]
    need = max(0, 2 - (ctx.twelve & ~ctx.trumps).bit_count())
    allowed = sum(1 << c for c in held[:need])
    return (put & ctx.trumps) & ~allowed == 0


def _trump_order_low_first(game: int) -> list[int]:
    order = [s * 8 + JACK for s in (3, 2, 1, 0)]
    if game < 4:
        order += [game * 8 + r for r in (ACE, TEN, KING, 3, NINE, EIGHT, SEVEN)]
    return order[::-1]


HardRule = Callable[[Context, int], bool]
HARD_RULES: dict[str, HardRule] = {
    "no_trump_put": no_trump_put,
    "blank_tens_put": blank_tens_put,
    "no_jack_put": no_jack_put,
    "no_ace_put": no_ace_put,
    "prefer_ace_to_ten": prefer_ace_to_ten,
    "ace_ten_need_king": ace_ten_need_king,
    "low_card_equivalence": low_card_equivalence,
    "ten_with_blank_low": ten_with_blank_low,
    "guarded_ten_stays": guarded_ten_stays,
}
"""Every hard rule by name, in priority order (the fallback drops from the end)."""
RELAXED: dict[str, HardRule] = {"no_trump_put": lowest_trumps_put}
"""The weaker form a rule falls back to when it alone would leave no put."""
RULES_BY_SUBTYPE: dict[str, tuple[str, ...]] = {
    "high_card_grand": ("blank_tens_put", "no_ace_put", "prefer_ace_to_ten",
                        "ace_ten_need_king"),
    "two_jack_grand": ("blank_tens_put", "no_jack_put", "low_card_equivalence",
                       "ten_with_blank_low", "guarded_ten_stays"),
    "standard_grand": ("blank_tens_put", "no_jack_put", "low_card_equivalence",
                       "ten_with_blank_low", "guarded_ten_stays"),
    "high_trump_suit": ("no_trump_put", "blank_tens_put", "low_card_equivalence",
                        "ten_with_blank_low", "guarded_ten_stays"),
    "low_trump_suit": ("no_trump_put", "blank_tens_put", "no_ace_put",
                       "low_card_equivalence", "ten_with_blank_low", "guarded_ten_stays"),
    "null": (),
}


def secured_high_cards(ten: int, put: int, game: int) -> int:
    """High cards the declarer secures: side aces kept, tens kept with their ace, A/T put."""
    n = 0
    for s in side_suits(game):
        if has_card(ten, s, ACE):
            n += 1 + int(has_card(ten, s, TEN))
        n += int(has_card(put, s, ACE)) + int(has_card(put, s, TEN))
    return n


def high_card_theorem_puts(ctx: Context, puts: list[int]) -> list[int]:
    """Grands: the puts that satisfy the high-card theorem (secured high cards >= tricks
    expected to lose); empty when none does or the game is not a grand."""
    if ctx.game != GRAND:
        return []
    return [p for p in puts if secured_high_cards(ctx.twelve & ~p, p, GRAND)
            >= estimated_losers(ctx.twelve & ~p, GRAND)]


def all_puts(twelve: int) -> list[int]:
    cards = [c for c in range(32) if twelve >> c & 1]
    return [(1 << a) | (1 << b) for a, b in itertools.combinations(cards, 2)]


def _check(twelve: int | Any, game: int, position: int) -> int:
    mask = as_hand(twelve, (12,))
    if game not in range(6):
        raise SelectionError(f"game is 0..3 (diamonds .. clubs), 4 grand or 5 null, not {game}")
    if position not in (0, 1, 2):
        raise SelectionError(f"position is 0 forehand, 1 middlehand, 2 rearhand, not {position}")
    return mask


def hard_candidates(twelve: int | Any, game: int, position: int = 0
                    ) -> tuple[list[int], list[str], bool]:
    """(plausible puts, rules dropped by the fallback, high-card theorem applied)."""
    twelve = _check(twelve, game, position)
    ctx = Context(twelve, game, position, subtype(twelve, game))
    kept = all_puts(twelve)
    dropped: list[str] = []
    for name in RULES_BY_SUBTYPE[ctx.kind]:
        rule = HARD_RULES[name]
        left = [p for p in kept if rule(ctx, p)]
        if not left and name in RELAXED:
            left = [p for p in kept if RELAXED[name](ctx, p)]
        if left:
            kept = left
        if not left or name in RELAXED and not all(rule(ctx, p) for p in kept):
            dropped.append(name)
    theorem = high_card_theorem_puts(ctx, kept) if ctx.kind == "high_card_grand" else []
    return (theorem or kept), dropped, bool(theorem)


# --------------------------------------------------------------------------- soft features
def _top_sequence(own: int, gone: int) -> int:
    """Cards of ``own`` (a suit's rank bits) standing from the ace down; ``gone`` counts as
    played (cards put)."""
    n = 0
    for r in (ACE, TEN, KING, 3, NINE, EIGHT, SEVEN):
        if own >> r & 1:
            n += 1
        elif not gone >> r & 1:
            break
    return n


def _later_winners(own: int, gone: int) -> int:
    """Cards of the suit expected to win once the opponents' higher cards are drawn: the
    suit's length minus the missing top cards (A, T, K) within its first three rounds."""
    n = own.bit_count()
    rounds = min(n, 3)
    missing = sum(1 for r in (ACE, TEN, KING)[:rounds] if not (own | gone) >> r & 1)
    return max(0, n - missing)


def features(twelve: int, put: int, game: int, position: int, bid: int = 18,
             table: WinProbTable | None = None) -> tuple[float, ...]:
    """f1 .. f9 of putting ``put`` (see the module docstring)."""
    ten = twelve & ~put
    table = table or default_table()
    f1 = 100.0 * table.probability(ten, put, game, position, max(bid, 18))
    sides = side_suits(game)
    jacks = sum(has_card(ten, s, JACK) for s in range(4))
    trumps = (ten & int(kernel.trump_mask(game))).bit_count()
    retake = jacks >= 2 or (game < 4 and trumps >= 5)
    f2 = sum(suit_cards(ten, s) == 0 for s in sides)
    f3 = points_of(put)
    f4 = sum(has_card(ten, s, ACE) and has_card(ten, s, TEN) for s in sides)
    f5 = sum(has_card(ten, s, TEN) and not has_card(ten, s, ACE) for s in sides)
    f6 = f7 = f8 = 0
    for s in sides:
        own, gone = suit_cards(ten, s), suit_cards(put, s)
        top = _top_sequence(own, gone)
        later = max(0, _later_winners(own, gone) - top)
        f6 += top
        if retake:
            f7 += later
        else:
            f8 += later
    f9 = sum(has_card(ten, s, ACE) or (has_card(ten, s, TEN) and has_card(ten, s, KING))
             for s in sides)
    return (f1, float(f2), float(f3), float(f4), float(f5), float(f6), float(f7), float(f8),
            float(f9))


def lambdas(kind: str, position: int) -> tuple[float, ...]:
    """The lambda row of a sub-type; a range resolves by position (forehand low, rear high)."""
    t = position / 2
    out = []
    for v in LAMBDAS[kind]:
        if isinstance(v, tuple):
            out.append(v[0] + (v[1] - v[0]) * t)
        else:
            out.append(float(v))
    return tuple(out)


def soft_score(feats: tuple[float, ...], kind: str, position: int) -> float:
    lam = lambdas(kind, position)
    return float(sum(lam[i] * SIGNS[i] * feats[i] for i in range(9)))


@dataclass
class Selection:
    """What :func:`refined_put` found."""

    put: int
    game: int
    kind: str
    candidates: list[int]
    scores: dict[int, float]
    features: dict[int, tuple[float, ...]] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    theorem: bool = False

    @property
    def game_name(self) -> str:
        return GAME_NAMES[self.game]


def refined_put(twelve: int | Any, game: int, position: int = 0, bid: int = 18,
                table: WinProbTable | None = None) -> Selection:
    """The refined selection: hard rules, then the best soft score (ties: lowest put mask)."""
    candidates, dropped, theorem = hard_candidates(twelve, game, position)
    twelve = as_hand(twelve, (12,))
    kind = subtype(twelve, game)
    table = table or default_table()
    scores: dict[int, float] = {}
    feats: dict[int, tuple[float, ...]] = {}
    for p in candidates:
        if game == NULL:
            from spielwerk.games.skat_ai.knowledge.features import null_features

            risk = float(null_features(twelve & ~p)[0, 0::2].sum())
            scores[p] = 100.0 * table.null_probability(twelve & ~p) - 1e-3 * risk
            continue
        feats[p] = features(twelve, p, game, position, bid, table)
        scores[p] = soft_score(feats[p], kind, position)
    best = max(candidates, key=lambda p: (scores[p], -p))
    return Selection(best, game, kind, candidates, scores, feats, dropped, theorem)


# --------------------------------------------------------------------------- other strategies
def random_put(twelve: int | Any, rng: np.random.Generator | int) -> int:
    """Two of the twelve cards at random (the seed's baseline)."""
    twelve = as_hand(twelve, (12,))
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    puts = all_puts(twelve)
    return puts[int(gen.integers(len(puts)))]


def sample_opponents(twelve: int, worlds: int, rng: np.random.Generator
                     ) -> list[tuple[int, int]]:
    """``worlds`` splits of the 20 cards the declarer does not hold, 10 and 10."""
    rest = np.array([c for c in range(32) if not twelve >> c & 1], dtype=np.int64)
    out = []
    for _ in range(worlds):
        perm = rng.permutation(rest)
        out.append((int(sum(1 << int(c) for c in perm[:10])),
                    int(sum(1 << int(c) for c in perm[10:]))))
    return out


@dataclass
class PimcPut:
    put: int
    candidates: list[int]
    scores: dict[int, float]
    worlds: int
    seconds: float
    pruned: frozenset[int] = frozenset()
    """Puts given up early (``prune=True``): their score is the share of all worlds won
    among the worlds solved before it was clear they could not win."""
    solves: int = 0


def pimc_put(twelve: int | Any, game: int, position: int, worlds: int,
             rng: np.random.Generator | int, candidates: list[int] | None = None,
             solver: Any = None, values: str = "win", prune: bool = False) -> PimcPut:
    """The expensive reference: each plausible put solved double-dummy over ``worlds``
    sampled opponent hands (the same worlds for every put). ``values="win"`` (default):
    the share of worlds the declarer wins (61, null: no trick), ties by the points put;
    ``values="points"``: mean final card points (about 5-10 times dearer).

    ``prune=True`` (win values only) stops solving a put as soon as it cannot beat the
    best put so far even by winning every world left (ties counted by the tie-break), so
    the chosen put is the same as without pruning at fewer solves; put the likeliest
    candidates first (e.g. by the refined score) to prune the most."""
    from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig

    twelve = _check(twelve, game, position)
    if worlds < 1:
        raise SelectionError(f"worlds must be at least 1, not {worlds}")
    if values not in ("win", "points"):
        raise SelectionError(f"values is 'win' or 'points', not {values!r}")
    if prune and values != "win":
        raise SelectionError("prune needs values='win' (a share of worlds won)")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if candidates is None:
        candidates = hard_candidates(twelve, game, position)[0]
    solver = solver or Solver(SolverConfig(tt_log2=18))
    t0 = time.perf_counter()
    samples = sample_opponents(twelve, worlds, gen)
    defenders = [p for p in range(3) if p != position]

    def rank(p: int, total: float) -> tuple[float, int, int]:
        return (total, points_of(p), -p)

    scores: dict[int, float] = {}
    pruned: set[int] = set()
    best: tuple[float, int, int] | None = None
    solves = 0
    for put in candidates:
        total = 0.0
        for j, (a, b) in enumerate(samples):
            if prune and best is not None and rank(put, total + worlds - j) < best:
                pruned.add(put)
                break
            hands = [0, 0, 0]
            hands[position] = twelve & ~put
            hands[defenders[0]], hands[defenders[1]] = a, b
            pos = DealPosition(game, position, (hands[0], hands[1], hands[2]),
                               declarer_points=0 if game == NULL else points_of(put))
            solves += 1
            if game == NULL:
                total += float(bool(solver.query(pos, "null")))
            elif values == "win":
                total += float(solver.reaches(pos, 61))
            else:
                total += solver.exact(pos)
        scores[put] = total / worlds
        if put not in pruned and (best is None or rank(put, total) > best):
            best = rank(put, total)
    choice = max((p for p in candidates if p not in pruned),
                 key=lambda p: (scores[p], points_of(p), -p))
    return PimcPut(choice, candidates, scores, worlds, time.perf_counter() - t0,
                   frozenset(pruned), solves)


def game_expected_scores(twelve: int | Any, position: int = 0, bid: int = 18,
                         table: WinProbTable | None = None) -> dict[str, dict[str, float]]:
    """Per suit/grand game: the refined put's winning probability, game value and
    expected extended-Seeger score (the seed's expected-cost comparison of games)."""
    twelve = _check(twelve, 0, position)
    table = table or default_table()
    out = {}
    for g in range(5):
        s = refined_put(twelve, g, position, bid, table)
        p = table.probability(twelve & ~s.put, s.put, g, position, max(bid, 18))
        v = game_value(twelve, g)
        out[GAME_NAMES[g]] = {"probability": p, "value": float(v),
                             "expected": expected_score(p, v)}
    return out
