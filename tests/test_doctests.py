"""The examples in the docstrings of the card and notation helpers (and the core API) run.

Each listed module's docstrings are run with :mod:`doctest`; a failing
example fails here with doctest's report.
"""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "spielwerk.games.skat.cards",
    "spielwerk.games.kalah.notation",
    "spielwerk.games.durak.cards",
    "spielwerk.core.game",
    "spielwerk.core.play",
    "spielwerk.core.agent",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
