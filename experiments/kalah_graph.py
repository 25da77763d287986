"""Full game graph of Kalah(m, n): counts, time and peak memory, both capture rules.

    .venv/bin/python experiments/kalah_graph.py --pits 4 --seeds 3
"""

from __future__ import annotations

import argparse

from spielwerk.games.kalah.graph import full_graph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pits", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    full_graph(2, 2)  # compile / load the numba cache
    for ec in (False, True):
        r = full_graph(args.pits, args.seeds, ec)
        rule = "empty capture" if ec else "standard capture"
        print(f"Kalah({args.pits},{args.seeds}) {rule}: start value {r.start_value:+d}")
        print(f"  positions {r.positions:,} (whole board + mover, non-terminal), terminal "
              f"{r.terminal_positions:,}, pit configurations + mover {r.pit_positions:,}")
        print(f"  W/L/D non-terminal {r.wins:,}/{r.losses:,}/{r.draws:,}; terminal "
              f"{r.terminal_wins:,}/{r.terminal_losses:,}/{r.terminal_draws:,}")
        print(f"  {r.seconds:.1f} s; hash tables {r.table_bytes / 1e6:.0f} MB at peak; "
              f"process peak RSS so far {r.peak_rss_bytes / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
