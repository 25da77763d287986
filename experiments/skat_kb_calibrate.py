"""How often does a hand win when it is declared? Forced declarations under rule's card play.

For every deal of a tuning seed and every seat, the seat is made the declarer
at 18 (the two others pass) and plays each of:

* ``pickup``: the ``knn`` agent picks up, puts and declares as it does in a match;
* ``hand``: the ``knn`` agent declares a hand game in the game of its highest hand value;
* ``rule``: the ``rule`` agent picks up, puts and declares;
* ``grand`` / ``null``: the ``knn`` agent picks up, puts its put for that game and
  declares it (the win chance of each game type, whatever the bot would choose).

All cards are played by the rule agent's play (``knn:play=rule``), as in the
``knn:play=rule rule`` match, so the outcome is what the decision yields
under that card play - not the double-dummy result the knowledge base holds.
``--worlds W`` has the knn declarer play by PIMC with W worlds; ``--defence pimc``
has the two defenders play by PIMC with as many worlds (strong defence) instead of
rule's play. ``--modes`` picks the forced declarations (default pickup,hand,rule).
Each row records the seat's KNN values (hand and pick-up stage), whether rule
would have bid, the game played and its outcome; ``--summary`` prints the win
rate and mean Seeger-Fabian points by value band. The deals are those of
``skat match --seed S`` (same chance seeds), so use a tuning seed, not the
evaluation seed.

    python experiments/skat_kb_calibrate.py --deals 600 --seed 21 -o cal21.jsonl
    python experiments/skat_kb_calibrate.py --summary cal21.jsonl
    python experiments/skat_kb_calibrate.py --deals 800 --seed 21 --base DIR -o cal21-big.jsonl
    python experiments/skat_kb_calibrate.py --deals 800 --seed 21 --worlds 4 -o pimc21.jsonl
    python experiments/skat_kb_calibrate.py --summary pimc21.jsonl pimc22.jsonl --knn-only
    python experiments/skat_kb_calibrate.py --deals 400 --seed 23 --worlds 4 --defence pimc \
        --modes pickup,hand,grand,null -o strong23.jsonl

The rows do not record the base: use one results file per base.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from spielwerk.arena.match import derive_seed
from spielwerk.core.game import InfoState
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat.outcome import final_details as skat_details
from spielwerk.games.skat.rules import PASS, PICKUP, SkatState
from spielwerk.games.skat.scoring import parse_contract
from spielwerk.games.skat_ai.baseline import SkatRuleAgent, best_suit_game
from spielwerk.games.skat_ai.bidding import BidDecision
from spielwerk.games.skat_ai.knn_agent import SkatKnnAgent
from spielwerk.games.skat_ai.knowledge.features import (
    hand_count,
    null_count,
    null_pickup_count,
)
from spielwerk.games.skat_ai.pimc_agent import SkatPimcAgent
from spielwerk.games.skat_ai.putting import PutDecision, put_count

GAME_SPEC = "skat(dealer=2,players=3,ramsch=false)"
MODES = ("pickup", "hand", "rule", "grand", "null", "nullhand", "nullouvert",
         "nullouverthand")
FORCED_GAME = {"grand": GRAND, "null": NULL, "nullouvert": NULL}
NULL_MODES = ("null", "nullhand", "nullouvert", "nullouverthand")
NULL_SCREEN = {"null": 4.0, "nullouvert": 2.0, "nullhand": 6.0, "nullouverthand": 4.0}
"""The null modes are played only by seats whose null risk (:func:`features.null_count` of
the ten cards for the hand modes, :func:`features.null_pickup_count` for those with the
skat) is at most this, or whose neighbours' null share reaches :data:`NULL_MODES_MIN`:
the others would lose them all and teach nothing about the hands where null is a choice.
``--null-all`` plays ``null`` for every seat."""
NULL_MODES_MIN = 0.25
DECLARER_PIMC: dict[str, Any] = {}
"""Extra ``pimc`` settings of the forced declarer's card play (``--declarer-pimc``), e.g.
``{"null_ties": True}``; the defenders keep the defaults."""
DEFENCE_PIMC: dict[str, Any] = {}
"""Extra ``pimc`` settings of the defenders' card play with ``--defence pimc``
(``--defence-pimc``), e.g. ``{"null_defence": True}`` (the ``knn`` default's null defence)."""


def null_screened(mode: str, hand: int, shares: tuple[float, float]) -> bool:
    """Whether a seat with these ten cards and (pick-up, hand) null shares plays ``mode``."""
    if max(shares) >= NULL_MODES_MIN:
        return True
    risk = null_count(hand)[0] if mode.endswith("hand") else null_pickup_count(hand)
    return bool(risk <= NULL_SCREEN[mode])


class _PassesBids:
    """Passes every bid; otherwise the agent it is mixed into."""

    def act(self, info_state: InfoState) -> int:
        if PASS in info_state.legal_actions():
            return PASS
        return int(super().act(info_state))  # type: ignore[misc]


class Passer(_PassesBids, SkatRuleAgent):
    """Passes every bid; defends as the rule agent."""


class PimcPasser(_PassesBids, SkatPimcAgent):
    """Passes every bid; defends with PIMC."""


class ForcedKnn(SkatKnnAgent):
    """Bids 18 whatever its cards; picks up (``pickup``) or plays its best hand game."""

    def __init__(self, game: Any, mode: str, base: str = "", worlds: int = 0) -> None:
        # worlds 0: the rule agent's card play; else PIMC with that many worlds
        super().__init__(game, 0, play="pimc" if worlds else "rule", worlds=max(worlds, 1),
                         base=base)
        self.mode = mode
        if DECLARER_PIMC and isinstance(self.player, SkatPimcAgent):
            self.player.settings = dataclasses.replace(self.player.settings, **DECLARER_PIMC)
        self.last: PutDecision | None = None
        self.twelve = 0

    def put_decision(self, info: SkatInfoState) -> PutDecision:
        d = super().put_decision(info)
        self.twelve = info.hand | (info.put or 0)
        if self.mode in FORCED_GAME:  # the put of that game, declared whatever knn prefers
            g = FORCED_GAME[self.mode]
            put, value = d.per_game[g]
            d = PutDecision(put, g, value, d.candidates, d.per_game, self.mode == "nullouvert")
        self.last = d
        return d

    def bid_decision(self, hand: int, position: int = 0) -> BidDecision:
        d = super().bid_decision(hand, position)
        forced = BidDecision(d.features, d.hand_values, d.pickup_values, d.game, False, 18)
        if self.mode == "hand":
            g = int(max(range(5), key=lambda x: d.hand_values[x]))
            forced.game, forced.hand_game = g, True
        elif self.mode in ("nullhand", "nullouverthand"):
            forced.game, forced.hand_game = NULL, True
            forced.ouvert = self.mode == "nullouverthand"
        return forced


class ForcedRule(SkatRuleAgent):
    """Bids 18 whatever its cards, then picks up, puts and declares as rule does."""

    def act(self, info_state: InfoState) -> int:
        legal = info_state.legal_actions()
        if PASS in legal:
            return next((a for a in legal if a != PASS), PASS)
        if PICKUP in legal:
            return PICKUP
        return super().act(info_state)


def forced_game(deal_seed: int, seat: int, mode: str, base: str = "", worlds: int = 0,
                defence: str = "rule") -> dict[str, Any]:
    game = load_game(GAME_SPEC)
    forced = ForcedRule(game, 0) if mode == "rule" else ForcedKnn(game, mode, base, worlds)
    seats = [forced if s == seat else
             (PimcPasser(game, deal_seed + s, worlds=max(worlds, 1), **DEFENCE_PIMC)
              if defence == "pimc"
              else Passer(game, 0)) for s in range(3)]
    state = game.new_initial_state()
    play(state, seats, np.random.default_rng(deal_seed))
    assert isinstance(state, SkatState)
    details = skat_details(state)
    if isinstance(forced, ForcedKnn) and forced.last is not None:  # the put and its values
        details["put"] = forced.last.put
        details["twelve"] = forced.twelve
        details["per_game"] = {g: round(v, 3) for g, (_, v) in forced.last.per_game.items()}
    return details


def seat_row(deal: int, deal_seed: int, seat: int, knn: SkatKnnAgent, worlds: int = 0,
             defence: str = "rule", modes: tuple[str, ...] = MODES[:3], null_all: bool = False
             ) -> dict[str, Any]:
    game = load_game(GAME_SPEC)
    state = game.new_initial_state()
    rng = np.random.default_rng(deal_seed)
    # deal only: play chance until the first player move
    from spielwerk.core.game import sample_chance

    while state.current_player < 0:
        state.apply(sample_chance(state, rng))
    info = state.info_state(seat)
    assert isinstance(info, SkatInfoState)
    hand = info.own_dealt
    position = max(0, game.position_of(seat))  # type: ignore[attr-defined]
    d = knn.bid_decision(hand, position)
    rule_game, strength = best_suit_game(hand)
    row: dict[str, Any] = {
        "deal": deal, "seat": seat, "position": position, "cards": hand,
        "vh": [round(float(x), 3) for x in d.hand_values],
        "vp": [round(float(x), 3) for x in d.pickup_values],
        "knn_game": d.game, "knn_hand": d.hand_game, "knn_max_bid": d.max_bid,
        "rule_bids": strength >= 7.0, "rule_game": rule_game,
    }
    for mode in modes:
        if mode in NULL_MODES and not (mode == "null" and null_all) and not null_screened(
                mode, hand, (float(d.pickup_values[NULL]), float(d.hand_values[NULL]))):
            continue
        det = forced_game(deal_seed, seat, mode, knn.base, worlds, defence)
        c = parse_contract(str(det["contract"]))
        row[mode] = {"game": c.game, "hand": c.hand, "ouvert": c.ouvert, "won": det["won"],
                     "value": det["value"],
                     "points": det["declarer_points"], "sf": det["seeger"][seat]}
        for key in ("put", "twelve", "per_game"):
            if key in det:
                row[mode][key] = det[key]
    return row


def run(deals: int, seed: int, out: Path, base: str = "", worlds: int = 0,
        defence: str = "rule", modes: tuple[str, ...] = MODES[:3], null_all: bool = False
        ) -> None:
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add(r["deal"])
    knn = SkatKnnAgent(load_game(GAME_SPEC), 0, play="rule", base=base)
    start = time.perf_counter()
    with out.open("a") as f:
        for deal in range(deals):
            if deal in done:
                continue
            deal_seed = derive_seed(seed, 1, deal)
            rows = [seat_row(deal, deal_seed, s, knn, worlds, defence, modes, null_all)
                    for s in range(3)]
            f.write("".join(json.dumps(r) + "\n" for r in rows))
            f.flush()
            if deal % 10 == 0:
                print(f"deal {deal} {time.perf_counter() - start:.0f} s", file=sys.stderr,
                      flush=True)


def logistic_fit(x: np.ndarray, y: np.ndarray, iterations: int = 50) -> np.ndarray:
    """Weights of a logistic regression (Newton's method, a little ridge for stability)."""
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        grad = x.T @ (p - y) + 1e-3 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def design(rows: list[dict[str, Any]], stage: str, knn_only: bool = False
           ) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and outcomes of the fit of one stage (see :func:`calibration`); ``knn_only``:
    the pick-up stage from the knn agent's own pick-up games (not rule's)."""
    modes, key = {"pickup": (("pickup",) if knn_only else ("pickup", "rule"), "vp"),
                  "hand": (("hand",), "vh")}[stage]
    x, won = [], []
    for r in rows:
        for mode in modes:
            g = r[mode]["game"]
            if g > GRAND or r[key][g] < 36:
                continue
            x.append([r[key][g] - 55.0, hand_count(r["cards"], g) - 7.0, float(g == GRAND)]
                     + [float(r["position"] == q) for q in range(3)])
            won.append(float(r[mode]["won"]))
    return np.array(x), np.array(won)


def log_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-x @ w)), 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def calibration(rows: list[dict[str, Any]], knn_only: bool = False) -> None:
    """The weights of ``WIN_CALIBRATION`` (knowledge/knn.py): P(win) of the game played,
    from its KNN value of the stage, the hand count of the ten cards, grand or not, and
    the position; fitted on the games whose value is at least 36 (decisions are made
    above that). Pick-up stage: the knn and the rule pick-up games; hand stage: the
    hand games (``knn_only``: the pick-up fit from the knn games alone - for a file made
    with ``--worlds``, where rule's games keep rule's card play)."""
    for stage in ("pickup", "hand"):
        x, won = design(rows, stage, knn_only)
        w = logistic_fit(x, won)
        weights = ", ".join(f"{float(v):.4f}" for v in w)
        print(f'calibration {stage} ({len(won)} games): "{stage}": ({weights}),')


def cross_check(groups: list[list[dict[str, Any]]], names: list[str], knn_only: bool = False
                ) -> None:
    """Log-loss on each file of the weights fitted on the other files, against the shipped
    ``WIN_CALIBRATION`` on the same rows (lower is better)."""
    from spielwerk.games.skat_ai.params import WIN_CALIBRATION

    for stage in ("pickup", "hand"):
        for i, name in enumerate(names):
            rest = [r for j, g in enumerate(groups) if j != i for r in g]
            w = logistic_fit(*design(rest, stage, knn_only))
            x, y = design(groups[i], stage, knn_only)
            shipped = np.array(WIN_CALIBRATION[stage])
            print(f"{stage}: log-loss on {name} ({len(y)} games): fitted on the other files "
                  f"{log_loss(w, x, y):.4f}, shipped WIN_CALIBRATION {log_loss(shipped, x, y):.4f}")


TYPED_MODES = {"pickup": ("pickup", "grand", "null", "nullouvert"),
               "hand": ("hand", "nullhand", "nullouverthand"),
               "put": ("pickup", "grand", "null", "nullouvert")}
CENTERS = {"suit": 55.0, "grand": 55.0, "null": 0.5, "ouvert": 0.5}
KINDS = ("suit", "grand", "null", "ouvert")
"""Game types fitted; ``ouvert`` (null ouvert) only where its forced games were played."""


def _kind(m: dict[str, Any]) -> str:
    from spielwerk.games.skat_ai.params import game_type

    kind = game_type(m["game"])
    return "ouvert" if kind == "null" and m.get("ouvert") else kind


def typed_design(rows: list[dict[str, Any]], stage: str, kind: str
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (value - centre, count - 7, position one-hot) and outcomes of one stage and game
    type: ``pickup`` / ``hand`` the ten cards' neighbour value of the game played, ``put``
    the value of its put after picking up; null's count is its risk
    (:func:`features.null_count`; with the skat :func:`features.null_pickup_count`)."""
    x, won = [], []
    for r in rows:
        for mode in TYPED_MODES[stage]:
            m = r.get(mode)
            if m is None or _kind(m) != kind:
                continue
            g = m["game"]
            if stage == "put":
                if "per_game" not in m:
                    continue
                value = m["per_game"][str(g)]
                count = put_count(m["twelve"] & ~m["put"], g)
            else:
                value = r["vh" if stage == "hand" else "vp"][g]
                count = (hand_count(r["cards"], g) if g != NULL else float(
                    null_count(r["cards"])[0]) if stage == "hand"
                    else null_pickup_count(r["cards"]))
            x.append([value - CENTERS[kind], count - 7.0]
                     + [float(r["position"] == q) for q in range(3)])
            won.append(float(m["won"]))
    return np.array(x).reshape(-1, 5), np.array(won)


