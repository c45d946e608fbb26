"""coins-admin on both databases: rename, revoke a key, issue a new one, bar and lift a bar; each change with
its audit row and one log line, saying who and why, and never a key in either."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import text

from service.admin import HELP, main
from service.games.ids import BOT_PLAYER_IDS
from tests.support.players import new_player


@pytest.fixture
def admin(app, database_url, monkeypatch):
    """``coins-admin`` on the app's database (migrated by the app)."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    for name in ("REDIS_URL", "DATABASE_LISTEN_URL", "ADDRESS_HASH_KEY"):
        monkeypatch.delenv(name, raising=False)
    return main


def _audit_rows(app):
    with app.extensions["coins.db"].engine.connect() as connection:
        return connection.execute(text("SELECT operator, action, player_id, reason, detail FROM admin_actions")).all()


def test_rename_is_audited_and_follows_the_rule_for_names(client, app, admin, capsys, caplog):
    ana = new_player(client, "Ana")
    with caplog.at_level(logging.INFO):
        assert admin(["rename", ana.id, "  Ana B  ", "--reason", "asked by the player", "--by", "ops-1"]) == 0
    assert client.get(f"/v1/players/{ana.id}").json["name"] == "Ana B"
    [row] = _audit_rows(app)
    assert row[:4] == ("ops-1", "rename", ana.id, "asked by the player")
    assert "ops-1" in caplog.text and "asked by the player" in caplog.text and ana.id in caplog.text
    assert admin(["rename", ana.id, "Ехреrt bot", "--reason", "x"]) == 1
    assert "reserved" in capsys.readouterr().err
    assert len(_audit_rows(app)) == 1  # refused: nothing written


def test_a_revoked_key_stops_and_only_an_issued_one_works(client, app, admin, capsys, caplog):
    ana = new_player(client, "Ana")
    with caplog.at_level(logging.DEBUG):
        assert admin(["revoke-key", ana.id, "--reason", "key posted in a forum", "--by", "ops"]) == 0
        refused = client.get("/v1/players/me", headers=ana.auth)
        assert refused.status_code == 401 and refused.json["code"] == "invalid_key"
        capsys.readouterr()
        assert admin(["new-key", ana.id, "--reason", "identity checked", "--by", "ops"]) == 0
    key = capsys.readouterr().out.strip().splitlines()[-1]
    assert key.startswith("cpk_")
    assert client.get("/v1/players/me", headers={"Authorization": f"Bearer {key}"}).json["id"] == ana.id
    rows = _audit_rows(app)
    assert [row[1] for row in rows] == ["revoke-key", "new-key"]
    for secret in (key, ana.key):
        assert secret not in caplog.text and all(secret not in str(row) for row in rows)


def test_bar_and_lift_bar(client, app, admin, capsys):
    ana = new_player(client, "Ana")
    assert admin(["bar", ana.id, "--reason", "farming with throw-away accounts"]) == 0
    created = client.post(
        "/v1/games", json={"seats": [{"player": "me"}, {"bot": "random"}, None], "rated": True}, headers=ana.auth
    )
    assert created.status_code == 403 and created.json["code"] == "rated_play_barred"
    assert admin(["lift-bar", ana.id, "--reason", "appeal upheld"]) == 0
    assert client.post("/v1/queue", json={"rated": True}, headers=ana.auth).status_code == 201
    assert admin(["audit", ana.id]) == 0
    out = capsys.readouterr().out
    assert '"action": "bar"' in out and '"action": "lift-bar"' in out and "appeal upheld" in out


def test_bots_and_unknown_players_are_refused(admin, capsys):
    assert admin(["bar", BOT_PLAYER_IDS["expert"], "--reason", "x"]) == 1
    assert admin(["rename", "01jf3v9k2m8q4r6t0w5x7y9z1b", "Bo", "--reason", "x"]) == 1
    assert "no player" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        admin(["bar", BOT_PLAYER_IDS["expert"]])  # a reason is required


def test_legacy_names_are_listed(client, app, admin, capsys):
    ana = new_player(client, "Ana")
    with app.extensions["coins.db"].engine.begin() as connection:
        connection.execute(text("UPDATE players SET name = :name, legacy_name = :yes WHERE id = :id"),
                           {"name": "Expert bot", "yes": True, "id": ana.id})  # fmt: skip
    assert admin(["legacy-names"]) == 0
    assert f"{ana.id}\t'Expert bot'" in capsys.readouterr().out
    assert admin(["rename", ana.id, "Ana", "--reason", "impersonated a bot"]) == 0
    capsys.readouterr()
    assert admin(["legacy-names"]) == 0
    assert ana.id not in capsys.readouterr().out


def test_a_database_not_migrated_is_named_not_a_traceback(tmp_path, monkeypatch, capsys):
    """An empty database (or one an older release left) has not the tables coins-admin reads: one line
    saying so, as the roles say it, and nothing written."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    for name in ("REDIS_URL", "DATABASE_LISTEN_URL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["legacy-names"]) == 2
    assert main(["bar", "01jf3v9k2m8q4r6t0w5x7y9z1b", "--reason", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("the database is empty (no revision); this code needs revision") == 2, err
    assert "run coins-migrate" in err and "Traceback" not in err


def test_the_help_says_what_each_command_does(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "DATABASE_URL" in out
    said = " ".join(out.split())  # as argparse wrapped it
    for name in ("rename", "revoke-key", "new-key", "bar", "lift-bar", "audit", "legacy-names"):
        assert f"{name} {HELP[name]}" in said, out
