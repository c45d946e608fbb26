"""Swap a fast path of the service for its slow twin, for one request, in the benchmark's process only.

Each entry of :data:`TWINS` is a context manager that, for as long as it is open, makes one fast
path of a running app go the way the libraries go by themselves (marshmallow's ``dump``, webargs'
loading, SQLAlchemy's ``Connection.execute``, ...), with :func:`unittest.mock.patch.object`, and
puts it back on exit. The service's code has no switch for it. :mod:`bench.request_cpu` opens one
around a request (``--compare NAME,...``), alternating request by request with the service as it
is, so that both see the same machine. A twin whose fast path has been deleted is gone from here
(the hot-body loaders, the orjson JSON provider, the ``ensure_sync`` cache and the engine's records
built without ``__init__``: git has them, with the commit that measured and deleted them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from functools import partial
from typing import Any
from unittest.mock import patch

from flask import Flask

__all__ = ["TWINS"]


@contextmanager
def _marshmallow_dump(app: Flask) -> Iterator[None]:
    """Responses, games' events and players' events dumped by ``schema.dump`` (no compiled dumpers)."""
    from service.api.resources.events import schemas as event_schemas
    from service.api.resources.player_events import schemas as player_event_schemas

    with ExitStack() as stack:
        for blueprint in app.blueprints.values():
            for schema in getattr(blueprint, "response_schemas", ()):
                stack.enter_context(patch.object(schema, "dump", partial(type(schema).dump, schema)))
        for module, schemas in (
            (event_schemas, event_schemas.EVENT_SCHEMAS),
            (player_event_schemas, player_event_schemas.PLAYER_EVENT_SCHEMAS),
        ):
            dumps = {name: schema().dump for name, schema in schemas.items()}
            stack.enter_context(patch.object(module, "_DUMPERS", dumps))
        yield


class _Outcome:
    """:class:`service.store.driver._Outcome`'s interface over a SQLAlchemy result."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def row(self, index: int, start: int = 0) -> tuple[Any, ...]:
        return self.rows[index][start:]

    def all(self) -> list[tuple[Any, ...]]:
        return list(self.rows)


def _run(prepared: Any, connection: Any, values: Mapping[str, Any]) -> _Outcome:
    result = connection.execute(prepared.statement, dict(values))
    rows = [tuple(row) for row in result] if result.returns_rows else []
    return _Outcome(rows, result.rowcount)


def _run_many(prepared: Any, connection: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    connection.execute(prepared.statement, [dict(values) for values in rows])


@contextmanager
def _sqlalchemy_execute(app: Flask) -> Iterator[None]:
    """The prepared statements run through ``Connection.execute`` (no driver cursor)."""
    from service.store.driver import Prepared

    with patch.object(Prepared, "run", _run), patch.object(Prepared, "run_many", _run_many):
        yield


@contextmanager
def _statement_save(app: Flask) -> Iterator[None]:
    """On PostgreSQL, a save as on SQLite: an UPDATE, then INSERTs, in a transaction (no CTE)."""
    from service.store.repository import GameRepository

    cte_save = GameRepository.save

    def save(self: GameRepository, game: Any) -> bool:
        is_postgres, self.is_postgres = self.is_postgres, False
        try:
            return cte_save(self, game)
        finally:
            self.is_postgres = is_postgres

    with (
        patch.object(GameRepository, "save", save),
        patch.object(GameRepository, "saves_in_one_statement", property(lambda self: False)),
    ):
        yield


#: fast path -> a context manager putting its slow twin in its place in ``app``
TWINS: dict[str, Callable[[Flask], AbstractContextManager[None]]] = {
    "fast_dump": _marshmallow_dump,
    "driver": _sqlalchemy_execute,
    "cte_save": _statement_save,
}
