"""Alembic migrations of the Coins schema; run them with ``coins-migrate`` (see :mod:`service.store.migrate`)."""
