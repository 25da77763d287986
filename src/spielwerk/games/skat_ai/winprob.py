"""Winning-probability tables addressed by the seed's winning parameters w1..w8.

The seed (Edelkamp, "On the Power of Refined Skat Selection") estimates the
declarer's chance to win from hash tables filled with millions of expert
games: a large *foreground* table over all winning parameters and a small
*background* table over a few of them, used when a foreground cell has too
few samples; one pair for suit games, one for grand. Null is the product of
per-suit winning ratios ``W(h) = W(h,C) W(h,S) W(h,H) W(h,D)``.

We have no expert games. The tables here are filled from **our own solved
deals**: the pick-up stage of a knowledge base (:mod:`knowledge`): every
deal's declarer took the skat, put two cards (KNN putting) and the deal was
solved double-dummy for each suit and grand; a sample is "won" when the
declarer ends with at least 61 card points. That is perfect-information play,
so the tables are optimistic compared with real play (say so when quoting).

The default tables (:func:`default_table`) are built ahead and shipped
(:data:`SHIPPED_TABLE`, with the digests of the base and samples they were built
from): loading them takes hundredths of a second where building takes seconds
(a web worker's first refined put). A file that is missing, damaged or built
from other inputs is not used: the tables are built instead, with a warning.

Winning parameters (:func:`winning_parameters`) of ten cards after the put:

* w1 - non-trump suits the player lacks (0-3; grand: suits without a non-jack card, 0-4);
* w2 - eyes put in the skat in 4 groups: 0-3, 4-10, 11-19, 20+;
* w3 - bid stage in 4 groups: bid <= 23, <= 35, <= 59, higher. Our deals have no
  auction; the builder uses the hand's own game value (with its matadors) as the bid;
* w4 - declarer position (0 forehand, 1 middlehand, 2 rearhand);
* w5 - trumps in hand (suit 0-11, grand 0-4: the jacks);
* w6 - non-trumps in hand (10 - w5);
* w7 - jack group: 0 all four, 1 club+spade jack (not all four), 2 club jack without
  the spade jack, 3 spade jack without the club jack, 4 neither;
* w8 - tricks estimated to lose (:func:`estimated_losers`, 0-6).

Foreground key (w1..w8); background key (w5, w8). A foreground cell is
used from :data:`MIN_FOREGROUND` samples, a background cell from
:data:`MIN_BACKGROUND`, else the game kind's overall rate. Cells are
smoothed towards the next level (``(wins + m p) / (n + m)``, m = 2).

Null per-suit ratio: a suit's (null risk, length) (the exposure of
:mod:`knowledge.features`) is the cell. Each deal's result is seen by all four
of its suits, so a cell's raw rate includes the other suits' risk; with the
product model ``E[win | suit c] ~ W_c * base^(3/4)`` (base = the overall rate),
so ``W_c = rate_c / base^(3/4)``, capped to 1. Our reading; the seed gives none.

Expected score (the seed's equation did not survive in its text; the issue
and REFERENCE.md give the extended Seeger system): a won game is worth
``value + 50``, a lost one costs ``2 * value + 50``, so
``E = W (V + 50) - (1 - W)(2 V + 50)`` for the declarer;
:func:`expected_cost` is ``-E`` (lower is better).
"""

from __future__ import annotations

import gzip
import json
import logging
import math
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import (
    ACE,
    CLUBS,
    GRAND,
    JACK,
    KING,
    NULL,
    SPADES,
    TEN,
    HandError,
    as_hand,
    points_of,
    side_suits,
    suit_cards,
)
from spielwerk.games.skat.scoring import NULL_VALUES, suit_game_value

MIN_FOREGROUND = 10
MIN_BACKGROUND = 5
SMOOTHING = 2.0
WIN_BONUS = 50
"""Extended Seeger system: +value +50 for a won game, -2 x value -50 for a lost one."""
FORMAT = "spielwerk-skat-winprob"

Sample = tuple[int, int, int, int, int, int]
"""(game, ten, put, position, bid, won) - one solved pick-up game."""


class WinProbError(SpielwerkError, ValueError):
    """A winning-probability table that cannot be built, read or asked."""


def _kind(game: int) -> str:
    if game == GRAND:
        return "grand"
    if game in (0, 1, 2, 3):
        return "suit"
    raise WinProbError(f"winning parameters are for suit games 0..3 and grand 4, not {game}")


