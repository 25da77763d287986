"""Shared test fixtures: hypothesis settings, Kalah games and a toy imperfect-information game.

The toy game ("toy high card": a chance deal of two distinct cards, then
check/bet and fold/call) exercises the parts of the game API that Kalah does
not: chance nodes with unequal probabilities, hidden information and
``sample_world``. Its ``bug`` parameter switches on one deliberate defect at
a time so tests can show that the conformance harness catches it. Toy games
are registered only inside a test (``register_temporary_game``) and removed
afterwards, so they never leak into ``list_games()`` for other tests.
"""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import tempfile
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings


def _private_cache() -> None:
    """The suite gets its own cache folder (``$SPIELWERK_CACHE_DIR``), removed at the end:
    a test that takes the default folder must not read what the user built there (a
    Kalah endgame database of many GB loads for every solve) nor write into it. The
    compiled kernels stay where they were (``$NUMBA_CACHE_DIR`` fixed to that folder
    first), so a run of the tests reuses them. Set before any game module is imported
    (``spielwerk._jit`` loads no numba) and inherited by the commands the tests start."""
    from spielwerk import _jit

    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = str(_jit.kernel_folder())
    folder = tempfile.mkdtemp(prefix="spielwerk-tests-")
    os.environ["SPIELWERK_CACHE_DIR"] = folder
    atexit.register(shutil.rmtree, folder, True)


_private_cache()

import spielwerk  # noqa: E402, F401  (registers the built-in games)
from spielwerk.core import registry  # noqa: E402
from spielwerk.core.game import CHANCE, TERMINAL, Game, GameType, InfoState, State  # noqa: E402

