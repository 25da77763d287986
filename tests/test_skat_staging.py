"""Staged Skat states: a fixed declarer at 18, the skat picked up, a put and a game."""

from __future__ import annotations

import pytest

from spielwerk.games.skat.cards import CLUBS, GRAND, string_to_card
from spielwerk.games.skat.rules import PLAY, PUT
from spielwerk.games.skat.staging import StagingError, stage_play, stage_put
from spielwerk.games.skat_ai.baseline import SkatRuleAgent
from spielwerk.games.skat_ai.knowledge.deals import WEAK_ACCEPT, make_deal


def h(text: str) -> int:
    return sum(1 << string_to_card(t) for t in text.split())


def _deal(hand: int, skat: int) -> tuple[tuple[int, int, int], int]:
    rest = [c for c in range(32) if not (hand | skat) >> c & 1]
    return (hand, sum(1 << c for c in rest[:10]), sum(1 << c for c in rest[10:])), skat


@pytest.mark.parametrize("game", [CLUBS, GRAND])
def test_stage_play_sets_declarer_game_and_put(game: int) -> None:
    for deal in range(3):
        position, hands, skat = make_deal(7, deal, WEAK_ACCEPT)
        twelve = hands[position] | skat
        put = sorted(c for c in range(32) if twelve >> c & 1)[:2]
        mask = (1 << put[0]) | (1 << put[1])
        st = stage_play(hands, skat, position, game, mask)
        assert st.phase == PLAY and st.put == mask and st.auction.value == 18
        assert st.declarer == st.sgame.seat_of(position)
        assert st.contract is not None and st.contract.game == game
        assert st.hands[st.declarer] == twelve & ~mask


def test_stage_put_leaves_the_declarer_to_put_and_the_rule_agent_puts_the_blank_ten() -> None:
    hands, skat = _deal(h("CJ SJ CA CT C9 C8 C7 SA SK HT"), h("D7 D8"))
    state = stage_put(hands, skat, 0)
    assert state.phase == PUT and state.current_player == state.declarer
    agent = SkatRuleAgent(state.game, seed=0)
    while state.phase == PUT:
        state.apply(agent.act(state.info_state(state.current_player)))
    assert state.put.bit_count() == 2 and state.put & ~(hands[0] | skat) == 0
    assert state.put & h("HT")  # a blank ten goes into the skat


def test_bad_cards_are_refused_with_one_line() -> None:
    hands, skat = _deal(h("CJ SJ CA CT C9 C8 C7 SA SK HT"), h("D7 D8"))
    with pytest.raises(StagingError, match="position must be"):
        stage_put(hands, skat, 3)
    with pytest.raises(StagingError, match="all 32 cards once"):
        stage_put((hands[0], hands[0], hands[2]), skat, 0)
    with pytest.raises(StagingError, match="two of the declarer's twelve"):
        stage_play(hands, skat, 0, CLUBS, h("D7 HA"))
