"""The player events resource: a player's own feed."""
