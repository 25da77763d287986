"""The ``spielwerk`` command: one typer app, commands contributed by modules.

Each module in ``COMMAND_MODULES``, and each game's command module named by its plug-in
record (:mod:`spielwerk.plugins`), defines ``register(app)``. A listed module
that is missing or does not import is an error (:class:`CommandModuleError`),
never skipped silently: a command that vanished must not look like one that
was never there (``tests/test_cli_games_play.py`` checks every listed module).
Errors that spielwerk raises on purpose are printed as one line (exit code 2),
never as a traceback, and never folded to the terminal's width.

``spielwerk --help`` answers from :data:`COMMAND_HELP` and the games' records
(:func:`command_help`) without importing typer, rich, any command module or any
game (a test keeps that table equal to what the modules register); ``spielwerk
COMMAND ...`` builds the app with that command's module alone; everything else
builds the full app, which ``app`` (imported from here by tests and scripts) also
gives.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

HELP = "Strong game AI for {games}: play, analyse, run tournaments."
"""The app's help; ``{games}`` becomes the plug-ins' titles (:func:`app_help`)."""

COMMAND_HELP = {  # command -> its short help, in the order `--help` lists them
    "games": "List the registered games, their parameters (with defaults) and their agents.",
    "play": "Play a game in the terminal against agents (type 'q' to quit).",
    "arena": "Play AGENTS against each other in GAME and print the standings.",
    "fuzz": "Play N seeded random games and check every invariant of check_game after every move.",
    "serve": "Start the web table: play every table game in the browser; Ctrl-C stops it.",
    "warmup": "Compile the game kernels into the user's cache folder so the first command "
    "starts at once.",
    "bench": "Solve fixed positions per game with its exact solver: total nodes and nodes per "
    "second; the total node count is the signature.",
}
"""The commands of ``spielwerk.cli`` itself; each game's command group comes from its plug-in
record (:func:`command_help`), listed after them."""

COMMAND_MODULES = ["games", "play", "arena", "fuzz", "serve", "warmup", "bench"]
"""Every ``spielwerk.cli.<name>`` module whose ``register(app)`` adds commands; each must exist.
The games' command modules are named by their plug-in records (:func:`command_modules`)."""


class CommandModuleError(RuntimeError):
    """A command module listed in :data:`COMMAND_MODULES` or named by a game's plug-in
    record is missing or has no ``register``."""


COMMAND_MODULE = {"games": "games", "play": "play", "arena": "arena", "fuzz": "fuzz",
                  "serve": "serve", "warmup": "warmup", "bench": "bench"}
"""Commands that need only their own module (a game's command group needs only its own module
too, and ``play`` loads the game's front end from its record)."""


def _plugins() -> tuple[Any, ...]:
    from spielwerk.plugins import game_plugins

    return game_plugins()


def app_help() -> str:
    """The app's help with the games' titles (``Skat, Kalah and Durak``)."""
    titles = [r.title for r in _plugins()]
    games = ", ".join(titles[:-1]) + " and " + titles[-1] if len(titles) > 1 else "".join(titles)
    return HELP.format(games=games or "games")


def command_help() -> dict[str, str]:
    """Every command's short help in the order ``--help`` lists them: :data:`COMMAND_HELP`,
    then each game's command group (its record's ``summary``), as typer lists them."""
    return {**COMMAND_HELP, **{r.name: r.summary for r in _plugins() if r.cli is not None}}


def command_modules() -> dict[str, str]:
    """Command -> the module whose ``register(app)`` adds it: ``spielwerk.cli.<name>`` for
    :data:`COMMAND_MODULES`, each game's record's ``cli`` for its command group."""
    out = {name: f"spielwerk.cli.{name}" for name in COMMAND_MODULES}
    for record in _plugins():
        if record.cli is not None:
            if record.name in out:
                raise CommandModuleError(f"game {record.name!r} would replace the command "
                                         f"{record.name!r}: a game may not take that name")
            out[record.name] = record.cli
    return out


def _only_module(command: str) -> str | None:
    """The one module ``spielwerk COMMAND ...`` needs (None: the full app)."""
    if command in COMMAND_MODULE:
        return f"spielwerk.cli.{COMMAND_MODULE[command]}"
    if command.startswith("-"):
        return None
    from spielwerk.plugins import game_plugin

    record = game_plugin(command)
    return record.cli if record is not None else None


def _group() -> None:
    pass


