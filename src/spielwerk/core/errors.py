"""Specific exceptions with messages a player understands."""

from __future__ import annotations


class SpielwerkError(Exception):
    """Base class of every error spielwerk raises on purpose."""


class IllegalActionError(SpielwerkError, ValueError):
    """An action that is not legal in the state it was applied to.

    The state is unchanged when this is raised.
    """

    def __init__(self, action: object, state: object, reason: str = "") -> None:
        # ``state`` is a description string or the state itself; rendering a board
        # costs more than raising, so it is rendered only when the message is read.
        self.action = action
        self._state = state
        self.reason = reason
        super().__init__(action, reason)

    @property
    def state(self) -> object:
        """A copy of the state the action was refused in (None once only its text is kept)."""
        return None if isinstance(self._state, str) else self._state

    @property
    def state_description(self) -> str:
        if not isinstance(self._state, str):
            self._state = str(self._state)
        return self._state

    def __str__(self) -> str:
        msg = f"illegal action {self.action!r}"
        if self.reason:
            msg += f": {self.reason}"
        return msg + f"\nin state:\n{self.state_description}"

    def one_line(self) -> str:
        """The message without the state picture (for a command line or a log line)."""
        return f"illegal action {self.action!r}" + (f": {self.reason}" if self.reason else "")

    def __reduce__(self) -> tuple[type, tuple[object, str, str]]:
        # picklable, so it survives a process pool (the default reduce passes only args)
        return (type(self), (self.action, self.state_description, self.reason))


class NotChanceNodeError(SpielwerkError, ValueError):
    """``chance_outcomes()`` asked of a state that is not a chance node.

    The one contract of every game (checked by ``check_game``): away from a
    chance node ``chance_outcomes()`` raises this, never returns ``[]`` or a
    game's own error.
    """


class SeatError(SpielwerkError, ValueError):
    """A seat number that is not at the table (``info_state(5)`` in a 2-player game)."""


class UnknownGameError(SpielwerkError, KeyError):
    """A game name that is not registered."""

    def __str__(self) -> str:  # KeyError quotes its message; we do not want that
        return str(self.args[0]) if self.args else "unknown game"


class GameParameterError(SpielwerkError, ValueError):
    """A bad parameter name or value for a game."""


class SerializationError(SpielwerkError, ValueError):
    """A game record that cannot be read or replayed."""
