"""Flask's JSON provider on orjson (:mod:`service.jsonio`): response bodies and request parsing."""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider

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
