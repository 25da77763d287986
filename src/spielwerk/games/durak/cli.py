"""``spielwerk durak tournament`` and ``spielwerk durak play``.

The tournament is a shortcut of ``spielwerk arena durak(...) AGENTS --seating sequential``
(:mod:`spielwerk.cli.arena_sequential`): the arena's round robin (seats alternated, paired
deals: both seatings of a deal share its chance seed) reported as win rates over decisive
games with Wilson intervals, draws counted separately, a sequential extension of undecided
pairings, a table, ``--json`` lines and a heat-map PNG like figure 5 of the seed. Its own
options are Durak's: the preset, deck and a time per move for the search agents.

Durak's command group and terminal front end, named by its plug-in record (``plugin.py``):
an interface module that lives with the game (nothing below the interfaces imports it; the
structure test).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import typer
from rich.console import Console

from spielwerk.arena.stats import z_value
from spielwerk.arena.tournament import TournamentConfig, unique_labels
from spielwerk.cli.arena_sequential import heatmap_target, play_sequential
from spielwerk.cli.options import file_target, workers_option
from spielwerk.cli.play import _ask_move as ask_move
from spielwerk.cli.play import seat_opponents
from spielwerk.core.agent import Agent, default_opponent, parse_agent_spec
from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import State
from spielwerk.core.play import Chooser
from spielwerk.core.play import play as play_loop
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.plugin import PLUGIN
from spielwerk.games.durak.rules import DurakGame, DurakState, render

TIMED_AGENTS = ("mcts", "ismcts")

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
    budget = (f"{time_per_move:g} s/move for {', '.join(TIMED_AGENTS)} without own budget"
              if time_per_move > 0 else "")
    play_sequential(config, extend=extend, max_games=max_games, confidence=confidence,
                    executor=executor, workers=workers, output=output, resume=resume,
                    fresh=fresh, partial=partial, as_json=as_json, heatmap_path=heatmap_path,
                    heatmap_budget=budget, differ=", preset or time per move")


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
