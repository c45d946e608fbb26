"""The plain serializers (service.api.serialize) give exactly what the documented schemas dump.

Complete games are driven through the API (people, bots, open seats, leaving, auto-deal,
timeouts, seeded and not); every record the use cases hand the views is kept and dumped both
ways. Hypothesis adds records with values no game produces (odd names, naive datetimes …).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.api.context import EXTENSION
from service.api.schemas import (
    ActionPageSchema,
    CreatedGameSchema,
    DealtHandSchema,
    GamePageSchema,
    GameSchema,
    HandSchema,
    HintSchema,
    JoinedGameSchema,
    PlayResultSchema,
    ScoresSchema,
    TrickPageSchema,
)
from service.api.serialize import SERIALIZERS
from service.engine import DECK, Play
from service.games.results import (
    STATUSES,
    ActionPage,
    ActionState,
    Created,
    Credential,
    DealResult,
    GamePage,
    HandState,
    Hint,
    Joined,
    PlayResult,
    PublicGame,
    SeatState,
    TrickPage,
    TrickState,
)

# The schemas a view dumps each kind of record with.
SCHEMAS_OF: dict[type, tuple[type[ma.Schema], ...]] = {
    Created: (CreatedGameSchema,),
    Joined: (JoinedGameSchema,),
    PublicGame: (GameSchema, ScoresSchema),
    DealResult: (DealtHandSchema,),
    PlayResult: (PlayResultSchema,),
    HandState: (HandSchema,),
    Hint: (HintSchema,),
    TrickPage: (TrickPageSchema,),
    ActionPage: (ActionPageSchema,),
    GamePage: (GamePageSchema,),
}
HOT = {PlayResultSchema, GameSchema, DealtHandSchema, HandSchema, CreatedGameSchema, JoinedGameSchema, ScoresSchema}


def assert_same(schema_class: type[ma.Schema], record: Any) -> None:
    """The serializer's dict is the schema's dump: equal, and equal as JSON (key order, types)."""
    expected = schema_class().dump(record)
    actual = SERIALIZERS[schema_class](record)
    assert actual == expected, f"{schema_class.__name__} of {record!r}"
    assert json.dumps(actual) == json.dumps(expected), f"{schema_class.__name__}: key order or types differ"


# -- driving games through the API, keeping what the use cases return ---------------------


class Recorder:
    """Stands in for the app's GameService: forwards every call and keeps what it returns."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.returned: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.service, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attribute(*args, **kwargs)
            self.returned.append(result)
            return result

        return call


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Seats:
    """A game and the tokens of its people's seats."""

    id: str
    tokens: dict[int, str] = field(default_factory=dict)

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}


@pytest.fixture
def recorder(app: Any) -> Recorder:
    recorder = Recorder(app.extensions[EXTENSION])
    app.extensions[EXTENSION] = recorder
    return recorder


@pytest.fixture
def clock(recorder: Recorder) -> Clock:
    clock = Clock()
    recorder.service.clock = clock
    return clock


def _ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.json
    return response.json


def _create(client: Any, **body: Any) -> Seats:
    created = _ok(client.post("/v1/games", json=body), 201)
    return Seats(created["id"], {c["seat"]: c["token"] for c in created["credentials"]})


def _read_everything(client: Any, game: Seats) -> None:
    """Every read a client may make: game, scores, pages of tricks, actions and games."""
    _ok(client.get(f"/v1/games/{game.id}"))
    _ok(client.get(f"/v1/games/{game.id}/scores"))
    for seat in game.tokens:
        _ok(client.get(f"/v1/games/{game.id}/hand", headers=game.auth(seat)))
    for path in (f"/v1/games/{game.id}/tricks?limit=2", f"/v1/games/{game.id}/actions?limit=3", "/v1/games?limit=2"):
        page = _ok(client.get(path))
        if page["next_cursor"]:
            _ok(client.get(f"{path}&cursor={page['next_cursor']}"))
    _ok(client.get("/v1/games?status=waiting_for_players&limit=3"))
    _ok(client.get(f"/v1/games/{game.id}/tricks?limit=200"))
    _ok(client.get(f"/v1/games/{game.id}/actions?limit=500"))


