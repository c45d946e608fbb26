"""Structured logs: every record as one JSON line on stderr, at the level LOG_LEVEL names."""

from __future__ import annotations

import logging
import re
import sys
from datetime import UTC, datetime
from typing import IO, Any

from .. import jsonio

__all__ = ["JsonFormatter", "configure_logging"]

# The attributes every LogRecord has; anything else was passed with ``extra=`` and is logged as a field.
# uvicorn's records carry ``color_message``, the message again with terminal colour codes: not a field.
_RECORD_ATTRIBUTES = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName", "color_message"}
# SQLAlchemy writes a failed statement's bound values into its message ("[parameters: (...)]"):
# they may hold token hashes or stored hands, so they never reach a log line.
_SQL_PARAMETERS = re.compile(r"\[parameters: .*")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, the ``extra`` fields, and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": _redact(record.getMessage()),
        }
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRIBUTES and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = _redact(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = _redact(record.exc_text)
        if record.stack_info:
            entry["stack"] = record.stack_info
        return jsonio.dumps(entry, default=str)


def _redact(text: str) -> str:
    return _SQL_PARAMETERS.sub("[parameters: redacted]", text) if "[parameters: " in text else text


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time (test runners swap it), unless given a stream."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        super().__init__(stream)
        self._fixed = stream

    @property
    def stream(self) -> IO[str]:
        return self._fixed if self._fixed is not None else sys.stderr

    @stream.setter
    def stream(self, value: IO[str] | None) -> None:
        self._fixed = value


def configure_logging(level: str, stream: IO[str] | None = None) -> logging.Handler:
    """Send every log record (the service's and its libraries') through one JSON handler on the root logger.

    Idempotent: a second call (another ``create_app``) replaces the handler it installed before
    instead of adding one more. Gunicorn's own loggers keep their handlers and do not propagate.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_coins_json", False):
            root.removeHandler(handler)
    handler = _StderrHandler(stream)
    handler._coins_json = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level)
    return handler
