"""The rating model's constants, each with its reason (docs/ratings.md explains the model)."""

from __future__ import annotations

import math

# The Plackett-Luce model (Weng & Lin 2011, Algorithm 4), with openskill's defaults.
MU_0 = 25.0  # a new player's mean skill
SIGMA_0 = 25.0 / 3.0  # a new player's uncertainty (standard deviation of the skill)
BETA = 25.0 / 6.0  # the spread of one game's performance around the skill (luck, form)
KAPPA = 0.0001  # the least factor by which one game may shrink a variance (keeps it positive)
TAU = 25.0 / 300.0  # per-game dynamics: tau² is added to every variance before a game is rated

# Inactivity, as in Glicko's rating periods: a variance grows by TAU_PER_DAY² for each day without
# a rated game, up to SIGMA_0². A settled player (sigma about 1.6, where the games' evidence and the
# per-game TAU balance) is provisional again after about ten months away and back at SIGMA_0 after
# about three years; a month away widens 1.6 to 2.1.
TAU_PER_DAY = 0.25

# The display scale: value = round(DISPLAY_BASE + DISPLAY_SCALE · (mu - MU_0)). A new player shows
# DISPLAY_BASE. In the model the chance that one player finishes ahead of another is
# 1 / (1 + exp(-(mu_a - mu_b) / c)), with c = sqrt(3 · BETA²) ≈ 7.2 in a game of three settled
# players; Elo's is 1 / (1 + 10^(-d / 400)). Equating the two, one unit of mu is
# 400 / (ln 10 · c) ≈ 24 points: a 400-point gap means finishing ahead 10 times in 11, as in Elo.
DISPLAY_BASE = 1500
DISPLAY_SCALE = round(400 / (math.log(10) * math.sqrt(3) * BETA))  # 24

# A rating is provisional (and off the leaderboard) while its player has fewer than
# MIN_RATED_GAMES rated games or its current sigma exceeds SIGMA_PROVISIONAL: 110 display points,
# the deviation above which lichess marks a Glicko rating provisional. A newcomer gets there after
# some 15 games against settled players (some 50 among newcomers only).
MIN_RATED_GAMES = 10
SIGMA_PROVISIONAL = 110 / DISPLAY_SCALE  # ≈ 4.58
