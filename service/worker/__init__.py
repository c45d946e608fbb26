"""The worker role (``coins-worker``): what time makes due happens whether or not anybody reads.

Today that is the moves a game's clock makes due: a stand-in's move when a person lets their turn's
deadline pass (or their leave, the second time in a row: :func:`service.games.leaving.lapse`), and
every one of the server's own moves (bots, auto-deals), each a pace after the move before it
(``BOT_PACE_MS``, ``TRICK_PAUSE_MS``): no request makes one. A game of bots alone moves only while
the real-time role marks it followed. See :mod:`.due`.
"""

from .due import Worker
from .main import main, worker_for

__all__ = ["Worker", "main", "worker_for"]
