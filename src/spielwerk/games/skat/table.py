"""Skat at the web table: a seat's view, action labels, the list of a series, the end
of a deal, ISS records and the double-dummy review.

The view is built from the seat's ``SkatInfoState`` only (:mod:`table_extras` adds the
bidding, the tricks, the card points and the Ramsch result). Cards are written as on
ISS (``CJ``, ``ST``); legal choices go out as ``{"id", "label", "kind"}``.
"""

from __future__ import annotations

import io
from typing import Any

from spielwerk.core.record_format import RecordFormatError
from spielwerk.core.registry import load_game
from spielwerk.games.skat import iss
from spielwerk.games.skat import rules as R
from spielwerk.games.skat.bidding import BID_VALUES, POSITION_NAMES
from spielwerk.games.skat.cards import DISPLAY_ORDER, GRAND, NULL, card_to_string
from spielwerk.games.skat.scoring import seeger_fabian
from spielwerk.games.skat.table_extras import (
    bidding_history,
    card_points,
    deal_tricks,
    declaration_fields,
    ramsch_view,
)


def cards(mask: int | None) -> list[str]:
    """The cards of ``mask`` in display order (jacks, then suits)."""
    if not mask:
        return []
    return [card_to_string(c) for c in DISPLAY_ORDER if mask >> c & 1]


def _ids(mask: int) -> list[int]:
    return [c for c in DISPLAY_ORDER if mask >> c & 1]


def _in_order(played: Any) -> list[str]:
    return [card_to_string(int(c)) for c in played]


def label(action: int) -> tuple[str, str]:
    """(label, kind) of a Skat action for buttons."""
    a = int(action)
    if a < 32:
        return R.action_to_string(a), "card"
    if R.BID_BASE <= a < R.HOLD:
        return str(BID_VALUES[a - R.BID_BASE]), "bid"
    if a == R.HOLD:
        return "hold (yes)", "answer"
    if a == R.PASS:
        return "pass", "answer"
    if a == R.PICKUP:
        return "pick up the skat", "skat"
    if R.DECLARE_BASE <= a < R.CLAIM:
        c = R.DECLARATIONS[a - R.DECLARE_BASE]
        return str(c), "declare"
    if a == R.CLAIM:
        return "claim the rest", "claim"
    if a == R.RESIGN:
        return "give up", "resign"
    return "play on", "claim"


def _seats_from(g: Any, leader: int, count: int) -> list[int]:
    seats, s = [], leader
    for _ in range(count):
        seats.append(s)
        s = g.positions[(g.positions.index(s) + 1) % 3]
    return seats


def _legal(info: R.SkatInfoState) -> list[dict[str, Any]]:
    legal = []
    for a in info.legal_actions():
        text, kind = label(a)
        item: dict[str, Any] = {"id": a, "label": text, "kind": kind}
        fields = declaration_fields(a)
        if fields is not None:
            item["decl"] = fields
        legal.append(item)
    return legal


PUBLIC_FIELDS = ("phase", "dealer", "positions", "hand_sizes", "bid", "declarer", "contract",
                 "ramsch", "picked_up", "declarer_cards", "trick", "trick_seats", "last_trick",
                 "tricks", "bidding", "tricks_played", "result", "ramsch_result")
"""The fields of a seat's view that every player sees (a spectator's view keeps these)."""


