"""The schemas of the completed tricks: the page asked for and the page given."""

from __future__ import annotations

from marshmallow import fields, validate

from ...fields import Text
from ...schemas import RequestSchema, ResponseSchema, TrickSchema

# -- requests ---------------------------------------------------------------------------


class ListTricksQuerySchema(RequestSchema):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200), metadata={"description": "Page size."})
    cursor = Text(validate=validate.Length(1, 200), metadata={"description": "`next_cursor` of the previous page."})


# -- responses --------------------------------------------------------------------------


class TrickPageSchema(ResponseSchema):
    items = fields.List(fields.Nested(TrickSchema), required=True, attribute="tricks")
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last."},
    )
