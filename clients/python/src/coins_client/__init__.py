"""Python client for the Coins game service.

- ``Client`` / ``AuthenticatedClient`` and one module per operation (``coins_client.api.<tag>.<operation>``,
  each with ``sync``, ``sync_detailed``, ``asyncio``, ``asyncio_detailed``) and the models
  (``coins_client.models``): generated from the service's ``openapi.yaml`` by openapi-python-client.
- ``follow_game`` / ``follow_player`` (and ``afollow_*`` on asyncio): typed readers of the event feeds,
  with resuming (``coins_client.events``); ``coins_client.sse``: the Server-Sent Events decoder under them.
"""

from importlib.metadata import PackageNotFoundError, version

from .client import AuthenticatedClient, Client
from .events import (
    FeedEvent,
    FeedLost,
    PlayerEvent,
    ProblemError,
    afollow_game,
    afollow_player,
    follow_game,
    follow_player,
)

try:
    __version__ = version("coins-client")
except PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

__all__ = (
    "AuthenticatedClient",
    "Client",
    "FeedEvent",
    "FeedLost",
    "PlayerEvent",
    "ProblemError",
    "__version__",
    "afollow_game",
    "afollow_player",
    "follow_game",
    "follow_player",
)
