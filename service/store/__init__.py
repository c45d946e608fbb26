"""Persistence: SQLAlchemy 2 models, the database handle and the game repository. Never imports Flask."""

from .db import Database, DatabaseUnavailable
from .models import ActionRow, Base, GameRow, SeatRow, TrickRow
from .repository import ConcurrentUpdate, GameRecord, GameRepository, SeatRecord

__all__ = [
    "ActionRow",
    "Base",
    "ConcurrentUpdate",
    "Database",
    "DatabaseUnavailable",
    "GameRecord",
    "GameRepository",
    "GameRow",
    "SeatRecord",
    "SeatRow",
    "TrickRow",
]
