"""Family Canasta (seed 002): draw two, no freezing, the pile only after the initial meld, at
most two wild cards. Classic with data changes only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

SEED = "seed 002"
SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{SEED}: 'Am besten spielt ihr zu viert ... zu zweit oder zu dritt'",
    "deck": f"{SEED}: 'zwei komplette Kartendecks ... je 2 Joker pro Deck'",
    "deal": f"{SEED}: '11 Karten ... zu dritt 13 ... zu zweit 15'; upcard set aside",
    "turn": f"{SEED}: 'Du ziehst zwei Karten vom Nachziehstapel' (step 1-4)",
    "melds": f"{SEED}: step 2 'mindestens drei Karten mit dem gleichen Wert'",
    "melds.wilds": f"{SEED}: step 2 'höchstens zwei wilde Karten, mindestens zwei natürliche'",
    "canasta": f"{SEED}: step 3 'Wächst eine Meldung auf sieben oder mehr Karten'",
    "initial_meld": f"{SEED}: 'Meist sind das 50 Punkte ... 90 oder sogar 120' (VARIANTS.md family)",
    "pile.take": f"{SEED}: 'Ablagestapel aufnehmen ... wenn dein Team schon eine Erstmeldung hat'",
    "pile.blocked": f"{SEED}: 'Solange eine schwarze Drei oben ... kann niemand den Stapel aufnehmen'",
    "pile.frozen": f"{SEED}: no freezing; the pile only after the initial meld",
    "pile.wild_top": f"{SEED}: step 1 'eine Karte, die zu einer Meldung passt' (a wild card "
                     "fits no meld of a rank)",
    "threes.red": f"{SEED}: 'Bekommst du eine rote Drei ... 100 Bonuspunkte' (VARIANTS.md family)",
    "threes.black": f"{SEED}: 'Schwarze Dreien darfst du nur als letzte Karte deines Zuges ablegen'",
    "going_out": f"{SEED}: 'Ausgehen ... mindestens eine vollständige Canasta'",
    "going_out.ask": f"{SEED}: asking the partner is not part of this game",
    "going_out.concealed": f"{SEED}: no concealed bonus",
    "stock_exhausted": f"{SEED}: 'Wird der Nachziehstapel leer, endet die laufende Runde'",
    "scoring": f"{SEED}: 'Am Ende jeder Runde zählt jedes Team'",
    "target": f"{SEED}: 'bis ein Team insgesamt 5000 Punkte erreicht'",
    "options": "VARIANTS.md: family",
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
