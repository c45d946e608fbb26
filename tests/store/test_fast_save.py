"""The save in one statement (service.store.fast_save, PostgreSQL's) against its slow twin, the plain
save (``GameRepository.update``: an UPDATE, then the seats' UPDATEs and the INSERTs, in a
transaction): one generic test over every shape of stored game and change, on PostgreSQL. Both
write the same rows; at a version that moved on, neither writes anything."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.store import Database, StoredGame
from service.store.repository import GameRepository
from service.store.stored import GAME_COLUMNS
from tests.support.stored_games import changes, games, through_sqlalchemy

ID = GAME_COLUMNS.index("id")


@pytest.fixture
def db(app) -> Database:
    db: Database = app.extensions["coins.db"]
    if db.is_sqlite:
        pytest.skip("the one-statement save is PostgreSQL's: SQLite always saves the plain way")
    return db


def _twin(game: StoredGame, twin_id: str) -> StoredGame:
    twin = copy.deepcopy(game)
    twin.id = twin_id
    return twin


def _rows(db: Database, game_id: str) -> dict[str, Any]:
    """The game's rows, its own id left out (the twins differ by id only)."""
    with db.transaction(write=False) as connection:
        rows = through_sqlalchemy(connection, game_id)
    rows["game"] = rows["game"][:ID] + rows["game"][ID + 1 :]
    return rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), stale=st.booleans())
def test_the_save_in_one_statement_writes_what_the_plain_save_writes(db, data, stale):
    """Two games alike but for their id are stored, changed alike, then saved: one in one statement,
    the other the plain way; stale: both at a version that is no longer the stored one."""
    fast = data.draw(games(f"f-{uuid.uuid4().hex[:12]}"))
    plain = _twin(fast, f"p-{uuid.uuid4().hex[:12]}")
    for game in (fast, plain):
        with db.transaction(write=True) as connection:
            assert GameRepository(connection).save(game)
    data.draw(changes(fast))
    plain = _twin(fast, plain.id)
    if stale:
        fast.loaded_version = plain.loaded_version = fast.version + 1

    with db.connect() as connection:
        repository = GameRepository(connection)
        assert repository.saves_in_one_statement
        with db.begin(connection, write=True, one_statement=True):
            saved_in_one_statement = repository.save(fast)
        with db.begin(connection, write=True, one_statement=False):
            saved_plainly = repository.update(plain)

    assert saved_in_one_statement is saved_plainly is (not stale)
    assert _rows(db, fast.id) == _rows(db, plain.id)
