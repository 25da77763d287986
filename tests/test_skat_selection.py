"""Refined skat selection: each hard rule on a hand where it decides, the fallback, the
high-card theorem, the soft features on a hand-checked put, the strategies and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.games.skat.cards import HandError, points_of, string_to_card
from spielwerk.games.skat_ai.selection import (
    LAMBDAS,
    Context,
    SelectionError,
    ace_ten_need_king,
    all_puts,
    blank_tens_put,
    estimated_losers,
    features,
    guarded_ten_stays,
    hard_candidates,
    high_card_theorem_puts,
    lambdas,
    low_card_equivalence,
    no_ace_put,
    no_jack_put,
    no_trump_put,
    pimc_put,
    prefer_ace_to_ten,
    random_put,
    refined_put,
    secured_high_cards,
    subtype,
    ten_with_blank_low,
)

HEARTS, CLUBS, GRAND = 1, 3, 4


def h(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


def ctx(twelve: str, game: int) -> Context:
    m = h(twelve)
    return Context(m, game, 0, subtype(m, game))


def test_subtypes() -> None:
    assert subtype(h("CJ SJ HJ CA CT C9 C8 SA S7 HA H7 D8"), GRAND) == "standard_grand"
    assert subtype(h("CJ SJ CA CT C9 C8 SA ST S9 HK H8 D7"), GRAND) == "two_jack_grand"
    assert subtype(h("CJ SJ CA CT C9 SA ST S9 HA H8 D7 D8"), GRAND) == "high_card_grand"
    assert subtype(h("CJ SJ CA CT C9 C8 SA S7 HA H7 D8 D7"), CLUBS) == "high_trump_suit"
    assert subtype(h("HJ DJ HA HT H9 H8 SA S7 CK C7 DQ D9"), HEARTS) == "low_trump_suit"


def test_no_trump_put_decides_in_suit_games() -> None:
    c = ctx("CJ SJ CA CT C9 C8 SA S7 HA H7 D8 D7", CLUBS)
    assert not no_trump_put(c, h("CJ S7")) and not no_trump_put(c, h("C8 S7"))
    assert no_trump_put(c, h("S7 D7"))
    cands, dropped, _ = hard_candidates(c.twelve, CLUBS)
    assert cands and not dropped and all(not p & c.trumps for p in cands)


def test_blank_tens_are_put_unless_three() -> None:
    c = ctx("CJ SJ HJ CA CT C9 C8 SA S7 S8 HT D7", GRAND)  # HT blank
    assert not blank_tens_put(c, h("S7 S8")) and blank_tens_put(c, h("HT D7"))
    assert all(p & h("HT") for p in hard_candidates(c.twelve, GRAND)[0])
    three = ctx("CJ SJ HJ DJ CA CK C9 C8 C7 ST HT DT", GRAND)
    assert all(blank_tens_put(three, p) for p in all_puts(three.twelve))


def test_two_jack_grand_keeps_its_jacks() -> None:
    c = ctx("CJ SJ CA CT C9 C8 SA ST S9 HK H8 D7", GRAND)
    assert not no_jack_put(c, h("CJ D7")) and no_jack_put(c, h("H8 D7"))
    assert all(not p & h("CJ SJ") for p in hard_candidates(c.twelve, GRAND)[0])


def test_aces_stay_in_low_trump_suit_games_only() -> None:
    low = ctx("HJ DJ HA HT H9 H8 SA S7 CK C7 DQ D9", HEARTS)
    assert not no_ace_put(low, h("SA S7"))
    assert all(not p & h("SA") for p in hard_candidates(low.twelve, HEARTS)[0])
    high = h("CJ SJ HA HT H9 H8 SA S7 CK C7 DQ D9")  # high-trump: an ace may go
    assert any(p & h("SA") for p in hard_candidates(high, HEARTS)[0])


def test_prefer_ace_to_ten_and_ace_ten_need_king() -> None:
    c = ctx("CJ CA CT C9 SA ST SK HA HT H9 D7 D8", GRAND)
    assert c.kind == "high_card_grand"
    assert not prefer_ace_to_ten(c, h("ST D7")) and prefer_ace_to_ten(c, h("SA D7"))
    assert not ace_ten_need_king(c, h("HA HT"))  # A T 9: three cards without the king
    assert ace_ten_need_king(c, h("SA ST"))  # A T K


def test_low_card_equivalence() -> None:
    c = ctx("CJ SJ HJ HA HK H9 H8 S9 S8 S7 CK D7", HEARTS)
    assert not low_card_equivalence(c, h("S9 D7"))  # the 8 stays
    assert not low_card_equivalence(c, h("S9 S8"))  # the 7 stays
    assert low_card_equivalence(c, h("S8 S7")) and low_card_equivalence(c, h("S7 D7"))


def test_ten_with_blank_low() -> None:
    c = ctx("CJ SJ HJ HA HK H9 H8 ST S9 C7 C8 D7", HEARTS)
    assert not ten_with_blank_low(c, h("ST C7"))  # the blank D7 stays
    assert ten_with_blank_low(c, h("ST D7"))


def test_guarded_ten_stays() -> None:
    c = ctx("CJ SJ HJ HA HK H9 H8 ST S9 CK CQ D7", HEARTS)
    assert not guarded_ten_stays(c, h("CK CQ"))  # ST S9 stays once guarded
    assert guarded_ten_stays(c, h("ST D7")) and guarded_ten_stays(c, h("S9 CK"))


def test_fallback_on_eleven_trumps() -> None:
    twelve = h("CJ SJ HJ DJ CA CT CK CQ C9 C8 C7 D7")
    cands, dropped, _ = hard_candidates(twelve, CLUBS)
    assert "no_trump_put" in dropped
    assert cands == [h("D7 C7")]  # one trump must go: the lowest
    # a hand with two non-trumps needs no fallback
    cands, dropped, _ = hard_candidates(h("CJ SJ HJ DJ CA CT CK CQ C9 C8 D8 D7"), CLUBS)
    assert not dropped and cands == [h("D7 D8")]


def test_high_card_theorem() -> None:
    twelve = h("HJ CA CT C7 ST S8 HA DA DT DK DQ D9")
    c = Context(twelve, GRAND, 0, subtype(twelve, GRAND))
    good = high_card_theorem_puts(c, all_puts(twelve))
    assert good and len(good) < 66
    cands, _, theorem = hard_candidates(twelve, GRAND)
    assert theorem
    for p in cands:
        assert secured_high_cards(twelve & ~p, p, GRAND) >= estimated_losers(twelve & ~p, GRAND)


def test_features_hand_checked() -> None:
    twelve = h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8")
    f = features(twelve, h("D7 D8"), CLUBS, 0)
    # free suits 1 (diamonds); 0 eyes put; no A+T side pair; bad ten HT; standing SA;
    # hearts T x: one card stands later, with retaking (3 jacks); spades led with the ace
    assert f[1:] == (1, 0, 0, 1, 1, 1, 0, 1)
    assert 0 <= f[0] <= 100


def test_lambda_tables_are_data() -> None:
    assert set(LAMBDAS) == {"high_card_grand", "two_jack_grand", "standard_grand",
                            "high_trump_suit", "low_trump_suit"}
    assert all(len(row) == 9 for row in LAMBDAS.values())
    assert lambdas("two_jack_grand", 0)[1] == 2 and lambdas("two_jack_grand", 2)[1] == 25
    assert lambdas("standard_grand", 1)[5] == 40


def test_refined_put_ranks_every_candidate() -> None:
    twelve = h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8")
    s = refined_put(twelve, CLUBS, 0)
    assert 1 <= len(s.candidates) <= 20
    assert set(s.scores) == set(s.candidates)
    assert s.scores[s.put] == max(s.scores.values())
    assert not s.put & (h("CJ SJ HJ CA CT C9"))
    # same input, same answer
    assert refined_put(twelve, CLUBS, 0).put == s.put


def test_random_and_pimc_puts() -> None:
    twelve = h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8")
    assert random_put(twelve, 5) == random_put(twelve, np.random.default_rng(5))
    assert (random_put(twelve, 5) & ~twelve) == 0 and random_put(twelve, 5).bit_count() == 2
    cands = [h("D7 D8"), h("HT H8")]
    r = pimc_put(twelve, CLUBS, 0, 2, 11, cands)
    assert r.put in cands and r.scores[r.put] == max(r.scores.values())
    assert pimc_put(twelve, CLUBS, 0, 2, 11, cands).put == r.put
    with pytest.raises(SelectionError, match="worlds"):
        pimc_put(twelve, CLUBS, 0, 0, 11, cands)
    assert points_of(h("HT H8")) == 10


def test_bad_hands_refused() -> None:
    with pytest.raises(HandError, match="12 distinct cards, not 10"):
        refined_put(h("CJ SJ HJ CA CT C9 SA S7 HT H8"), CLUBS)
    with pytest.raises(SelectionError, match="game"):
        hard_candidates(h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8"), 7)
    with pytest.raises(SelectionError, match="position"):
        refined_put(h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8"), CLUBS, 3)


def test_cli_put_with_fixed_game_and_bid_strength() -> None:
    runner = CliRunner()
    cards = "CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8"
    r = runner.invoke(app, ["skat", "put", cards, "--game", "clubs", "--putting", "refined",
                            "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["game"] == "clubs" and len(out["put"]) == 2
    assert out["candidates"] == len(out["scores"])
    assert " ".join(out["put"]) in out["scores"]
    r = runner.invoke(app, ["skat", "put", cards, "--game", "null", "--json"])
    assert r.exit_code != 0 and "--game must be" in r.output + str(r.exception)
    r = runner.invoke(app, ["skat", "put", cards, "--putting", "bogus"])
    assert r.exit_code != 0 and "--putting must be" in r.output + str(r.exception)
    r = runner.invoke(app, ["skat", "bid", "CJ SJ HJ CA CT C9 SA S7 HT H8", "--json"])
    assert r.exit_code == 0, r.output
    strength = json.loads(r.output)["strength"]
    assert strength["stegen"]["clubs"] == 16 and strength["kinback"]["clubs"] == 7.5


def test_bot_hooks_putting_and_bidding() -> None:
    from spielwerk.core.agent import AgentSpecError, make_agent
    from spielwerk.core.registry import load_game
    from spielwerk.games.skat.bidding import highest_bid_at_most
    from spielwerk.games.skat.scoring import suit_game_value
    from spielwerk.games.skat_ai.knn import KnnModel
    from spielwerk.games.skat_ai.params import KnnParams
    from spielwerk.games.skat_ai.putting import decide_put

    model = KnnModel.load()
    twelve = h("CJ SJ HJ CA CT C9 SA S7 HT H8 D7 D8")
    ev = KnnParams(decision="ev", calibration="rule")  # pinned: not the agent's default
    d = decide_put(model, twelve, 18, ev, putting="refined")
    assert d.put == refined_put(twelve, d.game, 0).put
    r = decide_put(model, twelve, 18, ev, putting="random")
    assert r.game == d.game and r.put.bit_count() == 2 and not r.put & ~twelve
    game = load_game("skat")
    agent = make_agent("knn:bidding=stegen:putting=refined:worlds=1", game, seed=1)
    ten = h("CJ SJ HJ CA CT C9 SA S7 HT H8")
    b = agent.bid_decision(ten, 0)  # type: ignore[attr-defined]
    assert b.game == CLUBS and not b.hand_game
    assert b.max_bid == highest_bid_at_most(suit_game_value(ten, CLUBS)) == 48
    weak = make_agent("knn:bidding=kinback:worlds=1", game, seed=1)
    assert weak.bid_decision(h("S7 S8 S9 H7 H8 H9 D7 D8 D9 C7"), 0).max_bid == 0  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="bidding"):
        make_agent("knn:bidding=bogus", game, seed=1)


def test_bot_put_uses_the_declarers_position() -> None:
    from spielwerk.games.skat_ai.knn import KnnModel
    from spielwerk.games.skat_ai.params import KnnParams
    from spielwerk.games.skat_ai.putting import bot_put

    model = KnnModel.load()
    twelve = h("CJ SJ CA CT C9 C8 SA ST S9 HK H8 D7")
    ev = KnnParams(decision="ev", calibration="rule")  # pinned: not the agent's default
    for position in (0, 2):
        d = bot_put(model, twelve, 18, ev, "refined", position)
        assert d.put == refined_put(twelve, d.game, position).put
    with pytest.raises(SelectionError, match="putting"):
        bot_put(model, twelve, 18, None, "bogus", 0)
