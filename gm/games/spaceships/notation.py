"""Parsing conventional notation [11] with the Lark grammar in ``notation.lark``.

`parse_orders`, `parse_setup` and `parse_record` turn text into the value
types of `gm.orders`; on bad input they raise `NotationError`, which names
the line, the column, the offending text and what was expected, with a hint
for the usual slips.
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
from .geometry import COLOURS, LETTERS, Cell
from .orders import Beam, Kamikaze, Missile, MissileSelector, Order, Placement, Scan, ShipRef, Strike
from .ships import ShipType

GRAMMAR = files(__package__).joinpath("notation.lark")
"""The grammar, read through the package: it ships beside this module."""

_DESCRIBE = {
    "CELL": "a cell such as Rv1",
    "BEAM": "a beam such as bRv1Rx1",
    "MISSILE": "a missile launch such as mRv2 or m2",
    "KAMIKAZE": "a kamikaze launch such as kGy3",
    "SCAN": "a scan such as sBz5",
    "SHIP": "a ship type such as KC or FS2",
    "PLAYER": "a player number, 1 or 2",
    "PLAYER_TAG": "'1:' or '2:'",
    "TURN_NUMBER": "a turn number",
    "VARIANT_NAME": "a variant name such as 2.6.1",
    "_NL": "the end of the line",
    "$END": "the end of the text",
    "MINUS": "'-'",
    "LPAR": "'('",
    "RPAR": "')'",
    "SETUP": "'setup'",
    "TURN": "'turn'",
    "VARIANT": "'variant'",
}


def _ship_ref(token: Token) -> ShipRef:
    return ShipRef(ShipType[token[:2]], int(token[2:]) if len(token) > 2 else None)


class _ToValues(Transformer):
    """Turns the parse tree into `gm.orders` values in the same pass as parsing."""

    def strike(self, items: list[Token]) -> Strike:
        return Strike(Cell.parse(items[0]))

    def beam(self, items: list) -> Beam:
        text = items[0]
        ship = _ship_ref(items[1]) if len(items) > 1 else None
        return Beam(Cell.parse(text[1:4]), Cell.parse(text[4:7]), ship)

    def missile(self, items: list[Token]) -> Missile:
        text = items[0][1:]
        colour = text[0] if text[:1] and text[0] in COLOURS else None
        text = text[colour is not None:]
        letter = text[0] if text[:1] and text[0] in LETTERS else None
        text = text[letter is not None:]
        return Missile(MissileSelector(colour, letter, int(text) if text else None))

    def kamikaze(self, items: list[Token]) -> Kamikaze:
        return Kamikaze(Cell.parse(items[0][1:]))

    def scan(self, items: list[Token]) -> Scan:
        return Scan(Cell.parse(items[0][1:]))

    def orders(self, items: list[Order]) -> list[Order]:
        return list(items)

    def box(self, items: list[Token]) -> tuple[Cell, Cell]:
        return (Cell.parse(items[0]), Cell.parse(items[1]))

    def placement(self, items: list) -> Placement:
        ship = _ship_ref(items[0])
        written = tuple(i if isinstance(i, tuple) else Cell.parse(i) for i in items[1:])
        return Placement(ship.type, ship.identity, written, items[0].line)

    def setup(self, items: list[Placement]) -> list[Placement]:
        return list(items)

    # The record

    def variant(self, items: list[Token]) -> tuple[str, str]:
        return ("variant", str(items[-1]))

    def setup_section(self, items: list) -> tuple[str, int, list[Placement], int]:
        player = items[0]
        return ("setup", int(player), list(items[1:]), player.line)

    def player_orders(self, items: list) -> tuple[int, list[Order], int]:
        tag = items[0]
        return (int(tag[0]), list(items[1:]), tag.line)

    def turn_section(self, items: list) -> RecordTurn:
        number = items[0]
        (p1, orders1, line1), (p2, orders2, line2) = items[1], items[2]
        if (p1, p2) != (1, 2):
            raise NotationError(line1, 1, f"{p1}:", ["'1:' then '2:'"],
                                "each turn lists player 1's orders, then player 2's")
        return RecordTurn(int(number), (orders1, orders2), number.line, (line1, line2))

    def record(self, items: list) -> Record:
        variant = "2.6.1"
        setups: dict[int, list[Placement]] = {}
        setup_lines: dict[int, int] = {}
        turns = []
        for item in items:
            if isinstance(item, RecordTurn):
                turns.append(item)
            elif item[0] == "variant":
                variant = item[1]
            else:
                _, player, placements, line = item
                if player in setups:
                    raise NotationError(line, 1, "", ["'setup 1' then 'setup 2'"], "each player's setup is given once",
                                        found=f"a second setup of player {player}")
                setups[player] = placements
                setup_lines[player] = line
        if sorted(setups) != [1, 2]:
            missing = "setup 1" if 1 not in setups else "setup 2"
            raise NotationError(AT_END, 1, "", [f"'{missing}'"], "a record gives both players' setups")
        return Record(variant, (setups[1], setups[2]), tuple(turns), (setup_lines[1], setup_lines[2]))


@dataclass(frozen=True)
class RecordTurn:
    """One turn of a record: its number and each player's orders."""

    number: int
    orders: tuple[list[Order], list[Order]]
    line: int = 0
    order_lines: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Record:
    """A whole game as written down [1.4.1]: see ``docs/record-format.md``."""

    variant: str
    setups: tuple[list[Placement], list[Placement]]
    turns: tuple[RecordTurn, ...] = field(default=())
    setup_lines: tuple[int, int] = (0, 0)




