"""Durak's plug-in record (:mod:`spielwerk.plugins`): imports nothing but the record type."""

from spielwerk.plugins import GamePlugin

PLUGIN = GamePlugin(
    name="durak",
    title="Durak",
    packages=("spielwerk.games.durak.rules", "spielwerk.games.durak.agents"),
    summary="Durak: tournaments between agents, and play in the terminal.",
    cli="spielwerk.games.durak.cli",
    front_end="spielwerk.games.durak.cli:front_end",
    default_opponents=("ismcts", "mcts", "smart"),
    warm_up="spielwerk.games.durak.warmup:warm_up",
    bench="spielwerk.games.durak.bench:WORKLOAD",
    bench_signature=835_677,
    rank=2,
)
