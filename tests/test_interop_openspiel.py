"""spielwerk games inside OpenSpiel, checked with OpenSpiel's own tooling, and its bots in ours."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel not installed (extra [openspiel])")

from open_spiel.python.algorithms import (  # noqa: E402
    evaluate_bots,
    get_all_states,
    minimax,
)
from open_spiel.python.algorithms import ismcts as os_ismcts  # noqa: E402
from open_spiel.python.algorithms import mcts as os_mcts  # noqa: E402

from spielwerk import load_game, make_agent  # noqa: E402
from spielwerk.arena.match import play_game  # noqa: E402
from spielwerk.core.agent import AgentSpecError  # noqa: E402
from spielwerk.core.game import CHANCE  # noqa: E402
from spielwerk.games.kalah.graph import full_graph  # noqa: E402
from spielwerk.games.kalah.perfect import solver_for  # noqa: E402
from spielwerk.interop import encoding  # noqa: E402
from spielwerk.interop import openspiel as adapter  # noqa: E402

SPECS = [
    "spielwerk_kalah(pits=3,seeds=2)",
    "spielwerk_kalah(pits=6,seeds=4,empty_capture=true)",
    "spielwerk_durak(preset=zarlykov2023)",
    "spielwerk_durak(players=3,preset=perevodnoy)",
    "spielwerk_durak(open=true)",
    "spielwerk_skat",
    "spielwerk_skat(players=4,ramsch=true)",
]


def test_every_spielwerk_game_is_registered() -> None:
    names = set(pyspiel.registered_names())
    assert {"spielwerk_kalah", "spielwerk_durak", "spielwerk_skat"} <= names


def test_parameters_pass_through_to_our_game_spec() -> None:
    game = pyspiel.load_game("spielwerk_durak(preset=zarlykov2023)")
    assert game.game.spec() == load_game("durak(preset=zarlykov2023)").spec()
    assert game.num_players() == 2
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    open_game = pyspiel.load_game("spielwerk_durak(open=true)")
    assert open_game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    skat4 = pyspiel.load_game("spielwerk_skat(players=4,dealer=1)")
    assert skat4.num_players() == 4 and skat4.game.dealer == 1
    kalah = pyspiel.load_game("spielwerk_kalah(pits=4,seeds=3)")
    assert kalah.num_distinct_actions() == 4 and kalah.max_utility() == 24


@pytest.mark.parametrize("spec", SPECS)
def test_openspiel_random_simulation_test_with_serialization(spec: str) -> None:
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_serialization_round_trip_and_chance_probabilities() -> None:
    game = pyspiel.load_game("spielwerk_skat")
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    for _ in range(45):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    again = game.deserialize_state(state.serialize())
    assert again.history() == state.history()
    assert str(again) == str(state)
    assert again.inner.fingerprint() == state.inner.fingerprint()


@pytest.mark.parametrize("m,n,empty_capture", [(2, 3, False), (2, 3, True), (2, 2, False)])
def test_all_states_enumerated_by_openspiel_match_our_full_game_graph(
    m: int, n: int, empty_capture: bool
) -> None:
    game = pyspiel.load_game(
        f"spielwerk_kalah(pits={m},seeds={n},empty_capture={str(empty_capture).lower()})"
    )
    # str(state) is the whole board and the player to move: positions, not histories
    states = get_all_states.get_all_states(
        game, depth_limit=-1, include_terminals=True, include_chance_states=False, to_string=str
    )
    graph = full_graph(m, n, empty_capture)
    assert len(states) == graph.positions + graph.terminal_positions
    terminal = sum(1 for s in states.values() if s.is_terminal())
    assert terminal == graph.terminal_positions


@pytest.mark.parametrize("m,n", [(2, 3), (3, 2), (3, 1)])
def test_openspiel_exact_solver_agrees_with_ours(m: int, n: int) -> None:
    game = pyspiel.load_game(f"spielwerk_kalah(pits={m},seeds={n})")
    value, best = minimax.alpha_beta_search(game, maximum_depth=10_000)
    ours = load_game(f"kalah(pits={m},seeds={n})")
    solver = solver_for(ours)
    start = ours.new_initial_state()
    rel = solver.relative(start.board, 0)
    assert value == solver.value(rel) == full_graph(m, n).start_value
    move_values = solver.move_values(rel)
    assert move_values[best] == max(v for v in move_values.values())


def test_info_state_tensor_shows_only_the_players_knowledge() -> None:
    game = pyspiel.load_game("spielwerk_durak(preset=zarlykov2023)")
    ours = load_game("durak(preset=zarlykov2023)")
    state = game.wrap(ours.new_dealt_state(11))
    rng = np.random.default_rng(0)
    for _ in range(6):
        state.apply_action(state.legal_actions()[0])
    player = state.current_player()
    tensor = np.asarray(state.information_state_tensor(player))
    key = state.information_state_string(player)
    assert len(tensor) == game.information_state_tensor_size()
    hidden_differs = False
    for _ in range(10):
        world = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert np.array_equal(np.asarray(world.information_state_tensor(player)), tensor)
        assert world.information_state_string(player) == key
        other = 1 - player
        hidden_differs |= world.inner.hand(other) != state.inner.hand(other)
        world.inner.info_state(player).sample_world(rng)
    assert hidden_differs, "resampling never changed the opponent's hidden cards"
    # the opponent's view differs from ours
    assert state.information_state_string(1 - player) != key


def test_observation_string_is_readable_text() -> None:
    game = pyspiel.load_game("spielwerk_skat")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    text = state.observation_string(0)
    assert "hand:" in text and "seat 0" in text


def test_openspiel_mcts_and_ismcts_bots_play_through_evaluate_bots() -> None:
    kalah = pyspiel.load_game("spielwerk_kalah(pits=3,seeds=3)")
    rs = np.random.RandomState(1)
    evaluator = os_mcts.RandomRolloutEvaluator(1, rs)
    bots = [
        os_mcts.MCTSBot(kalah, 2.0, 50, evaluator, random_state=rs),
        pyspiel.make_uniform_random_bot(1, 5),
    ]
    returns = evaluate_bots.evaluate_bots(kalah.new_initial_state(), bots, rs)
    assert returns[0] == -returns[1]
    durak = pyspiel.load_game("spielwerk_durak(preset=zarlykov2023,deck=36)")

    class ISMCTS(os_ismcts.ISMCTSBot):  # type: ignore[misc]
        def restart_at(self, state: object) -> None:
            """OpenSpiel's Python ISMCTSBot lacks the restart_at evaluate_bots calls."""

    bots = [
        ISMCTS(durak, evaluator, 2.0, 10, random_state=rs),
        pyspiel.make_uniform_random_bot(1, 5),
    ]
    returns = evaluate_bots.evaluate_bots(durak.new_initial_state(), bots, rs)
    assert sorted(returns) == [-1.0, 1.0] or returns == [0.0, 0.0]