@cache
def _parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        start=["orders", "setup", "record"],
        parser="lalr",
        lexer="contextual",
        transformer=_ToValues(),
        propagate_positions=False,
        maybe_placeholders=False,
    )


# Spaces that mail clients and word processors put in text, each replaced by
# a plain space so that columns stay where they were; only \n ends a line.
def _parse(text: str, start: str) -> Any:
    return parse_notation(_parser(), text, start, _explain)


def notation_help() -> list[tuple[str, str]]:
    """Each kind of word the grammar reads in orders and setups, with what it
    is and an example, taken from the grammar's own terminals (so that help
    and error messages always name the same things)."""
    wanted = ("CELL", "BEAM", "MISSILE", "KAMIKAZE", "SCAN", "SHIP")
    present = {t.name for t in _parser().terminals}
    out = []
    for name in wanted:
        if name in present:
            kind, _, example = _DESCRIBE[name].partition(" such as ")
            out.append((kind.removeprefix("a "), example))
    return out


def parse_orders(text: str) -> list[Order]:
    """One turn's orders [11.5], e.g. ``"bRv1Rx1(DS2) Gy3, mRv2 Bz5 ; comment"``."""
    return _parse(text, "orders")


def parse_order(text: str) -> Order:
    """Exactly one order."""
    orders = parse_orders(text)
    if len(orders) != 1:
        raise ValueError(f"expected exactly one order in {text!r}, found {len(orders)}")
    return orders[0]


def parse_setup(text: str) -> list[Placement]:
    """Ship placements, one per line [11.6], e.g. ``"KC Rv1-Rw3"``."""
    return _parse(text, "setup")


def parse_record(text: str) -> Record:
    """A whole game record; see ``docs/record-format.md``."""
    return _parse(text, "record")


# Errors and hints

_WORD = re.compile(r"[^\s,;()]+")


def _explain(error: UnexpectedInput, text: str) -> NotationError:
    line, column = error.line, error.column
    if isinstance(error, UnexpectedCharacters):
        expected = sorted(error.allowed or ())
    elif isinstance(error, UnexpectedToken):
        expected = sorted(error.expected)
        if error.token.type == "$END":
            line, column = end_position(text)
    else:  # UnexpectedEOF
        expected = sorted(getattr(error, "expected", ()))
        line, column = end_position(text)
    if not isinstance(line, int) or line < 1:
        line, column = end_position(text)
    source_line = text.split("\n")[line - 1] if line - 1 < len(text.split("\n")) else ""
    match = _WORD.match(source_line, column - 1)
    word = match.group() if match else source_line[column - 1:column]
    at_end_of_line = column > len(source_line) or (isinstance(error, UnexpectedToken) and error.token.type == "_NL")
    at_end_of_text = at_end_of_line and line >= len(text.rstrip("\n").split("\n"))
    if at_end_of_line:
        word = ""
    described = []
    for name in expected:
        description = _DESCRIBE.get(name) or _literal(name)
        if description not in described:
            described.append(description)
    found = None
    if not word:
        found = "the end of the text" if at_end_of_text else "the end of the line"
    elif not word.isprintable() or word.isspace():
        found = f"the character U+{ord(word[0]):04X}"
    return NotationError(line, column, word, described, hint_for(word), found)


