"""Grid Fighters notation, read with the Lark grammar in ``gridfighters.lark``.

`parse_setup`, `parse_move` and `parse_record` turn text into `Placement`,
`Move` and `Record`; on bad input they raise `NotationError` naming the
line, the column, the offending text and what was expected there, with a
hint for the usual slips (a missing dash, a piece without its number, a
square off the board). The descriptions the errors use are also the help
sheet's (`NOTATION_HELP`), so the two cannot drift apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ...kernel.errors import AT_END, NotationError, end_position
from ...kernel.parsing import parse_notation
from ..numbers import TOO_LARGE, whole_number
from .board import ROWS, Square

GRAMMAR = files("gm.games.gridfighters").joinpath("gridfighters.lark")
"""The grammar, read through the package: it ships beside this module."""

TERMINALS: dict[str, tuple[str, str]] = {
    "PIECE": ("a piece", "Z2 or H"),
    "SQUARE": ("a square", "E2"),
    "PLAYER": ("a player number", "1"),
    "PLAYER_TAG": ("a player's tag", "1:"),
    "GAME_NAME": ("a game name", "gridfighters"),
    "VARIANT_NAME": ("a variant name", "standard+homes=3"),
}
"""Each named terminal: what it is and an example. Errors say "a square such
as E2"; the help sheet shows the same words."""

_LITERALS = {
    "MINUS": "'-'", "COMMA": "','", "_NL": "the end of the line", "$END": "the end of the text",
    "GAME": "'game'", "VARIANT": "'variant'", "SETUP": "'setup'", "FIRST": "'first'",
}

LINE_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ("setup", "Z2 E2", "a setup placement: piece Z2 stands on E2"),
    ("setup", "Z1 E1, Z2 E2, H A5", "several placements on one line, separated by commas"),
    ("moves", "Z2 E2-A2", "a move: piece, the square it stands on, '-', its destination; "
                          "the opponent is told only Z2 and E2"),
)
"""Whole-line examples for the help sheet, each with the start rule that reads it."""


def _described(name: str) -> str:
    if name in TERMINALS:
        what, example = TERMINALS[name]
        return f"{what} such as {example}"
    return _LITERALS.get(name, f"'{name.lower()}'" if name.isalpha() else name)


NOTATION_HELP: list[tuple[str, str]] = (
    [(example, meaning) for _, example, meaning in LINE_EXAMPLES]
    + [(TERMINALS[name][1], TERMINALS[name][0]) for name in ("PIECE", "SQUARE")]
)
"""(example, meaning) pairs for the help sheet: whole lines first, then the
words they are made of, in the errors' own descriptions."""


@dataclass(frozen=True)
class Placement:
    """A setup placement: ``piece`` (upper case) stands on ``square``."""

    piece: str
    square: Square
    line: int = field(default=1, compare=False)


@dataclass(frozen=True)
class Move:
    """A move as written: ``piece`` leaves ``frm`` for ``to``. Only the piece
    and ``frm`` are announced to the opponent [procedure 2]."""

    piece: str
    frm: Square
    to: Square
    line: int = field(default=1, compare=False)
    column: int = field(default=1, compare=False)

    def __str__(self) -> str:
        return f"{self.piece} {self.frm}-{self.to}"


@dataclass(frozen=True)
class RecordMove:
    """One move line of a record: the player's tag and their move."""

    player: int
    move: Move
    line: int


@dataclass(frozen=True)
class Record:
    """A whole game as written down: see `gm.games.gridfighters.referee`."""

    variant: str
    setups: tuple[tuple[Placement, ...], tuple[Placement, ...]]
    first: int = 1
    moves: tuple[RecordMove, ...] = ()
    setup_lines: tuple[int, int] = (0, 0)




