"""German Canasta after the ASS Altenburger rule leaflet (docs/variants/german.md). Classic with
data changes only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

DOC = "docs/variants/german.md"
ASS = "ASS Altenburger leaflet"
PAGAT = "pagat.com, Canasta"
SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{DOC}#players-and-sides ({ASS} p. 1: 'zu dritt oder zu viert')",
    "deck": f"{DOC}#cards-and-card-values ({ASS} pp. 1, 3, 5)",
    "deal": f"{DOC}#the-deal ({ASS} p. 1: 'jeder der vier Spieler erhält 11 Karten, beim Spiel zu "
            "dritt 13')",
    "turn": f"{DOC}#a-turn ({ASS} p. 2; {PAGAT}: 'The Play in Classic Canasta')",
    "melds": f"{DOC}#melds ({ASS} p. 2)",
    "melds.wilds": f"{DOC}#wild-cards-in-melds ({ASS} p. 2: 'jedoch müssen die natürlichen Karten "
                   "in der Mehrzahl sein')",
    "canasta": f"{DOC}#canastas ({ASS} p. 3)",
    "initial_meld": f"{DOC}#the-initial-meld ({ASS} p. 2: 'mindestens 15 ... 50 ... 90 ... 120')",
    "pile.take": f"{DOC}#taking-the-discard-pile ({ASS} p. 3: 'anlegen oder mit zwei Handkarten "
                 "(ohne wilde Karten)')",
    "discard": f"{DOC}#discarding ({ASS} pp. 2-3)",
    "pile.blocked": f"{DOC}#a-blocked-pile ({ASS} p. 2: 'Die schwarze Drei')",
    "pile.wild_top": f"{DOC}#a-blocked-pile ({ASS} p. 3; {PAGAT}: 'The Play in Classic Canasta')",
    "pile.frozen": f"{DOC}#the-frozen-pile ({ASS} p. 3: 'Liegt eine wilde Karte (quer) ... "
                   "eingefroren')",
    "pile.buried": f"{DOC}#cards-under-the-top-card ({PAGAT}: 'The Play in Classic Canasta')",
    "pile.one_card": f"{DOC}#a-one-card-pile (Encyclopaedia Britannica, canasta: 'Going out')",
    "threes.red": f"{DOC}#red-threes ({ASS} p. 1: 'Die rote Drei'; p. 4)",
    "threes.black": f"{DOC}#black-threes ({ASS} p. 2: 'Die schwarze Drei'; p. 4)",
    "going_out": f"{DOC}#going-out ({ASS} p. 4: 'Das Ausmachen')",
    "going_out.ask": f"{DOC}#may-i-go-out ({ASS} p. 4: 'Beim Spiel zu viert fragt man gewöhnlich "
                     "seinen Partner')",
    "going_out.concealed": f"{DOC}#going-out-concealed ({ASS} p. 4: 'Blatt Ausmachen', "
                           "'Handcanasta')",
    "stock_exhausted": f"{DOC}#when-the-stock-runs-out ({ASS} p. 4: 'Hat keiner der Spieler "
                       "ausmachen können')",
    "scoring": f"{DOC}#scoring ({ASS} pp. 4-5: 'Nach dem Ausmachen rechnet jeder Spieler')",
    "target": f"{DOC}#winning-the-game ({ASS} p. 4: 'zuerst 3000 Punkte (beim Viererspiel 5000')",
    "options": f"{DOC}#options ({ASS} p. 5: house rules)",
}

GERMAN = replace(
    CLASSIC,
    id="german",
    title="Canasta (ASS Altenburger, German rules)",
    natural_majority=True,
    initial_minimums=((None, 15), (0, 50), (1500, 90), (3001, 120)),
    pile_natural_and_wild=False,
    red_three_negative="no_canasta",
    must_discard_to_go_out=True,
    concealed_rule="at_once",
    blatt_bonus=200,
    hand_canasta_bonus=1000,
    stock_exhausted="end",
    stock_exhausted_penalty=100,
    red_three_in_hand_when_out=True,
    concealed_pile_waives_minimum=True,
    sources=tuple(SOURCES.items()),
)

OPTIONS: tuple[Option, ...] = (
    Option("players", 4, (3, 4), "Number of players: 4 in two sides, or 3 each alone."),
    Option("target", None, (None, 2500, 3000, 5000, 7500, 10000),
           "Game target; default 5,000 (four players) or 3,000 (three)."),
    Option("red_three_card_points", 0, (0, 5), "House rule: red threes also count 5 card points."),
    Option("hand_canasta_low", False, (False, True),
           "House rule: Handcanasta 200, and going out at once on the first turn 300."),
    Option("joker_canasta", 0, (0, 1000),
           "House rule: a Joker-Canasta of seven wild cards laid at once, with this bonus (0: none)."),
)


def build(options: dict[str, Any]) -> RuleSet:
    rules = GERMAN
    if options["players"] == 3:
        rules = replace(rules, players=3, sides=3, hand_size=13, target=3000, ask_partner=False)
    if options["hand_canasta_low"]:
        rules = replace(rules, hand_canasta_bonus=200, first_turn_bonus=300)
    return replace(rules, target=options["target"] or rules.target,
                   red_three_card_points=options["red_three_card_points"],
                   wild_meld="complete" if options["joker_canasta"] else "none",
                   wild_canasta_bonus=options["joker_canasta"])
