"""Brazilian Canastra as its rule text describes it (docs/variants/canastra.md): same-rank melds,
wild cards without a limit, the pile with at least one natural from the hand, canastra bonuses
200/100, game to 3,000."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..rules import Option, RuleSet
from .classic import CLASSIC
from .classic import SOURCES as CLASSIC_SOURCES

DOC = "docs/variants/canastra.md"
TEXT = "Canastra rule text"
SOURCES: dict[str, str] = {
    **CLASSIC_SOURCES,
    "players": f"{DOC}#players-and-sides ({TEXT}, 'Spieler': four in two partnerships)",
    "deck": f"{DOC}#cards-and-card-values ({TEXT}, 'Kartendeck': two packs and four jokers)",
    "deal": f"{DOC}#the-deal ({TEXT}, 'Vorbereitung und Austeilen' 2-4: 11 cards; a wild or red "
            "three upcard is buried in the stock)",
    "turn": f"{DOC}#a-turn ({TEXT}, 'Ihr Zug')",
    "melds": f"{DOC}#melds ({TEXT}, 'Ihr Zug' 2: three or more of a rank, at least two natural)",
    "melds.wilds": f"{DOC}#wild-cards-in-melds ({TEXT}, 'Ihr Zug' 2: wild cards allowed, no "
                   "maximum)",
    "canasta": f"{DOC}#canastras ({TEXT}, 'Ihr Zug' 3 and 'Punktewertung': clean 200, dirty 100; "
               "'Häufige Varianten': Canastra Real)",
    "initial_meld": f"{DOC}#the-initial-meld ({TEXT}, 'Mindestanforderung für die erste "
                    "Meldung')",
    "pile.take": f"{DOC}#taking-the-discard-pile ({TEXT}, 'Ihr Zug' 1: with at least one natural "
                 "card from the hand)",
    "discard": f"{DOC}#discarding ({TEXT}, 'Ihr Zug' 4)",
    "pile.blocked": f"{DOC}#a-blocked-pile ({TEXT}, 'Kartendeck': black threes are stop cards)",
    "pile.frozen": f"{DOC}#the-frozen-pile ({TEXT}, 'Häufige Varianten': freezing rules, option "
                   "freeze: none, wild, wild-or-black-three, always)",
    "pile.wild_top": f"{DOC}#a-blocked-pile ({TEXT}, 'Ihr Zug' 1: the top card is melded with "
                     "natural cards of its rank; a wild card has no rank)",
    "pile.buried": f"{DOC}#cards-under-the-top-card (pagat.com, Canasta: 'The Play in Classic "
                   "Canasta')",
    "pile.one_card": f"{DOC}#a-one-card-pile ({TEXT}, 'Ihr Zug' 1)",
    "threes.red": f"{DOC}#red-threes ({TEXT}, 'Punktewertung': 100 each, 800 all four)",
    "threes.black": f"{DOC}#black-threes ({TEXT}, 'Kartendeck': stop cards, never melded)",
    "going_out": f"{DOC}#going-out ({TEXT}, 'Ausgehen' 1-2)",
    "going_out.ask": f"{DOC}#may-i-go-out ({TEXT}, 'Ausgehen' 4: once per hand, at any point of "
                     "the play phase; the answer binds)",
    "going_out.concealed": f"{DOC}#going-out-concealed ({TEXT}, 'Punktewertung': 200 when the "
                           "hand goes down in one turn)",
    "stock_exhausted": f"{DOC}#when-the-stock-runs-out (the rule text is silent; as pagat.com, "
                       "Modern American Canasta)",
    "scoring": f"{DOC}#scoring ({TEXT}, 'Punktewertung')",
    "target": f"{DOC}#winning-the-game ({TEXT}, 'Gewinnen': 3,000; sujo: exactly)",
    "options": f"{DOC}#options ({TEXT}, 'Gewinnen', 'Ausgehen' 4, 'Häufige Varianten')",
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
