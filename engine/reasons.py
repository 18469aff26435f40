"""Stable codes for every refusal and every state problem, with English and German messages.

Each code names the rule it enforces (a key of the variant's ``sources``), so the same code can
cite a different source in each variant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

# code: (rule key, English, German)
CODES: Final[dict[str, tuple[str, str, str]]] = {
    # -- refusals of actions
    "NOT_YOUR_TURN": ("turn", "It is seat {expected}'s move, not seat {seat}'s.",
                      "Sitz {expected} ist am Zug, nicht Sitz {seat}."),
    "WRONG_PHASE": ("turn", "The action '{action}' is not possible in phase '{phase}'.",
                    "Ein Zug '{action}' ist in der Phase '{phase}' nicht möglich."),
    "DEAL_OVER": ("going_out", "The deal is over.", "Die Runde ist vorbei."),
    "MUST_TAKE_PILE": ("stock_exhausted",
                       "The stock is empty and the pile fits a meld of your side: you must take it.",
                       "Der Stapel ist leer und die Abwurfkarte passt zu einer eurer Meldungen: "
                       "du musst den Ablagestapel nehmen."),
    "STOCK_EXHAUSTED": ("stock_exhausted", "The stock is used up: the deal ends (draw to end it).",
                        "Der Stapel ist aufgebraucht: die Runde endet (ziehen beendet sie)."),
    "PILE_EMPTY": ("pile.take", "There is no discard pile to take.",
                   "Es gibt keinen Ablagestapel zum Nehmen."),
    "PILE_BLOCKED_BY_WILD": ("pile.wild_top", "Nobody may take the pile while a wild card is on top.",
                             "Liegt eine wilde Karte oben, darf niemand den Stapel nehmen."),
    "PILE_BLOCKED_BY_BLACK_THREE": ("pile.blocked",
                                    "A black three on top of the pile blocks taking it.",
                                    "Eine schwarze Drei oben sperrt den Ablagestapel."),
    "PILE_FROZEN_NEEDS_NATURAL_PAIR": (
        "pile.frozen", "The pile is frozen{why}: take it only with two natural {rank}s from your hand.",
        "Der Stapel ist eingefroren{why}: du darfst ihn nur mit zwei natürlichen Karten "
        "des Rangs {rank} von der Hand nehmen."),
    "PILE_NEEDS_NATURAL_PAIR": (
        "pile.take", "The pile is taken only with two natural {rank}s from your hand or by adding "
        "the top card to your side's meld.",
        "Den Stapel nimmt man nur mit zwei natürlichen Karten des Rangs {rank} oder durch Anlegen "
        "der obersten Karte an eine eigene Meldung."),
    "PILE_CARDS_DO_NOT_MATCH": (
        "pile.take", "To take the pile, meld its top card {top} with a natural pair, one natural "
        "and one wild card, or add it to your side's meld of its rank.",
        "Um den Stapel zu nehmen, melde die oberste Karte {top} mit zwei natürlichen Karten, "
        "einer natürlichen und einer wilden Karte oder lege sie an eure Meldung an."),
    "NO_MELD_TO_ADD_TO": ("pile.take", "Your side has no meld of rank {rank} to add the top card to.",
                          "Ihr habt keine Meldung des Rangs {rank}, an die die oberste Karte passt."),
    "PILE_NEEDS_INITIAL_MELD": ("pile.take", "Your side may take the pile only after its initial meld.",
                                "Euer Team darf den Ablagestapel erst nach der Erstmeldung nehmen."),
    "PILE_NEEDS_A_NATURAL": ("pile.take",
                             "Take the pile only by melding its top card with at least one natural "
                             "{rank} from your hand.",
                             "Den Stapel nimmt man nur, wenn man die oberste Karte mit mindestens einer "
                             "natürlichen Karte des Rangs {rank} von der Hand meldet."),
    "BLACK_THREES_NOT_MELDABLE": ("threes.black", "Black threes are never melded in this game.",
                                  "Schwarze Dreien werden in diesem Spiel nie gemeldet."),
    "MUST_DISCARD_TO_GO_OUT": ("going_out", "Going out ends with a discard: keep a card to throw.",
                               "Zum Ausmachen muss eine letzte Karte zum Abwerfen übrig bleiben."),
    "ONE_CARD_PILE": ("pile.one_card",
                      "A player holding one card may not take a one-card pile.",
                      "Wer nur eine Karte hält, darf einen Stapel aus einer Karte nicht nehmen."),
    "CARDS_NOT_IN_HAND": ("turn", "Not in your hand: {cards}.", "Nicht auf deiner Hand: {cards}."),
    "NOT_A_VALID_MELD": ("melds", "These cards do not form a meld of one rank: {cards}.",
                         "Diese Karten bilden keine Meldung eines Rangs: {cards}."),
    "RANK_NEEDED": ("melds", "Name the rank of the meld these wild cards go to.",
                    "Gib den Rang der Meldung an, zu der diese wilden Karten kommen."),
    "RED_THREE_NOT_MELDABLE": ("threes.red", "Red threes are bonus cards and are never melded.",
                               "Rote Dreien sind Bonuskarten und werden nie gemeldet."),
    "MELD_TOO_SMALL": ("melds", "A meld needs at least three cards.",
                       "Eine Meldung braucht mindestens drei Karten."),
    "TOO_FEW_NATURALS": ("melds.wilds", "A meld needs at least {min} natural cards.",
                         "Eine Meldung braucht mindestens {min} natürliche Karten."),
    "TOO_MANY_WILDS": ("melds.wilds", "A meld may hold at most {max} wild cards.",
                       "Eine Meldung darf höchstens {max} wilde Karten enthalten."),
    "NATURALS_MUST_OUTNUMBER_WILDS": ("melds.wilds",
                                      "Natural cards must outnumber wild cards in every meld.",
                                      "In jeder Meldung muss es mehr natürliche als wilde Karten geben."),
    "WILD_MELD_NOT_ALLOWED": ("melds", "A meld of wild cards only is not allowed.",
                              "Eine Meldung nur aus wilden Karten ist nicht erlaubt."),
    "SEQUENCE_NOT_ALLOWED": ("melds", "Sequences are not melded in this game.",
                             "Folgen werden in diesem Spiel nicht gemeldet."),
    "NOT_A_SUIT_SEQUENCE": ("canasta", "A Canastra Real is seven natural cards of one suit in "
                            "sequence.",
                            "Eine Canastra Real sind sieben natürliche Karten einer Farbe in Folge."),
    "WILD_MELD_SEVEN_AT_ONCE": ("melds", "A meld of wild cards is laid as {size} wild cards at once.",
                                "Eine Meldung aus wilden Karten wird mit {size} wilden Karten auf "
                                "einmal ausgelegt."),
    "MELD_TOO_BIG": ("melds", "A meld holds at most {max} cards.",
                     "Eine Meldung hat höchstens {max} Karten."),
    "RANK_TAKES_NO_WILDS": ("melds.wilds", "A meld of {rank}s never takes wild cards.",
                            "Eine Meldung aus {rank} nimmt nie wilde Karten."),
    "WILDS_ONLY_IN_INITIAL_MELD": ("melds.wilds",
                                   "A meld of {rank}s takes wild cards only in the initial meld.",
                                   "Eine Meldung aus {rank} nimmt wilde Karten nur in der "
                                   "Erstauslage."),
    "RULE_OF_FIVE": ("melds.wilds", "After the initial meld, wild cards go only into a meld of five "
                     "or more natural cards, or into a meld of wild cards.",
                     "Nach der Erstauslage kommen wilde Karten nur in eine Auslage mit fünf oder "
                     "mehr natürlichen Karten oder in eine Auslage aus wilden Karten."),
    "WILD_MELD_INCOMPLETE": ("melds.wilds", "While your side's meld of wild cards is incomplete, "
                             "no wild card goes into another meld.",
                             "Solange eure Auslage aus wilden Karten unvollendet ist, kommt keine "
                             "wilde Karte an eine andere Auslage."),
    "RANK_CLOSED": ("melds", "A pure canasta of {rank}s is complete: nobody melds that rank again.",
                    "Ein reines Canasta aus {rank} ist vollendet: niemand legt diesen Rang mehr aus."),
    "WILD_DISCARD_NOT_ALLOWED": ("discard", "A wild card is discarded only when going out or from a "
                                 "hand of wild cards only.",
                                 "Eine wilde Karte wird nur beim Ausmachen oder aus einer Hand nur "
                                 "aus wilden Karten abgeworfen."),
    "EMPTY_PILE_DISCARD": ("discard", "On an empty pile, a {rank} may be discarded only if you hold "
                           "no other natural card.",
                           "Auf einen leeren Stapel darf {rank} nur, wenn du keine andere "
                           "natürliche Karte hältst."),
    "CLOSED_RANK_DISCARD": ("discard", "On an empty pile, a card of the closed rank {rank} may be "
                            "discarded only if nothing else can be.",
                            "Auf einen leeren Stapel darf eine Karte des geschlossenen Rangs {rank} "
                            "nur, wenn nichts anderes geht."),
    "BLACK_THREES_ONLY_WHEN_GOING_OUT": (
        "threes.black", "Black threes are melded only when going out, three or four without wilds.",
        "Schwarze Dreien darf man nur beim Ausmachen melden, drei oder vier ohne wilde Karten."),
    "INITIAL_MELD_TOO_LOW": (
        "initial_meld", "Your side's first meld must count at least {required}; it counts {offered}.",
        "Die erste Meldung eures Teams muss mindestens {required} zählen; sie zählt {offered}."),
    "INITIAL_MELD_UNREACHABLE": (
        "initial_meld", "After this your side could not reach its initial minimum of {required} "
        "this turn.",
        "Danach könnte euer Team die Mindestpunkte {required} in diesem Zug nicht mehr erreichen."),
    "CANNOT_GO_OUT_WITHOUT_CANASTA": (
        "going_out", "Going out needs {needed} canasta(s) of your side; keep at least one card "
        "after discarding.",
        "Zum Ausmachen braucht euer Team {needed} Canasta(s); behalte nach dem Abwerfen "
        "mindestens eine Karte."),
    "PARTNER_SAID_NO": ("going_out.ask", "Your partner said no: you may not go out this turn.",
                        "Dein Partner hat nein gesagt: du darfst in diesem Zug nicht ausmachen."),
    "MUST_GO_OUT": ("going_out.ask", "Your partner said yes: you must go out this turn.",
                    "Dein Partner hat ja gesagt: du musst in diesem Zug ausmachen."),
    "MUST_GO_OUT_AT_ONCE": ("going_out.concealed", "The pile's cards joined your hand before "
                            "your side's initial meld: this turn goes out at once, without the "
                            "minimum, or not at all.",
                            "Die Karten des Ablagestapels sind vor der Erstmeldung deines Teams "
                            "in deine Hand gekommen: dieser Zug macht auf einmal aus, ohne "
                            "Mindestpunkte, oder gar nicht."),
    "ASK_NOT_ALLOWED": ("going_out.ask", "You may ask \"may I go out?\" {why}.",
                        "Du darfst \"Darf ich ausmachen?\" {why} fragen."),
    "ANSWER_NOT_EXPECTED": ("going_out.ask", "Nobody has asked to go out.",
                            "Niemand hat gefragt, ob er ausmachen darf."),
    "NEEDS_HIDDEN_INFO": ("hidden", "This needs cards the request does not show: {what}.",
                          "Dafür fehlen Karten, die die Anfrage nicht zeigt: {what}."),
    "INVALID_STATE": ("state", "The state is not valid: {problems}.",
                      "Der Spielstand ist ungültig: {problems}."),
    "UNKNOWN_VARIANT": ("state", "Unknown variant '{variant}'.", "Unbekannte Variante '{variant}'."),
    "UNKNOWN_OPTION": ("options", "Unknown option '{option}'.", "Unbekannte Option '{option}'."),
    "BAD_OPTION_VALUE": ("options", "Option '{option}' must be {allowed}.",
                         "Option '{option}' muss {allowed} sein."),
    # -- problems of a state (validate)
    "SEAT_COUNT_MISMATCH": ("players", "Expected {expected} entries (one per seat), got {got}.",
                            "Erwartet {expected} Einträge (einer je Sitz), gefunden {got}."),
    "SIDE_COUNT_MISMATCH": ("players", "Expected {expected} entries (one per side), got {got}.",
                            "Erwartet {expected} Einträge (einer je Team), gefunden {got}."),
    "SEAT_OUT_OF_RANGE": ("players", "Seat {seat} does not exist with {players} players.",
                          "Sitz {seat} gibt es bei {players} Spielern nicht."),
    "TOO_MANY_COPIES": ("deck", "{card} appears {count} times; the deck has {copies}.",
                        "{card} kommt {count}-mal vor; das Spiel hat {copies}."),
    "CARD_COUNT_MISMATCH": ("deck", "The state holds {count} cards; the deck has {deck}.",
                            "Der Spielstand enthält {count} Karten; das Spiel hat {deck}."),
    "RED_THREE_IN_HAND": ("threes.red", "A red three is laid out at once, never kept in the hand.",
                          "Eine rote Drei wird sofort ausgelegt, nie auf der Hand behalten."),
    "THREE_IN_HAND": ("threes.red", "Every three is laid out at once; only a three drawn as the last "
                      "card of the stock stays in the hand, and it ends the deal.",
                      "Jede Drei wird sofort ausgelegt; nur eine als letzte Karte vom Stapel "
                      "gezogene Drei bleibt auf der Hand und beendet das Spiel."),
    "THREE_IN_PILE": ("threes.red", "Threes are never discarded.", "Dreien werden nie abgeworfen."),
    "NOT_A_BONUS_CARD": ("threes.red", "{card} is not a bonus card in this game.",
                         "{card} ist in diesem Spiel keine Bonuskarte."),
    "MELD_RANK_MISMATCH": ("melds", "The meld of rank {rank} holds {card}.",
                           "Die Meldung des Rangs {rank} enthält {card}."),
    "DUPLICATE_MELD_RANK": ("melds", "A side has only one meld of each rank ({rank}).",
                            "Ein Team hat von jedem Rang nur eine Meldung ({rank})."),
    "RED_THREE_IN_PILE": ("threes.red", "A red three can lie in the pile only from the deal's upcard.",
                          "Eine rote Drei kann nur als aufgedeckte Startkarte im Stapel liegen."),
    "IMPOSSIBLE_SIZE": ("state", "{what} cannot be {size}.", "{what} kann nicht {size} sein."),
    "PHASE_INCONSISTENT": ("turn", "The turn contradicts the rest of the state: {detail}.",
                           "Der Zug widerspricht dem übrigen Spielstand: {detail}."),
    "PILE_VIEW_INCONSISTENT": ("pile.frozen", "The pile view contradicts itself: {detail}.",
                               "Die Sicht auf den Stapel widerspricht sich: {detail}."),
    # -- problems of a tally (POST /v1/score/tally) and of a game's rounds (POST /v1/game)
    "INVALID_TALLY": ("scoring", "The tally is impossible: {problems}.",
                      "Die Abrechnung ist unmöglich: {problems}."),
    "FIELD_NOT_IN_VARIANT": ("scoring", "'{field}' is not scored in this game ({variant} with "
                             "these options).",
                             "'{field}' wird in diesem Spiel nicht gewertet ({variant} mit diesen "
                             "Optionen)."),
    "NEGATIVE_COUNT": ("scoring", "'{field}' counts something: it cannot be negative ({value}).",
                       "'{field}' zählt etwas: es kann nicht negativ sein ({value})."),
    "HAND_POINTS_POSITIVE": ("scoring", "Cards left in hand count against the side: give "
                             "'hand_points' as 0 or less, not {points}.",
                             "Karten auf der Hand zählen gegen das Team: 'hand_points' ist 0 "
                             "oder weniger, nicht {points}."),
    "NOT_A_MULTIPLE_OF_FIVE": ("scoring", "Card values are multiples of 5: {points} is not.",
                               "Kartenwerte sind Vielfache von 5: {points} ist keins."),
    "MELDED_POINTS_TOO_LOW": ("canasta", "The canastas and melds of side {side} are worth at "
                              "least {minimum}; its melded points say {points}.",
                              "Die Canastas und Meldungen von Team {side} zählen mindestens "
                              "{minimum}; seine Meldepunkte sagen {points}."),
    "POINTS_EXCEED_DECK": ("scoring", "The melded and hand points of all sides come to {points}; "
                           "all the deck's cards are worth {deck}.",
                           "Melde- und Handpunkte aller Teams ergeben {points}; alle Karten des "
                           "Spiels zählen zusammen {deck}."),
    "TOO_MANY_CANASTAS": ("canasta", "More canastas than the cards allow: {detail}.",
                          "Mehr Canastas, als die Karten erlauben: {detail}."),
    "TOO_MANY_MELDS": ("melds", "More melds than a side can have: {detail}.",
                       "Mehr Meldungen, als ein Team haben kann: {detail}."),
    "TOO_MANY_THREES": ("threes.red", "{count} {colour} threes in all; the deck has {copies}.",
                        "{count} {colour} Dreien insgesamt; das Spiel hat {copies}."),
    "TOO_MANY_HELD_GROUPS": ("scoring", "More groups held than the cards allow: {detail}.",
                             "Mehr gehaltene Gruppen, als die Karten erlauben: {detail}."),
    "HELD_GROUPS_NEED_HAND_POINTS": ("scoring", "The groups held are worth at least {minimum} "
                                     "in hand; the hand points say {points}.",
                                     "Die gehaltenen Gruppen zählen auf der Hand mindestens "
                                     "{minimum}; die Handpunkte sagen {points}."),
    "GOING_OUT_NOT_IN_VARIANT": ("going_out.concealed", "Going out '{kind}' is not scored in "
                                 "this game; it scores {allowed}.",
                                 "Ausmachen '{kind}' wird in diesem Spiel nicht gewertet; es "
                                 "wertet {allowed}."),
    "GOING_OUT_NEEDS_CANASTAS": ("going_out", "Going out needs {needed} canasta(s); side {side} "
                                 "has {count}.",
                                 "Zum Ausmachen braucht ein Team {needed} Canasta(s); Team "
                                 "{side} hat {count}."),
    "TWO_SIDES_WENT_OUT": ("going_out", "One side goes out in a deal; sides {sides} say they "
                           "did.",
                           "In einer Runde macht ein Team aus; die Teams {sides} sagen es von "
                           "sich."),
    "HAND_AFTER_GOING_OUT": ("going_out", "Side {side} is one player, who went out: nothing is "
                             "left in that hand.",
                             "Team {side} ist ein Spieler, der ausgemacht hat: auf seiner Hand "
                             "ist nichts übrig."),
    "STOCK_EXHAUSTED_MISMATCH": ("stock_exhausted", "A deal ends when a side goes out or, with "
                                 "nobody out, when the stock runs out: {detail}.",
                                 "Eine Runde endet, wenn ein Team ausmacht, oder, wenn niemand "
                                 "ausmacht, wenn der Stapel aufgebraucht ist: {detail}."),
    "INVALID_LEDGER": ("target", "The game's rounds contradict each other: {problems}.",
                       "Die Runden des Spiels widersprechen sich: {problems}."),
    "ROUND_AFTER_GAME_OVER": ("target", "The game was over after round {over} (side {winner} "
                              "won): round {round} cannot follow.",
                              "Das Spiel war nach Runde {over} vorbei (Team {winner} hat "
                              "gewonnen): Runde {round} kann nicht folgen."),
    "ROUND_SCORES_MISMATCH": ("target", "Round {round}'s state gives the game scores before it "
                              "as {given}; the rounds before it add up to {expected}.",
                              "Der Spielstand von Runde {round} nennt als Spielstand davor "
                              "{given}; die Runden davor ergeben {expected}."),
    "ROUND_RULES_MISMATCH": ("target", "Round {round}'s state is a deal of other rules "
                             "({variant}, fingerprint {fingerprint}) than the game's ({game}, "
                             "fingerprint {game_fingerprint}).",
                             "Der Spielstand von Runde {round} folgt anderen Regeln ({variant}, "
                             "Fingerabdruck {fingerprint}) als das Spiel ({game}, Fingerabdruck "
                             "{game_fingerprint})."),
    "ROUND_NOT_OVER": ("target", "Round {round}'s state is not over (phase '{phase}'): a game "
                       "records finished deals.",
                       "Der Spielstand von Runde {round} ist nicht vorbei (Phase '{phase}'): "
                       "ein Spiel verzeichnet beendete Runden."),
    # -- audits of a game log: what the log records and the rules do not give (``/v1/audit``)
    "DEAL_RULES_DIFFER": ("state", "The log is played by {expected}; this deal's state names "
                          "{got}.",
                          "Das Protokoll wird nach {expected} gespielt; der Spielstand dieser "
                          "Runde nennt {got}."),
    "START_SCORES_DISAGREE": ("scoring", "This deal's state starts side {side} at {recorded}; the "
                              "deals before give {audited}.",
                              "Der Spielstand dieser Runde beginnt Team {side} mit {recorded}; "
                              "nach den Runden davor sind es {audited}."),
    "DEAL_SCORE_DISAGREES": ("scoring", "The log records {recorded} for side {side} in this deal; "
                             "the rules give {audited}.",
                             "Das Protokoll verzeichnet {recorded} für Team {side} in dieser "
                             "Runde; nach den Regeln sind es {audited}."),
    "DEAL_AFTER_GAME_OVER": ("target", "The game was over after deal {over} (side {winner} "
                             "won): deal {deal} is not part of it.",
                             "Das Spiel war nach Runde {over} vorbei (Team {winner} hat "
                             "gewonnen): Runde {deal} gehört nicht dazu."),
    "GAME_OVER_AT_START": ("target", "The game scores this log starts from had already ended "
                           "the game (side {winner} won): deal {deal} is not part of it.",
                           "Der Spielstand, mit dem dieses Protokoll beginnt, hatte das Spiel "
                           "schon beendet (Team {winner} hat gewonnen): Runde {deal} gehört "
                           "nicht dazu."),
    "TOTAL_DISAGREES": ("scoring", "The log records a game score of {recorded} for side {side} "
                        "after this deal; the rules give {audited}.",
                        "Das Protokoll verzeichnet nach dieser Runde {recorded} Spielpunkte für "
                        "Team {side}; nach den Regeln sind es {audited}."),
}


#: a message parameter that is words, not a code or a number: one text per language
Words = dict[str, str]


def hand_of(seat: int) -> Words:
    """``what`` of NEEDS_HIDDEN_INFO: the hand of a seat."""
    return {"en": f"the hand of seat {seat}", "de": f"die Hand von Sitz {seat}"}


def one_of(values: tuple[Any, ...]) -> Words:
    """A list of allowed values, as JSON writes them, joined in each language:
    ``2, 3, 4 or 6`` / ``2, 3, 4 oder 6``."""
    shown = [str(v).lower() if isinstance(v, bool) else str(v) for v in values]
    if len(shown) < 2:
        return {"en": "".join(shown), "de": "".join(shown)}
    head = ", ".join(shown[:-1])
    return {"en": f"{head} or {shown[-1]}", "de": f"{head} oder {shown[-1]}"}


def message(code: str, params: dict[str, Any], lang: str = "en") -> str:
    """The message in ``lang``; a parameter given as ``{"en": ..., "de": ...}`` is translated."""
    _, en, de = CODES[code]
    template = de if lang == "de" else en
    values = {k: (v.get(lang, v["en"]) if isinstance(v, dict) else v) for k, v in params.items()}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return template


@dataclass(frozen=True)
class Refusal:
    """Why an action is not legal: a stable code plus the values its message needs."""

    code: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def rule_key(self) -> str:
        return CODES[self.code][0]

    def message(self, lang: str = "en") -> str:
        return message(self.code, self.params, lang)


class IllegalAction(Exception):
    """A well-formed action the rules do not allow (python-chess's IllegalMoveError)."""

    def __init__(self, refusal: Refusal, index: int = 0) -> None:
        super().__init__(refusal.code)
        self.refusal = refusal
        self.index = index


class InvalidState(Exception):
    """A state that fails validation; carries every problem."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(", ".join(p.code for p in problems))
        self.problems = problems


class UnknownRules(Exception):
    """Unknown variant or option, or an option value out of range."""

    def __init__(self, refusal: Refusal, path: str) -> None:
        super().__init__(refusal.code)
        self.refusal = refusal
        self.path = path


@dataclass(frozen=True)
class Problem:
    """One problem of a state: code, JSON path (pointer into the request) and values."""

    code: str
    path: str
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def message(self, lang: str = "en") -> str:
        return message(self.code, self.params, lang)
