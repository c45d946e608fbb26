"""Health probes: ``/healthz`` says the process is alive, ``/readyz`` that it can reach its database."""

from __future__ import annotations

import logging
from typing import Any

import marshmallow as ma
from flask.views import MethodView
from marshmallow import fields

from ....games import DatabaseUnavailable
from ...common import Blueprint
from ...context import games
from ...problems import RETRY_AFTER_SECONDS, Problem

__all__ = ["blp"]

blp = Blueprint(
    "health",
    __name__,
    description="Probes for orchestrators and load balancers (outside the versioned API).",
)

OK = {"status": "ok"}
log = logging.getLogger(__name__)


class HealthSchema(ma.Schema):
    status = fields.String(required=True, metadata={"description": "Always `ok`.", "example": "ok"})


@blp.route("/healthz")
class LivenessViews(MethodView):
    @blp.doc(operationId="getLiveness", summary="Is the process alive?")
    @blp.response(200, HealthSchema)
    def get(self) -> Any:
        """Answers 200 as long as the process serves requests; it does not touch the database, so a
        database outage does not get healthy workers restarted."""
        return OK


@blp.route("/readyz")
class ReadinessViews(MethodView):
    @blp.doc(operationId="getReadiness", summary="Can the service take traffic?")
    @blp.response(200, HealthSchema)
    @blp.problems("database_unavailable")
    def get(self) -> Any:
        """Answers 200 when the database answers a trivial query, 503 `database_unavailable`
        (with `Retry-After`) when it does not."""
        try:
            games().ping()
        except DatabaseUnavailable as error:
            log.warning("readiness check failed: %s", type(error).__name__)
            raise Problem(
                "database_unavailable",
                "the database does not answer; retry shortly",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            ) from error
        return OK
