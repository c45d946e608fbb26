"""Tests of the computer players: engine agreement, legal play, determinism, hidden cards."""
