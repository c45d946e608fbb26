"""The unit of work with an Idempotency-Key: it claims its key at its first write (not before: its
reads hold no lock); a request's change and its kept response commit or roll back together, what it
changed is signalled only after its commit, and a request that dies with its process leaves neither
behind nor its key held (both databases)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import text

from service.engine import CoinsError
from service.games import GameService, NewGame, NewPlayer
from service.games.ids import new_game_id
from service.games.server_moves import new_stored_game
from service.store import Database, DatabaseUnavailable, StoredSeat, WriteTransaction
from service.work import KeyedRequest, KeyInUse, KeyReused, Replayed, SavedResponse

RESPONSE = SavedResponse(201, (("Content-Type", "application/json"),), b'{"ok": true}')
REFUSED = SavedResponse(409, (("Content-Type", "application/problem+json"),), b'{"code": "not_your_turn"}')
OTHER = SavedResponse(409, (("Content-Type", "application/problem+json"),), b'{"code": "other"}')
SEATS = (NewPlayer("Ana", 41), NewPlayer("Bo", 35), NewPlayer("Cy", 29))


@pytest.fixture
def db(app: Flask) -> Database:
    return app.extensions["coins.db"]  # type: ignore[no-any-return]


@pytest.fixture
def service(app: Flask) -> GameService:
    return app.extensions["coins.games"]  # type: ignore[no-any-return]


@pytest.fixture
def keyed() -> KeyedRequest:
    """A keyed request, its key unique: on PostgreSQL a key's lock is the server's, shared by every
    test worker's schema."""
    return KeyedRequest("token:test", str(uuid.uuid4()), "f" * 64)


