"""One place for what every command's options have in common: checked numbers and help style.

Numbers: every int and float option and argument of every command is checked
here, when the command line is parsed and before any work starts. A float must
be finite (``nan`` and ``inf`` are refused everywhere); a range declared on an
option with typer's ``min=`` / ``max=`` is enforced; text that is no number is
refused. Each refusal is an :class:`OptionValueError`, which the ``spielwerk``
script prints as one line (exit code 2) like every other error it raises on
purpose. Commands declare limits with ``min=``/``max=`` (shown in ``--help`` as
``[x>=1]``), and call :func:`at_least` / :func:`finite` for limits that depend
on other options.

Help style: flags show no ``<bool>`` type, arguments are written in capitals
(``GAME``, ``AGENTS...``) in the usage line and the argument list, and the
top-level ``spielwerk --help`` (answered without typer, see
:mod:`spielwerk.cli.main`) is drawn in the same boxes as the commands' help.

:class:`CheckedGroup` applies both to a command tree when the app is built.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import click
import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from spielwerk.core.errors import SpielwerkError


class OptionValueError(SpielwerkError):
    """A command-line value out of its range, not finite, or not a number."""


def option_name(param: Any) -> str:
    """``--games`` for an option (its first long name), ``GAME`` for an argument."""
    if param is None:
        return "value"
    if getattr(param, "param_type_name", "") == "argument":
        return str(param.name or "value").upper()
    longs = [o for o in param.opts if o.startswith("--")]
    return str((longs or param.opts)[0])


def _number(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def range_text(low: float | None, high: float | None, low_open: bool = False,
               high_open: bool = False) -> str:
    """'at least 1', 'in 1..65535', 'greater than 0', ... as in the error messages."""
    if low is not None and high is not None and not (low_open or high_open):
        return f"in {_number(low)}..{_number(high)}"
    parts = []
    if low is not None:
        parts.append(f"{'greater than' if low_open else 'at least'} {_number(low)}")
    if high is not None:
        parts.append(f"{'less than' if high_open else 'at most'} {_number(high)}")
    return " and ".join(parts)


def at_least(name: str, value: float, low: float) -> None:
    """Refuse ``value`` of option ``name`` below ``low`` (or not finite)."""
    finite(name, value)
    if value < low:
        raise OptionValueError(f"{name} must be at least {_number(low)}, not {_number(value)}")


def finite(name: str, value: float) -> None:
    """Refuse a ``nan`` or infinite ``value`` of option ``name``."""
    if isinstance(value, float) and not math.isfinite(value):
        raise OptionValueError(f"{name} must be a finite number, not {value}")


MAX_WORKERS = 256
"""The most worker processes a command takes (``--workers``), as ``kalah split`` and its
``--threads``: more than the cores only adds processes that wait for one, and a pool of
thousands runs the machine out of processes and memory."""


def workers_option(default: int | None = None,
                   help: str = "worker processes (default: all cores)",  # noqa: A002
                   low: int = 1) -> Any:
    """The ``--workers`` / ``-w`` option of every command that starts worker processes:
    ``low`` to :data:`MAX_WORKERS` (a value outside is refused in one line, exit code 2)."""
    return typer.Option(default, "--workers", "-w", min=low, max=MAX_WORKERS, help=help)


def file_target(name: str, path: Path, example: str = "out.jsonl") -> None:
    """Refuse, before any work, a file option (``--output``, ``--checkpoint``, ``--db``) that
    names a folder, or a new file whose folder (or nearest existing parent folder, for
    folders made on the way) takes no new file."""
    if path.is_dir():
        raise OptionValueError(f"{name} {path} is a folder; give a file name such as "
                               f"{path / example}")
    if path.exists():
        return
    folder = path.parent if str(path.parent) else Path(".")
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise OptionValueError(f"{name} {path}: {folder} is a file, not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".spielwerk-check-"):
            pass
    except OSError as exc:
        raise OptionValueError(f"{name} {path}: cannot write in {folder} "
                               f"({exc.strerror or exc})") from None


try:  # typer >= 0.16 parses with its own copy of click
    from typer._click.exceptions import BadParameter as _TyperBadParameter
except ImportError:  # pragma: no cover - older typer: click itself
    _TyperBadParameter = click.BadParameter  # type: ignore[misc,assignment]
_BAD_PARAMETER = (_TyperBadParameter, click.BadParameter)


def _kind(param: Any) -> type | None:
    """``int`` or ``float`` for a number parameter (also a list of them), else None."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None:
        annotation = descriptor.annotation
        if getattr(annotation, "__origin__", None) in (list, tuple):
            args = getattr(annotation, "__args__", ())
            annotation = args[0] if args else None
    else:  # older typer: a click type
        kind = getattr(param, "type", None)
        annotation = (int if isinstance(kind, click.types.IntParamType) else
                      float if isinstance(kind, click.types.FloatParamType) else None)
    return annotation if annotation in (int, float) else None


