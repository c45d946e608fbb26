"""Webhook tests: the app trusts the local receiver's CA, allows loopback (tests only) and resolves
names with a table the test controls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from service.api.context import WEBHOOKS_EXTENSION
from service.config import Settings
from tests.support.webhook_receiver import HOST, Receiver, receiver


class Names:
    """The tests' resolver: a table of names and their addresses."""

    def __init__(self) -> None:
        self.table: dict[str, list[str]] = {HOST: ["127.0.0.1"]}

    def __call__(self, host: str, port: int) -> list[str]:
        if host not in self.table:
            raise OSError(f"unknown name {host}")
        return list(self.table[host])


@pytest.fixture
def hook_receiver(tmp_path: Path) -> Iterator[Receiver]:
    with receiver(tmp_path) as running:
        yield running


@pytest.fixture
def settings(database_url: str, hook_receiver: Receiver) -> Settings:
    return Settings(
        database_url=database_url,
        rate_limits="off",
        webhook_allow_networks=("127.0.0.0/8",),
        webhook_ca_bundle=hook_receiver.ca_file,
    )


@pytest.fixture
def names(app: Flask) -> Names:
    table = Names()
    app.extensions[WEBHOOKS_EXTENSION].policy.resolver = table
    return table
