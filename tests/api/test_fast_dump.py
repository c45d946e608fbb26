"""The dumpers compiled from the schemas (service.api.fast_dump) give exactly what the schemas dump.

Every response schema of the app is found from its blueprints, not listed here. Complete
games are driven through the API (people, bots, open seats, leaving, auto-deal, timeouts,
seeded and not), and every body a view dumps is also dumped by marshmallow and compared, with
a dumper that may not fall back to marshmallow. Hypothesis adds objects built from each
schema's own fields, with values no game produces (odd names, naive datetimes, wrong types,
dicts) and the use cases' results with any values. A field type the compiler does not know
fails at start-up, naming the schema and the field.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import service.api
from service.api import fast_dump
from service.api.context import EXTENSION
from service.api.event_schemas import EventPageSchema
from service.api.fields import CardField, Itself
from service.api.smorest_overrides import Blueprint
from service.engine import DECK, Card
from service.games import results
from service.games.results import STATUSES, ActionPage, PublicGame


def _blueprints() -> list[Blueprint]:
    """Every Blueprint of service.api's modules."""
    found = []
    for module_info in pkgutil.iter_modules(service.api.__path__):
        module = importlib.import_module(f"service.api.{module_info.name}")
        found += [value for value in vars(module).values() if isinstance(value, Blueprint)]
    return found


def _response_schemas(blueprints: list[Blueprint]) -> dict[type[ma.Schema], ma.Schema]:
    return {type(schema): schema for blueprint in blueprints for schema in blueprint.response_schemas}


RESPONSE_SCHEMAS = _response_schemas(_blueprints())
# Response schemas that document a body their view writes itself, never dumped at run time:
# the long poll's page is put together around the events' stored JSON text, which the event
# schemas rendered when each event was saved (tests/api/test_event_schemas.py checks them).
WRITTEN_BY_THEIR_VIEW = {EventPageSchema}


def _outcome(dump: Any, obj: Any) -> Any:
    """What ``dump(obj)`` gives, or (the type and text of) what it raises."""
    try:
        return dump(obj)
    except Exception as error:
        return (type(error), str(error))


def assert_same_outcome(schema: ma.Schema, obj: Any) -> None:
    """The compiled dumper and marshmallow give the same dict, or raise the same error."""
    expected = _outcome(lambda o: type(schema).dump(schema, o), obj)
    actual = _outcome(fast_dump.build_dumper(schema), obj)
    assert actual == expected, f"{type(schema).__name__} of {obj!r}"
    assert json.dumps(actual, default=repr) == json.dumps(expected, default=repr), "key order or types differ"


def _refuse(obj: Any, many: bool | None = None) -> Any:
    raise AssertionError(f"the compiled dumper left {type(obj).__name__} to marshmallow")


def assert_same(schema: ma.Schema, obj: Any, actual: Any) -> None:
    """``actual`` is marshmallow's dump of ``obj``: equal, and equal as JSON (key order, types)."""
    expected = type(schema).dump(schema, obj)
    name = type(schema).__name__
    assert actual == expected, f"{name} of {obj!r}"
    assert json.dumps(actual) == json.dumps(expected), f"{name}: key order or types differ"


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
    """Every read a client may make: game, scores, record, pages of tricks, actions and games."""
    _ok(client.get(f"/v1/games/{game.id}"))
    _ok(client.get(f"/v1/games/{game.id}/scores"))
    _ok(client.get(f"/v1/games/{game.id}/record"))
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
    for _ in range(20 * plays if plays < 1_000 else 20_000):  # bounded: plays, deals and reads
        if state["status"] == "finished" or played >= plays:
            break
        to_act = state["dealer"] if state["status"] == "waiting_for_deal" else state["turn"]
        if to_act not in game.tokens:  # a bot's moves are owed (bounded work per request): a read makes them
            state = _ok(client.get(f"/v1/games/{game.id}"))
            continue
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
    """A person with two bots, to the end, and its rematch; three bots that finish in the creating request."""
    people_and_bots = [{"name": "Ana", "age": 30}, {"bot": "basic"}, {"bot": "random", "name": "Rob"}]
    game = _create(client, seats=people_and_bots, seed=f"bots-{rng.random()}", first_dealer=0, target_score=10)
    assert _play(client, game, rng, read_every=11)["status"] == "finished"
    rematch = _ok(client.post(f"/v1/games/{game.id}/rematch", headers=game.auth(0)), 201)  # its rematch,
    assert _ok(client.post(f"/v1/games/{game.id}/rematch", headers=game.auth(0))) == rematch  # asked for again
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