def view(info: R.SkatInfoState) -> dict[str, Any]:
    """The Skat fields of a seat's table view."""
    g = info.sgame
    d = info.declarer
    last = None
    if info.trick_history:
        leader, played, winner = info.trick_history[-1]
        last = {"cards": _in_order(played), "seats": _seats_from(g, leader, len(played)),
                "winner": winner}
    shown = info.declarer_hand_known()
    out: dict[str, Any] = {
        "phase": R.PHASE_NAMES[info.phase],
        "dealer": g.dealer,
        "positions": [POSITION_NAMES[g.position_of(s)] if g.position_of(s) >= 0 else "dealer"
                      for s in range(g.players)],
        "hand": cards(info.hand),
        "hand_ids": _ids(info.hand),
        "hand_sizes": [10 - bin(info.played[s]).count("1") if s in g.positions else 0
                       for s in range(g.players)],
        "bid": info.bid,
        "declarer": d,
        "contract": str(info.contract) if info.contract is not None else None,
        "ramsch": info.is_ramsch,
        "picked_up": info.picked_up,
        "skat": cards(info.skat) if info.skat is not None else None,
        "put": cards(info.put) if info.put is not None else None,
        "declarer_cards": cards(shown) if shown is not None and d != info.player else None,
        "trick": _in_order(info.trick),
        "trick_seats": _seats_from(g, info.leader, len(info.trick)),
        "last_trick": last,
        "tricks": list(info.trick_count),
        "card_points": card_points(info),
        "bidding": bidding_history(info),
        "tricks_played": deal_tricks(info),
        "legal": _legal(info),
        "ramsch_result": ramsch_view(info),
    }
    if d >= 0 and info.player in g.positions and info.player == d and info.phase == R.PUT:
        out["puts_left"] = 2 - info.puts_done
    if info.result is not None:
        res = info.result
        out["result"] = {
            "text": res.describe(),
            "passed": res.passed,
            "won": res.won,
            "value": res.value,
            "score": res.score,
            "declarer_points": res.declarer_points,
        }
    return out


def reveal(st: Any) -> dict[str, Any]:
    """Every hand as dealt, the skat and the two cards put (a finished deal)."""
    return {"dealt": [cards(m) for m in st.dealt], "skat": cards(st.skat),
            "put": cards(st.put) if st.picked_up else None}


def series_entry(st: Any) -> dict[str, Any] | None:
    """The list entry of a finished deal: declarer, game, value, won, and each seat's list
    points - Seeger-Fabian for a declared game, the rules' zero-sum Ramsch returns for a
    Ramsch (the most card points lose them)."""
    if st.ramsch_result is not None:
        rr = st.ramsch_result
        sf = [0.0] * st.sgame.players
        for s, v in rr.returns.items():
            sf[s] = float(v)
        return {"declarer": -1, "game": "Ramsch",
                "value": max(-v for v in sf), "won": None, "text": rr.describe(),
                "score": 0, "sf": [int(v) if float(v).is_integer() else v for v in sf],
                "losers": list(rr.losers)}
    if st.result is not None:
        res = st.result
        return {"declarer": res.declarer,
                "game": str(res.contract) if res.contract is not None else "passed in",
                "value": res.value if not res.passed else 0,
                "won": None if res.passed else bool(res.won), "bid": res.bid,
                "text": res.describe(), "score": res.score,
                "sf": seeger_fabian(res, st.sgame.players)}
    return None


def game_type(contract: Any) -> str:
    """A declared game's type for a person's record: suit, grand or null, then hand and
    ouvert as they apply ("grand hand", "null ouvert hand")."""
    words = ["null" if contract.game == NULL else "grand" if contract.game == GRAND
             else "suit"]
    if contract.ouvert:
        words.append("ouvert")
    if contract.hand and not (contract.ouvert and contract.game != NULL):
        words.append("hand")
    return " ".join(words)


def record_row(st: Any, seat: int) -> dict[str, Any]:
    """A finished deal in the record of ``seat``: its Seeger-Fabian list points; won as
    the declarer who won or a defender of a lost game, lost otherwise; a Ramsch lost by its
    losers (won by the others); a deal passed in drawn."""
    entry = series_entry(st)
    if entry is None:
        raise ValueError("the deal is not over")
    score = entry["sf"][seat]
    if entry["declarer"] < 0:
        losers = entry.get("losers")
        if losers is None:  # passed in
            return {"result": "drawn", "score": score, "declared": None}
        return {"result": "lost" if seat in losers else "won", "score": score,
                "declared": None}
    declarer = entry["declarer"] == seat
    won = entry["won"] == declarer
    return {"result": "won" if won else "lost", "score": score,
            "declared": game_type(st.result.contract) if declarer else None}


