"""Winning parameters on a hand-checked hand, table fallbacks, null product, expected score;
the shipped default table equal to a fresh build of its inputs, a damaged or stale one
rebuilt."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from spielwerk.games.skat.cards import HandError, string_to_card
from spielwerk.games.skat_ai import winprob
from spielwerk.games.skat_ai.winprob import (
    SHIPPED_SAMPLES,
    SHIPPED_TABLE,
    WinProbError,
    WinProbTable,
    add_samples,
    build_default_table,
    build_table,
    calibration,
    default_inputs,
    default_table,
    estimated_losers,
    expected_cost,
    expected_score,
    jack_group,
    load_default_table,
    read_default_table,
    read_samples,
    winning_parameters,
    write_default_table,
    write_samples,
)

CLUBS, GRAND = 3, 4


def hand(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


TEN = hand("CJ SJ HJ CA CT C9 SA S7 HT H8")
PUT = hand("D7 D8")


def test_winning_parameters_hand_checked() -> None:
    # w1 diamonds void; w2 0 eyes put; w3 bid 18; w4 forehand; w5 6 trumps; w6 4;
    # w7 club + spade jack; w8: spades A x -> 1, hearts T x -> 2, trumps: of the top six
    # (CJ SJ HJ DJ CA CT) the DJ is missing -> 1; total 4
    assert winning_parameters(TEN, PUT, CLUBS, 0, 18) == (1, 0, 0, 0, 6, 4, 1, 4)
    # grand: diamonds void; 3 trumps (jacks); w8: clubs A T x -> 1, spades 1,
    # hearts 2, jacks: top three CJ SJ HJ held -> 0
    assert winning_parameters(TEN, PUT, GRAND, 2, 48) == (1, 0, 2, 2, 3, 7, 1, 4)
    assert estimated_losers(TEN, CLUBS) == 4
    assert jack_group(hand("CJ SJ HJ DJ CA CT C9 SA S7 HT")) == 0
    assert jack_group(hand("SJ HJ CA CT C9 SA S7 HT H8 H9")) == 3


def test_bad_input_refused() -> None:
    with pytest.raises(HandError):
        winning_parameters(TEN | PUT, 0, CLUBS, 0)
    with pytest.raises(HandError, match="two cards"):
        winning_parameters(TEN, hand("CJ D7"), CLUBS, 0)
    with pytest.raises(WinProbError, match="not 5"):
        winning_parameters(TEN, PUT, 5, 0)
    with pytest.raises(WinProbError, match="probability"):
        expected_score(1.5, 24)


def test_foreground_background_and_overall_levels() -> None:
    t = WinProbTable()
    w = winning_parameters(TEN, PUT, CLUBS, 0)
    assert t.lookup(CLUBS, w)[1] == "overall"
    other = w[:1] + (3,) + w[2:]  # same background cell (w5, w8), other foreground cell
    for i in range(6):
        t.add(CLUBS, other, i % 2 == 0)
    p, level, n = t.lookup(CLUBS, w)
    assert (level, n) == ("background", 6) and 0.4 < p < 0.6
    for _ in range(10):
        t.add(CLUBS, w, True)
    p, level, n = t.lookup(CLUBS, w)
    assert (level, n) == ("foreground", 10) and p > 0.85
    assert t.lookup(GRAND, w)[1] == "overall"  # grand has its own tables


def test_null_is_a_product_of_suit_ratios() -> None:
    t = WinProbTable()
    safe = hand("C7 C8 C9 S7 S8 S9 H7 H8 D7 D8")
    risky = hand("CA CK CQ SA SK SQ HA HK DA DK")
    for _ in range(20):
        t.add_null(safe, True)
        t.add_null(risky, False)
    assert t.null_probability(safe) > 0.9
    assert t.null_probability(risky) < 0.01
    cells = [t.null_ratio(c) for c in ((0, 3), (0, 2))]
    assert t.null_probability(safe) == pytest.approx(cells[0] ** 2 * cells[1] ** 2)


def test_expected_score_and_cost() -> None:
    assert expected_score(1.0, 24) == 74
    assert expected_score(0.0, 24) == -98
    assert expected_score(0.5, 24) == pytest.approx(-12)
    assert expected_cost(0.5, 24) == pytest.approx(12)


def test_calibration_and_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    p = rng.random(4000)
    y = rng.random(4000) < p
    c = calibration(p, y)
    assert c["binned_abs_error"] < 0.03  # calibrated by construction
    c_bad = calibration(np.full(4000, 0.9), y)
    assert c_bad["binned_abs_error"] > 0.3
    from spielwerk.games.skat_ai.knowledge.store import default_base_dir, read_manifest

    t = default_table()
    deals = read_manifest(default_base_dir())["counts"]["deals"]  # the shipped base
    shipped = read_samples(SHIPPED_SAMPLES)[0]["counts"]  # + the shipped glassbox samples
    assert t.samples == {"suit": 4 * deals + shipped["suit"], "grand": deals + shipped["grand"],
                         "null": deals}
    path = tmp_path / "table.json"
    t.save(path)
    u = WinProbTable.load(path)
    w = winning_parameters(TEN, PUT, CLUBS, 0)
    assert u.lookup(CLUBS, w) == t.lookup(CLUBS, w)
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(WinProbError, match="not a winning-probability table"):
        WinProbTable.load(path)


def test_sample_file_round_trip_and_bad_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    samples = [(CLUBS, TEN, PUT, 0, 24, 1), (GRAND, TEN, PUT, 2, 48, 0)]
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    write_samples(a, {"source": "test", "seed": 3}, samples)
    write_samples(b, {"source": "test", "seed": 3}, samples)
    assert a.read_bytes() == b.read_bytes()  # reproducible: no time stamp
    manifest, back = read_samples(a)
    assert back == samples and manifest["seed"] == 3 and manifest["source"] == "test"
    t = WinProbTable()
    add_samples(t, back)
    assert t.samples == {"suit": 1, "grand": 1, "null": 0}
    assert t.foreground["suit"].get(winning_parameters(TEN, PUT, CLUBS, 0, 24)) == (1, 1)
    b.write_bytes(b"not gzip")
    with pytest.raises(WinProbError, match="cannot read winprob samples"):
        read_samples(b)
    b.write_bytes(gzip.compress(b'{"format": "other"}\n'))
    with pytest.raises(WinProbError, match="not a winprob sample file"):
        read_samples(b)


def test_shipped_samples_move_the_tables_towards_played_games() -> None:
    """The shipped glassbox samples are the reasonable games a declarer plays: about
    half won (the base's pick-up games: mostly hopeless). With them the tables'
    overall suit rate moves up from the base's."""
    manifest, samples = read_samples(SHIPPED_SAMPLES)
    counts = manifest["counts"]
    assert manifest["seed"] == 7 and counts["samples"] == len(samples) > 20000
    assert counts["suit"] + counts["grand"] == len(samples)
    assert counts["won"] == sum(s[5] for s in samples)
    assert 0.4 < counts["won"] / len(samples) < 0.6
    base, shipped = build_table([None]), default_table()
    assert "glassbox samples" in shipped.source
    # the shipped tables are the base's counts plus the samples', game kind by kind
    suit = [s for s in samples if s[0] != GRAND]
    suit_won = sum(s[5] for s in suit)
    (bw, bn), (sw, sn) = base.totals["suit"], shipped.totals["suit"]
    assert (sw, sn) == (bw + suit_won, bn + len(suit))
    # the played games are won far more often than the base's pick-up games, so the
    # overall suit rate moves up, to between the base's rate and the samples' own
    # (the samples are more than a third of the suit counts with the 10,000-deal base)
    assert len(suit) > 0.35 * sn
    sample_rate = suit_won / len(suit)
    assert base._rate("suit") + 0.1 < shipped._rate("suit") < sample_rate


def test_shipped_default_table_is_the_build_of_its_inputs(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The committed table (loaded in hundredths of a second instead of built in seconds on
    a worker's first refined put) names today's inputs and equals a fresh build of them."""
    manifest, shipped = read_default_table(SHIPPED_TABLE)
    hint = f"the shipped table is stale; rebuild it with: {winprob.REBUILD}"
    assert manifest["inputs"] == default_inputs(), hint
    assert shipped.to_json() == build_default_table().to_json(), hint
    assert manifest["samples"] == shipped.samples

    def no_build() -> WinProbTable:
        raise AssertionError("the shipped table matches: nothing to build")

    monkeypatch.setattr(winprob, "build_default_table", no_build)
    assert load_default_table().to_json() == shipped.to_json()


def test_default_table_file_written_atomically_and_a_bad_one_rebuilt(  # type: ignore[no-untyped-def]
        tmp_path, monkeypatch, caplog) -> None:
    small = WinProbTable(source="small")
    small.add(CLUBS, winning_parameters(TEN, PUT, CLUBS, 0), True)
    built = []

    def build() -> WinProbTable:
        built.append(1)
        return WinProbTable.from_json(small.to_json())

    monkeypatch.setattr(winprob, "build_default_table", build)
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    write_default_table(a)
    write_default_table(b)
    assert a.read_bytes() == b.read_bytes()  # reproducible: no time stamp
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.jsonl.gz", "b.jsonl.gz"]
    built.clear()
    assert load_default_table(a).to_json() == small.to_json() and not built  # taken as is
    good = a.read_bytes()
    raw = gzip.decompress(good)
    first, second = raw.split(b"\n")[:2]
    stale = json.loads(first)
    stale["inputs"]["samples_sha256"] = "0" * 64
    damaged = {
        "missing": None,
        "not gzip": b"not gzip",
        "truncated": good[: len(good) // 2],
        "corrupt": good[:20] + bytes(x ^ 0xFF for x in good[20:40]) + good[40:],
        "empty": gzip.compress(b""),
        "other format": gzip.compress(b'{"format": "other"}\n' + second),
        "bad table": gzip.compress(first + b"\n" + b'{"format": "spielwerk-skat-winprob"}\n'),
        "stale": gzip.compress(json.dumps(stale).encode() + b"\n" + second),
    }
    for why, data in damaged.items():
        if data is None:
            b.unlink()
        else:
            b.write_bytes(data)
        built.clear()
        caplog.clear()
        with caplog.at_level("WARNING", logger="spielwerk.games.skat_ai.winprob"):
            assert load_default_table(b).to_json() == small.to_json(), why
        assert built == [1], why  # rebuilt from the inputs, not read
        assert "rebuild the file with" in caplog.text, why
