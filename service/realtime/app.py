"""The real-time role as an ASGI application: the web app answers, the event loop holds.

Every request goes to the service's Flask app (the same ``create_app`` the web role serves),
mounted with a2wsgi on a few threads: so a stream's first answer, and every refusal, carries what
every answer carries (CORS, security headers, request id, the access log's line, the metrics,
problems with their codes). When the events view would have to wait (a stream's next events, a
long poll with nothing yet), it hands its reader over (:class:`service.events.Hold`, through the
request's ASGI scope, which a2wsgi gives the app as ``environ["asgi.scope"]``); this app then keeps
the connection open on its event loop, with the :class:`.Hub`, after the view's answer has
started. This is GRIP's division of labour (the app says what to hold; the holder holds) inside
one process, on standard parts: uvicorn for the connections, a2wsgi for the WSGI app.

Behind the recommended proxy only the feeds' requests reach this role (``deploy/haproxy.cfg``); on
one machine it serves every request on one port (the README's serve command).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Mapping
from typing import Any

from a2wsgi import WSGIMiddleware
from flask import Flask

from ..api.refusals import problem, refusal_of_head
from ..api.resources.events.routes import hold_streams
from ..events import Hold
from .hub import Hub, Receive, Send

__all__ = ["RealtimeApp"]

log = logging.getLogger(__name__)

HOLDER = "coins.holder"  # in a request's scope: the holder it came through
HOLD = "coins.hold"  # in a request's scope: the reader its view handed over


class RealtimeApp:
    """The ASGI application of a real-time process: ``web`` on ``threads`` threads, held readers on ``hub``."""

    def __init__(self, web: Flask, hub: Hub, *, threads: int = 10) -> None:
        self.web = web
        self.hub = hub
        self._wsgi = WSGIMiddleware(_TerminatedInput(web), workers=threads)  # type: ignore[arg-type]
        hold_streams(web, self)

    # -- the holder, as the events view sees it (service.events.Holder) --------------------------

    def can_hold(self, environ: Mapping[str, Any]) -> bool:
        scope = environ.get("asgi.scope")
        return isinstance(scope, dict) and scope.get(HOLDER) is self

    def admit(self, address: str, credential: str | None) -> Any:
        return self.hub.admit(address, credential)

    def hand_over(self, environ: Mapping[str, Any], hold: Hold) -> None:
        environ["asgi.scope"][HOLD] = hold

    # -- ASGI ------------------------------------------------------------------------------------

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets here: the server refuses the upgrade
        refused = refusal_of_head(scope["method"], _target(scope), scope["headers"])
        if refused is not None:  # gunicorn's limits, which uvicorn does not have (api.refusals)
            log.warning("Invalid request from ip=%s: %s", (scope.get("client") or ("",))[0], refused)
            status, headers, body = problem(refused)
            encoded = [(name.lower().encode(), value.encode()) for name, value in headers]
            await send({"type": "http.response.start", "status": status, "headers": encoded})
            await send({"type": "http.response.body", "body": body})
            return
        scope[HOLDER] = self
        await self._answer(scope, receive, send)
        if HOLD in scope:  # the view handed its reader over: the hub keeps the connection (and only it keeps the Hold)
            await self.hub.hold(scope.pop(HOLD), send, receive)

    async def _answer(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        """The web app's answer; only its start and first events, for a reader it handed over."""
        handover = _HandOver(scope, send)
        try:
            await self._wsgi(scope, receive, handover.send)  # type: ignore[arg-type]  # ASGI's dicts, typed loosely here
        except BaseException:
            hold = scope.pop(HOLD, None)
            if hold is not None:
                hold.release()
            raise

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.hub.start()
                _end_streams_on_sigterm(self.hub)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.hub.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


def _target(scope: dict[str, Any]) -> bytes:
    """The request's target as sent: its path and query."""
    path: bytes = scope.get("raw_path") or scope["path"].encode()
    query: bytes = scope.get("query_string") or b""
    return path + b"?" + query if query else path


class _TerminatedInput:
    """``web`` with ``wsgi.input_terminated`` said: a2wsgi's input ends where the request's body ends
    (it reads the ASGI messages up to the last), chunked or not, but it does not say so, and werkzeug
    reads no body that has neither a length nor that flag (a chunked body would be taken as empty)."""

    def __init__(self, web: Flask) -> None:
        self._web = web

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ["wsgi.input_terminated"] = True
        return self._web(environ, start_response)


class _HandOver:
    """The web app's answer, passed on; for a held reader, its end is not: the hub goes on."""

    def __init__(self, scope: dict[str, Any], send: Send) -> None:
        self._scope = scope
        self._send = send

    async def send(self, message: dict[str, Any]) -> None:
        if HOLD not in self._scope:
            await self._send(message)
        elif message["type"] == "http.response.start":  # its length is not known: the hub sends the rest
            headers = [(name, value) for name, value in message["headers"] if name.lower() != b"content-length"]
            await self._send({**message, "headers": headers})
        elif message.get("body"):
            await self._send({**message, "more_body": True})


def _end_streams_on_sigterm(hub: Hub) -> None:
    """On SIGTERM, end every held connection at once (its client resumes elsewhere), then let the
    server's own handler stop it: a stream never ends by itself, and the server would otherwise
    wait for it. Only where the server runs its loop on the main thread (``coins-realtime`` does)."""
    if threading.current_thread() is not threading.main_thread():
        return
    stop = signal.getsignal(signal.SIGTERM)

    def end_streams_then_stop(signum: int, frame: Any) -> None:
        hub.end_all()
        if callable(stop):
            stop(signum, frame)

    signal.signal(signal.SIGTERM, end_streams_then_stop)
