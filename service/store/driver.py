"""Core statements run on the database driver's own cursor: the handful that every play runs.

A play reads its game and writes it back: two to four statements, each a few microseconds of
work for SQLite or a round trip to PostgreSQL. Run through :meth:`sqlalchemy.engine.Connection.execute`,
each also costs SQLAlchemy's per-execution machinery (cache lookups, events, an execution
context, a result object): about 0.1 ms, several times the statement itself, and most of a
play's database time. So these statements are compiled once per dialect by SQLAlchemy and
then handed straight to the driver's cursor on the same pooled connection, inside whatever
transaction that connection is in.

Values cross with the columns' own SQLAlchemy type processors (the same ones
``Connection.execute`` applies: SQLite's text timestamps, JSON, booleans), so a row written
here reads back the same through SQLAlchemy, and the other way round. Driver exceptions come
through unwrapped (``sqlite3.Error``, ``psycopg.Error``): :mod:`.db` maps them like
SQLAlchemy's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect
from sqlalchemy.sql import ClauseElement, Select
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import SelectBase

__all__ = ["Prepared", "driver_connection"]

Processor = Callable[[Any], Any]


def driver_connection(connection: Connection) -> Any:
    """The driver's own connection (``sqlite3.Connection``, ``psycopg.Connection``) under ``connection``."""
    driver = connection.connection.driver_connection
    assert driver is not None, "a connection checked out of the pool has a driver connection"
    return driver


class Prepared:
    """One statement, compiled for each dialect the first time it runs there."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def run(self, connection: Connection, values: Mapping[str, Any]) -> _Outcome:
        """Execute once with ``values`` (every bind parameter the statement has, by name)."""
        compiled = self._for(connection.dialect)
        cursor = driver_connection(connection).cursor()
        try:
            cursor.execute(compiled.sql, compiled.parameters(values))
            rows = cursor.fetchall() if compiled.returns_rows else []
            return _Outcome(rows, cursor.rowcount, compiled.results)
        finally:
            cursor.close()

    def run_many(self, connection: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Execute once per mapping of ``rows`` (an ``INSERT`` of several rows, say)."""
        compiled = self._for(connection.dialect)
        cursor = driver_connection(connection).cursor()
        try:
            cursor.executemany(compiled.sql, [compiled.parameters(values) for values in rows])
        finally:
            cursor.close()

    def _for(self, dialect: Dialect) -> _Compiled:
        compiled = self._compiled.get(dialect.name)
        if compiled is None:
            compiled = self._compiled[dialect.name] = _Compiled(self.statement, dialect)
        return compiled


class _Outcome:
    """What a statement answered: its rows, as the driver gave them, and how many rows it changed."""

    __slots__ = ("_results", "rowcount", "rows")

    def __init__(self, rows: list[Sequence[Any]], rowcount: int, results: list[tuple[int, Processor]]) -> None:
        self.rows = rows
        self.rowcount = rowcount
        self._results = results

    def row(self, index: int, start: int = 0) -> tuple[Any, ...]:
        """Row ``index`` from column ``start`` on, its values converted by the columns' types."""
        values = list(self.rows[index])
        for column, processor in self._results:
            if column >= start:
                values[column] = processor(values[column])
        return tuple(values[start:])

    def all(self) -> list[tuple[Any, ...]]:
        """Every row, converted."""
        return [self.row(index) for index in range(len(self.rows))]


class _Compiled:
    """A statement's SQL for one dialect, with what turns values into parameters and back."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.sql = compiled.string
        self.defaults = {name: value for name, value in compiled.params.items() if value is not None}
        binds = compiled.binds
        self.processors: dict[str, Processor] = {}
        for name, bind in binds.items():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self.processors[name] = processor
        # qmark (SQLite) takes a tuple in the order of the placeholders; pyformat (psycopg) a dict
        self.order: tuple[str, ...] | None = tuple(compiled.positiontup or ()) if compiled.positional else None
        # Whether rows come back, known from the statement: asking the cursor (its description) costs
        # psycopg a Column object per column, about 3 µs each, on every statement.
        self.returns_rows = isinstance(statement, SelectBase) or bool(compiled.effective_returning)
        self.results: list[tuple[int, Processor]] = []
        if isinstance(statement, Select):
            for index, column in enumerate(statement.selected_columns):
                processor = column.type.dialect_impl(dialect).result_processor(dialect, None)
                if processor is not None:
                    self.results.append((index, processor))

    def parameters(self, values: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        if self.defaults:
            values = {**self.defaults, **values}
        processors = self.processors
        if self.order is not None:
            return tuple(processors[name](values[name]) if name in processors else values[name] for name in self.order)
        return {name: processors[name](value) if name in processors else value for name, value in values.items()}
