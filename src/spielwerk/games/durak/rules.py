"""Durak (podkidnoy, perevodnoy, and the Zarlykov 2023 two-player rules): Game, State, InfoState.

The rules live in :mod:`spielwerk.games.durak.kernel`; this module wraps the
flat state array in the core API, validates parameters and presets, and builds
the information states (own hand, cards publicly seen going into a hand, the
discard pile, the table, the trump card, the stock size).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from spielwerk.core.errors import GameParameterError
from spielwerk.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameType,
    InfoState,
    Playouts,
    State,
    check_playouts,
)
from spielwerk.core.registry import register_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.cards import (
    DECK_SIZES,
    RANKS,
    SUITS,
    card_name,
    mask_names,
    mask_to_cards,
)
from spielwerk.games.durak.evidence import collect
from spielwerk.games.durak.worlds import fill_world

PRESETS: dict[str, int] = {
    "classic": K.F_CAPS | K.F_MULTI_LEAD,
    "zarlykov2023": 0,
    "perevodnoy": K.F_CAPS | K.F_MULTI_LEAD | K.F_TRANSFER | K.F_SHOW_TRUMP,
}

# fields of S that are public (everything but hands and the stock order)
_PUBLIC = [
    K.ATTACK, K.OPEN, K.DEFENCE, K.DISCARD, K.TRUMP_SUIT, K.TRUMP_CARD, K.ATTACKER, K.DEFENDER,
    K.PHASE, K.TO_MOVE, K.ROUND, K.BOUT, K.SHOWN, K.NPLAYERS, K.DECK, K.FLAGS, K.LOSER,
    K.DEAL_POS, K.PLIES,
]


class DurakGame(Game):
    """Durak with a preset, 2-6 players and a 24-, 36- or 52-card pack."""

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.preset = str(params["preset"])
        self.players = int(params["players"])
        self.deck = int(params["deck"])
        if self.preset not in PRESETS:
            raise GameParameterError(
                f"durak: preset must be one of {', '.join(PRESETS)}, not {self.preset!r}"
            )
        if not 2 <= self.players <= K.MAX_PLAYERS:
            raise GameParameterError(f"durak: players must be 2 to 6, not {self.players}")
        if self.deck not in DECK_SIZES:
            raise GameParameterError(f"durak: deck must be 24, 36 or 52, not {self.deck}")
        if K.HAND_SIZE * self.players > self.deck:
            raise GameParameterError(
                f"durak: {self.players} players need at least {K.HAND_SIZE * self.players} cards;"
                f" the deck has {self.deck}"
            )
        if self.preset == "zarlykov2023" and (self.players != 2 or self.deck != 36):
            raise GameParameterError("durak: preset zarlykov2023 is for 2 players and 36 cards")
        self.open = bool(params.get("open", False))
        self.flags = PRESETS[self.preset]
        n = self.players
        self._type = GameType(
            short_name="durak",
            long_name=f"Durak ({self.preset}, {n} players, {self.deck} cards"
            + (", open world)" if self.open else ")"),
            num_players=n,
            chance=True,
            perfect_information=self.open,
            zero_sum=True,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            parameters=dict(self.params),
        )

    @property
    def game_type(self) -> GameType:
        return self._type

    def new_initial_state(self) -> DurakState:
        return DurakState(self, K.new_state(self.players, self.deck, self.flags))

    def random_playouts(self, n: int, seed: int, state: DurakState | None = None) -> Playouts:
        """``n`` games of uniformly random actions (the deal included), in one numba call.

        From the start (or from ``state``, left unchanged); the same ``seed``
        gives the same games. Batch counterpart of the API loop.
        """
        from spielwerk.games.durak.policies import random_playouts

        n = check_playouts(n, seed)
        start = state if state is not None else self.new_initial_state()
        out = random_playouts(start.S, n, seed)
        return Playouts(out[:, : self.players].copy(), out[:, self.players].astype(np.int64))

    def legal_action_masks(self, states: Sequence[DurakState]) -> np.ndarray:
        """``masks[i, a]`` is True when action ``a`` is legal in ``states[i]`` (one numba call
        for all states); ``K.NUM_ACTION_IDS`` columns."""
        if not states:
            return np.zeros((0, K.NUM_ACTION_IDS), dtype=bool)
        return K.legal_action_masks(np.stack([s.S for s in states]))

    def new_dealt_state(self, rng: np.random.Generator | int | None) -> DurakState:
        """A state after a random deal (the deal's chance actions are in the history)."""
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        state = self.new_initial_state()
        low = 4 * (13 - self.deck // 4)
        for c in gen.permutation(np.arange(low, 52)):
            state.apply(K.DEAL + int(c))
        return state


def make_position(
    game: DurakGame,
    hands: list[str],
    trump: str,
    stock: list[str] | None = None,
    attacker: int = 0,
    bout: int = 1,
) -> DurakState:
    """A hand-made position at the start of a bout, for tests and analysis.

    ``hands`` are card names per seat (``"S6 HA"``), ``stock`` lists the stock
    from the top, its last card should be the ``trump`` card (or the stock is
    empty); every card of the pack in no hand and not in the stock counts as
    discarded. ``bout`` 0 is the first bout (cap of 5 cards in classic).
    """
    from spielwerk.games.durak.cards import parse_card

    if len(hands) != game.players:
        raise GameParameterError(f"durak: give {game.players} hands, not {len(hands)}")
    S = K.new_state(game.players, game.deck, game.flags)
    used = 0
    full = K.deck_mask(game.deck)
    for p, text in enumerate(hands):
        for name in text.split():
            c = parse_card(name)
            if used >> c & 1 or not full >> c & 1:
                raise GameParameterError(f"durak: {name} twice or not in the {game.deck}-card pack")
            used |= 1 << c
            S[K.HANDS + p] |= 1 << c
    t = parse_card(trump)
    S[K.TRUMP_CARD] = t
    S[K.TRUMP_SUIT] = t & 3
    cards = [parse_card(c) for c in (stock or [])]
    if cards and cards[-1] != t:
        raise GameParameterError("durak: the trump card lies at the bottom of the stock")
    for i in range(52):
        S[K.STOCK + i] = -1
    for i, c in enumerate(cards):
        if used >> c & 1:
            raise GameParameterError(f"durak: card {c} is placed twice")
        used |= 1 << c
        S[K.STOCK + i] = c
    S[K.STOCK_LEN] = len(cards)
    S[K.DISCARD] = full & ~used
    S[K.DEAL_POS] = game.deck
    S[K.BOUT] = bout
    K._start_bout(S, attacker)
    return DurakState(game, S)


def _legal(S: np.ndarray) -> list[int]:
    buf = np.empty(K.MAX_ACTIONS, np.int64)
    n = K.legal_actions(S, buf)
    return buf[:n].tolist()  # type: ignore[no-any-return]


def describe_action(action: int) -> str:
    """Human notation: ``S6`` (lead, throw-in, defence), ``S6+H6`` (lead several),
    ``transfer S6``, ``show S6``, ``take``, ``pass``, ``deal S6``."""
    a = int(action)
    if a >= K.DEAL:
        return "deal " + card_name(a - K.DEAL)
    if a == K.TAKE:
        return "take"
    if a == K.PASS:
        return "pass"
    if a >= K.SHOW:
        return "show " + card_name(a - K.SHOW)
    if a >= K.TRANSFER:
        return "transfer " + card_name(a - K.TRANSFER)
    if a >= K.DEFEND:
        return card_name(a - K.DEFEND)
    if a >= K.THROW:
        return card_name(a - K.THROW)
    r, sm = divmod(a - K.LEAD, 16)
    return "+".join(SUITS[s] + RANKS[r] for s in range(4) if sm >> s & 1)


def action_cards(action: int) -> int:
    """Mask of the cards an action puts on the table (0 for take/pass/show)."""
    a = int(action)
    if a >= K.SHOW:
        return 0
    if a >= K.TRANSFER:
        return 1 << (a - K.TRANSFER)
    if a >= K.DEFEND:
        return 1 << (a - K.DEFEND)
    if a >= K.THROW:
        return 1 << (a - K.THROW)
    r, sm = divmod(a - K.LEAD, 16)
    return sm << (4 * r)


class DurakState(State):
    """A full Durak position: the kernel array ``S`` (see :mod:`kernel` for its layout)."""

    def __init__(self, game: DurakGame, S: np.ndarray) -> None:
        super().__init__(game)
        self.dgame = game
        self.S = S

    @property
    def current_player(self) -> int:
        return int(self.S[K.TO_MOVE])

    def _legal_actions(self) -> list[int]:
        return _legal(self.S)

    def legal_actions(self) -> list[int]:
        return _legal(self.S)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        acts = _legal(self.S) if self.S[K.PHASE] == K.PH_DEAL else []
        if not acts:
            raise self.not_chance_node()
        p = 1.0 / len(acts)
        return [(a, p) for a in acts]

    def _apply_action(self, action: int) -> None:
        K.apply_action(self.S, action)

    def apply_unchecked(self, action: int) -> None:
        """Apply an action known to be legal (search code), without the history."""
        K.apply_action(self.S, action)

    def _clone(self) -> DurakState:
        return DurakState(self.dgame, self.S.copy())

    def returns(self) -> list[float]:
        out = np.zeros(self.dgame.players)
        K.returns_into(self.S, out)
        return [float(x) + 0.0 for x in out]

    def fingerprint(self) -> Hashable:
        return self.S.tobytes()

    def action_to_string(self, action: int) -> str:
        return describe_action(action)

    def info_state(self, player: int) -> DurakInfoState:
        return DurakInfoState.from_state(self, player)

    # ----- views
    @property
    def trump_suit(self) -> int:
        return int(self.S[K.TRUMP_SUIT])

    def hand(self, player: int) -> int:
        return int(self.S[K.HANDS + player])

    def stock_size(self) -> int:
        return int(K.stock_size(self.S))

    def loser(self) -> int | None:
        """The durak's seat, -1 for a draw, None while the game goes on."""
        v = int(self.S[K.LOSER])
        return None if v == K.NO_RESULT else v

    def __str__(self) -> str:
        return render(self.S, None, self.dgame.players)


def render(S: np.ndarray, viewer: int | None, players: int) -> str:
    """Text picture of a state; with ``viewer`` only that player's hand is shown."""
    ph = int(S[K.PHASE])
    if ph == K.PH_DEAL:
        return f"dealing: {int(S[K.DEAL_POS])} of {int(S[K.DECK])} cards placed"
    trump = int(S[K.TRUMP_SUIT])
    lines = [
        f"trump {card_name(int(S[K.TRUMP_CARD]))}, stock {int(K.stock_size(S))}, "
        f"discarded {K.popcount(int(S[K.DISCARD]))}"
    ]
    for p in range(players):
        hand = int(S[K.HANDS + p])
        known = int(S[K.KNOWN + p])
        role = ""
        if ph != K.PH_OVER:
            role = " (attacker)" if p == S[K.ATTACKER] else (
                " (defender)" if p == S[K.DEFENDER] else "")
        if viewer is None or viewer == p:
            shown = mask_names(hand, trump)
        else:
            shown = f"{K.popcount(hand)} cards, known: {mask_names(known, trump)}"
        lines.append(f"player {p}{role}: {shown}")
    if ph != K.PH_OVER:
        attack = int(S[K.ATTACK])
        lines.append(
            f"table: attacks {mask_names(attack, trump)} | open {mask_names(int(S[K.OPEN]), trump)}"
            f" | defended with {mask_names(int(S[K.DEFENCE]), trump)}"
        )
        what = {K.PH_LEAD: "lead", K.PH_DEFEND: "defend", K.PH_THROW: "throw in or pass",
                K.PH_TAKE: "throw in or pass (defender takes)"}[ph]
        lines.append(f"player {int(S[K.TO_MOVE])} to {what}")
    else:
        loser = int(S[K.LOSER])
        lines.append("game over: draw" if loser < 0 else f"game over: player {loser} is the durak")
    return "\n".join(lines)


class DurakInfoState(InfoState):
    """What one player knows: own hand, public table and discard, cards known in other hands,
    hand sizes and the stock size. Holds no hidden card."""

    def __init__(
        self,
        game: DurakGame,
        player: int,
        public: np.ndarray,
        own_hand: int,
        known: tuple[int, ...],
        hand_sizes: tuple[int, ...],
        stock: int,
        deal_known: tuple[tuple[int, int], ...],
    ) -> None:
        super().__init__(game, player)
        self.dgame = game
        self.public = public  # S with hands, known cards and stock cleared
        self.own_hand = own_hand
        self.known = known
        self.hand_sizes = hand_sizes
        self.stock = stock
        self.deal_known = deal_known  # (position, card) seen while dealing
        self.open_state: DurakState | None = None  # open world: everything is visible
        # what the others' public moves suggest (evidence.collect): rows (seat, kind, mask,
        # draws) and each seat's cards drawn so far; None without a replayable history.
        # A belief, not knowledge: it narrows no world, so it is not in the fingerprint.
        self.evidence: tuple[np.ndarray, np.ndarray] | None = None
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None  # known, sizes for numba

    @classmethod
    def from_state(cls, state: DurakState, player: int) -> DurakInfoState:
        if state.dgame.open:
            return cls._open(state, player)
        S = state.S
        n = state.dgame.players
        public = np.zeros(K.STATE_LEN, np.int64)
        for i in _PUBLIC:
            public[i] = S[i]
        deal_known: tuple[tuple[int, int], ...] = ()
        if S[K.PHASE] == K.PH_DEAL:
            pos = int(S[K.DEAL_POS])
            dealt = K.HAND_SIZE * n
            deal_known = tuple(
                (i, int(S[K.STOCK + i]))
                for i in range(pos)
                if (i < dealt and i % n == player) or i == dealt
            )
        info = cls(
            state.dgame,
            player,
            public,
            int(S[K.HANDS + player]),
            tuple(int(S[K.KNOWN + q]) for q in range(n)),
            tuple(K.popcount(int(S[K.HANDS + q])) for q in range(n)),
            int(K.stock_size(S)),
            deal_known,
        )
        # the history replays to this state only if every action went through apply()
        if len(state.history) == S[K.PLIES] and S[K.PHASE] != K.PH_DEAL:
            info.evidence = collect(n, state.dgame.deck, state.dgame.flags,
                                    np.asarray(state.history, np.int64), player)
        return info

    @classmethod
    def _open(cls, state: DurakState, player: int) -> DurakInfoState:
        """Open world (all cards face up): the info state is the whole state."""
        S = state.S
        n = state.dgame.players
        hands = tuple(int(S[K.HANDS + q]) for q in range(n))
        info = cls(
            state.dgame, player, S.copy(), hands[player], hands,
            tuple(K.popcount(h) for h in hands), int(K.stock_size(S)), (),
        )
        info.open_state = state.clone()  # type: ignore[assignment]
        return info

    @property
    def current_player(self) -> int:
        return int(self.public[K.TO_MOVE])

    def legal_actions(self) -> list[int]:
        if self.current_player != self.player:
            return []
        S = self._partial_state()
        return _legal(S)

    def _partial_state(self) -> np.ndarray:
        """Public facts plus own hand and hand sizes: enough for the mover's legal moves."""
        S = self.public.copy()
        for q, size in enumerate(self.hand_sizes):
            if q == self.player:
                S[K.HANDS + q] = self.own_hand
            else:
                # placeholder cards only to carry the count (legal moves read sizes only)
                S[K.HANDS + q] = (1 << size) - 1
        S[K.STOCK_TOP] = 0
        S[K.STOCK_LEN] = self.stock
        return S

    def view(self) -> np.ndarray:
        """A kernel array with this player's knowledge only: own hand, public facts, known
        cards of the others and placeholder cards for their hidden ones (right counts).
        Heuristic policies (greedy, smart) read it without any sampling."""
        S = self._partial_state()
        for q, k in enumerate(self.known):
            S[K.KNOWN + q] = k
        return S

    def unseen(self) -> int:
        """Cards whose place this player does not know (other hands' hidden cards, the stock
        except the trump card at its bottom)."""
        P = self.public
        full = K.deck_mask(int(P[K.DECK]))
        seen = self.own_hand | int(P[K.ATTACK]) | int(P[K.DEFENCE]) | int(P[K.DISCARD])
        for q, k in enumerate(self.known):
            if q != self.player:
                seen |= k
        if self.stock > 0:
            seen |= 1 << int(P[K.TRUMP_CARD])
        return full & ~seen

    def sample_world(self, rng: np.random.Generator) -> DurakState:
        """Deal the unseen cards at random into the hidden slots; keep everything known."""
        if self.open_state is not None:
            return self.open_state.clone()  # type: ignore[return-value]
        P = self.public
        S = P.copy()
        if P[K.PHASE] == K.PH_DEAL:
            pos = int(P[K.DEAL_POS])
            fixed = dict(self.deal_known)
            used = 0
            for c in fixed.values():
                used |= 1 << c
            free = [c for c in range(4 * (13 - self.dgame.deck // 4), 52) if not used >> c & 1]
            order = rng.permutation(len(free))
            k = 0
            for i in range(pos):
                if i in fixed:
                    S[K.STOCK + i] = fixed[i]
                else:
                    S[K.STOCK + i] = free[int(order[k])]
                    k += 1
            return DurakState(self.dgame, S)
        unseen = np.array(mask_to_cards(self.unseen()), np.int64)
        return self.world_with(unseen[rng.permutation(len(unseen))])

    def world_with(self, cards: np.ndarray) -> DurakState:
        """The world that deals the unseen cards in the order ``cards``: the hidden places
        of the other seats in seat order, then the stock from the top (the trump card stays
        at its bottom). :meth:`sample_world` passes a random order; a weighted sampler
        (:mod:`inference`) passes its own."""
        if self._arrays is None:
            self._arrays = (np.array(self.known, np.int64), np.array(self.hand_sizes, np.int64))
        known, sizes = self._arrays
        S = fill_world(self.public, self.player, self.own_hand, known, sizes, self.stock,
                       np.asarray(cards, np.int64))
        if len(S) == 0:
            raise AssertionError("durak: unseen cards do not fill the hidden places")
        return DurakState(self.dgame, S)

    def fingerprint(self) -> Hashable:
        if self.open_state is not None:
            return self.open_state.fingerprint()
        return (
            self.public.tobytes(), self.own_hand, self.known, self.hand_sizes, self.stock,
            self.deal_known,
        )

    def action_to_string(self, action: int) -> str:
        return describe_action(action)

    def __str__(self) -> str:
        S = self._partial_state()
        for q in range(self.dgame.players):
            if q != self.player:
                S[K.KNOWN + q] = self.known[q]
        lines = render(S, self.player, self.dgame.players).splitlines()
        # hidden hands: show sizes from hand_sizes, not the placeholder masks
        out = []
        for line in lines:
            if line.startswith("player ") and ":" in line and "cards, known" in line:
                q = int(line.split()[1].rstrip(":"))
                head = line.split(":", 1)[0]
                out.append(
                    f"{head}: {self.hand_sizes[q]} cards, known: "
                    f"{mask_names(self.known[q], int(self.public[K.TRUMP_SUIT]))}"
                )
            else:
                out.append(line)
        return "\n".join(out)


def _make(params: dict[str, Any]) -> DurakGame:
    return DurakGame(params)


register_game(
    "durak",
    _make,
    {"preset": "classic", "players": 2, "deck": 36, "open": False},
    "Durak, the Russian shedding card game (podkidnoy, perevodnoy, Zarlykov 2023)",
    {
        "preset": "classic, zarlykov2023 or perevodnoy",
        "players": "2 to 6 (6 x players <= deck)",
        "deck": "24, 36 or 52 cards",
        "open": "open world: every card (hands and stock) is visible to everyone",
    },
)

__all__ = ["CHANCE", "TERMINAL", "DurakGame", "DurakInfoState", "DurakState", "PRESETS"]