def typed_fit(rows: list[dict[str, Any]], update: dict[str, Any] | None = None
              ) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, int]]]:
    """Weights (w_value, w_count, biases by position) per stage and game type; where a
    stage has fewer than 60 games of a type (grand and null hand games), the pick-up
    weights of that type stand in. ``update`` (a calibration's data): its weights stand for
    the types these rows do not have (a refit of null alone keeps the suit and grand
    fits)."""
    weights: dict[str, dict[str, list[float]]] = {}
    counts: dict[str, dict[str, int]] = {}
    for stage in TYPED_MODES:
        weights[stage], counts[stage] = {}, {}
        for kind in KINDS:
            x, y = typed_design(rows, stage, kind)
            counts[stage][kind] = len(y)
            if len(y) < 60:
                if update is not None and len(y) == 0 and kind in update["stages"][stage]:
                    weights[stage][kind] = update["stages"][stage][kind]
                    counts[stage][kind] = update["games"][stage].get(kind, 0)
                continue
            w = logistic_fit(x, y)
            weights[stage][kind] = [round(float(v), 4) for v in w]
        for kind in ("suit", "grand", "null"):
            weights[stage].setdefault(kind, weights["pickup"][kind])
        if "ouvert" in weights["pickup"]:
            weights[stage].setdefault("ouvert", weights["pickup"]["ouvert"])
    if any("ouvert" not in w for w in weights.values()):  # all stages or none
        for w in weights.values():
            w.pop("ouvert", None)
    return weights, counts


