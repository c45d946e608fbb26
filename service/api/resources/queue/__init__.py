"""Quick play: queue for a game, read and cancel your ticket."""
