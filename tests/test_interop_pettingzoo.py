"""The PettingZoo environments: PettingZoo's own API and seed tests, what each player sees."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo not installed (extra [pettingzoo])")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from spielwerk.core.errors import (  # noqa: E402
    GameParameterError,
    IllegalActionError,
    UnknownGameError,
)
from spielwerk.interop import encoding  # noqa: E402
from spielwerk.interop.pettingzoo import env, raw_env  # noqa: E402

SPECS = [
    "kalah",
    "kalah(pits=4,seeds=3,empty_capture=true)",
    "durak(preset=zarlykov2023)",
    "durak(players=4)",
    "durak(players=3,preset=perevodnoy,open=true)",
    "skat",
    "skat(players=4,ramsch=true)",
]


@pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's notes on dict observations
@pytest.mark.parametrize("spec", SPECS)
def test_pettingzoo_api_and_seed_tests(spec: str) -> None:
    api_test(env(spec), num_cycles=100)
    seed_test(lambda: env(spec), num_cycles=60)


def test_random_agents_play_to_the_end_with_rewards_only_at_the_end() -> None:
    e = env("durak(players=4)")
    e.reset(seed=5)
    finals: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            finals[agent] = reward
            action = None
        else:
            assert reward == 0.0
            assert obs["action_mask"].sum() >= 1
            action = e.action_space(agent).sample(obs["action_mask"])
        e.step(action)
    assert set(finals) == {f"player_{i}" for i in range(4)}
    assert abs(sum(finals.values())) < 1e-9 and min(finals.values()) == -1.0


def test_observation_holds_only_the_players_knowledge() -> None:
    e = raw_env("durak(preset=zarlykov2023)")
    e.reset(seed=3)
    for _ in range(5):
        mover = e.agent_selection
        e.step(int(np.flatnonzero(e.observe(mover)["action_mask"])[0]))
    rng = np.random.default_rng(1)
    mine = e.observe("player_0")
    theirs = e.observe("player_1")
    assert np.array_equal(mine["observation"], encoding.encode(e.state.info_state(0)))
    changed = False
    for _ in range(10):
        e.state = e.state.info_state(0).sample_world(rng)  # deal player_1 other hidden cards
        assert np.array_equal(e.observe("player_0")["observation"], mine["observation"])
        changed |= not np.array_equal(e.observe("player_1")["observation"], theirs["observation"])
    assert changed, "player_1's observation never changed with its hidden cards"


def test_only_the_mover_has_legal_actions_in_its_mask() -> None:
    e = raw_env("skat")
    e.reset(seed=2)
    mover = e.agent_selection
    for agent in e.agents:
        mask = e.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == mover)
    legal = e.state.legal_actions()
    assert list(np.flatnonzero(e.observe(mover)["action_mask"])) == legal


def test_ansi_render_is_the_movers_view_then_the_whole_table() -> None:
    e = env("durak(preset=zarlykov2023)", render_mode="ansi")
    e.reset(seed=4)
    text = e.render()
    assert isinstance(text, str) and "sees:" in text and "cards, known" in text
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated
               else e.action_space(agent).sample(obs["action_mask"]))
    assert "durak" in e.render() or "draw" in e.render()


def test_illegal_action_raises_and_leaves_the_game_unchanged() -> None:
    e = raw_env("kalah(pits=3,seeds=1)")
    e.reset(seed=0)
    e.step(2)  # South sows pit 3 into its store: South moves again
    assert e.agent_selection == "player_0"
    before = e.state.fingerprint()
    with pytest.raises(IllegalActionError, match="not legal"):
        e.step(2)  # pit 3 is empty now
    assert e.state.fingerprint() == before


def test_unknown_game_or_parameter_gives_our_registry_message() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'nosuch'; known games"):
        env("nosuch")
    with pytest.raises(GameParameterError, match="kalah: unknown parameter 'pitz'"):
        env("kalah(pitz=3)")
    with pytest.raises(GameParameterError, match="durak: players must be 2 to 6"):
        env("durak(players=9)")


def test_readme_example_runs() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Interop", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "the README's Interop section has a python example"
    exec(compile(code.group(1), "README.md", "exec"), {})  # noqa: S102
