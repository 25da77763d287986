"""The web table names no game: what a game shows at the table comes from its table face
(``table_face(game)``, :mod:`spielwerk.core.table_face`), so a new game means no edit in
``src/spielwerk/web``.

Read from the source with ``ast``: no module of the web imports a game's package, and no
string in its code (docstrings aside) is a game's name or starts with one
(``== "skat"``, ``in ("durak", ...)``, ``{"kalah": ...}``, a task named ``"skat_hint"``).

The page (``web/static``: ``app.js``, ``style.css``, ...) names no game either, not even
in a comment: a game's drawing code and style live with the game (``games/<game>/web/``),
declared by its table face (``web_scripts``, ``web_styles``), served under
``/games/<name>/<file>`` (only the declared files) and loaded by the index page.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))

from spielwerk.core.registry import load_game  # noqa: E402
from spielwerk.core.table_face import table_face  # noqa: E402
from spielwerk.plugins import builtin_plugins  # noqa: E402
from spielwerk.web.app import create_app  # noqa: E402
from spielwerk.web.server import web_games  # noqa: E402
from structure import import_graph  # noqa: E402

WEB = Path(__file__).resolve().parents[1] / "src" / "spielwerk" / "web"
BUILTIN_GAMES = [r.name for r in builtin_plugins()]
# the games' names and their packages' (skat_ai)
NAMES = sorted({*BUILTIN_GAMES,
                *(m.split(".")[2] for r in builtin_plugins() for m in r.packages)})


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


def game_words_in(text: str) -> list[str]:
    """The game names in ``text`` (JavaScript, CSS, HTML) as whole words, in any case:
    ``"skat"``, ``Kalah``, ``/* durak */``; not ``skatboard`` or ``renderskat``."""
    return re.findall(r"\b(" + "|".join(map(re.escape, NAMES)) + r")\b", text, re.IGNORECASE)


def test_the_page_checker_sees_a_game_word() -> None:
    text = 'if (v.game === "kalah") x(); // Skat\n/* DURAK: pairs */ const skatboard = renderskat;'
    assert game_words_in(text) == ["kalah", "Skat", "DURAK"]
    assert game_words_in('.pit { color: red } // chess') == []


def test_no_page_file_names_a_game() -> None:
    """app.js, cards.js, style.css and index.html: no game name as a word, comments included."""
    files = sorted(p for p in (WEB / "static").iterdir() if p.is_file())
    assert {p.name for p in files} >= {"app.js", "style.css", "index.html"}
    bad = {p.name: game_words_in(p.read_text(encoding="utf-8")) for p in files}
    assert {k: v for k, v in bad.items() if v} == {}


def test_each_table_game_declares_its_page_code() -> None:
    """Each table game's table face declares at least one script, every declared file
    exists in the game's web/ folder, every file there is declared, and the scripts
    register the game under its name."""
    assert set(web_games()) == set(BUILTIN_GAMES)  # the check below covers every table game
    for name in web_games():
        face = table_face(load_game(name))
        assert face.web_scripts, f"{name} declares no page script"
        declared = (*face.web_scripts, *face.web_styles)
        missing = [f for f in declared if face.web_file(f) is None]
        assert missing == [], f"{name}: declared but missing {missing}"
        folder = face.web_file(face.web_scripts[0]).parent  # type: ignore[union-attr]
        assert sorted(p.name for p in folder.iterdir()) == sorted(declared)
        scripts = "".join(face.web_file(f).read_text(encoding="utf-8")  # type: ignore[union-attr]
                          for f in face.web_scripts)
        assert f'Spielwerk.registerGame("{name}"' in scripts
        assert face.web_file("../table_face.py") is None
        assert face.web_file("table_face.py") is None


def test_the_page_loads_and_serves_only_declared_page_code(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path / "web.sqlite3"))  # no lifespan: no engines
    page = client.get("/").text
    for name in web_games():
        face = table_face(load_game(name))
        for f in face.web_scripts:
            assert f'<script src="/games/{name}/{f}"></script>' in page
            r = client.get(f"/games/{name}/{f}")
            assert r.status_code == 200 and "javascript" in r.headers["content-type"]
        for f in face.web_styles:
            assert f'<link rel="stylesheet" href="/games/{name}/{f}">' in page
            assert client.get(f"/games/{name}/{f}").headers["content-type"].startswith("text/css")
        # the page's own script first: the games' scripts register with it
        assert page.index("/static/app.js") < page.index(f'<script src="/games/{name}/')
    for url in ("/games/kalah/table_face.py", "/games/kalah/..%2Ftable_face.py",
                "/games/kalah/%2e%2e", "/games/kalah/skat.js", "/games/chess/chess.js",
                "/games/skat_ai/hints.py"):
        assert client.get(url).status_code == 404, url
