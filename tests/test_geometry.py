"""Cells and the geometry of a space [1.2], [11.4]."""

from itertools import pairwise, product

import pytest

from gm.games.spaceships.geometry import (
    ALL_CELLS,
    LINE_DIRECTIONS,
    STANDARD,
    STEPS,
    Cell,
    Geometry,
    cells_of,
    is_axis,
    mask_of,
)
from support import cells


def test_space_has_125_cells_1_2_1():
    assert len(ALL_CELLS) == 125
    assert len({str(c) for c in ALL_CELLS}) == 125


def test_adjacent_means_sharing_a_face_1_2_3():
    a = Cell.parse("Yx3")
    neighbours = {str(c) for c in cells_of(STANDARD.adjacent_mask(a))}
    assert neighbours == {"Ox3", "Gx3", "Yw3", "Yy3", "Yx2", "Yx4"}
    assert STANDARD.adjacent(Cell.parse("Rv1"), Cell.parse("Ov1"))
    assert not STANDARD.adjacent(Cell.parse("Rv1"), Cell.parse("Ow1"))  # shares an edge only


def test_loosely_adjacent_means_any_face_edge_or_vertex_1_2_4():
    middle = Cell.parse("Yx3")
    assert bin(STANDARD.loose_mask(middle)).count("1") == 26
    assert STANDARD.loosely_adjacent(Cell.parse("Rv1"), Cell.parse("Ow2"))  # shares a vertex
    assert not STANDARD.loosely_adjacent(Cell.parse("Rv1"), Cell.parse("Yv1"))


def test_spaces_do_not_wrap_1_2_6():
    corner = Cell.parse("Rv1")
    assert bin(STANDARD.adjacent_mask(corner)).count("1") == 3
    assert bin(STANDARD.loose_mask(corner)).count("1") == 7
    assert not STANDARD.adjacent(Cell.parse("Rv1"), Cell.parse("Bv1"))
    assert not STANDARD.adjacent(Cell.parse("Rv1"), Cell.parse("Rz1"))


def test_colour_order_is_red_orange_yellow_green_blue_11_4_1():
    chain = cells("Rv1 Ov1 Yv1 Gv1 Bv1")
    for a, b in pairwise(chain):
        assert STANDARD.adjacent(a, b)


def test_another_colour_order_changes_adjacency():
    explanation = Geometry("RYGOB")  # the explanation's order R-Y-G-O-B
    assert explanation.adjacent(Cell.parse("Rv1"), Cell.parse("Yv1"))
    assert not explanation.adjacent(Cell.parse("Rv1"), Cell.parse("Ov1"))
    with pytest.raises(ValueError):
        Geometry("ROYGG")


def test_set_adjacency_1_2_5():
    assert STANDARD.set_adjacent(cells("Rv1 Rv2 Rv3"))
    assert not STANDARD.set_adjacent(cells("Rv1 Rv3"))
    assert STANDARD.set_loosely_adjacent(cells("Rv1 Ow2 Yx3"))
    assert not STANDARD.set_adjacent(cells("Rv1"))  # a set of several cells


def test_thirteen_line_directions():
    assert len(LINE_DIRECTIONS) == 13
    assert len(STEPS) == 26
    assert sum(is_axis(d) for d in LINE_DIRECTIONS) == 3


def test_line_of_three_in_every_direction_8_2_1():
    start = Cell.parse("Yx3")
    for step in STEPS:
        end = STANDARD.at(*(2 + 2 * v for v in step))
        line = STANDARD.line_of_three(start, end)
        assert line is not None and line[0] is start and line[2] is end
        assert STANDARD.set_loosely_adjacent(line)
    assert STANDARD.line_of_three(Cell.parse("Rv1"), Cell.parse("Rv2")) is None  # one step
    assert STANDARD.line_of_three(Cell.parse("Rv1"), Cell.parse("Rw3")) is None  # not a line
    assert STANDARD.line_of_three(Cell.parse("Rv1"), Cell.parse("Rv4")) is None  # three steps


def test_box_from_opposite_corners():
    assert STANDARD.box(Cell.parse("Rv1"), Cell.parse("Ow2")) == sorted(cells("Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2"))
    assert STANDARD.box(Cell.parse("Ow2"), Cell.parse("Rv1")) == STANDARD.box(Cell.parse("Rv1"), Cell.parse("Ow2"))


def test_masks_round_trip():
    chosen = cells("Rv1 Yx3 Bz5")
    assert cells_of(mask_of(chosen)) == sorted(chosen)


def test_adjacency_is_symmetric_and_matches_positions():
    for a, b in product(ALL_CELLS, repeat=2):
        pa, pb = STANDARD.position(a), STANDARD.position(b)
        distance = sum(abs(u - v) for u, v in zip(pa, pb))
        chebyshev = max(abs(u - v) for u, v in zip(pa, pb))
        assert STANDARD.adjacent(a, b) == (distance == 1)
        assert STANDARD.loosely_adjacent(a, b) == (chebyshev == 1)
