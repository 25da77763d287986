"""The conformance harness every game must pass: ``check_game`` (public API).

``check_game`` plays seeded random games and checks the invariants of the game
API after every move (legal actions, chance probabilities, illegal actions,
returns, clone independence, JSON round trip, info states and
``sample_world``, action notation, determinism, termination). The per-move
checker :func:`check_state` and the single-game driver :func:`play_checked_game`
are public too: ``spielwerk fuzz`` runs the very same checks, so every
invariant is written once.

A violation raises :class:`ConformanceError` naming the invariant, the game
spec, the seed of the failing game and its action history; game ``i`` of a run
uses seed ``seed + i``, so ``spielwerk fuzz SPEC --games 1 --seed S`` replays it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from spielwerk.core.errors import IllegalActionError, NotChanceNodeError, SpielwerkError
from spielwerk.core.game import CHANCE, TERMINAL, Game, State, sample_chance
from spielwerk.core.play import play
from spielwerk.core.registry import load_game

_TOL = 1e-9
_NO_RNG = np.random.default_rng(0)  # passed when no deep check draws from it


class ConformanceError(SpielwerkError, AssertionError):
    """A game broke an invariant of the game API.

    ``invariant`` names the rule, ``spec`` the game, ``seed`` the random game
    that failed (None outside seeded playouts) and ``history`` the actions
    applied so far, so the failure can be replayed.
    """

    def __init__(
        self,
        invariant: str,
        detail: str,
        spec: str,
        seed: int | None = None,
        history: Sequence[int] | None = None,
    ) -> None:
        self.invariant = invariant
        self.detail = detail
        self.spec = spec
        self.seed = seed
        self.history = list(history) if history is not None else None
        msg = f"{invariant}: {detail}\n  game: {spec}"
        if seed is not None:
            msg += f"\n  seed: {seed}"
        if self.history is not None:
            msg += f"\n  history ({len(self.history)} actions): {json.dumps(self.history)}"
        if seed is not None:
            msg += f"\n  replay: {replay_command(spec, seed)}"
        super().__init__(msg)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        # picklable, so it survives a process pool
        return (type(self), (self.invariant, self.detail, self.spec, self.seed, self.history))


def replay_command(spec: str, seed: int) -> str:
    """The shell command that replays game ``seed`` of ``spec`` with every check."""
    return f'spielwerk fuzz "{spec}" --games 1 --seed {seed} --workers 1'


@dataclass
class CheckedGame:
    """One checked random game: its seed, length and outcome."""

    seed: int
    history: list[int]
    moves: int  # decisions by players
    chance_moves: int
    returns: list[float]


@dataclass
class CheckReport:
    """Summary of a successful :func:`check_game` run."""

    spec: str
    seed: int
    games: int = 0
    moves: int = 0
    chance_moves: int = 0
    min_length: int = 0
    max_length: int = 0
    seconds: float = 0.0
    returns_sum: list[float] = field(default_factory=list)

    @property
    def mean_length(self) -> float:
        return (self.moves + self.chance_moves) / self.games if self.games else 0.0

    @property
    def mean_returns(self) -> list[float]:
        return [r / self.games for r in self.returns_sum] if self.games else []

    def add(self, result: CheckedGame) -> None:
        length = result.moves + result.chance_moves
        self.min_length = length if self.games == 0 else min(self.min_length, length)
        self.max_length = max(self.max_length, length)
        self.games += 1
        self.moves += result.moves
        self.chance_moves += result.chance_moves
        if not self.returns_sum:
            self.returns_sum = [0.0] * len(result.returns)
        self.returns_sum = [a + b for a, b in zip(self.returns_sum, result.returns, strict=True)]

    def __str__(self) -> str:
        mean = ", ".join(f"{r:+.3f}" for r in self.mean_returns)
        return (
            f"{self.spec}: {self.games} games (seeds {self.seed}..{self.seed + self.games - 1}) "
            f"passed; {self.moves} moves, {self.chance_moves} chance moves, length "
            f"{self.min_length}..{self.max_length} (mean {self.mean_length:.1f}), "
            f"mean returns [{mean}], {self.seconds:.2f} s"
        )


# ----------------------------------------------------------------------------- helpers
def _fail(state: State, seed: int | None, invariant: str, detail: str) -> ConformanceError:
    return ConformanceError(invariant, detail, state.game.spec(), seed, state.history)


def _same_game(a: Game, b: Game) -> bool:
    return a is b or a == b


def _snapshot(state: State) -> tuple[object, list[int], int]:
    return state.fingerprint(), list(state.history), state.current_player


def _illegal_candidates(legal: Sequence[int], turn: int) -> list[object]:
    """Actions that must be rejected: out of range, plus one of a gap or a non-integer.

    The third candidate rotates with ``turn``, so a game tries all kinds
    without paying for every kind after every move.
    """
    extra: list[object] = [1.5, True]
    legal_set = set(legal)
    for a in range(min(legal), max(legal)) if legal else ():
        if a not in legal_set:
            extra.append(a)
            break
    return [-1, (max(legal) + 1) if legal else 0, extra[turn % len(extra)]]


# ----------------------------------------------------------------------------- per game
def check_game_metadata(game: Game) -> None:
    """Checks once per game: GameType consistency and ``load_game(game.spec())`` round trip."""
    spec = game.spec()
    gt = game.game_type

    def fail(invariant: str, detail: str) -> ConformanceError:
        return ConformanceError(invariant, detail, spec)

    if gt.num_players < 1:
        raise fail("game type", f"num_players is {gt.num_players}")
    if not gt.min_utility <= gt.max_utility:
        raise fail("game type", f"min_utility {gt.min_utility} > max_utility {gt.max_utility}")
    if gt.zero_sum and gt.utility_sum != 0.0:
        raise fail("game type", f"zero-sum game declares utility_sum {gt.utility_sum}")
    if gt.utility_sum is not None and not (
        gt.num_players * gt.min_utility - _TOL
        <= gt.utility_sum
        <= gt.num_players * gt.max_utility + _TOL
    ):
        raise fail("game type", f"utility_sum {gt.utility_sum} outside the utility range")
    try:
        again = load_game(spec)
    except SpielwerkError as exc:
        raise fail("load_game(game.spec()) round trip", f"{spec!r} does not load: {exc}") from exc
    if again != game or again.spec() != spec:
        raise fail("load_game(game.spec()) round trip", f"{spec!r} loads as {again.spec()!r}")
    if again.new_initial_state() != game.new_initial_state():
        raise fail("load_game(game.spec()) round trip", "the reloaded game starts elsewhere")


# ----------------------------------------------------------------------------- per state
Fail = Callable[[str, str], ConformanceError]
"""``fail(invariant, detail)``: the error for the state being checked."""


def check_state(
    state: State,
    rng: np.random.Generator,
    *,
    seed: int | None = None,
    deep: bool = True,
) -> None:
    """Check every invariant of one state; the state is left as it was.

    Always: current player, legal actions, chance outcomes (and their
    contract away from a chance node), returns, illegal actions rejected
    without change, clone independence, action notation round trip. With
    ``deep``: the JSON round trip and, for every player, the info state and
    ``sample_world`` (drawn with ``rng``). ``seed`` only labels a failure.
    Raises :class:`ConformanceError`.
    """

    def fail(invariant: str, detail: str) -> ConformanceError:
        return _fail(state, seed, invariant, detail)

    _check_player(state, fail)
    legal = _check_legal(state, fail)
    _check_chance(state, legal, fail)
    _check_returns(state, fail)
    before = _snapshot(state)
    _check_illegal_rejected(state, legal, before, fail)
    _check_clone(state, legal, before, fail)
    _check_notation(state, legal, fail)
    if deep:
        _check_round_trip(state, seed)
        _check_info_states(state, rng, seed)
    if _snapshot(state) != before:
        raise fail("checks leave the state unchanged", "the state changed while being checked")


def _check_player(state: State, fail: Fail) -> None:
    gt = state.game.game_type
    player = state.current_player
    if isinstance(player, bool) or not isinstance(player, int | np.integer):
        raise fail("current player", f"current_player is {player!r}, not an int")
    if not (0 <= player < gt.num_players or player in (CHANCE, TERMINAL)):
        raise fail("current player", f"current_player {player} is no seat, CHANCE or TERMINAL")
    if player == CHANCE and not gt.chance:
        raise fail("current player", "a chance node in a game declared without chance")
    if state.is_terminal() != (player == TERMINAL):
        raise fail("current player", "is_terminal() disagrees with current_player")
    if state.is_chance_node() != (player == CHANCE):
        raise fail("current player", "is_chance_node() disagrees with current_player")


def _check_legal(state: State, fail: Fail) -> list[int]:
    legal = state.legal_actions()
    if not isinstance(legal, list):
        raise fail("legal actions", f"legal_actions() returned {type(legal).__name__}, not list")
    if state.current_player == TERMINAL:
        if legal:
            raise fail("legal actions", f"terminal state has legal actions {legal}")
        return legal
    if not legal:
        raise fail("legal actions", "no legal actions in a non-terminal state")
    for a in legal:
        if isinstance(a, bool) or not isinstance(a, int):
            raise fail("legal actions", f"action {a!r} is a {type(a).__name__}, not an int")
    if any(b <= a for a, b in zip(legal, legal[1:], strict=False)):
        raise fail("legal actions", f"not strictly ascending (unique): {legal}")
    return legal


def _check_chance(state: State, legal: list[int], fail: Fail) -> None:
    if state.current_player != CHANCE:
        # the one contract of every game: a clear error away from a chance node
        try:
            outcomes = state.chance_outcomes()
        except NotChanceNodeError:
            return
        except Exception as exc:  # noqa: BLE001 - any other exception breaks the contract
            raise fail(
                "chance outcomes contract",
                f"away from a chance node chance_outcomes() raised {type(exc).__name__}: "
                f"{exc}, not NotChanceNodeError",
            ) from exc
        raise fail(
            "chance outcomes contract",
            f"away from a chance node chance_outcomes() returned {outcomes!r} "
            "instead of raising NotChanceNodeError",
        )
    outcomes = state.chance_outcomes()
    actions = [a for a, _ in outcomes]
    probs = [p for _, p in outcomes]
    if actions != legal:
        raise fail("chance outcomes", f"outcome actions {actions} != legal actions {legal}")
    if any(not (p > 0.0) or not math.isfinite(p) for p in probs):
        raise fail("chance outcomes", f"probabilities must be positive: {probs}")
    if abs(math.fsum(probs) - 1.0) > 1e-9:
        raise fail("chance outcomes", f"probabilities sum to {math.fsum(probs)}, not 1")


def _check_returns(state: State, fail: Fail) -> None:
    gt = state.game.game_type
    returns = state.returns()
    if len(returns) != gt.num_players:
        raise fail("returns", f"{len(returns)} returns for {gt.num_players} players")
    if state.current_player != TERMINAL:
        if any(r != 0.0 for r in returns):
            raise fail("returns", f"returns {returns} before the game is over (must be zeros)")
    else:
        for r in returns:
            if not (gt.min_utility - _TOL <= r <= gt.max_utility + _TOL):
                raise fail(
                    "returns",
                    f"return {r} outside [{gt.min_utility}, {gt.max_utility}]: {returns}",
                )
        if gt.utility_sum is not None and abs(math.fsum(returns) - gt.utility_sum) > 1e-6:
            raise fail("returns", f"returns {returns} sum to {sum(returns)}, not {gt.utility_sum}")
    try:
        hash(state)
    except TypeError as exc:
        raise fail("fingerprint", f"fingerprint is not hashable: {exc}") from exc


def _check_illegal_rejected(
    state: State, legal: list[int], before: tuple[object, list[int], int], fail: Fail
) -> None:
    for bad in _illegal_candidates(legal, len(state.history)) if legal else [0, 1.5]:
        try:
            state.apply(bad)  # type: ignore[arg-type]
        except IllegalActionError:
            pass
        except Exception as exc:  # noqa: BLE001 - any other exception is the bug
            raise fail(
                "illegal action rejected",
                f"apply({bad!r}) raised {type(exc).__name__}: {exc}, not IllegalActionError",
            ) from exc
        else:
            raise fail("illegal action rejected", f"apply({bad!r}) was accepted (legal: {legal})")
        if _snapshot(state) != before:
            raise fail("illegal action leaves the state unchanged", f"apply({bad!r}) changed it")


def _check_clone(
    state: State, legal: list[int], before: tuple[object, list[int], int], fail: Fail
) -> None:
    copy = state.clone()
    if copy is state:
        raise fail("clone independence", "clone() returned the same object")
    if copy != state or copy.history != state.history:
        raise fail("clone independence", "the clone differs from the original")
    if not legal:
        return
    infos = [copy.info_state(p) for p in range(state.game.num_players)]
    info_fps = [info.fingerprint() for info in infos]
    copy.apply(legal[-1])
    if _snapshot(state) != before:
        raise fail("clone independence", f"applying {legal[-1]} to a clone changed the state")
    if [info.fingerprint() for info in infos] != info_fps:
        raise fail("clone independence", "an info state changed when its state moved on")
    state.clone().apply(legal[0])
    if _snapshot(state) != before:
        raise fail("clone independence", f"applying {legal[0]} to a clone changed the original")


def _check_notation(state: State, legal: list[int], fail: Fail) -> None:
    names: dict[str, int] = {}
    for a in legal:
        text = state.action_to_string(a)
        if not isinstance(text, str) or not text.strip():
            raise fail("action notation", f"action_to_string({a}) is {text!r}")
        if text.strip().upper() in names:
            raise fail(
                "action notation",
                f"actions {names[text.strip().upper()]} and {a} are both written {text!r}",
            )
        names[text.strip().upper()] = a
        try:
            back = state.string_to_action(text)
        except SpielwerkError as exc:
            raise fail("action notation", f"string_to_action({text!r}) failed: {exc}") from exc
        if back != a:
            raise fail("action notation", f"string_to_action({text!r}) = {back}, not {a}")


def _check_round_trip(state: State, seed: int | None) -> None:
    game = state.game
    text = state.serialize()
    try:
        json.loads(text)
    except ValueError as exc:
        raise _fail(state, seed, "JSON round trip", f"serialize() is not JSON: {exc}") from exc
    try:
        again = game.deserialize_state(text)
    except SpielwerkError as exc:
        raise _fail(state, seed, "JSON round trip", f"the record does not replay: {exc}") from exc
    if again != state or again.history != state.history:
        raise _fail(state, seed, "JSON round trip", "the replayed state differs from the original")
    if again.current_player != state.current_player or again.returns() != state.returns():
        raise _fail(state, seed, "JSON round trip", "the replayed state plays differently")


def _check_info_states(state: State, rng: np.random.Generator, seed: int | None) -> None:
    game = state.game
    gt = game.game_type
    to_move = state.current_player
    legal = state.legal_actions()

    def fail(invariant: str, detail: str) -> ConformanceError:
        return _fail(state, seed, invariant, detail)

    for p in range(gt.num_players):
        info = state.info_state(p)
        if info.player != p or not _same_game(info.game, game):
            raise fail("info state", f"info_state({p}) is for player {info.player} of {info.game}")
        if info.current_player != to_move:
            raise fail(
                "info state",
                f"info_state({p}).current_player is {info.current_player}, not {to_move}",
            )
        expected = legal if to_move == p else []
        if info.legal_actions() != expected:
            raise fail(
                "info state",
                f"info_state({p}).legal_actions() = {info.legal_actions()}, not {expected}",
            )
        if to_move == p:
            for a in legal:
                if info.action_to_string(a) != state.action_to_string(a):
                    raise fail("info state", f"player {p} writes action {a} differently")
        info_fp = info.fingerprint()
        world_seed = int(rng.integers(2**63))
        world = info.sample_world(np.random.default_rng(world_seed))
        if not isinstance(world, State) or not _same_game(world.game, game):
            raise fail("sample_world", f"player {p}: sample_world returned {world!r}")
        if world.info_state(p) != info:
            raise fail("sample_world", f"player {p}: the world's info state differs from the info")
        if world.current_player != to_move:
            raise fail("sample_world", f"player {p}: the world has {world.current_player} to move")
        if to_move == p and world.legal_actions() != info.legal_actions():
            raise fail(
                "sample_world",
                f"player {p}: world legal actions {world.legal_actions()} != "
                f"{info.legal_actions()}",
            )
        if gt.perfect_information and (world != state or world.history != state.history):
            raise fail("sample_world", f"player {p}: perfect information, but world != state")
        twin = info.sample_world(np.random.default_rng(world_seed))
        if twin.fingerprint() != world.fingerprint():
            raise fail("sample_world", f"player {p}: the same generator seed gave another world")
        moves = world.legal_actions()
        if moves:
            world.apply(moves[0])
            if info.fingerprint() != info_fp:
                raise fail("sample_world", f"player {p}: moving the world changed the info state")


# ----------------------------------------------------------------------------- playouts
def _choose(state: State, rng: np.random.Generator) -> int:
    """The playout policy: uniform over legal actions, chance by its probabilities."""
    if state.is_chance_node():
        return sample_chance(state, rng)
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


def api_playouts(spec: str, games: int, seed: int = 0) -> None:
    """Play ``games`` games of ``spec`` through the object API alone (``legal_actions``,
    ``apply``, chance moves too, uniform by one ``random.Random(seed)``), as a user's script
    does: a game's warm-up makes the first calls of its kernels this way."""
    import random

    game = load_game(spec)
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        state.returns()