def test_openspiel_bots_as_spielwerk_agents_in_a_game() -> None:
    game = load_game("durak(preset=zarlykov2023)")
    agents = [make_agent("openspiel:ismcts:iters=8", game, seed=1),
              make_agent("openspiel:mcts:iters=8:c=2.8", game, seed=2)]
    for i, a in enumerate(agents):
        a.reset(i)
    returns, moves, _ = play_game(game, agents, np.random.default_rng(4))
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0]) and moves > 10
    assert all(a.simulations > 0 for a in agents)  # type: ignore[attr-defined]


def test_openspiel_agent_is_seeded() -> None:
    game = load_game("kalah(pits=4,seeds=3)")
    state = game.new_initial_state()
    picks = set()
    for _ in range(2):
        agent = make_agent("openspiel:mcts:iters=30", game, seed=9)
        agent.reset(9)
        picks.add(agent.act(state.info_state(0)))
    assert len(picks) == 1


def test_timed_openspiel_agent_adapts_its_simulations() -> None:
    game = load_game("kalah(pits=6,seeds=4)")
    agent = make_agent("openspiel:mcts:time=0.05", game, seed=1)
    state = game.new_initial_state()
    for _ in range(3):
        agent.act(state.info_state(0))
    assert agent.simulations > 3 * adapter.MIN_ITERATIONS  # type: ignore[attr-defined]


def test_bad_input_gives_our_registry_message_as_a_spiel_error() -> None:
    with pytest.raises(pyspiel.SpielError, match="kalah: pits must be at least 1"):
        pyspiel.load_game("spielwerk_kalah(pits=0)")
    with pytest.raises(pyspiel.SpielError, match="unknown game 'nosuch'; known games: durak"):
        adapter.load_game("nosuch")
    with pytest.raises(pyspiel.SpielError, match="kalah: unknown parameter 'pitz'"):
        adapter.load_game("kalah(pitz=3)")
    with pytest.raises(pyspiel.SpielError, match="durak: preset must be one of"):
        adapter.load_game("durak(preset=nosuch)")
    # OpenSpiel checks names against the parameters we declare before our code runs
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'pitz'"):
        pyspiel.load_game("spielwerk_kalah(pitz=3)")


