"""Game values and list scoring under the ISkO (section 5) and Seeger-Fabian.

The value of a suit or grand game is ``base x multiplier`` with base values
diamonds 9, hearts 10, spades 11, clubs 12, grand 24 (ISkO 5.1) and
multiplier = matadors + game + hand + schneider + schneider announced +
schwarz + schwarz announced + ouvert. Matadors count over the declarer's ten
cards plus the skat, in hand games too (2.4.2). Null games have fixed values:
null 23, null hand 35, null ouvert 46, null ouvert hand 59. A won game scores
its value, a lost one -2 x value.

Choices where sources disagree (documented and tested):

* **Overbid null game** - valued, like any overbid game, at the smallest
  multiple of the declared game's value that is not below the bid (ISkO 5.4.2
  applied literally; JSkat does the same for null: ``ceil(bid/23) x 23``), so a
  null game (23) declared at bid 24 is lost with value 46, scoring -92.
* **Schneider/schwarz announced but not reached** - the game is lost and valued
  at least at the announced level: both the level (schneider, schwarz) and the
  announcement count (ISkO 5.2.5; REFERENCE.md). An announced schwarz implies
  schneider announced.
* **Schneider against the declarer after an announcement** - the schneider
  level counts once; there is no "own schneider" doubling (REFERENCE.md,
  5.2.2-5.2.8): a declarer with 30 or fewer points who announced schneider
  loses with schneider + schneider announced, not twice schneider.
* Schneider and schwarz also count against a losing declarer (30 or fewer
  points, no trick); schwarz is by tricks, not by points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import (
    BASE_VALUES,
    GAME_LETTERS,
    GAME_NAMES,
    GRAND,
    LOSE_SCHNEIDER_POINTS,
    NULL,
    NULL_BASE_VALUES,
    SCHNEIDER_POINTS,
    TOTAL_POINTS,
    TRICKS,
    WIN_POINTS,
)
from spielwerk.games.skat.kernel_deal import base_value, declarer_won, game_value

__all__ = [
    "GAME_LETTERS", "GAME_NAMES", "BASE_VALUES", "NULL_VALUES", "WIN_POINTS", "SCHNEIDER_POINTS",
    "LOSE_SCHNEIDER_POINTS", "TRICKS", "ScoringError", "Contract", "parse_contract",
    "DealResult", "GameResult", "passed_in", "evaluate", "seeger_fabian", "ListEntry",
    "SeegerFabianList", "suit_game_value",
]

NULL_VALUES = {(h, o): NULL_BASE_VALUES[2 * h + o] for h in (False, True) for o in (False, True)}
"""Null game values by (hand, ouvert)."""
_declarer_won = declarer_won


class ScoringError(SpielwerkError, ValueError):
    """Inconsistent input to the scoring functions."""


@dataclass(frozen=True)
class Contract:
    """A declared game (Spielansage): type, hand (Handspiel), announcements, ouvert (offen).

    Suit and grand ouvert imply hand, schneider and schwarz announced; schwarz
    announced implies schneider announced. Announcements exist only in hand games.
    """

    game: int
    hand: bool = False
    schneider_announced: bool = False
    schwarz_announced: bool = False
    ouvert: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.game <= NULL:
            raise ScoringError(f"game type {self.game} is not 0..5 (D H S C G N)")
        if self.game == NULL:
            if self.schneider_announced or self.schwarz_announced:
                raise ScoringError("null games have no schneider or schwarz announcements")
            return
        if self.ouvert and not (self.hand and self.schneider_announced and self.schwarz_announced):
            raise ScoringError("suit and grand ouvert are hand games with schwarz announced")
        if self.schwarz_announced and not self.schneider_announced:
            raise ScoringError("schwarz announced implies schneider announced")
        if self.schneider_announced and not self.hand:
            raise ScoringError("schneider and schwarz can only be announced in hand games")

    def goal(self) -> str:
        """The double-dummy query that decides the declarer's win: ``"null"`` (no trick),
        ``"schwarz"`` (every trick), ``"90"`` (schneider announced) or ``"61"``."""
        if self.game == NULL:
            return "null"
        if self.schwarz_announced:
            return "schwarz"
        if self.schneider_announced:
            return str(SCHNEIDER_POINTS)
        return str(WIN_POINTS)

    def is_won(self, declarer_points: int, declarer_tricks: int) -> bool:
        """Did the declarer reach :meth:`goal` with these final card points (skat
        included) and tricks? (Overbidding and conceding are :func:`evaluate`'s.)"""
        return _declarer_won(
            self.game, self.schneider_announced, self.schwarz_announced, declarer_points,
            declarer_tricks,
        )

    @property
    def base_value(self) -> int:
        return base_value(self.game, self.hand, self.ouvert)

    def iss(self) -> str:
        """ISS notation: type letter then H (hand), S, Z, O as they apply (``CHZ``, ``GO``)."""
        text = GAME_LETTERS[self.game]
        if self.game == NULL:
            return text + ("O" if self.ouvert else "") + ("H" if self.hand else "")
        if self.ouvert:
            return text + "O"
        if self.hand:
            text += "H"
        if self.schwarz_announced:
            return text + "Z"
        if self.schneider_announced:
            return text + "S"
        return text

    def __str__(self) -> str:
        words = [GAME_NAMES[self.game]]
        if self.hand:
            words.append("hand")
        if self.game != NULL and self.schwarz_announced and not self.ouvert:
            words.append("schwarz announced")
        elif self.game != NULL and self.schneider_announced and not self.ouvert:
            words.append("schneider announced")
        if self.ouvert:
            words.append("ouvert")
        return " ".join(words)


def parse_contract(text: str, hand: bool | None = None) -> Contract:
    """Read an ISS declaration (``D``, ``CHZ``, ``GO``, ``NOH``).

    ``hand`` forces hand/pick-up when known from context (ISS: a declaration
    without a preceding ``s`` is a hand game).
    """
    t = text.strip().upper()
    if not t or t[0] not in GAME_LETTERS:
        raise ScoringError(f"{text!r} is not a declaration (D H S C G N then H O S Z)")
    game = GAME_LETTERS.index(t[0])
    mods = set(t[1:])
    if not mods <= set("HOSZ") or len(mods) != len(t) - 1:
        raise ScoringError(f"{text!r}: modifiers are H (hand), O (ouvert), S, Z, each once")
    ouvert = "O" in mods
    is_hand = "H" in mods or (ouvert and game != NULL)
    if hand is not None:
        if "H" in mods and not hand:
            raise ScoringError(f"{text!r} is a hand game but the skat was picked up")
        if hand is False and ouvert and game != NULL:
            raise ScoringError(f"{text!r}: suit and grand ouvert need a hand game")
        is_hand = hand or is_hand
    if game == NULL:
        if "S" in mods or "Z" in mods:
            raise ScoringError(f"{text!r}: null has no schneider or schwarz")
        return Contract(NULL, hand=is_hand, ouvert=ouvert)
    schwarz = "Z" in mods or ouvert
    schneider = "S" in mods or schwarz
    return Contract(game, is_hand, schneider, schwarz, ouvert)


@dataclass(frozen=True)
class DealResult:
    """The outcome of one deal, with the fields of an ISS result block."""

    declarer: int  # seat, -1 when passed in
    contract: Contract | None
    bid: int
    won: bool
    value: int  # positive game value (for overbid games: the raised value)
    matadors: int  # +n "with n", -n "without n", 0 in null
    declarer_points: int
    declarer_tricks: int
    schneider: bool
    schwarz: bool
    overbid: bool
    conceded: bool = False

    @property
    def passed(self) -> bool:
        return self.declarer < 0

    @property
    def score(self) -> int:
        """Points for the declarer's list: value if won, -2 x value if lost, 0 passed in."""
        if self.passed:
            return 0
        return self.value if self.won else -2 * self.value

    def describe(self) -> str:
        if self.passed:
            return "passed in"
        assert self.contract is not None
        status = "won" if self.won else "lost"
        extra = " (overbid)" if self.overbid else ""
        return (
            f"{self.contract} {status}{extra}: value {self.value}, score {self.score}, "
            f"declarer {self.declarer_points} points in {self.declarer_tricks} tricks"
        )


GameResult = DealResult
"""The old name of :class:`DealResult` (kept for old imports; the arena's GameResult is another)."""


def _deal_result(
    declarer: int, contract: Contract | None, bid: int, won: bool, value: int, matadors: int,
    declarer_points: int, declarer_tricks: int, schneider: bool, schwarz: bool, overbid: bool,
    conceded: bool,
) -> DealResult:
    """``DealResult(...)`` without the frozen dataclass's per-field ``object.__setattr__``
    (the last action of every random game pays it; the values are taken as they are)."""
    result = object.__new__(DealResult)
    object.__setattr__(result, "__dict__", {
        "declarer": declarer, "contract": contract, "bid": bid, "won": won, "value": value,
        "matadors": matadors, "declarer_points": declarer_points,
        "declarer_tricks": declarer_tricks, "schneider": schneider, "schwarz": schwarz,
        "overbid": overbid, "conceded": conceded,
    })
    return result


_PASSED_IN = DealResult(-1, None, 0, False, 0, 0, 0, 0, False, False, False)


def passed_in() -> DealResult:
    """The result of a deal that all passed (one shared value: a DealResult is frozen)."""
    return _PASSED_IN


def evaluate(
    contract: Contract,
    bid: int,
    matadors: int,
    declarer_points: int,
    declarer_tricks: int,
    declarer: int = 0,
    declarer_conceded: bool = False,
) -> DealResult:
    """Win/loss and value of a finished game (ISkO 5.2-5.4).

    ``declarer_points`` include the skat; ``declarer_tricks`` is 0..10;
    ``declarer_conceded`` marks a declarer who gave up (the game is lost).
    """
    if not 0 <= declarer_points <= TOTAL_POINTS or not 0 <= declarer_tricks <= TRICKS:
        raise ScoringError("declarer points must be 0..120 and tricks 0..10")
    game = contract.game
    if game == NULL:
        matadors = 0
    elif matadors == 0 or abs(matadors) > (4 if game == GRAND else 11):
        raise ScoringError(f"{matadors} matadors are impossible in {GAME_NAMES[game]}")
    return evaluate_valid(
        contract, bid, matadors, declarer_points, declarer_tricks, declarer, declarer_conceded
    )


def evaluate_valid(
    contract: Contract, bid: int, matadors: int, declarer_points: int, declarer_tricks: int,
    declarer: int, declarer_conceded: bool,
) -> DealResult:
    """:func:`evaluate` of arguments known to be valid (the State's end of play, where the
    checks cannot fail): no range checks; ``matadors`` already 0 in null."""
    return result_from(declarer, contract, value_args(
        contract, bid, matadors, declarer_points, declarer_tricks, declarer_conceded
    ))


ValueArgs = tuple[int, bool, bool, bool, bool, int, int, int, int, bool]
"""The arguments of :func:`kernel_deal.game_value`, as :func:`value_args` gives them."""


def value_args(
    contract: Contract, bid: int, matadors: int, declarer_points: int, declarer_tricks: int,
    declarer_conceded: bool,
) -> ValueArgs:
    """:func:`kernel_deal.game_value`'s arguments for a finished game of ``contract``
    (the State keeps them and asks for the full :class:`DealResult` only when it is read)."""
    return (contract.game, contract.hand, contract.schneider_announced,
            contract.schwarz_announced, contract.ouvert, bid, matadors, declarer_points,
            declarer_tricks, declarer_conceded)


def result_from(declarer: int, contract: Contract, args: ValueArgs) -> DealResult:
    """The :class:`DealResult` of :func:`value_args`' ``args``."""
    won, value, schneider, schwarz, overbid = game_value(*args)
    return _deal_result(
        declarer, contract, args[5], won, value, args[6], args[7], args[8], schneider, schwarz,
        overbid, args[9],
    )


def seeger_fabian(result: DealResult, seats: int, declarer_seat: int | None = None) -> list[int]:
    """Seeger-Fabian points of one game for every seat at a table of ``seats`` (3 or 4).

    Declarer: +value+50 when won, -2 x value - 50 when lost; when the declarer
    loses every other seat at the table (the dealer of a 4-table included) gets
    +40 (3 seats) or +30 (4 seats). Passed-in games score 0.
    """
    if seats not in (3, 4):
        raise ScoringError("a Skat list has 3 or 4 players")
    out = [0] * seats
    if result.passed:
        return out
    seat = result.declarer if declarer_seat is None else declarer_seat
    if not 0 <= seat < seats:
        raise ScoringError(f"declarer seat {seat} is not at a table of {seats}")
    if result.won:
        out[seat] = result.value + 50
    else:
        out[seat] = -2 * result.value - 50
        bonus = 40 if seats == 3 else 30
        for s in range(seats):
            if s != seat:
                out[s] = bonus
    return out


@dataclass
class ListEntry:
    """One line of a Seeger-Fabian list."""

    game_number: int
    dealer: int
    result: DealResult
    points: list[int]


@dataclass
class SeegerFabianList:
    """A Skat list (Spielliste) of 36 games (3 players) or 48 games (4 players).

    The dealer rotates clockwise; ``dealer_for(i)`` gives the dealer of game
    ``i`` (0-based) when the list starts with ``first_dealer``.
    """

    players: int = 3
    first_dealer: int = 0
    entries: list[ListEntry] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.players not in (3, 4):
            raise ScoringError("a Skat list has 3 or 4 players")

    @property
    def length(self) -> int:
        return 36 if self.players == 3 else 48

    def dealer_for(self, game_index: int) -> int:
        return (self.first_dealer + game_index) % self.players

    @property
    def complete(self) -> bool:
        return len(self.entries) >= self.length

    def record(self, result: DealResult) -> ListEntry:
        """Add the next game (declarer as a seat at this table)."""
        if self.complete:
            raise ScoringError(f"the list is complete ({self.length} games)")
        entry = ListEntry(
            len(self.entries) + 1, self.dealer_for(len(self.entries)), result,
            seeger_fabian(result, self.players),
        )
        self.entries.append(entry)
        return entry

    def totals(self) -> list[int]:
        return [sum(e.points[s] for e in self.entries) for s in range(self.players)]

    def won(self) -> list[int]:
        return [
            sum(1 for e in self.entries if e.result.declarer == s and e.result.won)
            for s in range(self.players)
        ]

    def lost(self) -> list[int]:
        return [
            sum(1 for e in self.entries if e.result.declarer == s and not e.result.won)
            for s in range(self.players)
        ]

    def standings(self) -> list[int]:
        """Seats from first to last: total, then more won games, then fewer lost games."""
        t, w, lo = self.totals(), self.won(), self.lost()
        return sorted(range(self.players), key=lambda s: (-t[s], -w[s], lo[s], s))


def suit_game_value(cards: int, game: int, hand: bool = False, schneider: bool = False,
                    schwarz: bool = False, ouvert: bool = False) -> int:
    """Value of a won suit/grand game with the matadors of ``cards``, schneider etc. reached
    and announced as given (announcing schwarz implies schneider)."""
    m = abs(int(kernel.matadors(cards, game)))
    mult = m + 1 + int(hand) + 2 * int(schneider or schwarz) + 2 * int(schwarz) + int(ouvert)
    return BASE_VALUES[game] * mult
