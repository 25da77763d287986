"""Specific exceptions with messages a player understands."""

from __future__ import annotations


class SpielwerkError(Exception):
    """Base class of every error spielwerk raises on purpose."""


class IllegalActionError(SpielwerkError, ValueError):
    """An action that is not legal in the state it was applied to.

    The state is unchanged when this is raised.
    """

    def __init__(self, action: object, state_description: str, reason: str = "") -> None:
        self.action = action
        self.state_description = state_description
        self.reason = reason
        msg = f"illegal action {action!r}"
        if reason:
            msg += f": {reason}"
        msg += f"\nin state:\n{state_description}"
        super().__init__(msg)

    def __reduce__(self) -> tuple[type, tuple[object, str, str]]:
        # picklable, so it survives a process pool (the default reduce passes only the message)
        return (type(self), (self.action, self.state_description, self.reason))


class UnknownGameError(SpielwerkError, KeyError):
    """A game name that is not registered."""

    def __str__(self) -> str:  # KeyError quotes its message; we do not want that
        return str(self.args[0]) if self.args else "unknown game"


class GameParameterError(SpielwerkError, ValueError):
    """A bad parameter name or value for a game."""


class SerializationError(SpielwerkError, ValueError):
    """A game record that cannot be read or replayed."""
