"""Kalah(m, n): the ``Game`` and ``State`` wrapping the numba kernel.

Rules (Champion's Kalah, as in the seed): each player owns ``m`` pits and a
store to their right; a move sows all seeds of a non-empty own pit one by one
counter-clockwise, skipping the opponent's store. A last seed in the own store
gives another move (no limit). A last seed in an own empty pit captures it
with the opposite pit's seeds - only if that pit is non-empty, unless
``empty_capture`` (Irving, Donkers & Uiterwijk 2000). By default the game ends
as soon as either side's pits are empty after a move, and each side's
remaining seeds go to their owner. Returns are the final store margin.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from spielwerk._jit import direct
from spielwerk.core.errors import GameParameterError
from spielwerk.core.game import (
    TERMINAL,
    Game,
    GameType,
    PerfectInfoState,
    Playouts,
    State,
    check_playouts,
    check_seat,
)
from spielwerk.core.registry import register_game
from spielwerk.games.kalah import kernel

# a kernel.step code: the legal mask (0xFFFF) and the player's place (23), written out as
# numbers where a state reads them on every move (a constant costs no look-up)
_MASK = (1 << kernel.STEP_MASK_BITS) - 1
_PLAYER = kernel.STEP_PLAYER_SHIFT
END_RULES = {"either_empty": kernel.END_EITHER_EMPTY, "mover_empty": kernel.END_MOVER_EMPTY}
SOUTH, NORTH = 0, 1
MAX_PITS, MAX_SEEDS_IN_ALL = 16, 10_000
"""The size limit of Kalah, games and positions alike (:func:`check_size`)."""


def check_size(pits: int, seeds_in_all: int) -> None:
    """Refuse more than :data:`MAX_PITS` pits a side or :data:`MAX_SEEDS_IN_ALL` seeds on the
    board (pits and stores): the one limit of a game spec and of a position text."""
    if pits > MAX_PITS or seeds_in_all > MAX_SEEDS_IN_ALL:
        this = f"{pits} pits" if pits > MAX_PITS else f"{seeds_in_all:,} seeds"
        raise GameParameterError(
            f"kalah: at most {MAX_PITS} pits and {MAX_SEEDS_IN_ALL:,} seeds in all, not {this}")


class KalahGame(Game):
    """Kalah(pits, seeds) with a capture rule and an end rule."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.pits = int(params["pits"])
        self.seeds = int(params["seeds"])
        self.empty_capture = bool(params["empty_capture"])
        end_rule = str(params["end_rule"])
        if self.pits < 1:
            raise GameParameterError(f"kalah: pits must be at least 1, not {self.pits}")
        if self.seeds < 1:
            raise GameParameterError(f"kalah: seeds must be at least 1, not {self.seeds}")
        check_size(self.pits, 2 * self.pits * self.seeds)
        if end_rule not in END_RULES:
            raise GameParameterError(
                f"kalah: end_rule must be one of {', '.join(END_RULES)}, not {end_rule!r}"
            )
        self.end_rule = END_RULES[end_rule]
        # legal mask -> its pits (filled on first use; legal_actions hands out copies)
        self._mask_actions: list[list[int] | None] = [None] * (1 << self.pits)
        self._step_code = kernel.step_code(self.pits, self.empty_capture, self.end_rule)
        self._initial = kernel.initial_board(self.pits, self.seeds)
        self._initial_code = -1  # the start's step code (its legal mask asked on first use)
        total = 2 * self.pits * self.seeds
        self._type = GameType(
            short_name="kalah",
            long_name=f"Kalah({self.pits},{self.seeds})",
            num_players=2,
            chance=False,
            perfect_information=True,
            zero_sum=True,
            min_utility=-float(total),
            max_utility=float(total),
            utility_sum=0.0,
            parameters=dict(self.params),
        )

    @property
    def game_type(self) -> GameType:
        return self._type

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_mask_actions"] = None  # 2**pits slots, refilled on use
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._mask_actions = [None] * (1 << self.pits)

    def new_initial_state(self) -> KalahState:
        code = self._initial_code
        if code < 0:  # every pit holds seeds at the start; asked of the kernel once
            mask = int(kernel.legal_mask(self._initial, SOUTH, self.pits))
            code = self._initial_code = (SOUTH + 2) << _PLAYER | self._step_code | mask
        return KalahState(self, self._initial.copy(), SOUTH, -1, code)

    def actions_of_mask(self, mask: int) -> tuple[int, ...]:
        """The pits (ascending) whose bits are set in a :func:`kernel.legal_mask`."""
        return tuple(self._actions_list(mask))

    def _actions_list(self, mask: int) -> list[int]:
        actions = self._mask_actions[mask]
        if actions is None:
            actions = self._mask_actions[mask] = [i for i in range(self.pits) if mask >> i & 1]
        return actions

    def random_playouts(self, n: int, seed: int, state: KalahState | None = None) -> Playouts:
        """``n`` uniformly random games to the end, in one numba call.

        From the start (or from ``state``, left unchanged); the same ``seed``
        gives the same games. Batch counterpart of the API loop.
        """
        n = check_playouts(n, seed)
        start = state if state is not None else self.new_initial_state()
        if start.is_terminal():
            margin = float(start.margin())
            return Playouts(np.tile([margin, -margin], (n, 1)), np.zeros(n, np.int64))
        out = kernel.random_playouts(start.board, start.current_player, self.pits,
                                     self.empty_capture, self.end_rule, n, seed)
        margin = (out[:, 0] - out[:, 1]).astype(np.float64)
        return Playouts(np.stack([margin, -margin], axis=1), out[:, 2].copy())

    def legal_action_masks(self, states: Sequence[KalahState]) -> np.ndarray:
        """``masks[i, a]`` is True when pit ``a`` is legal in ``states[i]`` (one numba call)."""
        if not states:
            return np.zeros((0, self.pits), dtype=bool)
        boards = np.stack([s.board for s in states])
        players = np.array([s.current_player for s in states], dtype=np.int64)
        bits = kernel.legal_masks(boards, players, self.pits)
        masks: np.ndarray = (bits[:, None] >> np.arange(self.pits)) & 1 == 1
        return masks

    def state_from_board(self, board: Any, to_move: int) -> KalahState:
        """A state from an explicit board (layout as in :mod:`kernel`) and player to move.

        The history of such a state starts empty.
        """
        arr = np.asarray(board, dtype=np.int32).copy()
        if arr.shape != (2 * self.pits + 2,):
            raise GameParameterError(
                f"kalah: a board of Kalah({self.pits},{self.seeds}) has {2 * self.pits + 2} cells"
            )
        if (arr < 0).any():
            raise GameParameterError("kalah: seed counts cannot be negative")
        most = 2 * self.pits * self.seeds
        if int(arr.sum()) > most:  # more seeds could leave the declared utility range
            raise GameParameterError(
                f"kalah: a board of Kalah({self.pits},{self.seeds}) holds at most {most} seeds, "
                f"not {int(arr.sum())}"
            )
        if to_move not in (SOUTH, NORTH):
            raise GameParameterError("kalah: the player to move is 0 (South) or 1 (North)")
        state = KalahState(self, arr, to_move)
        m = self.pits
        side0, side1 = arr[:m].sum(), arr[m + 1 : 2 * m + 1].sum()
        if self.end_rule == kernel.END_EITHER_EMPTY:
            over = side0 == 0 or side1 == 0
        else:
            over = (side0, side1)[to_move] == 0
        if over:
            kernel.sweep(state.board, m)
            state._code = 0
            state.current_player = TERMINAL
        return state