class _ToValues(Transformer):
    """Turns the parse tree into values in the same pass as parsing."""

    def placement(self, items: list[Token]) -> Placement:
        return Placement(items[0].upper(), Square.parse(items[1]), items[0].line or 1)

    def setup(self, items: list[Placement]) -> list[Placement]:
        return list(items)

    def move(self, items: list[Token]) -> Move:
        piece, frm, _, to = items
        return Move(piece.upper(), Square.parse(frm), Square.parse(to), piece.line or 1, piece.column or 1)

    def moves(self, items: list[Move]) -> list[Move]:
        return list(items)

    def game_line(self, items: list[Token]) -> tuple[str, str]:
        name = items[-1]
        if name.lower() != "gridfighters":
            raise NotationError(name.line or 1, name.column or 1, str(name), ["'gridfighters'"],
                                "this is the Grid Fighters referee")
        return ("game", str(name))

    def variant_line(self, items: list[Token]) -> tuple[str, str]:
        return ("variant", str(items[-1]))

    def setup_section(self, items: list[Any]) -> tuple[str, int, list[Placement], int]:
        player = items[0]
        return ("setup", int(player), list(items[1:]), player.line or 1)

    def first_line(self, items: list[Token]) -> tuple[str, int]:
        return ("first", int(items[-1]))

    def move_line(self, items: list[Any]) -> RecordMove:
        tag, move = items
        return RecordMove(int(tag[0]), move, tag.line or 1)

    def record(self, items: list[Any]) -> Record:
        variant, first = "standard", 1
        setups: dict[int, list[Placement]] = {}
        setup_lines: dict[int, int] = {}
        moves = []
        for item in items:
            if isinstance(item, RecordMove):
                moves.append(item)
            elif item[0] == "variant":
                variant = item[1]
            elif item[0] == "first":
                first = item[1]
            elif item[0] == "setup":
                _, player, placements, line = item
                if player in setups:
                    raise NotationError(line, 1, "", ["'setup 1' then 'setup 2'"],
                                        "each player's setup is given once", found=f"a second setup of player {player}")
                setups[player] = placements
                setup_lines[player] = line
        if sorted(setups) != [1, 2]:
            missing = "setup 1" if 1 not in setups else "setup 2"
            raise NotationError(AT_END, 1, "", [f"'{missing}'"], "a record gives both players' setups")
        return Record(variant, (tuple(setups[1]), tuple(setups[2])), first, tuple(moves),
                      (setup_lines[1], setup_lines[2]))


@cache
def parser() -> Lark:
    """The Lark parser (built once)."""
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        start=["setup", "moves", "record"],
        parser="lalr",
        lexer="contextual",
        transformer=_ToValues(),
        maybe_placeholders=False,
    )


# Spaces that mail clients put in text, each replaced by a plain space so
# that columns stay where they were; only \n ends a line.
def _parse(text: str, start: str) -> Any:
    return parse_notation(parser(), text, start, _explain)


def parse_setup(text: str) -> list[Placement]:
    """A player's setup lines, e.g. ``"Z1 E1, Z2 E2, H A5"``."""
    result: list[Placement] = _parse(text, "setup")
    return result


def parse_moves(text: str) -> list[Move]:
    """Any number of moves, one a line (the record's and tests' helper)."""
    result: list[Move] = _parse(text, "moves")
    return result


def parse_move(text: str) -> Move:
    """Exactly one move, e.g. ``"z2 e2-a2"``: a second move line is an error
    naming that line, since a player makes one move per turn [game play]."""
    moves = parse_moves(text)
    if not moves:
        line, column = end_position(text if text.endswith("\n") else text + "\n")
        raise NotationError(line, column, "", [_described("PIECE")],
                            "write the move as piece, square, '-', destination, such as Z2 E2-A2",
                            found="no move")
    if len(moves) > 1:
        second = moves[1]
        raise NotationError(second.line, second.column, str(second.piece), ["the end of the text"],
                            "one move per turn", found=f"a second move '{second}'")
    return moves[0]


def parse_record(text: str) -> Record:
    """A whole game record (see `gm.games.gridfighters.referee`)."""
    result: Record = _parse(text, "record")
    return result


