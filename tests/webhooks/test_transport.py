"""A delivery's connection: to the checked address, TLS verified for the name, no redirect followed,
bounded in time."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trustme

from service.webhooks import Target, tls_context
from service.webhooks.transport import Connections, post
from tests.support.webhook_receiver import HOST, Receiver, receiver


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Receiver]:
    with receiver(tmp_path) as kept:
        yield kept


def test_it_connects_to_the_checked_address_and_speaks_for_the_name(running: Receiver) -> None:
    status = post(Target(HOST, running.port, "/hook?x=1", "127.0.0.1"), b"{}", {}, tls_context(running.ca_file))
    assert status == 204
    [got] = running.received
    assert got.path == "/hook?x=1" and got.headers["host"] == f"{HOST}:{running.port}"


def test_a_certificate_for_another_name_or_an_unknown_ca_is_refused(running: Receiver) -> None:
    with pytest.raises(ssl.SSLCertVerificationError):
        post(Target("other.test", running.port, "/", "127.0.0.1"), b"{}", {}, tls_context(running.ca_file))
    with pytest.raises(ssl.SSLCertVerificationError):
        post(Target(HOST, running.port, "/", "127.0.0.1"), b"{}", {}, tls_context())
    assert running.received == []
    deadline = time.monotonic() + 5  # the receiver's threads see the handshakes broken off
    while running.refused_handshakes < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert running.refused_handshakes == 2


def test_a_redirect_is_an_answer_not_followed(running: Receiver) -> None:
    running.answers.append(302)
    assert post(Target(HOST, running.port, "/", "127.0.0.1"), b"{}", {}, tls_context(running.ca_file)) == 302
    assert len(running.received) == 1


def test_a_receiver_that_never_answers_is_given_up(running: Receiver) -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never speaks TLS
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(silent.accept()[0]), daemon=True).start()
    try:
        with pytest.raises((OSError, ValueError)):
            post(Target(HOST, silent.getsockname()[1], "/", "127.0.0.1"), b"{}", {}, tls_context(), seconds=0.5)
    finally:
        for connection in accepted:
            connection.close()
        silent.close()


@contextmanager
def trickling(ca: trustme.CA) -> Iterator[int]:
    """A TLS server for HOST that reads a request, then sends its answer's head a byte every 0.1 s
    (100 bytes at most, until the client closes); its port."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(HOST).configure_cert(context)
    server = socket.create_server(("127.0.0.1", 0))

    def answer_slowly() -> None:
        raw, _ = server.accept()
        with context.wrap_socket(raw, server_side=True) as connection:
            while b"\r\n\r\n" not in connection.recv(65536):
                pass
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(100):
                try:
                    connection.sendall(b"x")
                except OSError:
                    return  # the client gave up
                time.sleep(0.1)

    threading.Thread(target=answer_slowly, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def test_a_receiver_that_trickles_its_answer_is_given_up_when_the_try_s_time_is_up(tmp_path: Path) -> None:
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    with trickling(ca) as port:
        began = time.monotonic()
        with pytest.raises(TimeoutError):  # every byte came within the socket's timeout: the try's time ran out
            post(Target(HOST, port, "/", "127.0.0.1"), b"{}", {}, tls_context(str(ca_file)), seconds=0.6)
        assert time.monotonic() - began < 5.0  # the receiver would trickle for 10 s


def test_a_kept_connection_has_its_full_time_for_each_delivery(running: Receiver) -> None:
    connections = Connections(tls_context(running.ca_file))
    target = Target(HOST, running.port, "/hook", "127.0.0.1")
    try:
        assert connections.post(target, b"{}", {}, seconds=1.0) == 204
        time.sleep(1.1)  # longer than the first try's time: its deadline has passed
        assert connections.post(target, b"{}", {}, seconds=1.0) == 204
        assert (len(running.received), running.connections) == (2, 1)
    finally:
        connections.close()


def test_a_delivery_s_body_is_not_held_back_for_an_ack(running: Receiver) -> None:
    """http.client writes a request's head and body apart; without ``TCP_NODELAY`` (which its own
    connect sets, and ours must too) the body waited for the receiver's delayed ACK of the head: on a
    kept connection about 40 ms a delivery."""
    context = tls_context(running.ca_file)
    opened: list[ssl.SSLSocket] = []
    wrap = context.wrap_socket

    def recording(*args: Any, **kwargs: Any) -> ssl.SSLSocket:
        opened.append(wrap(*args, **kwargs))
        return opened[-1]

    context.wrap_socket = recording  # type: ignore[method-assign]  # to see the socket the delivery used
    connections = Connections(context)
    try:
        assert connections.post(Target(HOST, running.port, "/hook", "127.0.0.1"), b"{}", {}) == 204
        [kept] = opened
        assert kept.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        connections.close()


def test_kept_connections_serve_only_the_checked_address_and_name(running: Receiver) -> None:
    connections = Connections(tls_context(running.ca_file))
    target = Target(HOST, running.port, "/hook", "127.0.0.1")
    try:
        assert connections.post(target, b"{}", {}) == 204
        assert connections.post(target, b"{}", {}) == 204
        assert (len(running.received), running.connections) == (2, 1), "the second delivery reused the first's"
        with pytest.raises(OSError):  # another checked address: a connection of its own (nobody listens there)
            connections.post(Target(HOST, running.port, "/hook", "127.0.0.2"), b"{}", {}, seconds=2)
        with pytest.raises(ssl.SSLCertVerificationError):  # another name: its own TLS, verified for it
            connections.post(Target("other.test", running.port, "/hook", "127.0.0.1"), b"{}", {})
        assert (len(running.received), running.connections) == (2, 1), "neither reached the receiver's HTTP"
        running.drop_connections()  # the receiver closes its idle connections
        assert connections.post(target, b"{}", {}) == 204
        assert (len(running.received), running.connections) == (3, 2), "sent once more on a new connection"
    finally:
        connections.close()


def test_a_connection_the_receiver_closes_is_not_kept(running: Receiver) -> None:
    connections = Connections(tls_context(running.ca_file))
    target = Target(HOST, running.port, "/hook", "127.0.0.1")
    try:
        running.answers.append(500)
        assert post(target, b"{}", {}, tls_context(running.ca_file)) == 500  # one-shot: Connection: close
        assert connections.post(target, b"{}", {}) == 204
        assert connections.post(target, b"{}", {}) == 204
        assert (len(running.received), running.connections) == (3, 2)
    finally:
        connections.close()