def named_summary(st: Any, names: list[str]) -> str:
    """The finished deal in one line, the players named: who declared which game and how it
    went, who lost a Ramsch with each player's card points."""
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    if st.ramsch_result is not None:
        rr = st.ramsch_result
        if rr.durchmarsch >= 0:
            return f"Ramsch: {name(rr.durchmarsch)} took every trick (Durchmarsch, +120)"
        pts = ", ".join(f"{name(s)} {p}" for s, p in sorted(rr.points.items()))
        who = " and ".join(name(s) for s in rr.losers)
        return (f"Ramsch ({pts}): {who} lose{'s' if len(rr.losers) == 1 else ''}"
                + (" (Jungfrau: doubled)" if rr.jungfrau else ""))
    if st.result is None:
        return "over"
    text = str(st.result.describe())
    return text if st.result.passed else f"{name(st.result.declarer)}: {text}"


def iss_name(name: str, fallback: str) -> str:
    """A player's name as an ISS record holds it (no spaces or brackets): each run of other
    characters becomes one ``-`` ("knn (1)" -> "knn-1", "Anna Maria" -> "Anna-Maria")."""
    out = "".join(ch if ch.isalnum() or ch in "-_." else " " for ch in name)
    return "-".join(out.split()) or fallback


def write_iss(state: Any, players: list[str], game_id: str) -> str:
    """The finished deal as an ISS record line, players named by position."""
    pos_names = []
    for p in range(3):
        seat = state.sgame.seat_of(p)
        name = str(players[seat]) if seat < len(players) else ""
        pos_names.append(iss_name(name, f"P{p}"))
    return iss.write_record(state, game_id=game_id,
                            players=(pos_names[0], pos_names[1], pos_names[2]))


def read_iss(text: str) -> tuple[Any, list[str]] | None:
    """The deal of the first ISS record in ``text`` and notes for the person (a stated
    result the moves contradict, more than one record); None: no ISS record."""
    records = list(iss.iter_records(io.StringIO(text)))
    if not records:
        return None
    cmp = iss.compare(records[0])
    if cmp.replay is None:
        raise RecordFormatError(cmp.error.splitlines()[0])
    notes = []
    # fields the record states and the replay contradicts (a record without a result
    # block states nothing)
    stated = [m.replace("server ", "record ").replace("engine ", "replay ")
              for m in cmp.mismatches if "missing in the server's result" not in m]
    if stated:
        notes.append("the record's stated result disagrees with the replayed game ("
                     + "; ".join(stated) + ")")
    if len(records) > 1:
        notes.append(f"the file holds {len(records)} records; only the first is shown")
    return cmp.replay.state, notes


def review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Double-dummy verdict per card (as ``spielwerk skat analyze``), keyed by ply."""
    from spielwerk.games.skat.analysis import analyze_state_history

    final: Any = load_game(spec).new_initial_state()
    for a in history:
        final.apply(int(a))
    items = analyze_state_history(final)
    # map the i-th played card to its ply in the history
    plies = []
    probe: Any = load_game(spec).new_initial_state()
    for i, a in enumerate(history):
        if probe.phase == R.PLAY and a < 32:
            plies.append(i)
        probe.apply(a)
    out = []
    for ply, it in zip(plies, items, strict=False):
        out.append({
            "ply": ply, "card": card_to_string(it.card), "trick": it.trick,
            "declarer_side": it.declarer_side, "value_before": it.value_before,
            "value_after": it.value_after, "win_before": it.win_before,
            "win_after": it.win_after, "mistake": it.mistake, "decisive": it.decisive,
            "better": [card_to_string(c) for c in it.better],
        })
    return out
