"""Durak rules: conformance for every preset, card conservation, and the rules one by one."""

from __future__ import annotations

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.errors import GameParameterError, IllegalActionError
from spielwerk.core.game import CHANCE, TERMINAL
from spielwerk.core.registry import load_game
from spielwerk.core.testing import check_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import card_name, mask_to_cards, parse_card
from spielwerk.games.durak.rules import DurakGame, DurakState, describe_action, make_position

SPECS = [
    "durak",
    "durak(preset=zarlykov2023)",
    "durak(preset=perevodnoy)",
    "durak(players=3,deck=24)",
    "durak(players=4,deck=24)",
    "durak(players=4,deck=36,preset=perevodnoy)",
    "durak(players=6,deck=36)",
    "durak(players=5,deck=52,preset=perevodnoy)",
    "durak(players=6,deck=52)",
    "durak(players=2,deck=52,preset=perevodnoy)",
    "durak(preset=zarlykov2023,open=true)",
    "durak(players=3,open=true)",
]


@pytest.mark.parametrize("spec", SPECS)
def test_check_game(spec: str) -> None:
    report = check_game(load_game(spec), n_games=3, seed=11, deep_every=7)
    assert report.games == 3


def test_load_game_parameters() -> None:
    g = load_game("durak(preset=perevodnoy,players=4)")
    assert isinstance(g, DurakGame)
    assert (g.preset, g.players, g.deck) == ("perevodnoy", 4, 36)
    assert g.num_players == 4
    assert load_game(g.spec()) == g


@pytest.mark.parametrize(
    "spec",
    [
        "durak(preset=foo)",
        "durak(players=1)",
        "durak(players=7)",
        "durak(deck=40)",
        "durak(players=5,deck=24)",
        "durak(preset=zarlykov2023,players=3)",
        "durak(preset=zarlykov2023,deck=52)",
    ],
)
def test_bad_parameters(spec: str) -> None:
    with pytest.raises(GameParameterError):
        load_game(spec)


def test_cards() -> None:
    assert card_name(parse_card("S6")) == "S6"
    assert card_name(parse_card("h10")) == "HT"
    assert parse_card("CA") == 12 * 4 + 0
    with pytest.raises(ValueError):
        parse_card("X9")


def _random_games(spec: str, n: int, seed: int):  # type: ignore[no-untyped-def]
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    for _ in range(n):
        state = game.new_dealt_state(rng)
        trail = [state.clone()]
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            trail.append(state.clone())
        yield game, trail


@pytest.mark.parametrize("spec", ["durak", "durak(preset=perevodnoy,players=4)",
                                  "durak(players=6,deck=36)", "durak(preset=zarlykov2023)"])
def test_card_conservation_and_table_limits(spec: str) -> None:
    for game, trail in _random_games(spec, 8, 5):
        full = K.deck_mask(game.deck)
        for st in trail:
            S = st.S
            # every card is in exactly one place
            assert K.card_total(S) == full
            assert K.card_count(S) == game.deck
            # known cards are really in that hand
            for p in range(game.players):
                assert S[K.KNOWN + p] & ~S[K.HANDS + p] == 0
            if S[K.PHASE] in (K.PH_DEFEND, K.PH_THROW, K.PH_TAKE):
                n_attack = K.popcount(int(S[K.ATTACK]))
                if game.preset != "zarlykov2023":
                    assert n_attack <= (5 if S[K.BOUT] == 0 else 6)
                assert K.popcount(int(S[K.OPEN])) <= K.popcount(int(S[K.HANDS + S[K.DEFENDER]]))
                assert K.popcount(int(S[K.DEFENCE])) == n_attack - K.popcount(int(S[K.OPEN]))
        assert trail[-1].is_terminal()


def test_trump_card_lies_under_the_stock_and_is_drawn_last() -> None:
    game = load_game("durak")
    for seed in range(10):
        st = game.new_dealt_state(seed)
        S = st.S
        trump = int(S[K.TRUMP_CARD])
        assert S[K.STOCK + S[K.STOCK_LEN] - 1] == trump
        assert S[K.TRUMP_SUIT] == trump & 3
        assert K.stock_size(S) == 36 - 12 - 0
        rng = np.random.default_rng(seed)
        while K.stock_size(st.S) > 0:
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
        # the trump card went to someone at the last draw, and everyone knows it is there
        for p in range(2):
            if st.hand(p) >> trump & 1:
                assert st.S[K.KNOWN + p] >> trump & 1


