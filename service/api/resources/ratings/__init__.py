"""Ratings: a player's rating history and the leaderboard."""
