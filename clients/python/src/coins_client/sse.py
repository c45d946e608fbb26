"""A Server-Sent Events decoder, as the WHATWG HTML standard's "event stream interpretation" says.

Bytes in, in chunks of any size (a chunk may end inside a line, inside a CRLF or inside a UTF-8
character); events out, each once its blank line has arrived:

    decoder = SSEDecoder()
    for chunk in response.iter_bytes():
        for event in decoder.feed(chunk):
            print(event.id, event.event, event.data)

Lines end with CRLF, LF or CR. ``data`` lines of one event are joined with LF; ``id`` sets the last
event id (kept across events, ignored when it holds NUL); ``retry`` sets the reconnection time in
milliseconds (ASCII digits only); a line starting with ``:`` is a comment (a heartbeat). An event
without data is not dispatched, nor is an event the stream ends before its blank line.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event: its type (``message`` unless the stream named one), data and last event id."""

    event: str
    data: str
    id: str


class SSEDecoder:
    """Turns a byte stream into events; one decoder per connection."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._line = ""  # the current line so far (no terminator yet)
        self._after_cr = False  # the last character was CR: an LF right after it ends nothing
        self._first = True  # a BOM is skipped at the stream's very start only
        self._event = ""
        self._data: list[str] = []
        self.last_event_id = ""
        self.retry_ms: int | None = None  # the server's reconnection time, once it sent one
        self.comments = 0  # comment lines seen (the server's heartbeats)

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events completed by ``chunk``."""
        text = self._text.decode(chunk)
        if self._first and text:
            self._first = False
            text = text.removeprefix("\ufeff")
        events: list[ServerSentEvent] = []
        start = 0
        for index, character in enumerate(text):
            if character not in "\r\n":
                continue
            if character == "\n" and self._after_cr and index == start:
                self._after_cr = False  # the LF of a CRLF
                start = index + 1
                continue
            self._after_cr = character == "\r"
            event = self._take_line(self._line + text[start:index])
            self._line = ""
            start = index + 1
            if event is not None:
                events.append(event)
        rest = text[start:]
        if rest:
            self._after_cr = False
            self._line += rest
        return events

    def _take_line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        elif field == "id" and "\0" not in value:
            self.last_event_id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            self.retry_ms = int(value)
        return None  # any other field (or an id with NUL, a retry not all digits) is ignored

    def _dispatch(self) -> ServerSentEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return ServerSentEvent(event=event or "message", data="\n".join(data), id=self.last_event_id)
