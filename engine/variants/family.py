"""Family Canasta (docs/variants/family.md): draw two, no freezing, the pile only after the
initial meld, at most two wild cards. Classic with data changes only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

DOC = "docs/variants/family.md"
TEXT = "Family Canasta rule text"
SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{DOC}#players-and-sides ({TEXT}: 'Am besten spielt ihr zu viert ... zu zweit oder "
               "zu dritt')",
    "deck": f"{DOC}#cards-and-card-values ({TEXT}: 'zwei komplette Kartendecks ... je 2 Joker pro "
            "Deck')",
    "deal": f"{DOC}#the-deal ({TEXT}: '11 Karten ... zu dritt 13 ... zu zweit 15'; upcard set "
            "aside)",
    "turn": f"{DOC}#a-turn ({TEXT}, turn steps 1-4: 'Du ziehst zwei Karten vom Nachziehstapel')",
    "melds": f"{DOC}#melds ({TEXT}, turn step 2: 'mindestens drei Karten mit dem gleichen Wert')",
    "melds.wilds": f"{DOC}#wild-cards-in-melds ({TEXT}, turn step 2: 'höchstens zwei wilde "
                   "Karten, mindestens zwei natürliche')",
    "canasta": f"{DOC}#canastas ({TEXT}, turn step 3: 'Wächst eine Meldung auf sieben oder mehr "
               "Karten')",
    "initial_meld": f"{DOC}#the-initial-meld ({TEXT}, special rules: 'Meist sind das 50 Punkte "
                    "... 90 oder sogar 120')",
    "pile.take": f"{DOC}#taking-the-discard-pile ({TEXT}, turn step 1: only when the side has "
                 "its initial meld)",
    "discard": f"{DOC}#discarding ({TEXT}, turn step 4)",
    "pile.blocked": f"{DOC}#a-blocked-pile ({TEXT}, special rules: 'Solange eine schwarze Drei "
                    "oben ... kann niemand den Stapel aufnehmen')",
    "pile.frozen": f"{DOC}#the-frozen-pile ({TEXT}: no freezing; the pile only after the initial "
                   "meld)",
    "pile.wild_top": f"{DOC}#a-blocked-pile ({TEXT}, turn step 1: 'eine Karte, die zu einer "
                     "Meldung passt'; a wild card fits no meld of a rank)",
    "pile.buried": f"{DOC}#cards-under-the-top-card (pagat.com, Canasta: 'The Play in Classic "
                   "Canasta')",
    "pile.one_card": f"{DOC}#a-one-card-pile ({TEXT}, turn step 1)",
    "threes.red": f"{DOC}#red-threes ({TEXT}, special rules: 'Jede rote Drei bringt am Ende 100 "
                  "Bonuspunkte')",
    "threes.black": f"{DOC}#black-threes ({TEXT}, special rules: 'Schwarze Dreien darfst du nur "
                    "als letzte Karte deines Zuges ablegen')",
    "going_out": f"{DOC}#going-out ({TEXT}, special rules: 'mindestens eine vollständige "
                 "Canasta')",
    "going_out.ask": f"{DOC}#may-i-go-out ({TEXT}: asking the partner is not part of this game)",
    "going_out.concealed": f"{DOC}#going-out-concealed ({TEXT}: no concealed bonus)",
    "stock_exhausted": f"{DOC}#when-the-stock-runs-out ({TEXT}, special rules: 'Wird der "
                       "Nachziehstapel leer, endet die laufende Runde')",
    "scoring": f"{DOC}#scoring ({TEXT}: 'Am Ende jeder Runde zählt jedes Team')",
    "target": f"{DOC}#winning-the-game ({TEXT}: 'bis ein Team insgesamt 5000 Punkte erreicht')",
    "options": f"{DOC}#options ({TEXT}: players)",
}

FAMILY = replace(
    CLASSIC,
    id="family",
    title="Family Canasta",
    draw_count=2,
    max_wilds=2,
    initial_minimums=((None, 50), (1500, 90), (3000, 120)),
    upcard="set_aside",
    freeze_on_wild=False,
    freeze_on_red_three=False,
    frozen_until_melded=False,
    pile_needs_melded=True,
    concealed_bonus=100,
    ask_partner=False,
    stock_exhausted="end_after_turn",
    red_three_in_hand_penalty=0,
    one_card_pile_rule=False,
    concealed_waives_minimum=False,
    sources=tuple(SOURCES.items()),
)

OPTIONS: tuple[Option, ...] = (
    Option("players", 4, (2, 3, 4), "Number of players: 4 in two sides, or 2 or 3 each alone."),
    Option("target", 5000, (2500, 5000, 7500, 10000), "Game target."),
)


def build(options: dict[str, Any]) -> RuleSet:
    players = options["players"]
    hand = {2: 15, 3: 13, 4: 11}[players]
    return replace(FAMILY, players=players, sides=2 if players == 4 else players, hand_size=hand,
                   target=options["target"])
