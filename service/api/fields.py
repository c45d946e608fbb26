"""Fields of our own: ``Card`` (a card code on the wire, an engine :class:`~service.engine.Card`
in Python), ``Text`` (a string the service stores or queries with), strict JSON integers and
booleans, ``Itself``, and the seat number."""

from __future__ import annotations

import unicodedata
from typing import Any

import marshmallow as ma

from ..engine import CARD_CODES, Card, InvalidCard, parse_card

__all__ = [
    "CARD_SCHEMA",
    "NO_NUL_PATTERN",
    "CardField",
    "Itself",
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
# refuses every character of category C (format characters, unassigned ones …) too.
_NAME_CHAR = "[^\\u0000-\\u001f\\u007f-\\u009f]"
PLAYER_NAME_PATTERN = f"^{_NAME_CHAR}*[^\\s\\u0000-\\u001f\\u007f-\\u009f]{_NAME_CHAR}*$"
PLAYER_NAME_LENGTH = 40


class PlayerName(ma.fields.String):
    """A player's name: trimmed of white space at both ends, then 1 to 40 characters, none of
    Unicode category C (control, format, surrogate, private use, unassigned): a name is shown to
    others as it is, and must not hide or reorder text around it. Refused as a ``validation_error``
    of the field, with a message saying which rule."""

    default_error_messages = {
        "blank": "Must not be empty (or only white space).",
        "too_long": f"Must be at most {PLAYER_NAME_LENGTH} characters (after trimming white space).",
        "control": "Must not contain control, format or unassigned characters (Unicode category C).",
    }

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"minLength": 1, "maxLength": PLAYER_NAME_LENGTH, "pattern": PLAYER_NAME_PATTERN}
        kwargs["metadata"] = {**metadata, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        name = super()._deserialize(value, attr, data, **kwargs).strip()
        if not name:
            raise self.make_error("blank")
        if len(name) > PLAYER_NAME_LENGTH:
            raise self.make_error("too_long")
        if any(unicodedata.category(char).startswith("C") for char in name):
            raise self.make_error("control")
        return name


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