def test_every_view_response_schema_is_compiled(app):
    """The views' documented response schemas are the ones found in the blueprints, each dumped
    by a compiled dumper."""
    documented = set()
    for view in app.view_functions.values():
        view_class = getattr(view, "view_class", None)
        for method in getattr(view_class, "methods", None) or ():
            doc = getattr(getattr(view_class, method.lower()), "_apidoc", {})
            for status in doc.get("success_status_codes", ()):
                for response in doc["response"]["responses"][status]:
                    if isinstance(response, dict) and isinstance(response.get("schema"), ma.Schema):
                        documented.add(type(response["schema"]))
    in_app = _response_schemas([bp for bp in app.blueprints.values() if isinstance(bp, Blueprint)])
    assert documented == set(in_app) == set(RESPONSE_SCHEMAS)
    for schema in in_app.values():
        assert "compiled by service.api.fast_dump" in (schema.dump.__doc__ or ""), type(schema).__name__


@pytest.fixture
def dumps(app: Any, monkeypatch: pytest.MonkeyPatch) -> Counter[type[ma.Schema]]:
    """Every body a view dumps is checked against marshmallow, with a dumper that may not fall back
    to it (a dict, the health probes' body, may); the count of dumps per schema."""
    counts: Counter[type[ma.Schema]] = Counter()
    for blueprint in app.blueprints.values():
        for schema in getattr(blueprint, "response_schemas", ()):
            compiled, strict = schema.dump, fast_dump.build_dumper(schema, fallback=_refuse)

            def checking(
                obj: Any,
                *,
                many: bool | None = None,
                schema: Any = schema,
                compiled: Any = compiled,
                strict: Any = strict,
            ) -> Any:
                actual = compiled(obj, many=many)
                assert_same(schema, obj, actual)
                if type(obj) is not dict:
                    assert strict(obj, many=many) == actual
                counts[type(schema)] += 1
                return actual

            monkeypatch.setattr(schema, "dump", checking)
    return counts


@pytest.mark.parametrize("seed", [1, 2])
def test_views_dump_what_the_schemas_dump(client, new_table, recorder, clock, dumps, seed):
    _drive_every_kind_of_game(client, new_table, clock, seed)
    for path in ("/healthz", "/readyz"):
        _ok(client.get(path))
    dumped_by_views = set(RESPONSE_SCHEMAS) - WRITTEN_BY_THEIR_VIEW
    undriven = sorted(schema.__name__ for schema in dumped_by_views if dumps[schema] < 2)
    assert not undriven, f"no driven game dumps {undriven} twice: add their requests to _read_everything"
    games = [r for r in recorder.returned if isinstance(r, PublicGame)]
    statuses = {game.status for game in games}
    assert statuses == set(STATUSES)  # every status, open seats to finished
    assert any(game.turn_deadline for game in games) and any(not game.seeded for game in games)
    assert any(seat.bot for game in games for seat in game.seats)
    assert any(seat.open for game in games for seat in game.seats)
    actions = [a for r in recorder.returned if isinstance(r, ActionPage) for a in r.actions]
    assert {action.cause for action in actions} == {"player", "bot", "auto", "timeout"}


def test_views_dump_with_the_compiled_dumpers_not_marshmallow(client, recorder, monkeypatch):
    """The fast path is the one taken: no game's response goes through ``Schema.dump``."""

    dump = ma.Schema.dump

    def refuse(self: ma.Schema, obj: Any, **kwargs: Any) -> Any:
        if type(obj) is dict:  # a document already built as a dict (a game's record) is left to marshmallow
            return dump(self, obj, **kwargs)
        raise AssertionError(f"{type(self).__name__}.dump called")

    monkeypatch.setattr(ma.Schema, "dump", refuse)
    rng = random.Random(4)
    _bots(client, rng)
    _open_seats(client, rng)


# -- objects no game produces -----------------------------------------------------------------

texts = st.text(max_size=8)
ints = st.integers(-(2**40), 2**40)
datetimes = st.datetimes(timezones=st.none() | st.timezones() | st.just(UTC))
cards = st.sampled_from(DECK)
odd = st.none() | st.booleans() | st.floats(allow_nan=False) | st.binary(max_size=4) | st.dates()


def _value(declared: ma.fields.Field[Any], depth: int) -> st.SearchStrategy[Any]:
    """Values for a field: mostly of its type, sometimes odd ones (None, a bool for an int …)."""
    if isinstance(declared, ma.fields.Nested):
        one = _object(declared.schema, depth + 1) if depth < 3 else st.none()
        many = declared.many or declared.schema.many
        return st.none() | (st.lists(one, max_size=3) if many else one)
    if isinstance(declared, ma.fields.List):
        return st.none() | st.lists(_value(declared.inner, depth), max_size=3)
    usual = {
        ma.fields.String: texts,
        ma.fields.Integer: ints,
        ma.fields.Boolean: st.booleans(),
        ma.fields.DateTime: datetimes,
        CardField: cards,
        ma.fields.Raw: texts | ints,
    }
    for field_type, values in usual.items():
        if isinstance(declared, field_type):
            return st.one_of(values, values, values, odd)
    raise AssertionError(f"{type(declared).__name__}: add a strategy for it here")


