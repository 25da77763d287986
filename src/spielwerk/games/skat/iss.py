"""International Skat Server (ISS) game records: parse, write, replay, compare.

A record is one line ``(;GM[Skat]...ID[..]P0[..]P1[..]P2[..]MV[...]R[...] ;)``.
``P0 P1 P2`` are forehand, middlehand, rearhand, which are seats 0, 1, 2 of
``skat(players=3,dealer=2)``. ``MV`` holds ``actor move`` pairs (actor ``w``
is the server): the deal ``w c1...c32`` (cards 1-10 to P0, 11-20 P1, 21-30
P2, 31-32 the skat), bids (numbers), ``y`` hold, ``p`` pass, ``s`` pick up
(then ``w X.Y`` shows the skat), declarations ``T[mods][.d1.d2]`` (the discard
may also come as a separate ``d1.d2`` move), card plays, ``SC`` (the
declarer shows the cards and claims the rest), ``RE`` (resigns), ``??`` (a
card the server did not record), ``w LE.n`` (player n left) and ``w TI.n``
(timeout).

Replaying maps every move onto an engine action. ISS lets a player resign or
claim out of turn; the engine is turn-based, so ``SC``/``RE`` are collected
and, as soon as a whole party has given up (the declarer, or both defenders;
a player who left or timed out gives up for their party), the replay ends the
game with the engine's own claim/resign actions. Records that stop before the
play (a player left during the bidding) replay to an unfinished state and agree
with a ``penalty`` result. A malformed or illegal record raises
:class:`IssRecordError` naming the move and the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from spielwerk.core.errors import IllegalActionError, SpielwerkError
from spielwerk.core.registry import load_game
from spielwerk.games.skat import rules
from spielwerk.games.skat.bidding import BID_VALUES
from spielwerk.games.skat.cards import CardError, card_to_string, string_to_card
from spielwerk.games.skat.rules import (
    CLAIM,
    DEAL_ORDER,
    HOLD,
    PASS,
    PICKUP,
    PLAY,
    PLAY_ON,
    RESIGN,
    RESPONSE,
    SKAT_PLACE,
    SkatGame,
    SkatState,
    bid_action,
    declaration_action,
)
from spielwerk.games.skat.scoring import DealResult, ScoringError, parse_contract


class IssRecordError(SpielwerkError, ValueError):
    """An ISS record that cannot be read or replayed (names the move and the reason)."""


_TAG_RE = re.compile(r"([A-Z][A-Z0-9]*)\[([^\]]*)\]")


@dataclass
class IssRecord:
    """The fields of one ISS record that the engine uses."""

    tags: dict[str, str]
    moves: list[tuple[str, str]]  # (actor, move)
    result: dict[str, str] = field(default_factory=dict)
    passed: bool = False
    penalty: bool = False
    line: int = 0

    @property
    def game_id(self) -> str:
        return self.tags.get("ID", "?")

    @property
    def players(self) -> list[str]:
        return [self.tags.get(f"P{i}", "") for i in range(3)]


def parse_record(text: str, line: int = 0) -> IssRecord:
    """Read one record (tags, moves and the result block)."""
    t = text.strip()
    if not t.startswith("(;") or not t.endswith(";)"):
        raise IssRecordError(f"line {line}: not an ISS record (must be '(; ... ;)')")
    tags: dict[str, str] = {}
    for key, value in _TAG_RE.findall(t):
        if key not in tags:
            tags[key] = value
    if tags.get("GM", "Skat") != "Skat":
        raise IssRecordError(f"line {line}: not a Skat record (GM[{tags.get('GM')}])")
    if "MV" not in tags:
        raise IssRecordError(f"line {line}: the record has no moves (MV[...])")
    tokens = tags["MV"].split()
    if len(tokens) % 2:
        raise IssRecordError(
            f"line {line}: moves must be 'actor move' pairs; {tokens[-1]!r} is alone"
        )
    moves = [(tokens[i], tokens[i + 1]) for i in range(0, len(tokens), 2)]
    for i, (actor, _) in enumerate(moves):
        if actor not in ("w", "0", "1", "2"):
            raise IssRecordError(f"line {line}: move {i + 1}: unknown actor {actor!r}")
    rtext = tags.get("R", "").strip()
    result: dict[str, str] = {}
    passed = rtext == "passed"
    penalty = False
    if rtext and not passed:
        for item in rtext.split():
            if ":" in item:
                k, v = item.split(":", 1)
                result[k] = v
            elif item in ("win", "loss"):
                result["outcome"] = item
            elif item in ("bidok", "overbid"):
                result["bid"] = item
            elif item == "penalty":
                penalty = True
    return IssRecord(tags, moves, result, passed, penalty, line)


def iter_record_texts(source: str | Path | TextIO) -> Iterator[tuple[int, str]]:
    """Stream ``(first line number, record text)`` from a file of any size.

    Every record in the file comes out once, readable or not: a record starts at
    ``(;`` and ends at ``;)`` (it may span lines); a new ``(;`` while one is still
    open ends the open one there (a truncated record, which :func:`parse_record`
    then reports) instead of swallowing the next record, two records on one line
    come out as two, and text outside any record comes out on its own.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            raise IssRecordError(f"{path} is a folder; give a file of ISS records")
        if not path.is_file():
            raise IssRecordError(f"no such file: {path}")
        with open(path, encoding="utf-8", errors="replace") as fh:
            yield from iter_record_texts(fh)
        return
    buf: list[str] = []
    start = 0
    for n, raw in enumerate(source, 1):
        line = raw.strip()
        if not line:
            continue
        for piece in _record_pieces(line):
            if piece.startswith("(;") and buf:
                yield start, " ".join(buf)  # the open record never ended
                buf = []
            if not buf:
                start = n
            buf.append(piece)
            if piece.endswith(";)"):
                yield start, " ".join(buf)
                buf = []
    if buf:
        yield start, " ".join(buf)  # unterminated: parse_record reports it


def holds_records(path: str | Path) -> bool:
    """Whether the file holds at least one readable record: False for a file of some other
    kind (JSON, binary, prose - also prose that quotes a record's shape, ``(;GM[Skat]...;)``,
    as the README does), which is then no ISS record file at all. Streams the file and
    stops at the first readable record."""
    for line, text in iter_record_texts(path):
        if not text.startswith("(;"):
            continue
        try:
            parse_record(text, line)
        except IssRecordError:
            continue
        return True
    return False


def _record_pieces(line: str) -> list[str]:
    """``line`` cut before every ``(;`` and after every ``;)`` (empty pieces dropped)."""
    pieces = []
    for chunk in re.split(r"(?=\(;)", line):
        for part in re.split(r"(?<=;\))", chunk):
            if part.strip():
                pieces.append(part.strip())
    return pieces


def iter_records(source: str | Path | TextIO) -> Iterator[IssRecord]:
    """Stream the parsed records of a file (or open text), one at a time."""
    for line, text in iter_record_texts(source):
        yield parse_record(text, line)


# ----- replay -----------------------------------------------------------------------------------
@dataclass
class Replay:
    """A replayed record: the engine state and how the record ended."""

    record: IssRecord
    state: SkatState
    aborted: str = ""  # why the record stops before the game ended (left, timeout)

    @property
    def result(self) -> DealResult | None:
        return self.state.result


def _is_card(token: str) -> bool:
    try:
        string_to_card(token)
    except CardError:
        return False
    return True


class _Replayer:
    def __init__(self, record: IssRecord) -> None:
        self.record = record
        game = load_game("skat(players=3,dealer=2)")
        assert isinstance(game, SkatGame)
        self.state: SkatState = game.new_initial_state()
        self.index = 0
        self.move = ("", "")
        self.pending_contract: str | None = None
        self.resigned: set[int] = set()
        self.hidden_card = False
        self.aborted = ""

    def fail(self, reason: str) -> IssRecordError:
        actor, mv = self.move
        return IssRecordError(
            f"record {self.record.game_id} (line {self.record.line}), move {self.index + 1} "
            f"'{actor} {mv}': {reason}"
        )

    def apply(self, action: int, actor: int | None = None) -> None:
        st = self.state
        if actor is not None and st.current_player != actor:
            who = st.current_player
            raise self.fail(f"it is seat {who}'s turn, not {actor}'s")
        try:
            st.apply(action)
        except IllegalActionError as exc:
            raise self.fail(exc.reason or str(exc)) from None

    def run(self) -> Replay:
        for i, (actor, mv) in enumerate(self.record.moves):
            self.index, self.move = i, (actor, mv)
            if self.state.is_terminal():
                if actor != "w" and mv in ("RE", "SC"):
                    continue  # late resignations after the end change nothing
                raise self.fail("the game is already over")
            if self.aborted:
                raise self.fail(f"moves after the game stopped ({self.aborted})")
            if actor == "w":
                self.server(mv)
            else:
                self.player(int(actor), mv)
        if self.pending_contract is not None:
            raise self.fail("declaration without the two cards put")
        return Replay(self.record, self.state, self.aborted)

    def server(self, mv: str) -> None:
        st = self.state
        parts = mv.split(".")
        if st.deal_index < 32:
            if len(parts) != 32:
                raise self.fail("the deal must list 32 cards")
            try:
                cards = [string_to_card(c) for c in parts]
            except CardError as exc:
                raise self.fail(str(exc)) from None
            if len(set(cards)) != 32:
                raise self.fail("the deal repeats a card")
            pools = {0: cards[0:10], 1: cards[10:20], 2: cards[20:30], SKAT_PLACE: cards[30:32]}
            for place in DEAL_ORDER:
                self.apply(pools[place].pop(0))
            return
        if parts[0] in ("LE", "TI") and len(parts) == 2 and parts[1] in ("0", "1", "2"):
            seat = int(parts[1])
            why = "left" if parts[0] == "LE" else "timed out"
            if st.phase in (PLAY, RESPONSE):
                party = [st.declarer] if seat == st.declarer else st.defenders()
                for s in party:
                    self.give_up(s)
                if not st.is_terminal():
                    raise self.fail(f"seat {seat} {why} but the game could not be ended")
            else:
                self.aborted = f"seat {seat} {why} before the play"
            return
        if len(parts) == 2 and all(_is_card(p) for p in parts):
            shown = {string_to_card(p) for p in parts}
            if not st.picked_up or shown != {c for c in range(32) if st.skat >> c & 1}:
                raise self.fail("the skat shown is not the skat dealt")
            return
        raise self.fail("unknown server move")

    def player(self, seat: int, mv: str) -> None:
        st = self.state
        if mv.isdigit():
            value = int(mv)
            if value not in BID_VALUES:
                raise self.fail(f"{value} is not a valid bid")
            self.apply(bid_action(value), seat)
        elif mv == "y":
            self.apply(HOLD, seat)
        elif mv == "p":
            self.apply(PASS, seat)
        elif mv == "s":
            self.apply(PICKUP, seat)
        elif mv == "SC":
            if seat != st.declarer:
                raise self.fail("only the declarer can show the cards")
        elif mv == "RE":
            self.give_up(seat)
        elif mv == "??":
            self.hidden_card = True
        elif _is_card(mv):
            if self.hidden_card:
                raise self.fail("a card after an unrecorded card (??) cannot be replayed")
            if st.phase != PLAY:
                raise self.fail("a card play outside the play")
            card = string_to_card(mv)
            if st.current_player == seat and card not in st.legal_actions():
                if not (st.hands[seat] >> card) & 1:
                    raise self.fail(f"seat {seat} does not hold {mv}")
                led = card_to_string(st.trick[0])
                raise self.fail(f"{mv} does not follow suit ({led} led); it is not legal here")
            self.apply(card, seat)
        else:
            self.declaration(seat, mv)

    def declaration(self, seat: int, mv: str) -> None:
        st = self.state
        parts = mv.split(".")
        if st.current_player != seat:
            raise self.fail(f"it is seat {st.current_player}'s turn, not {seat}'s")
        if all(_is_card(p) for p in parts):  # a separate discard
            if len(parts) != 2 or not st.picked_up:
                raise self.fail("a discard is two cards after picking up the skat")
            for p in parts:
                self.apply(string_to_card(p), seat)
            if self.pending_contract is not None:
                text, self.pending_contract = self.pending_contract, None
                self.declare(seat, text)
            return
        head, discard = parts[0], parts[1:]
        if st.picked_up:
            if discard:
                if len(discard) != 2 or not all(_is_card(p) for p in discard):
                    raise self.fail("the discard must be two cards")
                for p in discard:
                    self.apply(string_to_card(p), seat)
                self.declare(seat, head)
            elif st.phase == rules.PUT:
                self.pending_contract = head  # the discard follows as its own move
            else:
                self.declare(seat, head)
        else:
            if discard:
                raise self.fail("a hand game puts no cards")
            self.declare(seat, head)

    def declare(self, seat: int, text: str) -> None:
        try:
            contract = parse_contract(text, hand=not self.state.picked_up)
        except ScoringError as exc:
            raise self.fail(str(exc)) from None
        self.apply(declaration_action(contract), seat)

    def give_up(self, seat: int) -> None:
        st = self.state
        if st.phase not in (PLAY, RESPONSE):
            raise self.fail("resigning is possible only during the play")
        if st.is_terminal():
            return
        self.resigned.add(seat)
        d = st.declarer
        if d in self.resigned:
            if st.current_player != d:
                raise self.fail("the declarer resigned while a defender is to move")
            self.apply(RESIGN)
            return
        if all(s in self.resigned for s in st.defenders()):
            # the defenders give up: express it with the engine's turn-based actions
            if st.phase == RESPONSE:
                self.apply(PLAY_ON)
            if st.current_player == d:
                self.apply(CLAIM)
            else:
                self.apply(RESIGN)
            while not st.is_terminal():
                self.apply(RESIGN)


def replay(record: IssRecord | str) -> Replay:
    """Replay a record (or its text) through the engine; raises :class:`IssRecordError`."""
    rec = parse_record(record) if isinstance(record, str) else record
    return _Replayer(rec).run()


# ----- comparison -----------------------------------------------------------------------------
@dataclass
class Comparison:
    """Engine result vs. the server's result block."""

    record: IssRecord
    replay: Replay | None
    mismatches: list[str]
    error: str = ""

    @property
    def agree(self) -> bool:
        return not self.mismatches and not self.error


def engine_fields(rep: Replay) -> dict[str, str]:
    """The engine's result in the vocabulary of an ISS result block."""
    res = rep.result
    if rep.aborted or res is None:
        return {"penalty": "1"}
    if res.passed:
        return {"passed": "1"}
    return {
        "d": str(res.declarer),
        "outcome": "win" if res.won else "loss",
        "v": str(res.score),
        "m": str(res.matadors),
        "bid": "overbid" if res.overbid else "bidok",
        "p": str(res.declarer_points),
        "t": str(res.declarer_tricks),
        "s": str(int(res.schneider)),
        "z": str(int(res.schwarz)),
    }


COMPARED = ("d", "outcome", "v", "m", "bid", "p", "t", "s", "z")


def compare(record: IssRecord) -> Comparison:
    """Replay ``record`` and compare declarer, win/loss, value, matadors, bid ok,
    points, tricks, schneider and schwarz with the server's result."""
    try:
        rep = replay(record)
    except IssRecordError as exc:
        return Comparison(record, None, [], str(exc))
    mine = engine_fields(rep)
    mismatches: list[str] = []
    if record.passed or "passed" in mine:
        if not (record.passed and "passed" in mine):
            mismatches.append("passed in: server and engine disagree")
    elif record.penalty or "penalty" in mine:
        if not (record.penalty and "penalty" in mine):
            mismatches.append("game stopped early: server and engine disagree")
    else:
        for key in COMPARED:
            theirs = record.result.get(key)
            if theirs is None:
                mismatches.append(f"{key}: missing in the server's result")
            elif theirs != mine[key]:
                mismatches.append(f"{key}: server {theirs}, engine {mine[key]}")
    return Comparison(record, rep, mismatches)


# ----- writing ----------------------------------------------------------------------------------
def write_record(state: SkatState, game_id: str = "0", players: tuple[str, str, str] = (
        "P0", "P1", "P2"), place: str = "spielwerk") -> str:
    """An ISS record of a replayed or played deal (3-player table only).

    Seats are written as positions (P0 forehand). The engine's ``PLAY``
    (declining a claim or resignation) has no ISS move and is left out.
    """
    game = state.sgame
    if game.players != 3:
        raise IssRecordError("ISS records describe 3-player tables only")
    if state.is_ramsch:
        raise IssRecordError("ISS records have no Ramsch")
    pos_of = {game.seat_of(p): p for p in range(3)}
    if state.deal_index < 32:
        raise IssRecordError("the deal is not complete")
    chance = state.history[:32]
    hands: dict[int, list[str]] = {0: [], 1: [], 2: [], SKAT_PLACE: []}
    for where, card in zip(DEAL_ORDER, chance, strict=True):
        hands[where].append(card_to_string(card))
    moves = ["w " + ".".join(hands[0] + hands[1] + hands[2] + hands[SKAT_PLACE])]
    replay_state = game.new_initial_state()
    for a in chance:
        replay_state.apply(a)
    puts: list[str] = []
    for a in state.history[32:]:
        actor = pos_of[replay_state.current_player]
        phase = replay_state.phase
        replay_state.apply(a)
        name = rules.action_to_string(a)
        if phase == rules.PUT:
            puts.append(name)
            continue
        if a == PLAY_ON:
            continue
        if rules.DECLARE_BASE <= a < CLAIM and puts:
            name = ".".join([name, *puts])
            puts = []
        moves.append(f"{actor} {name}")
        if a == PICKUP:
            skat = [card_to_string(c) for c in range(32) if state.skat >> c & 1]
            moves.append("w " + ".".join(skat))
    tags = (
        f"(;GM[Skat]PC[{place}]ID[{game_id}]P0[{players[0]}]P1[{players[1]}]P2[{players[2]}]"
    )
    return f"{tags}MV[{' '.join(moves)} ]R[{result_block(state)}] ;)"


def result_block(state: SkatState) -> str:
    """The ``R[...]`` contents for a finished state (empty if unfinished)."""
    res = state.result
    if res is None:
        return ""
    if res.passed:
        return "passed"
    game = state.sgame
    d = game.position_of(res.declarer)
    return (
        f"d:{d} {'win' if res.won else 'loss'} v:{res.score} m:{res.matadors} "
        f"{'overbid' if res.overbid else 'bidok'} p:{res.declarer_points} "
        f"t:{res.declarer_tricks} s:{int(res.schneider)} z:{int(res.schwarz)}"
    )
