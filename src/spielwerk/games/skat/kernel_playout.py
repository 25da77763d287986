"""Random Skat games end to end in numba: the batch path of ``SkatGame.random_playouts``.

One game is the ``State``'s sequence of phases (deal, bidding, skat, put,
declaration, card play with claims and resignations, the result) on an int64
vector, and every rule in it is a call of the same functions the ``State``
calls: :mod:`kernel` (legal cards, trick winner, points, matadors) and
:mod:`kernel_deal` (auction, offers, end of play, game value, Ramsch). What is
written here is the bookkeeping between them (whose turn, which cards go
where), which the ``State`` keeps in Python; ``tests/test_batch_paths.py``
replays the games through the ``State`` and checks every action.

Each decision lists the legal actions in ascending order, as
``State.legal_actions()`` does, and takes ``legal[int(u * n)]`` with ``u`` the
next SplitMix64 uniform of the game's stream (:mod:`spielwerk.core.splitmix`);
a prefix of given actions (a start state's history after the deal) is
replayed first without draws.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spielwerk.core.splitmix import _value as uniform
from spielwerk.games.skat.actions import (
    BID_BASE,
    BIDDING,
    CLAIM,
    DECLARE,
    DECLARE_BASE,
    HOLD,
    OVER,
    PASS,
    PICKUP,
    PLAY,
    PLAY_ON,
    PUT,
    RESIGN,
    RESPONSE,
    SKAT,
)
from spielwerk.games.skat.cards import GRAND, NULL
from spielwerk.games.skat.kernel import legal_cards, matadors, points, trick_winner
from spielwerk.games.skat.kernel_deal import (
    BIDS,
    CLAIM_OR_RESIGN,
    DONE,
    NO_OFFER,
    PLAYING,
    auction_move,
    declarer_score,
    first_bid,
    game_value,
    offers,
    ramsch_outcome,
    trick_end,
)

# fields of the game vector
(PHASE, STAGE, VALUE, ANSWERING, LISTENER, AUCTION_WINNER, DECLARER, CODE, DECL, PICKED, PUT_CARDS,
 SKAT_CARDS, LEADER, IN_TRICK, TRICKS_DONE, OFFER0, OFFER1, RESPONDERS, RESPONDER0, RESPONDER1,
 RAMSCH_RULE, RAMSCH, CONCEDED, TRICK0, TRICK1, TRICK2, FIELDS) = range(27)
"""``RAMSCH_RULE``: the table plays Ramsch when all pass; ``RAMSCH``: this deal is one."""
DECLARER_RESIGNED, DEFENDERS_RESIGNED = 1, 2
MAX_ACTIONS = 320
"""More than any Skat deal's actions (32 cards, at most 129 bidding, 4, 30 cards, 60 offers)."""


@njit(cache=True)
def _cards_into(mask: int, out: np.ndarray, n: int) -> int:
    for c in range(32):
        if (mask >> c) & 1:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def _seat_to_play(g: np.ndarray, turns: np.ndarray) -> int:
    return int(turns[g[LEADER], g[IN_TRICK]])


@njit(cache=True)
def _legal(g: np.ndarray, hands: np.ndarray, turns: np.ndarray, hand_decls: np.ndarray,
           pickup_decls: np.ndarray, out: np.ndarray) -> int:
    """The legal actions of the game vector in ascending order into ``out``; their number."""
    phase = g[PHASE]
    n = 0
    if phase == BIDDING:
        for b in range(first_bid(g[VALUE], g[ANSWERING] == 1, g[STAGE]), BIDS):
            out[n] = BID_BASE + b
            n += 1
        if g[ANSWERING] == 1:
            out[n] = HOLD
            n += 1
        out[n] = PASS
        return n + 1
    if phase == PLAY:
        seat = _seat_to_play(g, turns)
        led = g[TRICK0] if g[IN_TRICK] > 0 else -1
        n = _cards_into(legal_cards(hands[seat], led, g[CODE]), out, 0)
        mine = seat == g[DECLARER]
        kind = offers(g[RAMSCH] == 1, mine, g[OFFER0] if mine else g[OFFER1], g[TRICKS_DONE])
        if kind == CLAIM_OR_RESIGN:
            out[n] = CLAIM
            n += 1
        if kind != NO_OFFER:
            out[n] = RESIGN
            n += 1
        return n
    if phase == SKAT:
        out[0] = PICKUP
        for k in range(hand_decls.shape[0]):
            out[1 + k] = hand_decls[k]
        return int(1 + hand_decls.shape[0])
    if phase == PUT:
        return _cards_into(hands[g[DECLARER]], out, 0)
    if phase == DECLARE:
        for k in range(pickup_decls.shape[0]):
            out[k] = pickup_decls[k]
        return int(pickup_decls.shape[0])
    if phase == RESPONSE:
        out[0] = RESIGN
        out[1] = PLAY_ON
        return 2
    return 0