def _object(schema: ma.Schema, depth: int = 0) -> st.SearchStrategy[Any]:
    """Objects with the attributes a schema reads (``attribute`` paths included), as attributes
    (the use cases' results) or, sometimes, as a dict (which marshmallow reads by key)."""

    def build(values: dict[str, Any], as_dict: bool) -> Any:
        tree: dict[str, Any] = {}
        for name, value in sorted(values.items(), key=lambda item: item[0].count(".")):  # plain names first
            *path, last = name.split(".")
            node: Any = tree
            for part in path:  # into a dict or an object drawn for a plain name; else drop the value
                node = node.setdefault(part, {}) if isinstance(node, dict) else getattr(node, part, None)
            if isinstance(node, dict):
                node[last] = value
            elif isinstance(node, SimpleNamespace):
                setattr(node, last, value)
        return tree if as_dict else _namespace(tree)

    itself = [name for name, f in schema.dump_fields.items() if isinstance(f, Itself)]
    attributes = {
        (f.attribute or name): _value(f, depth) for name, f in schema.dump_fields.items() if name not in itself
    }
    for name in itself:  # the object is also read through the nested schema's fields
        for inner_name, inner in schema.dump_fields[name].schema.dump_fields.items():
            attributes.setdefault(inner.attribute or inner_name, _value(inner, depth))
    return st.builds(build, st.fixed_dictionaries(attributes), st.booleans().map(lambda b: b and depth > 0))


def _namespace(tree: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(**{k: _namespace(v) if type(v) is dict else v for k, v in tree.items()})


@pytest.mark.parametrize("schema_class", sorted(RESPONSE_SCHEMAS, key=lambda s: s.__name__))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_compiled_dumpers_dump_what_the_schemas_dump_for_any_object(schema_class, data):
    schema = RESPONSE_SCHEMAS[schema_class]
    assert_same_outcome(schema, data.draw(_object(schema)))


st.register_type_strategy(Card, cards)  # interned: built from the deck, not from its attributes
result_types = [getattr(results, name) for name in results.__all__ if isinstance(getattr(results, name), type)]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_compiled_dumpers_dump_what_the_schemas_dump_for_any_result(data):
    """Any result of the use cases, dumped with every response schema: the ones that fit take the
    compiled path, the others fall back; both give marshmallow's answer."""
    obj = data.draw(st.sampled_from(result_types).flatmap(st.from_type))
    for schema in RESPONSE_SCHEMAS.values():
        assert_same_outcome(schema, obj)


class _Unknown(ma.fields.String):
    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return "?"


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (ma.fields.Float(), "Float"),
        (ma.fields.Function(lambda obj: 1), "Function"),
        (ma.fields.Dict(), "Dict"),
        (ma.fields.Pluck("GameSchema", "id"), "Pluck"),
        (_Unknown(), "_Unknown"),
        (ma.fields.List(ma.fields.Decimal()), "Decimal"),
        (ma.fields.Integer(as_string=True), "Integer"),
    ],
)
def test_a_field_the_compiler_does_not_know_is_refused_at_start_up(declared, message):
    schema = ma.Schema.from_dict({"ok": ma.fields.String(), "new": declared}, name="NewSchema")()
    with pytest.raises(fast_dump.Uncompilable, match=rf"NewSchema\.new.*{message}"):
        fast_dump.build_dumper(schema)


def test_a_dump_hook_is_refused_at_start_up():
    class HookedSchema(ma.Schema):
        name = ma.fields.String()

        @ma.post_dump
        def _shout(self, data: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
            return {k: v.upper() for k, v in data.items()}

    with pytest.raises(fast_dump.Uncompilable, match="HookedSchema has a pre_dump or post_dump hook"):
        fast_dump.build_dumper(HookedSchema())


def test_only_exclude_data_key_and_many_are_honoured():
    class InnerSchema(ma.Schema):
        a = ma.fields.Integer()
        b = ma.fields.String(data_key="B")
        when = ma.fields.Date()

    class OuterSchema(ma.Schema):
        inner = ma.fields.Nested(InnerSchema, only=("b", "when"))
        inners = ma.fields.Nested(InnerSchema, many=True, exclude=("a",))
        deep = ma.fields.String(attribute="x.y.z")

    inner = SimpleNamespace(a=1, b="two", when=date(2026, 12, 1))
    outer = SimpleNamespace(inner=inner, inners=[inner, inner], x=SimpleNamespace(y={"z": 3}))
    for schema in (OuterSchema(), OuterSchema(many=True), OuterSchema(only=("deep",))):
        obj = [outer, outer] if schema.many else outer
        assert_same(schema, obj, fast_dump.build_dumper(schema)(obj))
    assert fast_dump.build_dumper(OuterSchema())(outer, many=False) == OuterSchema().dump(outer)
