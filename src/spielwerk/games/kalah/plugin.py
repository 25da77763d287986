"""Kalah's plug-in record (:mod:`spielwerk.plugins`): imports nothing but the record type."""

from spielwerk.plugins import GamePlugin

PLUGIN = GamePlugin(
    name="kalah",
    title="Kalah",
    packages=("spielwerk.games.kalah.rules", "spielwerk.games.kalah.agents",
              "spielwerk.games.kalah.perfect"),
    summary="Kalah perfect play: solve, analyse positions, full game graphs.",
    cli="spielwerk.games.kalah.cli",
    seat_names=("South: the bottom row, your store is on the right",
                "North: the top row, your store is on the left"),
    default_opponents=("perfect", "alphabeta"),
    warm_up="spielwerk.games.kalah.warmup:warm_up",
    bench="spielwerk.games.kalah.bench:WORKLOAD",
    bench_signature=921_390,
    rank=1,
)
