"""``spielwerk kalah solve|analyze|graph|egdb``: perfect play for Kalah(m, n).

Kalah's command group, named by its plug-in record (``plugin.py``): an interface module
that lives with the game (nothing below the interfaces imports it; the structure test).
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from spielwerk._signals import interrupt_name
from spielwerk.cli.options import file_target
from spielwerk.core.errors import SpielwerkError
from spielwerk.games.kalah import defaults, egdb_index, kernel
from spielwerk.games.kalah import egdb as egdb_mod
from spielwerk.games.kalah.notation import format_position, parse_position
from spielwerk.games.kalah.parallel import ParallelSolver, default_threads
from spielwerk.games.kalah.perfect import analyze_within
from spielwerk.games.kalah.plan import (
    AUTO,
    EGDB_HELP,
    TT_HELP,
    TT_LOG2_SHARED_CAP,
    Choice,
    KalahPlan,
)
from spielwerk.games.kalah.plugin import PLUGIN
from spielwerk.games.kalah.solver import Solver
from spielwerk.search.tt import DEPTH_INF

console = Console()
err = Console(stderr=True)

kalah_app = typer.Typer(help=PLUGIN.summary,
                        no_args_is_help=True)

Pits = Annotated[int, typer.Option("--pits", "-m", min=1, max=15, help="pits per side")]
Seeds = Annotated[int, typer.Option("--seeds", "-n", min=1, help="seeds per pit at the start")]
EmptyCapture = Annotated[bool, typer.Option(
    "--empty-capture", help="capture even when the opposite pit is empty (Irving et al. 2000)")]
EgdbOpt = Annotated[int, typer.Option("--egdb", help=EGDB_HELP)]
EgdbDir = Annotated[str | None, typer.Option(
    "--egdb-dir", help="folder of endgame database files (default ~/.cache/spielwerk/kalah, "
                       "or $SPIELWERK_CACHE_DIR/kalah)")]
TtOpt = Annotated[int, typer.Option("--tt", help=TT_HELP)]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress lines")]


def _progress(quiet: bool):  # type: ignore[no-untyped-def]
    if quiet:
        return None
    return lambda text: err.print(f"[dim]{text}[/]", highlight=False)


def _choose(plan: KalahPlan, quiet: bool, start_seeds: int | None = None,
            force: bool = False) -> Choice:
    """The plan's choice, its notes said (unless ``quiet``). With ``start_seeds`` (solving the
    start of Kalah(pits, start_seeds)) a solve estimated to be slow with the chosen database
    is said up front, with the command that makes it fast (even with --quiet: it is no
    progress line), and one estimated at over a day is refused (unless ``force``) before
    any database is read or table allocated."""
    choice = plan.choose()
    if start_seeds is not None and not force:
        no = defaults.refusal(plan.pits, start_seeds, plan.empty_capture, choice.egdb_seeds,
                              plan.threads)
        if no is not None:
            raise SpielwerkError(no)
    warning = None if start_seeds is None else defaults.cost_warning(
        plan.pits, start_seeds, plan.empty_capture, choice.egdb_seeds, plan.threads)
    if not quiet:
        for note in choice.notes:
            if warning is None or not note.startswith("no endgame database cached"):
                err.print(f"[dim]{note}[/]", highlight=False)
    if warning is not None:
        err.print(f"[yellow]{escape(warning)}[/]", highlight=False)
    return choice


def _make_solver(plan: KalahPlan, iterative: bool, quiet: bool, depth_max: int | None = None,
                 start_seeds: int | None = None, force: bool = False) -> Solver:
    """A solver with the database and table the plan chooses (and the choice said)."""
    choice = _choose(plan, quiet, start_seeds, force)
    return Solver(plan.pits, plan.empty_capture, plan.end_rule, max_seeds=plan.total,
                  egdb_seeds=choice.egdb_seeds, egdb_path=plan.egdb_dir,
                  tt_log2=choice.tt_log2, depth_step=3 if iterative else 0,
                  depth_max=depth_max, progress=_progress(quiet))


def _interrupted(solver: Solver | None, who: str, diff: int,
                 nodes: int | None = None) -> NoReturn:
    """Ctrl-C: the bounds proven so far (and the deepest estimate), said once, then exit 130.
    ``solver`` None: interrupted while the database or table was being set up."""
    if threading.current_thread() is threading.main_thread():
        # said once, and the process ends: a second Ctrl-C is ignored to the very end
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _say_interrupted(solver, who, diff, nodes)
    raise typer.Exit(130)


def _say_interrupted(solver: Solver | None, who: str, diff: int, nodes: int | None) -> None:
    if solver is None:
        console.print(f"interrupted ({interrupt_name()}) while setting up the endgame "
                      "database and the transposition table: no search yet, nothing proven")
        return
    lo, hi = solver.bounds
    depth = solver.testing[1]
    st = solver.stats
    searched = st.nodes if nodes is None else nodes
    if searched == 0 and solver.estimate is None:
        console.print(f"interrupted ({interrupt_name()}) before the search had a result: "
                      "nothing proven")
        return
    if depth == DEPTH_INF and solver.bounds == solver.exact_from:
        console.print("interrupted as the exact search began: no exact bound yet")
    elif depth == DEPTH_INF:
        console.print(f"interrupted: value for {who} in [{lo + diff:+d}, {hi + diff:+d}] "
                      f"(proven by the exact search so far)")
    else:
        console.print(f"interrupted during the depth-{depth} iteration: no exact bound yet")
    if solver.estimate is not None:
        d, v = solver.estimate
        console.print(f"deepest depth-limited estimate: {v + diff:+d} (depth {d})")
    console.print(f"nodes: {searched:,} in {st.seconds:.2f} s")


@kalah_app.command()
def solve(
    pits: Pits = 6,
    seeds: Seeds = 4,
    empty_capture: EmptyCapture = False,
    egdb: EgdbOpt = AUTO,
    egdb_dir: EgdbDir = None,
    tt: TtOpt = AUTO,
    iterative: Annotated[bool, typer.Option(
        help="iterative deepening 3, 6, ... --depth-max before the exact search")] = True,
    depth_max: Annotated[int | None, typer.Option(
        min=1, max=200,
        help="deepest depth-limited iteration (default 12, 18 from 48 seeds on: measured "
             "fastest; the seed uses 30)")] = None,
    guess: Annotated[int | None, typer.Option(
        help="first guess of the exact MTD(f) (e.g. a published value): its null-window "
             "tests come first and the depth-limited iterations are skipped")] = None,
    threads: Annotated[int | None, typer.Option(
        min=1, max=256,
        help="threads of the exact search, split over the first turns (default: the "
             "cores available, at most 8; 1: the serial search)")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="solve even when the estimate is over a day (refused otherwise)")] = False,
    quiet: Quiet = False,
) -> None:
    """Value of the start of Kalah(pits, seeds) for South (first player), best move and PV.

    Progress lines (stderr) show the bounds proven so far; Ctrl-C stops with them. A solve
    estimated at over a day is refused at once, unless --force."""
    t0 = time.perf_counter()
    n_threads = default_threads() if threads is None else threads
    plan = KalahPlan(pits, 2 * pits * seeds, empty_capture, egdb=egdb, tt=tt,
                     egdb_dir=egdb_dir, threads=n_threads)
    board = kernel.initial_board(pits, seeds)
    solver: Solver | None = None
    par: ParallelSolver | None = None
    value: int | None = None
    try:  # Ctrl-C at any moment, the table's allocation included
        solver = _make_solver(plan, iterative, quiet, depth_max, start_seeds=seeds, force=force)
        solver.report_iterations = True
        par = ParallelSolver(solver, n_threads)
        t_db = time.perf_counter() - t0
        rel = solver.relative(board, 0)
        value = par.value(rel, guess=guess)
        move = par.best_move(rel, value)
        rule = "empty capture" if empty_capture else "standard capture"
        console.print(f"Kalah({pits},{seeds}), {rule}: value {value:+d} for South (first "
                      f"player)")
        console.print(f"best move: pit {move + 1}")
        nodes, search_s = par.nodes, par.seconds
        pv = solver.principal_variation(rel, value)
    except KeyboardInterrupt:
        if value is not None:  # the value and best move are printed: only the PV is missing
            console.print(f"interrupted ({interrupt_name()}) while following the principal "
                          "variation")
            raise typer.Exit(130) from None
        _interrupted(solver, "South", 0, None if par is None else par.nodes)
    total = time.perf_counter() - t0
    console.print(f"principal variation: {solver.pv_notation(board, 0, pv)}")
    db_text = "none"
    if solver.egdb is not None:
        how = (f"built in {solver.egdb.build_seconds:.1f} s" if solver.egdb.build_seconds
               is not None else f"loaded in {solver.egdb.load_seconds:.1f} s")
        db_text = (f"<= {solver.db_n} seeds, {solver.egdb.size_bytes / 1e6:.1f} MB, {how}")
    console.print(f"endgame database: {db_text}; transposition table 2^{solver.tt_log2} "
                  f"slots x {len(par.workers)} thread(s); setup {t_db:.1f} s")
    console.print(f"nodes: {nodes:,} in {search_s:.2f} s "
                  f"({nodes / max(search_s, 1e-9) / 1e6:.2f} M nodes/s); "
                  f"total {total:.2f} s including database and PV")


@kalah_app.command()
def analyze(
    position: Annotated[str, typer.Argument(
        help="SOUTH|NORTH[|STORES][ S|N], e.g. '4,4,4,4,4,4|4,4,4,4,4,4|0-0 S', or 'start'")],
    pits: Annotated[int | None, typer.Option("--pits", "-m", min=1, max=15,
                                             help="pits (for 'start')")] = None,
    seeds: Annotated[int | None, typer.Option("--seeds", "-n", min=1,
                                              help="seeds (for 'start')")] = None,
    empty_capture: EmptyCapture = False,
    egdb: EgdbOpt = AUTO,
    egdb_dir: EgdbDir = None,
    tt: TtOpt = AUTO,
    time_budget: Annotated[float, typer.Option(
        "--time", "-t", min=0, help="seconds to spend (0: no limit, exact values however long it "
                             "takes); when time runs out the deepest finished estimates are "
                             "shown")] = 0.0,
    quiet: Quiet = False,
) -> None:
    """Exact value of every legal move of a position (final margins for the player to move).

    Positions with many seeds can take hours to solve exactly (the Kalah(6,4)
    start: over 2 billion nodes); --time S gives estimates within S seconds and
    --egdb N (an endgame database) makes exact solving much faster."""
    t0 = time.perf_counter()  # --time counts from here: making the table is part of it
    board, mover = parse_position(position, pits, seeds)
    m = (len(board) - 2) // 2
    if not 1 <= m <= 15:
        raise SpielwerkError(f"a position has 1..15 pits per side, this one {m}")
    seen = board.copy()  # the mover as player 0
    if mover == 1:
        egdb_index.swap_sides(seen, m)
    if egdb_index.is_over(seen, m, kernel.END_EITHER_EMPTY):  # before any database or table
        raise SpielwerkError(f"the game is over in {format_position(board, mover)}: no moves "
                             f"to analyse")
    # seeds in a store never come back into play: they size neither the table nor the database
    in_pits = int(board.sum()) - int(board[m]) - int(board[2 * m + 1])
    plan = KalahPlan(m, in_pits, empty_capture, egdb=egdb, tt=tt, egdb_dir=egdb_dir,
                     seconds=time_budget)
    who = "South" if mover == 0 else "North"
    diff = int(board[m] - board[2 * m + 1]) * (1 if mover == 0 else -1)
    solver: Solver | None = None
    try:  # Ctrl-C at any moment, the table's allocation included
        solver = _make_solver(plan, True, quiet)
        rel = solver.relative(board, mover)
        console.print(f"position {format_position(board, mover)}")
        if time_budget == 0 and in_pits > max(30, solver.db_n + 10) and not quiet:
            err.print(f"note: {in_pits} seeds in the pits: the exact values can take a long "
                      f"time (the Kalah(6,4) start: hours). --time 10 gives estimates in 10 s; "
                      f"--egdb 20 speeds up the exact search. Ctrl-C stops.", highlight=False)
        if time_budget > 0:
            timed = analyze_within(solver, rel, time_budget, started=t0)
            values, depth = timed.move_values, timed.depth
        else:
            res = solver.analyze(rel)
            values, depth = res.move_values, -1
    except KeyboardInterrupt:
        _interrupted(solver, f"{who} (the move being searched)", diff)
    best = max(values.values())
    exact = depth == -1
    what = "final margin" if exact else f"estimate (search depth {depth})"
    table = Table(title=f"{who} to move: {what} for {who} (store difference now {diff:+d})")
    table.add_column("pit", justify="right")
    table.add_column("value", justify="right")
    table.add_column("", justify="left")
    for pit in sorted(values):
        v = values[pit] + diff
        table.add_row(str(pit + 1), f"{v:+d}", "best" if values[pit] == best else "")
    console.print(table)
    if exact:
        pv = res.pv if time_budget == 0 else solver.principal_variation(rel, best)
        console.print(f"value {best + diff:+d} for {who}; principal variation: "
                      f"{solver.pv_notation(board, mover, pv)}")
    elif depth > 0:
        console.print(f"not exact: the exact search did not finish in {time_budget:g} s; these "
                      f"are depth-{depth} estimates (more --time, or --egdb 20, to go further)")
    else:
        console.print(f"not exact: no search finished in {time_budget:g} s; the values are "
                      f"the immediate store gains (more --time to search)")
    st = solver.stats
    console.print(f"nodes: {st.nodes:,} in {st.seconds:.2f} s")


@kalah_app.command()
def graph(
    pits: Pits = 4,
    seeds: Seeds = 3,
    empty_capture: EmptyCapture = False,
    quiet: Quiet = False,
) -> None:
    """Full game graph: reachable, terminal and W/L/D positions, solved bottom-up."""
    from spielwerk.games.kalah.graph import full_graph

    if 2 * pits * seeds > 60:
        raise SpielwerkError("the full graph is for small instances (at most 60 seeds)")
    r = full_graph(pits, seeds, empty_capture, progress=_progress(quiet))
    rule = "empty capture" if empty_capture else "standard capture"
    t = Table(title=f"Kalah({pits},{seeds}), {rule}: full game graph")
    t.add_column("quantity")
    t.add_column("count", justify="right")
    t.add_row("positions (pits + stores + mover, non-terminal)", f"{r.positions:,}")
    t.add_row("terminal positions (finished, swept)", f"{r.terminal_positions:,}")
    t.add_row("all nodes", f"{r.positions + r.terminal_positions:,}")
    t.add_row("pit configurations + mover (stores ignored)", f"{r.pit_positions:,}")
    t.add_row("W / L / D for South (non-terminal)", f"{r.wins:,} / {r.losses:,} / {r.draws:,}")
    t.add_row("W / L / D for South (terminal)",
              f"{r.terminal_wins:,} / {r.terminal_losses:,} / {r.terminal_draws:,}")
    console.print(t)
    outcome = "W" if r.start_value > 0 else ("L" if r.start_value < 0 else "D")
    console.print(f"start value {r.start_value:+d} for South ({outcome}); "
                  f"{r.seconds:.1f} s, hash tables {r.table_bytes / 1e6:.0f} MB at peak, "
                  f"process peak RSS {r.peak_rss_bytes / 1e6:.0f} MB")
    console.print("convention: a position is the whole board (pits and stores) with the player "
                  "to move, reachable from the start; finished games are counted separately.")


@kalah_app.command("egdb")
def egdb_cmd(
    pits: Pits = 6,
    max_seeds: Annotated[int, typer.Option("--max-seeds", "-N", min=0, max=egdb_mod.MAX_SEEDS,
                                           help="largest seed count")] = 15,
    empty_capture: EmptyCapture = False,
    egdb_dir: EgdbDir = None,
    threads: Annotated[int, typer.Option(min=1, max=256,
                                         help="threads searching each level")] = 1,
    quiet: Quiet = False,
) -> None:
    """Build (or load and verify) an endgame database; print its size and build time.

    A build continues from the largest smaller cached database (a prefix of the
    new one) and saves checkpoints, so an interrupted build resumes."""
    egdb_mod.check_size(pits, max_seeds)  # before the folder is made: a refusal makes nothing
    folder = egdb_mod.check_folder(egdb_dir, write=True, name="--egdb-dir" if egdb_dir
                                   else "the endgame database folder")
    lines: list[str] = []

    def progress(text: str) -> None:
        lines.append(text)
        if not quiet:
            err.print(f"[dim]{text}[/]", highlight=False)

    try:
        db = egdb_mod.open_egdb(pits, max_seeds, empty_capture, kernel.END_EITHER_EMPTY,
                                egdb_dir, progress=progress, threads=threads)
    except KeyboardInterrupt:  # typer would end it silently
        err.print(f"interrupted ({interrupt_name()}): the same command continues from the last "
                  f"checkpoint in {folder}", highlight=False)
        raise typer.Exit(130) from None
    if db.file is None:  # built, but the save failed (disk full, folder removed meanwhile)
        why = next((x for x in reversed(lines) if "not saved" in x), "the save failed")
        raise egdb_index.EgdbError(f"endgame database built in {db.build_seconds or 0:.1f} s but "
                                 f"not saved in {folder}: {why}")
    how = (f"built in {db.build_seconds:.1f} s" if db.build_seconds is not None
           else f"loaded and verified in {db.load_seconds:.1f} s")
    console.print(f"endgame database {pits} pits, <= {max_seeds} seeds: "
                  f"{db.values.size:,} entries, {db.size_bytes / 1e6:.1f} MB, {how}; "
                  f"file {db.file}")


@kalah_app.command("split")
def split_cmd(
    pits: Pits = 6,
    seeds: Seeds = 4,
    empty_capture: EmptyCapture = False,
    executor: Annotated[str, typer.Option(
        "--executor", "-e",
        help="where the tasks run: local (process pool), threads, serial or "
             "dask://HOST:PORT (a running Dask scheduler)")] = "local",
    workers: Annotated[int | None, typer.Option(
        "--workers", "-w", min=1, max=256,
        help="worker processes (threads) for --executor local (threads); default: all "
             "cores")] = None,
    egdb: EgdbOpt = AUTO,
    egdb_dir: EgdbDir = None,
    tt: TtOpt = AUTO,
    node_budget: Annotated[int, typer.Option(
        min=1000,
        help="nodes per task before it reports its bounds and is resubmitted")] = 50_000_000,
    checkpoint: Annotated[str | None, typer.Option(
        help="file of the tasks' bounds (JSON): written after every result, resumed from")] = None,
    stop_after: Annotated[float | None, typer.Option(
        min=0,
        help="seconds after which no task is resubmitted (bounds so far are printed)")] = None,
    strategy: Annotated[str, typer.Option(
        help="next test of a task: mtdf (at the last answer: fastest to the exact value) or "
             "outside-in (a quarter in from either end: proves bounds early)")] = "mtdf",
    quiet: Quiet = False,
) -> None:
    """Root-split solve on the executors of the arena: every first turn is a task; prints the
    proven bounds of each first turn and of the start (exact when every task finished).
    Ctrl-C stops and prints the bounds proven so far."""
    from pathlib import Path

    from spielwerk.core.parallel import check_executor_spec, make_executor
    from spielwerk.games.kalah import distributed

    if strategy not in distributed.STRATEGIES:
        raise SpielwerkError(f"--strategy must be one of {', '.join(distributed.STRATEGIES)}")
    plan = KalahPlan(pits, 2 * pits * seeds, empty_capture, egdb=egdb, tt=tt,
                     egdb_dir=egdb_dir, tt_cap=TT_LOG2_SHARED_CAP)
    check_executor_spec(executor)
    if checkpoint is not None:
        file_target("--checkpoint", Path(checkpoint), "k.json")
        distributed.check_checkpoint(Path(checkpoint), pits, seeds, empty_capture)
    choice = _choose(plan, quiet)  # said after every check of the input
    if choice.egdb_seeds:  # build (if needed) once here, not in every worker
        egdb_mod.open_egdb(pits, choice.egdb_seeds, empty_capture, plan.end_rule,
                           egdb_dir, progress=_progress(quiet))
    t0 = time.perf_counter()
    with make_executor(executor, workers) as ex:
        split, state = distributed.solve_split(
            pits, seeds, empty_capture, ex, choice.egdb_seeds, egdb_dir,
            choice.tt_log2, node_budget, Path(checkpoint) if checkpoint else None,
            stop_after, _progress(quiet), strategy)
    wall = time.perf_counter() - t0
    rule = "empty capture" if empty_capture else "standard capture"
    t = Table(title=f"Kalah({pits},{seeds}), {rule}: first turns (value for South)")
    t.add_column("turn")
    t.add_column("bounds", justify="right")
    for name, lo, hi in distributed.turn_bounds(split, state.bounds):
        t.add_row(name, f"{lo:+d}" if lo == hi else f"[{lo:+d}, {hi:+d}]")
    console.print(t)
    lo, hi = distributed.root_bounds(split, state.bounds)
    nodes = sum(state.nodes)
    what = f"value {lo:+d}" if lo == hi else f"value in [{lo:+d}, {hi:+d}] (not finished)"
    console.print(f"Kalah({pits},{seeds}), {rule}: {what} for South; {len(split.tasks)} tasks, "
                  f"{nodes:,} nodes in {wall:.1f} s wall ({nodes / max(wall, 1e-9) / 1e6:.2f} "
                  f"M nodes/s over all workers)")
    if state.interrupted:  # the bounds above stand; the checkpoint has them
        hint = (f"continue with --checkpoint {checkpoint}" if checkpoint else
                "add --checkpoint FILE to keep the bounds and continue from them")
        console.print(f"interrupted ({interrupt_name()}): {hint}", highlight=False)
        raise typer.Exit(130)


def register(app: typer.Typer) -> None:
    app.add_typer(kalah_app, name="kalah")
