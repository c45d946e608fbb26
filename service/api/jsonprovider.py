"""Flask's JSON provider on orjson (:mod:`service.jsonio`): response bodies and request parsing."""

from __future__ import annotations

from typing import Any, cast

from flask import Response
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response as BaseResponse

from .. import jsonio

__all__ = ["FastJSONProvider"]


class FastJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider with orjson for compact output and parsing. Pretty-printed or
    key-sorted output (only asked for when debugging) still goes through the standard library."""

    sort_keys = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs.get("indent") is not None or kwargs.get("sort_keys", self.sort_keys):
            return super().dumps(obj, **kwargs)
        return jsonio.dumps(obj, default=kwargs.get("default", self.default))

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return jsonio.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> BaseResponse:
        """``jsonify``: compact bodies go from orjson's bytes straight into the response (Flask's
        own way turns them into text and back); indented ones (debug mode) are Flask's."""
        if (self.compact is None and self._app.debug) or self.compact is False:
            return super().response(*args, **kwargs)
        body = jsonio.encode(self._prepare_response_obj(args, kwargs), default=self.default) + b"\n"
        return cast(type[Response], self._app.response_class)(body, mimetype=self.mimetype)
