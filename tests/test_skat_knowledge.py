"""Skat knowledge bases: features, deals, the on-disk format and resumable building."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from spielwerk.core.parallel import SerialExecutor
from spielwerk.games.skat.cards import mask_of, points_of, string_to_card
from spielwerk.games.skat.dds import DealPosition, Solver
from spielwerk.games.skat_ai.knowledge import store
from spielwerk.games.skat_ai.knowledge.build import build_base
from spielwerk.games.skat_ai.knowledge.deals import (
    WEAK_ACCEPT,
    biddable,
    label_hand,
    label_wins,
    make_deal,
)
from spielwerk.games.skat_ai.knowledge.features import null_features, suit_features
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError, load_base


def hand(text: str) -> int:
    return mask_of(string_to_card(t) for t in text.split())


# ----- features (each checked by hand) --------------------------------------------------
def test_suit_features_of_a_checked_hand() -> None:
    f = suit_features(hand("CJ SJ CA CT C9 SA HT H7 D7 D8"))[0]
    # clubs: 2 jacks; CA CT C9; side aces+tens: SA (no ST) = 1; points 2+2+11+10+11+10 = 46;
    # no side suit missing; HT without HA = 1; jack score 4+3; trump score A5 T10 9:1 = 16
    assert f[3].tolist() == [2, 3, 1, 46, 0, 1, 7, 16]
    # hearts: trumps HT H7; side aces: CA+CT = 2, SA = 1 -> 3; tens without ace: none
    assert f[1].tolist() == [2, 2, 3, 46, 0, 0, 7, 11]
    # diamonds: D7 D8 trumps (score 2); side: CA CT (2) SA (1); HT alone
    assert f[0].tolist() == [2, 2, 3, 46, 0, 1, 7, 2]
    # grand: no non-jack trumps, all four suits are side suits (DA missing: D has no ace)
    assert f[4].tolist() == [2, 0, 3, 46, 0, 1, 7, 0]


def test_missing_suits_jack_score_and_trump_score() -> None:
    f = suit_features(hand("CJ SJ HJ DJ SA ST SK SQ S9 S8"))[0]
    # spades: 4 jacks + 6 spades; clubs, hearts, diamonds missing (3)
    assert f[2].tolist() == [4, 6, 0, 2 * 4 + 11 + 10 + 4 + 3, 3, 0, 10, 5 + 10 + 3 + 2 + 1 + 1]
    # clubs: no clubs, side suits S (ace+ten: 2), H and D missing
    assert f[3].tolist() == [4, 0, 2, 36, 2, 0, 10, 0]
    # grand: three suits missing, jack score 10
    assert f[4].tolist() == [4, 0, 2, 36, 3, 0, 10, 0]


def test_side_tens_without_ace_and_batch_shape() -> None:
    hs = [hand("CT ST HT DT C7 S7 H7 D7 C8 S8"), hand("CA CT SA ST HA HT DA DT CK SK")]
    f = suit_features(hs)
    assert f.shape == (2, 5, 8)
    assert f[0, 4, 5] == 4 and f[0, 4, 2] == 0  # grand: four tens without ace
    assert f[0, 3, 5] == 3  # clubs: CT is a trump, three side tens alone
    assert f[1, 4, 2] == 8 and f[1, 4, 3] == 4 * 21 + 8  # 92 points
    assert f[1, 3, 7] == 5 + 10 + 3  # CA CT CK


def test_null_features_are_suit_symmetric_and_measure_exposure() -> None:
    safe = null_features(hand("C7 C9 CJ S7 S8 H7 H9 D7 D8 D9"))[0]
    assert safe[0::2].tolist() == [0, 0, 0, 0]
    # spades J A: J at null rank 4 (excess 4), A at 7 with one card below (7 - 2 = 5)
    risky = null_features(hand("SJ SA C7 C8 C9 CT H7 H8 D7 D8"))[0]
    assert risky[:2].tolist() == [5, 2]
    renamed = null_features(hand("HJ HA D7 D8 D9 DT S7 S8 C7 C8"))[0]
    assert renamed.tolist() == risky.tolist()


# ----- deals ----------------------------------------------------------------------------
def test_deals_are_deterministic_complete_and_meet_the_card_floor() -> None:
    seen = np.zeros(32, dtype=int)
    for i in range(64):
        position, hands, skat = make_deal(5, i)
        assert make_deal(5, i) == (position, hands, skat)
        assert position == i % 3
        assert hands[position] >> (i % 32) & 1
        masks = [*hands, skat]
        assert sum(bin(m).count("1") for m in masks) == 32
        assert np.bitwise_or.reduce(masks) == (1 << 32) - 1
        for c in range(32):
            seen[c] += hands[position] >> c & 1
    assert seen.min() >= 64 // 32
    assert make_deal(6, 0) != make_deal(5, 0)


def test_bases_keep_every_biddable_hand_and_some_weak_ones() -> None:
    strong = [make_deal(8, i, 0.0) for i in range(60)]
    assert all(biddable(h[p]) for p, h, _ in strong)
    mixed = [make_deal(8, i, WEAK_ACCEPT) for i in range(200)]
    weak = sum(not biddable(h[p]) for p, h, _ in mixed)
    assert 0 < weak < 100  # a quarter of the ~64% weak hands: about 16%
    uniform = [make_deal(8, i) for i in range(200)]
    assert sum(not biddable(h[p]) for p, h, _ in uniform) > weak


def test_hand_labels_agree_with_the_solver() -> None:
    row = label_hand(26, 0)
    position, hands, skat = make_deal(26, 0, WEAK_ACCEPT)
    solver = Solver()
    for g in (0, 4):
        exact = solver.exact(DealPosition(g, position, hands, declarer_points=points_of(skat)))
        assert row["points"][g] == exact
    assert row["null"] == solver.query(DealPosition(5, position, hands), "null")
    assert all(not s for p, s in zip(row["points"], row["schwarz"], strict=True) if p < 120)


def test_held_out_win_labels_are_the_exact_points_over_61() -> None:
    arrays, cpu = label_wins((27, 3, 4))
    assert cpu >= 0.0
    assert arrays["deal_id"].tolist() == [3, 4, 5, 6]
    solver = Solver()
    for i, deal in enumerate(range(3, 7)):
        position, hands, skat = make_deal(27, deal)  # every strength: nothing left out
        assert int(arrays["position"][i]) == position and int(arrays["skat"][i]) == skat
        assert tuple(int(h) for h in arrays["hands"][i]) == hands
        for g in range(5):  # the threshold query against the exact card points
            exact = solver.exact(DealPosition(g, position, hands,
                                              declarer_points=points_of(skat)))
            assert bool(arrays["win"][i, g]) == (exact >= 61)
        assert bool(arrays["null"][i]) == label_hand(27, deal, 1.0)["null"]


# ----- building, the format, resuming ------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("kb") / "base"
    build_base(out, deals=2, seed=26, chunk=1, executor=SerialExecutor())
    return out


def test_build_writes_a_complete_checked_base(tiny_base: Path) -> None:
    manifest = json.loads((tiny_base / "manifest.json").read_text())
    assert manifest["format_version"] == store.FORMAT_VERSION
    assert manifest["parameters"]["seed"] == 26 and manifest["counts"]["deals"] == 2
    assert all(manifest["stages"][s]["complete"] for s in ("hand", "pickup"))
    data = load_base(tiny_base)
    assert data.deals == 2 and data.pickup is not None
    assert data.hand["deal_id"].tolist() == [0, 1]
    row = label_hand(26, 1)
    assert data.hand["points"][1].tolist() == row["points"]
    # every put is two cards of the twelve
    for i in range(2):
        position, hands, skat = make_deal(26, i, WEAK_ACCEPT)
        for put in data.pickup["puts"][i].tolist():
            assert bin(put).count("1") == 2 and put & ~(hands[position] | skat) == 0


def test_resume_recomputes_only_missing_chunks_with_identical_results(
        tiny_base: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_base, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    # a kill after the shard was renamed but before the manifest listed it
    del manifest["stages"]["hand"]["shards"]["hand-0000001.npz"]
    manifest["stages"]["hand"]["complete"] = False
    (copy / "manifest.json").write_text(json.dumps(manifest))
    (copy / "pickup-0000000.npz").unlink()  # and a lost file
    with pytest.raises(KnowledgeBaseError, match="not finished"):
        load_base(copy)
    with pytest.raises(KnowledgeBaseError, match="--resume"):
        build_base(copy, deals=2, seed=26, chunk=1)
    with pytest.raises(KnowledgeBaseError, match="other parameters"):
        build_base(copy, deals=2, seed=27, chunk=1, resume=True)
    calls: list[tuple[str, int]] = []
    build_base(copy, deals=2, seed=26, chunk=1, resume=True,
               progress=lambda stage, done, total: calls.append((stage, done)))
    a, b = load_base(tiny_base), load_base(copy)
    for key in a.hand:
        assert np.array_equal(a.hand[key], b.hand[key])
    assert a.pickup is not None and b.pickup is not None
    for key in a.pickup:
        assert np.array_equal(a.pickup[key], b.pickup[key])
    assert ("hand", 2) in calls and ("pickup", 2) in calls
    # cutting a base back keeps the first chunks
    build_base(copy, deals=1, seed=26, chunk=1, resume=True)
    assert load_base(copy).deals == 1
    assert not (copy / "hand-0000001.npz").exists()


def test_damaged_bases_are_refused_with_the_file_and_the_fix(tiny_base: Path,
                                                            tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_base, copy)
    shard = copy / "hand-0000000.npz"
    shard.write_bytes(shard.read_bytes()[:100])  # truncated
    with pytest.raises(KnowledgeBaseError, match=r"hand-0000000\.npz is damaged.*kb build"):
        load_base(copy)
    manifest = json.loads((tiny_base / "manifest.json").read_text())
    manifest["format_version"] = 99
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(KnowledgeBaseError, match="format version 99"):
        load_base(copy)
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(KnowledgeBaseError, match="unreadable"):
        load_base(copy)
    (copy / "manifest.json").unlink()
    with pytest.raises(KnowledgeBaseError, match=r"manifest\.json is missing"):
        load_base(copy)


def test_a_shard_with_a_matching_checksum_but_bad_content_is_refused(
        tiny_base: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_base, copy)
    bad = copy / "hand-0000000.npz"
    bad.write_bytes(b"not a zip file at all")
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["stages"]["hand"]["shards"]["hand-0000000.npz"]["sha256"] = store.sha256_of(bad)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(KnowledgeBaseError, match="cannot be read"):
        load_base(copy)


@pytest.mark.slow
def test_dask_local_cluster_builds_the_same_base(tiny_base: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from spielwerk.core.parallel import DaskExecutor

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        ex = DaskExecutor(cluster.scheduler_address)
        try:
            build_base(tmp_path / "dask", deals=1, seed=26, chunk=1, executor=ex,
                       put_base=tiny_base)
        finally:
            ex.close()
    a, b = load_base(tiny_base), load_base(tmp_path / "dask")
    for key in a.hand:
        assert np.array_equal(a.hand[key][:1], b.hand[key])


def test_a_folder_with_other_files_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """--out ~/Documents: a base's shards are not mixed into someone else's folder."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes\n")
    with pytest.raises(KnowledgeBaseError, match="holds other files and no knowledge base"):
        build_base(folder, deals=1, seed=3, chunk=1)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    build_base(empty, deals=1, seed=3, chunk=1)  # an empty folder is fine
    assert (empty / store.MANIFEST).is_file()
