"""Wire models for Canasta Referee (see docs/wire-format.md).

Structural validation only: card codes, types and size bounds. Rule consistency (card counts,
whose turn, legal melds) is the engine's job and is reported by ``/v1/validate``.

Error locations are plain JSON paths: the ``list | object`` unions (hands, stock, discard,
``turn.held``) and the ``Action`` union dispatch on the input's shape / ``type`` themselves, so no
union tag appears in ``loc`` (a bad card at ``hands[0][3]`` gives ``("hands", 0, 3)``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from canasta_referee.engine.cards import N_CARDS, card_code

RANKS = "AKQJT98765432"
SUITS = "SHDC"
MELD_RANKS = "AKQJT9876543"


def _show(value: object) -> str:
    """Short repr for error messages (inputs may be hostile)."""
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


# the engine's own code strings (``engine.cards.card_code``): msgspec decodes a request's codes
# to these very objects, so the engine finds them in its code table by identity
_ENGINE_CODES = {card_code(c): card_code(c) for c in range(N_CARDS)}
CANONICAL_CARDS = tuple(_ENGINE_CODES[c] for c in ("JK", *(r + s for r in RANKS for s in SUITS)))
_CANONICAL = frozenset(CANONICAL_CARDS)


#: what a card code or rank may be padded with, and how long it may be in all: the OpenAPI
#: document's pattern and maxLength say exactly this (tests/test_wire_agreement.py)
PADDING = " \t\n\r"
MAX_CODE_LENGTH = 32


def _card(value: object) -> str:
    """Canonicalise a forgiving card code ("10h" -> "TH", "jk" -> "JK")."""
    if type(value) is str and value in _CANONICAL:
        return value  # the common case, first
    if isinstance(value, str) and len(value) <= MAX_CODE_LENGTH and value.isascii():
        code = value.strip(PADDING).upper()
        if code.startswith("10"):
            code = "T" + code[2:]
        if code == "JK" or (len(code) == 2 and code[0] in RANKS and code[1] in SUITS):
            return code
    raise PydanticCustomError(
        "card_code", "not a card code: {card}", {"card": _show(value)}
    )


def _rank(value: object) -> str:
    """Canonicalise a forgiving meld rank ("10" -> "T", "q" -> "Q", "WILD" -> "wild"; "real" for
    a suit sequence of seven)."""
    if isinstance(value, str) and len(value) <= MAX_CODE_LENGTH and value.isascii():
        rank = value.strip(PADDING).upper()
        if rank in ("WILD", "REAL"):
            return rank.lower()
        if rank == "10":
            rank = "T"
        if len(rank) == 1 and rank in MELD_RANKS:
            return rank
    raise PydanticCustomError("rank", "not a rank: {rank}", {"rank": _show(value)})


Card = Annotated[
    str,
    BeforeValidator(_card),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^[ \t\n\r]*(?:(?:[AaKkQqJjTt2-9]|10)[SsHhDdCc]|[Jj][Kk])[ \t\n\r]*$",
            "maxLength": MAX_CODE_LENGTH,
            "description": "Card code: rank A K Q J T 9..2 then suit S H D C, or JK. "
            "Input is case-insensitive and accepts 10 for T; output is canonical.",
            "examples": ["TH", "QS", "JK"],
        }
    ),
]
Rank = Annotated[
    str,
    BeforeValidator(_rank),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^[ \t\n\r]*(?:[AaKkQqJjTt3-9]|10|[Ww][Ii][Ll][Dd]|[Rr][Ee][Aa][Ll])[ \t\n\r]*$",
            "maxLength": MAX_CODE_LENGTH,
            "description": 'Meld rank: A K Q J T 9..3 (10 accepted for T), "wild" (wild cards '
            'only) or "real" (a suit sequence of seven, canastra option).',
            "examples": ["K", "7", "wild"],
        }
    ),
]
def _integral(value: object) -> object:
    """JSON Schema counts 3.0 as an integer: accept it as 3 (models are strict otherwise)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


Seat = Annotated[int, Field(ge=0, le=7), BeforeValidator(_integral)]
Size = Annotated[int, Field(ge=0, le=1000), BeforeValidator(_integral)]
Score = Annotated[int, Field(ge=-1_000_000, le=1_000_000), BeforeValidator(_integral)]
Name = Annotated[str, Field(max_length=64)]
Text = Annotated[str, Field(max_length=2000)]
class ErrorBudget:
    """The errors one validation keeps (pass one as the ``context`` of ``model_validate_json``):
    once ``limit`` errors of card lists are kept, the errors of later card lists are only
    counted (``dropped``). A body of the largest size can hold 100,000 bad card codes, and
    pydantic keeps each error as objects (about 1.7 KB each with its Python form): the first
    ``limit`` in the request's order (plus the rest of the list that reaches it, at most 500)
    are all that an answer lists, so they are all that is kept."""

    __slots__ = ("limit", "kept", "dropped")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = 0
        self.dropped = 0


