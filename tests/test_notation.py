"""The conventional notation [11]: cells [11.4], orders [11.5], ship types and
setup lines [11.6], the plain-text game record, and the parser's error messages.

Expected values are written out literally from the rules text (the coordinate
alphabets of [11.4.1]-[11.4.3] are spelled here, not imported) so that a change
in the code cannot quietly change what the tests expect.
"""

from __future__ import annotations

import copy
import pickle
import random
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gm.games.spaceships.geometry import ALL_CELLS, Cell, Geometry
from gm.games.spaceships.notation import (
    NotationError,
    Record,
    hint_for,
    parse_order,
    parse_orders,
    parse_record,
    parse_setup,
)
from gm.games.spaceships.orders import (
    Beam,
    Kamikaze,
    Missile,
    MissileSelector,
    Placement,
    Scan,
    ShipRef,
    Strike,
    format_orders,
)
from gm.games.spaceships.ships import ShipType

RECORDS = Path(__file__).parent / "records"

# The coordinate values, in the order of the rules [11.4.1]-[11.4.3].
COLOURS = "ROYGB"
LETTERS = "vwxyz"
NUMBERS = "12345"
ALL_TEXTS = ["".join(t) for t in product(COLOURS, LETTERS, NUMBERS)]
TYPE_CODES = ["DS", "KC", "FS", "PC", "MD", "HS", "LS", "AG", "LG"]  # [6], [11.6]


def cell(text: str) -> Cell:
    """A cell built by the constructor from its three coordinates, not by a parser."""
    return Cell(text[0], text[1], int(text[2:]))


def error_of(parse, text: str) -> NotationError:
    with pytest.raises(NotationError) as info:
        parse(text)
    return info.value


def texts_of(values) -> list[str]:
    return [str(v) for v in values]


# ---------------------------------------------------------------------------
# Cells [11.4]


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_every_cell_parses_and_prints_back_11_4_4(text):
    c = Cell.parse(text)
    assert str(c) == text
    assert (c.colour, c.letter, c.number) == (text[0], text[1], int(text[2]))
    assert parse_orders(text) == [Strike(c)]
    assert str(parse_order(text)) == text


def test_there_are_125_distinct_cells_1_2_1_11_4():
    parsed = [Cell.parse(t) for t in ALL_TEXTS]
    assert len(set(map(id, parsed))) == 125
    assert sorted(texts_of(ALL_CELLS)) == sorted(ALL_TEXTS)


def test_case_is_significant_11_4_5():
    yellow = parse_order("Yy1").target
    assert (yellow.colour, yellow.letter, yellow.number) == ("Y", "y", 1)
    # Y is a colour and y a letter: they are not interchangeable.
    for slip in ["yY1", "yy1", "YY1", "Yv1".lower(), "RY3"]:
        with pytest.raises(NotationError):
            parse_orders(slip)
        with pytest.raises(ValueError):
            Cell.parse(slip)


def test_lower_case_yellow_gets_a_hint_naming_Y_11_4_5():
    error = error_of(parse_orders, "yy1")
    assert error.hint is not None and "Yy1" in error.hint
    error = error_of(parse_orders, "YY1")
    assert error.hint is not None and "Yy1" in error.hint


def test_cell_is_interned():
    a = Cell.parse("Gx3")
    assert Cell("G", "x", 3) is a
    assert Cell.parse("G" + "x" + "3") is a
    assert parse_order("Gx3").target is a
    assert Cell.from_index(a.index) is a


@pytest.mark.parametrize("bad", [("P", "v", 1), ("R", "a", 1), ("R", "v", 0), ("R", "v", 6), ("r", "v", 1)])
def test_cell_constructor_rejects_values_outside_11_4(bad):
    with pytest.raises(ValueError):
        Cell(*bad)


@pytest.mark.parametrize("bad", ["", "Rv", "Rv1 ", " Rv1", "rv1", "Rv01", "Rv6", "RV1"])
def test_cell_parse_rejects_non_cells(bad):
    with pytest.raises(ValueError):
        Cell.parse(bad)


def test_cell_is_immutable():
    c = Cell.parse("Bz5")
    with pytest.raises(AttributeError):
        c.colour = "R"
    with pytest.raises(AttributeError):
        c.number = 1
    with pytest.raises(AttributeError):
        c.anything = 1
    assert str(c) == "Bz5" and c.colour == "B" and c.number == 5


@pytest.mark.parametrize("text", ["Rv1", "Yy3", "Bz5", "Ow2"])
def test_cell_pickles_and_copies_to_the_same_object(text):
    c = Cell.parse(text)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(c, protocol)) is c
    assert copy.copy(c) is c
    assert copy.deepcopy(c) is c
    assert pickle.loads(pickle.dumps([c, c]))[1] is c


