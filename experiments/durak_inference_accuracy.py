"""How well do the card weights of ``infer`` place the opponent's hidden cards?

Plays ``--games`` two-player games of ``--agent`` (seat 0) against ``--opponent``
(seat 1) on fresh deals and, at every decision of seat 0 while the stock lasts and
the opponent holds cards seat 0 has not seen, deals ``--worlds`` worlds with the
weights of each ``--trust`` (0 = uniform worlds, the plain search's) and counts
how many of the opponent's true hidden cards each world puts in its hand. Printed:
per trust, the mean share of the opponent's hidden cards placed right (knowing the
hand, as ``durak_hand_oracle`` does, would be 100%) and the mean log-probability
of the true hand's cards under the worlds' card frequencies (higher is better).

``--particles M`` adds the exact reading under the opponent model, as a yardstick
for the weights: a particle filter over the opponent's whole hand through the game
(each particle deals it its first six cards and every draw card by card from the
cards that may still lie in the stock, uniformly unless the cards it plays later
would no longer fit into its later draws - then from those; importance weight: one
over the probability of the picks, as every deal is equally likely; at each of its
decisions a particle is weighted by the chance of the move under the model: ``eps``
spread over the legal moves, the rest on greedy's move; resampled when the effective
sample size falls below ``M / 2``). It reads only what seat 0 knows: its own cards,
the public moves, how many cards each seat drew. ``--check`` also runs one particle
along the true draws (left out of the figures) and stops if the filter ever rules
it out.

    python experiments/durak_inference_accuracy.py --games 60 --seed 2048 --particles 300
"""

from __future__ import annotations

import argparse
from math import log

import numpy as np

from spielwerk.core.agent import make_agent
from spielwerk.core.game import State
from spielwerk.core.play import play
from spielwerk.core.registry import load_game
from spielwerk.games.durak import kernel as K
from spielwerk.games.durak.inference import card_weights, hidden_places
from spielwerk.games.durak.policies import greedy_action
from spielwerk.games.durak.rules import DurakInfoState, DurakState
from spielwerk.games.durak.worlds import weighted_order


def dealt_to_opponent(info: DurakInfoState, trust: float, worlds: int,
                      rng: np.random.Generator) -> np.ndarray:
    """How often each card (52) went to the other seat's hidden places in ``worlds`` worlds
    dealt with the weights of ``trust`` (0: uniformly)."""
    W = card_weights(info, trust) if trust > 0 else None
    unseen, counts, weights = hidden_places(info, W)
    freq = np.zeros(52)
    for _ in range(worlds):
        if weights.shape[0] == 0:
            order = rng.permutation(unseen)
        else:
            order = weighted_order(unseen, counts, weights, int(rng.integers(2**31 - 1)))
        freq[order[: counts[0]]] += 1
    return freq / worlds


Event = tuple[str, int, int, int, int, np.ndarray | None]
"""(kind, a, b, c, true cards, public state): ("decide", action, ...), ("play", cards),
("take", cards), ("draw", count, public card, cards that may lie in stock or hand,
the true cards - read only by ``--check``)."""


def opponent_events(state: DurakState, viewer: int) -> tuple[list[Event], list[int]]:
    """The game so far as the viewer saw the other seat's part of it, and for each event
    the cards the viewer drew after it (they were still in the stock then)."""
    g = state.dgame
    opp = 1 - viewer
    S = K.new_state(g.players, g.deck, g.flags)
    hist = [int(a) for a in state.history]
    i = 0
    while S[K.PHASE] == K.PH_DEAL:
        K.apply_action(S, hist[i])
        i += 1
    trump = 1 << int(S[K.TRUMP_CARD])
    full = K.deck_mask(int(S[K.DECK]))
    ev: list[Event] = [("draw", K.HAND_SIZE, 0, full & ~int(S[K.HANDS + viewer]) & ~trump,
                        int(S[K.HANDS + opp]), None)]
    viewer_draws: list[tuple[int, int]] = []
    for a in hist[i:]:
        before = S.copy()
        if int(S[K.TO_MOVE]) == opp:
            ev.append(("decide", a, 0, 0, 0, before))
        K.apply_action(S, a)
        table = int(before[K.ATTACK] | before[K.DEFENCE])
        gone = int(before[K.HANDS + opp]) & ~int(S[K.HANDS + opp])
        if gone:
            ev.append(("play", gone, 0, 0, 0, None))
        new = int(S[K.HANDS + opp]) & ~int(before[K.HANDS + opp])
        if new & table:
            ev.append(("take", new & table, 0, 0, 0, None))
        mine = int(S[K.HANDS + viewer]) & ~int(before[K.HANDS + viewer]) & ~table
        if mine:
            viewer_draws.append((len(ev), mine))
        drawn = new & ~table
        if drawn:
            public = drawn & trump
            may = (full & ~int(S[K.HANDS + viewer]) & ~int(S[K.ATTACK] | S[K.DEFENCE])
                   & ~int(S[K.DISCARD]))
            if not public:
                may &= ~trump
            ev.append(("draw", K.popcount(drawn), public, may, drawn, None))
    later = [0] * len(ev)
    for j, cards in viewer_draws:
        for k in range(min(j, len(ev))):
            later[k] |= cards
    return ev, later


