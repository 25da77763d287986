"""``spielwerk warmup`` prepares the commands that compile kernels: after a game's step, the
command compiles nothing new. Checked on numba's own record of what it compiled (every
dispatcher's signatures), in a fresh process, never on timings."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

POSITIONS = {
    "grand.json": {"game": "grand", "declarer": 0,
                   "hands": [["CJ", "SJ", "SA"], ["HA", "H7", "ST"], ["DA", "D7", "S7"]],
                   "to_move": 1, "declarer_points": 40, "defender_points": 33,
                   "declarer_tricks": 4, "defender_tricks": 3, "skat": ["D8", "D9"]},
    "clubs.json": {"game": "clubs", "declarer": 1,
                   "hands": [["CJ", "SA", "H8"], ["HJ", "CA", "CT", "S9"],
                             ["DA", "D7", "HK", "S8"]],
                   "to_move": 1, "trick": ["S7"], "declarer_points": 30,
                   "defender_points": 20, "declarer_tricks": 3, "defender_tricks": 3},
    "null.json": {"game": "null", "declarer": 2,
                  "hands": [["C7", "S8", "HA"], ["CA", "S7", "H9"], ["C8", "SQ", "H7"]],
                  "to_move": 0, "declarer_tricks": 0, "defender_tricks": 7},
}
SOLVES = [["grand.json"], ["grand.json", "--query", "61"], ["grand.json", "--query", "90"],
          ["grand.json", "--query", "schwarz"], ["grand.json", "--json"], ["clubs.json"],
          ["clubs.json", "--query", "61", "--json"], ["null.json"],
          ["null.json", "--query", "null", "--json"]]

PROBE = textwrap.dedent(
    """
    import gc, json, sys
    from numba.core.registry import CPUDispatcher
    from typer.testing import CliRunner

    from spielwerk.cli.main import app
    from spielwerk.warmup import steps

    def compiled():
        return {f"{d.py_func.__module__}.{d.py_func.__qualname__}": sorted(map(str, d.signatures))
                for d in gc.get_objects() if isinstance(d, CPUDispatcher)}

    steps()[sys.argv[1]]()
    warmed = compiled()
    for args in json.loads(sys.argv[2]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, (args, result.output, result.exception)
    new = {name: sorted(set(sigs) - set(warmed.get(name, ())))
           for name, sigs in compiled().items()}
    print(json.dumps({name: sigs for name, sigs in new.items() if sigs}))
    """
)


def _compiled_after_step(step: str, commands: list[list[str]], cwd: Path) -> dict[str, list[str]]:
    """Kernels (and their new signatures) that ``commands`` compile after warm-up ``step``,
    in one fresh process."""
    out = subprocess.run([sys.executable, "-c", PROBE, step, json.dumps(commands)], cwd=cwd,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow  # the whole Skat warm-up, compiled once per kernel cache
def test_skat_solve_compiles_nothing_after_the_skat_step(tmp_path: Path) -> None:
    for name, position in POSITIONS.items():
        (tmp_path / name).write_text(json.dumps(position))
    commands = [["skat", "solve", *args] for args in SOLVES]
    assert _compiled_after_step("skat", commands, tmp_path) == {}

