"""Ship types: sizes, shapes and costs [6]."""

from functools import cache
from itertools import combinations, product

import pytest

from gm.games.spaceships.geometry import STANDARD
from gm.games.spaceships.ships import ShipType, canonical_shape, placements, shape_problem
from support import cells


@pytest.mark.parametrize(
    "code, size, cost",
    [("DS", 8, 8), ("KC", 6, 6), ("FS", 4, 4), ("PC", 4, 4), ("MD", 3, 3),
     ("HS", 2, 3), ("LS", 1, 3), ("AG", 2, 2), ("LG", 1, 1)],
)
def test_sizes_and_costs_6(code, size, cost):
    type = ShipType[code]
    assert (type.size, type.cost) == (size, cost)


def test_special_weapons_6():
    assert {t.code for t in ShipType if t.missiles} == {"MD", "AG", "LG"}  # [6.6.3], [6.9.1], [6.10.1]
    assert {t.code for t in ShipType if t.scanner} == {"HS", "LS"}  # [6.7.2], [6.8.1]
    assert {t.code for t in ShipType if t.beam} == {"DS"}  # [6.2.5]


@pytest.mark.parametrize(
    "code, good, bad",
    [
        ("KC", "Rv1 Rv2 Rv3 Rw1 Rw2 Rw3", "Rv1 Rv2 Rv3 Rv4 Rw1 Rw2"),  # [6.3.2]
        ("KC", "Rv1 Ov1 Yv1 Rv2 Ov2 Yv2", "Rv1 Ov1 Yv1 Rw2 Ow2 Yw2"),
        ("FS", "Rv1 Rv2 Rw1 Rw2", "Rv1 Rv2 Rv3 Rv4"),  # [6.4.2]
        ("PC", "Rv1 Rv2 Rv3 Rv4", "Rv1 Rv2 Rv3 Rw3"),  # [6.5.2]
        ("PC", "Rv1 Ov1 Yv1 Gv1", "Rv1 Ow2 Yx3 Gy4"),  # a diagonal is not adjacent
        ("MD", "Rv1 Rw1 Rx1", "Rv1 Rw1 Rw2"),  # [6.6.2]
        ("HS", "Rv1 Rv2", "Rv1 Rw2"),  # [6.7.1]
        ("AG", "Bz4 Bz5", "Bz5 Gz4"),  # [6.9]
        ("LS", "Bz5", "Bz5 Bz4"),  # [6.8]
        ("LG", "Rv1", "Rv1 Rv2"),  # [6.10]
    ],
)
def test_shapes_3_5(code, good, bad):
    type = ShipType[code]
    assert shape_problem(type, cells(good), STANDARD) is None
    problem = shape_problem(type, cells(bad), STANDARD)
    assert problem and f"[{type.clause}" in problem


def test_death_star_cube_6_2_3():
    assert shape_problem(ShipType.DS, cells("Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2"), STANDARD) is None


def test_death_star_beyond_the_cube_6_2_2():
    flat_4x2 = "Rv1 Rv2 Rv3 Rv4 Rw1 Rw2 Rw3 Rw4"
    square_less_corner = "Rv1 Rv2 Rv3 Rw1 Rw2 Rw3 Rx1 Rx2"
    domino_on_top = "Rv1 Rv2 Rv3 Rw1 Rw2 Rw3 Ov1 Ov2"
    for shape in (flat_4x2, square_less_corner, domino_on_top):
        assert shape_problem(ShipType.DS, cells(shape), STANDARD) is None, shape


def test_death_star_cells_need_two_neighbours_6_2_2():
    tail = "Rv1 Rv2 Rv3 Rw1 Rw2 Rw3 Rv4 Rv5"  # Rv5 touches only Rv4
    problem = shape_problem(ShipType.DS, cells(tail), STANDARD)
    assert "[6.2.2]" in problem and "Rv5" in problem


def test_death_star_needs_a_cube_or_rectangle_6_2_3():
    ring = "Rv1 Rv2 Rv3 Rw1 Rw3 Rx1 Rx2 Rx3"  # a 3x3 ring: two neighbours each, no 3x2 block
    assert "[6.2.3]" in shape_problem(ShipType.DS, cells(ring), STANDARD)


