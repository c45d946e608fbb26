"""METRICS_TOKEN: when set, /metrics answers only to its bearer, compared in constant time."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.config import Settings

TOKEN = "scrape-secret-1"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, metrics_token=TOKEN)


@pytest.mark.parametrize(
    "authorization", [None, "", "Bearer", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer scrape-secret-"]
)
def test_without_the_token_metrics_are_refused(client, authorization):
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json" and response.json["code"] == "unauthorized"
    assert response.headers["WWW-Authenticate"].lower().startswith("bearer")
    assert TOKEN not in response.get_data(as_text=True)


@pytest.mark.parametrize("authorization", [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"Bearer {TOKEN} "])
def test_with_the_token_metrics_are_served(client, authorization):
    response = client.get("/metrics", headers={"Authorization": authorization})
    assert response.status_code == 200 and b"coins_http_requests" in response.data


def test_the_token_is_read_from_the_environment_and_kept_out_of_reprs():
    settings = Settings.from_env({"METRICS_TOKEN": f"  {TOKEN} "})
    assert settings.metrics_token == TOKEN
    assert TOKEN not in repr(settings)
