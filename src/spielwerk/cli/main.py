"""The ``spielwerk`` command: one typer app, commands contributed by modules.

Each module in ``COMMAND_MODULES`` defines ``register(app)``. A listed module
that is missing or does not import is an error (:class:`CommandModuleError`),
never skipped silently: a command that vanished must not look like one that
was never there (``tests/test_cli_games_play.py`` checks every listed module).
Errors that spielwerk raises on purpose are printed as one line (exit code 2),
never as a traceback, and never folded to the terminal's width.

``spielwerk --help`` answers from :data:`COMMAND_HELP` without importing typer,
rich or any command module (a test keeps that table equal to what the modules
register); everything else builds the full app, which ``app`` (imported from
here by tests and scripts) also gives.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

HELP = "Strong game AI for Skat, Durak and Kalah: play, analyse, run tournaments."

COMMAND_HELP = {  # top-level command -> its short help, in the order `--help` lists them
    "games": "List the registered games, their parameters (with defaults) and their agents.",
    "play": "Play a game in the terminal against agents (type 'q' to quit).",
    "arena": "Play a round-robin tournament between AGENTS in GAME and print the standings.",
    "fuzz": "Play N seeded random games and check every invariant of check_game after every move.",
    "serve": "Start the web table: play Skat, Durak and Kalah in the browser; Ctrl-C stops it.",
    "kalah": "Kalah perfect play: solve, analyse positions, full game graphs.",
    "skat": "Skat: replay ISS game records, play a deal, double-dummy solve and analyse.",
    "durak": "Durak: tournaments between agents, and play in the terminal.",
    "warmup": "Compile the game kernels into the user's cache folder so the first command "
    "starts at once.",
    "bench": "Solve fixed positions per game (Skat DDS, Kalah, Durak endgames): total nodes and "
    "nodes per second; the total node count is the signature.",
}

COMMAND_MODULES = ["games", "play", "arena", "fuzz", "kalah", "skat", "durak", "serve", "warmup",
                   "bench"]
"""Every ``spielwerk.cli.<name>`` module whose ``register(app)`` adds commands; each must exist."""


class CommandModuleError(RuntimeError):
    """A command module listed in :data:`COMMAND_MODULES` is missing or has no ``register``."""


COMMAND_MODULE = {"games": "games", "arena": "arena", "fuzz": "fuzz", "serve": "serve",
                  "kalah": "kalah", "skat": "skat", "durak": "durak", "warmup": "warmup",
                  "bench": "bench"}
"""Commands that need only their own module (``play`` uses every game's front end)."""


def _group() -> None:
    pass


def _build_app(only: str | None = None) -> Any:
    """The typer app with every command module, or with module ``only`` alone."""
    import typer

    from spielwerk.cli.options import CheckedGroup

    app = typer.Typer(
        name="spielwerk",
        cls=CheckedGroup,
        help=HELP,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    if only is not None:
        # a group even with one command (typer would run a lone command as the app itself)
        app.callback()(_group)
    for name in COMMAND_MODULES if only is None else [only]:
        module_name = f"spielwerk.cli.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                raise CommandModuleError(
                    f"command module {module_name} is listed in COMMAND_MODULES but missing"
                ) from exc
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
    """The answer to ``spielwerk --help``, from :data:`COMMAND_HELP` alone (no typer, no
    rich), in the boxes of the commands' own help."""
    import shutil

    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    width = max(60, min(width, 160))
    lines = ["", f" Usage: {prog} [OPTIONS] COMMAND [ARGS]...", "", f" {HELP}", ""]
    lines += _box("Options", [("--help", "Show this message and exit.")], width)
    lines += _box("Commands", list(COMMAND_HELP.items()), width)
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


def main() -> None:
    """Entry point of the ``spielwerk`` script."""
    if sys.argv[1:] == ["--help"]:  # answered without loading typer or any command
        sys.stdout.write(top_level_help(os.path.basename(sys.argv[0]) or "spielwerk"))
        return
    try:  # loading a command's modules (numba kernels from the cache) takes a second or more
        from rich.markup import escape

        from spielwerk.core.errors import IllegalActionError, SpielwerkError

        this = sys.modules[__name__]
        if "app" in this.__dict__ or sys.argv[1:2] == [] or sys.argv[1] not in COMMAND_MODULE:
            app = this.app
        else:  # `spielwerk kalah ...` imports the kalah command's module, not all of them
            app = _build_app(only=COMMAND_MODULE[sys.argv[1]])
        err_console = this.err_console
    except KeyboardInterrupt:
        _stay_interrupted()
        sys.stderr.write("interrupted (Ctrl-C) while starting: nothing done\n")
        sys.exit(130)
    try:
        app(standalone_mode=True)
    except SystemExit as exc:
        if exc.code == 130:  # a command said what finished after a Ctrl-C and ends now
            _stay_interrupted()
        raise
    except SpielwerkError as exc:
        text = exc.one_line() if isinstance(exc, IllegalActionError) else str(exc)
        err_console.print(f"[bold red]error:[/] {escape(text)}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        _stay_interrupted()
        err_console.print("interrupted")
        sys.exit(130)
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
