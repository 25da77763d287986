"""Every relative link in README.md, CONTRIBUTING.md and docs/ leads somewhere.

A link to a file must name one that exists; a link with ``#anchor`` must name a
heading of that page (GitHub's anchors: lower case, punctuation dropped, spaces
to hyphens, a repeated heading gets ``-1``, ``-2``...). Moving text between the
manual and ``docs/evaluations/`` breaks links silently otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^ *```.*?^ *```", re.S | re.M)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def github_anchor(heading: str) -> str:
    text = re.sub(r"`|\*\*|__|<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        slug = github_anchor(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text()))


def test_anchor_rule() -> None:
    assert github_anchor("Results: engine move times at the table") == (
        "results-engine-move-times-at-the-table")
    assert github_anchor("Layout (`src/spielwerk/`)") == "layout-srcspielwerk"
    assert github_anchor("Open world, equal time: MCTS against ISMCTS") == (
        "open-world-equal-time-mcts-against-ismcts")


def test_pages_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "CONTRIBUTING.md", "docs/durak.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            where = dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest
            broken.append(f"{target}: no file {where}")
            continue
        if anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: broken links:\n" + "\n".join(broken)


def test_every_evaluation_is_linked_from_the_manual() -> None:
    """An evaluation backs a claim of a manual page (docs/*.md), which links to it."""
    evaluations = ROOT / "docs" / "evaluations"
    linked = set()
    for page in (ROOT / "docs").glob("*.md"):
        for target in links(page):
            path = target.partition("#")[0]
            if path:
                linked.add((page.parent / path).resolve())
    orphans = [
        f.name for f in sorted(evaluations.glob("*.md"))
        if f.name != "README.md" and f.resolve() not in linked
    ]
    assert not orphans, f"evaluations no manual page links to: {orphans}"