def typed_summary(paths: list[Path], write: Path | None, update: Path | None = None) -> None:
    """Fit the per-type calibration, report the cross-file log-loss (fitted on the other
    files) against the ``pimc`` calibration on the same games (null: against the
    ``update`` calibration's null weights), and write it as data; ``update``: a calibration
    file whose types these files do not refit are kept."""
    from spielwerk.games.skat_ai.params import CALIBRATION_FORMAT, win_probability

    groups = [[json.loads(line) for line in path.read_text().splitlines()] for path in paths]
    rows = [r for g in groups for r in g]
    base = json.loads(update.read_text()) if update is not None else None
    weights, counts = typed_fit(rows, base)
    losses: dict[str, Any] = dict(base["log_loss"]) if base is not None else {}
    for stage in TYPED_MODES:
        for kind in weights[stage]:
            for i, path in enumerate(paths):
                rest = [r for j, g in enumerate(groups) if j != i for r in g]
                if len(groups) < 2 or counts[stage][kind] < 60:
                    continue
                fitted = typed_fit(rest, base)[0][stage]
                if kind not in fitted:
                    continue
                w = np.array(fitted[kind])
                x, y = typed_design(groups[i], stage, kind)
                if not len(y):
                    continue
                ours = log_loss(w, x, y)
                old = float("nan")
                if kind in ("null", "ouvert") and base is not None:  # the null weights before
                    old = log_loss(np.array(base["stages"][stage]["null"]), x, y)
                elif kind not in ("null", "ouvert"):  # the shipped pimc weights, same games
                    g = 4 if kind == "grand" else 0
                    p = np.array([win_probability(v[0] + 55.0, "pickup" if stage == "put"
                                                  else stage, int(np.argmax(v[2:])),
                                                  v[1] + 7.0, g, 0.0, "pimc") for v in x])
                    p = np.clip(p, 1e-9, 1 - 1e-9)
                    old = float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())
                before = "pimc_calibration" if kind not in ("null", "ouvert") else \
                    "null_weights_before"
                losses.setdefault(stage, {}).setdefault(kind, {})[path.name] = {
                    "games": len(y), "fitted_on_the_others": round(ours, 4),
                    before: round(old, 4)}
                print(f"{stage:6s} {kind:5s} on {path.name} ({len(y)} games): log-loss fitted "
                      f"on the other files {ours:.4f}, {before} {old:.4f}")
    for stage in TYPED_MODES:
        for kind in weights[stage]:
            print(f"{stage:6s} {kind:5s} {counts[stage][kind]:5d} games  "
                  f"weights {weights[stage][kind]}")
    if write is not None:
        made_by = ("python experiments/skat_kb_calibrate.py --summary "
                   + " ".join(p.name for p in paths) + " --typed"
                   + (f" --update {update.name}" if update is not None else "")
                   + f" --write {write.name}")
        files = {p.name: len(g) for p, g in zip(paths, groups, strict=True)}
        if base is not None:
            made_by = f"{base['made_by']}; then {made_by}"
            files = {**base["files"], **files}
        data = {
            "format": CALIBRATION_FORMAT, "version": 1, "name": write.stem,
            "made_by": made_by, "files": files,
            "games": counts, "centers": CENTERS, "stages": weights, "log_loss": losses,
            "weights": "w_value, w_count, bias forehand, middlehand, rearhand; "
                       "z = w_value (value - centre) + w_count (count - 7) + bias",
        }
        write.parent.mkdir(parents=True, exist_ok=True)
        tmp = write.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        tmp.replace(write)
        print(f"wrote {write}")


