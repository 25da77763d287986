"""The suit and grand defender's choice between cards that PIMC values alike.

With win values a defender's vote ties often: in every sampled world the declarer reaches
61 whatever the card (or in none), so every card scores alike and the seeded random pick
decides - a defender then throws a ten onto the declarer's trick as readily as onto its
partner's. Here such a tie is broken by the current trick: of the tied cards, the one with
the best mean over the worlds the vote solved of the card points the trick brings the
defenders (minus those it brings the declarer), the rest of the trick played best for each
side - the partner's sure trick gets the points (smearing), the declarer's gets none. It
changes no card the vote tells apart, so it can only choose between cards the double-dummy
search found equally good.

:func:`margin_preference` breaks the same ties by how far the declarer stays from the goal
(``suit_margin``): double-dummy play decides most worlds whatever the defender's card, but
the declarer does not see the cards, and a card after which the declarer reaches the goal
only just leaves him more room to go wrong than one after which he reaches it easily.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spielwerk.games.skat import kernel
from spielwerk.games.skat.cards import NULL, POINTS_BY_CARD, cards_of
from spielwerk.games.skat.dds import DealPosition
from spielwerk.games.skat.info import SkatInfoState
from spielwerk.games.skat_ai.null_play import trick_totals


def trick_balance(trick: list[int], leader: int, hands: list[int], declarer: int,
                  game: int) -> int:
    """The card points the trick ``trick`` (cards so far, led by ``leader``) brings the
    defenders, minus those it brings the declarer, the rest of it played from ``hands``
    (card masks per seat), each side at its best for this trick."""
    if len(trick) == 3:
        led = trick[0]
        powers = [kernel.card_power(c, led, game) for c in trick]
        winner = (leader + powers.index(max(powers))) % 3
        points = sum(POINTS_BY_CARD[c] for c in trick)
        return -points if winner == declarer else points
    seat = (leader + len(trick)) % 3
    legal = kernel.legal_cards(hands[seat], trick[0] if trick else -1, game)
    values = [trick_balance(trick + [c], leader,
                            [h & ~(1 << c) if i == seat else h for i, h in enumerate(hands)],
                            declarer, game)
              for c in cards_of(legal)]
    return min(values) if seat == declarer else max(values)


def suit_defender_preference(info: SkatInfoState, tied: list[int],
                             worlds: Sequence[DealPosition]) -> int | None:
    """The suit or grand defender's card among ``tied`` (see the module docstring); None
    in null, for the declarer, without worlds, or when the tied cards score alike."""
    if info.game_code == NULL or info.player == info.declarer or not worlds:
        return None
    return first_best(tied, trick_totals(tied, worlds, lambda trick, pos, hands: trick_balance(
        trick, pos.leader, hands, pos.declarer, pos.game)))


def first_best(tied: list[int], scores: dict[int, int] | dict[int, float] | None
               ) -> int | None:
    """The first card of ``tied`` with the best score; None without scores or where the
    cards score alike."""
    if not scores:
        return None
    best = max(scores.values())
    if min(scores.values()) == best:
        return None
    return next(c for c in tied if scores[c] == best)


def margin_preference(info: SkatInfoState, tied: list[int], worlds: Sequence[DealPosition],
                      defended: Callable[[DealPosition], dict[int, float]],
                      reaches: Callable[[DealPosition, int, int], dict[int, bool]],
                      margin: int) -> int | None:
    """The first of the cards in ``tied`` with the best :func:`margin_scores`; None where
    they are not scored or score alike."""
    return first_best(tied, margin_scores(info, tied, worlds, defended, reaches, margin))


def margin_scores(info: SkatInfoState, tied: list[int], worlds: Sequence[DealPosition],
                  defended: Callable[[DealPosition], dict[int, float]],
                  reaches: Callable[[DealPosition, int, int], dict[int, bool]],
                  margin: int) -> dict[int, int] | None:
    """The suit or grand defender's cards in ``tied`` scored by the declarer's margin: per world
    the vote solved (each counted as often as the vote counted it), a tied card scores 1
    where it holds the declarer below ``goal + margin`` in a world he wins
    (``defended(world)[card] == 0``), or below ``goal - margin`` in a world he loses; the
    total over the worlds; the card with the most is preferred. ``reaches(world, points,
    card_mask)`` answers per card whether the declarer ends with at least ``points``. None
    in null, for the declarer, for a goal that is not card points (schwarz announced), or
    without worlds.

    Each card also scores 2 per world in which it beats the game: nothing among cards the
    vote ties exactly, while among near ties (``suit_slack``) a card counts as 3 thresholds
    of the declarer's points per world (below goal - margin, below the goal, below goal +
    margin) - a world won by a card is worth more than the margin's credit, and a card a
    world behind can still be played where it leaves the declarer far less room."""
    contract = info.contract
    if (info.game_code == NULL or info.player == info.declarer or not worlds or margin <= 0
            or contract is None or not contract.goal().isdigit()):
        return None
    goal = int(contract.goal())
    scores = dict.fromkeys(tied, 0)
    cache: dict[DealPosition, dict[int, int]] = {}
    for pos in worlds:
        if pos not in cache:
            values = defended(pos)
            won = sum(1 << c for c in tied if values.get(c) == 0.0)
            lost = sum(1 << c for c in tied if values.get(c) == 1.0)
            held = {c: 2 for c in tied if values.get(c) == 1.0}
            for mask, mark in ((won, goal + margin), (lost, goal - margin)):
                if mask:
                    for c, r in reaches(pos, mark, mask).items():
                        if c in scores:
                            held[c] = held.get(c, 0) + int(not r)
            cache[pos] = held
        for c, v in cache[pos].items():
            scores[c] += v
    return scores
