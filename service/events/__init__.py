"""Live events: a game's changes as they happen, for streams and long polls, across processes.

:class:`EventFeed` opens a :class:`Reader` on one game, or a :class:`PlayerReader` on a player's own feed; :mod:`.hub` shares each game's reads
between the readers of a process and makes what is due in a game happen at its moment;
:mod:`.notifications` carries "game X changed" between processes (PostgreSQL NOTIFY, Redis, or an
SQLite file's data version); :mod:`.shares` caps the readers of one address or credential. No Flask here: the API frames what a reader gives.
"""

from .feed import EventFeed, Item, Reader
from .hub import Hub, StreamsFull
from .notifications import Channel, channel_for
from .player_feed import PlayerReader
from .shares import ShareTaken, StreamShares

__all__ = [
    "Channel",
    "EventFeed",
    "Hub",
    "Item",
    "PlayerReader",
    "Reader",
    "ShareTaken",
    "StreamShares",
    "StreamsFull",
    "channel_for",
]
