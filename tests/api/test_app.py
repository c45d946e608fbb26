"""The Flask application object: what create_app changes about Flask itself."""

from __future__ import annotations


def test_ensure_sync_passes_plain_functions_through_and_remembers_them(app):
    def view() -> str:
        return "ok"

    class Views:
        def get(self) -> str:
            return "ok"

    assert app.ensure_sync(view) is view
    assert view.__code__ in app._plain_code
    assert app.ensure_sync(view) is view  # from memory
    bound = Views().get
    assert app.ensure_sync(bound) is bound
    assert Views.get.__code__ in app._plain_code


def test_ensure_sync_still_hands_coroutines_to_flask(app):
    async def view() -> str:
        return "ok"

    try:
        wrapped = app.ensure_sync(view)
    except RuntimeError as error:  # Flask without its "async" extra
        assert "async" in str(error)
    else:
        assert wrapped is not view
    assert view.__code__ not in app._plain_code


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