def test_lowest_trump_attacks_first_and_is_shown() -> None:
    game = load_game("durak(players=4)")
    for seed in range(20):
        st = game.new_dealt_state(seed)
        S = st.S
        trump = int(S[K.TRUMP_SUIT])
        lows = {}
        for p in range(4):
            trumps = [c for c in mask_to_cards(st.hand(p)) if c & 3 == trump]
            if trumps:
                lows[p] = min(trumps)
        if not lows:
            assert st.current_player == 0
            continue
        first = min(lows, key=lambda p: lows[p])
        assert st.current_player == first == S[K.ATTACKER]
        assert S[K.DEFENDER] == (first + 1) % 4
        assert S[K.KNOWN + first] == 1 << lows[first]


def test_beaters_match_the_definition() -> None:
    for trump in range(4):
        for a in range(52):
            for d in range(52):
                expect = (d & 3 == a & 3 and d >> 2 > a >> 2) or (d & 3 == trump != a & 3)
                assert bool(K.beaters(a, trump) >> d & 1) == expect


def position(
    game: DurakGame,
    hands: list[str],
    trump: str,
    stock: list[str] | None = None,
    attacker: int = 0,
    bout: int = 1,
) -> DurakState:
    return make_position(game, hands, trump, stock, attacker, bout)


def play(st: DurakState, *moves: str) -> None:
    for m in moves:
        st.apply(st.string_to_action(m))


def test_lead_several_of_one_rank_and_caps() -> None:
    game = load_game("durak")
    st = position(game, ["C6 D6 H6 S6 C7 D7", "CA DA HA SA CK DK"], "HK", ["C8", "D8", "HK"],
                  bout=0)
    names = [st.action_to_string(a) for a in st.legal_actions()]
    assert "C6+D6+H6+S6" in names and "C7+D7" in names
    play(st, "C6+D6+H6+S6", "CA", "DA", "HA", "SA")
    # all beaten and the attacker holds no six or ace: the bout ends by itself
    assert st.S[K.PHASE] == K.PH_LEAD
    assert K.popcount(int(st.S[K.DISCARD]) & ~0xFFFF) >= 8
    assert (st.S[K.ATTACKER], st.S[K.DEFENDER]) == (1, 0)  # the defender attacks next
    assert st.hand(0) >> parse_card("C8") & 1  # the attacker refilled first


def test_first_bout_cap_is_five_then_six() -> None:
    game = load_game("durak")
    att, dfd = "C6 D6 H6 S6 D7 H7", "C7 DK HK SK D8 H8"
    st = position(game, [att, dfd], "SA", [], bout=0)
    play(st, "C6", "C7", "D6", "DK", "H6", "HK", "S6", "SK", "D7", "D8")
    # five cards in the first bout: H7 may not follow, so the bout is over
    assert st.S[K.PHASE] == K.PH_LEAD and st.S[K.ATTACKER] == 1
    assert st.hand(0) == 1 << parse_card("H7")
    st = position(game, [att, dfd], "SA", [], bout=3)
    play(st, "C6", "C7", "D6", "DK", "H6", "HK", "S6", "SK", "D7", "D8")
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["H7", "pass"]
    # zarlykov2023: no caps, but never more open attacks than the defender's cards
    z = load_game("durak(preset=zarlykov2023)")
    st = position(z, [att + " C9", dfd + " SQ"], "SA", [], bout=0)
    play(st, "C6", "C7", "D6", "DK", "H6", "HK", "S6", "SK", "D7", "D8", "H7", "H8")
    assert st.S[K.PHASE] == K.PH_LEAD  # six beaten; C9 does not fit, bout over
    assert K.popcount(int(st.S[K.DISCARD]) & ((1 << 52) - 1)) >= 12
    # single-card leads only in zarlykov2023
    st = position(z, ["C6 D6 H6 S6 C7 D7", "CK DK HK SK C8 D8"], "SA", [], bout=0)
    assert all("+" not in st.action_to_string(a) for a in st.legal_actions())


