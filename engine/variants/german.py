"""German Canasta after the ASS Altenburger leaflet (seed 004; differences listed in seed 000
'Unterschiede in der Regel von ASS Altenburger'). Classic with data changes only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

ASS = "seed 004 (ASS Altenburger)"
SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{ASS}: 'zu dritt oder zu viert'; seed 000 'Varianten'",
    "deal": f"{ASS}: 'jeder der vier Spieler erhält 11 Karten, beim Spiel zu dritt 13'",
    "melds.wilds": f"{ASS}: 'jedoch müssen die natürlichen Karten in der Mehrzahl sein' (ASS p. 2)",
    "initial_meld": f"{ASS}: 'mindestens 15 ... 50 ... 90 ... 120' (ASS p. 2; VARIANTS.md german)",
    "pile.take": f"{ASS}: 'anlegen oder mit zwei Handkarten (ohne wilde Karten)' (ASS p. 3)",
    "pile.frozen": f"{ASS}: 'Liegt eine wilde Karte (quer) ... eingefroren' (ASS p. 3)",
    "threes.red": f"{ASS}: 'Die rote Drei' (ASS p. 1); no canasta: minus (ASS p. 4)",
    "threes.black": f"{ASS}: 'Die schwarze Drei'; 'Schwarze Dreier ... nur zum Ausmachen'",
    "going_out": f"{ASS}: 'Das Ausmachen': a canasta, always a last card to discard (ASS p. 4)",
    "going_out.concealed": f"{ASS}: 'Blatt Ausmachen' 200, 'Handcanasta' 1,000 (ASS p. 4)",
    "stock_exhausted": f"{ASS}: 'Hat keiner ... ausmachen können' (each side -100, ASS p. 4)",
    "scoring": f"{ASS}: 'Nach dem Ausmachen rechnet jeder Spieler' (ASS p. 4-5)",
    "target": f"{ASS}: 'zuerst 3000 Punkte (beim Viererspiel 5000)'",
    "options": "VARIANTS.md: german, options from the leaflet's house rules (ASS p. 5)",
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
