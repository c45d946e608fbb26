"""examples/webhook_receiver.py, the bot examples' receiver: what verifies is handed over once, what
does not is refused, and a client that connects and sends nothing holds up no delivery."""

from __future__ import annotations

import base64
import http.client
import importlib.util
import json
import secrets
import socket
import ssl
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import trustme
from standardwebhooks import Webhook

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "webhook_receiver.py"
SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
EVENT = {"id": 7, "type": "your_turn", "game": "01jf3v9k2m8q4r6t0w5x7y9z1a"}


def _example() -> ModuleType:
    """examples/webhook_receiver.py, imported from its file (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("webhook_receiver", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def running(tmp_path: Path, ca: trustme.CA) -> Iterator[Any]:
    """The example's Receiver, on HTTPS with a certificate for 127.0.0.1, on a free port."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued = ca.issue_cert("127.0.0.1")
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    receiver = _example().Receiver(SECRET, "127.0.0.1", 0, str(cert), str(key))
    try:
        yield receiver
    finally:
        receiver.close()


def _deliver(port: int, ca: trustme.CA, message_id: str, secret: str = SECRET) -> int:
    """POST ``EVENT`` as the service delivers it, signed with ``secret``; the status of the answer."""
    body = json.dumps(EVENT)
    now = datetime.now(UTC)
    headers = {
        "Content-Type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(message_id, now, body),
    }
    context = ssl.create_default_context()
    ca.configure_trust(context)
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=5)
    try:
        connection.request("POST", "/hook", body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_signed_delivery_is_answered_204_and_handed_over_once(running: Any, ca: trustme.CA) -> None:
    port = running.port
    assert _deliver(port, ca, "msg_1") == 204
    assert _deliver(port, ca, "msg_1") == 204  # a retry of it: acknowledged, not handed over again
    assert running.events.get(timeout=2) == EVENT
    assert running.events.empty()


def test_a_delivery_signed_with_another_secret_is_answered_401_and_dropped(running: Any, ca: trustme.CA) -> None:
    other = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    assert _deliver(running.port, ca, "msg_2", secret=other) == 401
    assert running.events.empty()


def test_a_client_that_connects_and_sends_nothing_holds_up_no_delivery(running: Any, ca: trustme.CA) -> None:
    """The TLS handshake runs on each connection's thread: an idle one used to block accept() for all."""
    port = running.port
    with socket.create_connection(("127.0.0.1", port), timeout=5):  # idle: no ClientHello
        started = time.monotonic()
        assert _deliver(port, ca, "msg_3") == 204
        assert running.events.get(timeout=2) == EVENT
        assert time.monotonic() - started < 2


@pytest.mark.parametrize("length", ["abc", "-1", "²"])
def test_a_request_whose_length_is_not_a_number_is_answered_400(
    running: Any, ca: trustme.CA, length: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anyone may post to the receiver: a Content-Length that is no count of bytes was a traceback on the
    bot's terminal and no answer ('-1': a wait for the connection's end)."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    raw = socket.create_connection(("127.0.0.1", running.port), timeout=5)
    with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        tls.sendall(f"POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode())
        assert tls.recv(100).split(b"\r\n")[0].endswith(b" 400 Bad Request")
    assert running.events.empty()
    assert "Traceback" not in capsys.readouterr().err
