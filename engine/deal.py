"""A fresh deal from a seed: shuffle, deal, turn the upcard, lay out red threes (pagat "The Deal");
every three where the variant lays them all out (docs/variants/modern-american.md#threes)."""

from __future__ import annotations

import random
from typing import Any

from .cards import JOKER, counts_of, is_red_three, is_wild
from .rules import RuleSet
from .state import DRAW, Pile, State, Turn


def deck(rules: RuleSet) -> list[int]:
    """The deck in a fixed order: each suited card ``packs`` times, then the jokers."""
    return [c for c in range(52) for _ in range(rules.packs)] + [JOKER] * rules.jokers


def deal(rules: RuleSet, seed: int | str = 0, dealer: int = 0,
         scores: tuple[int, ...] | None = None) -> tuple[State, list[dict[str, Any]]]:
    """Deal from a seeded shuffle. Cards go one at a time clockwise from the dealer's left; a wild
    or red three upcard is covered by further upcards (the pile is then frozen), buried back in
    the stock, or set aside, as the variant says; red threes dealt are laid out and replaced from
    the stock, seat by seat from the dealer's left."""
    cards = deck(rules)
    rng = random.Random(str(seed) if not isinstance(seed, int) else seed)
    rng.shuffle(cards)
    stock = cards  # index 0 is the top
    n = rules.players
    hands: list[list[int]] = [[] for _ in range(n)]
    order = [(dealer + 1 + i) % n for i in range(n)]
    pos = 0
    for _ in range(rules.hand_size):
        for seat in order:
            hands[seat].append(stock[pos])
            pos += 1
    pile: list[int] = []
    set_aside: list[int] = []
    events: list[dict[str, Any]] = []
    while rules.upcard != "none":  # Modern American: the pile starts empty
        card = stock[pos]
        pos += 1
        if not (is_wild(card) or is_red_three(card)) or rules.upcard == "cover":
            pile.append(card)
            if not (is_wild(card) or is_red_three(card)):
                break
        elif rules.upcard == "bury":  # canastra: buried back in the stock, a new card turned
            where = rng.randrange(pos + 1, len(stock) + 1)
            stock.insert(where, card)
            del stock[pos - 1]
            pos -= 1
            events.append({"type": "upcard-buried", "cards": (card,)})
        else:  # family: set aside, out of play for the deal
            set_aside.append(card)
            events.append({"type": "upcard-set-aside", "cards": (card,)})
    if rules.upcard != "none":
        events.append({"type": "upcard", "cards": tuple(pile)})
    bonus: list[list[int]] = [[] for _ in range(rules.sides)]
    for seat in order:
        hand = hands[seat]
        while any(rules.is_bonus_card(c) for c in hand):
            reds = [c for c in hand if rules.is_bonus_card(c)]
            hand[:] = [c for c in hand if not rules.is_bonus_card(c)]
            bonus[rules.side_of(seat)].extend(reds)
            hand.extend(stock[pos:pos + len(reds)])
            pos += len(reds)
            events.append({"type": rules.threes_event(), "seat": seat, "cards": tuple(reds)})
    rest = tuple(stock[pos:])
    state = State(
        rules=rules,
        dealer=dealer,
        scores=scores if scores is not None else (0,) * rules.sides,
        hands=tuple(counts_of(tuple(h)) for h in hands),
        hand_sizes=tuple(len(h) for h in hands),
        melds=((),) * rules.sides,
        bonus=tuple(tuple(sorted(b)) for b in bonus),
        pile=Pile.of(tuple(pile), rules.freeze_on_wild, rules.freeze_on_red_three,
                     rules.freeze_on_black_three),
        stock=rest,
        stock_size=len(rest),
        turn=Turn(order[0], DRAW),
        set_aside=tuple(sorted(set_aside)),
    )
    return state, events
