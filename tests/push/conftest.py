"""Web Push tests: the webhooks' local HTTPS receiver (trustme's CA, on loopback, allowed for tests
only) stands for a push service; names resolve by a table the test controls."""

from __future__ import annotations

from tests.webhooks.conftest import hook_receiver, names, settings

__all__ = ["hook_receiver", "names", "settings"]