def random_playout(game: Game, seed: int, max_moves: int = 10_000) -> State:
    """Play game ``seed`` with the harness's random policy, without checks.

    Goes through the one play loop (:func:`spielwerk.core.play.play`) with one
    generator for the players' and the chance choices.
    """
    rng = np.random.default_rng(seed)

    def policy(state: State, seat: int) -> int:
        legal = state.legal_actions()
        return legal[int(rng.integers(len(legal)))]

    seats = [policy] * game.num_players
    return play(game.new_initial_state(), seats, rng, max_actions=max_moves).state


def play_checked_game(
    game: Game,
    seed: int,
    *,
    max_moves: int = 10_000,
    deep_every: int = 1,
    check_determinism: bool = True,
) -> CheckedGame:
    """Play random game ``seed`` and check every invariant after every move.

    Deep checks (JSON round trip, info states) run at the start, at the end and
    every ``deep_every`` moves; ``deep_every=1`` checks them after every move.
    Any exception a game raises is reported as a :class:`ConformanceError`
    with the seed and history.
    """
    if seed < 0:
        raise ValueError("seeds are non-negative")
    deep_every = max(1, deep_every)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    moves = chance_moves = 0
    try:
        while True:
            k = len(state.history)
            terminal = state.is_terminal()
            if not terminal and k >= max_moves:
                raise _fail(state, seed, "termination", f"not over after {max_moves} actions")
            deep = terminal or k % deep_every == (seed % deep_every)
            # the checks draw from their own generator (per move, so a replay with other
            # deep-check points samples the same worlds) and never touch the playout's
            check_rng = np.random.default_rng([seed, k]) if deep else _NO_RNG
            check_state(state, check_rng, seed=seed, deep=deep)
            if terminal:
                break
            chance = state.is_chance_node()
            action = _choose(state, rng)
            before = list(state.history)
            state.apply(action)
            if state.history != before + [action]:
                raise _fail(state, seed, "history", f"history after apply({action}) is wrong")
            if chance:
                chance_moves += 1
            else:
                moves += 1
        if check_determinism:
            again = random_playout(game, seed, max_moves)
            if again.history != state.history or again != state:
                raise _fail(
                    state, seed, "same seed, same game",
                    f"a second playout went {json.dumps(again.history)}",
                )
    except ConformanceError:
        raise
    except Exception as exc:  # noqa: BLE001 - a crash in the game is a finding
        raise _fail(
            state, seed, "no unexpected exception", f"{type(exc).__name__}: {exc}"
        ) from exc
    return CheckedGame(seed, list(state.history), moves, chance_moves, list(state.returns()))


def check_game(
    game: Game,
    n_games: int = 100,
    seed: int = 0,
    max_moves: int = 10_000,
    *,
    deep_every: int = 5,
) -> CheckReport:
    """Run the conformance checks on ``n_games`` random games (seeds ``seed .. seed+n-1``).

    Returns a :class:`CheckReport`; raises :class:`ConformanceError` on the first
    violated invariant.
    """
    if n_games < 1:
        raise ValueError("n_games must be at least 1")
    if seed < 0:
        raise ValueError("seed must be non-negative")
    start = time.perf_counter()
    check_game_metadata(game)
    report = CheckReport(game.spec(), seed)
    for i in range(n_games):
        report.add(
            play_checked_game(game, seed + i, max_moves=max_moves, deep_every=deep_every)
        )
    report.seconds = time.perf_counter() - start
    return report


__all__ = [
    "CheckReport",
    "ConformanceError",
    "CheckedGame",
    "check_game",
    "check_game_metadata",
    "check_state",
    "play_checked_game",
    "random_playout",
    "replay_command",
]
