"""Brazilian Canastra as seed 003 describes it: same-rank melds, wild cards without a limit,
the pile with at least one natural from the hand, canastra bonuses 200/100, game to 3,000."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

SEED = "seed 003"
SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{SEED}: 'Spieler' (four in two partnerships)",
    "deck": f"{SEED}: 'Kartendeck' (two packs and four jokers)",
    "deal": f"{SEED}: 'Vorbereitung und Austeilen' 2-4 (11 cards; a wild or red three upcard "
            "is buried in the stock)",
    "turn": f"{SEED}: 'Ihr Zug'",
    "melds": f"{SEED}: 'Ihr Zug' 2 (three or more of a rank, at least two natural)",
    "melds.wilds": f"{SEED}: 'Ihr Zug' 2 (wild cards allowed, no maximum set)",
    "canasta": f"{SEED}: 'Ihr Zug' 3 and 'Punktewertung' (clean 200, dirty 100); 'Häufige "
               "Varianten: Canastra Real' (suit sequence of seven, 500)",
    "initial_meld": f"{SEED}: 'Mindestanforderung für die erste Meldung'",
    "pile.take": f"{SEED}: 'Ihr Zug' 1 (with at least one natural card from the hand)",
    "pile.blocked": f"{SEED}: 'Kartendeck' (black threes are stoppers)",
    "pile.frozen": f"{SEED}: 'Häufige Varianten: Einfrierregeln' and 'Kartendeck' (option "
                   "freeze: none, wild, wild-or-black-three, always)",
    "pile.wild_top": f"{SEED}: 'Ihr Zug' 1 (the top card is melded with natural cards of its "
                     "rank; a wild card has no rank)",
    "threes.red": f"{SEED}: 'Punktewertung' (100 each, 800 all four)",
    "threes.black": f"{SEED}: 'Kartendeck' (stoppers; never melded)",
    "going_out": f"{SEED}: 'Ausgehen' 1-2",
    "going_out.ask": f"{SEED}: 'Ausgehen' 4 (once per hand, at any point of the play phase "
                     "while going out is possible; the answer binds)",
    "going_out.concealed": f"{SEED}: 'Punktewertung' (200 when the hand goes down in one turn)",
    "stock_exhausted": "VARIANTS.md canastra: a player who must draw from an empty stock ends the deal",
    "scoring": f"{SEED}: 'Punktewertung'",
    "target": f"{SEED}: 'Gewinnen' (3,000; sujo: exactly)",
    "options": "VARIANTS.md: canastra, options",
}

CANASTRA = replace(
    CLASSIC,
    id="canastra",
    title="Canastra (Brazil)",
    max_wilds=99,
    natural_canasta_bonus=200,
    mixed_canasta_bonus=100,
    upcard="bury",
    freeze_on_wild=False,
    freeze_on_red_three=False,
    frozen_until_melded=False,
    pile_add_alone=False,
    pile_one_natural=True,
    black_three_meld=False,
    red_three_negative="never",
    red_three_in_hand_penalty=0,
    ask_once_per_deal=True,
    ask_during_play=True,
    stock_exhausted="end",
    target=3000,
    one_card_pile_rule=False,
    concealed_waives_minimum=False,
    concealed_rule="at_once",
    sources=tuple(SOURCES.items()),
)

OPTIONS: tuple[Option, ...] = (
    Option("target", 3000, (2500, 3000, 5000, 7500, 10000), "Game target."),
    Option("sujo", False, (False, True),
           "The target must be hit exactly; a deal that would overshoot does not count."),
    Option("ask_partner", True, (False, True), "A player may ask a partner \"may I go out?\"."),
    Option("canastra_real", False, (False, True),
           "A natural seven-card sequence of one suit is a canastra with a 500 bonus."),
    Option("freeze", "none", ("none", "wild", "wild-or-black-three", "always"),
           "House rule: 'wild' freezes the pile while a wild card lies in it, "
           "'wild-or-black-three' also while a black three does, 'always' freezes every pile; "
           "a frozen pile is taken only with a natural pair of the top card's rank."),
)


def build(options: dict[str, Any]) -> RuleSet:
    freeze = options["freeze"]
    return replace(CANASTRA, target=options["target"], sujo=options["sujo"],
                   ask_partner=options["ask_partner"],
                   freeze_on_wild=freeze in ("wild", "wild-or-black-three"),
                   freeze_on_black_three=freeze == "wild-or-black-three",
                   pile_always_frozen=freeze == "always",
                   real_canasta_bonus=500 if options["canastra_real"] else 0)
