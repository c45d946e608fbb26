"""A stream flood: many event streams held open from a few client addresses, each within every per-address limit.

The attack of issue 34: twelve client addresses holding 2,000 streams of a game's feed between
them (``GET /v1/games/{id}/events``, Server-Sent Events, public), so that no address passes the
proxy's connections per address (200) or the real-time role's streams per address (200). Every
stream is opened once, over ``ramp_seconds``, and held (read and dropped) until ``seconds`` have
passed; a stream the server refuses or closes is counted, not opened again.

Run it in a process of its own (``python -m tests.support.stream_flood --port P --game G``: prints
the tally as JSON when it ends), so that its loop never shares an interpreter lock with the client
whose latency is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from dataclasses import asdict, dataclass

HOST = "127.0.0.1"


@dataclass
class Tally:
    """What became of the flood's streams."""

    streams: int = 0  # asked for
    opened: int = 0  # answered 200 and sent their first event
    refused: int = 0  # answered otherwise (a 429, a 503), or not at all
    closed: int = 0  # opened, then closed by the server before the end
    held_at_end: int = 0  # still open when the flood ended
    most_held: int = 0  # open at once, at most


class _Stream(asyncio.Protocol):
    def __init__(self, request: bytes, opened: asyncio.Future[bool], tally: Tally, held: list[int]) -> None:
        self.request, self.opened, self.tally, self.held = request, opened, tally, held
        self.transport: asyncio.BaseTransport | None = None
        self.first = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        assert isinstance(transport, asyncio.Transport)
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if self.opened.done():
            return
        self.first += data
        if b"\r\n\r\n" in self.first:
            ok = self.first.startswith(b"HTTP/1.1 200") and b"event: game" in self.first
            if ok or not self.first.startswith(b"HTTP/1.1 200"):
                self.opened.set_result(ok)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_result(False)
        elif self.opened.result() and self.held[1] == 0:  # the server closed it, not the flood's end
            self.held[0] -= 1
            self.tally.closed += 1


async def flood(port: int, game: str, sources: list[str], streams: int, seconds: float, ramp_seconds: float) -> Tally:
    tally, held = Tally(streams=streams), [0, 0]  # open now; whether the flood is ending
    loop = asyncio.get_running_loop()
    request = f"GET /v1/games/{game}/events HTTP/1.1\r\nHost: coins\r\nAccept: text/event-stream\r\n\r\n".encode()
    ends = time.monotonic() + seconds
    transports: list[asyncio.BaseTransport] = []

    async def one(number: int) -> None:
        await asyncio.sleep(ramp_seconds * number / streams)
        opened: asyncio.Future[bool] = loop.create_future()
        source = sources[number % len(sources)]
        try:
            transport, _ = await loop.create_connection(
                lambda: _Stream(request, opened, tally, held), HOST, port, local_addr=(source, 0)
            )
            transports.append(transport)
            ok = await asyncio.wait_for(opened, max(1.0, ends - time.monotonic()))
        except (OSError, TimeoutError):
            ok = False
        if ok:
            tally.opened += 1
            held[0] += 1
            tally.most_held = max(tally.most_held, held[0])
        else:
            tally.refused += 1

    await asyncio.gather(*(one(number) for number in range(streams)))
    await asyncio.sleep(max(0.0, ends - time.monotonic()))
    tally.held_at_end = held[0]
    held[1] = 1
    for transport in transports:
        transport.close()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--game", required=True)
    parser.add_argument("--addresses", type=int, default=12, help="client addresses, 127.0.0.10 and up")
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--ramp-seconds", type=float, default=5.0)
    args = parser.parse_args()
    assert 1 <= args.addresses <= 200 and 1 <= args.streams <= 10_000 and 0 < args.seconds <= 300
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sources = [f"127.0.0.{10 + number}" for number in range(args.addresses)]
    tally = asyncio.run(flood(args.port, args.game, sources, args.streams, args.seconds, args.ramp_seconds))
    print(json.dumps(asdict(tally)), flush=True)


if __name__ == "__main__":
    main()
