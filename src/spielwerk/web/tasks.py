"""The functions engine workers may run, by name (:mod:`work` registers them with
:func:`task`; :mod:`engines` runs them in its workers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TASKS: dict[str, Callable[..., Any]] = {}


def task(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register a function that workers may run by name."""
    TASKS[fn.__name__] = fn
    return fn