def summary(paths: list[Path], knn_only: bool = False) -> None:
    groups = [[json.loads(line) for line in path.read_text().splitlines()] for path in paths]
    rows = [r for g in groups for r in g]
    for mode, key in (("pickup", "vp"), ("hand", "vh")):
        bands: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0.0])
        for r in rows:
            v = max(r[key][:5])
            b = int(v // 4 * 4)
            bands[b][0] += 1
            bands[b][1] += int(r[mode]["won"])
            bands[b][2] += r[mode]["sf"]
        print(f"{mode}: best {key} band, hands, won, mean SF of the declarer")
        for b in sorted(bands):
            n, w, sf = bands[b]
            print(f"  {b:3d}-{b + 3:3d} {n:5d} {w / n:6.3f} {sf / n:8.1f}")
    n = len(rows)
    print(f"{n} seat hands; rule bids {sum(r['rule_bids'] for r in rows)}, "
          f"knn declares {sum(r['knn_game'] >= 0 for r in rows)}")
    calibration(rows, knn_only)
    if len(groups) > 1:
        cross_check(groups, [p.name for p in paths], knn_only)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("-o", "--out", type=Path)
    ap.add_argument("--summary", type=Path, nargs="+", help="results files to summarise")
    ap.add_argument("--base", default="", help="knowledge base directory (default: the shipped "
                                               "base)")
    ap.add_argument("--worlds", type=int, default=0,
                    help="the knn declarer's card play: 0 the rule agent's (default), else PIMC "
                         "with this many worlds (the rule modes keep rule's play)")
    ap.add_argument("--defence", choices=("rule", "pimc"), default="rule",
                    help="the defenders' card play: rule's (default) or PIMC with --worlds "
                         "worlds")
    ap.add_argument("--modes", default="pickup,hand,rule",
                    help=f"forced declarations, comma-separated, of {', '.join(MODES)}")
    ap.add_argument("--typed", action="store_true",
                    help="--summary: fit win chances per stage (pickup, hand, put) and game "
                         "type (suit, grand, null), from files made with --modes "
                         "pickup,hand,grand,null")
    ap.add_argument("--write", type=Path,
                    help="--typed: write the calibration there (src/spielwerk/data/"
                         "skat_calibration/NAME.json ships as calibration=NAME)")
    ap.add_argument("--declarer-pimc", default="",
                    help="the forced declarer's pimc setting null_ties=true|false")
    ap.add_argument("--defence-pimc", default="",
                    help="--defence pimc: the defenders' pimc settings null_defence=true|false, "
                         "suit_defence=true|false (comma-separated)")
    ap.add_argument("--null-all", action="store_true",
                    help="play the forced null mode for every seat, not only the screened "
                         "ones (NULL_SCREEN)")
    ap.add_argument("--update", type=Path,
                    help="--typed: keep this calibration file's weights for the game types "
                         "the files do not refit (e.g. refit null and null ouvert alone)")
    ap.add_argument("--knn-only", action="store_true",
                    help="--summary: fit the pick-up stage on the knn games alone")
    a = ap.parse_args()
    if a.summary:
        if a.typed:
            typed_summary(a.summary, a.write, a.update)
        else:
            summary(a.summary, a.knn_only)
        return
    if a.out is None:
        ap.error("-o FILE is needed to run")
    modes = tuple(m for m in a.modes.split(",") if m)
    if not modes or set(modes) - set(MODES):
        ap.error(f"--modes must name some of {', '.join(MODES)}")
    if a.defence == "pimc" and a.worlds < 1:
        ap.error("--defence pimc needs --worlds W (the worlds of every PIMC player)")
    for item in filter(None, a.declarer_pimc.split(",")):
        key, _, value = item.partition("=")
        if key != "null_ties" or value.lower() not in ("true", "false"):
            ap.error("--declarer-pimc takes null_ties=true or null_ties=false")
        DECLARER_PIMC[key] = value.lower() == "true"
    for item in filter(None, a.defence_pimc.split(",")):
        key, _, value = item.partition("=")
        if key not in ("null_defence", "suit_defence") or value.lower() not in ("true",
                                                                                "false"):
            ap.error("--defence-pimc takes null_defence= and suit_defence= true or false")
        DEFENCE_PIMC[key] = value.lower() == "true"
    if DEFENCE_PIMC and a.defence != "pimc":
        ap.error("--defence-pimc needs --defence pimc")
    run(a.deals, a.seed, a.out, a.base, a.worlds, a.defence, modes, a.null_all)


if __name__ == "__main__":
    main()
