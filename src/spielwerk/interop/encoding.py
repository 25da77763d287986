"""Fixed-size tensors and strings of an :class:`InfoState`, shared by both adapters.

Every encoder reads only the player's ``InfoState`` (never the full State), so
whatever a host library shows a player is, by construction, what that player
may know. Seats are encoded relative to the viewer (index 0 is the viewer).

- Kalah (perfect information): the ``2m + 2`` cells of the board in our
  layout (South's pits, South's store, North's pits, North's store), then the
  player to move, one-hot (South, North).
- Durak: 52-card planes (own hand; the cards known to lie in each other hand;
  attack cards not yet beaten; attack cards of the bout; defending cards;
  discard pile; the trump card; cards seen while dealing), then the trump suit
  one-hot, hand sizes and the stock size (divided by the deck size), attacker,
  defender and player to move one-hot by relative seat, and the phase one-hot.
- Skat: 32-card planes (own hand; own hand as dealt; the skat and the two
  cards put when this seat knows them; the declarer's cards shown (ouvert or a
  claim); each seat's played cards, shown voids and tricks won; the current
  trick by position), then the declarer by relative seat, the contract (game
  type one-hot and the hand/schneider/schwarz/ouvert flags), the bid divided
  by 264, the phase, this seat's position and the player to move one-hot.

The information-state string is the player's seat plus a 128-bit digest of the
InfoState's fingerprint (equal exactly when the knowledge is equal, up to hash
collisions); the observation string is the readable ``str(info_state)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from spielwerk.core.errors import SpielwerkError
from spielwerk.core.game import CHANCE, TERMINAL, Game, InfoState, PerfectInfoState


class EncodingError(SpielwerkError):
    """A game the adapters have no tensor encoding for."""


def _bits_into(out: np.ndarray, offset: int, mask: int, width: int) -> None:
    for i in range(width):
        if mask >> i & 1:
            out[offset + i] = 1.0


# ----------------------------------------------------------------------------- kalah
def _kalah_size(game: Game) -> int:
    return 2 * int(game.params["pits"]) + 4


def _kalah_encode(info: InfoState, out: np.ndarray) -> None:
    assert isinstance(info, PerfectInfoState)
    state = info.state
    board = state.board  # type: ignore[attr-defined]
    n = len(board)
    out[:n] = board
    mover = state.current_player
    if mover >= 0:
        out[n + mover] = 1.0


# ----------------------------------------------------------------------------- durak
def _durak_size(game: Game) -> int:
    n = int(game.params["players"])
    return 52 * (n + 6) + 4 + (n + 1) + 3 * n + 6


def _durak_encode(info: InfoState, out: np.ndarray) -> None:
    from spielwerk.games.durak import kernel as K
    from spielwerk.games.durak.rules import DurakInfoState

    assert isinstance(info, DurakInfoState)
    n = info.dgame.players
    p = info.player
    P = info.public
    at = 0
    _bits_into(out, at, info.own_hand, 52)
    at += 52
    for r in range(1, n):
        _bits_into(out, at, info.known[(p + r) % n], 52)
        at += 52
    for field in (K.OPEN, K.ATTACK, K.DEFENCE, K.DISCARD):
        _bits_into(out, at, int(P[field]), 52)
        at += 52
    phase = int(P[K.PHASE])
    if phase != K.PH_DEAL:
        out[at + int(P[K.TRUMP_CARD])] = 1.0
    at += 52
    for _, card in info.deal_known:
        out[at + card] = 1.0
    at += 52
    if phase != K.PH_DEAL:
        out[at + int(P[K.TRUMP_SUIT])] = 1.0
    at += 4
    deck = float(info.dgame.deck)
    for r in range(n):
        out[at + r] = info.hand_sizes[(p + r) % n] / deck
    at += n
    out[at] = info.stock / deck
    at += 1
    for field in (K.ATTACKER, K.DEFENDER, K.TO_MOVE):
        seat = int(P[field])
        if seat >= 0 and phase not in (K.PH_DEAL, K.PH_OVER):
            out[at + (seat - p) % n] = 1.0
        at += n
    out[at + phase] = 1.0


# ----------------------------------------------------------------------------- skat
def _skat_size(game: Game) -> int:
    n = int(game.params["players"])
    return 32 * (5 + 3 * n + 3) + (n + 1) + 6 + 4 + 1 + 8 + 4 + (n + 1)


def _skat_encode(info: InfoState, out: np.ndarray) -> None:
    from spielwerk.games.skat.info import SkatInfoState

    assert isinstance(info, SkatInfoState)
    n = info.sgame.players
    p = info.player
    at = 0
    for mask in (info.hand, info.own_dealt, info.skat or 0, info.put or 0):
        _bits_into(out, at, mask, 32)
        at += 32
    shown = info.declarer_hand_known()
    _bits_into(out, at, shown or 0, 32)
    at += 32
    for per_seat in (info.played, info.voids, info.won):
        for r in range(n):
            _bits_into(out, at, per_seat[(p + r) % n], 32)
            at += 32
    for i in range(3):
        if i < len(info.trick):
            out[at + info.trick[i]] = 1.0
        at += 32
    if info.declarer >= 0:
        out[at + (info.declarer - p) % n] = 1.0
    else:
        out[at + n] = 1.0
    at += n + 1
    contract = info.contract
    if contract is not None:
        out[at + contract.game] = 1.0
        flags = (contract.hand, contract.schneider_announced, contract.schwarz_announced,
                 contract.ouvert)
        for i, flag in enumerate(flags):
            out[at + 6 + i] = float(flag)
    at += 10
    out[at] = info.bid / 264.0
    at += 1
    out[at + info.phase] = 1.0
    at += 8
    out[at + (info.position if info.position >= 0 else 3)] = 1.0
    at += 4
    mover = info.current_player
    if mover >= 0:
        out[at + (mover - p) % n] = 1.0
    else:
        out[at + n] = 1.0  # chance or over


_ENCODERS: dict[str, tuple[Callable[[Game], int], Callable[[InfoState, np.ndarray], None]]] = {
    "kalah": (_kalah_size, _kalah_encode),
    "durak": (_durak_size, _durak_encode),
    "skat": (_skat_size, _skat_encode),
}


def num_actions(game: Game) -> int:
    """Player action ids are ``0 .. num_actions(game) - 1`` (chance outcomes excluded)."""
    if game.name == "kalah":
        return int(game.params["pits"])
    if game.name == "durak":
        from spielwerk.games.durak import kernel as K

        return K.PASS + 1
    if game.name == "skat":
        from spielwerk.games.skat import rules as skat_rules

        return skat_rules.NUM_ACTIONS
    raise EncodingError(f"no action count for {game.name}; encoded: {', '.join(_ENCODERS)}")


def tensor_high(game: Game) -> float:
    """Largest value any entry of the tensor takes (seed counts in Kalah, else 1)."""
    if game.name == "kalah":
        return float(2 * int(game.params["pits"]) * int(game.params["seeds"]))
    return 1.0


def tensor_size(game: Game) -> int:
    """Length of the information-state tensor of ``game``."""
    if game.name not in _ENCODERS:
        raise EncodingError(f"no tensor encoding for {game.name}; encoded: {', '.join(_ENCODERS)}")
    return _ENCODERS[game.name][0](game)


def encode_into(info: InfoState, out: np.ndarray) -> None:
    """Write the tensor of ``info`` into ``out`` (zeroed here; length :func:`tensor_size`)."""
    out.fill(0.0)
    _ENCODERS[info.game.name][1](info, out)


def encode(info: InfoState) -> np.ndarray:
    """The information-state tensor of ``info`` as a new float32 array."""
    out = np.zeros(tensor_size(info.game), np.float32)
    encode_into(info, out)
    return out


def info_string(info: InfoState) -> str:
    """Seat plus a digest of the fingerprint: equal exactly for equal knowledge."""
    digest = hashlib.blake2b(repr(info.fingerprint()).encode(), digest_size=16).hexdigest()
    return f"seat {info.player} knows {digest}"


def observation_string(info: InfoState) -> str:
    """Readable text of what the player knows."""
    return str(info)


def mover_name(player: int) -> str:
    if player == CHANCE:
        return "chance"
    if player == TERMINAL:
        return "terminal"
    return f"seat {player}"
