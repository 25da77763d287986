"""The shape of ``src/spielwerk``: layers point one way and no modules import each other.

Read from the source with ``ast`` (tests/structure.py): every import that runs, at the top
of a module or inside a function, counts; imports for type checking only do not.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from structure import cycles, import_graph  # noqa: E402

GRAPH = import_graph()

# a module of a lower layer never imports one of a higher layer
LOWER = ("spielwerk.core", "spielwerk.search", "spielwerk.mc", "spielwerk.games")
HIGHER = ("spielwerk.arena", "spielwerk.interop", "spielwerk.web", "spielwerk.cli",
          "spielwerk.bench")
ALLOWED: set[tuple[str, str]] = set()  # the plug-ins are found by name (spielwerk.plugins)


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _face(module: str) -> bool:
    """A game's command line (``games/<game>/cli.py`` named by its plug-in record, and the
    ``cli_*.py`` modules it adds groups from): an interface module living with its game."""
    last = module.rpartition(".")[2]
    return module.startswith("spielwerk.games.") and (last == "cli" or last.startswith("cli_"))


def _interface(module: str) -> bool:
    return _face(module) or any(_in(module, hi) for hi in HIGHER)


def test_the_graph_sees_the_modules() -> None:
    assert "spielwerk.games.skat.rules" in GRAPH["spielwerk.games.skat.table_face"]
    assert "spielwerk.games.skat.rules" in GRAPH["spielwerk.games.skat_ai.baseline"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles() -> None:
    assert cycles(GRAPH) == []


def test_lower_layers_never_import_higher_ones() -> None:
    bad = [(m, d) for m, deps in GRAPH.items() for d in deps
           if any(_in(m, lo) for lo in LOWER) and not _face(m) and _interface(d)]
    assert bad == []


def test_the_games_command_lines_are_interface_modules() -> None:
    faces = sorted(m for m in GRAPH if _face(m))
    assert {"spielwerk.games.kalah.cli", "spielwerk.games.skat_ai.cli_kb"} <= set(faces)
    # nothing below the interfaces imports one (the command line loads it by its record)
    assert [(m, d) for m, deps in GRAPH.items() for d in deps
            if _face(d) and not _interface(m)] == []


def test_core_and_the_engines_know_no_game() -> None:
    bad = [(m, d) for m, deps in GRAPH.items() for d in deps
           if any(_in(m, p) for p in ("spielwerk.core", "spielwerk.search", "spielwerk.mc"))
           and _in(d, "spielwerk.games") and (m, d) not in ALLOWED]
    assert bad == []


def test_the_skat_rules_know_nothing_of_the_skat_ai() -> None:
    # (Skat's command line is an interface: its knowledge-base group is the AI's)
    bad = [(m, d) for m, deps in GRAPH.items() for d in deps
           if _in(m, "spielwerk.games.skat") and not _face(m) and _in(d, "spielwerk.games.skat_ai")]
    assert bad == []
    assert ("spielwerk.games.skat.cli", "spielwerk.games.skat_ai.cli_kb") in {
        (m, d) for m, deps in GRAPH.items() for d in deps}  # the one it allows


def test_no_test_imports_the_research_pipelines() -> None:
    """experiments/ is research: tests import the package only (its shared helpers with
    product value live in src/, e.g. games/skat/staging.py)."""
    tests = Path(__file__).resolve().parent
    experiments = {f.stem for f in (tests.parent / "experiments").glob("*.py")}
    bad = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                    else [node.module or ""]
                bad += [f"{path.name}: {n}" for n in names
                        if n.split(".")[0] in experiments | {"experiments"}]
    assert bad == []
    assert not list((tests.parent / "experiments").glob("test_*.py"))
