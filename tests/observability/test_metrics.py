"""Prometheus metrics: by route (never a raw path) and status, latency, games created, cards played.

In-process (one registry) here; across processes (multiprocess mode) in test_metrics_multiprocess.
"""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def metric(text: str, name: str, **labels: str) -> float:
    """The value of the sample ``name`` with these labels (0 when absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


def delta(before: str, after: str, name: str, **labels: str) -> float:
    return metric(after, name, **labels) - metric(before, name, **labels)


def scrape(client) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    return response.get_data(as_text=True)


def test_requests_are_counted_by_route_and_status(new_table, client):
    table = new_table(seed="metrics", first_dealer=0)
    before = scrape(client)
    client.get(f"/v1/games/{table.id}")
    client.get(f"/v1/games/{table.id}")
    client.get("/v1/games/nosuchgame")
    after = scrape(client)
    route = "/v1/games/<game_id>"
    name = "coins_http_requests_total"
    assert delta(before, after, name, method="GET", route=route, status="200") == 2
    assert delta(before, after, name, method="GET", route=route, status="404") == 1
    assert table.id not in after and "nosuchgame" not in after


def test_latency_histogram_observes_every_request(client):
    name = "coins_http_request_duration_seconds_count"
    before = metric(scrape(client), name, method="GET", route="/healthz")
    for _ in range(3):
        client.get("/healthz")
    text = scrape(client)
    assert metric(text, name, method="GET", route="/healthz") - before == 3
    assert metric(text, "coins_http_request_duration_seconds_bucket", method="GET", route="/healthz", le="+Inf") >= 3


def test_invented_methods_share_one_label(client):
    before = scrape(client)
    client.open("/v1/games", method="FROBNICATE")
    after = scrape(client)
    assert delta(before, after, "coins_http_requests_total", method="OTHER", route="<unmatched>", status="405") == 1
    assert "FROBNICATE" not in after


def test_unmatched_paths_share_one_label(client):
    before = metric(scrape(client), "coins_http_requests_total", route="<unmatched>", status="404")
    client.get("/no/such/path/123")
    client.get("/another/456")
    text = scrape(client)
    assert metric(text, "coins_http_requests_total", route="<unmatched>", status="404") - before == 2
    assert "/no/such/path" not in text


def test_games_created_and_cards_played(new_table, client):
    before = scrape(client)
    table = new_table(seed="counted", first_dealer=0)
    client.post("/v1/games", json={"seats": [{"name": "x"}, {"name": "y"}, {"name": "z"}], "target_score": 0})  # 422
    assert table.deal(0).status_code == 201
    for _ in range(4):
        seat = table.state()["turn"]
        assert table.play(seat, table.hand(seat)[0]).status_code == 201
    seat = table.state()["turn"]
    assert table.play((seat + 1) % 3, table.hand((seat + 1) % 3)[0]).status_code == 409  # not counted
    after = scrape(client)
    assert delta(before, after, "coins_games_created_total") == 1
    assert delta(before, after, "coins_cards_played_total") == 4
