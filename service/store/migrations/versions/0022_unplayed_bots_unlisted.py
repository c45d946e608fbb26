"""A bot player is on the leaderboard once it has played a rated game, as a person is.

Revisions 0013 and 0016 made every bot player listable from the start, so a fresh service listed
its four bots among the rising players, each at 1500 with no game. A bot's player is made listable
when its first rated result is applied (``ratings.apply``, as every player's is); here the bots
that have played no rated game are made not listable (and not listed) until then.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | Sequence[str] | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_players = sa.table(
    "players", sa.column("bot", sa.String()), sa.column("rated_games", sa.Integer()),
    sa.column("listable", sa.Boolean()), sa.column("listed_until", sa.DateTime(timezone=True)),
)  # fmt: skip
_UNPLAYED_BOTS = sa.and_(_players.c.bot.is_not(None), _players.c.rated_games == 0)


def upgrade() -> None:
    op.execute(_players.update().where(_UNPLAYED_BOTS).values(listable=False, listed_until=None))


def downgrade() -> None:
    op.execute(_players.update().where(_UNPLAYED_BOTS).values(listable=True))
