"""The house's limits, read from the source with ``ast``: no module over 600 lines, no
function over 150; outside ``games/`` no game is named in code (docstrings and examples
aside) and ``arena/`` imports no game package - a game comes in through its plug-in record."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "spielwerk"
GAME_NAME = re.compile(r"\b(skat|durak|kalah)", re.IGNORECASE)
EXAMPLE = re.compile(r"e\.g\.|Examples?:")


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _outside_games() -> list[Path]:
    return [p for p in _modules() if p.relative_to(SRC).parts[0] != "games"]


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants: a module's, class's or function's first statement,
    and the string right after an assignment (an attribute's docstring)."""
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = body[0] if body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
        for prev, cur in zip(body, body[1:], strict=False):
            if (isinstance(prev, (ast.Assign, ast.AnnAssign)) and isinstance(cur, ast.Expr)
                    and isinstance(cur.value, ast.Constant)):
                out.add(id(cur.value))
    return out


def game_names_in_code(path: Path) -> list[str]:
    """Where ``path`` names a game outside docstrings and examples (strings with "e.g." or
    "Example"): strings, imports and identifiers."""
    tree = ast.parse(path.read_text())
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docs and GAME_NAME.search(node.value) \
                    and not EXAMPLE.search(node.value):
                found.append(f"{path.name}:{node.lineno}: {node.value[:60]!r}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [getattr(node, "module", None) or "", *(a.name for a in node.names)]
            if any(GAME_NAME.search(n) for n in names):
                found.append(f"{path.name}:{node.lineno}: import {names}")
        elif isinstance(node, ast.Name) and GAME_NAME.search(node.id):
            found.append(f"{path.name}:{node.lineno}: {node.id}")
    return found


def test_no_module_over_600_lines_and_no_function_over_150() -> None:
    long_modules, long_functions = [], []
    for path in _modules():
        text = path.read_text()
        if len(text.splitlines()) > 600:
            long_modules.append(path.name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > 150:
                    long_functions.append(f"{path.name}:{node.name}")
    assert long_modules == [] and long_functions == []


def test_no_game_is_named_outside_the_games() -> None:
    assert [hit for path in _outside_games() for hit in game_names_in_code(path)] == []


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Skat in a docstring is fine."""\n'
                      'import spielwerk.games.durak.rules\n'
                      'HELP = "game spec, e.g. kalah"\n'
                      'NAME = "skat"\n'
                      '"""An attribute\'s docstring may say Kalah."""\n'
                      'kalah_pits = 6\n')
    hits = game_names_in_code(sample)
    assert len(hits) == 3 and "import" in hits[0] and "'skat'" in hits[1] \
        and "kalah_pits" in hits[2]


def test_the_arena_imports_no_game() -> None:
    for path in (SRC / "arena").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("spielwerk.games"), (path.name, node.module)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("spielwerk.games") for a in node.names)
