"""Interleaved A/B of the double-dummy search loop: this tree's against another revision's.

The other revision's ``games/skat/dds/search.py`` (default: a66be6d, the one-function loop
before it was cut into named steps) is loaded as a module of its own from ``git show`` and
swapped in for the solver's search module query by query: every query of
``benchmarks/skat_dds.py`` (deals 0..N-1, the ``61``, ``exact`` and ``null`` queries,
cold tables) is solved by both loops in turn, the order alternating, and each must
give the same answer and the same node count. Times are CPU seconds of this process
(``time.process_time``), so other jobs on a shared machine count less.

    python experiments/dds_loop_ab.py --deals 12 --rounds 3
    python experiments/dds_loop_ab.py --against HEAD~3 --deals 4 --rounds 1
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import skat_dds  # noqa: E402  (benchmarks/skat_dds.py: the deals and the timed query)
from spielwerk.games.skat.dds import DealPosition, Solver, SolverConfig, api  # noqa: E402
from spielwerk.games.skat.dds import search as this_search  # noqa: E402

PATH = "src/spielwerk/games/skat/dds/search.py"


def load_revision(rev: str, folder: Path) -> ModuleType:
    """The search module of ``rev`` (it must import only modules this tree still has)."""
    text = subprocess.run(["git", "show", f"{rev}:{PATH}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    file = folder / "search_other.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location("search_other", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", default="a66be6d", help="the other revision (git)")
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        loops = {"other": load_revision(args.against, Path(tmp)), "this": this_search}
        solver = Solver(SolverConfig(node_limit=20_000_000))
        tiny = DealPosition(game=4, declarer=0, hands=(1, 2, 4))
        for module in loops.values():  # compile or load both before timing
            api.search = module  # type: ignore[attr-defined]
            for query in ("61", "exact"):
                solver.query(tiny, query)
            solver.query(skat_dds.make_deal(0, True), "null")
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
              f"this tree against {args.against}")
        total = {k: 0.0 for k in loops}
        nodes = {k: 0 for k in loops}
        ratios = []
        for r in range(args.rounds):
            spent = {k: 0.0 for k in loops}
            for seed in range(args.deals):
                for query in ("61", "exact", "null"):
                    pos = skat_dds.make_deal(seed, null=query == "null")
                    order = ("other", "this") if (seed + r) % 2 == 0 else ("this", "other")
                    answers = {}
                    for k in order:
                        api.search = loops[k]  # type: ignore[attr-defined]
                        seconds, n, value = skat_dds._time_query(solver, pos, query)
                        spent[k] += seconds
                        nodes[k] += n
                        answers[k] = (n, value)
                    if answers["this"] != answers["other"]:
                        raise SystemExit(f"deal {seed} {query}: {answers}")
            ratios.append(spent["this"] / spent["other"])
            for k in loops:
                total[k] += spent[k]
            print(f"round {r}: other {spent['other']:.2f} s, this {spent['this']:.2f} s, "
                  f"this/other {ratios[-1]:.3f}")
        api.search = this_search  # type: ignore[attr-defined]
        print(f"total CPU: other {total['other']:.2f} s, this {total['this']:.2f} s, this/other "
              f"{total['this'] / total['other']:.3f} (rounds {min(ratios):.3f}.."
              f"{max(ratios):.3f}); nodes {nodes['this']:,} each, equal; load average "
              f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
