"""KNN bidding and putting (on synthetic bases with known labels), the knn agent and the CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import JACKS_MASK, mask_of, points_of, string_to_card
from spielwerk.games.skat.rules import SkatState
from spielwerk.games.skat.scoring import suit_game_value
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.deals import make_deal
from spielwerk.games.skat_ai.knowledge.features import null_features, suit_features
from spielwerk.games.skat_ai.knowledge.store import BaseData, KnowledgeBaseError, default_base_dir
from spielwerk.games.skat_ai.params import KnnParams
from spielwerk.games.skat_ai.putting import decide_put

N = 400


def hand(text: str) -> int:
    return mask_of(string_to_card(t) for t in text.split())


def synthetic_label(hands: np.ndarray) -> np.ndarray:
    """Points per game as a function of the features only (so feature ties agree)."""
    f = suit_features(hands)
    return np.clip(8 * f[:, :, 0] + 6 * f[:, :, 1] + 2 * f[:, :, 2] + 0.3 * f[:, :, 3], 0, 120)


def synthetic_base(trick_shift: int = 0) -> BaseData:
    rows = [make_deal(99, i) for i in range(N)]
    pos = np.array([r[0] for r in rows])
    hands = np.array([r[1] for r in rows], dtype=np.uint32)
    skat = np.array([r[2] for r in rows], dtype=np.uint32)
    decl = hands.astype(np.int64)[np.arange(N), pos]
    label = np.round(synthetic_label(decl))
    points = np.clip(label + trick_shift, 0, 120)  # the skat's points are in the label
    nf = null_features(decl)
    null = nf[:, 0::2].sum(axis=1) <= 2
    hand_stage = {"deal_id": np.arange(N), "position": pos, "hands": hands, "skat": skat,
                  "points": points.astype(np.int8), "schwarz": points >= 120,
                  "null": null}
    pickup = {"deal_id": np.arange(N), "puts": np.zeros((N, 6), np.uint32),
              "points": np.clip(points + 10, 0, 120).astype(np.int8), "null": null}
    return BaseData(Path("synthetic"), {}, hand_stage, pickup)


@pytest.fixture(scope="module")
def model() -> KnnModel:
    return KnnModel(synthetic_base(), k=1)


def test_value_is_the_mean_of_the_neighbours(model: KnnModel) -> None:
    hands = model.declarer_hand[:50]
    v1 = model.values(hands, "hand", k=1)
    truth = np.clip(np.round(synthetic_label(hands)), 0, 120)
    assert np.allclose(v1[:, :5], truth)  # itself or a twin in features: the same label
    vall = model.values(hands[:3], "hand", k=N)
    assert np.allclose(vall[:, :5], model.hand_points.mean(axis=0))
    assert np.allclose(vall[:, 5], model.hand_null.mean())
    vp = model.values(hands, "pickup", k=1)
    assert np.allclose(vp[:, :5], np.minimum(model.hand_points[:50] + 10, 120))


def test_excluded_rows_are_never_their_own_neighbour(model: KnnModel) -> None:
    idx = model.neighbours(model.declarer_hand, 3, k=5, exclude=np.arange(N))
    assert idx.shape == (N, 5)
    assert not (idx == np.arange(N)[:, None]).any()


def test_put_candidates_hold_no_jacks_or_trumps(model: KnnModel) -> None:
    twelve = hand("CJ SJ CA CT C9 SA HT H7 D7 D8 DA DT")
    clubs = model.put_candidates(twelve, 3)
    non_trumps = twelve & ~(int(kernel.trump_mask(3)) | JACKS_MASK)
    assert len(clubs) == 21  # 7 non-trumps choose 2
    assert all(p & ~non_trumps == 0 for p in clubs)
    assert len(model.put_candidates(twelve, 4)) == 45  # grand: every non-jack (10 choose 2)
    assert len(model.put_candidates(twelve, 5)) == 66  # null: all
    all_trumps = hand("CJ SJ HJ DJ CA CT CK CQ C9 C8 C7 SA")
    assert len(model.put_candidates(all_trumps, 3)) == 66  # one non-trump: no pruning


def test_put_value_counts_the_put_points_and_drops_the_skat(model: KnnModel) -> None:
    twelve = hand("CJ SJ CA CT C9 SA HT H7 D7 D8 DA DT")
    put, value, n = model.best_put(twelve, 3, k=1)
    puts = model.put_candidates(twelve, 3)
    assert n == len(puts)
    brute = []
    for p in puts:
        rest = np.array([twelve & ~p])
        i = model.neighbours(rest, 3, k=1)[0, 0]
        brute.append(model.trick_points[i, 3] + points_of(p))
    assert value == pytest.approx(max(brute))
    assert put == puts[int(np.argmax(brute))]


def thresholds(**kwargs: Any) -> KnnParams:
    """Parameters of the threshold rule (``decision="threshold"``), which these tests pin."""
    return KnnParams(decision="threshold", **kwargs)


def ev(**kwargs: Any) -> KnnParams:
    """The expected-score rule with rule's win chances, which these tests pin (the library's
    default until :class:`KnnParams` took the shipped agent's: score with strong chances)."""
    return KnnParams(decision="ev", calibration="rule", **kwargs)


