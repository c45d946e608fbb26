"""Health probes: ``/healthz`` says the process is alive, ``/readyz`` that it can reach its database (and,
in its body, whether the other roles are up, and whether they hear the changes of games)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from flask.views import MethodView
from marshmallow import fields

from ....games import DatabaseUnavailable
from ....observability.metrics import ROLE_LISTENING, ROLE_UP
from ...common import Blueprint
from ...context import games
from ...openapi import PUBLIC
from ...problems import RETRY_AFTER_SECONDS, Problem
from ...schemas import ResponseSchema

__all__ = ["blp"]

blp = Blueprint(
    "health",
    __name__,
    description="Probes for orchestrators and load balancers (outside the versioned API).",
)

OK = {"status": "ok"}
ROLES = ("worker", "realtime")  # the roles whose processes leave a sign of life in the database
SEEN_WITHIN = timedelta(seconds=15)  # three of their beats (every 5 s)
log = logging.getLogger(__name__)


class HealthSchema(ResponseSchema):
    status = fields.String(required=True, metadata={"description": "Always `ok`.", "example": "ok"})


class RolesSchema(ResponseSchema):
    """Each other role: `up` while one of its processes was seen within 15 s, else `down` (open: more
    roles and values may appear). A role that is down never fails the probe: the web role still
    answers (without a worker, due moves wait; without the real-time role, streams do)."""

    worker = fields.String(required=True, metadata={"description": "`up` or `down`.", "example": "up"})
    realtime = fields.String(required=True, metadata={"description": "`up` or `down`.", "example": "up"})


class ListenersSchema(ResponseSchema):
    """Whether each other role hears the changes of games (PostgreSQL `LISTEN`, Redis `SUBSCRIBE` or
    SQLite's data version): `listening` while every process of it seen within 15 s does; `lost` while
    one of them does not (its listener reconnects on its own; meanwhile the worker finds changes only
    at its polls, `WORKER_POLL_MS`, and streams only at their heartbeats); `unknown` while the role is
    down (open: more roles and values may appear). Never fails the probe."""

    worker = fields.String(
        required=True, metadata={"description": "`listening`, `lost` or `unknown`.", "example": "listening"}
    )
    realtime = fields.String(
        required=True, metadata={"description": "`listening`, `lost` or `unknown`.", "example": "listening"}
    )


class ReadinessSchema(HealthSchema):
    roles = fields.Nested(RolesSchema, required=True)
    listeners = fields.Nested(ListenersSchema, required=True)


@blp.route("/healthz")
class LivenessViews(MethodView):
    @blp.doc(operationId="getLiveness", summary="Is the process alive?", security=PUBLIC)
    @blp.response(200, HealthSchema)
    def get(self) -> Any:
        """Answers 200 as long as the process serves requests; it does not touch the database, so a
        database outage does not get healthy workers restarted."""
        return OK


@blp.route("/readyz")
class ReadinessViews(MethodView):
    @blp.doc(operationId="getReadiness", summary="Can the service take traffic?", security=PUBLIC)
    @blp.response(200, ReadinessSchema)
    @blp.problems("database_unavailable")
    def get(self) -> Any:
        """Answers 200 when the database answers a trivial query, 503 `database_unavailable`
        (with `Retry-After`) when it does not; the body says which of the other roles are up, and
        whether they hear the changes of games."""
        try:
            games().ping()
            seen = games().store.due.roles_seen()
        except DatabaseUnavailable as error:
            log.warning("readiness check failed: %s", type(error).__name__)
            raise Problem(
                "database_unavailable",
                "the database does not answer; retry shortly",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            ) from error
        now = datetime.now(UTC)
        roles = {role: "up" if role in seen and now - seen[role].seen <= SEEN_WITHIN else "down" for role in ROLES}
        listeners = {role: "unknown" for role in ROLES}  # a role down
        for role in ROLES:
            found = seen.get(role)
            if roles[role] == "up" and found is not None:  # lost: one of its processes said it did not listen
                lost = found.not_listening is not None and now - found.not_listening <= SEEN_WITHIN
                listeners[role] = "lost" if lost else "listening"
            ROLE_UP.labels(role).set(roles[role] == "up")
            ROLE_LISTENING.labels(role).set(listeners[role] == "listening")
        return {**OK, "roles": roles, "listeners": listeners}
