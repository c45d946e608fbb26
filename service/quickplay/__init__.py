"""Quick play: players queue tickets, waves match them into new games by the rules of :mod:`.matching`. Imports no Flask."""

from .queue import QueueRequest, QueueService, Ticket

__all__ = ["QueueRequest", "QueueService", "Ticket"]
