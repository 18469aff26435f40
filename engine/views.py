"""What one player sees (OpenSpiel's observation for one player): the only redaction."""

from __future__ import annotations

from .state import Pile, State


def view_for(state: State, seat: int) -> State:
    """``state`` as ``seat`` sees it: other hands and the stock by size only, the discard pile
    by its top card, size and whether it is frozen. Cards of the pile that ``seat`` took and
    holds this turn stay visible to ``seat``."""
    hands = tuple(h if i == seat else None for i, h in enumerate(state.hands))
    pile = state.pile
    turn = state.turn
    if turn.seat != seat and turn.held:
        turn = turn._replace(held=None)
    return state._replace(hands=hands, pile=Pile(None, pile.top, pile.size, pile.frozen),
                          stock=None, turn=turn)
