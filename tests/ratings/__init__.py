"""Tests of service.ratings: the finishing order, the Plackett-Luce update, inactivity and the display scale."""
