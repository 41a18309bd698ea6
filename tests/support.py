"""Shared fixtures for the rules tests: two standard fleets and a way to play."""

from __future__ import annotations

from gm.games.spaceships.game import Game
from gm.games.spaceships.geometry import Cell
from gm.games.spaceships.notation import parse_orders

# Player 1: a cube death star, flying saucer and light scout.
FLEET_1 = """\
DS Rv1-Ow2
KC Gv1-Gx2
FS Bv1-Bw2
MD Yz1 Yz2 Yz3
LS Bz5
"""

# Player 2: patrol cruiser and heavy scout instead.
FLEET_2 = """\
DS Yx3-Gy4
KC Rv1-Rx2
PC Bv5-By5
MD Ov3 Ow3 Ox3
HS Gz1 Gz2
"""


def cells(text: str) -> list[Cell]:
    return [Cell.parse(t) for t in text.split()]


def new_game(setup1: str = FLEET_1, setup2: str = FLEET_2, **kwargs) -> Game:
    return Game.from_setups(setup1, setup2, **kwargs)


def announced(report) -> list[tuple]:
    """Announcements as (by, kind, cell, result) tuples with plain strings."""
    return [(a.by, a.kind, str(a.cell), a.result.value if a.result else None) for a in report.announcements]


def orders(text: str):
    return parse_orders(text)
