"""Modern American Canasta after pagat.com (docs/variants/modern-american.md): classic as data
plus the switches of ``engine.rules`` that only this variant sets."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

DOC = "docs/variants/modern-american.md"
MA = "pagat.com, Modern American Canasta"
SEVEN, ACE = 5, 12  # rank indexes

SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{DOC}#players-and-sides ({MA}: exactly four, two partnerships)",
    "deck": f"{DOC}#cards-and-card-values ({MA}; pagat.com, Canasta: 'The Cards')",
    "deal": f"{DOC}#the-deal ({MA}: 13 cards, the pile starts empty)",
    "turn": f"{DOC}#a-turn ({MA}: one card from the stock)",
    "melds": f"{DOC}#melds ({MA}: three to seven cards, a pure canasta closes its rank; "
             "wild-card melds)",
    "melds.wilds": f"{DOC}#wild-cards-in-melds ({MA}: at most two wild cards, the rule of five, "
                   "sevens and aces, wild-card melds)",
    "canasta": f"{DOC}#canastas ({MA}: canasta bonuses)",
    "initial_meld": f"{DOC}#the-initial-meld ({MA}: 125/155/180 from the hand; a pure meld or a "
                    "wild-card meld; a canasta from the hand needs no minimum)",
    "pile.take": f"{DOC}#taking-the-discard-pile ({MA}: always a natural pair; a meld of 3-4 "
                 "cards)",
    "discard": f"{DOC}#discarding ({MA}: discard restrictions)",
    "pile.blocked": f"{DOC}#a-blocked-pile ({MA}: taking the pile)",
    "pile.wild_top": f"{DOC}#a-blocked-pile ({MA}: taking the pile; a wild card matches no "
                     "natural pair)",
    "pile.frozen": f"{DOC}#the-frozen-pile ({MA}: always frozen, a natural pair)",
    "pile.buried": f"{DOC}#cards-under-the-top-card ({MA}: taking the pile)",
    "pile.one_card": f"{DOC}#a-one-card-pile ({MA})",
    "threes.red": f"{DOC}#threes ({MA}: every three laid out; 100/300/500/1,000 per colour)",
    "threes.black": f"{DOC}#threes ({MA}: every three laid out, never melded or discarded)",
    "going_out": f"{DOC}#going-out ({MA}: two canastas, a last discard, 100)",
    "going_out.ask": f"{DOC}#may-i-go-out ({MA}: once per deal, right after drawing)",
    "going_out.concealed": f"{DOC}#going-out-concealed ({MA}: no extra bonus for going out in "
                           "one turn)",
    "stock_exhausted": f"{DOC}#when-the-stock-runs-out ({MA}: no play on the pile after the "
                       "stock)",
    "scoring": f"{DOC}#scoring ({MA}: penalties, canasta bonuses, threes)",
    "target": f"{DOC}#winning-the-game ({MA}: 8,500)",
    "options": f"{DOC}#options ({MA}; Canasta League of America: the four-jokers penalty)",
}


def _card_values() -> tuple[int, ...]:
    """Classic values; every three counts 5 (a three left in the hand: docs/variants/
    modern-american.md, "Threes")."""
    values = list(CLASSIC.card_values)
    values[5] = values[6] = 5
    return tuple(values)


MODERN_AMERICAN = replace(
    CLASSIC,
    id="modern-american",
    title="Modern American Canasta",
    hand_size=13,
    max_wilds=2,
    card_values=_card_values(),
    initial_minimums=((None, 125), (3000, 155), (5000, 180)),
    upcard="none",
    pile_natural_and_wild=False,
    pile_add_alone=False,
    pile_always_frozen=True,
    black_three_blocks=False,
    one_card_pile_rule=False,
    black_three_meld=False,
    all_threes_bonus=True,
    last_three_kept=True,
    threes_by_colour=(0, 100, 300, 500, 1000),
    red_three_negative="by_canastas",
    red_three_bonus=0,
    red_three_bonus_all=(),
    red_three_in_hand_penalty=0,
    canastas_to_go_out=2,
    must_discard_to_go_out=True,
    concealed_bonus=100,
    concealed_waives_minimum=False,
    ask_once_per_deal=True,
    stock_exhausted="end",
    target=8500,
    max_meld_size=7,
    closed_ranks=True,
    rule_of_five=True,
    no_wild_ranks=(SEVEN,),
    initial_wild_ranks=(ACE,),
    wild_meld="grow",
    wild_meld_blocks=True,
    wild_canasta_bonus=2000,
    wild_canasta_bonuses=((7, 0, 3000), (3, 4, 2500)),
    pure_rank_canasta_bonus=((SEVEN, 2500), (ACE, 2500)),
    initial_from_hand=True,
    initial_needs_clean=True,
    canasta_waives_minimum=True,
    discard_rules="modern",
    empty_pile_ranks=(ACE, SEVEN),
    melded_negative_without_canasta=True,
    incomplete_penalties=((SEVEN, 2500), (ACE, 2500)),
    wild_meld_incomplete_penalty=2000,
    wild_meld_incomplete_four_jokers=2500,
    held_group_penalty=((ACE, 3, 1500), (SEVEN, 3, 1500)),
    sources=tuple(SOURCES.items()),
)

OPTIONS: tuple[Option, ...] = (
    Option("target", 8500, (2500, 5000, 7500, 8500, 10000), "Game target."),
    Option("four_jokers_penalty", 2500, (2500, 2000),
           "An incomplete wild-card meld holding all four jokers costs 2,500 (pagat) or 2,000 "
           "like any other (the Canasta League of America)."),
)


def build(options: dict[str, Any]) -> RuleSet:
    return replace(MODERN_AMERICAN, target=options["target"],
                   wild_meld_incomplete_four_jokers=options["four_jokers_penalty"])