def test_cells_sort_by_index_colour_then_letter_then_number():
    shuffled = [Cell.parse(t) for t in ALL_TEXTS]
    random.Random(1).shuffle(shuffled)
    # ALL_TEXTS is built colour-major in the rules' order R O Y G B [11.4.1].
    assert texts_of(sorted(shuffled)) == ALL_TEXTS
    assert [c.index for c in sorted(shuffled)] == list(range(125))
    assert Cell.parse("Rv1") < Cell.parse("Rv2") < Cell.parse("Rw1") < Cell.parse("Ov1") < Cell.parse("Bz5")
    assert not Cell.parse("Ov1") < Cell.parse("Rz5")


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_cell_repr_evaluates_back(text):
    c = Cell.parse(text)
    assert text in repr(c)
    assert eval(repr(c), {"Cell": Cell}) is c


# ---------------------------------------------------------------------------
# Orders [11.5]

ORDER_EXAMPLES = [
    ("Rv1", Strike(cell("Rv1"))),  # [11.5.1]
    ("Bz5", Strike(cell("Bz5"))),
    ("bRv1Rx1", Beam(cell("Rv1"), cell("Rx1"))),  # [11.5.2]
    ("bRv1Rx1(DS2)", Beam(cell("Rv1"), cell("Rx1"), ShipRef(ShipType.DS, 2))),  # [11.5.2.1]
    ("bYx3Yx5(DS)", Beam(cell("Yx3"), cell("Yx5"), ShipRef(ShipType.DS, None))),
    ("mRv2", Missile(MissileSelector("R", "v", 2))),  # [11.5.3]
    ("mRv", Missile(MissileSelector("R", "v", None))),
    ("m2", Missile(MissileSelector(None, None, 2))),
    ("mv", Missile(MissileSelector(None, "v", None))),
    ("mR", Missile(MissileSelector("R", None, None))),
    ("mR2", Missile(MissileSelector("R", None, 2))),
    ("mv2", Missile(MissileSelector(None, "v", 2))),
    ("mYy5", Missile(MissileSelector("Y", "y", 5))),
    ("kGy3", Kamikaze(cell("Gy3"))),  # [11.5.5]
    ("sBz5", Scan(cell("Bz5"))),  # [11.5.4]
]


@pytest.mark.parametrize("text,value", ORDER_EXAMPLES, ids=[t for t, _ in ORDER_EXAMPLES])
def test_each_kind_of_order_parses_11_5(text, value):
    assert parse_orders(text) == [value]
    assert parse_order(text) == value
    assert str(parse_order(text)) == text


def test_beam_fields_11_5_2():
    beam = parse_order("bRv1Rx1(DS2)")
    assert isinstance(beam, Beam)
    assert (str(beam.start), str(beam.end)) == ("Rv1", "Rx1")
    assert beam.ship.type is ShipType.DS and beam.ship.identity == 2
    assert parse_order("bRv1Rx1").ship is None


def test_beam_ship_in_parentheses_may_have_spaces_but_prints_canonically_11_5_2_1():
    assert texts_of(parse_orders("bRv1Rx1 (DS2)")) == ["bRv1Rx1(DS2)"]
    assert texts_of(parse_orders("bRv1Rx1( DS2 )")) == ["bRv1Rx1(DS2)"]


@pytest.mark.parametrize(
    "selector,matches,misses",
    [
        ("mRv2", ["Rv2"], ["Rv3", "Ov2", "Rw2"]),
        ("mR2", ["Rv2", "Rz2"], ["Ov2", "Rv3"]),
        ("mv", ["Rv1", "Bv5"], ["Rw1"]),
        ("m2", ["Rv2", "Bz2"], ["Rv1"]),
    ],
)
def test_missile_selector_picks_out_launch_cells_11_5_3(selector, matches, misses):
    launch = parse_order(selector).launch
    assert all(launch.matches(cell(t)) for t in matches)
    assert not any(launch.matches(cell(t)) for t in misses)


def test_missile_launch_is_followed_by_its_target_as_a_strike_11_5_3():
    assert parse_orders("mRv2 Bz5") == [Missile(MissileSelector("R", "v", 2)), Strike(cell("Bz5"))]
    assert parse_orders("kGy3 Gy4") == [Kamikaze(cell("Gy3")), Strike(cell("Gy4"))]


@pytest.mark.parametrize("bad", ["m", "mvR", "m2R", "m2v", "mRR", "mRv6", "mRv23", "mq", "mr2", "mV", "mRv2x"])
def test_bad_missile_selectors_are_errors_11_5_3(bad):
    error = error_of(parse_orders, bad)
    assert (error.line, error.column) == (1, 1)


EXPECTED_SEPARATED = ["Rv1", "Rw1", "bRv1Rx1", "mR2", "sBz5"]


