"""Grid Fighters notation: placements, moves, records, and the errors that
name the line, the column and what was expected."""

from __future__ import annotations

import re

import pytest

from gm.games.gridfighters import NOTATION_HELP, NotationError, Square, parse_move, parse_record, parse_setup
from gm.games.gridfighters.notation import LINE_EXAMPLES, TERMINALS, Move, Placement, parse_moves, parser


def test_square_parse_is_case_insensitive_and_prints_upper_case():
    assert Square.parse("e2") == Square.parse("E2") == Square(4, 1)
    assert str(Square.parse("j10")) == "J10"
    for bad in ("K1", "A11", "A0", "E", "2E"):
        with pytest.raises(ValueError):
            Square.parse(bad)


def test_setup_lines_with_commas_and_case():
    placements = parse_setup("z1 e1, Z2 E2, H A5\nw d8\n")
    assert placements == [Placement("Z1", Square.parse("E1")), Placement("Z2", Square.parse("E2")),
                          Placement("H", Square.parse("A5")), Placement("W", Square.parse("D8"))]
    assert [p.line for p in placements] == [1, 1, 1, 2]


def test_move_is_piece_square_dash_square():
    move = parse_move("z2 e2-a2")
    assert move == Move("Z2", Square.parse("E2"), Square.parse("A2"))
    assert (move.line, move.column) == (1, 1)
    assert str(move) == "Z2 E2-A2"
    assert parse_move("  X1 J10 - A10 ; comment") == Move("X1", Square.parse("J10"), Square.parse("A10"))


def _error(parse, text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        parse(text)
    error = caught.value
    assert error.line >= 1 and error.column >= 1 and error.expected, error
    assert re.match(rf"line {error.line}, column {error.column}: ", str(error))
    return error


def test_missing_dash_is_named_with_a_hint():
    error = _error(parse_move, "Z2 E2 A2")
    assert (error.line, error.column, error.text, error.expected) == (1, 7, "A2", ["'-'"])
    assert "dash" in error.hint


def test_piece_without_its_number():
    error = _error(parse_move, "Z E2-A2")
    assert (error.line, error.column, error.text) == (1, 1, "Z")
    assert "a piece such as Z2 or H" in error.expected
    assert "Z1 to Z4" in error.hint


@pytest.mark.parametrize("text, word, hint", [
    ("Z2 K1-A2", "K1", "rows run from A to J, not K"),
    ("Z2 A11-A2", "A11", "columns run from 1 to 10, not 11"),
    ("Z2 E2-A0", "A0", "columns run from 1 to 10, not 0"),
])
def test_square_out_of_range(text, word, hint):
    error = _error(parse_move, text)
    assert error.text == word and error.expected == ["a square such as E2"]
    assert error.hint == hint
    assert error.column == text.index(word) + 1


def test_more_than_one_move_names_the_second_line():
    error = _error(parse_move, "Z2 E2-A2\n\nZ3 E3-A3\n")
    assert (error.line, error.column) == (3, 1)
    assert error.hint == "one move per turn"


def test_no_move_at_all():
    error = _error(parse_move, "   \n")
    assert error.expected == ["a piece such as Z2 or H"]


def test_missing_destination_is_the_end_of_the_line():
    error = _error(parse_move, "Z2 E2-")
    assert (error.line, error.column, error.text) == (1, 7, "")
    assert error.expected == ["a square such as E2"]
    assert "the end of the text" in str(error)


def test_setup_needs_commas_between_placements():
    error = _error(parse_setup, "Z1 E1, Z2 E2\nZ3 E3 Z4 E4")
    assert (error.line, error.column, error.text) == (2, 7, "Z4")
    assert "commas" in error.hint


def test_glued_words_get_hints():
    assert "space" in _error(parse_move, "Z2E2-A2").hint
    assert "dash" in _error(parse_move, "Z2 E2A2").hint
    assert "W" in _error(parse_setup, "W1 E1").hint


def test_record_errors_name_the_record_line():
    text = "game gridfighters\nsetup 1\nH A5, Z1 E1\nsetup 2\nH J5\nfirst 1\n1: Z1 E1-Q1\n"
    error = _error(parse_record, text)
    assert (error.line, error.column, error.text) == (7, 10, "Q1")


def test_record_reads_every_part():
    record = parse_record("GAME gridfighters\nvariant standard+homes=3\nsetup 1\nZ1 E1 ; c\n\nsetup 2\nZ1 F1\n"
                          "first 2\n2: Z1 F1-F5\n1: z1 e1-e5\n")
    assert record.variant == "standard+homes=3" and record.first == 2
    assert [(m.player, str(m.move), m.line) for m in record.moves] == [(2, "Z1 F1-F5", 9), (1, "Z1 E1-E5", 10)]
    assert record.setups[0][0].line == 4


def test_record_setups_once_each():
    assert _error(parse_record, "setup 1\nsetup 1\n").hint == "each player's setup is given once"
    assert "'setup'" in _error(parse_record, "setup 1\nZ1 E1\n").expected


def test_help_examples_parse_and_come_from_the_grammar():
    """The help sheet and the error messages share their words, and every
    example in the help is notation the grammar reads."""
    starts = {"setup": parse_setup, "moves": parse_moves}
    for start, example, _ in LINE_EXAMPLES:
        assert starts[start](example)
    terminals = {t.name: t for t in parser().terminals}
    for name, (_, examples) in TERMINALS.items():
        assert name in terminals, f"{name} is described but is not in the grammar"
        for example in examples.split(" or "):
            assert re.fullmatch(terminals[name].pattern.to_regexp(), example), (name, example)
    for example, meaning in NOTATION_HELP:
        assert example and meaning
    named = {t.name for t in parser().terminals if not t.name.startswith("__") and t.name not in ("COMMENT",)}
    from gm.games.gridfighters.notation import _LITERALS
    assert named <= set(TERMINALS) | set(_LITERALS), named - set(TERMINALS) - set(_LITERALS)