def test_open_attacks_limited_by_defender_hand() -> None:
    game = load_game("durak")
    st = position(game, ["C6 D6 H6 S6 C7 D7", "C8 D9"], "SA", [], bout=3)
    names = [st.action_to_string(a) for a in st.legal_actions()]
    assert "C6+D6" in names and "C6+D6+H6" not in names
    play(st, "C6")
    play(st, "take")
    # defender holds 2 cards and one attack is open: one more throw-in at most
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["D6", "H6", "S6", "pass"]
    play(st, "D6")
    # no further throw-in fits: the defender has taken C6 and D6, H6 and S6 stay
    assert st.hand(1) == sum(1 << parse_card(c) for c in ["C8", "D9", "C6", "D6"])
    assert st.hand(0) >> parse_card("H6") & 1 and st.S[K.ATTACKER] == 0


def test_successful_defence_and_take_decide_the_next_attacker() -> None:
    game = load_game("durak(players=3)")
    hands = ["C6 C7 D8 H9 HT SJ", "CA C9 D9 HJ HQ SK", "CK DJ DT DK S7 S8"]
    stock = ["DA", "SA", "CT", "HA"]
    st = position(game, hands, "HA", stock, attacker=0)
    assert (st.S[K.ATTACKER], st.S[K.DEFENDER]) == (0, 1)
    play(st, "C6", "C9", "pass")  # seat 0 passes, seat 2 has no 6 or 9: bout ends
    assert st.S[K.DISCARD] >> parse_card("C6") & 1
    # refill: attacker first, defender last
    assert st.hand(0) >> parse_card("DA") & 1
    assert st.hand(1) >> parse_card("SA") & 1
    assert (st.S[K.ATTACKER], st.S[K.DEFENDER]) == (1, 2)  # the defender attacks next
    play(st, "D9", "take")
    assert st.current_player == 0  # seat 1 has no other nine; seat 0 may throw in H9
    play(st, "H9")  # no other nine anywhere: the bout ends
    assert (st.S[K.ATTACKER], st.S[K.DEFENDER]) in [(0, 1)]  # left of the taker
    for c in ("D9", "H9"):
        assert st.hand(2) >> parse_card(c) & 1
        assert st.S[K.KNOWN + 2] >> parse_card(c) & 1


def test_throw_in_order_main_attacker_first() -> None:
    game = load_game("durak(players=3)")
    hands = ["C6 D7", "CA C9 D9 HJ HQ SK", "S6 D6"]
    st = position(game, hands, "HA", [], attacker=0)
    play(st, "C6", "C9")
    assert st.current_player == 2  # seat 0 has no six or nine; seat 2 throws in next
    play(st, "S6")
    assert st.current_player == 1
    play(st, "SK")
    assert st.current_player == 2  # back to the order from the main attacker; seat 0 skipped


def test_perevodnoy_transfer() -> None:
    game = load_game("durak(preset=perevodnoy,players=3)")
    hands = ["C6 C7 D8", "D6 HA C9 D9", "CA CK CQ SA SK"]
    st = position(game, hands, "H6", [], attacker=0)
    play(st, "C6")
    names = [st.action_to_string(a) for a in st.legal_actions()]
    assert "transfer D6" in names
    play(st, "transfer D6")
    assert (st.S[K.ATTACKER], st.S[K.DEFENDER], st.current_player) == (1, 2, 2)
    assert K.popcount(int(st.S[K.OPEN])) == 2
    # no transfer once a card is beaten
    play(st, "CK")
    assert all(not st.action_to_string(a).startswith("transfer")
               for a in st.legal_actions())
    # classic has no transfers
    st = position(load_game("durak(players=3)"), hands, "H6", [], attacker=0)
    play(st, "C6")
    assert all("transfer" not in st.action_to_string(a) for a in st.legal_actions())


def test_transfer_needs_room_and_show_trump() -> None:
    game = load_game("durak(preset=perevodnoy)")
    # the next player (the attacker) holds 1 card: cannot take two attack cards
    st = position(game, ["C6 S8", "D6 H6 CA"], "H9", [], attacker=0)
    play(st, "C6")
    names = [st.action_to_string(a) for a in st.legal_actions()]
    assert "transfer D6" not in names
    assert "show H6" in names  # showing the trump six keeps one attack card: room for it
    play(st, "show H6")
    assert st.current_player == 0 and st.S[K.DEFENDER] == 0
    assert st.S[K.KNOWN + 1] >> parse_card("H6") & 1
    assert st.hand(1) >> parse_card("H6") & 1  # shown, not played


