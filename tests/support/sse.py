"""A small Server-Sent Events client over http.client, for the tests."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Event:
    id: int
    type: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Comment:
    text: str


class EventStream:
    """One open ``GET /v1/games/{id}/events`` stream (or, with ``path``, another feed's, such as
    ``/v1/players/me/events``); iterate for its events and comments."""

    def __init__(
        self,
        port: int,
        game_id: str,
        *,
        token: str | None = None,
        last_event_id: int | None = None,
        timeout: float = 10.0,
        host: str = HOST,
        http_1_0: bool = False,
        path: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
        if http_1_0:  # http.client has no option for it: its version attributes are the way
            self.connection._http_vsn, self.connection._http_vsn_str = 10, "HTTP/1.0"
        headers = {"Accept": "text/event-stream", **(headers or {})}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection.request("GET", path or f"/v1/games/{game_id}/events", headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = dict(self.response.getheaders())
        self.body = self.response.read() if self.status != 200 else b""

    def __iter__(self) -> Iterator[Event | Comment]:
        """Events and comment lines as they come, until the server ends the stream."""
        fields: dict[str, str] = {}
        while True:
            raw = self.response.readline()
            if not raw:
                return
            line = raw.decode().rstrip("\r\n")
            if not line:
                if "data" in fields:
                    yield Event(int(fields["id"]), fields["event"], json.loads(fields["data"]))
                fields = {}
            elif line.startswith(":"):
                yield Comment(line[1:].strip())
            else:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")

    def events(self) -> Iterator[Event]:
        return (item for item in self if isinstance(item, Event))

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
