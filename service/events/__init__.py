"""Live events as reads: a game's or a player's feed from an event id, and how "it changed" crosses processes.

:class:`EventFeed` says where a reader starts (:meth:`~EventFeed.open_game`,
:meth:`~EventFeed.open_player`) and reads what follows, rendered as clients receive it;
:mod:`.channels` carries the signal "this feed changed" between processes (PostgreSQL NOTIFY, Redis, or
an SQLite file's data version); :mod:`.shares` caps the readers of one address or credential;
:mod:`.holds` is what the events view hands to the process that holds connections (the real-time
role, :mod:`service.realtime`). No Flask here, and nothing that waits.
"""

from .channels import Channel, channel_for
from .feed import GAME_FINISHED, PAGE_EVENTS, EventFeed, Item, Opening, holds_private
from .holds import Hold, Holder, StreamsFull
from .shares import ShareTaken, StreamShares

__all__ = [
    "GAME_FINISHED",
    "PAGE_EVENTS",
    "Channel",
    "EventFeed",
    "Hold",
    "Holder",
    "Item",
    "Opening",
    "ShareTaken",
    "StreamShares",
    "StreamsFull",
    "channel_for",
    "holds_private",
]
