"""Skat rules: cards, kernel, bidding, skat, play, early ends, concessions, info states."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies

from spielwerk.core.errors import GameParameterError, IllegalActionError
from spielwerk.core.game import CHANCE, TERMINAL
from spielwerk.core.registry import load_game
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import (
    ALL_CARDS_MASK,
    CardError,
    card_to_string,
    cards_of,
    mask_of,
    points_of,
    string_to_card,
)
from spielwerk.games.skat.rules import (
    CLAIM,
    DEAL_ORDER,
    HOLD,
    NUM_ACTIONS,
    PASS,
    PICKUP,
    PLAY_ON,
    RESIGN,
    SKAT_PLACE,
    SkatState,
    action_to_string,
    bid_action,
    declaration_action,
)
from spielwerk.games.skat.scoring import Contract, parse_contract

# the deal of ISS game 541932
FH = "HA SK SJ SA CQ S8 C9 H7 H9 DQ"
MH = "CJ S9 DJ S7 D9 SQ C8 HQ DK CA"
RH = "D8 D7 DT CT ST C7 HK DA HT HJ"
SKAT = "H8 CK"


def cards(text: str) -> list[int]:
    return [string_to_card(t) for t in text.split()]


def dealt(fh: str = FH, mh: str = MH, rh: str = RH, skat: str = SKAT,
          spec: str = "skat") -> SkatState:
    """A state right after dealing these hands (positions, not seats)."""
    state = load_game(spec).new_initial_state()
    assert isinstance(state, SkatState)
    pools = {0: cards(fh), 1: cards(mh), 2: cards(rh), SKAT_PLACE: cards(skat)}
    for place in DEAL_ORDER:
        state.apply(pools[place].pop(0))
    return state


def play(state: SkatState, moves: str) -> None:
    for m in moves.split():
        state.apply(state.string_to_action(m))


def declare(state: SkatState, bidding: str, decision: str) -> None:
    """Bid (ISS notation), then pick up and put (``s C7 C8 D``) or declare hand (``GH``)."""
    play(state, bidding)
    play(state, decision)


# ----- cards and the kernel ----------
def test_cards_round_trip_and_points() -> None:
    names = [card_to_string(c) for c in range(32)]
    assert len(set(names)) == 32
    assert all(string_to_card(n) == c for c, n in enumerate(names))
    assert string_to_card("cj") == 31 and card_to_string(0) == "D7"
    assert points_of(ALL_CARDS_MASK) == 120
    with pytest.raises(CardError):
        string_to_card("CX")
    with pytest.raises(CardError):
        card_to_string(32)


def _winner(trick: str, game: int) -> str:
    c = cards(trick)
    return card_to_string(c[kernel.trick_winner(c[0], c[1], c[2], game)])


def test_trick_winners_hand_checked() -> None:
    # suit game hearts: a jack beats the trump ace; the trump beats the led ace
    assert _winner("HA DJ H7", 1) == "DJ"
    assert _winner("SA H7 ST", 1) == "H7"
    assert _winner("SK SA ST", 1) == "SA"
    assert _winner("SK CA ST", 1) == "ST"  # CA does not follow, cannot win
    assert _winner("CJ SJ HJ", 1) == "CJ"
    # grand: only jacks are trumps, in suit order C S H D
    assert _winner("HA HJ H7", 4) == "HJ"
    assert _winner("DJ HJ SA", 4) == "HJ"
    assert _winner("ST SA SJ", 4) == "SJ"
    # null: no trumps, A K Q J T 9 8 7; a ten is below the jack
    assert _winner("HT HJ H9", 5) == "HJ"
    assert _winner("H7 CA SJ", 5) == "H7"
    assert _winner("DQ DK DA", 5) == "DA"
    assert _winner("S9 ST S8", 5) == "ST"


def test_legal_cards_follow_suit_classes() -> None:
    hand = mask_of(cards("SJ S7 HA D9"))
    # grand: a spade lead is followed with S7 only (SJ is a trump)
    assert cards_of(kernel.legal_cards(hand, string_to_card("SA"), 4)) == cards("S7")
    # a jack lead in grand asks for a jack
    assert cards_of(kernel.legal_cards(hand, string_to_card("CJ"), 4)) == cards("SJ")
    # diamonds game: a trump lead (D7) is followed by SJ or D9
    assert sorted(cards_of(kernel.legal_cards(hand, string_to_card("D7"), 0))) == sorted(
        cards("SJ D9")
    )
    # null: the jack is a spade
    assert sorted(cards_of(kernel.legal_cards(hand, string_to_card("SA"), 5))) == sorted(
        cards("SJ S7")
    )
    # void: anything
    assert kernel.legal_cards(mask_of(cards("HA D9")), string_to_card("CA"), 4) == mask_of(
        cards("HA D9")
    )
    assert kernel.legal_cards(hand, -1, 2) == hand


def test_matadors_over_ten_cards_plus_skat() -> None:
    assert kernel.matadors(mask_of(cards("CJ SJ HJ DJ CA CT")), 3) == 6
    assert kernel.matadors(mask_of(cards("CJ SJ HJ DJ CA CT")), 4) == 4
    assert kernel.matadors(mask_of(cards("HJ DJ CA")), 3) == -2
    assert kernel.matadors(mask_of(cards("CJ HJ")), 4) == 1
    assert kernel.matadors(mask_of(cards("D7")), 4) == -4
    assert kernel.matadors(mask_of(cards("D7")), 0) == -10
    all_clubs = mask_of(cards("CJ SJ HJ DJ CA CT CK CQ C9 C8 C7"))
    assert kernel.matadors(all_clubs, 3) == 11
    assert kernel.matadors(0, 3) == -11
    assert kernel.matadors(all_clubs, 5) == 0


# ----- action encoding ----------
def test_action_strings_are_iss_notation() -> None:
    assert action_to_string(31) == "CJ"
    assert action_to_string(bid_action(18)) == "18" and action_to_string(bid_action(264)) == "264"
    assert (action_to_string(HOLD), action_to_string(PASS), action_to_string(PICKUP)) == (
        "y", "p", "s"
    )
    assert action_to_string(declaration_action(parse_contract("GO"))) == "GO"
    assert action_to_string(declaration_action(parse_contract("CHZ"))) == "CHZ"
    assert (action_to_string(CLAIM), action_to_string(RESIGN)) == ("SC", "RE")
    assert NUM_ACTIONS == PLAY_ON + 1


# ----- bidding ----------
def test_middlehand_says_to_forehand_then_rearhand_to_the_survivor() -> None:
    s = dealt()
    assert s.current_player == 1  # middlehand speaks first
    play(s, "18")
    assert s.current_player == 0
    assert s.legal_actions() == [HOLD, PASS]  # the senior holds by equalling or passes
    play(s, "y 20 p")
    assert s.current_player == 2  # rearhand says to the survivor (middlehand)
    assert min(s.legal_actions()) == bid_action(22)  # must exceed 20
    play(s, "22")
    assert s.current_player == 1
    play(s, "y 23 p")  # middlehand passes at 23: rearhand plays 23
    assert s.declarer == 2 and s.auction.value == 23
    assert s.legal_actions()[0] == PICKUP


def test_jump_bids_and_forehand_survives() -> None:
    s = dealt()
    play(s, "40 y p 48 y p")  # MH jumps to 40, FH holds; MH passes; RH jumps to 48, FH holds
    assert s.declarer == 0 and s.auction.value == 48


def test_forehand_may_open_after_both_pass_and_all_pass_is_passed_in() -> None:
    s = dealt()
    play(s, "p p")
    assert s.current_player == 0
    assert bid_action(18) in s.legal_actions() and HOLD not in s.legal_actions()
    c = s.clone()
    play(c, "p")
    assert c.is_terminal() and c.result is not None and c.result.passed
    assert c.returns() == [0.0, 0.0, 0.0]
    play(s, "18")
    assert s.declarer == 0 and s.auction.value == 18


def test_invalid_bids_are_rejected_and_state_unchanged() -> None:
    s = dealt()
    play(s, "20")
    before = s.fingerprint()
    with pytest.raises(IllegalActionError):
        s.apply(bid_action(22))  # forehand must answer, not bid
    with pytest.raises(IllegalActionError):
        s.string_to_action("19")
    assert s.fingerprint() == before


# ----- skat, declarations, play ----------
def test_pick_up_put_declare_and_the_put_skat_counts() -> None:
    s = dealt()
    declare(s, "p 18 p", "s")
    assert s.declarer == 2 and s.hands[2] & mask_of(cards(SKAT)) == mask_of(cards(SKAT))
    play(s, "H8 CK")  # ISS 541932 puts ST H8; here H8 and CK
    assert s.put == mask_of(cards("H8 CK"))
    legal = [action_to_string(a) for a in s.legal_actions()]
    assert legal == ["D", "H", "S", "C", "G", "N", "NO"]  # no hand games after picking up
    play(s, "D")
    assert s.current_player == 0  # forehand leads
    rng = np.random.default_rng(1)
    while not s.is_terminal():
        legal_cards = [a for a in s.legal_actions() if a < 32]
        s.apply(legal_cards[int(rng.integers(len(legal_cards)))])
    res = s.result
    assert res is not None
    assert res.declarer_points == points_of(s.won[2]) + 4  # CK counts for the declarer
    assert points_of(s.won[0] | s.won[1]) + res.declarer_points == 120


def test_hand_game_original_skat_counts_and_matadors_include_the_skat() -> None:
    # forehand without CJ in hand, but the CJ lies in the skat: "with 1" in grand hand
    s = dealt(fh="SJ HJ DJ SA ST HA HT DA DT D7", mh="CA CT CK CQ C9 C8 C7 S9 S8 S7",
              rh="SK SQ HK HQ H9 H8 H7 DK DQ D9", skat="CJ D8")
    declare(s, "p p 18", "GH")
    assert s.contract == Contract(4, hand=True)
    assert s.hands[0] & (1 << string_to_card("CJ")) == 0
    play(s, "SA RE RE")  # forehand leads, then the defenders give up
    res = s.result
    assert res is not None and res.won
    assert res.matadors == 4  # CJ SJ HJ DJ counted with the skat
    assert res.declarer_points == 120 and res.declarer_tricks == 10
    assert res.value == (4 + 1 + 1 + 1 + 1) * 24  # with 4, game, hand, schneider, schwarz


def test_null_ends_when_the_declarer_takes_a_trick() -> None:
    s = dealt()
    declare(s, "p 18 p", "NH")
    play(s, "HA HQ HT")  # forehand leads HA, declarer (RH) plays HT under it
    assert not s.is_terminal()
    # the declarer is forced to win: DQ led, MH plays DK, RH has D7 D8 DT DA
    play(s, "DQ DK DA")
    assert s.is_terminal() and s.end_reason.startswith("null")
    assert s.result is not None and not s.result.won and s.result.score == -70


def test_schwarz_announced_ends_when_the_defenders_take_a_trick() -> None:
    s = dealt()
    declare(s, "p 18 p", "DHZ")
    play(s, "HA HQ HT")  # forehand wins the first trick
    assert s.is_terminal() and s.end_reason.startswith("schwarz")
    res = s.result
    assert res is not None and not res.won
    # without 2: 2 + game + hand + schneider + announced + schwarz + announced = 8
    assert res.matadors == -2 and res.value == 8 * 9


def test_ouvert_cards_are_public() -> None:
    s = dealt()
    declare(s, "p 18 p", "GO")
    for p in (0, 1):
        info = s.info_state(p)
        assert info.declarer_hand_known() == s.hands[2]
    assert s.info_state(0).fingerprint() != dealt().info_state(0).fingerprint()


def test_declarer_resigns_and_loses() -> None:
    s = dealt()
    declare(s, "p 18 p", "GH")
    play(s, "HA HQ")
    assert s.current_player == 2 and RESIGN in s.legal_actions()
    play(s, "RE")
    res = s.result
    assert s.is_terminal() and res is not None and not res.won and res.conceded


def test_claim_needs_both_defenders_and_can_be_declined_once_per_trick() -> None:
    s = dealt()
    declare(s, "p 18 p", "GH")
    play(s, "HA HQ")
    play(s, "SC")  # the declarer claims the rest: the defenders answer in turn
    assert s.current_player == 0 and s.legal_actions() == [RESIGN, PLAY_ON]
    assert s.info_state(1).declarer_hand_known() == s.hands[2]
    play(s, "RE PLAY")  # forehand agrees, middlehand plays on
    assert s.current_player == 2
    assert CLAIM not in s.legal_actions() and RESIGN not in s.legal_actions()
    play(s, "HT")
    play(s, "RE")  # forehand (trick winner) offers to resign; middlehand agrees
    assert s.current_player == 1
    play(s, "RE")
    res = s.result
    assert s.is_terminal() and res is not None and res.won
    assert res.declarer_tricks == 9 and res.declarer_points == 120 - points_of(s.won[0])


# ----- the 4-player table and series ----------
def test_four_player_table_dealer_sits_out() -> None:
    game = load_game("skat(players=4,dealer=1)")
    assert game.positions == (2, 3, 0)
    s = dealt(spec="skat(players=4,dealer=1)")
    assert s.hands[1] == 0 and s.current_player == 3  # seat 3 is middlehand
    play(s, "p p 18 GH SA RE RE")
    assert s.declarer == 2 and s.is_terminal()
    r = s.returns()
    assert r[1] == 0.0 and r[2] > 0 and r[0] == r[3] == -r[2] / 2
    with pytest.raises(GameParameterError):
        load_game("skat(players=5)")
    with pytest.raises(GameParameterError):
        load_game("skat(dealer=3)")


def test_dealer_rotates_over_a_series() -> None:
    game = load_game("skat(players=4,dealer=3)")
    dealers = []
    for _ in range(5):
        dealers.append(game.dealer)
        game = game.next_deal()
    assert dealers == [3, 0, 1, 2, 3]
    assert load_game("skat(dealer=0)").positions == (1, 2, 0)


# ----- properties over random playouts ----------
def _random_game(seed: int, spec: str = "skat", concessions: bool = False) -> list[SkatState]:
    rng = np.random.default_rng(seed)
    s = load_game(spec).new_initial_state()
    states = [s.clone()]
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal, "no legal action before the end"
        if not concessions and s.current_player != CHANCE:
            legal = [a for a in legal if a not in (CLAIM, RESIGN)] or legal
        s.apply(legal[int(rng.integers(len(legal)))])
        states.append(s.clone())
    return states


@pytest.mark.parametrize("spec", ["skat", "skat(players=4,dealer=0)"])
def test_properties_cards_points_legal_moves(spec: str) -> None:
    for seed in range(150):
        states = _random_game(seed, spec, concessions=seed % 3 == 0)
        for st in states:
            parts = [*st.hands, st.skat if not st.picked_up else st.put, *st.won, mask_of(st.trick)]
            union = 0
            for m in parts:
                assert union & m == 0, "a card is in two places"
                union |= m
            if st.deal_index == 32:
                assert union == ALL_CARDS_MASK, "32 cards must be accounted for"
            assert st.current_player in (CHANCE, TERMINAL) or st.legal_actions()
        final = states[-1]
        assert final.is_terminal() and final.result is not None
        assert sum(final.returns()) == 0
        if final.end_reason == "all tricks played":
            d = final.declarer
            others = sum(points_of(final.won[s]) for s in final.sgame.positions if s != d)
            assert final.result.declarer_points + others == 120
            assert final.result.declarer_tricks + sum(
                final.trick_count[s] for s in final.sgame.positions if s != d
            ) == 10


def test_check_game_passes() -> None:
    from spielwerk.core.testing import check_game

    check_game(load_game("skat"), n_games=12, deep_every=4)
    check_game(load_game("skat(players=4,dealer=2)"), n_games=6, deep_every=6)


# ----- information states ----------
def test_info_state_hides_other_hands_and_the_skat() -> None:
    a = dealt()
    # swap two cards between middlehand and rearhand: forehand cannot tell
    b = dealt(mh=MH.replace("CJ", "X").replace("D8", "CJ").replace("X", "D8"),
              rh=RH.replace("D8", "X").replace("CJ", "D8").replace("X", "CJ"))
    assert a.info_state(0).fingerprint() == b.info_state(0).fingerprint()
    assert a.info_state(1).fingerprint() != b.info_state(1).fingerprint()
    # after picking up, only the declarer knows the skat and the cards put
    play(a, "p 18 p s H8 CK D")
    c = dealt()
    play(c, "p 18 p s CK H8 D")  # the same put in another order
    assert a.info_state(0).fingerprint() == c.info_state(0).fingerprint()
    assert a.info_state(2).fingerprint() != c.info_state(2).fingerprint()
    assert a.info_state(2).skat == mask_of(cards(SKAT)) and a.info_state(0).skat is None


def test_sample_world_respects_voids_and_knowledge() -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(40):
        states = _random_game(seed)
        for st in states[32::3]:
            for p in range(3):
                info = st.info_state(p)
                w = info.sample_world(rng)
                assert w.info_state(p) == info
                assert w.hands[p] == st.hands[p]
                assert w.current_player == st.current_player
                for q in range(3):
                    assert w.hands[q] & info.voids[q] == 0
                    assert w.played[q] == st.played[q]
                    if info.voids[q]:
                        checked += 1
    assert checked > 100


def test_sample_world_void_constraint_is_enforced() -> None:
    s = dealt()
    declare(s, "p 18 p", "s H8 CK G")
    # FH leads DQ; MH follows DK; RH follows; then MH shows a void
    play(s, "DQ DK DA")  # RH wins with DA
    play(s, "HK")  # RH leads hearts; FH follows H7; MH follows HQ
    play(s, "H7 HQ")
    play(s, "HT")  # RH (won with HK? no: HQ < HK) leads HT
    assert s.current_player == 0
    play(s, "H9")
    mh_hearts = s.hands[1] & 0xFF00 & ~int(kernel.JACKS)
    assert mh_hearts == 0  # middlehand has no hearts left
    mh_play = [a for a in s.legal_actions()]
    play(s, action_to_string(mh_play[0]))  # a non-heart: void in hearts
    info = s.info_state(0)
    hearts = 0xFF00 & ~int(kernel.JACKS)
    assert info.voids[1] & hearts == hearts
    rng = np.random.default_rng(3)
    for _ in range(300):
        w = info.sample_world(rng)
        assert w.hands[1] & hearts == 0
        assert w.info_state(0) == info


def test_sample_world_for_defender_after_pickup_and_for_declarer() -> None:
    s = dealt()
    declare(s, "p 18 p", "s H8 CK D")
    play(s, "HA HQ HT SK")
    rng = np.random.default_rng(11)
    for p in range(3):
        info = s.info_state(p)
        for _ in range(50):
            w = info.sample_world(rng)
            assert w.info_state(p) == info
            assert w.history[32:] == s.history[32:] or p != 2
        if p == 2:
            w = info.sample_world(rng)
            assert w.skat == s.skat and w.put == s.put


# ----- Ramsch (optional house rule) ----------
def test_ramsch_is_off_by_default_and_played_when_all_pass() -> None:
    assert load_game("skat").spec() == "skat(dealer=2,players=3,ramsch=false)"
    s = dealt(spec="skat(ramsch=true)")
    play(s, "p p p")
    assert not s.is_terminal() and s.is_ramsch and s.current_player == 0
    assert s.declarer == -1 and CLAIM not in s.legal_actions()
    # grand trumps: a spade lead, middlehand may not follow with a jack
    play(s, "SA")
    assert sorted(action_to_string(a) for a in s.legal_actions()) == ["S7", "S9", "SQ"]
    rng = np.random.default_rng(4)
    from spielwerk.core.testing import check_state

    while not s.is_terminal():
        check_state(s, rng)
        legal = s.legal_actions()
        s.apply(legal[int(rng.integers(len(legal)))])
    check_state(s, rng)
    res = s.ramsch_result
    assert res is not None and s.result is None
    last_winner = s.trick_history[-1][2]
    assert s.won[last_winner] & s.skat == s.skat  # the skat goes to the last trick
    assert sum(res.points.values()) == 120
    assert sum(s.returns()) == 0
    top = max(res.points.values())
    assert all(res.points[x] == top for x in res.losers)


def test_ramsch_scoring() -> None:
    from spielwerk.games.skat.rules import ramsch_result

    r = ramsch_result({0: 50, 1: 40, 2: 30}, {0: 4, 1: 3, 2: 3})
    assert r.losers == (0,) and r.returns == {0: -50.0, 1: 25.0, 2: 25.0}
    jungfrau = ramsch_result({0: 70, 1: 50, 2: 0}, {0: 6, 1: 4, 2: 0})
    assert jungfrau.jungfrau and jungfrau.returns[0] == -140.0
    tie = ramsch_result({0: 45, 1: 45, 2: 30}, {0: 4, 1: 4, 2: 2})
    assert tie.losers == (0, 1) and tie.returns == {0: -45.0, 1: -45.0, 2: 90.0}
    march = ramsch_result({0: 120, 1: 0, 2: 0}, {0: 10, 1: 0, 2: 0})
    assert march.durchmarsch == 0 and march.returns == {0: 120.0, 1: -60.0, 2: -60.0}


# ----- hypothesis: any deal, any legal play ----------


@settings(max_examples=60, deadline=None)
@given(strategies.permutations(list(range(32))), strategies.integers(0, 2**32 - 1))
def test_any_deal_keeps_cards_and_points(deck: list[int], seed: int) -> None:
    s = load_game("skat").new_initial_state()
    for c in deck:
        s.apply(c)
    rng = np.random.default_rng(seed)
    while not s.is_terminal():
        legal = [a for a in s.legal_actions() if a not in (CLAIM, RESIGN)]
        assert legal
        s.apply(legal[int(rng.integers(len(legal)))])
        union = 0
        for m in (*s.hands, *s.won, mask_of(s.trick), s.put if s.picked_up else s.skat):
            assert union & m == 0, "a card is in two places"
            union |= m
        assert union == ALL_CARDS_MASK, "32 cards must be accounted for"
    res = s.result
    assert res is not None
    if s.end_reason == "all tricks played":
        assert 0 <= res.declarer_points <= 120 and 0 <= res.declarer_tricks <= 10
        total = sum(points_of(s.won[x]) for x in range(3)) + points_of(
            s.put if s.picked_up else s.skat
        )
        assert total == 120


def test_chance_outcomes_are_the_undealt_cards_at_equal_odds_at_every_step() -> None:
    import random as _random

    state = load_game("skat").new_initial_state()
    rng = _random.Random(4)
    while state.is_chance_node():
        undealt = [c for c in range(32) if not state._dealt_mask() >> c & 1]
        assert state.chance_outcomes() == [(c, 1.0 / len(undealt)) for c in undealt]
        state.apply(rng.choice(undealt))


def test_fast_deal_results_equal_the_dataclass_constructor() -> None:
    import dataclasses

    from spielwerk.games.skat.scoring import Contract, DealResult, evaluate, passed_in

    assert passed_in() == DealResult(-1, None, 0, False, 0, 0, 0, 0, False, False, False)
    for contract, matadors, points, tricks in [(Contract(0), 2, 70, 6), (Contract(4), -3, 30, 2),
                                               (Contract(5, hand=True), 0, 0, 0)]:
        result = evaluate(contract, 18, matadors, points, tricks, declarer=1)
        rebuilt = DealResult(**{f.name: getattr(result, f.name)
                                for f in dataclasses.fields(DealResult)})
        assert result == rebuilt and hash(result) == hash(rebuilt)
        assert set(vars(result)) == {f.name for f in dataclasses.fields(DealResult)}


@pytest.mark.parametrize("spec", ["skat", "skat(players=4,ramsch=true)"])
def test_apply_takes_exactly_the_legal_actions_and_refuses_the_rest_unchanged(spec: str) -> None:
    """``apply``'s written-out paths (deal card, bid, card play) against ``legal_actions``:
    every action number from -2 to 131 is applied when legal and refused, with the state
    unchanged, when not; Auction's own methods refuse what the kernel refuses."""
    import random

    from spielwerk.games.skat.bidding import Auction

    game = load_game(spec)
    rng = random.Random(11)
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = set(state.legal_actions())
            for action in range(-2, 132):
                trial = state.clone()
                before = trial.fingerprint()
                try:
                    trial.apply(action)
                except IllegalActionError:
                    assert action not in legal and trial.fingerprint() == before
                else:
                    assert action in legal and trial.history[-1] == action
            state.apply(rng.choice(sorted(legal)))
    auction = Auction()
    auction.bid(18)
    with pytest.raises(ValueError, match="cannot be bid"):
        auction.bid(20)  # forehand must answer first
    auction.hold()
    with pytest.raises(ValueError, match="nothing to hold"):
        auction.hold()
    assert auction.bid_values()[0] == 20 and auction.to_move() == 1


