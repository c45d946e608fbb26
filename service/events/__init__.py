"""The event feed: a game's changes as they happen, for streams and long polls, across processes.

:class:`EventFeed` opens a :class:`Reader` on one game; :mod:`.hub` shares each game's reads
between the streams of a process; notifications between processes are the store's
(:mod:`service.store.notifications`). No Flask here: the API frames what a reader gives.
"""

from .feed import EventFeed, Item, Reader
from .hub import Hub, StreamsFull

__all__ = ["EventFeed", "Hub", "Item", "Reader", "StreamsFull"]
