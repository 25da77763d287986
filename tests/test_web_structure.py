"""The web table names no game: what a game shows at the table comes from its presentation
(``game.presentation()``, :mod:`spielwerk.core.presentation`), so a new game means no
edit in ``src/spielwerk/web``.

Read from the source with ``ast``: no module of the web imports a game's package, and no
string in its code (docstrings aside) is a game's name or starts with one
(``== "skat"``, ``in ("durak", ...)``, ``{"kalah": ...}``, a task named ``"skat_hint"``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from spielwerk.games import BUILTIN_GAMES, GAME_PACKAGES  # noqa: E402
from structure import import_graph  # noqa: E402

WEB = Path(__file__).resolve().parents[1] / "src" / "spielwerk" / "web"
NAMES = sorted({*BUILTIN_GAMES, *(p for ps in GAME_PACKAGES.values() for p in ps)})


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        # an attribute's docstring: a string statement right after an assignment
        stmts = getattr(node, "body", None)
        if not isinstance(stmts, list):
            continue  # a lambda's body is one expression
        for a, b in zip(stmts[:-1], stmts[1:], strict=True):
            if isinstance(a, ast.Assign | ast.AnnAssign) and isinstance(b, ast.Expr) and \
                    isinstance(b.value, ast.Constant):
                ids.add(id(b.value))
    return ids


def game_names_in(source: str) -> list[str]:
    """The strings of ``source``'s code (not its docstrings) that name a game: equal to a
    game's name or starting with it (``"skat"``, ``"durak_review"``)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value.strip().lower()
            if any(text == n or text.startswith((n + "_", n + "(", n + ":")) for n in NAMES):
                found.append(node.value)
    return found


def test_the_checker_sees_a_branch_on_a_game_name() -> None:
    source = '''
"""A docstring may say skat."""
def view(game):
    """So may this one: kalah."""
    if game.name == "skat":
        return 1
    if game.name in ("durak", "kalah"):
        return 2
    return {"kalah": 3}["kalah"] + len("skat_hint")
'''
    found = sorted(game_names_in(source))
    assert found == ["durak", "kalah", "kalah", "kalah", "skat", "skat_hint"]
    assert game_names_in('def f(x):\n    return x == "chess"\n') == []


def test_no_web_module_names_a_game() -> None:
    bad = {p.name: game_names_in(p.read_text()) for p in sorted(WEB.glob("*.py"))}
    assert {k: v for k, v in bad.items() if v} == {}


def test_no_web_module_imports_a_game() -> None:
    graph = import_graph()
    bad = [(m, d) for m, deps in graph.items() for d in deps
           if m.startswith("spielwerk.web") and d.startswith("spielwerk.games")]
    assert bad == []