@pytest.mark.parametrize(
    "spec,message",
    [
        ("openspiel:nosuch", "unknown OpenSpiel bot 'nosuch'; known bots: mcts, ismcts"),
        ("openspiel:mcts:depth=3", "unknown parameter 'depth'; parameters: iters"),
        ("openspiel:mcts:iters=many", "parameter 'iters' must be int, not 'many'"),
        ("openspiel:mcts:iters=1", "iters must be at least"),
        ("openspiel:ismcts:time=-1", "time must be >= 0"),
        ("openspiel", "expected openspiel:BOT"),
        ("openspiel:mcts:iters", "should be key=value"),
    ],
)
def test_bad_agent_specs_are_one_line_errors(spec: str, message: str) -> None:
    game = load_game("durak(preset=zarlykov2023)")
    with pytest.raises(AgentSpecError, match=message.replace("(", r"\(")):
        make_agent(spec, game)


def test_ismcts_refuses_perfect_information_games() -> None:
    with pytest.raises(AgentSpecError, match="refuses perfect-information games"):
        make_agent("openspiel:ismcts", load_game("kalah"))


def test_tensor_sizes_fit_every_state_of_a_random_game() -> None:
    for spec in ("durak(players=4)", "skat(players=4)", "kalah(pits=2,seeds=5)"):
        game = load_game(spec)
        rng = np.random.default_rng(2)
        state = game.new_initial_state()
        size = encoding.tensor_size(game)
        while not state.is_terminal():
            for p in range(game.num_players):
                t = encoding.encode(state.info_state(p))
                assert t.shape == (size,) and np.isfinite(t).all()
            if state.current_player == CHANCE:
                outcomes = state.chance_outcomes()
                state.apply(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply(legal[int(rng.integers(len(legal)))])


def test_spec_family_keeps_the_bot_in_the_name() -> None:
    from spielwerk.core.agent import parse_agent_spec

    assert parse_agent_spec("openspiel:mcts:iters=9") == ("openspiel:mcts", {"iters": "9"})
    assert parse_agent_spec("mcts:iters=9") == ("mcts", {"iters": "9"})


def test_import_spielwerk_does_not_load_openspiel() -> None:
    import subprocess
    import sys

    code = (
        "import sys, spielwerk\n"
        "from spielwerk import load_game, make_agent\n"
        "make_agent('mcts', load_game('kalah'))\n"
        "assert 'pyspiel' not in sys.modules and 'pettingzoo' not in sys.modules\n"
        "make_agent('openspiel:mcts', load_game('kalah'))\n"
        "assert 'pyspiel' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_durak_observation_strings_for_every_seat_through_a_game() -> None:
    # a seat that is neither attacker nor defender is written "player 2: ..." (once a crash)
    game = pyspiel.load_game("spielwerk_durak(players=3)")
    state = game.new_initial_state()
    rng = np.random.default_rng(8)
    while not state.is_terminal():
        for p in range(3):
            text = state.observation_string(p)
            assert text.startswith("dealing") or "trump" in text
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])


def test_openspiel_bot_in_an_arena_tournament(tmp_path: object) -> None:
    from pathlib import Path

    from spielwerk.arena.tournament import TournamentConfig, run_tournament
    from spielwerk.core.parallel import make_executor

    config = TournamentConfig.create("kalah(pits=3,seeds=2)", ["openspiel:mcts:iters=20", "random"],
                                     4, seed=3)
    out = Path(str(tmp_path)) / "r.jsonl"
    first = run_tournament(config, make_executor("serial"), output=out)
    resumed = run_tournament(config, make_executor("serial"), output=out, resume=True)
    assert first.complete and resumed.resumed == 4
    again = run_tournament(config, make_executor("serial"))  # played anew: same seeds, same games
    assert [r.outcome() for r in first.results] == [r.outcome() for r in again.results]
    rows = {row.label: row for row in first.standings().agents}
    assert rows["openspiel:mcts:iters=20"].games == 4
