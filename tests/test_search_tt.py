"""The shared search core: table layouts (pack/unpack), bound kinds, replacement, the
null-window driver."""

from __future__ import annotations

import numpy as np
import pytest

from spielwerk.search import tt
from spielwerk.search.mtdf import mtdf
from spielwerk.search.nullwindow import narrow, next_beta


@pytest.mark.parametrize("lo,hi,depth,move", [(-30000, 30000, 0, -1), (0, 0, 65535, 254),
                                              (-7, 12, 17, 3), (120, 120, 30, 31)])
def test_two_slot_pack_round_trip(lo: int, hi: int, depth: int, move: int) -> None:
    d = tt.pack(lo, hi, depth, move)
    assert (tt.data_lo(d), tt.data_hi(d), tt.data_depth(d), tt.data_move(d)) == (
        lo, hi, depth, move)


def test_work_of_is_the_bit_length() -> None:
    assert [tt.work_of(n) for n in (0, 1, 2, 3, 4, 1023, 1024)] == [0, 1, 2, 2, 3, 10, 11]
    assert tt.work_of(1 << 62) == 63


def _slots(table: np.ndarray) -> list[tuple[int, int, int]]:
    """(key, depth, work) of the two slots of a one-bucket table."""
    return [(int(table[2 * j]), tt.data_depth(int(table[2 * j + 1])),
             tt.data_work(int(table[2 * j + 1]))) for j in range(2)]


def test_two_slot_replacement_keeps_the_costlier_of_equal_depths() -> None:
    table = tt.new_table(1)  # one bucket: every key lands in it
    inf = tt.DEPTH_INF
    tt.store(table, 10, inf, 0, 4, 1, 20)  # a big subtree
    tt.store(table, 11, inf, -2, 2, 2, 3)
    assert _slots(table) == [(10, inf, 20), (11, inf, 3)]
    tt.store(table, 12, inf, 0, 0, 0, 5)  # cheaper than the first slot: second slot
    assert _slots(table) == [(10, inf, 20), (12, inf, 5)]
    tt.store(table, 13, inf, 1, 1, 0, 21)  # costlier: first slot, the old first moves down
    assert _slots(table) == [(13, inf, 21), (10, inf, 20)]
    tt.store(table, 10, inf, 2, 4, -1, 7)  # same key and depth: bounds merge, work kept
    lo_hi = (tt.data_lo(int(table[3])), tt.data_hi(int(table[3])), tt.data_move(int(table[3])))
    assert lo_hi == (2, 4, 1) and tt.data_work(int(table[3])) == 20
    tt.store(table, 14, 30, 0, 0, 0, 60)  # a shallower search never displaces a deeper one
    assert _slots(table) == [(13, inf, 21), (14, 30, 60)]


def test_two_slot_replacement_without_work_takes_the_newest_of_equal_depths() -> None:
    table = tt.new_table(1)  # callers that give no work (Durak's endgame) keep the old rule
    for key in (1, 2, 3):
        tt.store(table, key, 9, 0, 0, -1)
    assert [k for k, _, _ in _slots(table)] == [3, 2]


@pytest.mark.parametrize("gen,depth,side,move,lo,hi", [
    (1, 0, 0, -1, 0, 0), (255, 255, 15, 254, -30000, 30000), (108, 30, 2, 31, 0, 120),
    (7, 12, 1, 0, 61, 90)])
def test_cluster_entry_round_trip(gen: int, depth: int, side: int, move: int, lo: int,
                                  hi: int) -> None:
    d = tt.entry_pack(gen, depth, side, move, lo, hi)
    assert d >= 0  # the sign bit stays free
    assert (tt.entry_gen(d), tt.entry_depth(d), tt.entry_side(d), tt.entry_move(d),
            tt.entry_lo(d), tt.entry_hi(d)) == (gen, depth, side, move, lo, hi)


def test_bound_kinds() -> None:
    assert tt.bound_of(3, 3, 8) == tt.BOUND_UPPER == tt.Bound.UPPER
    assert tt.bound_of(8, 3, 8) == tt.BOUND_LOWER == tt.Bound.LOWER
    assert tt.bound_of(5, 3, 8) == tt.BOUND_EXACT == tt.Bound.EXACT
    assert tt.tighten(0, 120, 70, tt.BOUND_UPPER) == (0, 70)
    assert tt.tighten(0, 70, 40, tt.BOUND_LOWER) == (40, 70)
    assert tt.tighten(40, 70, 80, tt.BOUND_UPPER) == (40, 70)  # a looser bound changes nothing
    assert tt.tighten(40, 70, 55, tt.BOUND_EXACT) == (55, 55)
    assert tt.bound_kind(55, 55) == tt.Bound.EXACT
    assert tt.bound_kind(40, tt.VALUE_INF) == tt.Bound.LOWER
    assert tt.bound_kind(-tt.VALUE_INF, 70) == tt.Bound.UPPER
    assert tt.bound_kind(40, 70) == tt.Bound.RANGE


