"""The ``spielwerk`` command: one typer app, commands contributed by modules.

Each module in ``COMMAND_MODULES`` defines ``register(app)``; a module that
does not exist yet is skipped, so commands can be added without editing this
file's logic. Errors that spielwerk raises on purpose are printed as one line
(exit code 2), never as a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer
from rich.console import Console
from rich.markup import escape

from spielwerk.core.errors import IllegalActionError, SpielwerkError

COMMAND_MODULES = ["games", "play", "arena", "fuzz", "kalah", "skat", "durak", "serve", "bench"]

app = typer.Typer(
    name="spielwerk",
    help="Strong game AI for Skat, Durak and Kalah: play, analyse, run tournaments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err_console = Console(stderr=True)


def _register_commands() -> None:
    for name in COMMAND_MODULES:
        module_name = f"spielwerk.cli.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        module.register(app)


_register_commands()


def main() -> None:
    """Entry point of the ``spielwerk`` script."""
    try:
        app(standalone_mode=True)
    except SpielwerkError as exc:
        text = exc.one_line() if isinstance(exc, IllegalActionError) else str(exc)
        err_console.print(f"[bold red]error:[/] {escape(text)}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
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