@pytest.fixture
def signalled(service: GameService, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the feeds the units of work signal, in order."""
    told: list[str] = []

    class Told:
        def signal(self, feed_ids: tuple[str, ...], connection: object) -> None:
            told.extend(feed_ids)

    monkeypatch.setattr(service, "signals", Told())
    return told


def rows(db: Database, table: str) -> int:
    with db.engine.connect() as connection:
        return int(connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def test_the_change_and_its_response_commit_together(
    keyed: KeyedRequest, service: GameService, db: Database, signalled: list[str]
):
    with service.unit_of_work(keyed) as uow:
        assert uow.keyed and not uow.claimed
        game_id = service.create(NewGame(seats=(*SEATS[:2], None)), uow=uow).game.id
        service.join(game_id, SEATS[2], seat=None, if_match=None, uow=uow)  # a change with events
        assert rows(db, "games") == 0  # not yet committed: another connection sees nothing
        assert uow.changed == (game_id,) and signalled == []
        assert uow.commit(RESPONSE) is None
        assert rows(db, "games") == 1 and rows(db, "idempotency_keys") == 1
        assert signalled == [game_id]  # after the commit
    with service.unit_of_work(keyed) as retry:
        assert retry.first_response() == RESPONSE
        with pytest.raises(Replayed) as replayed:
            service.create(NewGame(seats=SEATS), uow=retry)  # its claim, at its first write, finds it
        assert replayed.value.response == RESPONSE
    with service.unit_of_work(keyed) as refused:
        assert refused.commit(OTHER) == RESPONSE  # a retry that wrote nothing: claimed at its commit
    assert rows(db, "games") == 1 and signalled == [game_id]


def test_a_keyed_unit_reads_without_holding_its_key_and_claims_it_at_its_first_write(
    keyed: KeyedRequest, service: GameService, db: Database
):
    """Until it writes, a keyed unit holds nothing: on SQLite, other writers are not kept waiting for
    its reads and its rules; its key is claimed (SQLite's write lock taken) at its first write."""
    game_id = service.create(NewGame(seats=(*SEATS[:2], None))).game.id
    with service.unit_of_work(keyed) as uow:
        with uow.session() as session:
            assert session.load(game_id) is not None
        assert not uow.claimed
        service.create(NewGame(seats=SEATS))  # another writer, at once (SQLite: the write lock is free)
        service.join(game_id, SEATS[2], seat=None, if_match=None, uow=uow)
        assert uow.claimed
        uow.commit(RESPONSE)
    assert rows(db, "games") == 2 and rows(db, "idempotency_keys") == 1


def test_a_unit_left_without_commit_undoes_the_change(
    keyed: KeyedRequest, service: GameService, db: Database, signalled: list[str]
):
    with pytest.raises(RuntimeError), service.unit_of_work(keyed) as uow:
        service.create(NewGame(seats=SEATS), uow=uow)
        raise RuntimeError("the view failed")
    assert rows(db, "games") == 0 and rows(db, "idempotency_keys") == 0 and signalled == []
    with service.unit_of_work(keyed) as retry:
        assert retry.first_response() is None  # runs afresh


@pytest.mark.parametrize("fault", ["storing the response", "committing"])
def test_a_fault_between_the_change_and_its_response_leaves_neither(
    keyed: KeyedRequest,
    service: GameService,
    db: Database,
    signalled: list[str],
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
):
    """The database goes away after the use case wrote its change: while the response is written,
    or at the commit. Nothing of the two is kept, nothing is signalled, and the retry runs afresh."""
    if fault == "storing the response":
        keeping = service.keys._store._keeping  # the INSERT of the key's row with its response

        class Lost:
            def run(self, connection: Any, values: Any) -> None:
                raise DatabaseUnavailable("the connection was lost writing the response")

        monkeypatch.setattr(service.keys._store, "_keeping", Lost())
    else:

        def lost(self: WriteTransaction) -> None:
            self.rollback()
            raise DatabaseUnavailable("the connection was lost at COMMIT")

        monkeypatch.setattr(WriteTransaction, "commit", lost)
    with service.unit_of_work(keyed) as uow:
        service.create(NewGame(seats=SEATS), uow=uow)
        with pytest.raises(DatabaseUnavailable):
            uow.commit(RESPONSE)
    monkeypatch.undo()
    if fault == "storing the response":
        assert service.keys._store._keeping is keeping
    assert rows(db, "games") == 0 and rows(db, "idempotency_keys") == 0 and signalled == []
    with service.unit_of_work(keyed) as retry:
        assert retry.first_response() is None
        service.create(NewGame(seats=SEATS), uow=retry)
        retry.commit(RESPONSE)
    assert rows(db, "games") == 1 and rows(db, "idempotency_keys") == 1


def test_a_key_is_held_against_other_threads_until_its_unit_ends(
    keyed: KeyedRequest, service: GameService, db: Database
):
    """PostgreSQL tells a retry at once that the key is in use; on SQLite, whose writers take turns,
    the retry waits for the write lock the first unit holds, then gets the first one's answer."""
    seen: list[BaseException | object] = []

    def retry() -> None:
        try:
            with service.unit_of_work(keyed) as other:
                seen.append(other.commit(OTHER))  # claims the key: the first response, if it finds one
        except KeyInUse as error:
            seen.append(error)

    with service.unit_of_work(keyed) as uow:
        service.create(NewGame(), uow=uow)
        thread = threading.Thread(target=retry)
        thread.start()
        thread.join(0.5 if db.is_sqlite else 30)
        if db.is_sqlite:
            assert thread.is_alive() and seen == []  # waiting behind the first unit
        else:
            assert len(seen) == 1 and isinstance(seen[0], KeyInUse)
        uow.commit(RESPONSE)
    if db.is_sqlite:
        thread.join(30)
        assert seen == [RESPONSE]
    with service.unit_of_work(keyed) as again:
        assert again.first_response() == RESPONSE
    with service.unit_of_work(KeyedRequest(keyed.scope, keyed.key, "0" * 64)) as reused:
        with pytest.raises(KeyReused):
            reused.first_response()
        with pytest.raises(KeyReused):
            reused.commit(OTHER)


def test_a_block_that_fails_inside_the_unit_undoes_its_own_writes_only(
    keyed: KeyedRequest, service: GameService, db: Database
):
    with service.unit_of_work(keyed) as uow:
        kept = service.create(NewGame(), uow=uow).game.id
        undone = new_stored_game(
            new_game_id(), [StoredSeat(n) for n in range(3)], datetime.now(UTC),
            target_score=21, auto_deal=False, seed=None, first_dealer=None, turn_timeout_seconds=None,
        )  # fmt: skip
        with pytest.raises(RuntimeError), uow.session() as session, session.locked(kept):
            session.save(undone)
            raise RuntimeError("refused")  # as a use case refuses a change it has half written
        uow.commit(RESPONSE)
    with db.engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM games")).scalars().all() == [kept]


def test_a_plain_unit_publishes_each_change_once_committed(service: GameService, signalled: list[str]):
    """Without a key each write commits on its own; the unit publishes them when it ends, even when
    the use case then fails."""
    game_id = service.create(NewGame(seats=(*SEATS[:2], None))).game.id
    with pytest.raises(RuntimeError), service.unit_of_work() as uow:
        service.join(game_id, SEATS[2], seat=None, if_match=None, uow=uow)
        assert not uow.keyed and signalled == []
        raise RuntimeError("the view failed after the write")
    assert signalled == [game_id]
    assert service.get(game_id).status != "waiting_for_players"  # committed


def test_two_threads_with_one_key_apply_once(service: GameService, db: Database):
    """Two keyed plays of one card with one key, at once: one applies it and keeps its response; the
    other is told the key is in use, or, once the first committed, gets that response: at its claim,
    or, when it read the game after that commit and the rules refused the card, when it commits the
    refusal as the API does (the refusal's claim finds the first response)."""
    created = service.create(NewGame(seats=SEATS, first_dealer=0, seed="two-threads"))
    tokens = {credential.seat: credential.token for credential in created.credentials}
    game_id = created.game.id
    service.deal(game_id, tokens[0], if_match=None)
    game = service.get(game_id)
    assert game.turn is not None
    seat = game.turn
    card = service.hand(game_id, tokens[seat]).cards[0]
    request = KeyedRequest(f"token:{tokens[seat]}", str(uuid.uuid4()), "e" * 64)
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def run() -> None:
        barrier.wait(10)
        try:
            with service.unit_of_work(request) as uow:
                try:
                    service.play(game_id, tokens[seat], card, if_match=None, uow=uow)
                except CoinsError:  # read after the first committed: not its turn any more
                    outcomes.append(uow.commit(REFUSED))
                    return
                assert uow.commit(RESPONSE) is None
                outcomes.append("applied")
        except Replayed as replayed:  # its claim came second, once the first had committed
            outcomes.append(replayed.response)
        except KeyInUse as error:
            outcomes.append(error)
        except BaseException as error:  # anything else fails the test, not only this thread
            outcomes.append(error)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(outcomes) == 2 and outcomes.count("applied") == 1, outcomes
    assert all(o == "applied" or o == RESPONSE or isinstance(o, KeyInUse) for o in outcomes), outcomes
    with db.engine.connect() as connection:
        plays = connection.execute(text("SELECT count(*) FROM actions WHERE kind = 'play'")).scalar_one()
    assert plays == 1


HOLDER = textwrap.dedent(
    """
    import sys, time
    from service.games import GameService, NewGame
    from service.store import Database, GameStore
    from service.work import KeyedRequest

    service = GameService(GameStore(Database(sys.argv[1])))
    uow = service.unit_of_work(KeyedRequest("scope", sys.argv[2], "f")).__enter__()
    assert uow.keyed
    service.create(NewGame(), uow=uow)
    print("held", flush=True)
    time.sleep(60)  # killed before it commits anything
    """
)


def test_a_keyed_unit_killed_with_its_process_leaves_no_write_and_no_held_key(service: GameService, db: Database):
    request = KeyedRequest("scope", str(uuid.uuid4()), "f")
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, db.url, request.key], stdout=subprocess.PIPE, text=True, env={**os.environ}
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        if not db.is_sqlite:  # on SQLite a claim would wait for the holder's write lock instead
            with pytest.raises(KeyInUse), service.unit_of_work(request) as other:  # another process holds it
                other.commit(RESPONSE)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    deadline = time.monotonic() + 10  # at once, not minutes later (PostgreSQL: once the server saw the client go)
    while True:
        try:
            with service.unit_of_work(request) as uow:
                assert uow.keyed and uow.first_response() is None
                uow.commit(RESPONSE)  # claims the key: nobody holds it
            break
        except KeyInUse:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    assert rows(db, "games") == 0
