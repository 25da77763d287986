"""What a browser sees: one seat's view, built from ``state.info_state(seat)`` only.

Every view function receives an ``InfoState`` and never the full ``State``,
so a hidden card cannot reach a browser by construction. The one exception is
:func:`final_reveal`, called only for a finished game (the rules then show
every hand and the skat), which the review also uses.

Cards are written as on ISS (``CJ``, ``ST``, Durak ``S6``); legal choices go
out as ``{"id": action, "label": text, "kind": ...}``.
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.game import TERMINAL, InfoState, PerfectInfoState, State

SKAT_GAME_NAMES = ("diamonds", "hearts", "spades", "clubs", "grand", "null")


# ----- Kalah -------------------------------------------------------------------------------
def kalah_view(info: InfoState) -> dict[str, Any]:
    assert isinstance(info, PerfectInfoState)
    st: Any = info.state
    g = st.kgame
    return {
        "pits": g.pits,
        "seeds": g.seeds,
        "empty_capture": g.empty_capture,
        "south": st.pits_of(0),
        "north": st.pits_of(1),
        "stores": [st.store(0), st.store(1)],
        "legal": [{"id": a, "label": str(a + 1), "kind": "pit"} for a in info.legal_actions()],
    }


# ----- Skat --------------------------------------------------------------------------------
def _cards(mask: int | None) -> list[str]:
    from spielwerk.games.skat.cards import DISPLAY_ORDER, card_to_string

    if not mask:
        return []
    return [card_to_string(c) for c in DISPLAY_ORDER if mask >> c & 1]


def skat_label(action: int) -> tuple[str, str]:
    """(label, kind) of a Skat action for buttons."""
    from spielwerk.games.skat import rules as R
    from spielwerk.games.skat.bidding import BID_VALUES

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


def skat_view(info: InfoState) -> dict[str, Any]:
    from spielwerk.games.skat import rules as R
    from spielwerk.games.skat.bidding import POSITION_NAMES
    from spielwerk.web.skat_extras import (
        bidding_history,
        card_points,
        deal_tricks,
        declaration_fields,
        ramsch_view,
    )

    assert isinstance(info, R.SkatInfoState)
    g = info.sgame
    d = info.declarer
    trick_seats = []
    seat = info.leader
    for _ in info.trick:
        trick_seats.append(seat)
        pos = g.positions
        seat = pos[(pos.index(seat) + 1) % 3]
    last = None
    if info.trick_history:
        leader, cards, winner = info.trick_history[-1]
        seats = []
        s = leader
        for _ in cards:
            seats.append(s)
            s = g.positions[(g.positions.index(s) + 1) % 3]
        last = {"cards": _cards_in_order(cards), "seats": seats, "winner": winner}
    legal = []
    for a in info.legal_actions():
        label, kind = skat_label(a)
        item: dict[str, Any] = {"id": a, "label": label, "kind": kind}
        fields = declaration_fields(a)
        if fields is not None:
            item["decl"] = fields
        legal.append(item)
    shown = info.declarer_hand_known()
    view: dict[str, Any] = {
        "phase": R.PHASE_NAMES[info.phase],
        "dealer": g.dealer,
        "positions": [POSITION_NAMES[g.position_of(s)] if g.position_of(s) >= 0 else "dealer"
                      for s in range(g.players)],
        "hand": _cards(info.hand),
        "hand_ids": _ids(info.hand),
        "hand_sizes": [10 - bin(info.played[s]).count("1") if s in g.positions else 0
                       for s in range(g.players)],
        "bid": info.bid,
        "declarer": d,
        "contract": str(info.contract) if info.contract is not None else None,
        "ramsch": info.is_ramsch,
        "picked_up": info.picked_up,
        "skat": _cards(info.skat) if info.skat is not None else None,
        "put": _cards(info.put) if info.put is not None else None,
        "declarer_cards": _cards(shown) if shown is not None and d != info.player else None,
        "trick": _cards_in_order(info.trick),
        "trick_seats": trick_seats,
        "last_trick": last,
        "tricks": list(info.trick_count),
        "card_points": card_points(info),
        "bidding": bidding_history(info),
        "tricks_played": deal_tricks(info),
        "legal": legal,
        "ramsch_result": ramsch_view(info),
    }
    if d >= 0 and info.player in g.positions and info.player == d and info.phase == R.PUT:
        view["puts_left"] = 2 - info.puts_done
    if info.result is not None:
        res = info.result
        view["result"] = {
            "text": res.describe(),
            "passed": res.passed,
            "won": res.won,
            "value": res.value,
            "score": res.score,
            "declarer_points": res.declarer_points,
        }
    return view


def _ids(mask: int) -> list[int]:
    from spielwerk.games.skat.cards import DISPLAY_ORDER

    return [c for c in DISPLAY_ORDER if mask >> c & 1]


def _cards_in_order(cards: Any) -> list[str]:
    from spielwerk.games.skat.cards import card_to_string

    return [card_to_string(int(c)) for c in cards]


# ----- Durak -------------------------------------------------------------------------------
def durak_view(info: InfoState) -> dict[str, Any]:
    from spielwerk.games.durak import kernel as K
    from spielwerk.games.durak.cards import card_name, mask_to_cards
    from spielwerk.games.durak.rules import DurakInfoState, action_cards, describe_action

    assert isinstance(info, DurakInfoState)
    P = info.public
    trump = int(P[K.TRUMP_SUIT])

    def names(mask: int) -> list[str]:
        cards = mask_to_cards(int(mask))
        cards.sort(key=lambda c: ((c & 3) == trump, c & 3, c >> 2))
        return [card_name(c) for c in cards]

    phase = int(P[K.PHASE])
    legal = []
    for a in info.legal_actions():
        text = describe_action(a)
        if a == K.TAKE:
            kind = "take"
        elif a == K.PASS:
            kind = "pass"
        elif a >= K.SHOW:
            kind = "show"
        elif a >= K.TRANSFER:
            kind = "transfer"
        elif a >= K.DEFEND:
            kind = "defend"
        elif a >= K.THROW:
            kind = "throw"
        else:
            kind = "lead"
        legal.append({"id": a, "label": text, "kind": kind,
                      "cards": names(action_cards(a)) if kind not in ("take", "pass", "show")
                      else ([text.split()[1]] if kind == "show" else [])})
    n = info.dgame.players
    loser = int(P[K.LOSER])
    return {
        "players": n,
        "preset": info.dgame.preset,
        "deck": info.dgame.deck,
        "hand": names(info.own_hand),
        "hand_sizes": list(info.hand_sizes),
        "known": [names(k) if q != info.player else [] for q, k in enumerate(info.known)],
        "trump_card": card_name(int(P[K.TRUMP_CARD])),
        "trump_suit": "CDHS"[trump],
        "stock": info.stock,
        "discarded": bin(int(P[K.DISCARD])).count("1"),
        "attack": names(int(P[K.ATTACK])),
        "open": names(int(P[K.OPEN])),
        "defence": names(int(P[K.DEFENCE])),
        "attacker": int(P[K.ATTACKER]),
        "defender": int(P[K.DEFENDER]),
        "phase": {K.PH_DEAL: "deal", K.PH_LEAD: "lead", K.PH_DEFEND: "defend",
                  K.PH_THROW: "throw in", K.PH_TAKE: "throw in (defender takes)",
                  K.PH_OVER: "over"}[phase],
        "loser": None if loser == K.NO_RESULT else loser,
        "legal": legal,
    }


VIEWS = {"kalah": kalah_view, "skat": skat_view, "durak": durak_view}


def seat_view(state: State, seat: int) -> dict[str, Any]:
    """The whole message body for ``seat``: common fields plus the game's own view."""
    info = state.info_state(seat)
    game = state.game
    body = VIEWS[game.name](info)
    cur = info.current_player
    body.update({
        "game": game.name,
        "spec": game.spec(),
        "seat": seat,
        "players": game.num_players,
        "to_move": cur if cur >= 0 else None,
        "over": cur == TERMINAL,
        "ply": len(state.history),
    })
    if game.name == "durak":
        from spielwerk.web.durak_pairs import bout_pairs

        body["pairs"] = bout_pairs(state)  # cards on the table only (see its test)
    if cur == TERMINAL:
        body["returns"] = state.returns()
        body["reveal"] = final_reveal(state)
    return body


