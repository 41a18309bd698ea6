"""Glicko-2, as Mark Glickman's "Example of the Glicko-2 system" (2012)
describes it: the rating of the two-player games (Spaceships, Grid Fighters).

Each finished rated game is a rating period of its own, as lichess does, so
`update` is called with one opponent; it takes any number, as the paper's
worked example (section 3: 1500/200/0.06 against 1400/30, 1550/100 and
1700/300, results 1, 0, 0, gives 1464.06 / 151.52 / 0.05999) has three.

Idle time (`idle`) follows the paper's step 6 for a player who plays no game
in a rating period: the deviation grows as φ' = sqrt(φ² + sigma²) per period.
Counted in days, a player idle for ``d`` whole days (from the end of their
last game to the end of this one) has φ' = sqrt(φ² + d·sigma²), capped at a new
player's deviation (350), before the game's own update, whose step 6 adds
sigma'² once more as for any period with games.

PyPI's ``glicko2`` (a fork of pyglicko2) was passed over: its volatility
function f(x) uses the player's rating μ² where the paper has the deviation
φ² (step 5.1), so it does not give the paper's numbers in general; it keeps
its state in mutable objects and has no idle time. The paper's algorithm is
the few lines below.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""The paper's factor between the Glicko and the Glicko-2 scale (step 2)."""
TAU = 0.5
"""The system constant τ, which limits how fast the volatility changes."""
EPSILON = 0.000001
"""The paper's convergence tolerance for the volatility (step 5.1)."""
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the Glicko scale: rating, deviation (RD) and volatility sigma."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def idle(player: Rating, days: int) -> Rating:
    """The rating after ``days`` whole days without a game: the deviation
    grows as the paper's step 6 has it for a period without games, once per
    day, never past a new player's (see the module's docstring)."""
    if days <= 0:
        return player
    phi = player.deviation / SCALE
    grown = math.sqrt(phi * phi + days * player.volatility * player.volatility) * SCALE
    return Rating(player.rating, min(grown, START_DEVIATION), player.volatility)


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility sigma', by the Illinois algorithm the paper gives."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def update(player: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period in which they played
    ``games``: each the opponent's rating before the period and the
    player's score against them (1 a win, 0.5 a draw, 0 a loss). With no
    games, only the deviation grows (step 6)."""
    mu = (player.rating - START_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    opponents = [((o.rating - START_RATING) / SCALE, o.deviation / SCALE, score) for o, score in games]
    v = 1 / sum(_g(phi_j) ** 2 * _e(mu, mu_j, phi_j) * (1 - _e(mu, mu_j, phi_j)) for mu_j, phi_j, _ in opponents)
    improvement = sum(_g(phi_j) * (score - _e(mu, mu_j, phi_j)) for mu_j, phi_j, score in opponents)
    new_sigma = _volatility(phi, sigma, v * improvement, v, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(new_mu * SCALE + START_RATING, new_phi * SCALE, new_sigma)