def _play(client: Any, game: Seats, rng: random.Random, *, plays: int = 10_000, read_every: int = 7) -> dict[str, Any]:
    """Deal and play random cards for the people's seats (bots act on the server), up to ``plays``
    plays or the end of the game; read everything now and then."""
    state = _ok(client.get(f"/v1/games/{game.id}"))
    played = 0
    while state["status"] != "finished" and played < plays:
        if state["status"] == "waiting_for_deal":
            state = _ok(client.post(f"/v1/games/{game.id}/hands", headers=game.auth(state["dealer"])), 201)["game"]
            continue
        seat = state["turn"]
        hand = _ok(client.get(f"/v1/games/{game.id}/hand", headers=game.auth(seat)))["cards"]
        if played % read_every == 0:
            strength = rng.choice(["random", "basic", "expert"])
            _ok(client.get(f"/v1/games/{game.id}/hint?strength={strength}", headers=game.auth(seat)))
            _read_everything(client, game)
        result = _ok(
            client.post(f"/v1/games/{game.id}/plays", json={"card": rng.choice(hand)}, headers=game.auth(seat)), 201
        )
        state = result["game"]
        played += 1
    _read_everything(client, game)
    return state


def _people(client: Any, new_table: Any, rng: random.Random) -> None:
    """Three people, seeded, to the end; then three people, unseeded, auto-deal and a turn timeout."""
    table = new_table(seed=f"serializers-{rng.random()}", target_score=12, first_dealer=rng.randrange(3))
    assert _play(client, Seats(table.id, table.tokens), rng)["status"] == "finished"
    table = new_table(target_score=5, auto_deal=True, turn_timeout_seconds=60)
    assert _play(client, Seats(table.id, table.tokens), rng)["status"] == "finished"


def _bots(client: Any, rng: random.Random) -> None:
    """A person with two bots, to the end; three bots that finish in the creating request."""
    people_and_bots = [{"name": "Ana", "age": 30}, {"bot": "basic"}, {"bot": "random", "name": "Rob"}]
    game = _create(client, seats=people_and_bots, seed=f"bots-{rng.random()}", first_dealer=0, target_score=10)
    assert _play(client, game, rng, read_every=11)["status"] == "finished"
    finished = _create(client, target_score=5, seats=[{"bot": "random"}, {"bot": "basic"}, {"bot": "random"}], seed="b")
    _read_everything(client, finished)


def _open_seats(client: Any, rng: random.Random) -> None:
    """Open seats filled by joining, a seat left before the start and one left to a bot after it."""
    empty = _create(client, auto_deal=True)
    _read_everything(client, empty)
    for name in ("Ed", "Flo", "Gus"):  # the first open seat each time; the third starts the game
        joined = _ok(client.post(f"/v1/games/{empty.id}/players", json={"name": name}), 201)
        empty.tokens[joined["seat"]] = joined["token"]
    _read_everything(client, empty)
    game = _create(client, seats=[{"name": "Ana", "age": 50}, None, None], seed="open", turn_timeout_seconds=300)
    joined = _ok(client.post(f"/v1/games/{game.id}/players", json={"name": "Bo", "seat": 2}), 201)
    game.tokens[joined["seat"]] = joined["token"]
    _read_everything(client, game)
    _ok(client.post(f"/v1/games/{game.id}/players/2/leave", headers=game.auth(2)))  # the seat opens again
    del game.tokens[2]
    for name in ("Cy", "Di"):
        joined = _ok(client.post(f"/v1/games/{game.id}/players", json={"name": name, "age": 20}), 201)
        game.tokens[joined["seat"]] = joined["token"]
    _play(client, game, rng, plays=20)
    _ok(client.post(f"/v1/games/{game.id}/players/1/leave", json={"bot": "expert"}, headers=game.auth(1)))
    del game.tokens[1]
    _play(client, game, rng, plays=10)