def estimated_losers(ten: int, game: int) -> int:
    """Tricks the declarer expects to lose, capped at 6 (w8).

    Side suits: of the first ``min(length, 3)`` rounds, each one not covered by the
    ace, ten, king held from the top down is a loser (A x x: 2, A T x: 1, T x: 2,
    K: 1). Trumps: with n trumps, each of the n highest trumps not held is a loser
    (the opponents' higher trumps take tricks). A bridge-like count, our reading.
    """
    losers = 0
    for s in side_suits(game):
        cards = suit_cards(ten, s)
        n = cards.bit_count()
        rounds = min(n, 3)
        covered = 0
        for r in (ACE, TEN, KING)[:rounds]:
            if cards >> r & 1:
                covered += 1
            else:
                break
        losers += rounds - covered
    order = [s * 8 + JACK for s in (3, 2, 1, 0)]
    if game < 4:
        order += [game * 8 + r for r in (6, 5, 4, 3, 2, 1, 0)]
    held = sum(ten >> c & 1 for c in order)
    losers += sum(1 for c in order[:held] if not ten >> c & 1)
    return min(losers, 6)


def jack_group(ten: int) -> int:
    """w7: 0 all four jacks, 1 club+spade, 2 club without spade, 3 spade without club, 4 neither."""
    jacks = sum(ten >> (s * 8 + JACK) & 1 for s in range(4))
    cj, sj = ten >> (CLUBS * 8 + JACK) & 1, ten >> (SPADES * 8 + JACK) & 1
    if jacks == 4:
        return 0
    if cj and sj:
        return 1
    if cj:
        return 2
    if sj:
        return 3
    return 4


def _group(x: int, edges: tuple[int, ...]) -> int:
    return sum(x > e for e in edges)


def winning_parameters(ten: int, put: int, game: int, position: int, bid: int = 18
                       ) -> tuple[int, int, int, int, int, int, int, int]:
    """(w1, ..., w8) of the ten cards kept and the two put (see the module docstring)."""
    ten = as_hand(ten, (10,))
    _kind(game)
    if put.bit_count() != 2 or put & ten:
        raise HandError("the put is two cards that are not among the ten kept")
    if position not in (0, 1, 2):
        raise WinProbError(f"position is 0, 1 or 2, not {position}")
    w1 = sum(suit_cards(ten, s) == 0 for s in side_suits(game))
    w2 = _group(points_of(put), (3, 10, 19))
    w3 = _group(bid, (23, 35, 59))
    trumps = (ten & int(kernel.trump_mask(game))).bit_count()
    return (w1, w2, w3, position, trumps, 10 - trumps, jack_group(ten),
            estimated_losers(ten, game))


def background_key(w: tuple[int, ...]) -> tuple[int, ...]:
    """(w5 trumps, w8 tricks to lose): of (w4, w5, w8), (w5, w7, w8), (w1, w5, w8) and
    (w5, w8) the smallest was the least off on held-out deals (docs/skat-selection.md)."""
    return (w[4], w[7])


def _null_cells(ten: int) -> list[tuple[int, int]]:
    from spielwerk.games.skat_ai.knowledge.features import null_features

    f = null_features(ten)[0]
    return [(int(f[2 * i]), int(f[2 * i + 1])) for i in range(4)]


@dataclass
class _Counts:
    cells: dict[tuple[int, ...], list[int]] = field(default_factory=dict)

    def add(self, key: tuple[int, ...], won: bool) -> None:
        c = self.cells.setdefault(key, [0, 0])
        c[0] += int(won)
        c[1] += 1

    def get(self, key: tuple[int, ...]) -> tuple[int, int]:
        c = self.cells.get(key)
        return (c[0], c[1]) if c else (0, 0)


