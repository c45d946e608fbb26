"""The HTTP load benchmark's baseline: a minimal Flask app whose one endpoint is one single-row UPDATE.

``POST /bump/<n>`` runs one write transaction that adds 1 to row ``n`` of a one-table
database and answers a small JSON body. It uses the service's own database handle
(:class:`service.store.Database`), so SQLite runs in the same WAL / BEGIN IMMEDIATE mode
and PostgreSQL through the same pool: the gap between it and the service is what the
service does beyond one write per request. Run by bench/http_load.py under the same
gunicorn settings as the service (``gunicorn -c gunicorn.conf.py --pythonpath bench 'baseline_app:create_baseline_app()'``).
"""

from __future__ import annotations

from flask import Flask, jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy import text

from service.config import Settings
from service.store import Database

ROWS = 64


def prepare(database_url: str) -> None:
    """Create the table and its rows afresh (once, before the workers start)."""
    db = Database(Settings(database_url=database_url).sqlalchemy_url)
    with db.transaction(write=True) as connection:
        connection.execute(text("DROP TABLE IF EXISTS bench_counter"))
        connection.execute(text("CREATE TABLE bench_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
        for row in range(ROWS):
            connection.execute(text("INSERT INTO bench_counter (id, n) VALUES (:id, 0)"), {"id": row})
    db.dispose()


def create_baseline_app() -> Flask:
    settings = Settings.from_env()
    db = Database(settings.sqlalchemy_url, pool_size=settings.db_pool_size, busy_timeout_ms=settings.db_busy_timeout_ms)
    app = Flask(__name__)

    @app.post("/bump/<int:row>")
    def bump(row: int) -> ResponseReturnValue:
        with db.transaction(write=True) as connection:
            n = connection.execute(
                text("UPDATE bench_counter SET n = n + 1 WHERE id = :id RETURNING n"), {"id": row % ROWS}
            ).scalar_one()
        return jsonify(row=row, n=n), 201

    @app.get("/readyz")
    def ready() -> ResponseReturnValue:
        db.ping()
        return jsonify(status="ok")

    return app