# numba compiles on first use, which can take longer than hypothesis's default deadline.
settings.register_profile(
    "spielwerk", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("spielwerk")


def pytest_configure(config: pytest.Config) -> None:
    """A suite started as a shell's background job (``make test &``) inherits SIGINT
    ignored, and so would every command a test starts: the tests of Ctrl-C would see
    none. The suite takes Python's own handler, as under a terminal; children then start
    with SIGINT at its default."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-huge", action="store_true", default=False,
                     help="also run the tests marked huge (many GB of memory, minutes each)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-huge"):
        return
    skip = pytest.mark.skip(reason="huge: needs several GB and minutes; run with --run-huge")
    for item in items:
        if "huge" in item.keywords:
            item.add_marker(skip)

@pytest.fixture(autouse=True)
def _sigint_handler_kept() -> Iterator[None]:
    """A command run in-process that was interrupted ignores further Ctrl-Cs (its process
    ends); the test process gets its own handler back."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    yield
    if signal.getsignal(signal.SIGINT) is not before and before is not None:
        signal.signal(signal.SIGINT, before)


_UNSEEDED = random.Random()  # the "unseeded" bug: a random choice without a seed

TOY_BUGS = {
    # bug name -> the invariant check_game must report
    "chance_sum": "chance outcomes",
    "unsorted": "legal actions",
    "utility_range": "returns",
    "utility_sum": "returns",
    "early_returns": "returns",
    "shared_clone": "clone independence",
    "mutating_illegal": "illegal action leaves the state unchanged",
    "leaky_world": "sample_world",
    "info_legal": "info state",
    "unseeded": "same seed, same game",
    "endless": "termination",
    "same_names": "action notation",
    "replay": "JSON round trip",
    "crash": "no unexpected exception",
    "bad_spec": "load_game(game.spec()) round trip",
}


class ToyGame(Game):
    """Toy high card: cards 0..n-1 dealt to two players, bet or check, fold or call."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.cards = int(params["cards"])
        self.bug = str(params["bug"])
        self._type = GameType(
            short_name="toy_highcard",
            long_name="toy high card",
            num_players=2,
            chance=True,
            perfect_information=False,
            zero_sum=True,
            min_utility=-2.0,
            max_utility=2.0,
            utility_sum=0.0,
        )

    @property
    def game_type(self) -> GameType:
        return self._type

    def spec(self) -> str:
        params = dict(self.params)
        if self.bug == "bad_spec":
            params.pop("bug")
        inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
        return f"{self.name}({inner})"

    def new_initial_state(self) -> ToyState:
        return ToyState(self)

    def deserialize_state(self, text: str) -> State:
        if self.bug == "replay":  # forgets the last action of the record
            record = json.loads(text)
            record["history"] = record["history"][:-1]
            text = json.dumps(record)
        return super().deserialize_state(text)


class ToyState(State):
    """Dealt cards and the betting actions so far."""

    def __init__(self, game: ToyGame) -> None:
        super().__init__(game)
        self.toy = game
        self.cards: list[int] = []
        self.actions: list[int] = []
        self.touched = 0

    @property
    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if self.toy.bug == "endless":
            return len(self.actions) % 2
        if not self.actions:
            return 0
        if self.actions == [1]:
            return 1
        return TERMINAL

    def chance_outcomes(self) -> list[tuple[int, float]]:
        free = [c for c in range(self.toy.cards) if c not in self.cards]
        if not self.cards:  # first card: unequal probabilities, card c with weight c + 1
            weights = [float(c + 1) for c in free]
        else:
            weights = [1.0] * len(free)
        if self.toy.bug == "unseeded":
            weights = [w * (0.5 + _UNSEEDED.random()) for w in weights]
        total = sum(weights)
        probs = [w / total for w in weights]
        if self.toy.bug == "chance_sum":
            probs = [p * 0.9 for p in probs]
        return list(zip(free, probs, strict=True))

    def _legal_actions(self) -> list[int]:
        return [1, 0] if self.toy.bug == "unsorted" else [0, 1]

    def apply(self, action: int) -> None:
        if self.toy.bug == "mutating_illegal":
            self.touched += 1
        super().apply(action)

    def _apply_action(self, action: int) -> None:
        if len(self.cards) < 2:
            self.cards.append(action)
            return
        if self.toy.bug == "crash" and self.actions == [1] and action == 1:
            raise ZeroDivisionError("pot split by zero")
        self.actions.append(action)

    def _clone(self) -> ToyState:
        copy = ToyState(self.toy)
        copy.cards = self.cards if self.toy.bug == "shared_clone" else list(self.cards)
        copy.actions = self.actions if self.toy.bug == "shared_clone" else list(self.actions)
        copy.touched = self.touched
        return copy

    def returns(self) -> list[float]:
        if self.current_player != TERMINAL:
            return [0.5, -0.5] if self.toy.bug == "early_returns" and self.actions else [0.0, 0.0]
        if self.actions == [1, 0]:
            win = 1.0
        else:
            stake = 2.0 if self.actions == [1, 1] else 1.0
            if self.toy.bug == "utility_range":
                stake *= 2
            win = stake if self.cards[0] > self.cards[1] else -stake
        if self.toy.bug == "utility_sum":
            return [win, 0.0]
        return [win, -win]

    def fingerprint(self) -> Hashable:
        return (tuple(self.cards), tuple(self.actions), self.touched)

    def action_to_string(self, action: int) -> str:
        if self.toy.bug == "same_names":
            return "x"
        if len(self.cards) < 2:
            return f"card{action}"
        if self.current_player == 0:
            return ("check", "bet")[action]
        return ("fold", "call")[action]

    def info_state(self, player: int) -> ToyInfoState:
        return ToyInfoState(self, player)


class ToyInfoState(InfoState):
    """Own card (once dealt), how many cards are dealt, and the public actions."""

    def __init__(self, state: ToyState, player: int) -> None:
        super().__init__(state.game, player)
        self.toy = state.toy
        self.own = state.cards[player] if len(state.cards) > player else None
        self.dealt = len(state.cards)
        self.actions = tuple(state.actions)
        self._to_move = state.current_player
        self._legal = state.legal_actions() if self._to_move not in (CHANCE, TERMINAL) else []

    @property
    def current_player(self) -> int:
        return self._to_move

    def legal_actions(self) -> list[int]:
        if self._to_move != self.player and self.toy.bug != "info_legal":
            return []
        return list(self._legal)

    def sample_world(self, rng: np.random.Generator) -> State:
        world = ToyState(self.toy)
        free = [c for c in range(self.toy.cards) if c != self.own]
        for seat in range(self.dealt):
            if seat == self.player and self.toy.bug != "leaky_world":
                card = self.own
            else:
                card = free.pop(int(rng.integers(len(free))))
            assert card is not None
            world.apply(card)
        for action in self.actions:
            world.apply(action)
        return world

    def fingerprint(self) -> Hashable:
        return (self.own, self.dealt, self.actions, self._to_move)

    def action_to_string(self, action: int) -> str:
        if self._to_move == 0:
            return ("check", "bet")[action]
        return ("fold", "call")[action]


def make_toy(params: dict[str, Any]) -> ToyGame:
    return ToyGame(params)


TOY_DEFAULTS: dict[str, Any] = {"cards": 3, "bug": "none"}


@pytest.fixture
def register_temporary_game() -> Iterator[Callable[..., None]]:
    """Register games for one test only; they are removed from the registry afterwards."""
    added: list[str] = []

    def register(
        name: str, factory: Callable[[dict[str, Any]], Game], defaults: dict[str, Any]
    ) -> None:
        registry.register_game(name, factory, defaults, f"test-only game {name}")
        added.append(name)

    yield register
    for name in added:
        registry._GAMES.pop(name, None)


@pytest.fixture
def toy_game(register_temporary_game: Callable[..., None]) -> Callable[..., ToyGame]:
    """``toy_game(bug="...")``: a registered toy high-card game (loadable by its spec)."""
    register_temporary_game("toy_highcard", make_toy, TOY_DEFAULTS)

    def build(**params: Any) -> ToyGame:
        game = registry.load_game("toy_highcard", **params)
        assert isinstance(game, ToyGame)
        return game

    return build


@pytest.fixture()
def app(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A web app on a fresh store, no engine workers, tables abandoned after 0.2 s (a test
    file may define its own)."""
    from spielwerk.web.app import create_app

    return create_app(tmp_path / "t.sqlite3", workers=0, abandon_s=0.2)


@pytest.fixture()
def client(app):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright, one per test module (the browser tests import
    ``test_web_browser``, which skips them where chromium is missing)."""
    from playwright.sync_api import sync_playwright

    from test_web_browser import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