def test_a_state_keeps_under_thirty_attribute_names() -> None:
    """CPython keeps instance attributes compact (fast access) only for the first 30 names a
    class sees; the Skat state is the API's hot object, so it stays under that (the derived
    fields are properties). A new stored field should replace one, not add one."""
    import random

    names: set[str] = set()
    for spec in ("skat", "skat(players=4,ramsch=true)"):
        game = load_game(spec)
        rng = random.Random(2)
        for _ in range(150):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply(rng.choice(state.legal_actions()))
            names |= set(vars(state))
    assert len(names) <= 29, sorted(names)


def test_the_result_made_on_reading_equals_evaluate_and_returns_agree() -> None:
    """The State keeps game_value's arguments at the end and makes the DealResult when it
    is read: it equals scoring.evaluate of the finished game (checked), and returns() are the
    same whether the result was read first or not (clones of the last position)."""
    import random

    from spielwerk.games.skat.kernel import matadors, points
    from spielwerk.games.skat.scoring import evaluate

    game = load_game("skat")
    rng = random.Random(5)
    seen = set()
    for _ in range(150):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply(rng.choice(state.legal_actions()))
        read_first = state.clone()
        res = read_first.result
        assert res is not None and read_first.returns() == state.returns()
        assert state.result is state.result  # made once
        if res.passed:
            continue
        d, contract = state.declarer, state.contract
        assert contract is not None
        skat = state.put or state.skat
        expected = evaluate(
            contract, state.auction.value,
            int(matadors(state.dealt[d] | state.skat, contract.game)),
            int(points(state.won[d])) + int(points(skat)), state.trick_count[d], declarer=d,
            declarer_conceded=state.end_reason == "declarer resigned",
        )
        assert res == expected and state.result == expected
        seen.add((state.end_reason, res.won))
    assert len(seen) >= 5  # resignations both ways, claims, ends in play, won and lost