def _build_app(only: str | None = None) -> Any:
    """The typer app with every command module, or with the module ``only`` alone."""
    import typer

    from spielwerk.cli.options import CheckedGroup

    app = typer.Typer(
        name="spielwerk",
        cls=CheckedGroup,
        help=app_help(),
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    if only is not None:
        # a group even with one command (typer would run a lone command as the app itself)
        app.callback()(_group)
    for module_name in command_modules().values() if only is None else [only]:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                raise CommandModuleError(
                    f"command module {module_name} is listed but missing") from exc
            raise
        register = getattr(module, "register", None)
        if register is None:
            raise CommandModuleError(f"command module {module_name} has no register(app)")
        register(app)
    return app


def __getattr__(name: str) -> Any:
    """``app`` (the full typer app) and ``err_console``, built on first use."""
    if name == "app":
        value = _build_app()
    elif name == "err_console":
        from rich.console import Console

        # soft_wrap: an error is one line at any width, piped or not (never folded at 80)
        value = Console(stderr=True, soft_wrap=True)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups find the module global directly
    return value


def _box(title: str, rows: list[tuple[str, str]], width: int) -> list[str]:
    """A titled box of (name, text) rows, texts wrapped, drawn as typer draws the commands'
    help (so ``spielwerk --help`` looks like every ``spielwerk COMMAND --help``)."""
    import textwrap

    inner = width - 4
    name_width = max(len(name) for name, _ in rows)
    text_width = max(20, inner - name_width - 2)
    lines = ["╭─ " + title + " " + "─" * max(0, width - len(title) - 5) + "╮"]
    for name, text in rows:
        wrapped = textwrap.wrap(text, text_width) or [""]
        for i, part in enumerate(wrapped):
            cell = f"{name if i == 0 else '':{name_width}s}  {part}"
            lines.append(f"│ {cell:{inner}s} │")
    lines.append("╰" + "─" * (width - 2) + "╯")
    return lines


def top_level_help(prog: str, width: int | None = None) -> str:
    """The answer to ``spielwerk --help``, from :func:`command_help` alone (the games' plug-in
    records; no typer, no rich, no game loaded), in the boxes of the commands' own help."""
    import shutil

    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    width = max(60, min(width, 160))
    lines = ["", f" Usage: {prog} [OPTIONS] COMMAND [ARGS]...", "", f" {app_help()}", ""]
    lines += _box("Options", [("--help", "Show this message and exit.")], width)
    lines += _box("Commands", list(command_help().items()), width)
    lines += ["", f" Run '{prog} COMMAND --help' for a command's options."]
    return "\n".join(lines) + "\n"


def _stay_interrupted() -> None:
    """After a Ctrl-C the process ends: further ones are ignored to the very end. Python
    puts the default action back while it shuts down (which kills the process by the signal
    instead of exit code 130) unless SIGINT is ignored then."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _interrupt_unsaid(exc: BaseException) -> bool:
    """Whether the exit came from typer itself turning a ``KeyboardInterrupt`` into its
    ``Exit(130)`` (typer from 0.2x does so, silently, for a Ctrl-C anywhere in a command,
    its own option parsing included; older typer, through click, into "Aborted." and exit
    1), not from a command that said what the Ctrl-C stopped (those raise ``Exit(130)``
    inside their handler, never *from* the interrupt)."""
    seen: BaseException | None = exc
    for _ in range(8):  # SystemExit <- click's Exit <- KeyboardInterrupt
        if seen is None or isinstance(seen, KeyboardInterrupt):
            return False
        if isinstance(seen.__cause__, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def main() -> None:
    """Entry point of the ``spielwerk`` script."""
    from spielwerk.plugins import PluginError

    try:
        _main()
    except PluginError as exc:  # a game plug-in that cannot be read: one line, no traceback
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)


def _main() -> None:
    if sys.argv[1:] == ["--help"]:  # answered without loading typer or any command
        sys.stdout.write(top_level_help(os.path.basename(sys.argv[0]) or "spielwerk"))
        return
    from spielwerk._signals import (
        interrupt_name,
        interrupted_exit_code,
        interrupts_deferred,
        stop_on_sigterm,
    )

    stop_on_sigterm()  # a SIGTERM stops a command as a Ctrl-C does (exit code 143)
    try:  # loading a command's modules (numba kernels from the cache) takes a second or more
        # a Ctrl-C while they load is held back and raised after: some modules'
        # initialisation (numpy's compiled ones, as numba loads) clears an exception raised
        # inside it, and the command would run on as if no Ctrl-C had come
        with interrupts_deferred():
            from rich.markup import escape

            from spielwerk.core.errors import IllegalActionError, SpielwerkError

            this = sys.modules[__name__]
            only = None if "app" in this.__dict__ or sys.argv[1:2] == [] else \
                _only_module(sys.argv[1])
            # `spielwerk kalah ...` imports that game's command module, not all of them
            app = this.app if only is None else _build_app(only=only)
            err_console = this.err_console
            try:  # typer (0.2x) reads every option through pydantic, loaded at the first
                importlib.import_module("typer._adapters")  # one: loaded here, held too
            except ImportError:  # another typer
                pass
    except KeyboardInterrupt:
        _stay_interrupted()
        sys.stderr.write(f"interrupted ({interrupt_name()}) while starting: nothing done\n")
        sys.exit(interrupted_exit_code())
    try:
        app(standalone_mode=True)
    except SystemExit as exc:
        unsaid = _interrupt_unsaid(exc)
        if exc.code == 130 or (exc.code == 1 and unsaid):  # 1: typer < 0.2x ("Aborted.")
            _stay_interrupted()  # a command said what finished after a Ctrl-C and ends now
            if unsaid:
                err_console.print("interrupted")
            sys.exit(interrupted_exit_code())
        raise
    except SpielwerkError as exc:
        text = exc.one_line() if isinstance(exc, IllegalActionError) else str(exc)
        err_console.print(f"[bold red]error:[/] {escape(text)}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        _stay_interrupted()
        err_console.print("interrupted")
        sys.exit(interrupted_exit_code())
    except BrokenPipeError:  # output piped into e.g. head, which has closed: not an error
        sys.stderr.close()
        sys.exit(141)
    except OSError as exc:
        # the machine said no (disk full, no permission, a folder for a file): one line
        where = f": {exc.filename}" if exc.filename else ""
        err_console.print(f"[bold red]error:[/] {escape(exc.strerror or str(exc))}"
                          f"{escape(where)}", highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
