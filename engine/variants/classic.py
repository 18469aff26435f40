"""Classic Canasta (docs/variants/classic.md; pagat.com "Canasta"; the Official Canasta Laws).

Data only: the base table and its options.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..reasons import Refusal, UnknownRules
from ..rules import Option, RuleSet, classic_card_values

#: where each rule stands: the section of the variant's page in docs/ (a link from the
#: repository's root), then its public source in parentheses
DOC = "docs/variants/classic.md"
PAGAT = "pagat.com, Canasta"
SOURCES: dict[str, str] = {
    "players": f"{DOC}#players-and-sides ({PAGAT}: 'Classic Canasta', 'Canasta for two players', "
               "'... for three players', '... for Six Players')",
    "deck": f"{DOC}#cards-and-card-values ({PAGAT}: 'The Cards')",
    "deal": f"{DOC}#the-deal ({PAGAT}: 'The Deal')",
    "turn": f"{DOC}#a-turn ({PAGAT}: 'The Play in Classic Canasta')",
    "melds": f"{DOC}#melds ({PAGAT}: 'Melds in Classic Canasta')",
    "melds.wilds": f"{DOC}#wild-cards-in-melds ({PAGAT}: 'Melds in Classic Canasta')",
    "canasta": f"{DOC}#canastas ({PAGAT}: 'Melds and Canastas')",
    "initial_meld": f"{DOC}#the-initial-meld ({PAGAT}: 'Initial Meld Requirement')",
    "pile.take": f"{DOC}#taking-the-discard-pile ({PAGAT}: 'The Play in Classic Canasta')",
    "discard": f"{DOC}#discarding ({PAGAT}: 'The Play in Classic Canasta')",
    "pile.blocked": f"{DOC}#a-blocked-pile ({PAGAT}: 'The Play in Classic Canasta')",
    "pile.wild_top": f"{DOC}#a-blocked-pile ({PAGAT}: 'The Play in Classic Canasta')",
    "pile.frozen": f"{DOC}#the-frozen-pile ({PAGAT}: 'Frozen Discard Pile')",
    "pile.buried": f"{DOC}#cards-under-the-top-card ({PAGAT}: 'The Play in Classic Canasta')",
    "pile.one_card": f"{DOC}#a-one-card-pile (Encyclopaedia Britannica, canasta: 'Going out')",
    "threes.red": f"{DOC}#red-threes ({PAGAT}: 'Threes in Classic Canasta')",
    "threes.black": f"{DOC}#black-threes ({PAGAT}: 'Threes in Classic Canasta')",
    "going_out": f"{DOC}#going-out ({PAGAT}: 'Going Out')",
    "going_out.ask": f"{DOC}#may-i-go-out ({PAGAT}: 'Going Out')",
    "going_out.concealed": f"{DOC}#going-out-concealed ({PAGAT}: 'Going Out', 'Initial Meld "
                           "Requirement')",
    "stock_exhausted": f"{DOC}#when-the-stock-runs-out ({PAGAT}: 'Going Out')",
    "scoring": f"{DOC}#scoring ({PAGAT}: 'Classic Canasta Scoring')",
    "target": f"{DOC}#winning-the-game ({PAGAT}: 'Classic Canasta Scoring')",
    "options": f"{DOC}#options ({PAGAT}: 'Classic Canasta Variations'; ASS Altenburger leaflet "
               "p. 5)",
    "hidden": "docs/wire-format.md#hidden-cards (the referee never guesses a hidden card)",
    "state": "docs/wire-format.md#state (the Canasta Referee wire format)",
}

CLASSIC = RuleSet(
    id="classic",
    title="Classic Canasta",
    version=1,
    options=(),
    players=4,
    sides=2,
    packs=2,
    jokers=4,
    hand_size=11,
    draw_count=1,
    min_naturals=2,
    max_wilds=3,
    natural_majority=False,
    canasta_size=7,
    natural_canasta_bonus=500,
    mixed_canasta_bonus=300,
    initial_minimums=((None, 15), (0, 50), (1500, 90), (3000, 120)),
    pile_natural_and_wild=True,
    freeze_on_wild=True,
    freeze_on_red_three=True,
    frozen_until_melded=True,
    black_three_blocks=True,
    one_card_pile_rule=True,
    red_three_bonus=100,
    red_three_bonus_all=((4, 800),),
    red_three_card_points=0,
    red_three_in_hand_penalty=500,
    canastas_to_go_out=1,
    going_out_bonus=100,
    concealed_bonus=200,
    ask_partner=True,
    stock_exhausted="continue",
    target=5000,
    card_values=classic_card_values(),
    sources=tuple(SOURCES.items()),
)

OPTIONS: tuple[Option, ...] = (
    Option("players", 4, (2, 3, 4, 6), "Number of players."),
    Option("sides", None, (None, 2, 3),
           "Sides: 2 or 3 players play alone; 4 players 2 sides; 6 players 3 sides of two "
           "(default) or 2 sides of three."),
    Option("target", None, (None, 2500, 5000, 7500, 10000),
           "Game target; default 5,000 (2 or 4 players), 7,500 (3; 6 in pairs), 10,000 (6 in threes)."),
    Option("natural_majority", False, (False, True),
           "House rule: natural cards must outnumber wild cards in every meld."),
    Option("pile_needs_natural_pair", False, (False, True),
           "House rule: an unfrozen pile is taken only with a natural pair or by adding to a meld."),
    Option("red_three_card_points", 0, (0, 5), "House rule: red threes also count 5 card points."),
    Option("ask_partner", True, (False, True), "A player may ask a partner \"may I go out?\"."),
    Option("wild_canasta", 0, (0, 1000, 2000),
           "House rule: a canasta of seven wild cards laid at once, with this bonus (0: not allowed)."),
)


def build(options: dict[str, Any]) -> RuleSet:
    """The classic table for the given (already checked) options (docs/variants/classic.md,
    "Players and sides")."""
    players = options["players"]
    sides = options["sides"]
    natural_sides = {2: 2, 3: 3, 4: 2, 6: sides or 3}[players]
    if sides is not None and sides != natural_sides:
        allowed = "2 or 3" if players == 6 else str(natural_sides)
        raise UnknownRules(Refusal("BAD_OPTION_VALUE", {"option": "sides", "allowed": allowed}),
                           "/options/sides")
    rules = CLASSIC
    if players == 2:
        rules = replace(rules, players=2, sides=2, hand_size=15, draw_count=2,
                        canastas_to_go_out=2, ask_partner=False)
    elif players == 3:
        rules = replace(rules, players=3, sides=3, hand_size=13, draw_count=2, target=7500,
                        ask_partner=False)
    elif players == 6:
        rules = replace(rules, players=6, sides=natural_sides, packs=3, jokers=6, hand_size=13,
                        canastas_to_go_out=2, target=7500 if natural_sides == 3 else 10000,
                        red_three_bonus_all=((5, 1000), (6, 1200)))
    target = options["target"] or rules.target
    minimums = rules.initial_minimums
    if players == 6 and target >= 10000:  # pagat "Canasta for Six Players"
        minimums = minimums + ((7500, 150),)
    return replace(
        rules,
        target=target,
        initial_minimums=minimums,
        natural_majority=options["natural_majority"],
        pile_natural_and_wild=not options["pile_needs_natural_pair"],
        red_three_card_points=options["red_three_card_points"],
        ask_partner=rules.ask_partner and options["ask_partner"],
        wild_meld="complete" if options["wild_canasta"] else "none",
        wild_canasta_bonus=options["wild_canasta"],
    )
