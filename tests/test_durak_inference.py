"""Durak inference: evidence read from the public moves, card weights, weighted worlds."""

from __future__ import annotations

import numpy as np
import pytest

import spielwerk.games  # noqa: F401
from spielwerk.core.agent import AgentSpecError, make_agent
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.evidence import SKIP
from spielwerk.games.durak.inference import FLOOR, card_weights, weighted_sampler
from spielwerk.games.durak.policies import greedy_action
from spielwerk.games.durak.rules import DurakGame, DurakInfoState, DurakState


def _greedy_positions(spec: str, deals: int, seed: int,
                      smart: bool = False) -> list[tuple[DurakState, int]]:
    """(state, seat to move) after every move of greedy-vs-greedy (or smart) games."""
    game = load_game(spec)
    assert isinstance(game, DurakGame)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(deals):
        st = game.new_dealt_state(rng)
        while not st.is_terminal():
            out.append((st.clone(), st.current_player))
            st.apply(int(greedy_action(st.S, smart)))
    return out


@pytest.mark.parametrize("spec,smart", [("durak(preset=zarlykov2023)", False),
                                        ("durak(preset=zarlykov2023)", True),
                                        ("durak(preset=classic,players=3)", False),
                                        ("durak(preset=perevodnoy,players=4)", True)])
def test_heuristic_opponents_never_contradict_the_evidence(spec: str, smart: bool) -> None:
    """Greedy and smart are the model: every row of a seat that drew nothing since names
    no card of that seat's hidden hand (its hidden cards now were all in its hand then),
    and no row is contradicted by its known cards. Skips are facts of the rules."""
    checked = skips = 0
    for st, p in _greedy_positions(spec, 6, 4, smart):
        info = st.info_state(p)
        assert info.evidence is not None
        rows, draws = info.evidence
        assert not rows[:, 5].any()
        for seat, kind, mask, drawn, _tested, _wrong in rows:
            assert seat != p
            if draws[seat] != drawn:
                continue
            hidden = int(st.S[K.HANDS + seat]) & ~info.known[seat]
            assert hidden & int(mask) == 0, (spec, kind)
            checked += 1
            skips += kind == SKIP
    assert checked > 100 and skips > 10


def test_no_evidence_without_a_replayable_history() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    st = game.new_dealt_state(3)  # type: ignore[attr-defined]
    world = st.info_state(0).sample_world(np.random.default_rng(0))
    world.apply_unchecked(world.legal_actions()[0])  # search code keeps no history
    assert world.info_state(1).evidence is None
    assert card_weights(world.info_state(1), 0.9) is None


def test_weights_follow_the_evidence() -> None:
    for st, p in _greedy_positions("durak(preset=zarlykov2023)", 2, 8)[40:60]:
        info = st.info_state(p)
        W = card_weights(info, 0.9)
        if W is None:
            continue
        assert W.shape == (2, 52) and np.all(W <= 1.0) and np.all(W >= FLOOR)
        assert np.all(W[p] == 1.0)  # no evidence about one's own hand
        rows, draws = info.evidence  # type: ignore[misc]
        for seat, kind, mask, drawn, _tested, _wrong in rows:
            if kind == SKIP and draws[seat] == drawn:
                for c in range(52):
                    if int(mask) >> c & 1 and info.unseen() >> c & 1:
                        assert W[seat, c] == FLOOR  # certain: never held
    with pytest.raises(ValueError):
        card_weights(info, 1.5)


def test_weighted_worlds_are_consistent_and_closer_to_the_truth() -> None:
    """Every weighted world keeps what the player knows; against greedy opponents the
    weighted worlds give the opponent more of its real hidden cards than uniform ones."""
    right_w = right_u = 0
    n = 0
    positions = _greedy_positions("durak(preset=zarlykov2023)", 4, 12)
    for st, p in positions[::7]:
        info = st.info_state(p)
        if info.stock == 0:
            continue
        W = card_weights(info, 0.9)
        if W is None:
            continue
        sample = weighted_sampler(info, W)
        q = 1 - p
        truth = int(st.S[K.HANDS + q]) & ~info.known[q]
        rng = np.random.default_rng(1)
        for _ in range(20):
            w = sample(info, rng)
            assert isinstance(w, DurakState)
            assert w.info_state(p).fingerprint() == info.fingerprint()
            u = info.sample_world(rng)
            right_w += K.popcount(int(w.S[K.HANDS + q]) & truth)
            right_u += K.popcount(int(u.S[K.HANDS + q]) & truth)
            n += 1
    assert n >= 100
    assert right_w > 1.15 * right_u, (right_w, right_u)


def test_a_model_the_known_cards_refute_is_trusted_less() -> None:
    """A row the known cards contradict counts for nothing, and the seat's other rows
    weigh by its observed error rate when that exceeds 1 - trust."""
    st, p = _greedy_positions("durak(preset=zarlykov2023)", 1, 5)[30]
    info = st.info_state(p)
    q = 1 - p
    cards = [c for c in range(52) if info.unseen() >> c & 1][:4]
    a, b = (1 << cards[0]) | (1 << cards[1]), (1 << cards[2]) | (1 << cards[3])
    _, draws = info.evidence  # type: ignore[misc]
    from spielwerk.games.durak.evidence import LED, TOOK
    rows = np.array([[q, TOOK, a, draws[q], 1, 1],  # shown wrong by a known card
                     [q, LED, b, draws[q], 1, 0]], np.int64)
    info.evidence = (rows, draws)
    W = card_weights(info, 1.0)
    assert W is not None
    assert W[q, cards[0]] == W[q, cards[1]] == 1.0
    # error rate 1 / (2 tested + 1) beats 1 - trust = 0; nothing drawn since: f = 0
    assert W[q, cards[2]] == pytest.approx(1 / 3)
    rows[0, 5] = 0  # no known mistake: full trust makes both rows certain
    assert card_weights(info, 1.0)[q, cards[0]] == pytest.approx(FLOOR)  # type: ignore[index]


def test_sampler_is_seeded_and_bound_to_its_info_state() -> None:
    st, p = _greedy_positions("durak(preset=zarlykov2023)", 1, 5)[30]
    info = st.info_state(p)
    W = card_weights(info, 0.8)
    assert W is not None
    sample = weighted_sampler(info, W)
    a = sample(info, np.random.default_rng(7))
    b = sample(info, np.random.default_rng(7))
    assert np.array_equal(a.S, b.S)  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        sample(st.info_state(1 - p), np.random.default_rng(7))


def test_infer_parameter() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    with pytest.raises(AgentSpecError):
        make_agent("ismcts:infer=2", game)
    positions = _greedy_positions("durak(preset=zarlykov2023)", 1, 6)
    for spec in ("ismcts:iters=40:infer=0.9", "mcts:worlds=4:iters=10:infer=0.9"):
        agent = make_agent(spec, game, seed=3)
        again = make_agent(spec, game, seed=3)
        for st, p in positions[20:30]:
            info: DurakInfoState = st.info_state(p)
            if len(info.legal_actions()) > 1:
                move = agent.act(info)
                assert move in info.legal_actions()
                assert again.act(info) == move  # same seed, same move
