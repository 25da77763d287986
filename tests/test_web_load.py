"""The web table under load, in small (issue 44): tables where every seat is a person, each
person its own websocket client joined by its private link, playing random legal moves as
fast as the server answers (``benchmarks/web_load.py --people``). No error, and every move
a client saw acknowledged is in the server's stored record of its seat exactly once; the
timings are printed, never judged."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "web_load.py"


@pytest.mark.parametrize("people", [3])
def test_tables_of_people_lose_and_double_no_move(people: int) -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--clients", "3", "--seconds", "4", "--engines", "1",
         "--people", str(people)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout
    print(text)
    moves = int(re.search(r"person moves answered: (\d+)", text).group(1))  # type: ignore[union-attr]
    checked, lost, dup = map(int, re.search(  # type: ignore[union-attr]
        r"checked against the server's records: (\d+); lost (\d+), duplicated (\d+)",
        text).groups())
    assert f"({people} people each, {3 * people} websocket clients)" in text
    assert moves > 20 and checked == moves
    assert (lost, dup) == (0, 0)
    assert re.search(r"errors: 0 ", text), text