@njit(cache=True)
def _after_bid(g: np.ndarray, positions: np.ndarray) -> None:
    if g[STAGE] != DONE:
        return
    if g[AUCTION_WINNER] >= 0:
        g[DECLARER] = positions[g[AUCTION_WINNER]]
        g[PHASE] = SKAT
    elif g[RAMSCH_RULE] == 1:  # the Ramsch variant: all passed, the deal is played
        g[RAMSCH] = 1
        g[CODE] = GRAND
        g[PHASE] = PLAY
        g[LEADER] = positions[0]
    else:
        g[PHASE] = OVER  # passed in


@njit(cache=True)
def _play_card(g: np.ndarray, hands: np.ndarray, won: np.ndarray, tricks: np.ndarray,
               turns: np.ndarray, schwarz: bool, card: int) -> None:
    seat = _seat_to_play(g, turns)
    hands[seat] &= ~(1 << card)
    g[TRICK0 + g[IN_TRICK]] = card
    g[IN_TRICK] += 1
    if g[IN_TRICK] < 3:
        return
    winner = turns[g[LEADER], trick_winner(g[TRICK0], g[TRICK1], g[TRICK2], g[CODE])]
    won[winner] |= (1 << g[TRICK0]) | (1 << g[TRICK1]) | (1 << g[TRICK2])
    tricks[winner] += 1
    g[IN_TRICK] = 0
    g[TRICKS_DONE] += 1
    g[LEADER] = winner
    ramsch = g[RAMSCH] == 1
    if trick_end(g[CODE], schwarz, ramsch, winner == g[DECLARER], g[TRICKS_DONE]) != PLAYING:
        if ramsch:
            won[winner] |= g[SKAT_CARDS]  # the skat goes to the last trick
        g[PHASE] = OVER


@njit(cache=True)
def _apply(g: np.ndarray, hands: np.ndarray, won: np.ndarray, tricks: np.ndarray,
           positions: np.ndarray, turns: np.ndarray, decls: np.ndarray, action: int) -> None:
    """Apply a legal ``action`` to the game vector (the ``State``'s ``_apply_action``)."""
    phase = g[PHASE]
    d = g[DECLARER]
    if phase == BIDDING:
        stage, value, answering, listener, winner = auction_move(
            g[STAGE], g[VALUE], g[ANSWERING] == 1, g[LISTENER], g[AUCTION_WINNER],
            action - BID_BASE,
        )
        g[STAGE], g[VALUE], g[ANSWERING] = stage, value, int(answering)
        g[LISTENER], g[AUCTION_WINNER] = listener, winner
        _after_bid(g, positions)
    elif phase == PLAY and action < 32:
        _play_card(g, hands, won, tricks, turns, g[DECL] >= 0 and decls[g[DECL], 3] == 1, action)
    elif phase == SKAT and action == PICKUP:
        g[PICKED] = 1
        hands[d] |= g[SKAT_CARDS]
        g[PHASE] = PUT
    elif phase == PUT:
        hands[d] &= ~(1 << action)
        g[PUT_CARDS] |= 1 << action
        if g[PUT_CARDS] & (g[PUT_CARDS] - 1):  # two cards put
            g[PHASE] = DECLARE
    elif phase == SKAT or phase == DECLARE:
        g[DECL] = action - DECLARE_BASE
        g[CODE] = decls[g[DECL], 0]
        g[PHASE] = PLAY
        g[LEADER] = positions[0]
    elif phase == PLAY:  # a claim (declarer) or a resignation
        seat = _seat_to_play(g, turns)
        if action == CLAIM:
            g[OFFER0] = g[TRICKS_DONE]
            g[RESPONDERS] = 2  # both defenders, the seat after the declarer first
            g[RESPONDER0], g[RESPONDER1] = turns[d, 1], turns[d, 2]
            g[PHASE] = RESPONSE
        elif seat == d:
            g[OFFER0] = g[TRICKS_DONE]
            g[CONCEDED] = DECLARER_RESIGNED
            g[PHASE] = OVER
        else:
            g[OFFER1] = g[TRICKS_DONE]
            g[RESPONDERS] = 1  # the other defender answers
            g[RESPONDER0] = turns[d, 1] if turns[d, 1] != seat else turns[d, 2]
            g[PHASE] = RESPONSE
    elif phase == RESPONSE:
        if action == RESIGN:
            g[RESPONDERS] -= 1
            g[RESPONDER0] = g[RESPONDER1]
            if g[RESPONDERS] == 0:
                g[CONCEDED] = DEFENDERS_RESIGNED
                g[PHASE] = OVER
        else:
            g[RESPONDERS] = 0
            g[PHASE] = PLAY