def _limits(param: Any) -> tuple[float | None, float | None]:
    if hasattr(param, "type_descriptor"):
        return getattr(param, "min", None), getattr(param, "max", None)
    kind = getattr(param, "type", None)
    return getattr(kind, "min", None), getattr(kind, "max", None)


def _refusal(param: Any, kind: type, value: Any) -> str:
    """The one line for a number option's value that did not convert or is out of range."""
    name = option_name(param)
    low, high = _limits(param)
    raw = value[0] if isinstance(value, (list, tuple)) and len(value) == 1 else value
    try:
        number = float(raw)
    except (TypeError, ValueError):
        number = None
    if number is None or (kind is int and not number.is_integer()):
        what = "a whole number" if kind is int else "a number"
        return f"{name} must be {what}, not {raw!r}"
    if not math.isfinite(number):
        return f"{name} must be a finite number, not {raw}"
    return f"{name} must be {range_text(low, high)}, not {raw}"


def _checked_process_value(param: Any) -> Any:
    """``param.process_value`` with number values checked as the module says."""
    original = param.process_value
    kind = _kind(param)

    def process_value(ctx: Any, value: Any) -> Any:
        try:
            out = original(ctx, value)
        except _BAD_PARAMETER:
            raise OptionValueError(_refusal(param, kind or float, value)) from None
        for x in out if isinstance(out, (list, tuple)) else [out]:
            if isinstance(x, float) and not math.isfinite(x):
                raise OptionValueError(f"{option_name(param)} must be a finite number, not {x}")
        return out

    return process_value if kind is not None else original


def _usage_name(param: Any) -> Any:
    """An argument written as ``GAME`` / ``[GAME]`` / ``AGENTS...`` in the usage line."""

    def usage_display_name() -> str:
        name = str(param.metavar or param.name or "").upper()
        name = name if param.required else f"[{name}]"
        return name + ("..." if param.nargs != 1 else "")

    return usage_display_name


def finish(command: Any) -> None:
    """Checked numbers and the common help style for ``command`` and every command below
    it."""
    for param in command.params:
        # instance attributes: typer's parameter classes cannot be swapped for subclasses
        setattr(param, "process_value", _checked_process_value(param))  # noqa: B010
        if isinstance(param, TyperArgument):
            setattr(param, "_usage_display_name", _usage_name(param))  # noqa: B010
            if param.metavar is None:
                param.metavar = (param.name or "").upper()
        elif isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""  # a flag takes no value: no <bool> in the help
    original = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = original(ctx)
        if option is not None:
            option.metavar = ""
        return option

    setattr(command, "get_help_option", help_option)  # noqa: B010 (one instance's method)
    for sub in getattr(command, "commands", {}).values():
        finish(sub)


class CheckedGroup(TyperGroup):
    """The ``spielwerk`` group: :func:`finish` applied to the whole tree once it is built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        finish(self)
