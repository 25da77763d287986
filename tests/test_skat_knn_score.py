"""Every decision before the first card by expected Seeger-Fabian score (``decision=score``)
with win chances per game type measured under strong defence (``calibration=strong``)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from skat_helpers import random_hands
from spielwerk.core.agent import make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL, as_hand
from spielwerk.games.skat.scoring import NULL_VALUES, suit_game_value
from spielwerk.games.skat_ai import params
from spielwerk.games.skat_ai.bidding import decide_bid, options
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.features import (
    NULL_RISK_CAP,
    hand_count,
    null_count,
    null_pickup_count,
)
from spielwerk.games.skat_ai.knowledge.store import KnowledgeBaseError
from spielwerk.games.skat_ai.params import (
    CALIBRATION_DIR,
    KnnParams,
    expected_score,
    typed_calibration,
    win_probability,
)
from spielwerk.games.skat_ai.putting import choose_game, knn_put

SCORE = KnnParams(decision="score", calibration="strong", null_model="knn")


@pytest.fixture(scope="module")
def model() -> KnnModel:
    return KnnModel.load()  # the shipped base


def test_the_shipped_calibration_says_how_it_was_made() -> None:
    data = json.loads((CALIBRATION_DIR / "strong.json").read_text())
    assert data["format"] == params.CALIBRATION_FORMAT
    assert "skat_kb_calibrate.py" in data["made_by"] and "--typed" in data["made_by"]
    for stage in params.STAGES:
        for kind in params.GAME_TYPES:
            assert len(data["stages"][stage][kind]) == 5


def test_null_count_is_the_capped_risk_of_each_suit() -> None:
    # every suit's cards low enough: each i-th lowest at most at null rank 2i
    assert null_count(as_hand("C7 C9 CJ S7 S8 H7 H9 D7 D8 D9".split()))[0] == 0
    # a lone ace of clubs: rank 7 with nothing below - capped; a lone ten of spades: rank 3
    assert null_count(as_hand("CA ST H7 H8 H9 D7 D8 D9 DJ DQ".split()))[0] == NULL_RISK_CAP + 3
    hands = random_hands(200, 3)
    counts = null_count(hands)
    assert counts.min() >= 0 and counts.max() <= 4 * NULL_RISK_CAP


def test_null_pickup_count_puts_the_two_worst_cards() -> None:
    for hand in random_hands(40, 4):
        cards = [c for c in range(32) if hand >> c & 1]
        brute = min(null_count(hand & ~(1 << a) & ~(1 << b))[0]
                    for i, a in enumerate(cards) for b in cards[i + 1:])
        assert null_pickup_count(hand) == brute <= null_count(hand)[0]
    # the two risky singletons go: the rest is safe
    assert null_pickup_count(as_hand("CA SK H7 H8 H9 D7 D8 D9 DJ DQ".split())) == 0


def test_win_probability_per_game_type() -> None:
    table = typed_calibration("strong")
    for stage in params.STAGES:
        for game, kind in ((0, "suit"), (3, "suit"), (GRAND, "grand"), (NULL, "null")):
            w_value, w_count, *bias = table["stages"][stage][kind]
            value = 0.6 if game == NULL else 60.0
            for position in range(3):
                z = (w_value * (value - table["centers"][kind]) + w_count * (8 - 7)
                     + bias[position])
                assert win_probability(value, stage, position, 8, game,
                                       calibration="strong") == pytest.approx(1 / (1 + np.exp(-z)))
            more = 0.9 if game == NULL else 75.0
            assert win_probability(more, stage, 1, 7, game, calibration="strong") > \
                win_probability(value, stage, 1, 7, game, calibration="strong")


def test_a_damaged_calibration_is_refused_with_the_command_that_makes_it(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(params, "CALIBRATION_DIR", tmp_path)
    monkeypatch.setattr(params, "_TYPED", {})
    with pytest.raises(KnowledgeBaseError, match="skat_kb_calibrate.py"):
        typed_calibration("strong")
    (tmp_path / "strong.json").write_text('{"format": "other"}')
    with pytest.raises(KnowledgeBaseError, match="stages"):
        typed_calibration("strong")


def _options(model: KnnModel, hand: int, position: int) -> list[tuple[float, int, bool, int]]:
    d = decide_bid(model, hand, KnnParams(decision="ev", calibration="strong"), position)
    out = []
    for is_hand, values, stage in ((False, d.pickup_values, "pickup"),
                                   (True, d.hand_values, "hand")):
        for g in range(6):
            value = (NULL_VALUES[(is_hand, False)] if g == NULL
                     else suit_game_value(hand, g, hand=is_hand))
            count = hand_count(hand, g) if g != NULL else float(
                null_count(hand)[0]) if is_hand else null_pickup_count(hand)
            p = win_probability(float(values[g]), stage, position, count, g,
                                calibration="strong")
            out.append((expected_score(p, value), g, is_hand, value))
    return out


def test_public_options_are_the_expected_scores_the_bidding_compares(
        model: KnnModel) -> None:
    """``bidding.options`` (what the web table's bidding hint shows) holds exactly the
    oracle's expected score of every game, with and without the skat (ouvert rows aside)."""
    p = KnnParams(decision="ev", calibration="strong")
    for i, hand in enumerate(random_hands(20, 9)):
        d = decide_bid(model, hand, p, i % 3)
        got = sorted((g, is_hand, value, e) for e, g, is_hand, value, ouvert
                     in options(hand, p, i % 3, d) if not ouvert)
        want = sorted((g, is_hand, value, e) for e, g, is_hand, value in
                      _options(model, hand, i % 3))
        assert [r[:3] for r in got] == [r[:3] for r in want]
        assert [r[3] for r in got] == pytest.approx([r[3] for r in want])


def test_bidding_plays_the_game_with_the_best_expected_score(model: KnnModel) -> None:
    declared = passed = 0
    for i, hand in enumerate(random_hands(60, 5)):
        d = decide_bid(model, hand, SCORE, i % 3)
        options = _options(model, hand, i % 3)
        best = max(options, key=lambda o: (o[0], o[3]))
        if best[0] <= 0:
            assert d.game == -1 and d.max_bid == 0
            passed += 1
            continue
        declared += 1
        assert (d.game, d.hand_game) == (best[1], best[2])
        assert 18 <= d.max_bid  # at least 18 whenever some game beats passing
    assert declared and passed


def test_after_picking_up_the_game_with_the_best_expected_score_null_included(
        model: KnnModel) -> None:
    chose = set()
    for i, twelve in enumerate(random_hands(80, 6, 12)):
        d = knn_put(model, twelve, 18, SCORE, i % 3)
        choice, _ = choose_game(d.per_game, twelve, 18, SCORE, position=i % 3)
        assert choice == d.game
        chose.add(d.game)
        scores = {}
        for g, (put, value) in d.per_game.items():
            count = hand_count(twelve & ~put, g) if g != NULL else float(
                null_count(twelve & ~put)[0])
            p = win_probability(value, "put", i % 3, count, g, SCORE.put_shift(g),
                                calibration="strong")  # grand's chance less the shift
            v = NULL_VALUES[(False, False)] if g == NULL else suit_game_value(twelve, g)
            scores[g] = expected_score(p, v)
        assert scores[d.game] == pytest.approx(max(scores.values()))
    assert len(chose) >= 3  # more than one kind of game comes out


def test_a_certainly_overbid_game_is_not_chosen(model: KnnModel) -> None:
    ouvert = 0
    for i, twelve in enumerate(random_hands(40, 7, 12)):
        d = knn_put(model, twelve, 60, SCORE, i % 3)  # null (at most 46) is overbid at 60
        assert d.game != NULL
        assert suit_game_value(twelve, d.game, schneider=True, schwarz=True) >= 60 or all(
            suit_game_value(twelve, g, schneider=True, schwarz=True) < 60 for g in range(5))
        d = knn_put(model, twelve, 30, SCORE, i % 3)  # null 23 is overbid, ouvert 46 is not
        if d.game == NULL:
            assert d.ouvert
            ouvert += 1


def test_the_agent_takes_the_new_decision_and_plays_whole_games() -> None:
    game = load_game("skat")
    agent = make_agent("knn:worlds=1:decision=score:calibration=strong", game, seed=1)
    assert agent.params.decision == "score"  # type: ignore[attr-defined]
    from spielwerk.core.testing_agents import check_agent

    report = check_agent(game, "knn:worlds=1:decision=score:calibration=strong", n_games=2,
                         seed=3)
    assert report.deterministic > 0


class _SteppedClock:
    """``time.perf_counter`` stand-in: each reading 0.6 ms after the last, whatever the
    machine's speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        self.now += 0.0006
        return self.now


def test_the_knn_bot_keeps_to_its_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """``knn:time=T``: PIMC stops sampling when T is spent (the web table passes its budget).
    The card player's clock is a stepped stand-in (each reading 0.6 ms on), so the budget
    of 1 ms ends every sampled decision after its first world on any machine."""
    import spielwerk.mc.pimc as pimc_module

    clock = _SteppedClock()
    monkeypatch.setattr(pimc_module, "time", clock)
    game = load_game("skat")
    seats = [make_agent("knn:worlds=64:time=0.001", game, seed=s) for s in range(3)]
    for seat in seats:  # the card player's own time checks read the same stepped clock
        seat.player.clock = clock.perf_counter  # type: ignore[attr-defined]
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    from spielwerk.core.game import sample_chance

    sampled = []
    while not state.is_terminal():
        p = state.current_player
        if p < 0:
            state.apply(sample_chance(state, rng))
            continue
        action = seats[p].act(state.info_state(p))
        last = seats[p].player.last  # type: ignore[attr-defined]
        if last is not None and not last.exhaustive:
            sampled.append(last.worlds)
            seats[p].player.last = None  # type: ignore[attr-defined]
        state.apply(action)
    assert sampled and max(sampled) == 1  # the budget, not the worlds, ended the sampling


def test_the_frozen_bot_decides_as_the_knn_bot_did_and_pins_its_base(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from spielwerk.core.agent import AgentSpecError

    game = load_game("skat")
    frozen = make_agent("knn1:worlds=2", game, seed=0)
    knn = make_agent("knn:worlds=2:calibration=pimc:decision=ev:game_choice=value", game,
                     seed=0)
    for i, hand in enumerate(random_hands(40, 9)):
        a = frozen.bid_decision(hand, i % 3)  # type: ignore[attr-defined]
        b = knn.bid_decision(hand, i % 3)  # type: ignore[attr-defined]
        assert (a.game, a.hand_game, a.max_bid) == (b.game, b.hand_game, b.max_bid)
    with pytest.raises(AgentSpecError, match="not the one this frozen bot"):
        import shutil

        shutil.copytree(CALIBRATION_DIR.parent / "skat_kb", tmp_path / "kb")
        manifest = tmp_path / "kb" / "manifest.json"
        manifest.write_text(manifest.read_text() + " ")
        make_agent(f"knn1:base={tmp_path / 'kb'}", game, seed=0)


def test_null_ouvert_is_declared_by_its_own_win_chances(model: KnnModel) -> None:
    """The shipped calibration has null ouvert weights of its own (fitted on forced null
    ouvert games): after picking up, null ouvert is declared exactly when its expected
    score beats plain null's - and a riskier hand's chance is lower."""
    assert params.has_ouvert("strong")
    ouverts = plain = 0
    low = (h for h in random_hands(20000, 11, 12) if null_pickup_count(h) <= 1)
    for i, twelve in enumerate(itertools.islice(low, 300)):  # hands null suits
        d = knn_put(model, twelve, 18, SCORE, i % 3)
        if d.game != NULL:
            continue
        value, ten = d.per_game[NULL][1], twelve & ~d.per_game[NULL][0]
        count = float(null_count(ten)[0])
        shift = SCORE.put_shift(NULL)  # the choice's chance: null's shift on both
        chances = [win_probability(value, "put", i % 3, count, NULL, shift,
                                   calibration="strong", ouvert=o) for o in (False, True)]
        better = expected_score(chances[1], 46) > expected_score(chances[0], 23)
        assert d.ouvert == better
        assert win_probability(value, "put", i % 3, count + 1, NULL, shift,
                               calibration="strong", ouvert=d.ouvert) < chances[d.ouvert]
        ouverts += d.ouvert
        plain += not d.ouvert
    assert ouverts and plain  # both come out of 300 low-risk pick-ups (3 and 192)


def test_a_null_plan_holds_its_bid_in_a_contested_auction(model: KnnModel) -> None:
    """An opponent who bids on holds high cards - no reason to doubt a null: a hand whose
    plan is null bids up to the null's value, not only 18 (the trump games' contest shift
    does not apply to null)."""
    nulls = 0
    for i, hand in enumerate(random_hands(1500, 12)):
        d = decide_bid(model, hand, SCORE, i % 3)
        if d.game == NULL:
            nulls += 1
            assert d.max_bid >= NULL_VALUES[(d.hand_game, d.ouvert)]
    assert nulls >= 5


def test_calibrations_without_null_weights_ignore_the_null_risk() -> None:
    """``rule`` and ``pimc`` were fitted on trump games only: the risk count a null passes
    for ``strong`` must not read as a trump count there (a hopeless null hand with risk 12
    would look like a hand with twelve trumps)."""
    for calibration in ("rule", "pimc"):
        for stage in params.STAGES:
            chances = {win_probability(0.3, stage, 1, count, NULL, calibration=calibration)
                       for count in (0.0, 7.0, 12.0)}
            assert len(chances) == 1
    assert win_probability(0.3, "put", 1, 0.0, NULL, calibration="strong") > \
        win_probability(0.3, "put", 1, 12.0, NULL, calibration="strong")