@pytest.mark.parametrize(
    "text",
    [
        "Rv1 Rw1 bRv1Rx1 mR2 sBz5",
        "Rv1,Rw1,bRv1Rx1,mR2,sBz5",
        "Rv1\nRw1\nbRv1Rx1\nmR2\nsBz5",
        "Rv1\tRw1\tbRv1Rx1\tmR2\tsBz5",
        "  Rv1 ,Rw1,\t bRv1Rx1\n\n mR2 ,, sBz5 \n",
        "Rv1\r\nRw1\r\nbRv1Rx1 mR2\r\nsBz5\r\n",
        "\n\nRv1, Rw1 ; the first two\n; a whole line of comment\nbRv1Rx1 mR2 ;; mRv2 Rx5\nsBz5;end",
    ],
    ids=["spaces", "commas", "newlines", "tabs", "mixed", "crlf", "comments"],
)
def test_separators_and_comments_11_5(text):
    assert texts_of(parse_orders(text)) == EXPECTED_SEPARATED


@pytest.mark.parametrize("text", ["", " ", "\n", "\n\n\t ,\n", "; nothing", "; one\n; two\n", ",,,", "\r\n"])
def test_no_orders_is_an_empty_list_11_5(text):
    assert parse_orders(text) == []


def test_comment_hides_what_would_be_an_error():
    assert texts_of(parse_orders("Rv1 ; Rv9 rv1 bRv1 !!!")) == ["Rv1"]


@pytest.mark.parametrize("glued", ["Rv1Rw1", "kGy3Rv1", "sBz5Rv1", "Bz5sBz5", "bRv1Rx1Rw1", "mRv2Bz5", "Rv1bRv1Rx1"])
def test_glued_orders_are_an_error_11_5(glued):
    error = error_of(parse_orders, "Ow1 " + glued)
    assert (error.line, error.column, error.text) == (1, 5, glued)


def test_parse_order_wants_exactly_one_order():
    with pytest.raises(ValueError):
        parse_order("Rv1 Rw1")
    with pytest.raises(ValueError):
        parse_order("")
    with pytest.raises(NotationError):
        parse_order("Rv9")


# Round trip: values -> text -> values

cells_st = st.sampled_from(ALL_TEXTS).map(cell)
ship_refs = st.builds(ShipRef, st.sampled_from(list(ShipType)), st.none() | st.integers(1, 999))
selectors = st.tuples(
    st.none() | st.sampled_from(COLOURS),
    st.none() | st.sampled_from(LETTERS),
    st.none() | st.integers(1, 5),
).filter(lambda t: t != (None, None, None)).map(lambda t: MissileSelector(*t))
order_values = st.one_of(
    st.builds(Strike, cells_st),
    st.builds(Beam, cells_st, cells_st, st.none() | ship_refs),
    st.builds(Missile, selectors),
    st.builds(Kamikaze, cells_st),
    st.builds(Scan, cells_st),
)


@settings(deadline=None)
@given(st.lists(order_values, max_size=30))
def test_orders_round_trip_through_text(orders):
    text = format_orders(orders)
    parsed = parse_orders(text)
    assert parsed == orders
    assert texts_of(parsed) == text.split()


# Round trip: text -> values -> text, the text built from the rules' alphabets.

cell_texts = st.sampled_from(ALL_TEXTS)
ship_texts = st.builds(lambda t, n: t + n, st.sampled_from(TYPE_CODES),
                       st.sampled_from(["", "1", "2", "3", "10", "42"]))
selector_texts = st.builds(
    lambda c, le, n: "m" + c + le + n,
    st.sampled_from(["", *COLOURS]),
    st.sampled_from(["", *LETTERS]),
    st.sampled_from(["", *NUMBERS]),
).filter(lambda t: t != "m")
order_texts = st.one_of(
    cell_texts,
    st.builds(lambda a, b: f"b{a}{b}", cell_texts, cell_texts),
    st.builds(lambda a, b, s: f"b{a}{b}({s})", cell_texts, cell_texts, ship_texts),
    selector_texts,
    st.builds(lambda a: "k" + a, cell_texts),
    st.builds(lambda a: "s" + a, cell_texts),
)
separators = st.sampled_from([" ", ",", ", ", "\n", "\t", " ,\t", "\r\n", " ; a comment\n", "\n\n"])


@settings(deadline=None)
@given(st.lists(st.tuples(order_texts, separators), max_size=30))
def test_each_parsed_order_prints_the_text_it_came_from(pieces):
    text = "".join(word + sep for word, sep in pieces)
    parsed = parse_orders(text)
    assert texts_of(parsed) == [word for word, _ in pieces]
    kinds = {"b": Beam, "m": Missile, "k": Kamikaze, "s": Scan}
    for value, (word, _) in zip(parsed, pieces):
        assert type(value) is kinds.get(word[0], Strike)


# ---------------------------------------------------------------------------
# Setup lines [2.1], [11.6]