@dataclass
class WinProbTable:
    """Foreground and background tables for suit and grand, per-suit ratios for null."""

    foreground: dict[str, _Counts] = field(
        default_factory=lambda: {"suit": _Counts(), "grand": _Counts()})
    background: dict[str, _Counts] = field(
        default_factory=lambda: {"suit": _Counts(), "grand": _Counts()})
    totals: dict[str, list[int]] = field(
        default_factory=lambda: {"suit": [0, 0], "grand": [0, 0], "null": [0, 0]})
    null_suits: _Counts = field(default_factory=_Counts)
    source: str = ""
    min_foreground: int = MIN_FOREGROUND
    min_background: int = MIN_BACKGROUND

    # ---- filling
    def add(self, game: int, params: tuple[int, ...], won: bool) -> None:
        kind = _kind(game)
        self.foreground[kind].add(tuple(params), won)
        self.background[kind].add(background_key(params), won)
        self.totals[kind][0] += int(won)
        self.totals[kind][1] += 1

    def add_null(self, ten: int, won: bool) -> None:
        ten = as_hand(ten, (10,))
        for cell in _null_cells(ten):
            self.null_suits.add(cell, won)
        self.totals["null"][0] += int(won)
        self.totals["null"][1] += 1

    # ---- asking
    def _rate(self, kind: str) -> float:
        w, n = self.totals[kind]
        return (w + 1.0) / (n + 2.0)

    def lookup(self, game: int, params: tuple[int, ...]) -> tuple[float, str, int]:
        """(probability, level used: foreground / background / overall, samples in that cell)."""
        kind = _kind(game)
        overall = self._rate(kind)
        bw, bn = self.background[kind].get(background_key(params))
        back = (bw + SMOOTHING * overall) / (bn + SMOOTHING)
        fw, fn = self.foreground[kind].get(tuple(params))
        if fn >= self.min_foreground:
            return (fw + SMOOTHING * back) / (fn + SMOOTHING), "foreground", fn
        if bn >= self.min_background:
            return back, "background", bn
        return overall, "overall", self.totals[kind][1]

    def probability(self, ten: int, put: int, game: int, position: int, bid: int = 18) -> float:
        """The declarer's chance to win ``game`` with these ten cards and this put."""
        if game == NULL:
            return self.null_probability(ten)
        return self.lookup(game, winning_parameters(ten, put, game, position, bid))[0]

    def null_ratio(self, cell: tuple[int, int]) -> float:
        base = self._rate("null")
        w, n = self.null_suits.get(cell)
        rate = (w + SMOOTHING * base) / (n + SMOOTHING)
        return float(min(1.0, rate / base ** 0.75))

    def null_probability(self, ten: int) -> float:
        """Product of the four per-suit ratios W(h, c)."""
        ten = as_hand(ten, (10,))
        return float(math.prod(self.null_ratio(c) for c in _null_cells(ten)))

    @property
    def samples(self) -> dict[str, int]:
        return {k: v[1] for k, v in self.totals.items()}

    # ---- files
    def to_json(self) -> dict[str, Any]:
        def dump(c: _Counts) -> list[list[int]]:
            return [list(k) + v for k, v in sorted(c.cells.items())]

        return {
            "format": FORMAT, "version": 1, "source": self.source,
            "min_foreground": self.min_foreground, "min_background": self.min_background,
            "totals": self.totals,
            "foreground": {k: dump(v) for k, v in self.foreground.items()},
            "background": {k: dump(v) for k, v in self.background.items()},
            "null_suits": dump(self.null_suits),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WinProbTable:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise WinProbError("not a winning-probability table (format "
                               f"{FORMAT!r} expected)")

        def load(rows: list[list[int]]) -> _Counts:
            return _Counts({tuple(int(x) for x in r[:-2]): [int(r[-2]), int(r[-1])]
                            for r in rows})

        try:
            t = cls(source=str(data.get("source", "")),
                    min_foreground=int(data["min_foreground"]),
                    min_background=int(data["min_background"]))
            t.totals = {k: [int(v[0]), int(v[1])] for k, v in data["totals"].items()}
            t.foreground = {k: load(v) for k, v in data["foreground"].items()}
            t.background = {k: load(v) for k, v in data["background"].items()}
            t.null_suits = load(data["null_suits"])
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise WinProbError(f"damaged winning-probability table: {e}") from None
        return t

    def save(self, path: Path | str) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json()))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path | str) -> WinProbTable:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as e:
            raise WinProbError(f"cannot read winning-probability table {path}: {e}") from None
        return cls.from_json(data)


def game_value(cards: int, game: int) -> int:
    """Plain value of a won game with the matadors of ``cards`` (null: 23)."""
    return NULL_VALUES[(False, False)] if game == NULL else suit_game_value(cards, game)


def pickup_samples(directory: Path | str | None = None) -> Iterable[Sample]:
    """(game, ten, put, position, bid, won) for every pick-up-stage game of a base; null
    samples have game 5, put 0 (null ignores the put's points)."""
    from spielwerk.games.skat_ai.knowledge.store import default_base_dir, load_base

    base = load_base(directory or default_base_dir(), need_pickup=True)
    hand, pick = base.hand, base.pickup
    assert pick is not None
    for i in range(len(hand["deal_id"])):
        pos = int(hand["position"][i])
        twelve = int(hand["hands"][i][pos]) | int(hand["skat"][i])
        for g in range(6):
            put = int(pick["puts"][i][g])
            ten = twelve & ~put
            if g == NULL:
                yield NULL, ten, 0, pos, 23, int(bool(pick["null"][i]))
            else:
                bid = game_value(twelve, g)
                yield g, ten, put, pos, bid, int(pick["points"][i][g] >= 61)


