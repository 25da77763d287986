"""``spielwerk skat bid``, ``skat put`` and ``skat kb build``: the KNN bidder for players.

``bid CARDS`` classifies ten cards in the knowledge base (features, the
value of every game, the game to bid and the highest bid); ``put CARDS12``
chooses the two cards to put and the game to declare; ``kb build`` builds a
base of solved deals (resumable, on the arena's executors). See
docs/skat-bidding.md. :func:`register_kb_commands` adds them to the ``skat``
sub-app.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from spielwerk.cli.options import OptionValueError, workers_option
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.process import ignore_further_interrupts
from spielwerk.games.skat.bidding import BID_VALUES, POSITION_NAMES
from spielwerk.games.skat.cards import DISPLAY_ORDER, GAME_NAMES, card_to_string, string_to_card
from spielwerk.games.skat_ai.bidding import decide_bid
from spielwerk.games.skat_ai.handstrength import strength
from spielwerk.games.skat_ai.knn import KnnModel
from spielwerk.games.skat_ai.knowledge.build import DEFAULT_CHUNK, DEFAULT_PUT_K, MAX_DEALS
from spielwerk.games.skat_ai.params import (
    AGENT_DECISION,
    CARD_PLAY,
    DEFAULT_K,
    DEFAULT_PLAY,
    DEFAULT_SCALING,
    KnnParams,
    auto_calibration,
)
from spielwerk.games.skat_ai.putting import GAME_BY_NAME, PUTTINGS, decide_put, put_for_game


class CardListError(SpielwerkError, ValueError):
    """A card list with the wrong number of cards, a duplicate or an unknown card."""


def parse_cards(text: str, count: int) -> int:
    """``"CJ SJ HA ..."`` or ``"CJ,SJ,..."`` -> a mask of exactly ``count`` distinct cards."""
    items = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    cards = [string_to_card(t) for t in items]
    if len(cards) != count:
        raise CardListError(f"expected {count} cards, got {len(cards)}: {text.strip()!r}")
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise CardListError(f"{card_to_string(c)} appears twice in {text.strip()!r}")
        seen.add(c)
    return sum(1 << c for c in cards)


def _position(text: str) -> int:
    t = text.strip().lower()
    if t not in POSITION_NAMES:
        raise SpielwerkError(f"--position must be forehand, middlehand or rearhand, not {text!r}")
    return POSITION_NAMES.index(t)


def check_bid(value: int, name: str = "--bid") -> int:
    """``value`` if it is a bid value (the Reiztabelle, :data:`BID_VALUES`), else a one-line
    :class:`OptionValueError` naming the nearest bid values."""
    if value in BID_VALUES:
        return value
    below = [b for b in BID_VALUES if b < value]
    above = [b for b in BID_VALUES if b > value]
    near = " and ".join(str(b) for b in (below[-1:] + above[:1]))
    listed = ", ".join(str(b) for b in BID_VALUES[:8]) + ", ... " + ", ".join(
        str(b) for b in BID_VALUES[-3:])
    raise OptionValueError(f"{name} must be a bid value ({listed}), not {value}"
                           + (f"; the nearest are {near}" if below and above else ""))


def _load(base: Path | None, k: int) -> KnnModel:
    """The model over ``base``; ``k`` (--k) must be at least 1 and at most its hands (more
    neighbours than hands would quietly average the whole base)."""
    if k < 1:
        raise OptionValueError(f"--k must be at least 1, not {k}")
    model = KnnModel.load(base, k=k, scaling=DEFAULT_SCALING)
    if k > model.size:
        where = "the shipped knowledge base" if base is None else f"the knowledge base {base}"
        raise OptionValueError(f"--k must be at most {model.size} (the hands in {where}), "
                               f"not {k}")
    return model


def _cards_string(mask: int) -> list[str]:
    return [card_to_string(c) for c in DISPLAY_ORDER if mask >> c & 1]


def agent_params(k: int, extensions: bool, play: str = DEFAULT_PLAY) -> KnnParams:
    """The ``knn`` agent's decision parameters with the card play ``play`` (infer, pimc or
    rule): its decision rule and the win chances :func:`auto_calibration` gives it."""
    return KnnParams(k=k, extensions=extensions, decision=AGENT_DECISION,
                     calibration=auto_calibration(AGENT_DECISION, play))


def bid_result(cards: str, position: str = "forehand", base: Path | None = None,
               k: int = DEFAULT_K, extensions: bool = True, play: str = DEFAULT_PLAY
               ) -> dict[str, Any]:
    """The ``skat bid --json`` object; ``play``: the card play whose win chances decide
    (infer: the ``knn`` agent's default, pimc: ``knn:play=pimc``, rule: ``knn:play=rule``)."""
    hand = parse_cards(cards, 10)
    seat = _position(position)
    if play not in CARD_PLAY:
        raise SpielwerkError(f"--play must be {', '.join(CARD_PLAY)}, not {play!r}")
    model = _load(base, k)
    d = decide_bid(model, hand, agent_params(k, extensions, play), seat)
    values = d.values
    return {
        "features": {GAME_NAMES[g]: [int(x) for x in d.features[g]] for g in range(5)},
        "values": {GAME_NAMES[g]: round(float(values[g]), 3) for g in range(6)},
        "pickup_values": {GAME_NAMES[g]: round(float(d.pickup_values[g]), 3) for g in range(6)},
        "hand_values": {GAME_NAMES[g]: round(float(d.hand_values[g]), 3) for g in range(6)},
        "game": d.game_name,
        "hand_game": bool(d.hand_game),
        "max_bid": int(d.max_bid),
        "announce": [w for w, on in (("schneider", d.schneider), ("schwarz", d.schwarz),
                                     ("ouvert", d.ouvert)) if on],
        "strength": strength(hand, seat),
        "position": POSITION_NAMES[seat],
    }


def put_result(cards: str, position: str = "forehand", bid: int = 18, base: Path | None = None,
               k: int = DEFAULT_K, extensions: bool = True, game: str | None = None,
               putting: str = "knn") -> dict[str, Any]:
    """The ``skat put --json`` object (with ``game``: the fixed-game object of
    :func:`spielwerk.games.skat_ai.selection.put_for_game`)."""
    twelve = parse_cards(cards, 12)
    seat = _position(position)
    check_bid(bid)
    if putting not in PUTTINGS:
        raise SpielwerkError(f"--putting must be one of {', '.join(PUTTINGS)}, not {putting!r}")
    if game is not None:
        if game.strip().lower() not in GAME_BY_NAME or game.strip().lower() == "null":
            raise SpielwerkError("--game must be clubs, spades, hearts, diamonds or grand, "
                                 f"not {game!r}")
        model = _load(base, k) if putting == "knn" else None
        return put_for_game(twelve, GAME_BY_NAME[game.strip().lower()], putting, seat, bid,
                            model)
    model = _load(base, k)
    d = decide_put(model, twelve, bid, agent_params(k, extensions), putting)
    knn_put, knn_value = d.per_game[d.game]
    # one scale for the table and the decision: the neighbours' value of the put made (the
    # strategy's own score, e.g. refined's, is on a scale of its own and is not shown)
    value = (knn_value if d.put == knn_put
             else float(model.put_values(twelve, d.game, [d.put], k)[0]))
    return {
        "put": _cards_string(d.put),
        "game": d.game_name,
        "ouvert": bool(d.ouvert),
        "value": round(float(value), 3),
        "putting": putting,
        "candidates": int(d.candidates),
        "per_game": {GAME_NAMES[g]: {"put": _cards_string(p), "value": round(float(v), 3)}
                     for g, (p, v) in d.per_game.items()},
    }


VALUE_MEANING = ("value: the declarer's expected card points (of 120) after the put, the mean "
                 "of the nearest hands in the knowledge base with the put's points counted; "
                 "null: the share of them that took no trick")


def _print_bid(out: dict[str, Any]) -> None:
    """The readable table of ``skat bid``."""
    console = Console(highlight=False)
    table = Table("game", "hand value", "pick-up value", *[f"f{i}" for i in range(1, 9)])
    for g in range(6):
        key = GAME_NAMES[g]
        feats = [str(x) for x in out["features"][key]] if g < 5 else [""] * 8
        table.add_row(key, f"{out['hand_values'][key]:.1f}",
                      f"{out['pickup_values'][key]:.1f}", *feats)
    console.print(table)
    console.print("null values: share of neighbours without a trick; features f1..f8 as "
                  "in docs/skat-bidding.md")
    if out["game"] == "pass":
        console.print("decision: pass")
    else:
        kind = "hand" if out["hand_game"] else "with the skat"
        extra = (" (" + ", ".join(out["announce"]) + ")") if out["announce"] else ""
        console.print(f"decision: {out['game']} {kind}{extra}, bid up to {out['max_bid']}")


def _print_put(out: dict[str, Any], fixed_game: bool, as_json: bool) -> None:
    """What ``skat put`` prints: JSON or a short table (a fixed game: every candidate's score)."""
    if fixed_game:
        if as_json:
            print(json.dumps(out))
            return
        console = Console(highlight=False)
        table = Table("put", "score")
        for key, score in list(out["scores"].items())[:20]:
            table.add_row(key, f"{score:.2f}")
        console.print(table)
        console.print(f"decision ({out['putting']}): put {' '.join(out['put'])}, "
                      f"{out['game']} ({out['candidates']} candidates)")
        return
    if as_json:
        print(json.dumps({key: out[key] for key in ("put", "game", "value", "putting",
                                                    "candidates")}
                         | {"ouvert": out["ouvert"]}))
        return
    console = Console(highlight=False)
    table = Table("game", "best put (knn)", "value")
    for key, row in out["per_game"].items():
        table.add_row(key, " ".join(row["put"]), f"{row['value']:.2f}")
    chosen = out["per_game"][out["game"]]
    other = out["put"] != chosen["put"]
    if other:  # the put made by another strategy, valued the same way
        table.add_row(f"{out['game']} ({out['putting']})", " ".join(out["put"]),
                      f"{out['value']:.2f}")
    console.print(table)
    console.print(VALUE_MEANING)
    how = (f" ({out['candidates']} puts classified)" if out["putting"] == "knn"
           else f" ({out['putting']}, of {out['candidates']} candidates)")
    console.print(f"decision: put {' '.join(out['put'])}{how}, declare {out['game']}"
                  f"{' ouvert' if out['ouvert'] else ''}, value {out['value']:.2f}")


def register_kb_commands(skat_app: typer.Typer) -> None:
    """Add ``bid``, ``put`` and the ``kb`` group to the ``skat`` sub-app."""

    base_opt = typer.Option(None, "--base", help="knowledge base directory (default: shipped)")

    @skat_app.command("bid")
    def bid_command(
        cards: list[str] = typer.Argument(..., help="10 cards, e.g. CJ SJ CA CT C9 SA HT H7 D7 D8"),
        position: str = typer.Option("forehand", "--position",
                                     help="forehand | middlehand | rearhand"),
        base: Path | None = base_opt,
        k: int = typer.Option(DEFAULT_K, "--k", min=1, help="neighbours per classification (at "
                             "most the hands in the knowledge base)"),
        play: str = typer.Option(DEFAULT_PLAY, "--play", help="the card play the win chances "
                                 "are calibrated for: infer (the knn agent's) | pimc | rule"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    ) -> None:
        """What the KNN bidder makes of ten cards: values per game, game, highest bid."""
        out = bid_result(" ".join(cards), position, base, k, play=play)
        if as_json:
            print(json.dumps(out))
            return
        _print_bid(out)

    @skat_app.command("put")
    def put_command(
        cards: list[str] = typer.Argument(..., help="the 10 cards plus the skat (12 cards)"),
        position: str = typer.Option("forehand", "--position",
                                     help="forehand | middlehand | rearhand"),
        bid: int = typer.Option(18, "--bid", help="the bid the game must reach"),
        base: Path | None = base_opt,
        k: int = typer.Option(DEFAULT_K, "--k", min=1, help="neighbours per classification (at "
                             "most the hands in the knowledge base)"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        game: str | None = typer.Option(None, "--game", help="fix the game: clubs | spades | "
                                        "hearts | diamonds | grand (default: KNN chooses)"),
        putting: str = typer.Option("knn", "--putting",
                                    help="knn | refined | random | pimc (docs/skat-selection.md)"),
    ) -> None:
        """Which two cards the KNN putting puts, and the game it declares."""
        out = put_result(" ".join(cards), position, bid, base, k, game=game, putting=putting)
        _print_put(out, game is not None, as_json)

    kb_app = typer.Typer(help="Skat knowledge bases of solved deals.", no_args_is_help=True)

    @kb_app.command("build")
    def build_command(
        deals: int = typer.Option(..., "--deals", min=1, max=MAX_DEALS,
                                   help="number of deals (the time and disk they need are "
                                   "estimated first)"),
        out: Path = typer.Option(..., "--out", help="directory of the base"),
        seed: int = typer.Option(0, "--seed", min=0, help="seed of the deals"),
        executor: str = typer.Option("local", "--executor",
                                     help="local | serial | dask://HOST:PORT"),
        workers: int = workers_option(1, help="local processes"),
        chunk: int = typer.Option(DEFAULT_CHUNK, "--chunk", min=1,
                                  help="deals per task and per shard"),
        resume: bool = typer.Option(False, "--resume", help="finish (or extend / cut back) "
                                    "an interrupted build in --out"),
        put_base: Path | None = typer.Option(
            None, "--put-base", help="hand base for the putting of the pick-up stage "
            "(default: this base's own hand stage, built first)"),
        put_k: int = typer.Option(DEFAULT_PUT_K, "--put-k", min=1,
                                  help="neighbours for the putting"),
        put_scaling: str = typer.Option("none", "--put-scaling",
                                        help="distance of the putting: none | std"),
        weak_accept: float = typer.Option(0.25, "--weak-accept",
                                          help="share of non-biddable declarer hands kept "
                                          "(1: uniform random deals)"),
    ) -> None:
        """Build a knowledge base: every deal solved for each game, hand and after pick-up."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        from spielwerk.games.skat_ai.knowledge.build import (
            BuildEstimate,
            build_base,
            make_build_executor,
        )

        console = Console(highlight=False)
        progress = Progress("[progress.description]{task.description}", BarColumn(),
                            MofNCompleteColumn(), TimeRemainingColumn(), console=console)
        tasks: dict[str, Any] = {}
        saved: dict[str, int] = {}  # deals saved per stage, for the line after Ctrl-C
        t0 = time.perf_counter()

        def report(stage: str, done: int, total: int) -> None:
            saved[stage] = done
            if stage not in tasks:
                tasks[stage] = progress.add_task(f"{stage} deals", total=total)
            progress.update(tasks[stage], completed=done, total=total)

        def plan(est: BuildEstimate) -> None:
            done = f" ({est.deals - est.todo} built already)" if est.todo < est.deals else ""
            console.print(f"building {est.deals} deals{done} into {out}: {est.describe()}")

        try:
            with make_build_executor(executor, workers) as ex, progress:
                manifest = build_base(out, deals, seed, chunk, ex, resume, put_k=put_k,
                                      put_base=put_base, progress=report,
                                      put_scaling=put_scaling, weak_accept=weak_accept,
                                      on_estimate=plan)
        except KeyboardInterrupt:
            ignore_further_interrupts()
            done = ", ".join(f"{n} of {deals} deals of the {stage} stage"
                             for stage, n in saved.items()) or "no deals"
            console.print(f"interrupted: {done} saved in {out}; continue with the same "
                          f"options and --resume")
            raise typer.Exit(130) from None
        stages = manifest["stages"]
        cpu = sum(s["cpu_seconds"] for s in stages.values())
        n = manifest["counts"]["deals"]
        console.print(f"{out}: {n} deals, seed {seed}; solving CPU {cpu:.0f} s "
                      f"({n / cpu if cpu else 0:.2f} deals per second per core, both stages), "
                      f"wall {time.perf_counter() - t0:.0f} s this run")

    skat_app.add_typer(kb_app, name="kb")
