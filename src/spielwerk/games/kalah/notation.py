"""A one-line text notation for Kalah positions.

``SOUTH|NORTH[|STORES][ MOVER]``, for example ``4,4,4,4,4,4|4,4,4,4,4,4|0-0 S``:

* ``SOUTH``: South's pits from South's left (pit 1 first), comma separated;
* ``NORTH``: North's pits from *North's* left (North's pit 1 first, the pit
  opposite South's pit m), so each player reads their own pits 1..m;
* ``STORES``: ``south-north`` store counts (default ``0-0``);
* ``MOVER``: ``S`` or ``N`` (default ``S``), the player to move.

The number of pits is the length of the lists. ``start`` (with a game's pits
and seeds) is the initial position. Spaces around separators are ignored. A
position has at most as many pits and seeds as a game
(:func:`~spielwerk.games.kalah.rules.check_size`: 10,000 seeds in all).
"""

from __future__ import annotations

import re

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import kernel
from spielwerk.games.kalah.rules import check_size

MAX_COUNT = 1_000_000
"""Largest seed count read for one pit or store (the board is 32-bit)."""


class NotationError(SpielwerkError, ValueError):
    """A position text that does not follow the notation."""


def _pits(text: str, side: str) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    if not parts or any(not re.fullmatch(r"\d+", p) for p in parts):
        raise NotationError(f"{side} pits must be comma-separated counts, not {text.strip()!r}")
    counts = [int(p) for p in parts]
    if max(counts) > MAX_COUNT:
        raise NotationError(f"{side} pits: at most {MAX_COUNT:,} seeds in a pit, "
                            f"not {max(counts):,}")
    return counts


def parse_position(text: str, pits: int | None = None, seeds: int | None = None
                   ) -> tuple[np.ndarray, int]:
    """(board in the kernel layout, player to move 0/1) from the notation.

    >>> board, mover = parse_position("1,2,3|4,5,6|7-8 N")
    >>> board.tolist(), mover
    ([1, 2, 3, 7, 4, 5, 6, 8], 1)
    >>> parse_position("start", pits=2, seeds=3)[0].tolist()
    [3, 3, 0, 3, 3, 0]
    >>> parse_position("1,2|3")
    Traceback (most recent call last):
    ...
    spielwerk.games.kalah.notation.NotationError: South has 2 pits but North 1
    """
    src = text.strip()
    if src.lower() == "start":
        if pits is None or seeds is None:
            raise NotationError("'start' needs the number of pits and seeds")
        check_size(pits, 2 * pits * seeds)
        return kernel.initial_board(pits, seeds), 0
    mover = 0
    m = re.fullmatch(r"(.*?)\s+([SsNn])", src)
    if m:
        src, who = m.group(1), m.group(2).upper()
        mover = 0 if who == "S" else 1
    else:
        last = re.fullmatch(r"(.*?)\s+([A-Za-z]\w*)", src)
        if last:
            raise NotationError(
                f"the side to move is S (South) or N (North), not {last.group(2)!r}")
    fields = [f.strip() for f in src.split("|")]
    if len(fields) not in (2, 3):
        raise NotationError(
            f"a position is SOUTH|NORTH[|STORES][ S|N], e.g. '3,3,3|3,3,3|0-0 S'; got {text!r}")
    south = _pits(fields[0], "South's")
    north = _pits(fields[1], "North's")
    if len(south) != len(north):
        raise NotationError(f"South has {len(south)} pits but North {len(north)}")
    if pits is not None and len(south) != pits:
        raise NotationError(
            f"this game has {pits} pits per side, but the position has {len(south)}")
    stores = (0, 0)
    if len(fields) == 3:
        sm = re.fullmatch(r"(\d+)\s*-\s*(\d+)", fields[2])
        if not sm:
            raise NotationError(f"stores are written south-north, e.g. '5-3', not {fields[2]!r}")
        stores = (int(sm.group(1)), int(sm.group(2)))
        if max(stores) > MAX_COUNT:
            raise NotationError(f"stores: at most {MAX_COUNT:,} seeds, not {max(stores):,}")
    n = len(south)
    board = np.zeros(2 * n + 2, dtype=np.int32)
    board[:n] = south
    board[n] = stores[0]
    board[n + 1 : 2 * n + 1] = north
    board[2 * n + 1] = stores[1]
    check_size(n, sum(south) + sum(north) + sum(stores))
    return board, mover


def format_position(board: np.ndarray, mover: int | None) -> str:
    """The notation of a board (kernel layout); ``mover`` None for a finished game.

    >>> format_position(*parse_position("1,2,3|4,5,6|7-8 N"))
    '1,2,3|4,5,6|7-8 N'
    >>> format_position(parse_position("0,0|0,0|5-3")[0], None)
    '0,0|0,0|5-3'
    """
    n = (len(board) - 2) // 2
    south = ",".join(str(int(x)) for x in board[:n])
    north = ",".join(str(int(x)) for x in board[n + 1 : 2 * n + 1])
    text = f"{south}|{north}|{int(board[n])}-{int(board[2 * n + 1])}"
    if mover is not None:
        text += " " + ("S" if mover == 0 else "N")
    return text
