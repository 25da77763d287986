"""Sequential extension of a round robin: undecided pairings get more games.

After the scheduled games, every pairing whose Wilson interval over decisive
games (:class:`~spielwerk.arena.stats.DecisiveRecord`) still contains 50% gets
``step`` more games (paired deals, so an even number), round after round,
until every pairing is decided or has ``max_games`` games. Each extension is a
two-agent tournament of its own with a seed derived from the base seed, the
round and the two agents' positions, written (with an output file) to
``FILE.extR-I-J.jsonl`` beside the main results file, so an interrupted run
resumes like any tournament and the same seed plays the same games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from spielwerk.arena.match import GameResult, derive_seed
from spielwerk.arena.stats import DecisiveRecord, decisive_records
from spielwerk.arena.tournament import TournamentConfig, run_tournament
from spielwerk.core.parallel import Executor

EXTENSION_SEED_TAG = 7  # first part of every extension seed (after the base seed)


@dataclass(frozen=True)
class Extension:
    """How to extend: agent specs and their labels (same order), the game, the base seed,
    games added per undecided pairing and round, the cap per pairing (0: none) and the
    confidence of the intervals."""

    game: str
    specs: Sequence[str]
    labels: Sequence[str]
    seed: int
    step: int
    max_games: int
    confidence: float

    def games_for(self, record: DecisiveRecord) -> int:
        """Games to add to ``record`` this round (0: it is decided or full)."""
        if record.decided(self.confidence):
            return 0
        n = self.step
        if self.max_games > 0:
            n = min(n, self.max_games - record.games)
        return max(n - n % 2, 0)


def extension_output(output: Path | None, rnd: int, i: int, j: int) -> Path | None:
    """The results file of round ``rnd`` for the agents at positions ``i`` and ``j``."""
    return None if output is None else output.with_name(f"{output.name}.ext{rnd}-{i}-{j}.jsonl")


def extend_undecided(
    records: dict[tuple[str, str], DecisiveRecord],
    ext: Extension,
    executor: Executor | None,
    output: Path | None = None,
    resume: bool = False,
    fresh: bool = False,
    on_start: Callable[[int, int], None] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    on_extended: Callable[[DecisiveRecord], None] | None = None,
) -> list[GameResult]:
    """Extend undecided pairings in place (``records`` as from
    :func:`~spielwerk.arena.stats.decisive_records`); return the added games, labelled
    with the round robin's labels. ``on_extended(record)`` follows each extension."""
    added: list[GameResult] = []
    labels = list(ext.labels)
    rnd = 0
    while ext.step > 0:
        rnd += 1
        todo = [(r, ext.games_for(r)) for r in records.values()]
        todo = [(r, n) for r, n in todo if n > 0]
        if not todo:
            break
        for record, n in todo:
            i, j = labels.index(record.agent), labels.index(record.opponent)
            config = TournamentConfig.create(
                ext.game, [ext.specs[i], ext.specs[j]], n,
                derive_seed(ext.seed, EXTENSION_SEED_TAG, rnd, i, j))
            got = run_tournament(config, executor, extension_output(output, rnd, i, j),
                                 resume=resume, fresh=fresh, on_start=on_start,
                                 on_result=on_result).results
            names = {config.labels[0]: record.agent, config.labels[1]: record.opponent}
            renamed = [dataclasses.replace(r, labels=tuple(names.get(x, x) for x in r.labels))
                       for r in got]
            added.extend(renamed)
            pair = (record.agent, record.opponent)
            record.add(decisive_records(renamed, pair)[pair])
            if on_extended is not None:
                on_extended(record)
    return added
