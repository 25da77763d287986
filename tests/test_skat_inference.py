"""Inference for Skat card play: auction and play likelihoods, weighted worlds."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from skat_helpers import WorkClock
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, string_to_card
from spielwerk.games.skat.info import PlaceSampler, SkatInfoState
from spielwerk.games.skat.kernel import legal_cards
from spielwerk.games.skat.rules import PLAY
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.infer_models import (
    BID_CLASSES,
    BID_MODELS,
    CANON,
    BidModel,
    HeuristicPlayModel,
    InferenceError,
    PlayModel,
    PutModel,
    bid_class,
    fit_bid_model,
    fit_put_model,
    shared_bid_model,
)
from spielwerk.games.skat_ai.inference import (
    PLAY_MODELS,
    Inference,
    InferenceSettings,
    auction_observations,
    candidate_worlds,
    decision_record,
    past_decisions,
    record_card_decisions,
    resample,
    weighted_deals,
)
from spielwerk.games.skat_ai.knn_agent import shared_model

GAME: Any = load_game("skat")


class _Declared(Exception):
    pass


def declared_state(seed: int, spec: str = "knn:play=rule:calibration=strong") -> Any:
    """A deal bid, put and declared by the knn bot, stopped at the first card (None when
    passed in)."""
    agents = [make_agent(spec, GAME, seed=i) for i in range(3)]
    state = GAME.new_initial_state()

    def stop(s: Any, player: int, action: int) -> None:
        if s.phase == PLAY and s.contract is not None:
            raise _Declared

    try:
        play(state, agents, np.random.default_rng(seed), after=stop)
    except _Declared:
        return state
    return None


def played_state(seed: int, cards: int) -> Any:
    """A deal played by the knn bot (rule card play) until ``cards`` cards are down."""
    state = declared_state(seed)
    if state is None:
        return None
    agents = [make_agent("knn:play=rule:calibration=strong", GAME, seed=i) for i in range(3)]
    count = 0
    while count < cards and state.current_player >= 0:
        p = state.current_player
        state.apply(agents[p].act(state.info_view(p)))
        count += 1
    return state


def test_auction_observations_agree_with_the_bidders_decisions() -> None:
    bidder = make_agent("knn:play=rule:calibration=strong", GAME, seed=0)  # declared_state's
    settings = bidder.settings  # type: ignore[attr-defined]
    params = settings.decision_params()
    model = shared_model("", params.k, settings.scaling)
    checked = 0
    for seed in range(12):
        state = declared_state(seed)
        if state is None:
            continue
        obs = auction_observations(state.info_view(0))
        assert obs[state.declarer].declared > 0
        assert state.contract.game == (obs[state.declarer].declared - 1) // 2
        assert obs[state.declarer].declared % 2 == int(state.picked_up)  # odd: picked up
        assert obs[state.declarer].said_yes == state.auction.value
        for s, o in obs.items():
            decision = decide_bid(model, state.dealt[s], params, GAME.position_of(s))
            if o.said_yes:
                assert decision.max_bid >= o.said_yes
            if o.refused:
                assert decision.max_bid < o.refused
            assert (o.declared > 0) == (s == state.declarer)
            checked += 1
    assert checked >= 15


def test_place_sampler_respects_counts_and_voids() -> None:
    cards = list(range(12))
    places = [(5, 0b111), (5, 0), (2, 0)]  # the first place holds none of cards 0..2
    sampler = PlaceSampler(cards, places)
    rng = np.random.default_rng(3)
    seen_in_first = set()
    for _ in range(200):
        fill = sampler.draw(rng)
        assert [len(f) for f in fill] == [5, 5, 2]
        assert sorted(c for f in fill for c in f) == cards
        assert not {0, 1, 2} & set(fill[0])
        seen_in_first |= set(fill[0])
    assert seen_in_first == set(range(3, 12))
    with pytest.raises(ValueError):
        PlaceSampler(cards, [(11, 0), (2, 0)])


def test_resample_follows_the_weights() -> None:
    rng = np.random.default_rng(0)
    assert set(resample(np.array([0.0, 1.0, 0.0]), 10, rng).tolist()) == {1}
    idx = resample(np.array([0.25, 0.75]), 100, rng)
    assert len(idx) == 100 and abs(int((idx == 1).sum()) - 75) <= 1


def test_weighted_worlds_are_consistent_and_as_many_as_asked() -> None:
    inference = Inference.of("both")
    assert inference is not None
    for seed in (1, 2, 5):
        state = played_state(seed, 7)
        if state is None:
            continue
        p = state.current_player
        info = state.info_view(p)
        assert isinstance(info, SkatInfoState)
        worlds = weighted_deals(info, np.random.default_rng(seed), 12, inference)
        assert len(worlds) == 12
        me = GAME.position_of(p)
        for w in worlds:
            assert w.hands[me] == state.hands[p]
            for pos in range(3):
                seat = GAME.seat_of(pos)
                assert not w.hands[pos] & state.played[seat]
                if seat != p:
                    assert not w.hands[pos] & info.voids[seat]
            assert w.trick == tuple(state.trick)


def test_the_true_world_is_likelier_than_a_uniform_one() -> None:
    """Over held-out deals, the auction makes the real hidden hands likelier than the average
    uniform world (log-likelihood gain clearly above 0). (The play model is no better than
    uniform against our own bot's play, which breaks its many ties at random.)"""
    gains: dict[str, list[float]] = {"auction": []}
    rng = np.random.default_rng(11)
    for seed in range(100, 116):
        state = played_state(seed, 10)
        if state is None or state.current_player < 0:
            continue
        p = state.current_player
        info = state.info_view(p)
        cands = candidate_worlds(info, rng, 64)
        truth = candidate_worlds(info, rng, 1)[0]
        for s in truth.dealt:
            truth.hands[s] = state.hands[s]
            truth.dealt[s] = state.dealt[s]
        truth.skat = state.put if state.picked_up else state.skat
        for kind, g in gains.items():
            inference = Inference.of(kind)
            assert inference is not None
            lw = inference.weights(info, [*cands, truth])
            g.append(math.log(lw[-1] / lw[:-1].mean()))
    for kind, g in gains.items():
        assert len(g) >= 8
        assert np.mean(g) > 0.2, (kind, g)


def test_past_decisions_rebuild_each_hand() -> None:
    state = played_state(4, 14)
    assert state is not None
    p = state.current_player
    info = state.info_view(p)
    others = {s for s in GAME.positions if s != p}
    decisions = past_decisions(info, others)
    assert {d.seat for d in decisions} <= others
    assert len(decisions) == sum(bin(state.played[s]).count("1") for s in others)
    game = state.contract.game
    for d in decisions:
        hand = state.hands[d.seat] | d.later
        assert hand >> d.card & 1
        led = d.record[3]
        assert legal_cards(hand, led, game) >> d.card & 1


def test_decision_records_in_the_models_order() -> None:
    state = played_state(4, 4)
    assert state is not None
    p = state.current_player
    legal = [a for a in state.legal_actions() if a < 32]
    rec = decision_record(state, p, legal[0])
    assert rec[-1] == legal[0] and rec[5] == state.hands[p]
    assert rec[13] == sum(1 << c for c in legal)
    for g in range(6):  # a permutation of the cards that keeps the jacks
        assert sorted(CANON[g].tolist()) == list(range(32))
        assert all(CANON[g, c] == c for c in range(7, 32, 8))


def test_recorded_self_play_holds_every_card_choice_with_a_choice() -> None:
    first, rows = record_card_decisions((7101, 2, 2, 2))
    assert first == 2 and rows.dtype == np.int64 and rows.shape[1] == 15
    again = record_card_decisions((7101, 2, 2, 2))[1]
    assert np.array_equal(rows, again)  # seeded per deal
    one = record_card_decisions((7101, 3, 1, 2))[1]
    assert np.array_equal(rows[len(rows) - len(one):], one)  # deal 3 alone, the same rows
    hand, legal, card = rows[:, 5], rows[:, 13], rows[:, 14]
    assert ((legal >> card) & 1).all() and ((hand >> card) & 1).all()
    assert all(bin(int(m)).count("1") > 1 for m in legal)  # only real choices
    assert 10 <= len(rows) <= 2 * 30  # at most ten cards a seat and deal


def test_fit_bid_model_learns_a_simple_rule(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    hands = np.array([int(sum(1 << int(c) for c in rng.choice(32, 10, replace=False)))
                      for _ in range(3000)], dtype=np.int64)
    positions = rng.integers(0, 3, len(hands))
    jacks = np.array([bin(h & 0x80808080).count("1") for h in hands])
    max_bid = np.where(jacks >= 2, 24, 0)  # bid 24 with two jacks or more, else pass
    decl = np.where(jacks >= 2, 1 + 2 * 3, 0)
    model = fit_bid_model(hands, positions, max_bid, decl, hidden=32, epochs=20, batch=128,
                          seed=1)
    pb, pd = model.predict(hands[:500], positions[:500])
    predicted = BID_CLASSES[pb.argmax(1)]
    assert (predicted == max_bid[:500]).mean() > 0.95
    assert (pd.argmax(1) == decl[:500]).mean() > 0.95
    model.net.save(tmp_path / "bid.npz")
    again = BidModel.load(tmp_path / "bid.npz")
    assert np.allclose(again.predict(hands[:5], positions[:5])[0], pb[:5])
    assert bid_class(np.array([0, 17, 18, 19, 71, 72, 264])).tolist() == [0, 0, 1, 1, 23, 24,
                                                                            24]


def test_fit_put_model_learns_which_cards_go() -> None:
    """Synthetic puts: always the two lowest-numbered non-jack cards of the twelve."""
    rng = np.random.default_rng(2)
    rows = []
    for _ in range(1500):
        twelve = [int(c) for c in rng.choice(32, 12, replace=False)]
        plain = sorted(c for c in twelve if c & 7 != 7)
        rows.append((sum(1 << c for c in twelve), 4, (1 << plain[0]) | (1 << plain[1])))
    data = np.array(rows, dtype=np.int64)
    model = fit_put_model(data[:1200], hidden=32, epochs=15, seed=0)
    logp = model.pair_log_probability(data[1200:, 0], data[1200:, 1], data[1200:, 2])
    assert np.all(logp <= 1e-9)
    assert float(np.exp(logp).mean()) > 0.3  # uniform: 1/66
    # probabilities of all 66 pairs of one twelve sum to 1
    twelve = int(data[0, 0])
    cards = [c for c in range(32) if twelve >> c & 1]
    pairs = [(1 << a) | (1 << b) for i, a in enumerate(cards) for b in cards[i + 1:]]
    total = np.exp(model.pair_log_probability(np.full(66, twelve), np.full(66, 4),
                                              np.array(pairs))).sum()
    assert abs(total - 1.0) < 1e-9


def test_unreadable_models_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.npz"
    bad.write_bytes(b"not a model")
    for model in (BidModel, PlayModel, PutModel):
        with pytest.raises(InferenceError):
            model.load(bad)
    with pytest.raises(InferenceError):  # a model of another kind: the shapes do not fit
        PlayModel.load(BidModel.FILE)
    with pytest.raises(InferenceError):
        Inference.of("everything")


def test_each_shipped_bid_model_fits_its_own_bidder_best() -> None:
    """The named bid models (``bid_model``) are those of the bidders they are named for: on
    fresh hands each gives its own bidder's highest bids a lower log-loss than the other
    model does, and its file is the one its manifest describes."""
    game = load_game("skat")
    rng = np.random.default_rng(7303)
    hands = np.array([int(sum(1 << int(c) for c in rng.choice(32, 10, replace=False)))
                      for _ in range(400)], dtype=np.int64)
    positions = rng.integers(0, 3, len(hands))
    losses = {}
    for bidder in BID_MODELS:
        agent = make_agent(bidder, game, seed=0)
        params = agent.params  # type: ignore[attr-defined]
        model = shared_model(agent.settings.base, params.k,  # type: ignore[attr-defined]
                             agent.settings.scaling)  # type: ignore[attr-defined]
        truth = bid_class(np.array([decide_bid(model, int(h), params, int(p)).max_bid
                                    for h, p in zip(hands, positions, strict=True)]))
        for name in BID_MODELS:
            pb, _ = shared_bid_model(name).predict(hands, positions)
            losses[bidder, name] = float(-np.log(pb[np.arange(len(hands)), truth]).mean())
        manifest = json.loads((BID_MODELS[bidder].parent / "manifest.json").read_text())
        assert manifest["sha256"] == hashlib.sha256(BID_MODELS[bidder].read_bytes()).hexdigest()
    for bidder in BID_MODELS:
        for other in BID_MODELS:
            if other != bidder:
                assert losses[bidder, bidder] < losses[bidder, other], losses
    with pytest.raises(InferenceError, match="bid model is one of"):
        shared_bid_model("knn99")
    default = make_agent("knn", game, seed=0).player.inference  # type: ignore[attr-defined]
    assert default.bid_model is shared_bid_model("knn2")
    refit = make_agent("knn:bid_model=knn10", game,
                       seed=0).player.inference  # type: ignore[attr-defined]
    assert refit.bid_model is shared_bid_model("knn10")
    with pytest.raises(AgentSpecError, match="bid_model"):
        make_agent("pimc:infer=auction:bid_model=knn3", game, seed=0)


def test_infer_card_play_keeps_the_bidding() -> None:
    """knn:play=infer declares exactly as knn:play=pimc with the same win chances (only the
    card play differs) and plays legal games."""
    for seed in (0, 3):
        a = declared_state(seed, "knn:play=infer:calibration=strong:worlds=4")
        b = declared_state(seed, "knn:play=pimc:worlds=4")  # auto: strong
        assert (a is None) == (b is None)
        if a is None:
            continue
        assert a.contract == b.contract and a.declarer == b.declarer and a.put == b.put
        agents = [make_agent("knn:play=infer:calibration=strong:worlds=4", GAME, seed=i)
                  for i in range(3)]
        end = play(GAME.new_initial_state(), agents, np.random.default_rng(seed)).state
        result = getattr(end, "result", None)
        assert result is not None and result.contract == a.contract



def test_deadline_keeps_an_early_decision_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``deadline``, a decision whose first world cannot be solved in time stops that
    search after one slice and still plays a legal card (the rule agent's when no world
    finished). The clock is the solver's work at a slow machine's rate (50,000 nodes a
    second; :class:`skat_helpers.WorkClock`), so no machine is too slow or too fast for it."""
    import spielwerk.games.skat_ai.pimc_agent as pimc_agent
    import spielwerk.mc.pimc as pimc

    state = declared_state(2)
    assert state is not None
    p = state.current_player
    info = state.info_view(p)
    agent: Any = make_agent("pimc:worlds=64:time=0.002:deadline=true", GAME, seed=1)
    clock = WorkClock(agent.solver, [(0.0, 50_000.0)])
    monkeypatch.setattr(pimc_agent, "time", clock)
    monkeypatch.setattr(pimc, "time", clock)
    agent.clock = clock.perf_counter
    card = agent.act(info)
    assert card in info.legal_actions()
    first_slice = max(pimc_agent.MIN_SLICE_NODES, int(0.002 * pimc_agent.INITIAL_NODE_RATE))
    # one slice (its node limit checked every few nodes), not a second, not a whole world
    assert agent.solver.nodes < 2 * first_slice
    assert agent.last is None  # no world finished: the rule agent's card
    monkeypatch.undo()
    free: Any = make_agent("pimc:worlds=64:time=0.002", GAME, seed=1)  # no deadline
    assert free.act(info) in info.legal_actions()
    assert free.last is not None and free.last.worlds >= 1  # a whole world at least
    assert free.solver.nodes > 2 * first_slice


def _row(game: int, role: int, pos: int, trick: list[str], hand: list[str], leader_role: int,
         card: str) -> tuple[int, ...]:
    cards = [string_to_card(c) for c in hand]
    table = [string_to_card(c) for c in trick]
    mask = sum(1 << c for c in cards)
    led = table[0] if table else -1
    legal = int(legal_cards(mask, led, game))
    return (game, role, pos, led, table[1] if len(table) > 1 else -1, mask, 0, 0, 0,
            leader_role, 3, 0, 0, legal, string_to_card(card))


def test_heuristic_play_model_smears_onto_the_partner_s_tricks() -> None:
    model = HeuristicPlayModel()
    hand = ["SA", "S7", "DK"]
    # the partner (role 2) led the heart ace, the declarer followed low: the defender (role 1,
    # void in hearts) gives the partner points
    rows = np.array([_row(GRAND, 1, 2, ["HA", "H7"], hand, 2, c) for c in hand])
    p = model.chosen_probability(rows)
    assert math.isclose(float(p.sum()), 1.0)
    assert p[0] > p[2] > p[1]
    # the declarer trumped with a jack: now the cheap card goes
    rows = np.array([_row(GRAND, 1, 2, ["HA", "CJ"], hand, 2, c) for c in hand])
    p = model.chosen_probability(rows)
    assert math.isclose(float(p.sum()), 1.0)
    assert p[1] > p[2] > p[0]
    # on lead every card is as likely; illegal cards are never chosen
    rows = np.array([_row(GRAND, 0, 0, [], hand, 0, c) for c in hand])
    assert np.allclose(model.chosen_probability(rows), 1 / 3)
    rows = np.array([_row(GRAND, 1, 1, ["ST"], hand, 0, c) for c in hand])
    assert model.chosen_probability(rows)[2] < 1e-9


def test_play_inference_with_either_play_model() -> None:
    """infer=play weights worlds by the cards played under the network or the heuristic, and
    knn passes the choice on; a bad play model is refused."""
    state = played_state(4, 14)
    assert state is not None
    info = state.info_view(state.current_player)
    rng = np.random.default_rng(0)
    for kind in PLAY_MODELS:
        inference = Inference.of("play", InferenceSettings(play_model=kind))
        assert inference is not None
        worlds = weighted_deals(info, rng, 8, inference)
        assert len(worlds) == 8
        w = inference.weights(info, candidate_worlds(info, rng, 64))
        assert math.isclose(float(w.sum()), 1.0) and w.max() > w.min()
    with pytest.raises(InferenceError):
        Inference.of("play", InferenceSettings(play_model="oracle"))
    agent = make_agent("knn:play=infer:infer=both:play_model=heuristic:worlds=4", GAME, seed=1)
    inference = agent.player.inference  # type: ignore[attr-defined]
    assert isinstance(inference.play_model, HeuristicPlayModel)
    assert inference.bid_model is not None