def test_bidding_picks_the_best_winnable_game_and_bids_its_value(model: KnnModel) -> None:
    strong = hand("CJ SJ HJ CA CT CK CQ C9 SA HA")
    d = decide_bid(model, strong, KnnParams(k=1, extensions=False, decision="threshold"))
    values = model.values([strong], "pickup", k=1)[0]
    assert d.game == int(np.argmax(values[:5]))
    assert not d.hand_game  # pick-up values are 10 higher in this base
    assert d.max_bid <= suit_game_value(strong, d.game) and d.max_bid >= 18
    assert d.features.shape == (5, 8)
    weak = hand("D7 D8 H7 H8 S7 S8 C7 C8 D9 H9")
    assert decide_bid(model, weak, ev(k=1, extensions=False)).game == -1
    high = thresholds(k=1, hand_threshold=121, pickup_threshold=121, extensions=False)
    assert decide_bid(model, strong, high).max_bid == 0


def test_extensions_bid_null_on_safe_cards(model: KnnModel) -> None:
    safe = int(model.declarer_hand[np.flatnonzero(model.hand_null)[0]])  # a null winner
    params = thresholds(k=1, hand_threshold=121, pickup_threshold=121, null_threshold=0.5)
    d = decide_bid(model, safe, params)
    assert d.game == 5 and d.max_bid >= 23
    assert decide_bid(model, safe, thresholds(k=1, hand_threshold=121, pickup_threshold=121,
                                             extensions=False)).game == -1


def test_putting_never_declares_a_certainly_overbid_game(model: KnnModel) -> None:
    twelve = hand("CJ SJ HJ DJ CA CT HA HT SA ST DA DT")  # grand with 4: 120 plain
    for bid in (18, 60, 120, 168):
        d = decide_put(model, twelve, bid, ev(k=1, extensions=False))
        assert bin(d.put).count("1") == 2 and d.put & ~twelve == 0
        best_possible = max(suit_game_value(twelve, g, schneider=True, schwarz=True)
                            for g in range(5))
        if best_possible >= bid:
            assert suit_game_value(twelve, d.game, schneider=True, schwarz=True) >= bid
    d = decide_put(model, twelve, 168, ev(k=1, extensions=False))
    assert d.game == 4  # only grand can reach 168 (24 x 7 with schneider and schwarz)
    with pytest.raises(KnowledgeBaseError, match="unknown putting strategy"):
        decide_put(model, twelve, 18, putting="magic")


def test_putting_is_fast_enough_to_call_per_decision(model: KnnModel) -> None:
    d = decide_put(model, hand("CJ SJ CA CT C9 SA HT H7 D7 D8 DA DT"), 18, ev())
    assert d.candidates == sum(len(model.put_candidates(
        hand("CJ SJ CA CT C9 SA HT H7 D7 D8 DA DT"), g)) for g in range(6))


# ----- the agent ----------------------------------------------------------------------------
shipped = pytest.mark.skipif(not (default_base_dir() / "manifest.json").exists(),
                             reason="no shipped knowledge base")


@shipped
def test_shipped_base_loads_quickly() -> None:
    import time

    t0 = time.perf_counter()
    m = KnnModel.load()
    assert time.perf_counter() - t0 < 5.0  # < 1 s measured; generous for a loaded CI machine
    assert m.size >= 100 and m.pickup_points is not None


