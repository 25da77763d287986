"""Nim's plug-in record: everything spielwerk needs, named by import path (nothing loads)."""

from spielwerk.plugins import GamePlugin

PLUGIN = GamePlugin(
    name="nim",
    title="Nim",
    packages=("spielwerk_nim.rules",),
    summary="Nim (a plug-in game): solve a pile.",
    cli="spielwerk_nim.cli",
    front_end="spielwerk_nim.cli:front_end",
    seat_names=("First: you take first", "Second: you take second"),
    default_opponents=("perfect",),
    warm_up="spielwerk_nim.bench:warm_up",
    bench="spielwerk_nim.bench:WORKLOAD",
    bench_signature=2_808,
)