@pytest.mark.parametrize("code", TYPE_CODES)
def test_every_ship_type_code_11_6(code):
    placement = parse_setup(f"{code} Rv1")[0]
    assert placement.type is ShipType[code]
    assert placement.identity is None
    assert str(placement) == f"{code} Rv1"
    numbered = parse_setup(f"{code}2 Rv1 Rv2")[0]
    assert (numbered.type, numbered.identity) == (ShipType[code], 2)
    assert str(numbered) == f"{code}2 Rv1 Rv2"


def test_identity_follows_type_immediately_11_6_2():
    assert parse_setup("FS12 Bv1")[0].identity == 12
    for bad in ["FS 2 Bv1", "FS0 Bv1", "FS01 Bv1", "fs2 Bv1", "Fs Bv1", "XX Bv1", "FSBv1", "FS2Bv1"]:
        with pytest.raises(NotationError):
            parse_setup(bad)


def test_setup_line_forms():
    (p,) = parse_setup("MD Yz1 Yz2 Yz3")
    assert p.written == (cell("Yz1"), cell("Yz2"), cell("Yz3"))
    (p,) = parse_setup("KC Rv1-Rw3")
    assert p.written == ((cell("Rv1"), cell("Rw3")),)
    (p,) = parse_setup("DS Rv1-Ow2 Bz5, Bz4")
    assert p.written == ((cell("Rv1"), cell("Ow2")), cell("Bz5"), cell("Bz4"))
    assert str(p) == "DS Rv1-Ow2 Bz5 Bz4"


@pytest.mark.parametrize("line",
                         ["KC Rv1-Rw3", "FS2 Bv1-Bw2", "DS Yx3-Gy4", "PC Bv5-By5", "AG Gv1 Gv2", "DS3 Rv1-Rw2 Ov1-Ow2"])
def test_box_shorthand_prints_back_as_written(line):
    assert texts_of(parse_setup(line)) == [line]


def test_box_expands_to_the_cells_between_two_opposite_corners():
    (kc,) = parse_setup("KC Rv1-Rw3")
    assert texts_of(kc.cells()) == ["Rv1", "Rv2", "Rv3", "Rw1", "Rw2", "Rw3"]
    (pc,) = parse_setup("PC Bv5-By5")
    assert texts_of(pc.cells()) == ["Bv5", "Bw5", "Bx5", "By5"]


CUBE = ["Rv1", "Rv2", "Rw1", "Rw2", "Ov1", "Ov2", "Ow1", "Ow2"]


@pytest.mark.parametrize("corners",
                         ["Rv1-Ow2", "Ow2-Rv1", "Rv2-Ow1", "Ow1-Rv2", "Rw1-Ov2", "Ov2-Rw1", "Rw2-Ov1", "Ov1-Rw2"])
def test_cube_box_corner_order_does_not_matter(corners):
    (ds,) = parse_setup(f"DS {corners}")
    assert sorted(texts_of(ds.cells()), key=ALL_TEXTS.index) == CUBE
    assert len(ds.cells()) == 8
    assert str(ds) == f"DS {corners}"


def test_single_cell_box_and_repeats_are_kept_in_written_order():
    (p,) = parse_setup("LS Bz5-Bz5 Rv1 Bz5")
    assert texts_of(p.cells()) == ["Bz5", "Rv1", "Bz5"]


def test_box_follows_the_variants_colour_order():
    (p,) = parse_setup("KC Rv1-Ow1")
    assert set(texts_of(p.cells())) == {"Rv1", "Rw1", "Ov1", "Ow1"}
    # With the colours ordered R Y G O B, Red and Orange are three apart.
    assert set(texts_of(p.cells(Geometry("RYGOB")))) == {
        f"{c}{le}1" for c in "RYGO" for le in "vw"
    }


@settings(deadline=None)
@given(cell_texts, cell_texts)
def test_box_has_the_size_of_its_corners_span(a, b):
    (p,) = parse_setup(f"DS {a}-{b}")
    got = texts_of(p.cells())
    spans = [sorted((axis.index(a[i]), axis.index(b[i]))) for i, axis in enumerate((COLOURS, LETTERS, NUMBERS))]
    expected = {
        COLOURS[c] + LETTERS[le] + NUMBERS[n]
        for c in range(spans[0][0], spans[0][1] + 1)
        for le in range(spans[1][0], spans[1][1] + 1)
        for n in range(spans[2][0], spans[2][1] + 1)
    }
    assert sorted(got) == sorted(expected)
    assert len(got) == len(expected)


@pytest.mark.parametrize(
    "bad",
    ["KC", "KC Rv1-", "KC -Rv1", "KC Rv1--Rw3", "KC Rv1-Rw3-Rx3", "Rv1 Rw1", "KC Rv1 FS Rw1", "KCRv1", "KC Rv1Rw1",
     "KC Rv6"],
)
def test_bad_setup_lines_are_errors(bad):
    with pytest.raises(NotationError):
        parse_setup(bad)