def _play(specs: list[str], seed: int,
          check: Callable[[SkatState, int], None] | None = None) -> SkatState:
    """A seeded deal played out; ``check(state, action)`` sees every agent move first."""
    game = load_game("skat")
    rng = np.random.default_rng(seed)
    agents = [make_agent(specs[p], game, seed=seed * 10 + p) for p in range(3)]
    s = game.new_initial_state()
    assert isinstance(s, SkatState)
    while not s.is_terminal():
        if s.is_chance_node():
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
            continue
        p = s.current_player
        a = agents[p].act(s.info_state(p))
        assert a in s.legal_actions()
        if check is not None:
            check(s, a)
        s.apply(a)
        for agent in agents:
            agent.inform(a)
    return s


def _stacked_deal(seat_cards: str, seat: int) -> list[int]:
    """A chance sequence giving ``seat`` (a position, dealer 2) the given ten cards."""
    from spielwerk.games.skat.rules import DEAL_ORDER
    mine = [string_to_card(t) for t in seat_cards.split()]
    rest = [c for c in range(32) if c not in mine]
    out, mi, ri = [], 0, 0
    for place in DEAL_ORDER:
        if place == seat:
            out.append(mine[mi])
            mi += 1
        else:
            out.append(rest[ri])
            ri += 1
    return out


@shipped
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_knn_declares_and_plays_a_whole_deal_in_every_seat(seat: int) -> None:
    game = load_game("skat")
    strong = "CJ SJ HJ DJ CA CT CK CQ SA HA"  # a certain game with the skat
    s = game.new_initial_state()
    for c in _stacked_deal(strong, seat):
        s.apply(c)
    specs = ["rule"] * 3
    specs[seat] = "knn:worlds=2"
    agents = [make_agent(specs[p], game, seed=p) for p in range(3)]
    while not s.is_terminal():
        p = s.current_player
        a = agents[p].act(s.info_state(p))
        assert a in s.legal_actions()
        s.apply(a)
    assert s.declarer == game.seat_of(seat)
    assert s.contract is not None and s.result is not None
    assert s.result.won and not s.result.overbid


@shipped
def test_knn_agent_plays_complete_deals_deterministically() -> None:
    specs = ["knn:worlds=2", "knn:worlds=2:extensions=false", "rule"]
    for seed in range(3):
        a = _play(specs, seed)
        b = _play(specs, seed)
        assert a.history == b.history
        assert a.is_terminal()


def test_knn_agent_spec_errors_are_one_line() -> None:
    game = load_game("skat")
    make_agent("knn", game)  # lazy: the base is read on the first decision
    with pytest.raises(AgentSpecError, match="putting"):
        make_agent("knn:putting=magic", game)
    with pytest.raises(AgentSpecError, match="k"):
        make_agent("knn:k=0", game)


def test_a_missing_base_is_one_clear_error(tmp_path: Path) -> None:
    game = load_game("skat")
    agent = make_agent(f"knn:base={tmp_path / 'nowhere'}", game)
    s = game.new_initial_state()
    for c in range(32):
        s.apply(c)
    with pytest.raises(KnowledgeBaseError, match="kb build"):
        agent.act(s.info_state(s.current_player))


