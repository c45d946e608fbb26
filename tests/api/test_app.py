"""The Flask application object: how create_app configures Flask's JSON bodies."""

from __future__ import annotations


def test_json_bodies_are_compact_utf8_with_a_newline(app, client):
    created = client.post("/v1/games", json={"seats": [{"name": "Zoë"}, {"name": "Bo"}, {"name": "Cy"}]})
    assert created.content_type == "application/json"
    assert created.data.endswith(b"}\n") and b'"name":"Zo\xc3\xab"' in created.data  # not ASCII-escaped
    assert b": " not in created.data and b", " not in created.data


def test_debug_mode_indents_json_bodies(app):
    with app.test_request_context():
        app.debug = True
        try:
            body = app.json.response({"a": [1]}).get_data()
        finally:
            app.debug = False
    assert body == b'{\n  "a": [\n    1\n  ]\n}\n'