def _propose(count: int, free: int, needs: list[int], room: list[int],
             rng: np.random.Generator) -> tuple[int, float]:
    """One draw of ``count`` cards from ``free``, card by card, such that the cards the
    opponent plays later (``needs[i]``: before its draw ``i + 1`` from now, not yet in
    its hand) still fit into its later draws (``room[i]`` cards at draw ``i + 1``): a
    card is drawn uniformly from ``free`` unless the remaining slots are all owed, then
    from the cards owed soonest. Returns the cards and the log-probability of that
    sequence of picks (-1 and 0 when the needs cannot be met)."""
    got, log_q = 0, 0.0
    for left in range(count, 0, -1):
        owed, tight, union, later_room = 0, 0, 0, 0
        for i, need in enumerate(needs):
            if i > 0:
                later_room += room[i - 1]
            union |= need & ~got
            short = K.popcount(union) - later_room
            if short > owed:
                owed, tight = short, union
        if owed > left:
            return -1, 0.0
        pool = tight & free & ~got if owed == left else free & ~got
        cards = [c for c in range(52) if pool >> c & 1]
        if not cards:
            return -1, 0.0
        got |= 1 << cards[int(rng.integers(len(cards)))]
        log_q -= log(len(cards))
    return got, log_q


def particle_hands(state: DurakState, viewer: int, M: int, eps: float,
                   rng: np.random.Generator, check: bool = False) -> tuple[list[int], np.ndarray]:
    """The other seat's hand now: ``M`` particles and their normalized weights (see the
    module's text). With ``check`` one more particle follows the true draws and must
    survive; it is not returned."""
    opp = 1 - viewer
    ev, later = opponent_events(state, viewer)
    # cards the opponent plays after each of its draws and before the next that it had
    # not held before (taken from the table or played already): they came with a draw
    forced: dict[int, int] = {}
    last, held = 0, 0
    for k, e in enumerate(ev):
        if e[0] == "draw":
            last = k
            forced[k] = 0
        elif e[0] == "take":
            held |= e[1]
        elif e[0] == "play":
            forced[last] |= e[1] & ~held
            held |= e[1]
    order = [k for k, e in enumerate(ev) if e[0] == "draw"]
    buf = np.empty(K.MAX_ACTIONS, np.int64)
    M += check
    hands = [0] * M
    logw = np.zeros(M)
    for k, e in enumerate(ev):
        kind = e[0]
        if kind == "decide":
            assert e[5] is not None
            Sp, a = e[5].copy(), e[1]
            for m, h in enumerate(hands):
                if logw[m] == -np.inf:
                    continue
                Sp[K.HANDS + opp] = h
                nl = K.legal_actions(Sp, buf)
                if a not in buf[:nl]:
                    logw[m] = -np.inf
                    continue
                logw[m] += log(eps / nl + (1 - eps) * (a == greedy_action(Sp, False)))
        elif kind == "play":
            hands = [h & ~e[1] for h in hands]
        elif kind == "take":
            hands = [h | e[1] for h in hands]
        else:
            count, public, may, true_cards = e[1], e[2], e[3], e[4]
            at = order.index(k)
            for m in range(M):
                if logw[m] == -np.inf:
                    continue
                h = hands[m]
                free = may & ~h & ~later[k]
                needs = [(forced[j] | (public if j == k else 0)) & ~h for j in order[at:]]
                room = [ev[j][1] for j in order[at + 1:]]
                if check and m == 0:
                    if (true_cards & needs[0]) != needs[0] or true_cards & ~free:
                        raise AssertionError(f"the true draw is ruled out at event {k}")
                    hands[m] = h | true_cards
                    continue
                got, log_q = _propose(count, free, needs, room, rng)
                if got < 0:
                    logw[m] = -np.inf
                    continue
                hands[m] = h | got
                logw[m] -= log_q
        if kind in ("decide", "draw"):
            if check and logw[0] == -np.inf:
                raise AssertionError(f"the true hand is ruled out at event {k}")
            if not np.isfinite(logw[int(check):].max()):
                raise RuntimeError(f"every particle was ruled out at event {k}: use more")
            w = np.exp(logw - logw.max())
            w /= w.sum()
            if 1.0 / float((w ** 2).sum()) < M / 2:
                if check:  # the true particle keeps its place and has no offspring
                    rest_w = w[1:] / w[1:].sum()
                    pick = np.concatenate([[0], 1 + rng.choice(M - 1, M - 1, p=rest_w)])
                else:
                    pick = rng.choice(M, M, p=w)
                hands = [hands[int(j)] for j in pick]
                logw = np.zeros(M)
    if check:
        if hands[0] != int(state.S[K.HANDS + opp]):
            raise AssertionError("the true particle does not hold the true hand")
        hands, logw = hands[1:], logw[1:]  # the figures leave it out
    w = np.exp(logw - logw.max())
    return hands, w / w.sum()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="durak(preset=zarlykov2023)")
    ap.add_argument("--agent", default="greedy", help="seat 0, whose worlds are measured")
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=100)
    ap.add_argument("--trust", type=float, nargs="+", default=[0.0, 0.8, 1.0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--particles", type=int, default=0, help="0: no exact reading")
    ap.add_argument("--eps", type=float, default=0.05, help="the exact reading's noise")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    game = load_game(args.game)
    if game.num_players != 2:
        ap.error("a two-player game, please")
    rng = np.random.default_rng(args.seed)
    rows: list[str] = [f"trust {t:g}" for t in args.trust]
    if args.particles:
        rows.append(f"exact reading ({args.particles} particles, eps {args.eps:g})")
    placed: dict[str, list[float]] = {r: [] for r in rows}
    loglik: dict[str, list[float]] = {r: [] for r in rows}
    def measure(s: State, player: int, action: int) -> None:
        """Before each of seat 0's moves while the stock lasts: score every reading."""
        if player != 0:
            return
        assert isinstance(s, DurakState)
        info = s.info_state(0)
        assert isinstance(info, DurakInfoState)
        truth = int(s.S[K.HANDS + 1]) & ~info.known[1]
        cards = [c for c in range(52) if truth >> c & 1]
        if info.stock == 0 or not cards:
            return
        freqs = [dealt_to_opponent(info, t, args.worlds, rng) for t in args.trust]
        if args.particles:
            hands, w = particle_hands(s, 0, args.particles, args.eps, rng, args.check)
            freq = np.zeros(52)
            for h, wi in zip(hands, w, strict=True):
                freq[[c for c in range(52) if h >> c & 1]] += wi
            freqs.append(freq)
        for r, f in zip(rows, freqs, strict=True):
            placed[r].append(float(f[cards].mean()))
            loglik[r].append(float(np.log(np.maximum(f[cards], 0.5 / args.worlds)).mean()))

    for g in range(args.games):
        agents = [make_agent(args.agent, game, seed=2 * g), make_agent(args.opponent, game,
                                                                         seed=2 * g + 1)]
        play(game.new_initial_state(), agents, rng, before=measure)
        print(f"game {g + 1}/{args.games}: {len(placed[rows[0]])} positions", flush=True)
    print(f"{game.game_type.long_name}: {args.agent} watching {args.opponent}, {args.games} "
          f"games, seed {args.seed}, {args.worlds} worlds a position")
    print("| worlds | positions | hidden cards placed right | mean log-probability per card |")
    print("| --- | ---: | ---: | ---: |")
    for r in rows:
        v = np.array(placed[r])
        se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
        print(f"| {r} | {len(v)} | {100 * v.mean():.1f}% (+- {100 * 1.96 * se:.1f}) | "
              f"{np.mean(loglik[r]):.3f} |")


if __name__ == "__main__":
    main()