def test_setup_many_lines_with_comments_and_blank_lines():
    text = "\n; my fleet\nDS Rv1-Ow2   ; the cube\n\nKC Gv1-Gx2\nFS2 Bv1-Bw2\n\nMD Yz1 Yz2 Yz3\n; done\n"
    assert texts_of(parse_setup(text)) == ["DS Rv1-Ow2", "KC Gv1-Gx2", "FS2 Bv1-Bw2", "MD Yz1 Yz2 Yz3"]
    assert parse_setup("") == []
    assert parse_setup("; only a comment") == []


placement_values = st.builds(
    Placement,
    st.sampled_from(list(ShipType)),
    st.none() | st.integers(1, 99),
    st.lists(cells_st | st.tuples(cells_st, cells_st), min_size=1, max_size=8).map(tuple),
)


@settings(deadline=None)
@given(placement_values)
def test_placement_round_trips(placement):
    text = str(placement)
    assert parse_setup(text) == [placement]
    assert texts_of(parse_setup(text)) == [text]


@settings(deadline=None)
@given(st.lists(placement_values, max_size=12), st.sampled_from(["\n", "\r\n", "\n\n", " ; note\n"]))
def test_setup_of_many_lines_round_trips(placements, end):
    text = "".join(str(p) + end for p in placements)
    assert parse_setup(text) == placements
    assert parse_setup(text.rstrip()) == placements


# ---------------------------------------------------------------------------
# Errors: position, offending text, what was expected, and hints


def assert_message(error: NotationError, line: int, column: int, text: str):
    assert (error.line, error.column, error.text) == (line, column, text)
    message = str(error)
    assert f"line {line}" in message
    assert f"column {column}" in message
    assert f"'{text}'" in message
    assert isinstance(error.expected, list) and error.expected
    assert all(isinstance(e, str) and e for e in error.expected)
    if error.hint:
        assert error.hint in message


@pytest.mark.parametrize(
    "text,line,column,word",
    [
        ("Rv6", 1, 1, "Rv6"),
        ("Rv1 Rw1 Rx6", 1, 9, "Rx6"),
        ("Rv1, bRv1Rx1(DS2),Ow0 Rv1", 1, 19, "Ow0"),
        ("Rv1\nRw6", 2, 1, "Rw6"),
        ("Rv1\n  Rw1 mq Rv2", 2, 7, "mq"),
        ("Rv1\nRw1\nRx1, Rv0", 3, 6, "Rv0"),
        ("Rv1 ; Rv7\n\n; Rv8\nRx1 rx1", 4, 5, "rx1"),
        ("\tRv6", 1, 2, "Rv6"),
        ("Rv1\r\nRw1\r\nRx9", 3, 1, "Rx9"),
    ],
)
def test_orders_error_names_line_column_and_text(text, line, column, word):
    error = error_of(parse_orders, text)
    assert_message(error, line, column, word)
    assert "a cell such as Rv1" in error.expected


def test_setup_error_on_third_line():
    error = error_of(parse_setup, "KC Rv1-Rw3\nFS Bv1-Bw2\nLS Rv9")
    assert_message(error, 3, 4, "Rv9")
    assert error.expected == ["a cell such as Rv1"]
    assert "1 to 5" in error.hint


def test_setup_error_mid_box():
    error = error_of(parse_setup, "KC Rv1-rw3")
    assert_message(error, 1, 8, "rw3")
    assert "Rw3" in error.hint


def test_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)
    with pytest.raises(ValueError):
        parse_orders("Rv9")


@pytest.mark.parametrize(
    "word,fragments",
    [
        ("rv1", ["Rv1", "[11.4.5]"]),  # lower-case colour
        ("gy3", ["Gy3"]),
        ("Rv6", ["1 to 5", "6"]),  # number out of range [11.4.3]
        ("Rv0", ["1 to 5", "0"]),
        ("Rv12", ["1 to 5", "12"]),
        ("Rv", ["Rv", "number"]),  # a missing coordinate [11.4]
        ("R1", ["R1", "letter"]),
        ("v1", ["v1", "colour"]),
        ("RV1", ["Rv1", "lower case"]),  # upper-case letter [11.4.5]
        ("Rq1", ["q"]),
        ("Pv1", ["P"]),
        ("bRv1", ["both end cells", "bRv1Rx1"]),  # one end cell [11.5.2]
        ("mRR", ["m", "mRv2", "[11.5.3]"]),  # bad missile selector
        ("m2v", ["[11.5.3]"]),
        ("mvR", ["[11.5.3]"]),
        ("Rv1Rw1", ["separate"]),  # glued orders [11.5]
        ("kGy3Rv1", ["separate"]),
        ("sbz5", ["Bz5"]),
        ("kGy", ["Gy", "number"]),
    ],
)
def test_hints_for_common_slips(word, fragments):
    for text, column in [(word, 1), (f"Rv1 {word}", 5)]:
        error = error_of(parse_orders, text)
        assert_message(error, 1, column, word)
        assert error.hint, f"no hint for {word!r}"
        for fragment in fragments:
            assert fragment in error.hint
        assert f"Hint: {error.hint}" in str(error)