def _literal(name: str) -> str:
    return f"'{name.lower()}'" if name.isalpha() else name


_SLIPS = [
    (re.compile(r"^([roygb])([vwxyz])([1-5])$"),
     lambda m: f"colours are capital letters, so write {m[1].upper()}{m[2]}{m[3]} [11.4.5]"),
    (re.compile(r"^([ROYGB])([VWXYZ])([1-5])$"),
     lambda m: f"letters are lower case, so write {m[1]}{m[2].lower()}{m[3]} [11.4.5]"),
    (re.compile(r"^([ROYGB])([vwxyz])([06-9]|\d\d+)$"), lambda m: f"numbers run from 1 to 5, not {m[3]} [11.4.3]"),
    (re.compile(r"^([ROYGB])([a-uA-Z])([1-5])$"), lambda m: f"letters run v w x y z, not {m[2]} [11.4.2]"),
    (re.compile(r"^((?![ROYGB])[A-Z])([vwxyz])([1-5])$"), lambda m: f"colours are R O Y G B, not {m[1]} [11.4.1]"),
    (re.compile(r"^([ROYGB])([vwxyz])$"), lambda m: f"{m[0]} is missing its number (1-5) [11.4]"),
    (re.compile(r"^([ROYGB])([1-5])$"), lambda m: f"{m[0]} is missing its letter (v-z) [11.4]"),
    (re.compile(r"^([vwxyz])([1-5])$"), lambda m: f"{m[0]} is missing its colour (R O Y G B) [11.4]"),
]
_GLUED = re.compile(r"([bks]?[ROYGB][vwxyz][1-5]|m[ROYGB]?[vwxyz]?[1-5]?)([bmks]?[ROYGB][vwxyz][1-5])+")
_SHIP = re.compile(r"(DS|KC|FS|PC|MD|HS|LS|AG|LG|HF)([1-9][0-9]{0,2})?")
_BARE = {
    "b": "a beam names both end cells, such as bRv1Rx1 [11.5.2]",
    "m": "a missile launch is m plus one to three coordinates of the missile, such as mRv2 or m2 [11.5.3]",
    "k": "a kamikaze launch is k plus the launch cell, such as kGy3 [11.5.5]",
    "s": "a scan is s plus the target cell, such as sBz5 [11.5.4]",
}


def hint_for(word: str) -> str | None:
    """A guess at what a mistyped word was meant to be, or None."""
    if not word:
        return None
    if _GLUED.fullmatch(word):
        return "separate orders with spaces, commas or new lines [11.5]"
    hint = _cell_hint(word)  # a whole-word slip first: `bz5` is Blue, not a beam
    if hint:
        return hint
    if word in _BARE:
        return _BARE[word]
    if _SHIP.fullmatch(word):
        return "a setup line holds one ship: its type first, then its cells [11.6]"
    if word[:2].upper() in _SHIP_CODES and (word[2:].isdigit() or not word[2:]):
        return "ship types are two capitals with an optional identity, such as FS2 [11.6]"
    prefix, body = word[0], word[1:]
    if prefix == "b":
        ends = re.findall(r"[A-Za-z][A-Za-z]?\d*", body)
        if len(ends) == 1:
            return _BARE["b"]
        for end in ends:
            if end not in _VALID_CELLS:
                return _cell_hint(end)
        return None
    if prefix == "m":
        return None if re.fullmatch(r"[ROYGB]?[vwxyz]?[1-5]?", body) else _BARE["m"]
    if prefix in "ks":
        return _cell_hint(body)
    return None


_VALID_CELLS = {c + le + n for c in "ROYGB" for le in "vwxyz" for n in "12345"}
_SHIP_CODES = {t.name for t in ShipType}


def _cell_hint(text: str) -> str | None:
    for pattern, hint in _SLIPS:
        match = pattern.match(text)
        if match:
            return hint(match)
    return None