class KalahState(State):
    """A Kalah position: the board array and the player to move."""

    current_player: int = TERMINAL  # a plain attribute, set in __init__ and by every
    # move: play loops read it once per move, where a property costs a call

    def __init__(self, game: KalahGame, board: np.ndarray, player: int, mask: int = -1,
                 code: int = -1) -> None:
        # State.__init__ inlined (a new game starts with one: the API loop's cost per game)
        self.game = game
        self.history: list[int] = []
        self.kgame = game
        self.board = board
        self.current_player = player
        if code < 0:
            if player == TERMINAL:
                code = 0
            else:
                if mask < 0:
                    mask = int(kernel.legal_mask(board, player, game.pits))
                code = (player + 2) << _PLAYER | game._step_code | mask
        # the kernel's step code of this position (kernel.step): the player to move, the
        # game and the player's legal mask in one int; 0: the game is over
        self._code = code

    def is_terminal(self) -> bool:
        return self._code == 0

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        try:
            # 0xFFFF: _MASK; a None slot (a mask not met yet) has no copy()
            return self.kgame._mask_actions[self._code & 0xFFFF].copy()  # type: ignore[union-attr]
        except AttributeError:  # that None: the list is made once
            return self.kgame._actions_list(self._code & _MASK).copy()

    def apply(self, action: int) -> None:
        # the common case inline: an int action goes straight to the kernel, which checks
        # it against the legal mask in the code and moves (one call); a refused action
        # (-1, the board untouched) and everything else go through State.apply, errors too
        if type(action) is int:
            try:
                code = _step(self.board, self._code, action)
            except (OverflowError, TypeError):  # an int beyond int64 (no pit) numba refuses
                code = -1
            if code >= 0:
                self._code = code  # as in _apply_action, without its frame
                self.current_player = (code >> 23) - 2  # _PLAYER; TERMINAL (-2) for code 0
                self.history.append(action)
                return
        State.apply(self, action)

    def _legal_actions(self) -> list[int]:
        return self.legal_actions()

    def _is_legal(self, action: int) -> bool:
        return 0 <= action < self.kgame.pits and bool(self._code >> action & 1)

    def _apply_action(self, action: int) -> None:
        code = _step(self.board, self._code, action)
        if code < 0:  # the kernel checks every move: an illegal one changes nothing
            self._refuse(action)
        self._code = code
        self.current_player = (code >> _PLAYER) - 2

    def _clone(self) -> KalahState:
        return KalahState(self.kgame, self.board.copy(), self.current_player, -1, self._code)

    def store(self, player: int) -> int:
        return int(self.board[player * (self.kgame.pits + 1) + self.kgame.pits])

    def pits_of(self, player: int) -> list[int]:
        """``player``'s pits from that player's left."""
        base = player * (self.kgame.pits + 1)
        return [int(x) for x in self.board[base : base + self.kgame.pits]]

    def margin(self) -> int:
        """South's store minus North's store."""
        return self.store(SOUTH) - self.store(NORTH)

    def returns(self) -> list[float]:
        if self._code:
            return [0.0, 0.0]
        board, m = self.board, self.kgame.pits
        d = int(board[m]) - int(board[2 * m + 1])  # margin(), without its two calls
        return [float(d), float(-d)]

    def fingerprint(self) -> Hashable:
        return (self.board.tobytes(), self.current_player)

    def action_to_string(self, action: int) -> str:
        return str(int(action) + 1)

    def info_state(self, player: int) -> PerfectInfoState:
        return PerfectInfoState(self, player)

    def info_view(self, player: int) -> PerfectInfoState:
        if player != 0 and player != 1:
            check_seat(self.game, player)
        return PerfectInfoState.borrowed(self, player)

    def __str__(self) -> str:
        m = self.kgame.pits
        w = max(2, len(str(int(self.board.max()))))
        north = self.pits_of(NORTH)[::-1]
        south = self.pits_of(SOUTH)
        cell = "[{:>" + str(w) + "}]"
        label = " {:>" + str(w) + "} "
        pad = " " * (w + 2)
        lines = [
            pad + "".join(label.format(i) for i in range(m, 0, -1)) + "   North",
            pad + "".join(cell.format(x) for x in north),
            cell.format(self.store(NORTH)) + " " * ((w + 2) * m) + cell.format(self.store(SOUTH))
            + "   stores: North left, South right",
            pad + "".join(cell.format(x) for x in south),
            pad + "".join(label.format(i) for i in range(1, m + 1)) + "   South",
        ]
        if not self._code:
            d = self.margin()
            if d == 0:
                lines.append("game over: draw")
            else:
                lines.append(f"game over: {'South' if d > 0 else 'North'} wins by {abs(d)}")
        else:
            lines.append(f"{('South', 'North')[self.current_player]} to move")
        return "\n".join(lines)


def _bind_step(board: np.ndarray, code: int, action: int) -> int:
    """The first move of any Kalah state: binds :data:`_step` and makes that move."""
    global _step
    _step = direct(kernel.step, board, 0, 0)
    return _step(board, code, action)


_step: Callable[[np.ndarray, int, int], int] = _bind_step
"""``kernel.step`` without numba's per-call type dispatch (about 1 µs of each move), one
entry point for every Kalah game (the code carries the game), bound on the first move
(loading a kernel costs start-up time)."""


def _make(params: dict[str, Any]) -> KalahGame:
    return KalahGame(params)


register_game(
    "kalah",
    _make,
    {"pits": 6, "seeds": 4, "empty_capture": False, "end_rule": "either_empty"},
    "Kalah(m,n), the two-player sowing game",
    {
        "pits": "pits per side (m >= 1)",
        "seeds": "seeds per pit at the start (n >= 1)",
        "empty_capture": "capture even when the opposite pit is empty (Irving et al. 2000)",
        "end_rule": "either_empty (game ends when either side is empty) or mover_empty",
    },
)
