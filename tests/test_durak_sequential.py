"""Sequential extension of undecided pairings (arena.sequential), on Durak."""

from __future__ import annotations

from pathlib import Path

import spielwerk.games  # noqa: F401
from spielwerk.arena.results import read_results
from spielwerk.arena.sequential import Extension, extend_undecided, extension_output
from spielwerk.arena.stats import DecisiveRecord, decisive_records
from spielwerk.core.parallel import SerialExecutor

GAME = "durak(preset=classic,players=2,deck=24)"


def test_games_for_respects_decision_step_parity_and_cap() -> None:
    ext = Extension(GAME, ["greedy", "random"], ["greedy", "random"], 0, 5, 9, 0.95)
    assert ext.games_for(DecisiveRecord("greedy", "random", 3, 3)) == 2  # odd step -> even
    assert ext.games_for(DecisiveRecord("greedy", "random", 4, 4)) == 0  # cap 9: 1 left, odd
    assert ext.games_for(DecisiveRecord("greedy", "random", 40, 0)) == 0  # decided
    uncapped = Extension(GAME, ["a", "b"], ["a", "b"], 0, 6, 0, 0.95)
    assert uncapped.games_for(DecisiveRecord("a", "b", 50, 50)) == 6


def test_extension_plays_only_undecided_pairs_reproducibly(tmp_path: Path) -> None:
    specs = ["greedy", "greedy", "random"]  # two equal agents stay undecided longer
    labels = ["g1", "g2", "rnd"]
    ext = Extension(GAME, specs, labels, 5, 4, 8, 0.95)
    decided = DecisiveRecord("g1", "rnd", wins=200, losses=0)
    records = {("g1", "g2"): DecisiveRecord("g1", "g2"), ("g1", "rnd"): decided,
               ("g2", "rnd"): DecisiveRecord("g2", "rnd", wins=1, losses=1)}
    seen: list[tuple[str, str, int]] = []
    out = tmp_path / "t.jsonl"
    added = extend_undecided(records, ext, SerialExecutor(), out,
                             on_extended=lambda r: seen.append((r.agent, r.opponent, r.games)))
    assert decided.games == 200  # a decided pairing gets no games
    assert all(set(r.labels) <= {"g1", "g2", "rnd"} for r in added)
    assert all(set(r.labels) != {"g1", "rnd"} for r in added)
    assert records[("g1", "g2")].games in (4, 8)
    assert seen[0] == ("g1", "g2", 4)
    # the records count exactly the added games
    recount = decisive_records(added, labels)
    assert recount[("g1", "g2")].games == records[("g1", "g2")].games
    assert recount[("g2", "rnd")].games == records[("g2", "rnd")].games - 2
    first = extension_output(out, 1, 0, 1)
    assert first is not None and first.name == "t.jsonl.ext1-0-1.jsonl"
    assert len(read_results(first).results) == 4
    # the same seed plays the same games
    again = {("g1", "g2"): DecisiveRecord("g1", "g2"), ("g1", "rnd"): decided,
             ("g2", "rnd"): DecisiveRecord("g2", "rnd", wins=1, losses=1)}
    added2 = extend_undecided(again, ext, SerialExecutor())
    assert [r.returns for r in added2] == [r.returns for r in added]
    assert again == records