def _timeouts(client: Any, new_table: Any, clock: Clock, rng: random.Random) -> None:
    """Stand-ins that deal and play for the late, with deadlines in every game read."""
    table = new_table(turn_timeout_seconds=10, seed="late")
    game = Seats(table.id, table.tokens)
    clock.now += timedelta(seconds=11)  # the dealer is late: a stand-in deals
    _play(client, game, rng, plays=3)
    for _ in range(4):
        clock.now += timedelta(seconds=11, microseconds=rng.randrange(1_000_000))
        _read_everything(client, game)  # the first read plays for the late player
    _play(client, game, rng, plays=5)


def _drive_every_kind_of_game(client: Any, new_table: Any, clock: Clock, seed: int) -> None:
    # One generator each: the unseeded game's length does not change what the others play.
    _people(client, new_table, random.Random(f"{seed}-people"))
    _bots(client, random.Random(f"{seed}-bots"))
    _open_seats(client, random.Random(f"{seed}-open"))
    _timeouts(client, new_table, clock, random.Random(f"{seed}-timeouts"))


# -- the tests ------------------------------------------------------------------------------


def test_the_hot_responses_have_serializers():
    assert set(SERIALIZERS) >= HOT
    assert set(SERIALIZERS) <= {schema for schemas in SCHEMAS_OF.values() for schema in schemas}


@pytest.mark.parametrize("seed", [1, 2])
def test_serializers_dump_what_the_schemas_dump(client, new_table, recorder, clock, seed):
    _drive_every_kind_of_game(client, new_table, clock, seed)
    counts = dict.fromkeys(SERIALIZERS, 0)
    for record in recorder.returned:
        for schema_class in SCHEMAS_OF.get(type(record), ()):
            assert_same(schema_class, record)
            counts[schema_class] += 1
    assert all(count >= 3 for count in counts.values()), {schema.__name__: n for schema, n in counts.items()}
    games = [r for r in recorder.returned if isinstance(r, PublicGame)]
    statuses = {game.status for game in games}
    assert statuses == set(STATUSES)  # every status, open seats to finished
    assert any(game.turn_deadline for game in games) and any(not game.seeded for game in games)
    assert any(seat.bot for game in games for seat in game.seats)
    assert any(seat.open for game in games for seat in game.seats)
    actions = [a for r in recorder.returned if isinstance(r, ActionPage) for a in r.actions]
    assert {action.cause for action in actions} == {"player", "bot", "auto", "timeout"}


def _view_response_schemas(app: Any) -> set[type[ma.Schema]]:
    """The schema classes of the success responses of every view."""
    schemas = set()
    for view in app.view_functions.values():
        view_class = getattr(view, "view_class", None)
        for method in getattr(view_class, "methods", None) or ():
            doc = getattr(getattr(view_class, method.lower()), "_apidoc", {})
            for status in doc.get("success_status_codes", ()):
                for response in doc["response"]["responses"][status]:
                    if isinstance(response, dict) and isinstance(response.get("schema"), ma.Schema):
                        schemas.add(type(response["schema"]))
    return schemas


def _check_keys(schema: ma.Schema, data: Any, path: str, seen: set[type[ma.Schema]]) -> None:
    """``data`` has exactly the schema's fields, and so has every nested object in it."""
    seen.add(type(schema))
    declared = {f.data_key or name: f for name, f in schema.dump_fields.items()}
    assert set(data) == set(declared), f"{path}: serializer gives {sorted(data)}, schema declares {sorted(declared)}"
    for key, declared_field in declared.items():
        value, inner = data[key], declared_field
        many = isinstance(inner, ma.fields.List)
        if many:
            inner = inner.inner  # type: ignore[attr-defined]
        if not isinstance(inner, ma.fields.Nested) or value is None:
            continue
        for item in value if (many or inner.many) else [value]:
            _check_keys(inner.schema, item, f"{path}.{key}", seen)


def test_serializers_give_the_declared_fields_of_the_views_schemas(app, client, new_table, recorder, clock):
    """Adding a field to a response schema (or a nested one) without it in the serializer fails here."""
    view_schemas = _view_response_schemas(app)
    assert view_schemas >= HOT
    _drive_every_kind_of_game(client, new_table, clock, seed=3)
    seen: set[type[ma.Schema]] = set()
    checked = set()
    for record in recorder.returned:
        for schema_class in SCHEMAS_OF.get(type(record), ()):
            if schema_class in view_schemas and schema_class in SERIALIZERS:
                _check_keys(schema_class(), SERIALIZERS[schema_class](record), schema_class.__name__, seen)
                checked.add(schema_class)
    assert checked == view_schemas & set(SERIALIZERS)
    nested = {type(f.schema) for s in seen for f in _nested_fields(s())}
    assert nested <= seen, f"never saw a value of {nested - seen}"


