"""Skat's observation face (:mod:`spielwerk.core.observation`).

Tensor: 32-card planes (own hand; own hand as dealt; the skat and the two cards
put when this seat knows them; the declarer's cards shown (ouvert or a claim);
each seat's played cards, shown voids and tricks won, by seat relative to the
viewer; the current trick by position), then the declarer by relative seat, the
contract (game type one-hot and the hand/schneider/schwarz/ouvert flags), the
bid divided by 264, the phase, this seat's position and the player to move
one-hot.
"""

from __future__ import annotations

import numpy as np

from spielwerk.core.game import Game, InfoState
from spielwerk.core.observation import ObservationFace, Sizes, bits_into
from spielwerk.games.skat.actions import NUM_ACTIONS
from spielwerk.games.skat.info import SkatInfoState


class SkatObservation(ObservationFace):
    def sizes(self) -> Sizes:
        # 32 deal + at most 63 bids, 63 holds and 3 passes + pick up, 2 puts, declaration
        # + 30 cards + give-up offers and answers (per trick at most a claim answered by
        # both defenders and a defender's resignation answered by the other: 5)
        return Sizes(NUM_ACTIONS, 32, 32 + 129 + 4 + 30 + 50, 3, 4)

    def tensor_size(self) -> int:
        n = int(self.game.params["players"])
        return 32 * (5 + 3 * n + 3) + (n + 1) + 6 + 4 + 1 + 8 + 4 + (n + 1)

    def encode_into(self, info: InfoState, out: np.ndarray) -> None:
        assert isinstance(info, SkatInfoState)
        n = info.sgame.players
        p = info.player
        at = 0
        for mask in (info.hand, info.own_dealt, info.skat or 0, info.put or 0):
            bits_into(out, at, mask, 32)
            at += 32
        shown = info.declarer_hand_known()
        bits_into(out, at, shown or 0, 32)
        at += 32
        for per_seat in (info.played, info.voids, info.won):
            for r in range(n):
                bits_into(out, at, per_seat[(p + r) % n], 32)
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


def observation_face(game: Game) -> ObservationFace:
    return SkatObservation(game)
