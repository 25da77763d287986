"""The Skat table's extra views, each from one seat's ``SkatInfoState`` only.

The bidding history (who said what, from the public action log), the tricks of
the deal so far (public: every played card), the card points as the seat may
count them (the skat is added for the declarer once it is known to the seat or
once the deal is over), the Ramsch result (the deal is played in the open, so
the points are public) and the declarations as a game selector's fields.
"""

from __future__ import annotations

from typing import Any

from spielwerk.games.skat import kernel
from spielwerk.games.skat import rules as R
from spielwerk.games.skat.bidding import BID_VALUES, Auction
from spielwerk.games.skat.cards import card_to_string
from spielwerk.games.skat.ramsch import ramsch_result

GAME_KEYS = ("diamonds", "hearts", "spades", "clubs", "grand", "null")


def _next_seat(g: Any, seat: int) -> int:
    pos = g.positions
    return int(pos[(pos.index(seat) + 1) % 3])


def bidding_history(info: R.SkatInfoState) -> list[dict[str, Any]]:
    """Every bidding move in order: ``{"seat", "position", "say"}`` with ``say`` a bid
    value, ``"yes"`` (hold) or ``"pass"``. Replayed from the public log with the auction
    rules, so the seat of each move is the rules' own."""
    g = info.sgame
    auction = Auction()
    out: list[dict[str, Any]] = []
    for action in info.public:
        if auction.done:
            break
        if not R.BID_BASE <= action <= R.PASS:
            continue  # a hidden put (-1) or a later action cannot come before the end
        pos = auction.to_move()
        if not auction.move(action - R.BID_BASE):
            break
        say = ("yes" if action == R.HOLD else "pass" if action == R.PASS
               else str(BID_VALUES[action - R.BID_BASE]))
        out.append({"seat": int(g.seat_of(pos)), "position": pos, "say": say})
    return out


def deal_tricks(info: R.SkatInfoState) -> list[dict[str, Any]]:
    """The finished tricks of the deal: leader, cards with the seat that played each,
    winner and the trick's card points (all public)."""
    g = info.sgame
    out = []
    for leader, cards, winner in info.trick_history:
        seats, s = [], int(leader)
        for _ in cards:
            seats.append(s)
            s = _next_seat(g, s)
        mask = 0
        for c in cards:
            mask |= 1 << int(c)
        out.append({"leader": int(leader), "cards": [card_to_string(int(c)) for c in cards],
                    "seats": seats, "winner": int(winner),
                    "points": int(kernel.points(mask))})
    return out


def card_points(info: R.SkatInfoState) -> dict[str, Any]:
    """Card points as this seat may count them. ``declarer`` includes the skat (the two
    cards put, or the skat of a hand game) once the deal is over (the result counts it
    then) or, during the play, for the declarer who put it; ``skat`` says which:
    the skat's points when counted in, else None (not known to this seat yet). In
    Ramsch each seat's points are ``by_seat`` (the skat goes to the last trick)."""
    g = info.sgame
    d = info.declarer
    if info.is_ramsch:
        return {"declarer": 0, "defenders": 0, "skat": None,
                "by_seat": [int(kernel.points(info.won[s])) if s in g.positions else 0
                            for s in range(g.players)]}
    if d < 0:
        return {"declarer": 0, "defenders": 0, "skat": None, "by_seat": None}
    dec = int(kernel.points(info.won[d]))
    dfn = sum(int(kernel.points(info.won[s])) for s in g.positions if s != d)
    skat: int | None = None
    if info.result is not None and not info.result.passed:
        skat = int(info.result.declarer_points) - dec  # the rules' count, skat included
    elif info.player == d and info.picked_up and info.put is not None and info.puts_done == 2:
        skat = int(kernel.points(info.put))
    return {"declarer": dec + (skat or 0), "defenders": dfn, "skat": skat, "by_seat": None}


def ramsch_view(info: R.SkatInfoState) -> dict[str, Any] | None:
    """The result of a finished Ramsch (points with the skat, losers, returns by seat),
    from the tricks every seat saw; None before the end or in a declared game."""
    if not info.is_ramsch or info.phase != R.OVER:
        return None
    g = info.sgame
    res = ramsch_result({s: int(kernel.points(info.won[s])) for s in g.positions},
                        {s: int(info.trick_count[s]) for s in g.positions})
    returns = [float(res.returns.get(s, 0.0)) for s in range(g.players)]
    return {"text": res.describe(), "points": {str(s): p for s, p in res.points.items()},
            "losers": list(res.losers), "durchmarsch": res.durchmarsch,
            "jungfrau": res.jungfrau, "returns": returns,
            "loss": max((-r for r in returns), default=0.0)}


def declaration_fields(action: int) -> dict[str, Any] | None:
    """A declaration's parts for the game selector: game key, hand, schneider, schwarz,
    ouvert (None for other actions)."""
    if not R.DECLARE_BASE <= action < R.CLAIM:
        return None
    c = R.DECLARATIONS[action - R.DECLARE_BASE]
    return {"game": GAME_KEYS[c.game], "hand": c.hand, "schneider": c.schneider_announced,
            "schwarz": c.schwarz_announced, "ouvert": c.ouvert}