@pytest.mark.parametrize("word", ["xyz", "!!", "é", "Rv1x"])
def test_no_hint_for_nonsense_but_still_a_message(word):
    error = error_of(parse_orders, word)
    assert_message(error, 1, 1, word)
    assert error.hint is None
    assert "Hint" not in str(error)


def test_hint_for_ship_type_slips_11_6():
    error = error_of(parse_setup, "kc Rv1")
    assert_message(error, 1, 1, "kc")
    assert "FS2" in error.hint and "[11.6]" in error.hint


def test_hint_for_nothing_is_none():
    assert hint_for("") is None


def test_missing_closing_parenthesis_expects_it():
    error = error_of(parse_orders, "bRv1Rx1(DS2")
    assert (error.line, error.column) == (1, 12)
    assert error.expected == ["')'"]


# --- Hints and messages for slips found in review ---------------------------


def test_beam_hint_names_the_bad_end_not_the_good_one_11_5_2():
    error = error_of(parse_orders, "bRv1Rx6")
    assert "not R" not in error.hint
    assert "1 to 5" in error.hint and "6" in error.hint


def test_beam_hint_suggests_capital_colour_for_second_end_11_4_5():
    error = error_of(parse_orders, "bRv1rx1")
    assert "Rx1" in error.hint


def test_a_correct_cell_where_a_ship_type_belongs_gets_no_false_hint():
    error = error_of(parse_setup, "Rv1 Rw1")
    assert_message(error, 1, 1, "Rv1")
    assert error.hint is None or "not R" not in error.hint


def test_glued_missile_and_target_hint_says_separate_11_5_3():
    error = error_of(parse_orders, "mRv2Bz5")
    assert "separate" in error.hint


@pytest.mark.parametrize("space", ["\xa0", "\x0b", "\x0c", "\r", "\u2028", "\u200b", "\ufeff"])
def test_spaces_that_mail_clients_insert_separate_orders(space):
    """A no-break space pasted from a mail, or a stray carriage return, is
    white space to a player; it separates orders and keeps the columns."""
    assert [str(o) for o in parse_orders(f"Rv1{space}Rw1")] == ["Rv1", "Rw1"]
    error = error_of(parse_orders, f"Rv1{space}Rv9")
    assert (error.line, error.column, error.text) == (1, 5, "Rv9")


@pytest.mark.parametrize("char", ["\x01", "\x1b", "\u00e9"])
def test_an_odd_character_is_named_not_called_the_end_of_the_text(char):
    error = error_of(parse_orders, f"Rv1 {char}Rw1")
    assert (error.line, error.column) == (1, 5)
    assert "end of the text" not in str(error)


def test_end_of_line_is_not_called_the_end_of_the_text():
    error = error_of(parse_setup, "KC\nFS Rv1")
    assert (error.line, error.column) == (1, 3)
    assert "end of the text" not in str(error)


def test_offending_ship_in_parentheses_excludes_the_parenthesis():
    error = error_of(parse_orders, "bRv1Rx1(DS0)")
    assert (error.line, error.column) == (1, 9)
    assert error.text == "DS0"


# ---------------------------------------------------------------------------
# Records