def build_table(directories: Iterable[Path | str | None]) -> WinProbTable:
    """A table filled from the pick-up stage of knowledge bases (see the module docstring)."""
    table = WinProbTable()
    names = []
    for d in directories:
        names.append(str(d) if d else "shipped base")
        add_samples(table, pickup_samples(d))
    table.source = "pick-up stage of " + ", ".join(names)
    return table


SAMPLES_FORMAT = "spielwerk-skat-winprob-samples"
SHIPPED_SAMPLES = (Path(__file__).resolve().parents[2] / "data" / "skat_winprob"
                   / "glassbox-seed7.jsonl.gz")
"""Solved glassbox deals shipped beside the knowledge base (see its manifest line)."""

def write_samples(path: Path | str, manifest: dict[str, Any], samples: Iterable[Sample]) -> None:
    """A gzip JSON Lines file: the manifest line (``format`` added), then one sample a line.
    Written atomically and byte-reproducibly (no time stamp in the gzip header)."""
    lines = [json.dumps({"format": SAMPLES_FORMAT, "version": 1, **manifest})]
    lines += [json.dumps([int(x) for x in s], separators=(",", ":")) for s in samples]
    _write_gzip(Path(path), "\n".join(lines) + "\n")


def _write_gzip(path: Path, text: str) -> None:
    """``text`` gzipped to ``path`` atomically (a temporary file, then renamed) and
    byte-reproducibly (no time stamp in the gzip header)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as f:
        f.write(text.encode())
    tmp.replace(path)


def _read_manifest(f: IO[str], path: Path | str, fmt: str, what: str) -> dict[str, Any]:
    """The first line of an open file, checked to be a manifest of format ``fmt``."""
    manifest = json.loads(f.readline())
    if not isinstance(manifest, dict) or manifest.get("format") != fmt:
        raise WinProbError(f"{path} is not a {what} (format {fmt!r} expected)")
    return manifest


def read_samples(path: Path | str) -> tuple[dict[str, Any], list[Sample]]:
    """(manifest, samples) of a file written by :func:`write_samples`."""
    try:
        with gzip.open(path, "rt") as f:
            manifest = _read_manifest(f, path, SAMPLES_FORMAT, "winprob sample file")
            samples: list[Sample] = []
            for line in f:
                g, ten, put, pos, bid, won = (int(x) for x in json.loads(line))
                samples.append((g, ten, put, pos, bid, won))
    except (OSError, ValueError, TypeError, EOFError) as e:
        raise WinProbError(f"cannot read winprob samples {path}: {e}") from None
    return manifest, samples


def add_samples(table: WinProbTable, samples: Iterable[Sample]) -> None:
    """Count suit / grand samples into ``table`` (null samples go to the per-suit ratios)."""
    for game, ten, put, pos, bid, won in samples:
        if game == NULL:
            table.add_null(ten, bool(won))
        else:
            table.add(game, winning_parameters(ten, put, game, pos, bid), bool(won))


SHIPPED_TABLE = SHIPPED_SAMPLES.with_name("default-table.jsonl.gz")
""":func:`default_table` built ahead and committed: a manifest line naming the digests of
its inputs (:func:`default_inputs`), then the table (:meth:`WinProbTable.to_json`)."""
SHIPPED_FORMAT = "spielwerk-skat-winprob-default"
TABLE_BUILD = 1
"""The version of the way :func:`build_default_table` fills the table: part of the inputs,
raised when the filling changes, so a table built the old way is not taken."""
REBUILD = ('python -c "from spielwerk.games.skat_ai.winprob import write_default_table; '
           'write_default_table()"')

log = logging.getLogger(__name__)


def build_default_table() -> WinProbTable:
    """The default table built from its inputs (about 5-8 s): the shipped knowledge base's
    pick-up stage plus the shipped glassbox samples (:data:`SHIPPED_SAMPLES`: the
    reasonable games a declarer plays, which the base alone underrates)."""
    table = build_table([None])
    manifest, samples = read_samples(SHIPPED_SAMPLES)
    add_samples(table, samples)
    table.source += f" + {len(samples)} glassbox samples ({manifest.get('source', '?')})"
    return table


def default_inputs() -> dict[str, Any]:
    """What the default table is built from: the SHA-256 of the shipped base's manifest
    (which holds every shard's checksum), of the glassbox samples, and :data:`TABLE_BUILD`."""
    from spielwerk.games.skat_ai.knowledge.store import (
        base_fingerprint,
        default_base_dir,
        sha256_of,
    )

    return {"base_manifest_sha256": base_fingerprint(default_base_dir())["manifest_sha256"],
            "samples_sha256": sha256_of(SHIPPED_SAMPLES), "build": TABLE_BUILD}


def write_default_table(path: Path | str = SHIPPED_TABLE) -> WinProbTable:
    """Build the default table and write it with its inputs' digests to ``path``:
    atomically (a temporary file, then renamed) and byte-reproducibly."""
    table = build_default_table()
    manifest = {"format": SHIPPED_FORMAT, "version": 1, "inputs": default_inputs(),
                "samples": table.samples, "rebuild": REBUILD}
    _write_gzip(Path(path), json.dumps(manifest) + "\n" + json.dumps(table.to_json()) + "\n")
    return table


def read_default_table(path: Path | str = SHIPPED_TABLE) -> tuple[dict[str, Any], WinProbTable]:
    """(manifest, table) of a file :func:`write_default_table` wrote; :class:`WinProbError`
    if it is missing or damaged."""
    try:
        with gzip.open(path, "rt") as f:
            manifest = _read_manifest(f, path, SHIPPED_FORMAT,
                                      "shipped winning-probability table")
            table = WinProbTable.from_json(json.loads(f.readline()))
    except (OSError, ValueError, EOFError, zlib.error) as e:  # WinProbError is a ValueError
        raise WinProbError(f"cannot read winning-probability table {path}: {e}") from None
    return manifest, table


def load_default_table(path: Path | str = SHIPPED_TABLE) -> WinProbTable:
    """The table at ``path`` if it was built from today's inputs, else a fresh build (with a
    warning naming why and how to rebuild the file)."""
    try:
        manifest, table = read_default_table(path)
        if manifest.get("inputs") == default_inputs():
            return table
        why = "its knowledge base, glassbox samples or build differ"
    except WinProbError as e:
        why = str(e)
    log.warning("winning-probability table %s not used (%s): building it (seconds); "
                "rebuild the file with: %s", path, why, REBUILD)
    return build_default_table()


_DEFAULT: WinProbTable | None = None


def default_table() -> WinProbTable:
    """The default tables, loaded on first use from :data:`SHIPPED_TABLE` (a few hundredths
    of a second), or built from the shipped base and glassbox samples when that file does
    not match them (:func:`load_default_table`)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_default_table()
    return _DEFAULT


def expected_score(probability: float, value: int) -> float:
    """Declarer's expected extended-Seeger score: W (V + 50) - (1 - W)(2 V + 50)."""
    if not 0.0 <= probability <= 1.0:
        raise WinProbError(f"a probability is 0..1, not {probability}")
    return probability * (value + WIN_BONUS) - (1 - probability) * (2 * value + WIN_BONUS)


def expected_cost(probability: float, value: int) -> float:
    """The seed's expected cost C = -E (lower is better), so games can be compared."""
    return -expected_score(probability, value)


def calibration(predicted: np.ndarray, won: np.ndarray, bins: int = 10
                ) -> dict[str, float]:
    """How far predictions are off on held-out samples.

    ``mean_abs_error``: mean |p - outcome| is not informative for 0/1 outcomes, so
    we report the seed's kind of figure as the sample-weighted mean of
    |mean prediction - observed win rate| over ``bins`` equal-width probability
    bins, plus the Brier score and the overall predicted vs observed rate.
    """
    p = np.asarray(predicted, dtype=float)
    y = np.asarray(won, dtype=float)
    if len(p) == 0 or len(p) != len(y):
        raise WinProbError("calibration needs as many outcomes as predictions (at least one)")
    idx = np.minimum((p * bins).astype(int), bins - 1)
    off = 0.0
    for b in range(bins):
        sel = idx == b
        if sel.any():
            off += sel.sum() * abs(p[sel].mean() - y[sel].mean())
    return {
        "samples": float(len(p)),
        "binned_abs_error": off / len(p),
        "brier": float(((p - y) ** 2).mean()),
        "mean_predicted": float(p.mean()),
        "observed_rate": float(y.mean()),
    }


__all__ = [
    "SHIPPED_SAMPLES", "SHIPPED_TABLE", "WinProbError", "WinProbTable", "add_samples",
    "build_default_table", "build_table", "calibration", "default_inputs", "default_table",
    "estimated_losers", "expected_cost", "expected_score", "game_value", "jack_group",
    "load_default_table", "pickup_samples", "read_default_table", "read_samples",
    "winning_parameters", "write_default_table", "write_samples",
]
