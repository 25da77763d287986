"""Helpers the research pipelines in this folder share; no experiment imports another.

The putting studies (``skat_selection_glassbox.py``, ``skat_selection_exact.py``,
``skat_selection_selfplay.py``, ``skat_selection_winprob.py``) share their file format
(JSON Lines, one row per deal, later passes appending ``"update": true`` lines that are
merged into the deal's row; a half-written last line of a killed run is cut), the
thresholds of won / schneider, the Seeger points of an outcome and the set-up of a
declarer with a fixed game and put (:mod:`spielwerk.games.skat.staging`, tested in
tests/). A script in this folder imports them as ``from common import ...`` (``python
experiments/SCRIPT.py`` puts this folder first on the import path); the shipped package
and its tests never import anything from here. ``python experiments/common.py`` checks
the file helpers (:func:`self_check`).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from pathlib import Path

import numpy as np

from spielwerk.games.skat.actions import PUT
from spielwerk.games.skat.cards import CLUBS, GRAND, string_to_card
from spielwerk.games.skat.kernel import matadors
from spielwerk.games.skat.scoring import Contract, evaluate, seeger_fabian
from spielwerk.games.skat.staging import stage_play, stage_put
from spielwerk.games.skat.state import SkatState
from spielwerk.games.skat_ai.baseline import SkatRuleAgent
from spielwerk.games.skat_ai.infer_models import Net

STRATEGIES = ("random", "knn", "refined", "pimc", "rule")
"""The putting strategies of the studies, in the order of their tables."""


WIN, SCHNEIDER, LOSE_SCHNEIDER = 61, 90, 30
"""Card points: the declarer wins with 61, makes schneider with 90, is schneider at 30."""


def put_mask(twelve: int, text: str) -> int:
    """The card mask of ``text`` (e.g. ``"D7 D8"``), which must lie within ``twelve``."""
    m = sum(1 << string_to_card(t) for t in text.split())
    assert m & twelve == m
    return m


def cards_mask(text: str) -> int:
    """The card mask of ``text`` (e.g. ``"D7 D8"``)."""
    return sum(1 << string_to_card(t) for t in text.split())


def seeger(twelve: int, game: int, won: bool, schneider: bool) -> int:
    """Declarer's extended-Seeger points of a suit/grand game won or lost, with or
    without schneider (bid 18, not schwarz), through :func:`scoring.evaluate`."""
    if won:
        points = SCHNEIDER if schneider else WIN
    else:
        points = LOSE_SCHNEIDER if schneider else WIN - 1
    result = evaluate(Contract(game), 18, int(matadors(twelve, game)), points, 5)
    return seeger_fabian(result, 3, 0)[0]


def ci(xs: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% interval (normal approximation)."""
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else float("nan")
    return m, h


def repair(out: Path) -> None:
    """Cut a last line left half-written by a killed run, so appending stays valid."""
    if out.exists():
        data = out.read_bytes()
        if data and not data.endswith(b"\n"):
            out.write_bytes(data[: data.rfind(b"\n") + 1])


def past(until: str | None) -> bool:
    """Is the wall clock (UTC, ``HH:MM``) past ``until``? Lets a run stop at a time."""
    return until is not None and time.strftime("%H:%M", time.gmtime()) >= until


def load(out: Path, fix: bool = True) -> dict[int, dict]:
    """Rows by deal, update lines merged into their deal's row. ``fix=False`` reads
    only (a half-written last line is skipped, not cut: another run may be writing)."""
    rows: dict[int, dict] = {}
    if fix:
        repair(out)
    if not out.exists():
        return rows
    text = out.read_text()
    if not fix and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    for line in text.splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if r.pop("update", False):
            row = rows[r["deal"]]
            for k, v in r.items():
                if isinstance(v, dict):
                    row.setdefault(k, {}).update(v)
                else:
                    row[k] = v
        else:
            rows[r["deal"]] = r
    return rows


def merge_exact(rows: dict[int, dict], path: Path) -> None:
    """Merge the exact card points written by ``skat_selection_exact.py`` (a separate
    file, so that run never races this one's appends); a point counts only for the
    put it was solved for."""
    for deal, line in load(path, fix=False).items():
        row = rows.get(deal)
        if row is None:
            continue
        for k, pts in line["points"].items():
            if row["puts"].get(k) == line["puts"][k]:
                row.setdefault("points", {})[k] = pts


def bounds(won: bool, schneider: bool) -> tuple[int, int]:
    """The final card points the threshold answers leave possible."""
    if won:
        return (SCHNEIDER, 120) if schneider else (WIN, SCHNEIDER - 1)
    return (0, 120 - SCHNEIDER) if schneider else (120 - SCHNEIDER + 1, WIN - 1)


def missing(row: dict, have: dict) -> dict[str, str]:
    """Strategy -> put of the puts of one deal without exact points in either file."""
    solved = {**row.get("points", {}), **have.get("points", {})}
    return {k: p for k, p in row["puts"].items()
            if k not in solved or have.get("puts", {}).get(k, p) != p}


def load_rows(out: Path) -> dict[int, dict]:
    """Rows by deal; update lines (strategies played later) merged into their row."""
    rows: dict[int, dict] = {}
    if not out.exists():
        return rows
    for line in out.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if r.pop("update", False):
            rows[r["deal"]]["results"].update(r["results"])
        else:
            rows[r["deal"]] = r
    return rows