@njit(cache=True)
def _result(g: np.ndarray, hands: np.ndarray, dealt: np.ndarray, won: np.ndarray,
            tricks: np.ndarray, positions: np.ndarray, decls: np.ndarray,
            out: np.ndarray) -> None:
    """Every seat's return of a finished game vector (``State.returns``)."""
    out[:] = 0.0
    if g[RAMSCH] == 1:
        # the Ramsch rule sees the seats in ascending order
        a, b, c = positions[0], positions[1], positions[2]
        lo, hi = min(a, min(b, c)), max(a, max(b, c))
        mid = a + b + c - lo - hi
        r0, r1, r2, _, _, _ = ramsch_outcome(
            points(won[lo]), points(won[mid]), points(won[hi]), tricks[lo], tricks[mid],
            tricks[hi],
        )
        out[lo], out[mid], out[hi] = r0, r1, r2
        return
    d = g[DECLARER]
    if d < 0:
        return  # passed in
    game = decls[g[DECL], 0]
    if g[CONCEDED] == DEFENDERS_RESIGNED and game != NULL:
        rest = 0  # the declarer takes every card still in play
        for s in positions:
            rest |= hands[s]
        for k in range(g[IN_TRICK]):
            rest |= 1 << g[TRICK0 + k]
        won[d] |= rest
        tricks[d] += 10 - g[TRICKS_DONE]
    skat_points = points(g[PUT_CARDS] if g[PICKED] == 1 else g[SKAT_CARDS])
    declared_matadors = 0 if game == NULL else matadors(dealt[d] | g[SKAT_CARDS], game)
    won_game, value, _, _, _ = game_value(
        game, decls[g[DECL], 1] == 1, decls[g[DECL], 2] == 1, decls[g[DECL], 3] == 1,
        decls[g[DECL], 4] == 1, g[VALUE], declared_matadors, points(won[d]) + skat_points,
        tricks[d], g[CONCEDED] == DECLARER_RESIGNED,
    )
    score = float(declarer_score(won_game, value))
    for s in positions:
        out[s] = score if s == d else -score / 2


@njit(cache=True)
def playouts(deals: np.ndarray, prefix: np.ndarray, seeds: np.ndarray, ramsch: bool,
             positions: np.ndarray, turns: np.ndarray, deal_seats: np.ndarray,
             decls: np.ndarray, hand_decls: np.ndarray, pickup_decls: np.ndarray,
             returns: np.ndarray, moves: np.ndarray, histories: np.ndarray) -> None:
    """Game ``i``: deal ``deals[i]`` (32 cards in dealing order), replay ``prefix``, then
    uniformly random legal actions from the stream ``seeds[i]``; its returns, its number
    of actions and (if ``histories`` has rows) its actions."""
    players = returns.shape[1]
    legal = np.empty(96, np.int64)
    keep = histories.shape[0] > 0
    for i in range(deals.shape[0]):
        g = np.zeros(FIELDS, np.int64)
        hands = np.zeros(players, np.int64)
        won = np.zeros(players, np.int64)
        tricks = np.zeros(players, np.int64)
        g[PHASE], g[AUCTION_WINNER], g[DECLARER], g[DECL] = BIDDING, -1, -1, -1
        g[OFFER0], g[OFFER1], g[RAMSCH_RULE] = -1, -1, int(ramsch)
        for k in range(32):
            seat = deal_seats[k]
            if seat < 0:
                g[SKAT_CARDS] |= 1 << deals[i, k]
            else:
                hands[seat] |= 1 << deals[i, k]
            if keep:
                histories[i, k] = deals[i, k]
        dealt = hands.copy()
        count = 32
        while g[PHASE] != OVER:
            n = _legal(g, hands, turns, hand_decls, pickup_decls, legal)
            j = count - 32 - prefix.shape[0]
            action = prefix[count - 32] if j < 0 else legal[int(uniform(seeds[i], j) * n)]
            _apply(g, hands, won, tricks, positions, turns, decls, action)
            if keep:
                histories[i, count] = action
            count += 1
        _result(g, hands, dealt, won, tricks, positions, decls, returns[i])
        moves[i] = count
