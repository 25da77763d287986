"""``spielwerk durak tournament`` and ``spielwerk durak play``.

The tournament is the arena's round robin (seats alternated, paired deals:
both seatings of a deal share its chance seed) with Durak reporting: win
rates over decisive games with Wilson intervals, draws counted separately, a
sequential extension of undecided pairings, a table, ``--json`` lines and a
heat-map PNG like figure 5 of the seed.

Durak's command group and terminal front end, named by its plug-in record (``plugin.py``):
an interface module that lives with the game (nothing below the interfaces imports it; the
structure test).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from spielwerk.arena.match import GameResult
from spielwerk.arena.results import read_results
from spielwerk.arena.sequential import Extension, extend_undecided
from spielwerk.arena.stats import DecisiveRecord, decisive_records, wilson_interval, z_value
from spielwerk.arena.tournament import TournamentConfig, run_tournament, unique_labels
from spielwerk.cli.options import file_target, workers_option
from spielwerk.cli.play import _ask_move as ask_move
from spielwerk.cli.play import seat_opponents
from spielwerk.cli.progress import GamesProgress
from spielwerk.core.agent import Agent, default_opponent, parse_agent_spec
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import State
from spielwerk.core.parallel import make_executor
from spielwerk.core.play import Chooser
from spielwerk.core.play import play as play_loop
from spielwerk.core.process import ignore_further_interrupts
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.plugin import PLUGIN
from spielwerk.games.durak.rules import DurakGame, DurakState, render

TIMED_AGENTS = ("mcts", "ismcts")
DEFAULT_EXTEND_FACTOR = 10
"""``--extend`` without ``--max-games`` stops a pairing at this many times ``--games``."""

durak_app = typer.Typer(help=PLUGIN.summary,
                        no_args_is_help=True)


class DurakCliError(SpielwerkError):
    """Bad options for a Durak command."""


def with_time(spec: str, seconds: float) -> str:
    """Add ``time=seconds`` to search agents that do not set a budget of their own."""
    name, params = parse_agent_spec(spec)
    if seconds <= 0 or name not in TIMED_AGENTS or "time" in params or "iters" in params:
        return spec
    return f"{spec}:time={seconds:g}"


def heatmap_target(path: Path) -> Path:
    """Check ``--heatmap PATH`` before any game is played: matplotlib is installed, the
    path is a file (``.png`` is added when it has no suffix, as matplotlib would) and its
    folder takes a new file. Returns the path that will be written."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise DurakCliError(
            "--heatmap needs matplotlib: pip install 'spielwerk[plots]' (or leave out --heatmap)"
        ) from None
    if path.is_dir():
        raise DurakCliError(f"--heatmap {path} is a folder; give a file name such as "
                            f"{path / 'durak.png'}")
    if not path.suffix:
        path = path.with_suffix(".png")
    if path.is_file():
        with path.open("rb") as fh:
            if fh.read(8) != b"\x89PNG\r\n\x1a\n":  # only an earlier picture is replaced
                raise DurakCliError(f"--heatmap: {path} exists and is not a PNG picture; "
                                    "refusing to overwrite it")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise DurakCliError(f"--heatmap: the folder {folder} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".spielwerk-check-"):
            pass
    except OSError as exc:
        raise DurakCliError(f"--heatmap: cannot write in {folder}: {exc.strerror}") from None
    return path


def heatmap(pairs: dict[tuple[str, str], DecisiveRecord], labels: list[str], path: Path,
            title: str) -> None:
    """Row agent's win rate over decisive games against each column agent, as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise DurakCliError("--heatmap needs matplotlib (pip install matplotlib)") from exc
    n = len(labels)
    grid = np.full((n, n), np.nan)
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if (a, b) in pairs:
                grid[i, j] = pairs[(a, b)].win_rate
            elif (b, a) in pairs:
                grid[i, j] = 1.0 - pairs[(b, a)].win_rate
    fig, ax = plt.subplots(figsize=(1.4 * n + 2, 1.2 * n + 1.5))
    im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{100 * grid[i, j]:.1f}%", ha="center", va="center", fontsize=9)
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, label="row agent's win rate (decisive games)")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise DurakCliError(f"cannot write the heat map {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


@durak_app.command(
    "tournament",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": False},
)
def tournament(
    ctx: typer.Context,
    agents: list[str] = typer.Option(
        None, "--agents", "-a",
        help="agent specs: --agents greedy mcts ismcts (names may follow --agents directly)",
    ),
    preset: str = typer.Option(
        "classic", help="classic, zarlykov2023 or perevodnoy (the seed's tables: zarlykov2023)"),
    players: int = typer.Option(2, min=2, max=2,
                                help="players per game (2: the round robin is of pairs)"),
    deck: int = typer.Option(36, help="24, 36 or 52 cards"),
    games: int = typer.Option(100, "--games", "-n", min=2,
                              help="games per pairing (even: paired deals)"),
    time_per_move: float = typer.Option(
        0.1, "--time-per-move", min=0, help="seconds per move for mcts/ismcts without own budget"
    ),
    open_world: bool = typer.Option(False, "--open-world", help="all cards visible"),
    extend: int = typer.Option(0, min=0, help="games added to each undecided pairing per round"),
    max_games: int = typer.Option(
        0, min=0, help="cap on games per pairing with --extend (0: ten times --games, since an"
        " even pairing never becomes decided)"),
    confidence: float = typer.Option(0.98, help="confidence of the Wilson intervals"),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="same seed, same games"),
    workers: int | None = workers_option(),
    executor: str = typer.Option("local", help="local, serial or dask://HOST:PORT"),
    heatmap_path: Path | None = typer.Option(None, "--heatmap", help="write a heat-map PNG"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per pairing"),
    output: Path | None = typer.Option(
        None, "--output", "-o",
        help="results file (JSON Lines), one line per finished game; extension rounds go to "
             "FILE.extR-I-J.jsonl beside it",
    ),
    resume: bool = typer.Option(False, "--resume", help="continue the games in --output"),
    fresh: bool = typer.Option(False, "--fresh", help="overwrite --output if it exists"),
    partial: bool = typer.Option(
        False, "--partial",
        help="play nothing: print the table of the games already in --output (an unfinished "
             "run's n per cell)",
    ),
) -> None:
    """Round robin between Durak agents with win rates over decisive games.

    Cost: --agents greedy smart mcts --games 10 plays 30 games in about 22 s on 2 cores;
    games with mcts or ismcts take about 1-3 s each at --time-per-move 0.1. Ctrl-C prints
    the table of the games finished so far (exit code 130); -o FILE also keeps every game
    as it finishes, so --resume continues an interrupted run."""
    specs = list(agents or []) + list(ctx.args)
    if len(specs) < 2:
        raise DurakCliError("give at least two agents, e.g. --agents greedy mcts ismcts")
    if games < 2 or games % 2:
        raise DurakCliError(f"--games must be a positive even number (paired deals), not {games}")
    z_value(confidence)
    if heatmap_path is not None:
        heatmap_path = heatmap_target(heatmap_path)  # before hours of games, not after
    if output is not None:
        file_target("--output", output)
    game_spec = f"durak(preset={preset},players={players},deck={deck}" + (
        ",open=true)" if open_world else ")")
    game = load_game(game_spec)
    timed = [with_time(s, time_per_move) for s in specs]
    config = TournamentConfig.create(game.spec(), timed, games, seed)
    config = dataclasses.replace(config, labels=unique_labels(specs))
    labels = list(config.labels)
    err = Console(stderr=True)
    start = time.perf_counter()
    progress = GamesProgress(err, game.game_type.long_name, quiet=as_json)
    finished: list[GameResult] = []  # this run's games, for the table after Ctrl-C

    def on_result(result: GameResult) -> None:
        finished.append(result)
        progress.result(result)

    try:
        with contextlib.nullcontext() if partial else make_executor(executor, workers) as ex:
            if partial:
                if output is None:
                    raise DurakCliError("--partial reads the games in --output FILE: give -o")
                results = _partial_results(output, config.config_hash())
            else:
                results = run_tournament(config, ex, output, resume=resume, fresh=fresh,
                                         on_start=progress.start, on_result=on_result).results
            pairs = decisive_records(results, labels)
            if extend > 0 and not partial:
                cap = max_games if max_games > 0 else DEFAULT_EXTEND_FACTOR * max(games, extend)
                ext = Extension(game.spec(), timed, labels, seed, extend, cap, confidence)
                results += extend_undecided(
                    pairs, ext, ex, output, resume=resume, fresh=fresh,
                    on_start=progress.start, on_result=on_result,
                    on_extended=None if as_json else lambda p: err.print(
                        f"extended {p.agent} vs {p.opponent}: {p.games} games"))
    except KeyboardInterrupt:
        ignore_further_interrupts()  # a second Ctrl-C cannot cut the table short
        progress.stop()  # the bar as it stands, then the table
        # what finished is printed, not lost: the table of this run's games, and where
        # (or that) they are kept
        pairs = decisive_records(finished, labels)
        if as_json:
            for p in pairs.values():
                print(json.dumps(p.to_dict(confidence)))
        else:
            _print_table(pairs, labels, game.game_type.long_name, confidence, len(finished),
                         time.perf_counter() - start)
        kept = (f"every finished game is in {output}: continue with --resume -o {output}"
                if output is not None else "they are not saved: add -o FILE to keep the games "
                "of a long run and continue it with --resume")
        err.print(f"interrupted: the table above has the {len(finished)} games finished in "
                  f"this run; {kept}", highlight=False)
        raise typer.Exit(130) from None
    finally:
        progress.stop()
    wall = time.perf_counter() - start
    if as_json:
        for p in pairs.values():
            print(json.dumps(p.to_dict(confidence)))
    else:
        _print_table(pairs, labels, game.game_type.long_name, confidence, len(results), wall)
    if heatmap_path is not None:
        budget = (f"{time_per_move:g} s/move for {', '.join(TIMED_AGENTS)} without own budget"
                  if time_per_move > 0 else "search budgets as in the agent specs")
        title = (f"{game.game_type.long_name}\nrow agent's win rate over decisive games, "
                 f"{budget}")
        heatmap(pairs, labels, heatmap_path, title)
        if not as_json:
            err.print(f"heat map written to {heatmap_path}")


def _partial_results(output: Path, config_hash: str) -> list[GameResult]:
    """Games already in ``output`` (a file of this very configuration)."""
    if not output.exists():
        raise DurakCliError(f"{output} does not exist")
    back = read_results(output)
    if back.header is None:
        if back.discarded_tail.strip() and not back.discarded_tail.startswith(b'{"format":'):
            raise DurakCliError(f"{output} is not a spielwerk results file")
        return []
    if back.header.get("config_hash") != config_hash:
        raise DurakCliError(
            f"{output} was written by another configuration (agents, games, seed, preset or "
            "time per move differ)")
    return back.results


def _print_table(pairs: dict[tuple[str, str], DecisiveRecord], labels: list[str], name: str,
                 confidence: float, n_games: int, wall: float) -> None:
    out = Console() if Console().is_terminal else Console(width=200)
    table = Table(title=f"{name}: row agent's win rate over decisive games "
                        f"({100 * confidence:g}% Wilson interval), n = decisive games, d = draws")
    table.add_column("agent")
    for b in labels:
        table.add_column(b, justify="center")
    for a in labels:
        row = [a]
        for b in labels:
            p = pairs.get((a, b))
            flip = False
            if p is None and (b, a) in pairs:
                p, flip = pairs[(b, a)], True
            if p is None:
                row.append("-")
                continue
            w, lo_ = (p.losses, p.wins) if flip else (p.wins, p.losses)
            n = w + lo_
            lo, hi = wilson_interval(w, n, confidence)
            if n == 0:  # no decisive game yet: no rate to show
                row.append(f"-\nn=0 d={p.draws}")
                continue
            rate = w / n
            row.append(f"{100 * rate:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}]\nn={n} d={p.draws}")
        table.add_row(*row)
    out.print(table)
    out.print(f"{n_games} games in {wall:.1f} s", highlight=False)


# ----------------------------------------------------------------------------- play
def _bout_end_text(before: np.ndarray, after: np.ndarray, action: int) -> str | None:
    """What ended the bout if ``action`` (taking state array ``before`` to ``after``) ended
    it, else None; the rules may end it on their own (the last attack beaten and nobody
    can add a card)."""
    if int(after[K.BOUT]) == int(before[K.BOUT]):
        return None
    defender = int(before[K.DEFENDER])
    if int(before[K.PHASE]) == K.PH_TAKE or action == K.TAKE:
        return f"bout over: player {defender} takes the cards; hands are refilled"
    return (f"bout over: player {defender} beat every attack; the cards go to the discard "
            f"pile and hands are refilled")


def play_durak(game: DurakGame, vs: list[str], seat: int, seed: int,
               console: Console | None = None) -> None:
    """A person plays Durak in the terminal against agents, through the one play loop
    (:func:`spielwerk.core.play.play`); shows only the person's own cards."""
    console = console or Console()
    agents = seat_opponents(game, vs, seat, seed)
    last = np.zeros(K.STATE_LEN, np.int64)

    def person(state: State, player: int) -> int | None:
        console.print(str(state.info_state(player)), highlight=False)
        return ask_move(state, player, console)

    def before(state: State, player: int, action: int) -> None:
        assert isinstance(state, DurakState)
        last[:] = state.S
        if player >= 0 and player != seat:
            console.print(f"player {player} plays {state.action_to_string(action)}",
                          highlight=False)

    def after(state: State, player: int, action: int) -> None:
        assert isinstance(state, DurakState)
        text = _bout_end_text(last, state.S, action) if player >= 0 else None
        if text is not None and not state.is_terminal():
            console.print(text, highlight=False)

    seats: dict[int, Agent | Chooser] = {**agents, seat: person}
    played = play_loop(game.new_initial_state(), seats, np.random.default_rng(seed),
                       before=before, after=after)
    if played.stopped:
        console.print("You left the game.")
        return
    state = played.state
    assert isinstance(state, DurakState)
    console.print(render(state.S, None, game.num_players), highlight=False)
    loser = state.loser()
    if loser == seat:
        console.print("You are the durak.")
    elif loser is not None and loser < 0:
        console.print("A draw.")
    else:
        console.print("You are not the durak.")


@durak_app.command("play")
def play(
    vs: list[str] | None = typer.Option(
        None, "--vs", help="opponent agent spec (repeat per seat; default: the web table's "
        "default opponent, the strongest measured agent)"),
    preset: str = typer.Option("classic", help="classic, zarlykov2023 or perevodnoy"),
    players: int = typer.Option(2, min=2, max=6, help="players at the table"),
    deck: int = typer.Option(36, help="24, 36 or 52 cards"),
    seat: int = typer.Option(0, min=0, help="your seat (0: you attack first)"),
    seed: int = typer.Option(0, min=0, help="seed for the deal and the agents"),
) -> None:
    """Play Durak in the terminal against agents (type a card such as S6, take, pass; q quits)."""
    game = load_game(f"durak(preset={preset},players={players},deck={deck})")
    assert isinstance(game, DurakGame)
    play_durak(game, vs or [default_opponent(game)], seat, seed)


def front_end(game: DurakGame, vs: list[str], seat: int, seed: int) -> None:
    """``spielwerk play durak``: the terminal front end in Durak's plug-in record."""
    play_durak(game, vs, seat, seed)


def register(app: typer.Typer) -> None:
    app.add_typer(durak_app, name="durak")
