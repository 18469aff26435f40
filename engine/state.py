"""Immutable game state, melds and actions (python-chess style value types).

They are named tuples: immutable, hashable where their parts are, and quick to make, which
matters because a playout makes several per action.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .cards import JOKER, REAL, Counts, is_black_three, is_red_three, is_wild
from .rules import RuleSet

DRAW: Final = "draw"
PLAY: Final = "play"
ANSWER: Final = "answer"
OVER: Final = "over"
# a named tuple's own ``__new__`` is Python (a frame per call, even compiled): hot code makes
# its tuples with ``tuple.__new__``, the C function that one calls
new_tuple: Final = tuple.__new__


class Meld(NamedTuple):
    """A side's meld: one rank (or THREE for black threes, WILD_RANK for wild melds)."""

    rank: int
    cards: tuple[int, ...]  # sorted
    naturals: int
    wilds: int

    @staticmethod
    def of(rank: int, cards: tuple[int, ...] | list[int]) -> Meld:
        return meld_of(rank, cards)

    def plus(self, cards: tuple[int, ...]) -> Meld:
        return meld_of(self.rank, self.cards + cards)

    @property
    def size(self) -> int:
        return len(self.cards)


class Pile(NamedTuple):
    """The discard pile: cards bottom to top when known, else only what a player sees."""

    cards: tuple[int, ...] | None
    top: int | None
    size: int
    frozen: bool  # frozen for everyone: a card that freezes it lies in it

    @staticmethod
    def of(cards: tuple[int, ...], freeze_on_wild: bool = True,
           freeze_on_red_three: bool = True, freeze_on_black_three: bool = False) -> Pile:
        return pile_of(cards, freeze_on_wild, freeze_on_red_three, freeze_on_black_three)


EMPTY_PILE: Final = Pile((), None, 0, False)


# Module functions, not only the static methods: compiled, a call of a named tuple's method
# goes through Python's calling convention, a call of a module function does not.


def meld_of(rank: int, cards: tuple[int, ...] | list[int]) -> Meld:
    """The meld of ``rank`` holding ``cards``, its cards sorted: twos (cards 0-3) first, jokers
    last."""
    ordered = cards if type(cards) is tuple and _ascending(cards) else tuple(sorted(cards))
    wilds = 0
    for card in ordered:  # compiled: a loop of int compares, not two calls through Python's
        if card < 4 or card == JOKER:  # convention (bisect_left, tuple.count: 1.3k of 3.3k)
            wilds += 1
    meld: Meld = new_tuple(Meld, (rank, ordered, len(ordered) - wilds, wilds))
    return meld


def _ascending(cards: tuple[int, ...]) -> bool:
    """Whether ``cards`` are in order already, as the service writes a meld's cards (compiled:
    an int compare a card, where ``sorted`` makes a list, sorts it and makes a tuple again)."""
    last = -1
    for card in cards:
        if card < last:
            return False
        last = card
    return True


def pile_of(cards: tuple[int, ...], freeze_on_wild: bool = True,
            freeze_on_red_three: bool = True, freeze_on_black_three: bool = False) -> Pile:
    """A known pile; frozen for everyone while a red three (turned up at the deal), a wild card
    or a black three lies in it, where these freeze it (pagat "Frozen Discard Pile"; Canastra rule text
    'Häufige Varianten: Einfrierregeln')."""
    frozen = False
    for card in cards:  # compiled: an int compare or two a card, where three set.isdisjoint
        if (card < 8 or card == JOKER) and (  # hashed each card; twos, threes, the joker only
                (freeze_on_wild and is_wild(card)) or (freeze_on_red_three and is_red_three(card))
                or (freeze_on_black_three and is_black_three(card))):
            frozen = True
            break
    pile: Pile = new_tuple(Pile, (cards, cards[-1] if cards else None, len(cards), frozen))
    return pile


class Turn(NamedTuple):
    """Whose move, the phase, and what the turn and the deal must remember (docs/wire-format.md)."""

    seat: int
    phase: str
    drawn: bool = False
    took_pile: bool = False
    pending: tuple[Meld, ...] = ()
    held: tuple[int, ...] | None = ()
    held_size: int = 0
    asked: str | None = None
    asked_this_deal: tuple[int, ...] = ()
    melded: tuple[int, ...] = ()
    started: tuple[int, ...] = ()
    extended: bool = False
    went_out: int | None = None
    concealed: bool = False
    partner_melded: bool = False
    stock_exhausted: bool = False
    played: tuple[int, ...] = ()  # seats that have finished a turn this deal
    # the pile's cards joined the hand before the side's initial meld stood: the turn goes out
    # at once, without the minimum (German Handcanasta; ``RuleSet.concealed_pile_waives_minimum``)
    going_out: bool = False


class State(NamedTuple):
    rules: RuleSet
    dealer: int
    scores: tuple[int, ...]
    hands: tuple[Counts | None, ...]  # None: only the size is known
    hand_sizes: tuple[int, ...]
    melds: tuple[tuple[Meld, ...], ...]  # per side
    bonus: tuple[tuple[int, ...], ...]  # per side: red threes laid out
    pile: Pile
    stock: tuple[int, ...] | None  # top first; None: only the size is known
    stock_size: int
    turn: Turn
    set_aside: tuple[int, ...] = ()  # cards out of play for the deal (Family Canasta upcards)


class Action(NamedTuple):
    """One move. ``kind`` is draw, take-pile, meld, discard, ask or answer."""

    kind: str
    cards: tuple[int, ...] = ()
    rank: int | None = None
    card: int | None = None
    allow: bool | None = None
    seat: int | None = None


def action_class(action: Action) -> tuple[object, ...]:
    """Key of the action's equivalence class: suits of naturals and of twos are interchangeable
    in melds and pile pickups (suits never matter there); discards keep the exact card."""
    if action.kind == "meld" and action.rank is not None and action.rank <= REAL:
        return (action.kind, REAL, tuple(sorted(action.cards)))  # a suit sequence: suits matter
    if action.kind in ("meld", "take-pile"):
        key = tuple(sorted(-2 if c == JOKER else (-1 if c < 4 else c >> 2) for c in action.cards))
        return (action.kind, action.rank, key)
    return (action.kind, action.card, action.allow)