def test_simultaneous_finish_is_a_draw_and_durak_loses() -> None:
    game = load_game("durak")
    st = position(game, ["C6", "C7"], "SA", [], attacker=0)
    play(st, "C6", "C7")
    assert st.is_terminal() and st.returns() == [0.0, 0.0] and st.loser() == -1
    st = position(game, ["C6", "C7 C8"], "SA", [], attacker=0)
    play(st, "C6", "C7")
    assert st.is_terminal() and st.returns() == [1.0, -1.0] and st.loser() == 1
    st = position(load_game("durak(players=3)"), ["C6", "C7 C8", "D6"], "SA", [], attacker=0)
    play(st, "C6", "C7")  # seat 0 is out; seat 2 throws in? D6 is no 6/7 rank... it is a six
    while not st.is_terminal():
        play(st, st.action_to_string(st.legal_actions()[0]))
    assert st.loser() is not None and st.loser() >= 0
    assert sum(st.returns()) == pytest.approx(0.0)


def test_info_state_hides_cards_and_sample_world_keeps_knowledge() -> None:
    game = load_game("durak")
    rng = np.random.default_rng(3)
    for seed in range(6):
        st = game.new_dealt_state(seed)
        while not st.is_terminal() and K.stock_size(st.S) > 3:
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
        if st.is_terminal():
            continue
        info = st.info_state(0)
        # swapping two hidden cards (opponent's unknown card <-> stock card) keeps the info state
        S = st.S.copy()
        opp_hidden = int(S[K.HANDS + 1] & ~S[K.KNOWN + 1])
        stock_card = int(S[K.STOCK + S[K.STOCK_TOP]])
        if opp_hidden and stock_card != S[K.TRUMP_CARD]:
            c = mask_to_cards(opp_hidden)[0]
            S[K.HANDS + 1] = (S[K.HANDS + 1] & ~(1 << c)) | (1 << stock_card)
            S[K.STOCK + S[K.STOCK_TOP]] = c
            assert DurakState(game, S).info_state(0) == info
        for _ in range(5):
            w = info.sample_world(rng)
            assert isinstance(w, DurakState)
            assert w.info_state(0) == info
            W = w.S
            assert W[K.STOCK + W[K.STOCK_LEN] - 1] == st.S[K.TRUMP_CARD]  # bottom trump kept
            assert W[K.HANDS + 0] == st.S[K.HANDS + 0]
            assert W[K.HANDS + 1] & st.S[K.KNOWN + 1] == st.S[K.KNOWN + 1]  # known cards kept
            assert K.card_total(W) == K.deck_mask(36)


def test_endgame_world_is_unique() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    rng = np.random.default_rng(0)
    st = game.new_dealt_state(4)
    while not st.is_terminal() and K.stock_size(st.S) > 0:
        st.apply(int(K.greedy_action(st.S, False)))
    if st.is_terminal():
        pytest.skip("game over before the stock ran out")
    info = st.info_state(st.current_player)
    worlds = {info.sample_world(rng).fingerprint() for _ in range(5)}
    assert len(worlds) == 1
    w = info.sample_world(rng)
    assert w.hand(0) == st.hand(0) and w.hand(1) == st.hand(1)


def test_deal_is_chance_and_notation() -> None:
    game = load_game("durak")
    st = game.new_initial_state()
    assert st.current_player == CHANCE
    assert len(st.chance_outcomes()) == 36
    with pytest.raises(IllegalActionError):
        st.apply(K.DEAL + 0)  # a deuce is not in the 36-card pack
    st = game.new_dealt_state(0)
    assert st.current_player not in (CHANCE, TERMINAL)
    for a in st.legal_actions():
        assert st.string_to_action(describe_action(a)) == a
    assert describe_action(K.TAKE) == "take" and describe_action(K.PASS) == "pass"
    assert "trump" in str(st) and "trump" in str(st.info_state(1))


def test_open_world_shows_everything() -> None:
    game = load_game("durak(preset=zarlykov2023,open=true)")
    assert game.game_type.perfect_information
    st = game.new_dealt_state(2)
    info = st.info_state(0)
    assert info.known[1] == st.hand(1)
    w = info.sample_world(np.random.default_rng(0))
    assert w == st and w.history == st.history
