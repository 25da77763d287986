"""``experiments/skat_match_pair.py``: two matches against the same opponent on the same
deals, paired. Each file's per-deal margins average to the match's own paired difference
(``skat match``'s figure), and the pairing is their difference."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from skat_helpers import experiment
from spielwerk.arena import SerialExecutor
from spielwerk.arena.duplicate import run_duplicate
from spielwerk.games.skat.cli_match import match_stats, skat_match_config


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return experiment("skat_match_pair")


def test_two_matches_against_rule_are_paired(script: ModuleType, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    paths, figures = [], []
    for bot in ("random", "pimc:worlds=1"):
        path = tmp_path / f"{bot.split(':')[0]}.jsonl"
        result = run_duplicate(skat_match_config([bot, "rule"], 3, seed=17), SerialExecutor(),
                               output=path)
        (difference,) = match_stats(result).differences
        margins = script.margins(path, "rule")
        assert len(margins) == 3
        assert sum(margins.values()) / 3 == pytest.approx(difference.mean)
        paths.append(path)
        figures.append(difference.mean)
    assert script.main([str(p) for p in paths]) == 0
    out = capsys.readouterr().out
    assert f"{figures[1] - figures[0]:+.1f}" in out and "3 deals" in out
    with pytest.raises(SystemExit, match="not a two-agent match with 'greedy'"):
        script.margins(paths[0], "greedy")