SAMPLE_SETUP_1 = ["DS Rv1-Ow2", "KC Gv1-Gx2", "FS Bv1-Bw2", "MD Yz1 Yz2 Yz3", "LS Bz5"]
SAMPLE_SETUP_2 = ["DS Yx3-Gy4", "KC Rv1-Rx2", "PC Bv5-By5", "MD Ov3 Ow3 Ox3", "HS Gz1 Gz2"]
SAMPLE_TURNS = [
    (1, "bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
    (2, "bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"),
    (3, "Gz1 Gz2", "Ov1"),
]

MINIMAL = "setup 1\nKC Rv1-Rw3\nsetup 2\nFS Bv1-Bw2\n"


def test_sample_record_parses():
    text = (RECORDS / "standard-win.rec").read_text()
    lines = text.splitlines()
    line_of = lambda start: next(i + 1 for i, line in enumerate(lines) if line.startswith(start))  # noqa: E731
    record = parse_record(text)
    assert isinstance(record, Record)
    assert record.variant == "2.6.1"
    assert texts_of(record.setups[0]) == SAMPLE_SETUP_1
    assert texts_of(record.setups[1]) == SAMPLE_SETUP_2
    assert [(t.number, format_orders(t.orders[0]), format_orders(t.orders[1])) for t in record.turns] == SAMPLE_TURNS
    first = record.turns[0].orders[0]
    assert isinstance(first[0], Beam) and isinstance(first[8], Missile) and isinstance(first[10], Scan)
    assert all(isinstance(o, Strike) for o in first[1:8])
    assert record.setup_lines == (line_of("setup 1"), line_of("setup 2"))
    turn_lines = [line_of(f"turn {n}") for n in (1, 2, 3)]
    assert [t.line for t in record.turns] == turn_lines
    assert [t.order_lines for t in record.turns] == [(n + 1, n + 2) for n in turn_lines]


def test_variant_is_optional_and_defaults_to_2_6_1():
    record = parse_record(MINIMAL)
    assert record.variant == "2.6.1"
    assert texts_of(record.setups[0]) == ["KC Rv1-Rw3"]
    assert texts_of(record.setups[1]) == ["FS Bv1-Bw2"]
    assert record.turns == ()
    assert parse_record("variant 2.6.1+fleet=40\n" + MINIMAL).variant == "2.6.1+fleet=40"


def test_empty_orders_lines_are_allowed():
    record = parse_record(MINIMAL + "turn 1\n1:\n2:\nturn 2\n1: Rv1\n2:")
    assert [t.orders for t in record.turns] == [([], []), ([Strike(cell("Rv1"))], [])]
    assert [t.number for t in record.turns] == [1, 2]


def test_orders_may_follow_the_tag_without_a_space():
    record = parse_record(MINIMAL + "turn 1\n1:Rv1\n2:Rw2,Rx2\n")
    assert texts_of(record.turns[0].orders[0]) == ["Rv1"]
    assert texts_of(record.turns[0].orders[1]) == ["Rw2", "Rx2"]


def test_comments_and_blank_lines_anywhere_in_a_record():
    text = (
        "; head\n\n"
        "variant 2.6.1 ; the default\n\n; between\n"
        "setup 1 ; mine\n\nKC Rv1-Rw3 ; kc\n; inside\n\n"
        "setup 2\n; theirs\nFS Bv1-Bw2\n\n\n"
        "turn 1 ; first\n\n1: Rv1 mR2 ; one\n; between the players\n\n2: Rw2\n\n; tail\n"
    )
    record = parse_record(text)
    assert record.variant == "2.6.1"
    assert texts_of(record.setups[0]) == ["KC Rv1-Rw3"]
    assert texts_of(record.setups[1]) == ["FS Bv1-Bw2"]
    assert [(t.number, texts_of(t.orders[0]), texts_of(t.orders[1])) for t in record.turns] == [
        (1, ["Rv1", "mR2"], ["Rw2"])
    ]
    assert record.setup_lines == (6, 11)
    assert record.turns[0].line == 16
    assert record.turns[0].order_lines == (18, 21)


def test_record_with_crlf_line_ends():
    record = parse_record((MINIMAL + "turn 1\n1: Rv1\n2: Rw2\n").replace("\n", "\r\n"))
    assert texts_of(record.setups[1]) == ["FS Bv1-Bw2"]
    assert texts_of(record.turns[0].orders[1]) == ["Rw2"]


def test_setups_are_assigned_by_player_number():
    record = parse_record("setup 2\nFS Bv1-Bw2\nsetup 1\nKC Rv1-Rw3\n")
    assert texts_of(record.setups[0]) == ["KC Rv1-Rw3"]
    assert texts_of(record.setups[1]) == ["FS Bv1-Bw2"]
    assert record.setup_lines == (3, 1)


def test_missing_setup_2_is_an_error():
    error = error_of(parse_record, "setup 1\nKC Rv1-Rw3\n")
    assert error.line == 2
    assert any("setup" in e for e in error.expected)
    assert "line 2" in str(error)


def test_duplicated_setup_1_is_an_error_on_its_line():
    error = error_of(parse_record, "setup 1\nKC Rv1-Rw3\nsetup 1\nFS Bv1-Bw2\n")
    assert error.line == 3
    assert "line 3" in str(error)
    assert error.hint and "once" in error.hint


def test_duplicated_setup_1_before_setup_2_points_at_the_duplicate():
    error = error_of(parse_record, "setup 1\nKC Rv1-Rw3\nsetup 1\nFS Bv1-Bw2\nsetup 2\nLS Bz5\n")
    assert error.line == 3


def test_player_2_before_player_1_is_an_error():
    error = error_of(parse_record, MINIMAL + "turn 1\n2: Rv1\n1: Rw1\n")
    assert (error.line, error.column) == (6, 1)
    assert "line 6" in str(error)
    assert error.hint and "player 1" in error.hint


def test_player_1_twice_is_an_error():
    error = error_of(parse_record, MINIMAL + "turn 1\n1: Rv1\n1: Rw1\n")
    assert error.line == 6


def test_turn_with_only_player_1_is_an_error():
    error = error_of(parse_record, MINIMAL + "turn 1\n1: Rv1\n")
    assert error.line == 6
    assert "'1:' or '2:'" in error.expected


def test_bad_order_in_a_record_names_its_line():
    error = error_of(parse_record, MINIMAL + "turn 1\n1: Rv1\n2: Rw1 Rv6\n")
    assert_message(error, 7, 8, "Rv6")
    assert "1 to 5" in error.hint


def test_bad_setup_cell_in_a_record_names_its_line():
    error = error_of(parse_record, "setup 1\nKC Rv1-Rw3\nsetup 2\nFS Ov1-ow2\n")
    assert_message(error, 4, 8, "ow2")
    assert "Ow2" in error.hint


@pytest.mark.parametrize("parse,text,line,column,word", [
    (parse_orders, "Rv1 bz5", 1, 5, "bz5"),
    (parse_record, "setup 1\nKC Rv1-Rw3\nsetup 2\nFS Bv1-bw2\n", 4, 8, "bw2"),
])
def test_lower_case_blue_gets_the_capital_colour_hint_11_4_5(parse, text, line, column, word):
    error = error_of(parse, text)
    assert_message(error, line, column, word)
    assert word[0].upper() + word[1:] in error.hint


@pytest.mark.parametrize("text",
                         ["", "; nothing\n", "setup 3\nKC Rv1\nsetup 2\n", "variant\n" + MINIMAL, "turn 1\n1:\n2:\n"])
def test_other_unreadable_records(text):
    error = error_of(parse_record, text)
    assert error.line >= 1 and error.column >= 1 and error.expected


# ---------------------------------------------------------------------------
# Robustness: any text gives a value or a NotationError, never anything else


def check_error(error: NotationError, text: str):
    assert isinstance(error, ValueError)
    assert error.line >= 1 and error.column >= 1
    assert error.expected and all(isinstance(e, str) and e for e in error.expected)
    lines = text.split("\n")
    assert error.line <= len(lines) + 1
    if error.text and error.line <= len(lines):
        assert lines[error.line - 1][error.column - 1:].startswith(error.text)
    assert f"line {error.line}, column {error.column}" in str(error)


def parse_or_error(parse, text):
    try:
        parse(text)
    except NotationError as error:
        check_error(error, text)


fragments = st.sampled_from([
    "Rv1", "bRv1Rx1", "(DS2)", "(", ")", "mRv2", "m2", "m", "kGy3", "sBz5", "KC", "FS2", "Rv1-Rw3", "-",
    "setup", "1", "2", "turn", "1:", "2:", "variant", "2.6.1", "\n", " ", ",", ";c", "\t", "\r",
    "Rv9", "rv1", "RV1", "\xa0", "\x00", "\x0b", "é", "\u2028", "\U0001f680",
])
tricky = st.one_of(
    st.text(),
    st.text(st.characters(), min_size=200, max_size=3000),
    st.lists(fragments, max_size=60).map("".join),
    st.lists(fragments | st.text(max_size=3), max_size=60).map("".join),
)


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(tricky)
def test_parse_orders_never_crashes(text):
    parse_or_error(parse_orders, text)


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(tricky)
def test_parse_setup_never_crashes(text):
    parse_or_error(parse_setup, text)


def test_a_setup_given_twice_points_at_the_second_as_written():
    """Found by the property below: the error named 'setup 1' where the
    record wrote SETUP1; it now says what it found without quoting it."""
    text = "SETUP1\nSETUP1"
    error = error_of(parse_record, text)
    check_error(error, text)
    assert (error.line, error.column, error.hint) == (2, 1, "each player's setup is given once")


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(tricky, tricky.map(lambda t: MINIMAL + t), tricky.map(lambda t: MINIMAL + "turn 1\n1: " + t)))
def test_parse_record_never_crashes(text):
    parse_or_error(parse_record, text)


@settings(deadline=None)
@given(st.text())
def test_hint_for_never_crashes(word):
    hint = hint_for(word)
    assert hint is None or (isinstance(hint, str) and hint)


def test_very_long_lines():
    assert len(parse_orders("Rv1 " * 20000)) == 20000
    error = error_of(parse_orders, "Rv1 " * 10000 + "Rv9")
    assert (error.line, error.column, error.text) == (1, 40001, "Rv9")
    error = error_of(parse_orders, "x" * 100000)
    assert (error.line, error.column) == (1, 1)
    error = error_of(parse_orders, "\n" * 5000 + "Rv9")
    assert (error.line, error.column) == (5001, 1)


@pytest.mark.parametrize(
    "parse,text",
    [
        (parse_setup, "DS" + "1" * 5000 + " Rv1"),
        (parse_orders, "bRv1Rx1(DS" + "1" * 5000 + ")"),
        (parse_record, MINIMAL + "turn " + "1" * 5000 + "\n1:\n2:\n"),
    ],
    ids=["setup-identity", "beam-ship", "turn-number"],
)
def test_huge_numbers_give_a_notation_error(parse, text):
    with pytest.raises(NotationError):
        parse(text)
