"""Names people can read (service.names) wherever a client gives one: a player's, an anonymous seat's at
createGame and joinGame, a bot seat's. Refused with 422 validation_error and the rule in errors; kept as the
PRECIS nickname profile's output. On both databases (a name of 80 code points fits either)."""

from __future__ import annotations

import pytest

from service.names import checked_name, name_problem, skeleton

ZALGO = "Z" + "\u0351" * 79  # one grapheme cluster, 80 code points
REFUSED = [
    ("\u3164", "U+1160"),  # HANGUL FILLER, which NFKC makes a jamo filler
    ("\u2800", "show something"),  # BRAILLE PATTERN BLANK
    ("\u2800 \u2800", "show something"),
    ("\u1160", "U+1160"),
    ("\u17b4", "U+17B4"),  # KHMER VOWEL INHERENT AQ: default-ignorable
    ("\u0301", "show something"),  # a mark on nothing
    ("Ana\u2028Bo", "U+2028 (LINE SEPARATOR)"),
    ("Ana\u2029Bo", "U+2029 (PARAGRAPH SEPARATOR)"),
    ("Ana\u200dBo", "U+200D (ZERO WIDTH JOINER)"),
    ("x" * 41, "at most 40 characters"),
    ("e\u0301" * 41, "at most 40 characters"),  # 41 clusters
    (ZALGO + "\u0351", "at most 80 code points"),
    ("\ufdfd" * 41, "at most 40 characters"),
    ("Expert bot", "reserved"),
    ("expert BOT", "reserved"),
    ("Ехреrt bot", "reserved"),  # Cyrillic Е, х, р, е
    ("Ｅｘｐｅｒｔ ｂｏｔ", "reserved"),  # fullwidth: NFKC makes it Latin
    ("Random bot", "reserved"),
    ("Basic b0t", "reserved"),  # the digit's skeleton is O, folded o
    ("Master bot", "reserved"),  # a strength being added elsewhere
    ("Expert bot A", "reserved"),  # how two bots of one strength are told apart
    ("Deleted player", "reserved"),
    ("\u0395xpert bot", "reserved"),  # Greek capital Epsilon: its skeleton is E, its folded ε's is not e
    ("DeIeted player", "reserved"),  # capital I: its skeleton is l, its folded i's is i
    ("Expert b\u03bft", "reserved"),  # Greek small omicron
    ("\u0395XPERT B\u039fT", "reserved"),  # Greek capitals Epsilon and Omicron
    ("\u1d07xpert bot", "reserved"),  # small capital E: the confusables data does not map it
    ("\u0299asic bot", "reserved"),  # small capital B
    ("R\u1d00ndom bot", "reserved"),  # small capital A
    ("Mas\u1d1be\u0280 bot", "reserved"),  # small capitals T and R
    ("Deleted \u1d18layer", "reserved"),  # small capital P
    ("", "empty"),
    ("   ", "empty"),
]
KEPT = [
    ("Ana", "Ana"),
    ("  Ana   Bo  ", "Ana Bo"),
    ("Ａna", "Ana"),  # width mapping
    ("Bo\u00a0Cy", "Bo Cy"),  # every space a plain one
    ("e\u0301" * 40, "é" * 40),  # NFC: 40 clusters, 40 code points
    (ZALGO, ZALGO),  # the limits bound the stack: one letter, 79 marks, nothing more
    ("\ufdfd" * 40, "\ufdfd" * 40),  # forty of the widest glyph
    ("Expert bots", "Expert bots"),
    ("Аna", "Аna"),  # a look-alike of a person's name is not reserved: only the service's own
    ("李小龍", "李小龍"),
    ("Zoë 🎲", "Zoë 🎲"),
    ("\u1d07\u0280\u026a\u1d0b", "\u1d07\u0280\u026a\u1d0b"),  # small capitals are letters: a name of them is kept
]


@pytest.mark.parametrize(("name", "message"), REFUSED)
def test_the_rule_refuses(name: str, message: str) -> None:
    problem = name_problem(name)
    assert problem is not None and message in problem, problem


@pytest.mark.parametrize(("name", "kept"), KEPT)
def test_the_rule_keeps_the_profiles_output(name: str, kept: str) -> None:
    assert checked_name(name) == kept


def test_the_skeleton_is_tr39s() -> None:
    assert skeleton("Ехреrt") == skeleton("Expert") == "Expert"
    assert skeleton("rn") == skeleton("m")  # TR39's own example of a sequence
    assert skeleton("paypal") == skeleton("pаypаl")


WHERE = {
    "player": lambda client, name: client.post("/v1/players", json={"name": name}),
    "person seat": lambda client, name: client.post("/v1/games", json={"seats": [{"name": name}, None, None]}),
    "bot seat": lambda client, name: client.post(
        "/v1/games", json={"seats": [{"name": "Ana"}, {"bot": "basic", "name": name}, None]}
    ),
    "joined seat": lambda client, name: client.post(
        f"/v1/games/{client.post('/v1/games', json={}).json['id']}/players", json={"name": name}
    ),
}


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name", ["\u2800", "Ана\u2028", "Ехреrt bot", "\u0395xpert bot", "DeIeted player", "x" * 41])
def test_every_name_a_client_gives_is_refused_alike(client, where: str, name: str) -> None:
    response = WHERE[where](client, name)
    assert response.status_code == 422 and response.json["code"] == "validation_error", response.json
    assert name_problem(name) in str(response.json["errors"])


@pytest.mark.parametrize("where", WHERE)
def test_every_name_a_client_gives_is_kept_as_the_profile_gives_it(client, where: str) -> None:
    name = "  Ｚoë  " + "\u0351" * 70
    response = WHERE[where](client, name)
    assert response.status_code == 201, response.json
    body = response.json.get("game", response.json)
    names = [body["name"]] if where == "player" else [seat["name"] for seat in body["seats"]]
    assert checked_name(name) in names and len(checked_name(name)) == 74