def _budgeted(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """A card list, its errors kept while the ``ErrorBudget`` (the context, if any) has room;
    after that counted and not kept: the list is passed on as it came (the request is
    malformed already, by the errors kept)."""
    budget = info.context
    if not isinstance(budget, ErrorBudget):
        return handler(value)
    try:
        return handler(value)
    except ValidationError as exc:
        if budget.kept < budget.limit:
            budget.kept += exc.error_count()
            raise
        budget.dropped += exc.error_count()
        return value


Cards = Annotated[list[Card], Field(max_length=500), WrapValidator(_budgeted)]
Seats = Annotated[list[Seat], Field(max_length=8)]
Scores = Annotated[list[Score], Field(max_length=8)]
#: game scores an answer gives: a request's scores (within ±1,000,000) plus deals, so past that
#: bound after long games; a request carrying them on is refused there
GameScores = Annotated[list[int], Field(max_length=8)]


def _option_value(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A bool, a bounded int, a short string or null (the variant's default, where its rule
    table allows null); one clean error (no union tags) otherwise."""
    if value is None or isinstance(value, bool) or (isinstance(value, str) and len(value) <= 64):
        return value
    value = _integral(value)
    if isinstance(value, int) and -1_000_000 <= value <= 1_000_000:
        return value
    raise PydanticCustomError(
        "option_value",
        "an option is a boolean, an integer in -1000000..1000000, a string (<= 64 chars) or "
        "null",
    )


def _seed(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A 64-bit integer; one clean error otherwise. A string is refused, digits or not: ``"7"``
    once dealt another game than ``7`` (a string seeded the shuffle as text)."""
    value = _integral(value)
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and -(2**63) <= value < 2**63
    ):
        return value
    raise PydanticCustomError("seed", "a seed is a 64-bit integer (a JSON number, not a string)")


Seed = Annotated[int, Field(ge=-(2**63), le=2**63 - 1), WrapValidator(_seed)]
OptionValue = Annotated[bool | Score | Name | None, WrapValidator(_option_value)]
Options = Annotated[dict[Name, OptionValue], Field(max_length=32)]
Phase = Literal["draw", "play", "answer", "over"]

_CARDS: TypeAdapter[list[str]] = TypeAdapter(Cards)


def _cards_or(model: type[BaseModel]) -> WrapValidator:
    """Validate ``list[Card] | model`` by input shape, so error locs carry no union tag.

    A nested ValidationError raised here is merged by pydantic-core with the outer location.
    """

    def check(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        if isinstance(value, (dict, model)):
            return model.model_validate(value, context=info.context)
        if isinstance(value, (list, tuple)):
            return _CARDS.validate_python(value, context=info.context)
        raise PydanticCustomError(
            "cards_or_object",
            "expected a list of card codes or a {model} object",
            {"model": model.__name__},
        )

    return WrapValidator(check)


def _config(*examples: Any) -> ConfigDict:
    """Strict config (unknown fields rejected) with JSON-schema examples."""
    if not examples:
        return ConfigDict(extra="forbid", strict=True)
    return ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": list(examples)})


# --- examples (classic, four players; sides {0,2} and {1,3}) -----------------------------------

_HAND0 = ["QS", "QH", "QD", "JK", "9C", "9D", "6S", "5H", "4C", "TD", "8H"]
_MELDS0: list[dict[str, Any]] = [
    {"rank": "K", "cards": ["KS", "KH", "KD", "2C"]},
    {"rank": "7", "cards": ["7S", "7C", "7H"]},
]
EXAMPLE_STATE: dict[str, Any] = {
    "variant": "classic",
    "options": {"players": 4},
    "dealer": 3,
    "scores": [650, -150],
    "hands": [list(_HAND0), {"size": 11}, {"size": 9}, {"size": 10}],
    "melds": [list(_MELDS0), []],
    "bonus_cards": [["3H"], []],
    "discard": ["5S", "9H", "JC", "8D"],
    "stock": {"size": 55},
    "turn": {"seat": 0, "phase": "draw"},
}
EXAMPLE_STATE_AFTER: dict[str, Any] = {
    **EXAMPLE_STATE,
    "hands": [
        ["9C", "9D", "6S", "5H", "TD", "8H", "7D"],
        {"size": 11},
        {"size": 9},
        {"size": 10},
    ],
    "melds": [[*_MELDS0, {"rank": "Q", "cards": ["QS", "QH", "QD", "JK"]}], []],
    "discard": ["5S", "9H", "JC", "8D", "4C"],
    "stock": {"size": 54},
    "turn": {"seat": 1, "phase": "draw"},
}
EXAMPLE_ACTIONS: list[dict[str, Any]] = [
    {"type": "draw"},
    {"type": "meld", "cards": ["QS", "QH", "QD", "JK"]},
    {"type": "discard", "card": "4C"},
]
# The same table fully known, as a referee or a trusted game server has it: every hand and the
# stock (top first) as cards, 108 in all. check, apply and score need the cards they touch (a
# draw needs the stock's top card); the OpenAPI examples use this table.
# fmt: off
EXAMPLE_FULL_STATE: dict[str, Any] = {
    **EXAMPLE_STATE,
    "hands": [
        list(_HAND0),
        ["JK", "JK", "AC", "KS", "KC", "QC", "7S", "6S", "6C", "4H", "4C"],
        ["AH", "AC", "QS", "JH", "JH", "JC", "9D", "8C", "5H"],
        ["JK", "AD", "KD", "TS", "9H", "6H", "4D", "3C", "2S", "2D"],
    ],
    "stock": [
        "7D", "5D", "QD", "7C", "2H", "7H", "4H", "6H", "2C", "KC", "2S", "TH", "TC", "JD",
        "AD", "TS", "QC", "JD", "JS", "QH", "3S", "3D", "4S", "5C", "5S", "2D", "8D", "3S",
        "6D", "KH", "2H", "4D", "9S", "3C", "AH", "8H", "JS", "8C", "8S", "8S", "AS", "TH",
        "3D", "TC", "9S", "6D", "AS", "5D", "TD", "6C", "9C", "4S", "5C", "7D", "3H",
    ],
}
# A deal that is over: seat 0 went out (side 0 has a mixed canasta of kings); every card known
EXAMPLE_OVER_STATE: dict[str, Any] = {
    "variant": "classic",
    "options": {"players": 4},
    "dealer": 3,
    "scores": [650, -150],
    "hands": [
        [],
        ["QS", "JH", "TH", "TC", "9H", "8H", "4H", "4D"],
        ["JD", "6D", "4C", "3C", "2S", "2D"],
        ["TH", "TD", "TC", "9D", "9C"],
    ],
    "melds": [
        [
            {"rank": "K", "cards": ["KS", "KS", "KH", "KH", "KD", "KC", "2C"]},
            {"rank": "Q", "cards": ["QS", "QH", "QD", "JK"]},
            {"rank": "7", "cards": ["7S", "7C", "7H", "7D"]},
        ],
        [{"rank": "A", "cards": ["AS", "AH", "AD", "2D"]}],
    ],
    "bonus_cards": [["3H"], ["3D"]],
    "discard": ["5S", "9H", "JC", "8D", "4C"],
    "stock": [
        "JK", "8C", "JK", "QD", "7S", "AD", "3C", "5S", "KD", "8H", "3D", "8S", "4D", "TS",
        "5D", "8D", "4S", "7D", "8S", "JS", "2S", "JC", "7H", "5D", "7C", "2C", "6S", "AS",
        "2H", "4H", "3H", "9S", "5H", "8C", "QH", "AC", "6C", "3S", "QC", "TD", "6D", "5H",
        "5C", "QC", "JD", "6C", "9S", "AH", "JS", "6H", "2H", "4S", "6H", "JH", "TS", "KC",
        "9D", "5C", "AC", "3S", "6S", "9C", "JK",
    ],
    "turn": {"seat": 0, "phase": "over", "went_out": 0},
}
# fmt: on
# fmt: off
_DEAL_STOCK = [
    "KD", "JK", "7S", "6D", "7D", "KC", "JD", "4S", "8D", "KS", "9S", "6D", "9S", "3D",
    "JC", "9H", "8S", "AS", "QC", "AS", "2S", "QC", "AH", "KC", "2C", "JD", "KS", "3D",
    "TD", "8D", "4S", "AC", "JK", "7C", "TC", "QS", "4D", "QH", "5D", "5C", "TD", "8H",
    "TS", "6S", "8C", "JS", "4H", "5S", "TH", "JS", "8C", "9D", "3H", "QH", "5D", "2C",
    "QD", "JH", "6H", "KH", "AH", "3H", "2H",
]
# fmt: on
EXAMPLE_DEAL: dict[str, Any] = {
    "variant": "classic",
    "options": {"players": 4},
    "dealer": 3,
    "scores": [650, -150],
    "hands": [
        ["9C", "2D", "AC", "9H", "AD", "3S", "8S", "2H", "7H", "7H", "4D"],
        ["TH", "5C", "4C", "3S", "TS", "7D", "2D", "QS", "JC", "9D", "4H"],
        ["5H", "JK", "5H", "4C", "QD", "JK", "8H", "9C", "AD", "3C", "3C"],
        ["JH", "2S", "7S", "6S", "6C", "6H", "6C", "TC", "KD", "7C", "5S"],
    ],
    "melds": [[], []],
    "bonus_cards": [[], []],
    "discard": ["KH"],
    "stock": _DEAL_STOCK,
    "turn": {"seat": 0, "phase": "draw"},
}
# --- state -------------------------------------------------------------------------------------


class HiddenCards(BaseModel):
    """A hand or stock known only by its size."""

    model_config = _config({"size": 11})
    size: Size = Field(description="Number of cards.")


class PileView(BaseModel):
    """The discard pile as a player sees it."""

    model_config = _config({"top": "KD", "size": 12, "frozen": True})
    top: Card | None = Field(None, description="Top card; null when the pile is empty.")
    size: Size = Field(description="Number of cards in the pile.")
    frozen: bool = Field(
        False, description="The pile is frozen (e.g. a wild card lies in it)."
    )


CardsOrHidden = Annotated[Cards | HiddenCards, _cards_or(HiddenCards)]
CardsOrPile = Annotated[Cards | PileView, _cards_or(PileView)]


class MeldIn(BaseModel):
    """A meld on the table: its rank and cards."""

    model_config = _config({"rank": "K", "cards": ["KS", "KH", "KD", "2C"]})
    rank: Rank = Field(description='Rank letter, or "wild" for a wild-card meld.')
    cards: Cards = Field(min_length=1, description="The cards of the meld.")


Melds = Annotated[list[MeldIn], Field(max_length=20)]


class Turn(BaseModel):
    """Whose move, the phase, and what the turn and the deal must remember."""

    model_config = _config(
        {"seat": 0, "phase": "draw"},
        {"seat": 2, "phase": "play", "drawn": True, "started": ["Q"], "melded": [0, 1]},
    )
    seat: Seat = Field(description="Seat to move (or to answer, in phase answer).")
    phase: Phase = Field(
        description="draw, play (melds then a discard), answer, or over."
    )
    drawn: bool = Field(False, description="The seat drew from the stock this turn.")
    took_pile: bool = Field(
        False, description="The seat took the discard pile this turn."
    )
    pending: Melds = Field(
        [],
        description="Melds laid this turn by a side that has not met its initial minimum yet.",
    )
    held: CardsOrHidden = Field(
        [],
        description="Pile cards taken by such a side; they join the hand once it is met.",
    )
    asked: Literal["waiting", "yes", "no"] | None = Field(
        None, description='"May I go out?" this turn: null, waiting, yes or no.'
    )
    asked_this_deal: Seats = Field([], description="Seats that have asked this deal.")
    melded: Seats | None = Field(
        None,
        description="Seats that melded earlier in this deal; null means derive it.",
    )
    started: Annotated[list[Rank], Field(max_length=20)] = Field(
        [], description="Ranks of the melds this seat started this turn."
    )
    extended: bool = Field(
        False, description="This seat added to a meld that existed before this turn."
    )
    going_out: bool = Field(
        False,
        description="The pile's cards joined the hand before the side's initial meld: the turn "
        "goes out at once, without the minimum (German Handcanasta).",
    )
    went_out: Seat | None = Field(
        None, description="Seat that went out, if the deal ended so."
    )
    concealed: bool = Field(
        False, description="The going-out player went out concealed."
    )
    partner_melded: bool = Field(
        False, description="The going-out player's partner had melded before that turn."
    )
    stock_exhausted: bool = Field(
        False, description="The deal ended because the stock ran out."
    )
    played: Seats = Field(
        [], description="Seats that have finished a turn this deal (first-turn bonuses)."
    )


class State(BaseModel):
    """A table: variant, scores, hands, melds, piles and turn."""

    model_config = _config(EXAMPLE_STATE)
    variant: Name = Field("classic", description="Ruleset id, e.g. classic.")
    options: Options = Field(
        {}, description="House rules and player count (variant defaults)."
    )
    dealer: Seat = Field(0, description="Seat that dealt this deal.")
    scores: Scores = Field(
        description="Each side's cumulative game score before this deal."
    )
    hands: Annotated[list[CardsOrHidden], Field(max_length=8)] = Field(
        description="Per seat: its cards, or {size} when unknown."
    )
    melds: Annotated[list[Melds], Field(max_length=8)] = Field(
        description="Per side: its melds."
    )
    bonus_cards: Annotated[list[Cards], Field(max_length=8)] = Field(
        description="Per side: the threes laid out in front of it."
    )
    discard: CardsOrPile = Field(
        description="Discard pile bottom to top, or {top, size, frozen} as a player sees it."
    )
    stock: CardsOrHidden = Field(description="Stock top first, or {size} when unknown.")
    turn: Turn = Field(description="Whose move and what the turn/deal must remember.")
    set_aside: Cards = Field(
        [], description="Cards out of play for the deal (Family Canasta's wild or red-three "
        "upcards)."
    )


# --- actions -----------------------------------------------------------------------------------


def _acting_seat() -> Any:
    """The optional ``seat`` field every action carries."""
    return Field(None, description="Acting seat; defaults to turn.seat.")


class DrawAction(BaseModel):
    """Draw from the stock."""

    model_config = _config({"type": "draw"})
    type: Literal["draw"]
    seat: Seat | None = _acting_seat()


class TakePileAction(BaseModel):
    """Take the discard pile; ``cards`` are the hand cards melding with the top card."""

    model_config = _config({"type": "take-pile", "cards": ["KH", "KS"]})
    type: Literal["take-pile"]
    seat: Seat | None = _acting_seat()
    cards: Cards = Field(
        [],
        description="Hand cards melding with the top card; [] adds it to an existing meld.",
    )


class MeldAction(BaseModel):
    """Start a meld or add to the side's meld of that rank."""

    model_config = _config({"type": "meld", "cards": ["QH", "QS", "2C"]})
    type: Literal["meld"]
    seat: Seat | None = _acting_seat()
    cards: Cards = Field(min_length=1, description="Hand cards to meld.")
    rank: Rank | None = Field(
        None, description="Needed only when the cards do not name it."
    )


class DiscardAction(BaseModel):
    """Discard a card, ending the turn."""

    model_config = _config({"type": "discard", "card": "7S"})
    type: Literal["discard"]
    seat: Seat | None = _acting_seat()
    card: Card = Field(description="The card to discard.")


class AskAction(BaseModel):
    """Ask the partner "may I go out?"."""

    model_config = _config({"type": "ask"})
    type: Literal["ask"]
    seat: Seat | None = _acting_seat()


class AnswerAction(BaseModel):
    """Answer the partner's "may I go out?"."""

    model_config = _config({"type": "answer", "allow": True})
    type: Literal["answer"]
    seat: Seat | None = _acting_seat()
    allow: bool = Field(description="Whether the partner may go out.")


ACTION_TYPES: dict[str, type[BaseModel]] = {
    "draw": DrawAction,
    "take-pile": TakePileAction,
    "meld": MeldAction,
    "discard": DiscardAction,
    "ask": AskAction,
    "answer": AnswerAction,
}


def _action(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """Dispatch on ``type`` directly so error locs carry no union tag (JSON paths)."""
    if isinstance(value, dict):
        kind = value.get("type")
        model = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
        if model is not None:
            return model.model_validate(value, context=info.context)
    return handler(
        value
    )  # instances, and missing/unknown type errors from the union itself


Action = Annotated[
    DrawAction | TakePileAction | MeldAction | DiscardAction | AskAction | AnswerAction,
    Field(discriminator="type"),
    WrapValidator(_action),
]


# --- requests ----------------------------------------------------------------------------------


class DealRequest(BaseModel):
    """Ask for a fresh deal, reproducible from ``seed``."""

    model_config = _config()
    variant: Name = Field("classic", description="Ruleset id.")
    options: Options | None = Field({}, description="House rules and player count (null: the "
                                    "defaults, as {}).")
    seed: Seed = Field(
        0, description="Shuffle seed, a 64-bit integer; the same seed gives the same deal."
    )
    dealer: Seat = Field(0, description="Dealing seat.")
    scores: Scores | None = Field(
        None, description="Game scores per side; null means all 0."
    )


class StateRequest(BaseModel):
    """A state to validate, score or list legal actions for."""

    model_config = _config()
    state: State


class ActionsRequest(BaseModel):
    """A state and actions to check or apply, in order."""

    model_config = _config()
    state: State
    actions: Annotated[list[Action], Field(min_length=1, max_length=200)]


# --- tallies and games (a score pad's counts; docs/wire-format.md, "Tallies") ---------------------

Count = Annotated[int, Field(ge=-1_000_000, le=1_000_000), BeforeValidator(_integral)]
GoingOut = Literal["plain", "concealed", "blatt", "hand", "first_turn"]


def _count(description: str, default: int | None = None) -> Any:
    """A count of a side's tally: 0 when left out or null (GraphQL's inputs read null so
    too); a field of some variants only is null when left out, and refused in the others
    (FIELD_NOT_IN_VARIANT) unless null."""
    return Field(default, description=description)


class TallySide(BaseModel):
    """One side's deal as a score pad counts it. Which fields a variant scores is in
    docs/wire-format.md ("Tallies"); a field of another variant is refused unless null."""

    model_config = _config(
        {"melded_points": 385, "mixed_canastas": 1, "red_threes": 1, "went_out": "plain"})
    melded_points: Count | None = _count(
        "Value of the cards in the side's melds (>= 0, a multiple of 5; without the bonuses).", 0)
    hand_points: Count | None = _count(
        "Value of the cards left in its players' hands, as a minus (<= 0): -45 for 45 points.",
        0)
    went_out: GoingOut | None = Field(
        None, description="How a player of the side went out: plain; concealed (classic, "
        "canastra); blatt, hand, first_turn (german); null: it did not.")
    red_threes: Count | None = _count("Red threes laid out in front of the side.", 0)
    black_threes: Count | None = _count("modern-american: black threes laid out.")
    red_threes_in_hand: Count | None = _count(
        "classic, german: red threes still in a hand of the side at the end (-500 each).")
    natural_canastas: Count | None = _count(
        "Natural (pure, clean) canastas; modern-american: of ranks other than sevens and aces.",
        0)
    mixed_canastas: Count | None = _count("Mixed (dirty) canastas, with wild cards.", 0)
    pure_sevens_canastas: Count | None = _count("modern-american: canastas of sevens (2,500).")
    pure_aces_canastas: Count | None = _count(
        "modern-american: canastas of aces without wild cards (2,500).")
    wild_canastas: Count | None = _count(
        "Canastas of wild cards only: classic with option wild_canasta, german with "
        "joker_canasta; modern-american: those not counted below (2,000).")
    seven_twos_canastas: Count | None = _count(
        "modern-american: wild canastas of seven twos (3,000).")
    four_jokers_canastas: Count | None = _count(
        "modern-american: wild canastas of four jokers and three twos (2,500).")
    real_canastas: Count | None = _count(
        "canastra with option canastra_real: Canastras Reais, suit sequences of seven (500).")
    incomplete_pure_sevens_melds: Count | None = _count(
        "modern-american: an incomplete meld of sevens (-2,500); 0 or 1.")
    incomplete_pure_aces_melds: Count | None = _count(
        "modern-american: an incomplete meld of aces without wild cards (-2,500); 0 or 1.")
    incomplete_wild_melds: Count | None = _count(
        "modern-american: an incomplete wild-card meld not holding all four jokers (-2,000); "
        "0 or 1.")
    incomplete_four_jokers_melds: Count | None = _count(
        "modern-american: an incomplete wild-card meld holding all four jokers (-2,500, option "
        "four_jokers_penalty); 0 or 1.")
    held_aces_groups: Count | None = _count(
        "modern-american: players of the side who ended holding three or more aces (-1,500 "
        "each).")
    held_sevens_groups: Count | None = _count(
        "modern-american: players of the side who ended holding three or more sevens (-1,500 "
        "each).")


TallySides = Annotated[list[TallySide], Field(max_length=8)]


class TallyDeal(BaseModel):
    """A deal's tally: one entry per side, and how the deal ended where the variant scores it."""

    model_config = _config()
    sides: TallySides = Field(description="Per side: its counts.")
    stock_exhausted: bool | None = Field(
        None, description="german: the deal ended with the stock used up and nobody out (each "
        "side loses 100); null: derived (true when nobody went out).")


class TallyRequest(BaseModel):
    """A finished deal as a score pad counts it, to be scored as ``score`` scores a state."""

    model_config = _config()
    variant: Name = Field("classic", description="Ruleset id.")
    options: Options | None = Field({}, description="House rules and player count (null: the "
                                    "defaults, as {}).")
    scores: Scores | None = Field(
        None, description="Each side's game score before this deal; null means all 0.")
    sides: TallySides = Field(description="Per side: its counts.")
    stock_exhausted: bool | None = Field(
        None, description="german: the deal ended with the stock used up and nobody out (each "
        "side loses 100); null: derived (true when nobody went out).")


class TallyRound(BaseModel):
    """A round recorded as a tally."""

    model_config = _config()
    tally: TallyDeal


class StateRound(BaseModel):
    """A round recorded as its final state (phase over, every hand known); its ``scores`` are
    the game scores before the deal, the running totals of the rounds before it."""

    model_config = _config()
    state: State


def _round(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """A round by its shape: ``{"state": ...}`` or ``{"tally": ...}``, so error locations carry
    no union tag (``rounds/2/tally/sides``). The context (an ``ErrorBudget``) is passed on."""
    if isinstance(value, dict):
        return (StateRound if "state" in value else TallyRound).model_validate(
            value, context=info.context)
    return handler(value)


GameRound = Annotated[TallyRound | StateRound, WrapValidator(_round)]


class GameRequest(BaseModel):
    """A game so far: its variant and options, and its rounds in order."""

    model_config = _config()
    variant: Name = Field("classic", description="Ruleset id.")
    options: Options | None = Field({}, description="House rules and player count (null: the "
                                    "defaults, as {}).")
    rounds: Annotated[list[GameRound], Field(max_length=500)] = Field(
        description="The deals played, in order: each a tally or a final state.")


# --- responses ---------------------------------------------------------------------------------
# No examples here: the OpenAPI document's answer examples are the service's own answers to its
# request examples (service/examples.py).

_MANY = 10_000  # bound on engine-produced lists (responses are not hostile input)


class Problem(BaseModel):
    """One thing wrong with a state."""

    model_config = _config()
    code: Name = Field(description="Stable problem code.")
    path: Annotated[str, Field(max_length=256)] = Field(
        description="JSON path of the culprit."
    )
    message: Text = Field(description="Human-readable explanation.")


More = Annotated[int, Field(ge=1)]


class ValidateResponse(BaseModel):
    """Every problem found in a state (empty when valid), up to the service's MAX_PROBLEMS
    (100 unless configured otherwise); `more` counts the rest."""

    model_config = _config()
    valid: bool
    problems: Annotated[list[Problem], Field(max_length=_MANY)] = Field(
        description="The problems found, in the order they were found: all of them, or the "
        "first MAX_PROBLEMS when there are more."
    )
    more: More | None = Field(
        None, description="How many problems were found beyond those listed; absent when "
        "`problems` lists them all."
    )


class Reason(BaseModel):
    """Why an action is illegal: stable code, message, and where the rule stands."""

    model_config = _config()
    code: Name = Field(description="Stable refusal code.")
    message: Text = Field(description="Message in the requested language.")
    rule: Annotated[str, Field(max_length=256)] = Field(
        description="Source of the rule."
    )


class CheckResponse(BaseModel):
    """Whether the actions are legal; if not, the first illegal one and why."""

    model_config = _config()
    legal: bool
    index: Size | None = Field(None, description="Index of the first illegal action.")
    reason: Reason | None = None


class LegalActionsResponse(BaseModel):
    """The actions the seat to move may take now."""

    model_config = _config()
    seat: Seat
    phase: Name
    actions: Annotated[list[Action], Field(max_length=_MANY)]


class ApplyResponse(BaseModel):
    """The state after the actions, and what happened."""

    model_config = _config()
    state: State
    events: Annotated[list[dict[str, Any]], Field(max_length=_MANY)]


class Breakdown(BaseModel):
    """One side's deal score; ``total`` is the sum of the others."""

    model_config = _config()
    melded_cards: Score = Field(description="Value of the cards in the side's melds.")
    hand_cards: Score = Field(description="Value of the cards left in hands (<= 0).")
    canasta_bonus: Score = Field(description="Bonuses for canastas.")
    bonus_cards: Score = Field(description="Red threes (bonus cards), plus or minus.")
    going_out: Score = Field(description="Going-out bonus (concealed included).")
    penalties: Score = Field(description="Penalties (<= 0).")
    total: Score = Field(description="Sum of the above.")


class SideScore(BaseModel):
    """A side, its seats and its deal score."""

    model_config = _config()
    side: Seat
    seats: Seats
    total: Score
    breakdown: Breakdown


class ScoreResponse(BaseModel):
    """Deal scores per side, the new game scores and what follows.

    ``final`` says whether this is the deal's score: true when the deal is over (``turn.phase``
    is ``over``); false for a table scored mid-deal, as it stands, as if the deal ended now
    with nobody going out. With ``final: false`` the game scores, ``game_over``, ``winner`` and
    ``next_minimums`` are provisional: check ``final`` before recording a result."""

    model_config = _config()

    final: bool = Field(
        description="True: the deal is over and this is its score. False: the deal is still "
        "being played (phase not over); the table is scored as it stands, as if the deal "
        "ended now with nobody going out, and every total is provisional."
    )
    sides: Annotated[list[SideScore], Field(max_length=8)]
    scores: GameScores = Field(description="Game scores per side after this deal.")
    game_over: bool
    winner: Seat | None = Field(description="Winning side, when the game is over.")
    next_minimums: Scores = Field(
        description="Each side's initial-meld minimum next deal."
    )


class RoundScore(BaseModel):
    """One round of a game: the minimums the sides faced, the deal's score, the totals after."""

    model_config = _config()
    round: Size = Field(description="The round's index in the request.")
    minimums: Scores = Field(description="Each side's initial-meld minimum in this round.")
    sides: Annotated[list[SideScore], Field(max_length=8)]
    scores: GameScores = Field(description="Game scores per side after this round.")


class GameResponse(BaseModel):
    """A game so far: each round scored, the totals, and whether and by whom it is won."""

    model_config = _config()
    rounds: Annotated[list[RoundScore], Field(max_length=500)]
    scores: GameScores = Field(description="Game scores per side after the last round.")
    game_over: bool
    winner: Seat | None = Field(description="Winning side, when the game is over.")
    next_minimums: Scores = Field(description="Each side's initial-meld minimum next deal.")


class DealResponse(BaseModel):
    """A fresh, fully known deal, and what happened while dealing (upcard, red threes)."""

    model_config = _config()
    state: State
    events: Annotated[list[dict[str, Any]], Field(max_length=_MANY)] = Field(
        [], description="Deal events: the upcard (and any set aside), red threes laid out."
    )


class VariantSummary(BaseModel):
    """One ruleset in the catalogue."""

    model_config = _config()
    id: Name
    title: Annotated[str, Field(max_length=256)]
    players: Annotated[list[Annotated[int, Field(ge=1, le=8)]], Field(max_length=8)]
    summary: Text


class VariantList(BaseModel):
    """The rulesets the service knows."""

    model_config = _config()
    variants: Annotated[list[VariantSummary], Field(max_length=100)]


class VariantOption(BaseModel):
    """A house rule or the player count: its default and allowed values."""

    model_config = _config()
    name: Name
    default: Any = Field(description="The value when the state does not name the option.")
    description: Text
    allowed: Annotated[list[Any], Field(max_length=100)]


class VariantDetail(BaseModel):
    """A ruleset's complete rule table: every parameter, by section, with its source."""

    model_config = _config()
    id: Name
    title: Annotated[str, Field(max_length=256)]
    aliases: Annotated[list[Name], Field(max_length=32)]
    summary: Text
    players: Annotated[list[Annotated[int, Field(ge=1, le=8)]], Field(max_length=8)]
    fingerprint: Name = Field(description="Stable hash of the rule table and options.")
    options: Annotated[list[VariantOption], Field(max_length=64)]
    rules: dict[str, Any] = Field(description="Every rule parameter (default options).")
    sections: Annotated[list[dict[str, Any]], Field(max_length=100)] = Field(
        description="The rules by section, each with its source."
    )


class ProblemDocument(BaseModel):
    """An RFC 9457 problem document (``application/problem+json``)."""

    model_config = ConfigDict()
    type: Annotated[str, Field(max_length=256)] = Field(description="URI naming the problem.")
    title: Annotated[str, Field(max_length=256)]
    status: Annotated[int, Field(ge=400, le=599)]
    code: Name = Field(description="Stable machine code.")
    detail: Text = Field(description="Message in the requested language.")
    problems: Annotated[list[Problem], Field(max_length=_MANY)] = Field(
        [], description="Every field or state problem, with its JSON pointer (the first "
        "MAX_PROBLEMS when there are more)."
    )
    more: More | None = Field(
        None, description="How many problems were found beyond those listed; absent when "
        "`problems` lists them all."
    )
    reason: Reason | None = Field(None, description="Why an action was refused (apply).")
    index: Size | None = Field(None, description="Index of the refused action.")


# --- audits, views and batches -----------------------------------------------------------------

#: wire bounds of a game log: deals, and actions in one deal (a deal of random play takes 50 to
#: 200; the ``MAX_AUDIT_ACTIONS`` setting bounds the whole log)
MAX_DEALS = 100
MAX_DEAL_ACTIONS = 5_000
#: the most operations in one batch (the ``MAX_BATCH`` setting may lower it)
MAX_BATCH = 256

DealActions = Annotated[list[Action], Field(max_length=MAX_DEAL_ACTIONS)]


def _recorded(what: str) -> Any:
    return Field(None, description=f"Per side, {what} as the log records them (optional): the "
                 "audit says whether the rules give the same.")


class SeedDeal(BaseModel):
    """A deal of a log that starts from a seed: dealt as ``POST /v1/deal`` deals it, with the
    game scores the deals before it leave."""

    model_config = _config()
    seed: Seed = Field(description="Shuffle seed, a 64-bit integer (as for POST /v1/deal).")
    dealer: Seat = Field(description="Dealing seat.")
    actions: DealActions = Field([], description="The deal's actions, in order.")
    scores: Scores | None = _recorded("the deal's scores")
    totals: Scores | None = _recorded("the game scores after the deal")


class StateDeal(BaseModel):
    """A deal of a log that starts from a state (every card the actions and the score need
    shown); it is played with the game scores the deals before it leave."""

    model_config = _config()
    state: State = Field(description="The deal's starting state; it names the log's rules. "
                         "Its scores are the game scores before the deal as the log records "
                         "them.")
    actions: DealActions = Field([], description="The deal's actions, in order.")
    scores: Scores | None = _recorded("the deal's scores")
    totals: Scores | None = _recorded("the game scores after the deal")


def _log_deal(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """A deal with ``state`` is a StateDeal, any other a SeedDeal: error locations carry no
    union tag (a deal with both a state and a seed: ``seed`` is an unknown field). The context
    (an ``ErrorBudget``) is passed on."""
    return (StateDeal if isinstance(value, dict) and "state" in value else SeedDeal
            ).model_validate(value, context=info.context)


LogDeal = Annotated[SeedDeal | StateDeal, WrapValidator(_log_deal)]


class AuditRequest(BaseModel):
    """A game log: the rules, the game scores before its first deal, and its deals in order."""

    model_config = _config()
    variant: Name = Field("classic", description="Ruleset id.")
    options: Options | None = Field({}, description="House rules and player count (null: the "
                                    "defaults, as {}).")
    scores: Scores | None = Field(
        None, description="Game scores per side before the first deal; null: the first deal's "
        "state's scores when it starts from a state, else all 0.")
    deals: Annotated[list[LogDeal], Field(min_length=1, max_length=MAX_DEALS)] = Field(
        description="The deals, in order.")


class ViewRequest(BaseModel):
    """A state and the seat whose view of it is wanted."""

    model_config = _config()
    state: State
    seat: Seat = Field(description="The seat that looks.")


BatchOp = Literal["deal", "validate", "legal-actions", "check", "apply", "score"]


class BatchOperation(BaseModel):
    """One operation of a batch: its name and its request body, as sent to ``/v1/{op}``."""

    model_config = _config()
    op: BatchOp = Field(description="The operation.")
    body: dict[str, Any] = Field(description="Its request body (answered as POST /v1/{op} "
                                 "answers it, from the same cache).")


class BatchRequest(BaseModel):
    """Operations answered in order, each on its own."""

    model_config = _config()
    operations: Annotated[list[BatchOperation], Field(min_length=1, max_length=MAX_BATCH)]


class AuditedDeal(BaseModel):
    """One deal of the log, replayed: whether every action was legal (else the first that was
    not, and why), the state it ends in, what happened, its score, and whether the scores the
    log records agree."""

    model_config = _config()
    legal: bool = Field(description="Every action of the deal is legal.")
    index: Annotated[int, Field(ge=0, le=MAX_DEAL_ACTIONS)] | None = Field(
        description="Index of the first illegal action; the replay stops there.")
    reason: Reason | None = Field(description="Why it is illegal (as check says).")
    state: State = Field(description="The state after the last legal action.")
    events: Annotated[list[dict[str, Any]], Field(max_length=5 * MAX_DEAL_ACTIONS)] = Field(
        description="What happened: the deal's events, then each action's.")
    score: ScoreResponse = Field(description="The deal's score (final: false while it is not "
                                 "over); scores are the game scores after it.")
    agrees: bool | None = Field(description="The scores the log records for this deal agree "
                                "with the rules; null: it records none.")
    disagreements: Annotated[list[Problem], Field(max_length=64)] = Field(
        description="Each recorded score the rules do not give, with its JSON pointer.")


class AuditResponse(BaseModel):
    """A game log replayed deal by deal."""

    model_config = _config()
    legal: bool = Field(description="Every action of every deal is legal.")
    agrees: bool | None = Field(description="Every score the log records agrees with the "
                                "rules; null: it records none.")
    totals: GameScores = Field(description="Game scores per side after the deal that ended "
                               "the game, else after the last deal.")
    game_over: bool = Field(description="A deal of the log ended the game.")
    winner: Seat | None = Field(description="The winning side, when the game is over.")
    deals: Annotated[list[AuditedDeal], Field(max_length=MAX_DEALS)]


class ViewResponse(BaseModel):
    """The state as one seat sees it."""

    model_config = _config()
    seat: Seat
    state: State = Field(description="Other hands and the stock by their size, the pile by its "
                         "top card, size and whether it is frozen.")


class BatchResult(BaseModel):
    """One operation's answer: the status and body a single request gets."""

    model_config = _config()
    status: Annotated[int, Field(ge=200, le=599)]
    body: dict[str, Any] = Field(description="The answer, or a problem document.")


class BatchResponse(BaseModel):
    """The operations' answers, in order."""

    model_config = _config()
    results: Annotated[list[BatchResult], Field(max_length=MAX_BATCH)]


def dump(model: BaseModel) -> dict[str, Any]:
    """JSON-ready dict of a model."""
    return model.model_dump(mode="json", exclude_defaults=False)
