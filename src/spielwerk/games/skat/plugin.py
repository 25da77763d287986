"""Skat's plug-in record (:mod:`spielwerk.plugins`): imports nothing but the record type.

The rules register the game; the Skat AI beside them (:mod:`spielwerk.games.skat_ai`)
registers the agents and the web table's hints. A process-pool worker preloads the rules
only (the AI loads its knowledge bases when an agent first needs them).
"""

from spielwerk.plugins import GamePlugin

PLUGIN = GamePlugin(
    name="skat",
    title="Skat",
    packages=("spielwerk.games.skat.rules", "spielwerk.games.skat_ai"),
    summary="Skat: replay ISS game records, play a deal, double-dummy solve and analyse.",
    cli="spielwerk.games.skat.cli",
    front_end="spielwerk.games.skat.cli:front_end",
    default_opponents=("knn", "pimc", "rule"),
    warm_up="spielwerk.games.skat.warmup:warm_up",
    bench="spielwerk.games.skat.bench:WORKLOAD",
    bench_signature=764_055,
    final_details="spielwerk.games.skat.outcome:final_details",
    match_report="spielwerk.games.skat_ai.match_report:REPORT",
    preload=("spielwerk.games.skat.rules",),
    rank=0,
)