def _nested_fields(schema: ma.Schema) -> list[ma.fields.Nested]:
    found = []
    for declared_field in schema.dump_fields.values():
        inner = declared_field.inner if isinstance(declared_field, ma.fields.List) else declared_field  # type: ignore[attr-defined]
        if isinstance(inner, ma.fields.Nested):
            found.append(inner)
    return found


def test_views_dump_with_the_serializers_not_marshmallow(client, recorder, monkeypatch):
    """The fast path is the one taken: no response goes through ``Schema.dump``."""

    def refuse(self: ma.Schema, obj: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{type(self).__name__}.dump called")

    monkeypatch.setattr(ma.Schema, "dump", refuse)
    rng = random.Random(4)
    _bots(client, rng)
    _open_seats(client, rng)
    assert {type(record) for record in recorder.returned} == set(SCHEMAS_OF)


# -- records no game produces ---------------------------------------------------------------

texts = st.text(max_size=12)
ints = st.integers(-(2**40), 2**40)
datetimes = st.datetimes(timezones=st.none() | st.timezones() | st.just(UTC))
cards = st.sampled_from(DECK)
tricks = st.builds(
    TrickState,
    leader=ints,
    plays=st.lists(st.builds(Play, ints, cards), max_size=3).map(tuple),
    hand_number=ints,
    trick_number=ints,
    winner=st.none() | ints,
    points=st.none() | ints,
)
seats = st.builds(
    SeatState,
    seat=ints,
    name=st.none() | texts,
    open=st.booleans(),
    bot=st.none() | texts,
    score=ints,
    cards_in_hand=ints,
    tricks_won=ints,
)
public_games = st.builds(
    PublicGame,
    id=texts,
    status=texts,
    target_score=ints,
    seeded=st.booleans(),
    auto_deal=st.booleans(),
    turn_timeout_seconds=st.none() | ints,
    turn_deadline=st.none() | datetimes,
    version=ints,
    created_at=datetimes,
    updated_at=datetimes,
    seats=st.lists(seats, max_size=3).map(tuple),
    hand_number=ints,
    dealer=st.none() | ints,
    turn=st.none() | ints,
    trick=st.none() | tricks,
    last_trick=st.none() | tricks,
    winner=st.none() | ints,
    first_dealer=st.none() | ints,
    first_dealer_chosen_by=st.none() | texts,
    commitment=st.none() | texts,
)
actions = st.builds(
    ActionState,
    seq=ints,
    kind=texts,
    seat=ints,
    hand_number=ints,
    cause=texts,
    created_at=datetimes,
    card=st.none() | cards,
    commitment=st.none() | texts,
    seed=st.none() | texts,
)
records = st.one_of(
    public_games,
    st.builds(Created, public_games, st.lists(st.builds(Credential, ints, texts), max_size=3).map(tuple)),
    st.builds(Joined, ints, texts, public_games),
    st.builds(DealResult, ints, ints, ints, ints, ints, texts, public_games),
    st.builds(PlayResult, ints, cards, tricks, public_games),
    st.builds(HandState, ints, ints, st.lists(cards, max_size=16).map(tuple), ints, texts),
    st.builds(Hint, ints, cards, texts, texts, ints, texts),
    st.builds(TrickPage, texts, ints, st.lists(tricks, max_size=3).map(tuple), st.none() | texts),
    st.builds(ActionPage, texts, ints, st.lists(actions, max_size=3).map(tuple), st.none() | texts),
    st.builds(GamePage, st.lists(public_games, max_size=2).map(tuple), st.none() | texts),
)


@settings(max_examples=300, deadline=None)
@given(records)
def test_serializers_dump_what_the_schemas_dump_for_any_record(record):
    for schema_class in SCHEMAS_OF[type(record)]:
        assert_same(schema_class, record)
