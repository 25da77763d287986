"""Agent specs parsed once: :class:`AgentSpec` writes back what it parsed, takes new
parameters without a round trip through text, refuses what it could not write back, and
:func:`make_agent` builds from it without parsing again."""

from __future__ import annotations

import pickle
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import spielwerk.core.agent as agent_module
from spielwerk.core.agent import AgentSpec, AgentSpecError, make_agent, parse_agent_spec
from spielwerk.core.registry import load_game

NAMES = st.text(string.ascii_letters + string.digits + "_-.", min_size=1, max_size=12).filter(
    lambda n: n != "openspiel")
KEYS = st.text(string.ascii_lowercase + string.digits + "_", min_size=1, max_size=10)
VALUES = st.text(string.ascii_letters + string.digits + "._-+= ", max_size=12).filter(
    lambda v: v == v.strip())


@st.composite
def specs(draw: Any) -> AgentSpec:
    name = draw(NAMES)
    if draw(st.booleans()):
        name = f"openspiel:{name}"  # a spec family keeps its bot in the name
    pairs = draw(st.lists(st.tuples(KEYS, VALUES), max_size=5, unique_by=lambda kv: kv[0]))
    return AgentSpec(name, tuple(pairs))


@given(specs())
def test_a_spec_written_back_parses_to_itself(spec: AgentSpec) -> None:
    text = str(spec)
    assert AgentSpec.parse(text) == spec
    assert parse_agent_spec(text) == (spec.name, spec.params)
    padded = " : ".join(f" {part} " for part in text.split(":"))  # spaces are not part of it
    assert AgentSpec.parse(padded) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec  # it crosses the engine workers' pipe
    assert hash(AgentSpec.parse(text)) == hash(spec)


@given(specs(), KEYS, VALUES)
def test_with_params_sets_one_parameter_and_keeps_the_rest(spec: AgentSpec, key: str,
                                                           value: str) -> None:
    if spec.name.startswith("openspiel") and ":" not in spec.name:
        return
    changed = spec.with_params(**{key: value})
    assert changed.params == {**spec.params, key: value}
    assert [k for k, _ in changed.items][: len(spec.items)] == [k for k, _ in spec.items]
    assert AgentSpec.parse(str(changed)) == changed
    assert spec.params.get(key) == dict(spec.items).get(key)  # the original is unchanged


def test_with_params_writes_values_as_a_spec_would() -> None:
    spec = AgentSpec.parse("knn:worlds=8:k=10")
    assert str(spec.with_params(worlds=1, time=0.05, deadline=True)) == \
        "knn:worlds=1:k=10:time=0.05:deadline=true"
    assert spec.params == {"worlds": "8", "k": "10"}
    spec.params["worlds"] = "99"  # a copy: the spec cannot be changed through it
    assert spec.params["worlds"] == "8"


@pytest.mark.parametrize("name, items, text", [
    ("", (), "is not an agent name"),
    (" mcts", (), "is not an agent name"),
    ("mcts:iters", (), "is not an agent name"),
    ("openspiel", (("iters", "9"),), "is not an agent name"),
    ("openspiel:a:b", (), "is not an agent name"),
    ("mcts", (("iters", "8"), ("iters", "9")), "given twice"),
    ("mcts", (("iters", "8:c=2"),), "is not a parameter"),
    ("mcts", (("it=ers", "8"),), "is not a parameter"),
    ("mcts", (("iters", " 8"),), "is not a parameter"),
])
def test_a_spec_that_would_not_read_back_is_refused(name: str, items: tuple[tuple[str, str]],
                                                    text: str) -> None:
    with pytest.raises(AgentSpecError, match=text) as err:
        AgentSpec(name, items)
    assert "\n" not in str(err.value)


def test_parse_errors_are_those_of_parse_agent_spec() -> None:
    for bad in ("", ":iters=3", "mcts:iters"):
        with pytest.raises(AgentSpecError) as expected:
            parse_agent_spec(bad)
        with pytest.raises(AgentSpecError) as got:
            AgentSpec.parse(bad)
        assert str(got.value) == str(expected.value)