# Errors and hints

_WORD = re.compile(r"[^\s,;-]+")


def _explain(error: UnexpectedInput, text: str) -> NotationError:
    line, column = error.line, error.column
    token_type = None
    if isinstance(error, UnexpectedCharacters):
        expected = sorted(error.allowed or ())
    elif isinstance(error, UnexpectedToken):
        expected = sorted(error.expected)
        token_type = error.token.type
        if token_type == "$END":
            line, column = end_position(text)
    else:  # UnexpectedEOF
        expected = sorted(getattr(error, "expected", ()))
        line, column = end_position(text)
    lines = text.split("\n")
    if not isinstance(line, int) or line < 1 or line > len(lines):
        line, column = end_position(text)
    source_line = lines[line - 1]
    match = _WORD.match(source_line, column - 1)
    word = match.group() if match else source_line[column - 1:column]
    at_end_of_line = column > len(source_line) or token_type == "_NL" or word.startswith(";")
    found = None
    if at_end_of_line:
        word = ""
        at_end_of_text = line >= len(text.rstrip("\n").split("\n"))
        found = "the end of the text" if at_end_of_text else "the end of the line"
    elif not word.isprintable() or word.isspace():
        found = f"the character U+{ord(word[0]):04X}"
    described: list[str] = []
    for name in expected:
        description = _described(name)
        if description not in described:
            described.append(description)
    return NotationError(line, column, word, described, hint_for(word, set(expected)), found)


_NUMBERED = {"A": "asteroids are A1 to A7", "X": "X fighters are X1 and X2", "Y": "Y fighters are Y1 and Y2",
             "Z": "Z fighters are Z1 to Z4", "H": "the home planet is H (H1 to H3 with three home planets)",
             "W": "there is one W fighter, written W", "B": "there is one B fighter, written B"}
_SQUARE_LIKE = re.compile(r"([A-Za-z])(\d+)")
_GLUED_SQUARES = re.compile(r"[A-J](10|[1-9])[A-J](10|[1-9])", re.I)
_GLUED_PIECE = re.compile(r"(H[1-3]?|A[1-7]|W|B|X[12]|Y[12]|Z[1-4])[A-J](10|[1-9])", re.I)


def hint_for(word: str, expected: frozenset[str] | set[str] = frozenset()) -> str | None:
    """A guess at what a mistyped word was meant to be, or None. ``expected``
    holds the grammar's terminal names that would have been accepted."""
    if not word:
        return None
    upper = word.upper()
    if "MINUS" in expected and _SQUARE_LIKE.fullmatch(word):
        return "write the destination after a dash, such as Z2 E2-A2"
    if word == "-" and "COMMA" in expected:
        return "a setup line places pieces, such as Z2 E2; it holds no moves"
    if _GLUED_SQUARES.fullmatch(word):
        return "put a dash between the two squares, such as E2-A2"
    if "PIECE" in expected:
        if _GLUED_PIECE.fullmatch(word):
            return "put a space between the piece and its square, such as Z2 E2"
        letter, digits = upper[:1], upper[1:]
        if letter in _NUMBERED and (digits.isdigit() or not digits):
            return _NUMBERED[letter]
        return "pieces are H, A1 to A7, W, B, X1 X2, Y1 Y2 and Z1 to Z4"
    if "SQUARE" in expected:
        match = _SQUARE_LIKE.fullmatch(word)
        if match:
            letter, number = match[1].upper(), whole_number(match[2])
            if letter not in ROWS:
                return f"rows run from A to J, not {letter}"
            if number is None:
                return f"columns run from 1 to 10 ({TOO_LARGE})"
            if not 1 <= number <= 10:
                return f"columns run from 1 to 10, not {number}"
        return "a square is a row A to J and a column 1 to 10, such as E2"
    if ("COMMA" in expected or "_NL" in expected) and upper[:1] in _NUMBERED:
        return "separate placements on a line with commas, such as Z1 E1, Z2 E2"
    return None