def test_cluster_store_probe_merge_and_generations() -> None:
    table = tt.new_cluster_table(6)
    mask = 63
    key = 0x123456789
    b = tt.cluster_bucket(key, 1, mask)
    assert b % tt.CLUSTER == 0
    assert tt.cluster_probe(table, b, key, 1, 5) == -1
    tt.cluster_store(table, b, key, 1, 5, 20, 70, tt.BOUND_UPPER, 9, 0, 120)
    e = tt.cluster_probe(table, b, key, 1, 5)
    assert e >= 0
    assert (tt.entry_lo(table[e + 1]), tt.entry_hi(table[e + 1])) == (0, 70)
    tt.cluster_store(table, b, key, 1, 5, 20, 40, tt.BOUND_LOWER, 3, 0, 120)
    d = table[tt.cluster_probe(table, b, key, 1, 5) + 1]
    assert (tt.entry_lo(d), tt.entry_hi(d), tt.entry_move(d)) == (40, 70, 3)
    assert tt.cluster_probe(table, b, key, 0, 5) == -1  # another side to move
    assert tt.cluster_probe(table, b, key, 1, 6) == -1  # another generation


def test_cluster_replacement_prefers_stale_then_shallowest() -> None:
    table = tt.new_cluster_table(2)  # one bucket of four entries
    b = tt.cluster_bucket(1, 0, 3)
    assert b == 0
    for k, depth in ((11, 9), (12, 3), (13, 7), (14, 5)):
        tt.cluster_store(table, b, k, 0, 1, depth, 5, tt.BOUND_EXACT, -1, 0, 10)
    tt.cluster_store(table, b, 15, 0, 1, 8, 5, tt.BOUND_EXACT, -1, 0, 10)
    assert tt.cluster_probe(table, b, 12, 0, 1) == -1  # full: the shallowest went
    for k in (11, 13, 14, 15):
        assert tt.cluster_probe(table, b, k, 0, 1) >= 0
    # for another generation every entry of this one is stale: the first goes
    tt.cluster_store(table, b, 16, 0, 2, 1, 5, tt.BOUND_EXACT, -1, 0, 10)
    assert tt.cluster_probe(table, b, 16, 0, 2) >= 0
    assert tt.cluster_probe(table, b, 11, 0, 1) == -1
    for k in (13, 14, 15):
        assert tt.cluster_probe(table, b, k, 0, 1) >= 0


@pytest.mark.parametrize("bisect", [False, True])
def test_null_window_driver_finds_every_value(bisect: bool) -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        lower = int(rng.integers(-20, 5))
        upper = lower + int(rng.integers(0, 40))
        value = int(rng.integers(lower, upper + 1))
        guess = int(rng.integers(lower - 5, upper + 6))
        calls: list[int] = []

        def test(beta: int, value: int = value, calls: list[int] = calls) -> int:
            calls.append(beta)
            return value  # exact fail-soft answers
        assert mtdf(test, guess, lower, upper, bisect=bisect) == value
        assert len(calls) <= (upper - lower).bit_length() + 2 or not bisect


def test_null_window_steps_on_a_lattice() -> None:
    assert next_beta(0, 10, 4, 0, 2, False) == 4
    assert next_beta(0, 10, 3, 0, 2, False) == 4  # the lattice point above the guess
    assert next_beta(0, 10, 0, 0, 1, True) == 5
    assert narrow(0, 10, 6, 3, 0, 2) == (0, 2)  # g < beta: an upper bound, on the lattice
    assert narrow(0, 10, 6, 7, 0, 2) == (8, 10)
    assert mtdf(lambda beta: 6, 0, -10, 10, step=2) == 6


def test_iterative_deepening_threads_each_depth_and_stops_on_a_timeout() -> None:
    from spielwerk.search.iterative import depth_schedule, iterative_deepening

    assert list(depth_schedule(2, 7)) == [2, 4, 6]
    assert list(depth_schedule(0, 7)) == []
    seen: list[tuple[int, int]] = []
    assert iterative_deepening(lambda d, g: g + d, depth_schedule(3, 9), 1,
                               lambda d, g: seen.append((d, g))) == 19
    assert seen == [(3, 4), (6, 10), (9, 19)]

    class Timeout(Exception):
        pass

    def search(depth: int, guess: int) -> int:
        if depth > 4:
            raise Timeout
        return guess + 1

    kept: list[int] = []
    with pytest.raises(Timeout):
        iterative_deepening(search, range(1, 10), 0, lambda d, g: kept.append(d))
    assert kept == [1, 2, 3, 4]  # the caller keeps what the finished depths handed over
