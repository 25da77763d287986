"""``put_grand_shift`` / ``put_null_shift``: the choice of the game after picking up, moved.

The shifts take log-odds off grand's (or null's) win chance where the game is chosen after
picking up; the bidding, and the chance the agent tells for the game it declared, keep the
calibration's. ``experiments/skat_declaration_diff.py`` measures such a change where the
declarations differ (tests of it run the script).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skat_helpers import declared_deals, random_hands
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.params import KnnParams
from spielwerk.games.skat_ai.putting import choose_game, knn_put

ROOT = Path(__file__).resolve().parents[1]
PLAIN = KnnParams(put_grand_shift=0.0, put_null_shift=0.0)  # by the chances alone


@pytest.fixture(scope="module")
def model() -> KnnModel:
    return KnnModel.load()


def choices(model: KnnModel, shifted: KnnParams, seed: int) -> list[tuple[int, int]]:
    """(game chosen by :data:`PLAIN`, game chosen by ``shifted``) after picking up, on 300
    random twelve-card hands at bid 18."""
    out = []
    for i, twelve in enumerate(random_hands(300, seed, 12)):
        d = knn_put(model, twelve, 18, PLAIN, i % 3)
        out.append((choose_game(d.per_game, twelve, 18, PLAIN, position=i % 3)[0],
                    choose_game(d.per_game, twelve, 18, shifted, position=i % 3)[0]))
    return out


def test_the_shift_is_per_game_type() -> None:
    p = KnnParams(put_grand_shift=0.7, put_null_shift=-0.4)
    assert (p.put_shift(GRAND), p.put_shift(NULL), p.put_shift(0), p.put_shift(3)) == (
        0.7, -0.4, 0.0, 0.0)
    assert PLAIN.put_shift(GRAND) == PLAIN.put_shift(NULL) == 0.0
    assert (KnnParams().put_shift(GRAND), KnnParams().put_shift(NULL)) == (0.85, -0.15)
    with pytest.raises(AgentSpecError, match="put_grand_shift"):
        make_agent("knn:put_grand_shift=4", load_game("skat"), 0)


def test_a_grand_shift_only_turns_grands_into_other_games(model: KnnModel) -> None:
    """Lowering grand's chance never makes grand the choice where it was not, and turns some
    grands into suit games; the other choices stay."""
    turned = kept = 0
    for plain, moved in choices(model, KnnParams(put_grand_shift=1.0, put_null_shift=0.0), 11):
        if plain != GRAND:
            assert moved == plain
        elif moved != GRAND:
            turned += 1
        else:
            kept += 1
    assert turned > 0 and kept > 0


def test_a_negative_null_shift_only_turns_games_into_null(model: KnnModel) -> None:
    turned = 0
    for plain, moved in choices(model, KnnParams(put_grand_shift=0.0, put_null_shift=-1.0), 12):
        if moved != plain:
            assert moved == NULL
            turned += 1
    assert turned > 0


def test_the_bidding_keeps_the_calibrations_chances(model: KnnModel) -> None:
    shifted = KnnParams(put_grand_shift=1.0, put_null_shift=-1.0)

    def bid(p: KnnParams, hand: int, position: int) -> tuple[object, ...]:
        d = decide_bid(model, hand, p, position)
        return (d.game, d.hand_game, d.max_bid, d.schneider, d.schwarz, d.ouvert, d.null_bid)

    bids = 0
    for i, hand in enumerate(random_hands(200, 13, 10)):
        assert bid(shifted, hand, i % 3) == bid(PLAIN, hand, i % 3)
        bids += bid(PLAIN, hand, i % 3)[2] > 0
    assert bids > 20


def test_the_chance_told_is_the_calibrations_the_chance_decided_is_shifted() -> None:
    """A grand declared after picking up: ``declaration_chance`` tells the calibration's
    chance with or without the shift; with ``cautious=True`` the chance its choice used."""
    game = load_game("skat")
    shifted = make_agent("knn:worlds=1:put_grand_shift=0.5", game, 0)
    for agents, state in declared_deals("knn:worlds=1", 8, 200):
        if state.contract.game != GRAND or state.contract.hand:
            continue
        info = state.info_state(state.declarer)
        plain = agents[state.declarer].declaration_chance(info)  # type: ignore[attr-defined]
        assert shifted.declaration_chance(info) == plain  # type: ignore[attr-defined]
        decided = shifted.declaration_chance(info, cautious=True)  # type: ignore[attr-defined]
        logit = np.log(plain / (1 - plain)) - 0.5
        assert decided == pytest.approx(1 / (1 + np.exp(-logit)))
        return
    pytest.fail("no grand declared after picking up in 200 deals")


def run_diff(tmp_path: Path, a: str, b: str, deals: int, *more: str) -> tuple[list[dict], str]:
    out = tmp_path / "diff.jsonl"
    done = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "skat_declaration_diff.py"), a, b,
         "--deals", str(deals), "--seed", "31", "--workers", "1", "--out", str(out), *more],
        capture_output=True, text=True, timeout=600, cwd=ROOT / "experiments")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()[1:]], done.stdout


def test_the_declaration_diff_plays_only_the_deals_declared_otherwise(tmp_path: Path) -> None:
    a = "knn:play=rule:calibration=played_grand_hand:put_grand_shift=0"
    rows, shown = run_diff(tmp_path, a, a + ":put_grand_shift=3", 60, "--defence", "rule")
    assert sorted(r["deal"] for r in rows) == list(range(60))
    changed = [r for r in rows if not r["same"]]
    assert changed and len(changed) < len(rows)
    for r in changed:
        assert r["a"]["declaration"] != r["b"]["declaration"]
        assert r["a"]["type"] == "grand" and r["b"]["type"] != "grand"
        for side in "ab":
            for defence in ("ours", "open", "rule"):
                got = r[side][defence]  # a lost game gives each defender 40
                assert got["relative"] == got["sf"] - (0 if got["won"] else 40)
                assert (got["sf"] > 0) == got["won"]
    for r in rows:
        if r["same"]:
            assert set(r) == {"deal", "same"}  # not played: both would score the same
    assert f"60 deals, {len(changed)} declared otherwise" in shown
    lines = shown.splitlines()
    table = lines.index(next(line for line in lines if line.startswith("defence ")))
    assert [line.split()[0] for line in lines[table + 1:table + 4]] == ["ours", "open", "rule"]
    # by change: one row per change, its deals and its relative sums per defence
    rows_by = lines[lines.index("by change: relative B-A per deal (sum)") + 2:]
    assert sum(int(line.split()[3]) for line in rows_by) == len(changed)
    for line in rows_by:
        a_type, b_type, deals = line.split()[0], line.split()[2], int(line.split()[3])
        mine = [r for r in changed if (r["a"]["type"], r["b"].get("type", "passed"))
                == (a_type, b_type)]
        assert len(mine) == deals
        sums = [float(x.strip("()")) for x in line.split()[5:] if x.startswith("(")]
        assert sums == [round(sum(r["b"][d]["relative"] - r["a"][d]["relative"]
                                  for r in mine)) for d in ("ours", "open", "rule")]
    (tmp_path / "same").mkdir()
    same, shown = run_diff(tmp_path / "same", a, a, 10)
    assert all(r["same"] for r in same) and "0 declared otherwise" in shown
