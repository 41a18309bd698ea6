"""The rating of games of more than two seats (Celestial Empire): OpenSkill's
Plackett-Luce model (the ``openskill`` package), each seat a team of one,
ranked by the game's own final standing (`gm.kernel.values.GameEnd.standing`),
seats tied for a place (allied co-winners) ranked alike.

``openskill`` is the well-kept implementation of Weng and Lin's Bayesian
ratings; its model is deterministic (no sampling), so a rebuild from the
archives gives the same numbers. New players start at its defaults, μ = 25
and sigma = 25/3.

Ties are not passed to it as equal ranks: its Plackett-Luce model (6.x)
mishandles those (openskill.py issues 155 and 173: a seat placed below two
tied winners gains as much as they do, and two equal players who tie both
gain). A tie is instead the average of its strict orders: each group of
tied seats is rated in each rotation of its order (the first seat first,
then the second first, ...), every combination of the groups' rotations,
and each seat's μ and sigma are the mean over those ratings. A seat thus holds
each place of its group equally often, tied seats of equal skill come out
equal, and without ties it is one plain Plackett-Luce rating.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
START_MU = 25.0
START_SIGMA = 25.0 / 3


@dataclass(frozen=True)
class Skill:
    """A player's skill: its mean μ and its uncertainty sigma."""

    mu: float = START_MU
    sigma: float = START_SIGMA


def _strict(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Each seat's skill after one game in which the seats (``skills``, in
    seat order) took ``places`` (1 the best; equal places are ties, rated
    as the mean of their strict orders: see the module's docstring)."""
    groups = [[seat for seat, place in enumerate(places) if place == value] for value in sorted(set(places))]
    mu = [0.0] * len(skills)
    sigma = [0.0] * len(skills)
    turns = list(itertools.product(*(range(len(group)) for group in groups)))
    for turn in turns:
        ranks = [0] * len(skills)
        rank = 1
        for group, shift in zip(groups, turn):
            for index in range(len(group)):
                ranks[group[(index + shift) % len(group)]] = rank + index
            rank += len(group)
        for seat, skill in enumerate(_strict(skills, ranks)):
            mu[seat] += skill.mu
            sigma[seat] += skill.sigma
    return [Skill(m / len(turns), s / len(turns)) for m, s in zip(mu, sigma)]