def final_reveal(state: State) -> dict[str, Any] | None:
    """Everything the rules show once a game is over (every hand as dealt, the skat).

    Only for terminal states; the review and the end-of-game screen use it.
    """
    if not state.is_terminal():
        raise ValueError("final_reveal is only for finished games")
    name = state.game.name
    if name == "skat":
        st: Any = state
        return {"dealt": [_cards(m) for m in st.dealt], "skat": _cards(st.skat),
                "put": _cards(st.put) if st.picked_up else None}
    if name == "durak":
        from spielwerk.games.durak import kernel as K

        st = state
        return {"hands": [durak_names(int(st.S[K.HANDS + q]), int(st.S[K.TRUMP_SUIT]))
                          for q in range(st.dgame.players)]}
    return None


def durak_names(mask: int, trump: int) -> list[str]:
    from spielwerk.games.durak.cards import card_name, mask_to_cards

    cards = mask_to_cards(mask)
    cards.sort(key=lambda c: ((c & 3) == trump, c & 3, c >> 2))
    return [card_name(c) for c in cards]


def action_label(state: State, action: int) -> str:
    """Public label of an action just played (never a put card to others: see caller)."""
    if state.game.name == "skat":
        return skat_label(action)[0]
    if state.game.name == "kalah":
        return f"pit {action + 1}"
    return state.action_to_string(action)
