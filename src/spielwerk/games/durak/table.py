"""Durak at the web table: a seat's view, the bout's pairs, the reveal and the review.

The view is built from the seat's ``DurakInfoState`` only. Which defending card beats
which attack card in the current bout: the rules keep the bout as three card sets
(attack, open attacks, defence); a defence always beats the lowest open attack card, so
the pairs follow from the public moves of the bout. They are found by replaying the
game's actions with the rules and noting, before each defence, the attack card it
covers. Only cards already on the table (public) are returned.
"""

from __future__ import annotations

from typing import Any

from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import card_name, mask_to_cards
from spielwerk.games.durak.rules import DurakInfoState, action_cards, describe_action

PHASES = {K.PH_DEAL: "deal", K.PH_LEAD: "lead", K.PH_DEFEND: "defend", K.PH_THROW: "throw in",
          K.PH_TAKE: "throw in (defender takes)", K.PH_OVER: "over"}


def names(mask: int, trump: int) -> list[str]:
    """The cards of ``mask`` by name, trumps last, by suit and rank."""
    cards = mask_to_cards(int(mask))
    cards.sort(key=lambda c: ((c & 3) == trump, c & 3, c >> 2))
    return [card_name(c) for c in cards]


def _kind(a: int) -> str:
    if a == K.TAKE:
        return "take"
    if a == K.PASS:
        return "pass"
    if a >= K.SHOW:
        return "show"
    if a >= K.TRANSFER:
        return "transfer"
    if a >= K.DEFEND:
        return "defend"
    if a >= K.THROW:
        return "throw"
    return "lead"


PUBLIC_FIELDS = ("players", "preset", "deck", "hand_sizes", "trump_card", "trump_suit",
                 "stock", "discarded", "attack", "open", "defence", "attacker", "defender",
                 "phase", "loser")
"""The fields of a seat's view that every player sees (a spectator's view keeps these)."""


def view(info: DurakInfoState) -> dict[str, Any]:
    """The Durak fields of a seat's table view."""
    P = info.public
    trump = int(P[K.TRUMP_SUIT])
    legal = []
    for a in info.legal_actions():
        text = describe_action(a)
        kind = _kind(a)
        legal.append({"id": a, "label": text, "kind": kind,
                      "cards": names(action_cards(a), trump)
                      if kind not in ("take", "pass", "show")
                      else ([text.split()[1]] if kind == "show" else [])})
    n = info.dgame.players
    loser = int(P[K.LOSER])
    return {
        "players": n,
        "preset": info.dgame.preset,
        "deck": info.dgame.deck,
        "hand": names(info.own_hand, trump),
        "hand_sizes": list(info.hand_sizes),
        "known": [names(k, trump) if q != info.player else [] for q, k in enumerate(info.known)],
        "trump_card": card_name(int(P[K.TRUMP_CARD])),
        "trump_suit": "CDHS"[trump],
        "stock": info.stock,
        "discarded": bin(int(P[K.DISCARD])).count("1"),
        "attack": names(int(P[K.ATTACK]), trump),
        "open": names(int(P[K.OPEN]), trump),
        "defence": names(int(P[K.DEFENCE]), trump),
        "attacker": int(P[K.ATTACKER]),
        "defender": int(P[K.DEFENDER]),
        "phase": PHASES[int(P[K.PHASE])],
        "loser": None if loser == K.NO_RESULT else loser,
        "legal": legal,
    }


def hands(state: Any) -> list[list[str]]:
    """Every seat's hand (a finished game, or a review)."""
    return [names(int(state.S[K.HANDS + q]), int(state.S[K.TRUMP_SUIT]))
            for q in range(state.dgame.players)]


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def bout_pairs(state: Any) -> list[list[str | None]]:
    """``[[attack, defence or None], ...]`` for the bout on the table, in the order the
    attack cards were played (a card name, or None where it is not beaten yet)."""
    replay: Any = state.game.new_initial_state()
    order: list[int] = []  # attack cards of this bout as they were played
    beaten: dict[int, int] = {}
    bout = -1
    for action in state.history:
        S = replay.S
        if int(S[K.BOUT]) != bout or int(S[K.ATTACK]) == 0:
            bout, order, beaten = int(S[K.BOUT]), [], {}
        before = int(S[K.ATTACK])
        if K.DEFEND <= action < K.TRANSFER:
            beaten[_lowest(int(S[K.OPEN]))] = action - K.DEFEND
        replay.apply(int(action))
        added = int(replay.S[K.ATTACK]) & ~before
        while added:
            c = _lowest(added)
            order.append(c)
            added &= added - 1
    attack = int(state.S[K.ATTACK])
    if attack == 0:
        return []
    return [[card_name(c), card_name(beaten[c]) if c in beaten else None]
            for c in order if attack >> c & 1]


def review(spec: str, history: list[int]) -> list[dict[str, Any]]:
    """Exact endgame value (for the player to move: +1 win, 0 draw, -1 lose) of every
    2-player position once the stock is empty, and whether the move kept it."""
    state: Any = load_game(spec).new_initial_state()
    if state.dgame.players != 2:
        return []
    # (ply, mover, value for the mover or None if over budget, best action, action played)
    solved: list[tuple[int, int, int | None, int, int]] = []
    for ply, action in enumerate(history):
        S = state.S
        if S[K.PHASE] not in (K.PH_DEAL, K.PH_OVER) and K.stock_size(S) == 0:
            best, value = K.solve_best(S.copy(), 1_000_000, 20)
            solved.append((ply, int(S[K.TO_MOVE]), None if value == -9 else int(value),
                           int(best), action))
        state.apply(action)
    final = state.returns() if state.is_terminal() else None
    out: list[dict[str, Any]] = []
    probe: Any = load_game(spec).new_initial_state()
    for i, (ply, mover, value, best, action) in enumerate(solved):
        if value is None:
            continue
        if i + 1 < len(solved) and solved[i + 1][0] == ply + 1:
            nxt = solved[i + 1]
            played = None if nxt[2] is None else (nxt[2] if nxt[1] == mover else -nxt[2])
        elif final is not None and ply == len(history) - 1:
            played = int(final[mover])
        else:
            played = None
        while len(probe.history) < ply:
            probe.apply(history[len(probe.history)])
        out.append({"ply": ply, "mover": mover, "value": value,
                    "best": probe.action_to_string(best),
                    "move": probe.action_to_string(action), "played": played,
                    "mistake": played is not None and played < value})
    return out
