"""``experiments/skat_open_match.py``: a duplicate match with open hands in every defending
seat. Two agents that decide alike play alike there (the seeds depend on the deal and the
seat, not the seating), so their difference is exactly 0; two that decide differently do
not declare the same games."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))

import skat_open_match as om  # noqa: E402


def _run(tmp_path: Path, specs: list[str], deals: int) -> list[dict]:  # type: ignore[type-arg]
    om._init(specs)
    rows = [om.play_deal(3, d) for d in range(deals)]
    out = tmp_path / "m.jsonl"
    out.write_text("\n".join(json.dumps(r) for r in [{"agents": specs, "seed": 3}, *rows]))
    return rows


def test_agents_that_decide_alike_score_alike(tmp_path: Path,
                                                                  capsys) -> None:  # type: ignore[no-untyped-def]
    rows = _run(tmp_path, ["knn3:worlds=1", "knn:worlds=1:caution=0"], 3)
    for row in rows:
        by_order = {tuple(g["order"]): g["details"] for g in row["games"]}
        for seat in range(3):  # agent 0 alone in the seat against agent 1 alone there
            a = by_order[tuple(0 if s == seat else 1 for s in range(3))]
            b = by_order[tuple(1 if s == seat else 0 for s in range(3))]
            assert a == b
        assert row["played"] <= len(row["games"])
    om.summarize(tmp_path / "m.jsonl", as_json=True)
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert figures["deals"] == 3
    assert [d["mean"] for d in figures["differences"]] == [0.0]