def count_parses(monkeypatch: pytest.MonkeyPatch, with_params: bool = False) -> list[str]:
    """Every spec text parsed from now on (``parse_agent_spec`` is where all parsing goes);
    ``with_params``: only specs with parameters (the web app's lobby probes its agents by
    bare name in the background while a table plays)."""
    seen: list[str] = []
    real = agent_module.parse_agent_spec

    def counting(spec: str) -> tuple[str, dict[str, str]]:
        if ":" in spec or not with_params:
            seen.append(spec)
        return real(spec)

    monkeypatch.setattr(agent_module, "parse_agent_spec", counting)
    return seen


def test_make_agent_builds_from_a_parsed_spec_without_parsing_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game("kalah")
    spec = AgentSpec.parse("mcts:iters=7:worlds=3")
    parsed = count_parses(monkeypatch)
    agent = make_agent(spec, game, seed=0)
    assert parsed == []
    assert (agent.iters, agent.params.worlds) == (7, 3)  # type: ignore[attr-defined]
    from_text = make_agent("mcts:iters=7:worlds=3", game, seed=0)
    assert parsed == ["mcts:iters=7:worlds=3"]
    assert (from_text.iters, from_text.params.worlds) == (7, 3)  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="'iters' must be int, not 'x'"):
        make_agent(spec.with_params(iters="x"), game)
    with pytest.raises(AgentSpecError, match="unknown agent 'nope'"):
        make_agent(AgentSpec("nope"), game)


# ----- the web table: parsed once per engine move, then passed on parsed -----------------
def play_until_my_turn(client: Any, table_id: str) -> None:
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        for _ in range(200):
            msg = ws.receive_json()
            assert msg["type"] != "error", msg
            if msg["type"] == "view":
                view = msg["view"]
                if view["over"] or (view["to_move"] == view["seat"] and msg["thinking"] is None):
                    return
    raise AssertionError("the engine did not hand the move back")


def test_an_engine_move_at_the_web_table_parses_its_spec_once(
        client: Any, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # seat 1 in Kalah: the engine (South) moves first
    r = client.post("/api/tables", json={"game": "kalah", "seat": 1, "seed": 3, "time": 0.5,
                                         "opponents": ["mcts:iters=20:worlds=1"]})
    assert r.status_code == 200, r.text
    parsed = count_parses(monkeypatch, with_params=True)  # the moves, not the creation
    play_until_my_turn(client, r.json()["id"])
    moves = app.state.server.stats["engine_moves"]
    assert moves >= 1
    # text -> AgentSpec in the server; the worker's timed spec and make_agent take it parsed
    # (before: parsed in timed_spec, written back with the time, parsed again in make_agent)
    assert parsed == ["mcts:iters=20:worlds=1"] * moves


def test_the_fallback_takes_the_parsed_spec_and_picks_the_same_smaller_search(
        client: Any, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import spielwerk.web.work as work
    from spielwerk.web import engines, tasks

    asked: list[AgentSpec] = []

    def slow_unless_small(**kwargs: Any) -> int:
        asked.append(kwargs["agent"])
        if str(kwargs["agent"]) == "mcts:iters=200:worlds=2":
            raise engines.EngineTimeout("ran past its limit")
        return int(work.engine_move(**kwargs))

    monkeypatch.setitem(tasks.TASKS, "engine_move", slow_unless_small)
    r = client.post("/api/tables", json={"game": "kalah", "seat": 1, "seed": 3, "time": 0.5,
                                         "opponents": ["mcts:iters=200:worlds=2"]})
    assert r.status_code == 200, r.text
    parsed = count_parses(monkeypatch, with_params=True)
    play_until_my_turn(client, r.json()["id"])
    fallbacks = app.state.server.stats["fallbacks"]
    assert fallbacks >= 1 and app.state.server.stats["engine_moves"] == 0
    assert all(isinstance(a, AgentSpec) for a in asked)
    assert [str(a) for a in asked[:2]] == ["mcts:iters=200:worlds=2",
                                           "mcts:iters=20:worlds=1:time=0.05"]
    # once per move: neither fallback_spec nor the worker parse (before: 3 here - the
    # server, then timed_spec and make_agent of the fallback's text - and 5 with a real
    # timeout, whose worker parsed twice too)
    assert parsed == ["mcts:iters=200:worlds=2"] * fallbacks
