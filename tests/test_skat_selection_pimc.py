"""PIMC putting with pruning: the same put as the full solve, with fewer solves."""

from __future__ import annotations

import pytest

from spielwerk.games.skat.cards import string_to_card
from spielwerk.games.skat_ai.selection import SelectionError, pimc_put, refined_put

CLUBS, GRAND = 3, 4


def h(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


@pytest.mark.parametrize("twelve, game", [
    ("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8", CLUBS),
    ("CJ DJ CA CK C8 C7 SA ST S9 HT D7 D8", CLUBS),
    ("CJ SJ SA ST SK HA HT H9 DA D7 D8 C7", GRAND),
])
def test_pruned_pimc_put_matches_the_full_solve(twelve: str, game: int) -> None:
    m = h(twelve)
    sel = refined_put(m, game, 0)
    cands = sorted(sel.candidates, key=lambda p: -sel.scores[p])
    full = pimc_put(m, game, 0, 6, 3, cands)
    cut = pimc_put(m, game, 0, 6, 3, cands, prune=True)
    assert cut.put == full.put
    assert full.solves == 6 * len(cands) and not full.pruned
    assert cut.solves < full.solves and cut.pruned
    # a pruned put never scored more than the chosen one, and unpruned puts agree
    for p in cands:
        assert cut.scores[p] <= full.scores[p]
        if p not in cut.pruned:
            assert cut.scores[p] == full.scores[p]


def test_pimc_put_decides_by_the_share_won_not_the_points_put() -> None:
    # one jack, a long club suit: putting both tens (20 points) loses most worlds;
    # HT D7 wins the most of the three, H7 D7 fewer
    m = h("DJ CA CK CQ C9 C8 SA ST S9 HT H7 D7")
    cands = [h("ST HT"), h("H7 D7"), h("HT D7")]
    full = pimc_put(m, CLUBS, 0, 8, 3, cands)
    assert full.scores[h("HT D7")] > full.scores[h("H7 D7")] > full.scores[h("ST HT")]
    assert full.put == h("HT D7")
    assert pimc_put(m, CLUBS, 0, 8, 3, cands, prune=True).put == full.put


def test_prune_needs_win_values() -> None:
    with pytest.raises(SelectionError, match="prune"):
        pimc_put(h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8"), CLUBS, 0, 2, 1, None,
                 values="points", prune=True)