# ----- the command line -----------------------------------------------------------------------
@shipped
def test_cli_bid_and_put_json() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["skat", "bid", "CJ", "SJ", "CA", "CT", "C9", "SA", "HT", "H7", "D7",
                            "D8", "--position", "middlehand", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["features"]["clubs"] == [2, 3, 1, 46, 0, 1, 7, 16]
    assert set(out["values"]) == {"clubs", "spades", "hearts", "diamonds", "grand", "null"}
    assert out["game"] in ("clubs", "spades", "hearts", "diamonds", "grand", "null", "pass")
    assert (out["max_bid"] == 0) == (out["game"] == "pass")
    r = runner.invoke(app, ["skat", "put", "CJ,SJ,CA,CT,C9,SA,HT,H7,D7,D8,DA,DT", "--bid", "30",
                            "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert len(out["put"]) == 2 and out["candidates"] > 0
    r = runner.invoke(app, ["skat", "bid", "CJ", "SJ", "CA", "CT", "C9", "SA", "HT", "H7", "D7",
                            "D8"])
    assert r.exit_code == 0 and "decision" in r.output


@shipped
def test_cli_bid_play_picks_the_calibration() -> None:
    """``--play`` decides with the win chances of that card play: PIMC (plain or over
    weighted worlds, the knn agent's default) wins more, so a hand rule's play would pass is
    played with PIMC."""
    from spielwerk.games.skat_ai.cli_kb import bid_result

    cards = "DK DT DA DJ HK S7 SQ SA CT CA"
    infer, rule = bid_result(cards), bid_result(cards, play="rule")
    pimc = bid_result(cards, play="pimc")
    assert infer["values"] == pimc["values"] == rule["values"]  # the same neighbours
    assert rule["game"] == "pass" and rule["max_bid"] == 0
    # played_null_knn6 lowers only the nulls' and grand hand's chances: this game is bid alike
    assert infer["game"] == pimc["game"] != "pass" and infer["max_bid"] == pimc["max_bid"] >= 18
    runner = CliRunner()
    r = runner.invoke(app, ["skat", "bid", *cards.split(), "--play", "rule", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["game"] == "pass"
    with pytest.raises(Exception, match="--play must be infer, pimc, rule"):
        bid_result(cards, play="magic")


@pytest.mark.parametrize("cards, message", [
    ("CJ SJ CA", "expected 10 cards"),
    ("CJ SJ CA CT C9 SA HT H7 D7 CJ", "appears twice"),
    ("CJ SJ CA CT C9 SA HT H7 D7 X9", "not a card"),
])
def test_cli_bad_cards(cards: str, message: str) -> None:
    from spielwerk.games.skat_ai.cli_kb import bid_result

    with pytest.raises(Exception, match=message):
        bid_result(cards)


def test_every_put_is_two_distinct_held_cards_for_random_hands(model: KnnModel) -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        twelve = int(sum(1 << int(c) for c in rng.choice(32, 12, replace=False)))
        d = decide_put(model, twelve, int(rng.choice([18, 23, 36, 48])), ev(k=3))
        assert bin(d.put).count("1") == 2 and d.put & ~twelve == 0
        assert 0 <= d.game <= 5


def test_without_extensions_only_the_seeds_games_are_chosen(model: KnnModel) -> None:
    rng = np.random.default_rng(5)
    seed_only = thresholds(k=2, hand_threshold=40, pickup_threshold=40, null_threshold=0.0,
                          extensions=False)
    for _ in range(30):
        cards = rng.choice(32, 12, replace=False)
        ten = int(sum(1 << int(c) for c in cards[:10]))
        d = decide_bid(model, ten, seed_only)
        assert d.game != 5 and not (d.schneider or d.schwarz or d.ouvert)
        put = decide_put(model, ten | (1 << int(cards[10])) | (1 << int(cards[11])), 18,
                         seed_only)
        assert put.game != 5 and 5 not in put.per_game


def test_scaled_distance_is_used_for_queries_and_trees() -> None:
    base = synthetic_base()
    plain = KnnModel(base, k=1)
    scaled = KnnModel(base, k=1, scaling="std")
    hands = plain.declarer_hand[:40]
    # a base hand is its own nearest neighbour (or a feature twin) under both distances
    assert np.allclose(plain.values(hands, "hand")[:, :5], scaled.values(hands, "hand")[:, :5])
    assert not np.allclose(scaled.scale[:5], 1.0)
    with pytest.raises(KnowledgeBaseError, match="scaling"):
        KnnModel(base, scaling="magic")


@shipped
def test_play_rule_plays_the_cards_exactly_as_the_rule_agent() -> None:
    """``knn:play=rule``: every card (declarer and defence) is the rule agent's card, so a
    match against ``rule`` compares only the decisions before the first card."""
    game = load_game("skat")
    rule = make_agent("rule", game, seed=0)
    compared = []

    def same_card(s: SkatState, a: int) -> None:
        if s.contract is not None and a < 32:
            assert a == rule.act(s.info_state(s.current_player))
            compared.append(a)

    for seed in range(6):
        _play(["knn:play=rule"] * 3, seed, same_card)
    assert len(compared) >= 30  # at least one deal was played out, not passed in
    with pytest.raises(AgentSpecError, match="play"):
        make_agent("knn:play=magic", game)
    with pytest.raises(AgentSpecError, match="put_rules"):
        make_agent("knn:put_rules=magic", game)


def test_hard_put_rules_classify_only_refined_candidates(model: KnnModel) -> None:
    from spielwerk.games.skat_ai.selection import hard_candidates

    twelve = hand("CJ SJ CA CT C9 SA HT H7 D7 D8 DA DT")
    for game in range(5):
        for position in range(3):
            hard = model.put_candidates(twelve, game, "hard", position)
            assert hard == hard_candidates(twelve, game, position)[0]
    d = decide_put(model, twelve, 18, ev(k=1, put_rules="hard"))
    assert d.put in hard_candidates(twelve, d.game, 0)[0]
    # the hard rules keep a strict subset of the seed's no-jack, no-trump puts here
    assert set(hard_candidates(twelve, 3, 0)[0]) < set(model.put_candidates(twelve, 3))
    with pytest.raises(KnowledgeBaseError, match="put_rules"):
        KnnParams(put_rules="magic")


def test_contest_margin_keeps_a_marginal_hand_out_of_the_auction(model: KnnModel) -> None:
    strong = hand("CJ SJ HJ CA CT CK CQ C9 SA HA")
    plain = decide_bid(model, strong, KnnParams(k=1, extensions=False, contest_margin=0,
                                               decision="threshold"))
    assert plain.max_bid > 18 and not plain.hand_game
    value = float(plain.pickup_values[plain.game])
    # threshold just below the value: winnable, but within the margin -> 18 only
    near = thresholds(k=1, pickup_threshold=value - 1, hand_threshold=121, extensions=False,
                     contest_margin=5)
    d = decide_bid(model, strong, near)
    assert d.game == plain.game and d.max_bid == 18
    # clear of the margin: bids its full value again
    clear = thresholds(k=1, pickup_threshold=value - 6, hand_threshold=121, extensions=False,
                      contest_margin=5)
    assert decide_bid(model, strong, clear).max_bid == plain.max_bid


def test_game_choice_keeps_the_game_bid_on_within_the_switch_margin() -> None:
    from spielwerk.games.skat_ai.putting import choose_game

    twelve = hand("CJ SJ CA CT C9 C8 HA HT H9 H8 D7 S7")
    per_game = {0: (0, 40.0), 1: (0, 70.0), 2: (0, 45.0), 3: (0, 66.0), 4: (0, 50.0)}
    assert choose_game(per_game, twelve, 18, ev())[0] == 1  # the best value
    assert choose_game(per_game, twelve, 18, ev(), prefer=3)[0] == 1  # 4 points worse
    assert choose_game(per_game, twelve, 18, ev(switch_margin=5), prefer=3)[0] == 3
    # never the preferred game when it is certainly overbid (above clubs' schwarz value)
    high = suit_game_value(twelve, 3, schneider=True, schwarz=True) + 1
    assert choose_game(per_game, twelve, high, ev(switch_margin=50), prefer=3)[0] != 3


def test_public_put_decision_is_what_a_fresh_agent_puts_and_declares() -> None:
    """``SkatKnnAgent.put_decision`` and ``position`` (what the web table's put hint shows):
    the decision of a fresh agent holds both cards it puts and the game it declares."""
    from spielwerk.core.game import CHANCE, sample_chance
    from spielwerk.games.skat.actions import DECLARATIONS, DECLARE_BASE
    from spielwerk.games.skat.rules import DECLARE, PUT
    from spielwerk.games.skat_ai.knn_agent import SkatKnnAgent

    game = load_game("skat")
    found = 0
    for seed in range(40):
        st: Any = game.new_initial_state()
        rng = np.random.default_rng(seed)
        bots = [make_agent("rule", game, seed=s) for s in range(3)]
        while not st.is_terminal() and st.phase != PUT:
            if st.current_player == CHANCE:
                st.apply(sample_chance(st, rng))
                continue
            st.apply(bots[st.current_player].act(st.info_state(st.current_player)))
        if st.is_terminal():
            continue
        seat = st.current_player
        put = []
        for _ in range(2):
            agent = SkatKnnAgent(game, seed=seed, worlds=2)
            info = st.info_state(seat)
            assert agent.position(seat) == game.position_of(seat)
            decision = agent.put_decision(info)
            card = agent.act(info)
            assert decision.put >> card & 1
            put.append(card)
            st.apply(card)
        assert sum(1 << c for c in put) == decision.put
        assert st.phase == DECLARE
        fresh = SkatKnnAgent(game, seed=seed, worlds=2)
        info = st.info_state(seat)
        assert fresh.put_decision(info).game == decision.game
        declared = fresh.act(info)
        assert declared in info.legal_actions()
        assert DECLARATIONS[declared - DECLARE_BASE].game == decision.game
        found += 1
        if found == 3:
            break
    assert found == 3
