"""Seeds derived from integer parts, for every layer (the arena's matches, a game's own
evaluations): :func:`derive_seed`."""

from __future__ import annotations

import numpy as np

from spielwerk.core.errors import SpielwerkError


class SeedError(SpielwerkError, ValueError):
    """A seed part that is not a non-negative integer."""


def derive_seed(*parts: int) -> int:
    """A 63-bit seed derived from integer parts (stable across runs and machines)."""
    if any(p < 0 for p in parts):
        raise SeedError(f"seeds must be non-negative integers, not {parts}")
    words = np.random.SeedSequence(list(parts)).generate_state(2, np.uint32)
    return (int(words[0]) << 31) ^ int(words[1])