def test_wrong_size_names_the_clause():
    assert "[6.2]" in shape_problem(ShipType.DS, cells("Rv1 Rv2"), STANDARD)


# Enumerating the death star [6.2.2]-[6.2.3], independently of gm.games.spaceships.ships.

def _literal_death_star(points: set) -> bool:
    """[6.2.2] and [6.2.3] read literally, on integer points."""
    def neighbours(p):
        return sum((tuple(p[i] + (d if i == axis else 0) for i in range(3)) in points)
                   for axis in range(3) for d in (-1, 1))
    if len(points) != 8 or any(neighbours(p) < 2 for p in points):
        return False
    for corner in points:
        for size in {(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1), (2, 2, 2)}:
            block = {tuple(corner[i] + o[i] for i in range(3)) for o in product(*(range(s) for s in size))}
            if block <= points:
                return True
    return False


def _free_form(points) -> tuple:
    best = None
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in product((1, -1), repeat=3):
            moved = [tuple(signs[i] * p[perm[i]] for i in range(3)) for p in points]
            low = [min(m[i] for m in moved) for i in range(3)]
            form = tuple(sorted(tuple(m[i] - low[i] for i in range(3)) for m in moved))
            best = form if best is None or form < best else best
    return best


@cache
def _literal_free_shapes() -> frozenset:
    """Every free shape: a cube, or a 3x2x1 block plus any two cells nearby."""
    block = {(x, y, 0) for x in range(3) for y in range(2)}
    around = [p for p in product(range(-2, 5), range(-2, 4), range(-2, 3)) if p not in block]
    shapes = {_free_form({(x, y, z) for x in range(2) for y in range(2) for z in range(2)})}
    for a, b in combinations(around, 2):
        points = block | {a, b}
        if _literal_death_star(points):
            shapes.add(_free_form(points))
    return frozenset(shapes)


def test_death_star_shapes_match_a_literal_reading_6_2():
    # Placements that are moves of one another have one shape [1.2.2]
    # (test_canonical_shape_ignores_position_and_orientation_1_2_2): one of each is named.
    moved_apart: dict[tuple, frozenset] = {}
    for placement in placements(ShipType.DS, STANDARD):
        points = [STANDARD.position(c) for c in placement]
        low = [min(p[i] for p in points) for i in range(3)]
        moved_apart.setdefault(tuple(sorted(tuple(p[i] - low[i] for i in range(3)) for p in points)), placement)
    found = {canonical_shape(p, STANDARD) for p in moved_apart.values()}
    assert found == _literal_free_shapes()
    assert len(found) == 6  # cube, 4x2, 3x3 less a corner, three with a domino on a 3x2 block


def test_death_star_placements_are_every_fitting_orientation():
    expected = set()
    for form in _literal_free_shapes():
        for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
            for signs in product((1, -1), repeat=3):
                moved = [tuple(signs[i] * p[perm[i]] for i in range(3)) for p in form]
                for offset in product(range(-4, 5), repeat=3):
                    points = [tuple(m[i] + offset[i] for i in range(3)) for m in moved]
                    if all(0 <= v < 5 for p in points for v in p):
                        expected.add(frozenset(STANDARD.at(*p) for p in points))
    assert set(placements(ShipType.DS, STANDARD)) == expected


def test_placements_of_boxes():
    assert len(placements(ShipType.LS, STANDARD)) == 125
    assert len(placements(ShipType.HS, STANDARD)) == 3 * 4 * 25  # 300 dominoes
    assert len(placements(ShipType.PC, STANDARD)) == 3 * 2 * 25
    for type in (ShipType.KC, ShipType.FS, ShipType.MD):
        assert all(shape_problem(type, p, STANDARD) is None for p in placements(type, STANDARD))


def test_canonical_shape_ignores_position_and_orientation_1_2_2():
    a = canonical_shape(cells("Rv1 Rv2 Rw1"), STANDARD)
    assert a == canonical_shape(cells("Bz5 Bz4 Gz5"), STANDARD)
    assert a != canonical_shape(cells("Rv1 Rv2 Rv3"), STANDARD)
