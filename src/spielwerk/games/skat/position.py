"""Skat play positions in a JSON notation, for the double-dummy solver.

A position is a play-phase moment with every hand known (see
``docs/skat-dds.md``)::

    {"game": "grand", "declarer": 0,
     "hands": [["CJ", "SA"], ["HA", "H7"], ["DA", "D7"]],
     "to_move": 1, "trick": ["SA"],
     "declarer_points": 0, "defender_points": 0,
     "declarer_tricks": 0, "defender_tricks": 0, "skat": ["D8", "D9"]}

Seats 0, 1, 2 play in that order (seat 0 follows seat 2). ``trick`` holds the
cards already on the table in play order; the skat's points count for the
declarer (not in null). :func:`parse_position` checks everything a person can
get wrong and raises :class:`PositionError` with a message that says what.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spielwerk.core.errors import SpielwerkError
from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import (
    ALL_CARDS_MASK,
    CardError,
    card_to_string,
    mask_of,
    mask_to_string,
    points_of,
    string_to_card,
)
from spielwerk.games.skat.dds import DealPosition

GAME_NAMES = {"diamonds": 0, "hearts": 1, "spades": 2, "clubs": 3, "grand": 4, "null": 5}
GAME_OF_CODE = {v: k for k, v in GAME_NAMES.items()}
_FIELDS = {
    "game", "declarer", "hands", "to_move", "trick", "declarer_points", "defender_points",
    "declarer_tricks", "defender_tricks", "skat",
}


class PositionError(SpielwerkError, ValueError):
    """A position that is not valid JSON notation or not a possible Skat position."""


@dataclass(frozen=True)
class Position:
    """A parsed position: the solver's :class:`DealPosition` plus what was written."""

    deal: DealPosition
    skat: tuple[int, ...]
    tricks_points: int
    """The declarer's card points from tricks (``declarer_points`` as written)."""

    @property
    def game_name(self) -> str:
        return GAME_OF_CODE[self.deal.game]

    def describe(self) -> str:
        d = self.deal
        lines = [f"{self.game_name}, declarer seat {d.declarer}, seat {d.to_move} to move"]
        for seat in range(3):
            lines.append(f"  seat {seat}: {mask_to_string(d.hands[seat])}")
        if d.trick:
            lines.append("  trick: " + " ".join(card_to_string(c) for c in d.trick))
        return "\n".join(lines)


def _int_field(data: dict[str, Any], name: str, default: int | None, lo: int, hi: int) -> int:
    if name not in data:
        if default is None:
            raise PositionError(f"position: missing field {name!r}")
        return default
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"position: {name!r} must be an integer, not {value!r}")
    if not lo <= value <= hi:
        raise PositionError(f"position: {name!r} must be in {lo}..{hi}, not {value}")
    return value


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise PositionError(f"position: {what} must be a list of cards like \"CJ\", not {value!r}")
    out = []
    for item in value:
        if not isinstance(item, str):
            raise PositionError(f"position: {what}: {item!r} is not a card string")
        try:
            out.append(string_to_card(item))
        except CardError as exc:
            raise PositionError(f"position: {what}: {exc}") from None
    return out