def start(hands: tuple[int, int, int], skat: int, position: int, game: int,
          put: int) -> SkatState:
    """The state before the first card: ``position`` declares ``game`` at 18 with ``put``
    (:func:`spielwerk.games.skat.staging.stage_play`)."""
    return stage_play(hands, skat, position, game, put)


def rule_put(hands: tuple[int, int, int], skat: int, position: int) -> int:
    """The rule baseline's own put of the twelve cards (two :class:`SkatRuleAgent`
    decisions; it guards the trumps of the game it would choose itself)."""
    state = stage_put(hands, skat, position)
    agent = SkatRuleAgent(state.game, seed=0)
    while state.phase == PUT:
        state.apply(agent.act(state.info_state(state.current_player)))
    return state.put


def self_check(folder: Path) -> None:
    """The file helpers on small files in ``folder``: update lines merge into their deal's
    row, a half-written last line is cut (``load``) or left for its writer
    (``merge_exact``), and the Seeger points of the thresholds. Run by
    ``python experiments/common.py``; the package's own tests are in tests/."""
    out = folder / "g.jsonl"
    row = {"deal": 3, "puts": {"knn": "D7 D8"}, "won": {"knn": True}}
    upd = {"deal": 3, "update": True, "puts": {"pimc": "HT H8"}, "won": {"pimc": False},
           "pimc_solves": 9}
    out.write_text(json.dumps(row) + "\n" + json.dumps(upd) + "\n" + '{"deal": 4, "pu')
    rows = load(out)
    assert list(rows) == [3] and rows[3]["puts"] == {"knn": "D7 D8", "pimc": "HT H8"}
    assert rows[3]["won"] == {"knn": True, "pimc": False} and rows[3]["pimc_solves"] == 9
    assert out.read_text() == json.dumps(row) + "\n" + json.dumps(upd) + "\n"
    rows = {3: {"deal": 3, "puts": {"knn": "D7 D8", "refined": "HT H8"}}}
    exact = folder / "exact.jsonl"
    line = {"deal": 3, "points": {"knn": 70, "refined": 80},
            "puts": {"knn": "D7 D8", "refined": "SA S7"}}
    exact.write_text(json.dumps(line) + "\n" + '{"deal": 9, "po')
    merge_exact(rows, exact)
    assert rows[3]["points"] == {"knn": 70} and exact.read_text().endswith('{"deal": 9, "po')
    assert missing(rows[3], line) == {"refined": "HT H8"}
    selfplay = folder / "s.jsonl"
    first = {"deal": 5, "results": {"knn": {"won": True, "points": 70}}}
    later = {"deal": 5, "update": True, "results": {"pimc": {"won": False, "points": 50}}}
    selfplay.write_text(json.dumps(first) + "\n" + json.dumps(later) + "\n")
    merged = load_rows(selfplay)
    assert list(merged) == [5] and set(merged[5]["results"]) == {"knn", "pimc"}
    # clubs with the club and spade jacks: "with 2", game 3 x 12 = 36, schneider 48
    twelve = cards_mask("CJ SJ CA CT C9 C8 SA S7 HT H8 D7 D8")
    assert seeger(twelve, CLUBS, True, False) == 36 + 50
    assert seeger(twelve, CLUBS, False, True) == -(2 * 48 + 50)
    assert seeger(cards_mask("SJ CA CT C9 C8 SA S7 HT H8 D7 D8 DA"), GRAND, True, False) == 98


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        self_check(Path(tmp))
    print("experiments/common.py: self-check passed")


# ----- the inference models' data and files (skat_{bid,put,play}_model.py) --------------------
def load_chunks(data: Path) -> list[dict[str, np.ndarray]]:
    """The arrays of every ``chunkNNN.npz`` in ``data``, in order (at least two: the last
    is held out)."""
    files = sorted(data.glob("chunk[0-9][0-9][0-9].npz"))
    if len(files) < 2:
        raise SystemExit(f"{data}: need at least two chunks (one is held out)")
    out = []
    for f in files:
        with np.load(f) as z:
            out.append({k: z[k] for k in z.files})
    return out


def write_model(net: Net, path: Path, meta: dict[str, object], command: str) -> None:
    """Save ``net`` with ``meta`` to ``path`` and a manifest (SHA-256, size, the command that
    fitted it, ``meta``) next to it."""
    net.meta = dict(meta)
    net.save(path)
    manifest = {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "bytes": path.stat().st_size, "command": command, **meta}
    (path.parent / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True)
                                               + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes) and its manifest")


def data_spec(data: Path, role: str, default: str) -> str:
    """The agent spec a data folder's chunks were recorded with (``ROLE.json``; folders
    from before it was written: ``default``)."""
    path = data / f"{role}.json"
    return str(json.loads(path.read_text())[role]) if path.exists() else default


def check_data_spec(out: Path, role: str, spec: str, default: str, what: str) -> None:
    """Refuse to add chunks of ``spec`` to a folder that holds ``what`` of another spec."""
    out.mkdir(parents=True, exist_ok=True)
    found = data_spec(out, role, default)
    if any(out.glob("chunk*.npz")) and found != spec:
        raise SystemExit(f"{out} holds the {what} of {found!r}, not {spec!r}: use another "
                         "--out")


def write_data_spec(out: Path, role: str, spec: str) -> None:
    """Record ``spec`` as the folder's ``role`` (see :func:`data_spec`)."""
    (out / f"{role}.json").write_text(json.dumps({role: spec}) + "\n")

