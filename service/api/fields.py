"""Fields of our own: ``Card`` (a card code on the wire, an engine :class:`~service.engine.Card`
in Python), ``Text`` (a string the service stores or queries with), strict JSON integers and
booleans, ``Itself``, and the seat number."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from ..engine import CARD_CODES, Card, InvalidCard, parse_card
from ..names import MAX_CODE_POINTS, MAX_GRAPHEMES, NameRefused, checked_name

__all__ = [
    "CARD_SCHEMA",
    "NO_NUL_PATTERN",
    "CardField",
    "Itself",
    "NAME_RULE",
    "JsonBoolean",
    "JsonInteger",
    "PLAYER_NAME_PATTERN",
    "PlayerName",
    "Text",
    "card_field_to_ref",
    "seat_field",
]

CARD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(CARD_CODES),
    "description": (
        "A card: `<rank>-<suit>`, ranks `ace king knight knave 9 8 7 6 5 4 3 2` (high to low), "
        "suits `cups coins swords clubs` (in cycle order: each beats the next, clubs beat cups)."
    ),
    "example": "ace-coins",
}

# Any text but U+0000: PostgreSQL cannot store NUL in a text column (nor compare with one), SQLite can.
NO_NUL_PATTERN = "^[^\\u0000]*$"


class Text(ma.fields.String):
    """A string of a request that the service stores or queries with: a name, a seed, a cursor.

    It may hold any character but U+0000, which PostgreSQL cannot hold in text while SQLite can:
    both databases refuse it alike, as a ``validation_error`` of the field, before any query.
    The spec says so with a ``pattern``, so clients and fuzzers know it too.
    """

    default_error_messages = {"nul": "Must not contain the NUL character (U+0000)."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs["metadata"] = {"pattern": NO_NUL_PATTERN, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if "\x00" in text:
            raise self.make_error("nul")
        return text


# The spec's form of PlayerName's rule (JSON Schema patterns know no Unicode categories): one
# character at least that is not white space, and no C0 or C1 control character; the field itself
# applies the whole rule (service.names).
_NAME_CHAR = "[^\\u0000-\\u001f\\u007f-\\u009f]"
PLAYER_NAME_PATTERN = f"^{_NAME_CHAR}*[^\\s\\u0000-\\u001f\\u007f-\\u009f]{_NAME_CHAR}*$"
NAME_RULE = (
    'A name for people to read (docs/players.md, "Names"): the PRECIS nickname profile (RFC 8266: '
    "width-mapped, NFKC, one plain space between words, none at the ends); something visible (not only "
    "blanks, fillers, joiners or marks); no line or paragraph separator; at most "
    f"{MAX_GRAPHEMES} characters (grapheme clusters) and {MAX_CODE_POINTS} code points; not a bot's name, "
    "nor one that looks like it (Unicode TR39 skeletons). The name kept is the profile's output."
)


class PlayerName(ma.fields.String):
    """A name people will read: a player's, an anonymous seat's, a bot seat's. The rule is
    :func:`service.names.checked_name`'s; a name it refuses is a ``validation_error`` of the field,
    with the rule broken as the message. The value loaded is the name to keep (the profile's output)."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"minLength": 1, "maxLength": MAX_CODE_POINTS, "pattern": PLAYER_NAME_PATTERN}
        kwargs["metadata"] = {**metadata, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return checked_name(text)
        except NameRefused as refused:
            raise ma.ValidationError(str(refused)) from None


class CardField(ma.fields.Field[Card]):
    """A card code such as ``ace-coins``; documented as a reference to the ``Card`` enum."""

    def _serialize(self, value: Card | None, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else str(value.code)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        try:
            return parse_card(value)
        except InvalidCard as error:
            raise ma.ValidationError(str(error)) from error


def card_field_to_ref(_converter: Any, field: ma.fields.Field[Any], **_kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: card fields point at the one ``Card`` component."""
    if isinstance(field, CardField):
        ref = {"$ref": "#/components/schemas/Card"}
        return {"anyOf": [ref, {"type": "null"}]} if field.allow_none else ref
    return {}


class JsonInteger(ma.fields.Integer):
    """A JSON integer: `4`, or `4.0` as JSON Schema reads it; never `4.5` or `"4"`, which marshmallow takes as 4."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        if isinstance(value, bool) or not integral:
            raise self.make_error("invalid", input=value)
        return int(super()._deserialize(value, attr, data, **kwargs))


class JsonBoolean(ma.fields.Boolean):
    """`true` or `false` only: marshmallow's Boolean also reads `1`, `"yes"`, `"on"` … as true."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Itself(ma.fields.Nested):
    """The dumped object itself, seen through another schema: a play result is also the play
    it records (its ``seat`` and ``card``). Documented as the nested schema, like ``Nested``."""

    def get_value(self, obj: Any, attr: str, accessor: Any = None, default: Any = ma.missing) -> Any:
        return obj


SEAT = ma.validate.Range(0, 2)


def seat_field(description: str, **kwargs: object) -> ma.fields.Integer:
    return JsonInteger(validate=SEAT, metadata={"description": description, "example": 0}, **kwargs)  # type: ignore[arg-type]
