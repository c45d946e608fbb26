"""The ``Card`` field: a card code on the wire, an engine :class:`~service.engine.Card` in Python."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from ..engine import CARD_CODES, Card, InvalidCard, parse_card

__all__ = ["CARD_SCHEMA", "CardField", "card_field_to_ref"]

CARD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(CARD_CODES),
    "description": (
        "A card: `<rank>-<suit>`, ranks `ace king knight knave 9 8 7 6 5 4 3 2` (high to low), "
        "suits `cups coins swords clubs` (in cycle order: each beats the next, clubs beat cups)."
    ),
    "example": "ace-coins",
}


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
