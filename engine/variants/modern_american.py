"""Modern American Canasta after seed 001 (right-hand column of 'Regeländerungen'): classic as
data plus the switches of ``engine.rules`` that only this variant sets."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

SEED = "seed 001 (Regeländerungen)"
SEVEN, ACE = 5, 12  # rank indexes

SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{SEED}: 'Spieler' (exactly four, two partnerships)",
    "deck": f"{SEED}; pagat: The Cards (108 cards)",
    "deal": f"{SEED}: 'Geben' (13 cards; the pile starts empty)",
    "turn": f"{SEED}: 'Ziehen' (one card from the stock)",
    "melds": f"{SEED}: 'Auslagen' (three to seven cards; a completed pure canasta closes its rank); "
             "'Auslagen aus wilden Karten'",
    "melds.wilds": f"{SEED}: 'Auslagen' (at most two wild cards), 'Wilde Karten anlegen' (rule of "
                   "five), 'Siebenen und Asse', 'Auslagen aus wilden Karten'",
    "canasta": f"{SEED}: 'Canasta-Prämien'",
    "initial_meld": f"{SEED}: 'Erstauslage' (125/155/180 from the hand; a pure meld or a wild "
                    "meld; a canasta from the hand needs no minimum)",
    "pile.take": f"{SEED}: 'Den Ablagestapel nehmen' (always a natural pair; meld of 3-4 cards)",
    "pile.frozen": f"{SEED}: 'Den Ablagestapel nehmen' (always a natural pair)",
    "discard": f"{SEED}: 'Abwerfen'",
    "threes.red": f"{SEED}: 'Dreien' (every three laid out; 100/300/500/1,000 per colour)",
    "threes.black": f"{SEED}: 'Dreien' (every three laid out, never melded or discarded)",
    "going_out": f"{SEED}: 'Ausmachen' (two canastas, a last discard, 100)",
    "going_out.ask": "seed 001 introduction: 'einmal pro Spiel direkt nach dem Ziehen'",
    "going_out.concealed": f"{SEED}: 'Ausmachen' (no extra bonus for going out in one turn)",
    "stock_exhausted": "seed 001 introduction (no play on the pile when the stock is used up); "
                       "VARIANTS.md modern-american",
    "scoring": f"{SEED}: 'Strafen', 'Canasta-Prämien', 'Dreien'",
    "target": f"{SEED}: 'Siegpunktzahl' (8,500)",
    "options": "VARIANTS.md: modern-american (target)",
}


def _card_values() -> tuple[int, ...]:
    """Classic values; every three counts 5 (a three left in the hand, seed 001 'Dreien')."""
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
           "like any other (CLA; research.md D14)."),
)


def build(options: dict[str, Any]) -> RuleSet:
    return replace(MODERN_AMERICAN, target=options["target"],
                   wild_meld_incomplete_four_jokers=options["four_jokers_penalty"])
