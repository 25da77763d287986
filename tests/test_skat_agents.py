"""Skat baseline agents and the terminal table."""

from __future__ import annotations

import builtins
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from spielwerk.cli.main import app
from spielwerk.core.agent import list_agents, make_agent
from spielwerk.core.game import InfoState
from spielwerk.core.registry import load_game
from spielwerk.games.skat.rules import CLAIM, PLAY_ON, RESIGN, SkatState


def _play(specs: list[str], seed: int, spec: str = "skat") -> SkatState:
    game = load_game(spec)
    rng = np.random.default_rng(seed)
    seats = [p for p in range(game.num_players)]
    agents = {p: make_agent(specs[i % len(specs)], game, seed=seed * 7 + p)
              for i, p in enumerate(seats)}
    s = game.new_initial_state()
    assert isinstance(s, SkatState)
    while not s.is_terminal():
        if s.is_chance_node():
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
            continue
        p = s.current_player
        info: InfoState = s.info_state(p)
        a = agents[p].act(info)
        assert a in s.legal_actions()
        assert a not in (CLAIM, RESIGN)
        s.apply(a)
    return s


def test_agents_are_registered_for_skat() -> None:
    names = {e.name for e in list_agents("skat")}
    assert {"random", "rule"} <= names


@pytest.mark.parametrize("specs", [["random"], ["rule"], ["rule", "random", "random"]])
def test_agents_play_legal_full_games(specs: list[str]) -> None:
    for seed in range(40):
        s = _play(specs, seed)
        assert s.result is not None


def test_agents_on_a_four_player_table() -> None:
    for seed in range(10):
        s = _play(["rule"], seed, "skat(players=4,dealer=1)")
        assert s.result is not None and s.returns()[1] == 0.0


def test_rule_agent_declares_sensible_games() -> None:
    won = lost = passed = overbid = 0
    for seed in range(150):
        res = _play(["rule"], seed).result
        assert res is not None
        if res.passed:
            passed += 1
        elif res.won:
            won += 1
        else:
            lost += 1
            overbid += res.overbid
    # a bidding baseline should win most games it declares and rarely overbid
    assert won > 1.5 * lost
    assert overbid <= 0.1 * (won + lost)
    assert passed < 75


def test_rule_agent_declines_concessions() -> None:
    game = load_game("skat")
    agent = make_agent("rule", game, seed=0)
    s = game.new_initial_state()
    rng = np.random.default_rng(2)
    while s.is_chance_node():
        s.apply(s.legal_actions()[int(rng.integers(len(s.legal_actions())))])
    for m in ("p", "p", "18", "GH"):
        s.apply(s.string_to_action(m))
    s.apply(s.legal_actions()[0])  # forehand (declarer) leads
    s.apply(s.string_to_action("RE"))  # middlehand offers to resign
    assert agent.act(s.info_state(s.current_player)) == PLAY_ON


def _auto_input(monkeypatch: pytest.MonkeyPatch, prompts: list[str]) -> None:
    """Answer every prompt with the first legal move it lists."""

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        menu = re.search(r"\((.*); \? help", prompt)
        assert menu is not None
        first = menu.group(1).split(", ")[0]
        if first.startswith("bid "):
            return first[4:].split("..")[0]
        return first

    monkeypatch.setattr(builtins, "input", fake_input)


@pytest.mark.parametrize("command", [["skat", "play"], ["play", "skat"]])
def test_a_person_plays_a_full_deal(monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    prompts: list[str] = []
    _auto_input(monkeypatch, prompts)
    res = CliRunner().invoke(app, [*command, "--vs", "rule", "--seat", "0", "--seed", "4"])
    assert res.exit_code == 0, res.output
    assert "returns:" in res.output
    assert prompts  # the person was asked
    assert "you are seat 0 (forehand)" in res.output


def test_terminal_table_bidding_skat_and_declaration_prompts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # seed chosen so that the person (bidding the lowest value each time) becomes declarer
    for seed in range(30):
        prompts: list[str] = []
        _auto_input(monkeypatch, prompts)
        res = CliRunner().invoke(app, ["skat", "play", "--seed", str(seed), "--vs", "random"])
        assert res.exit_code == 0, res.output
        if "picks up the skat" in res.output and "seat 0 (forehand) picks up" in res.output:
            assert any("s," in p or "(s" in p for p in prompts)  # pick up offered
            assert "the skat was:" in res.output  # the declarer sees the skat
            assert "declares" in res.output
            return
    pytest.fail("the person never became declarer in 30 deals")


def test_quitting_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builtins, "input", lambda prompt="": "q")
    res = CliRunner().invoke(app, ["skat", "play", "--seed", "1"])
    assert res.exit_code == 0 and "You left the game." in res.output


def test_agents_play_ramsch_when_all_pass() -> None:
    ramsch = 0
    for seed in range(60):
        s = _play(["rule", "random", "rule"], seed, "skat(ramsch=true)")
        assert (s.result is not None) != (s.ramsch_result is not None)
        ramsch += s.ramsch_result is not None
    assert ramsch > 0


def test_rule_put_is_the_rule_agents_put_for_a_game() -> None:
    from types import SimpleNamespace

    import numpy as np

    from spielwerk.core.registry import load_game
    from spielwerk.games.skat_ai.baseline import SkatRuleAgent, best_suit_game, rule_put

    agent = SkatRuleAgent(load_game("skat(players=3)"), 0)
    rng = np.random.default_rng(11)
    for _ in range(200):
        twelve = int(sum(1 << int(c) for c in rng.choice(32, 12, replace=False)))
        game = best_suit_game(twelve)[0]
        put = rule_put(twelve, game)
        assert bin(put).count("1") == 2 and put & ~twelve == 0
        cards = [c for c in range(32) if twelve >> c & 1]
        first = agent._put(SimpleNamespace(hand=twelve), cards)  # type: ignore[arg-type]
        assert put >> first & 1
        rest = twelve & ~(1 << first)
        if best_suit_game(rest)[0] == game:  # the agent chooses its game again: the same
            second = agent._put(SimpleNamespace(hand=rest),  # type: ignore[arg-type]
                                [c for c in cards if c != first])
            assert put == (1 << first) | (1 << second)


def test_knn_rule_putting_plays_whole_deals() -> None:
    from spielwerk.arena.match import play_one

    result = play_one("skat(players=3,dealer=2,ramsch=false)",
                      ["knn:play=rule:putting=rule", "rule", "rule"], seed=3)
    assert result.moves > 0