def parse_position(data: Any) -> Position:
    """Validate a decoded JSON object and build the solver's position."""
    if not isinstance(data, dict):
        raise PositionError("position: expected a JSON object")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise PositionError(f"position: unknown field(s) {', '.join(unknown)}")
    game_name = data.get("game")
    if not isinstance(game_name, str) or game_name.lower() not in GAME_NAMES:
        raise PositionError(
            f"position: 'game' must be one of {', '.join(GAME_NAMES)}, not {game_name!r}"
        )
    game = GAME_NAMES[game_name.lower()]
    declarer = _int_field(data, "declarer", None, 0, 2)
    to_move = _int_field(data, "to_move", None, 0, 2)
    hands_raw = data.get("hands")
    if not isinstance(hands_raw, list) or len(hands_raw) != 3:
        raise PositionError("position: 'hands' must be a list of three card lists (seats 0, 1, 2)")
    hands = [_cards(h, f"hand of seat {i}") for i, h in enumerate(hands_raw)]
    trick = _cards(data.get("trick", []), "trick")
    skat = _cards(data.get("skat", []), "skat")
    if len(trick) > 2:
        raise PositionError("position: at most 2 cards can be on the table (the third ends it)")
    if len(skat) not in (0, 2):
        raise PositionError(f"position: the skat has 2 cards (or leave it out), not {len(skat)}")
    seen: dict[int, str] = {}
    for where, cards in [*((f"seat {i}", h) for i, h in enumerate(hands)),
                         ("the trick", trick), ("the skat", skat)]:
        for c in cards:
            if c in seen:
                raise PositionError(
                    f"position: {card_to_string(c)} appears twice ({seen[c]} and {where})"
                )
            seen[c] = where
    leader = (to_move - len(trick)) % 3
    n = len(hands[to_move])
    if n == 0:
        raise PositionError(f"position: seat {to_move} is to move but holds no card")
    if n > 10:
        raise PositionError(f"position: seat {to_move} holds {n} cards; a hand has at most 10")
    for i in range(3):
        seat = (leader + i) % 3
        want = n - 1 if i < len(trick) else n
        if len(hands[seat]) != want:
            raise PositionError(
                f"position: seat {seat} holds {len(hands[seat])} cards but should hold {want} "
                f"(seat {to_move} to move with {n} cards, {len(trick)} on the table)"
            )
    for i in range(1, len(trick)):
        seat = (leader + i) % 3
        follow = kernel.class_mask(game, trick[0])
        if not (follow >> trick[i]) & 1 and mask_of(hands[seat]) & follow:
            raise PositionError(
                f"position: seat {seat} played {card_to_string(trick[i])} to a lead of "
                f"{card_to_string(trick[0])} but still holds "
                f"{mask_to_string(mask_of(hands[seat]) & follow)} that follows"
            )
    done = 10 - n
    declarer_tricks = _int_field(data, "declarer_tricks", 0, 0, 10)
    defender_tricks = _int_field(data, "defender_tricks", 0, 0, 10)
    if declarer_tricks + defender_tricks != done:
        raise PositionError(
            f"position: {declarer_tricks} + {defender_tricks} tricks taken, but the hands show "
            f"{done} finished tricks"
        )
    declarer_points = _int_field(data, "declarer_points", 0, 0, 120)
    defender_points = _int_field(data, "defender_points", 0, 0, 120)
    in_play = 0
    for h in hands:
        in_play |= mask_of(h)
    in_play |= mask_of(trick)
    skat_mask = mask_of(skat)
    played = ALL_CARDS_MASK & ~in_play & ~skat_mask
    taken = declarer_points + defender_points
    if skat and taken != points_of(played):
        raise PositionError(
            f"position: the cards out of play (not in a hand, the trick or the skat) are worth "
            f"{points_of(played)} points, but declarer_points + defender_points = {taken}"
        )
    if not skat and taken > points_of(played):
        raise PositionError(
            f"position: {taken} points taken, but the cards out of play are worth only "
            f"{points_of(played)}"
        )
    if done == 0 and taken:
        raise PositionError("position: no trick is finished, so no points can have been taken")
    skat_points = points_of(skat_mask) if game != kernel.NULL else 0
    deal = DealPosition(
        game=game,
        declarer=declarer,
        hands=(mask_of(hands[0]), mask_of(hands[1]), mask_of(hands[2])),
        trick=tuple(trick),
        leader=leader,
        declarer_points=declarer_points + skat_points,
        defender_points=defender_points,
        declarer_tricks=declarer_tricks,
        defender_tricks=defender_tricks,
    )
    return Position(deal, tuple(skat), declarer_points)


def load_position(path: str | Path) -> Position:
    """Read and parse a position file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PositionError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise PositionError(
            f"{p}: not a text file in UTF-8 (byte {exc.start}); a position is JSON text"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionError(f"{p}: not valid JSON: {exc}") from None
    return parse_position(data)


def position_to_json(
    deal: DealPosition, skat: tuple[int, ...] = (), tricks_points: int | None = None
) -> dict[str, Any]:
    """The JSON notation of a solver position (inverse of :func:`parse_position`)."""
    skat_points = points_of(mask_of(skat)) if deal.game != kernel.NULL else 0
    dp = deal.declarer_points - skat_points if tricks_points is None else tricks_points
    return {
        "game": GAME_OF_CODE[deal.game],
        "declarer": deal.declarer,
        "hands": [[card_to_string(c) for c in range(32) if h >> c & 1] for h in deal.hands],
        "to_move": deal.to_move,
        "trick": [card_to_string(c) for c in deal.trick],
        "declarer_points": dp,
        "defender_points": deal.defender_points,
        "declarer_tricks": deal.declarer_tricks,
        "defender_tricks": deal.defender_tricks,
        "skat": [card_to_string(c) for c in skat],
    }


def deal_from_state(state: Any) -> DealPosition:
    """The solver position of a Skat ``SkatState`` in the play phase.

    Solver seats are table positions (0 forehand, 1 middlehand, 2 rearhand),
    which is the playing order; the skat (or the two cards put) counts for the
    declarer except in null.
    """
    from spielwerk.games.skat.rules import PLAY, SkatState

    if not isinstance(state, SkatState):
        raise PositionError("deal_from_state needs a Skat state")
    if state.phase != PLAY or state.contract is None:
        raise PositionError("the double-dummy solver needs a declared game in the play phase")
    return deal_position(state, state.hands, state.put if state.picked_up else state.skat)


def deal_position(source: Any, hands: Sequence[int] | dict[int, int], skat: int
                  ) -> DealPosition:
    """The solver position of a Skat state or info state ``source`` in the play phase (its
    contract, trick, leader, tricks and points won) with the seats' ``hands`` and the cards
    in the skat (those put after a pick-up), which count for the declarer except in null."""
    g = source.sgame
    game = source.contract.game
    decl = source.declarer
    skat_points = points_of(skat) if game != kernel.NULL else 0
    defenders = [s for s in g.positions if s != decl]
    return DealPosition(
        game=game,
        declarer=g.position_of(decl),
        hands=(hands[g.seat_of(0)], hands[g.seat_of(1)], hands[g.seat_of(2)]),
        trick=tuple(source.trick),
        leader=g.position_of(source.leader),
        declarer_points=points_of(source.won[decl]) + skat_points,
        defender_points=sum(points_of(source.won[s]) for s in defenders),
        declarer_tricks=source.trick_count[decl],
        defender_tricks=sum(source.trick_count[s] for s in defenders),
    )
