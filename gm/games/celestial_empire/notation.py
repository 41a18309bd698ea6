"""Celestial Empire's order notation, read with the Lark grammar in
``celestial_empire.lark``.

`parse_orders` reads a whole mail body line by line, as the game did (one
command a line, manual l.184): each line is an order, a blank or comment
line, or a `NotationError` naming the line, the column, the offending text,
what was expected there and a hint for the usual slip. One bad line does not
stop the others: gm answers each bad line and keeps the good ones. `parse_order`
reads a single order. The descriptions and hints come from `TERMINALS` and
`gm.games.celestial_empire.command_help.COMMANDS_HELP`, which the help
sheet also shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from typing import Any

from lark import Lark, Token, Transformer

from ...kernel.errors import AT_END, NotationError
from ...kernel.parsing import parse_notation
from ..numbers import MAX_DIGITS, TOO_LARGE, too_large
from . import orders as o
from . import orders_empire as e
from .hints import explain

GRAMMAR = files("gm.games.celestial_empire").joinpath("celestial_empire.lark")
"""The grammar, read through the package: it ships beside this module."""

NAME_LENGTH = 23
"""Names of ships and planets are under 24 characters (manual l.351)."""

TYPES = range(10)
"""Ore and mine types are 0 to 9 (manual l.160)."""

_LEVELS = {"ALLY": o.AllianceLevel.ALLY, "FRIEND": o.AllianceLevel.FRIENDLY,
           "FRIENDLY": o.AllianceLevel.FRIENDLY, "NEUTRAL": o.AllianceLevel.NEUTRAL,
           "ENEMY": o.AllianceLevel.HOSTILE, "HOSTILE": o.AllianceLevel.HOSTILE}
"""Alliance levels as the manual writes them in prose (ally, friend, neutral,
enemy, l.432) and on the turn sheet (ALLY, FRIENDLY, HOSTILE, l.2239)."""

_UNITS = {"cargo_units": o.Unit.CARGO, "fighter_units": o.Unit.FIGHTER,
          "tractor_units": o.Unit.TRACTOR, "shield_units": o.Unit.SHIELD}

_TERMINATORS = {"broadcast": "}", "personal_message": "&", "alliance_message": ")"}

ShipAction = Callable[[int], o.ShipOrder]
PlanetAction = Callable[[int], o.PlanetOrder]


@dataclass(frozen=True)
class Line:
    """One line of a mail body: its 1-based ``number`` and ``text``; the
    ``order`` it holds, or the ``error`` that stopped it, or neither (a blank
    or comment line); ``comment`` is the text after ``;`` (research orders
    are written as comments, manual l.1798), or None."""

    number: int
    text: str
    order: o.Order | None = None
    error: NotationError | None = None
    comment: str | None = None


def _number(token: Token) -> int:
    """A number as written; a `NotationError` on its line if it is too large to read."""
    if too_large(token):
        raise NotationError(token.line or 1, token.column or 1, str(token),
                            [f"a number of at most {MAX_DIGITS} digits"], found=f"{TOO_LARGE} ({len(token)} digits)")
    return int(token)


def _type(token: Token, what: str) -> int:
    """An ore or mine type, 0 to 9."""
    value = _number(token)
    if value not in TYPES:
        raise NotationError(token.line or 1, token.column or 1, str(token), [f"{what} type 0 to 9"],
                            f"{what} types are single digits, 0 to 9")
    return value


def _missing_type(what: str, letter: str, example: str) -> NotationError:
    return NotationError(AT_END, 1, "", [f"{what} type 0 to 9 after {letter}"],
                         f"name the {what} type, such as {example}",
                         found="the end of the order")


def _free_text(token: Token, what: str, example: str, terminator: str = "") -> str:
    """A name's or message's text without the spaces around it (and without
    one closing ``terminator``); an error if nothing is left."""
    text = str(token).strip()
    if terminator and text.endswith(terminator):
        text = text[:-1].rstrip()
    if not text:
        column = (token.column or 1) + len(str(token)) - len(str(token).lstrip())
        raise NotationError(token.line or 1, column, str(token).strip(), [f"the {what}, such as {example}"],
                            f"a {what} needs some text")
    return text


class _ToOrders(Transformer):
    """Turns each line's parse tree into an order in the same pass as parsing."""

    def line(self, items: list[Any]) -> o.Order | None:
        return items[0] if items else None

    # Ships

    def ship_order(self, items: list[Any]) -> o.ShipOrder:
        ship, action = items
        order: o.ShipOrder = action(_number(ship))
        return order

    def name_ship(self, items: list[Token]) -> ShipAction:
        name = _name(items[0])
        return lambda ship: o.NameShip(ship, name)

    def gift_ship(self, items: list[Token]) -> ShipAction:
        return lambda ship: o.GiftShip(ship, str(items[0]))

    def unload(self, items: list[Any]) -> ShipAction:
        amount, (kind, mine_or_ore) = _number(items[0]), items[1]
        if kind == "M" and mine_or_ore is None:
            raise _missing_type("mine", "M", "S276U4M3")
        _check_types(kind, mine_or_ore)
        made: dict[str, ShipAction] = {
            "M": lambda ship: o.UnloadMines(ship, amount, int(mine_or_ore)),
            "D": lambda ship: o.UnloadPDUs(ship, amount),
            "I": lambda ship: o.UnloadIndustry(ship, amount),
            "R": lambda ship: o.UnloadOre(ship, amount, int(mine_or_ore)),
            "S": lambda ship: o.UnloadSpacemines(ship, amount),
        }
        return made[kind]

    def load(self, items: list[Any]) -> ShipAction:
        amount, (kind, mine_or_ore) = _number(items[0]), items[1]
        if kind == "M" and mine_or_ore is None:
            raise _missing_type("mine", "M", "S306L10M4")
        _check_types(kind, mine_or_ore)
        made: dict[str, ShipAction] = {
            "M": lambda ship: o.LoadMines(ship, amount, int(mine_or_ore)),
            "D": lambda ship: o.LoadPDUs(ship, amount),
            "I": lambda ship: o.LoadIndustry(ship, amount),
            "R": lambda ship: o.LoadOre(ship, amount, int(mine_or_ore)),
            "S": lambda ship: o.LoadSpacemines(ship, amount),
        }
        return made[kind]

    def unload_all(self, items: list[Any]) -> ShipAction:
        return o.UnloadAllOre

    def load_all(self, items: list[Any]) -> ShipAction:
        return o.LoadAll

    def load_priority(self, items: list[Token]) -> ShipAction:
        priority = tuple("D" if item.upper() == "P" else item.upper() for item in items)
        return lambda ship: o.LoadAll(ship, priority)

    def mines(self, items: list[Token | None]) -> tuple[str, Token | None]:
        return ("M", items[0])

    def pdus(self, items: list[Any]) -> tuple[str, None]:
        return ("D", None)

    def industry(self, items: list[Any]) -> tuple[str, None]:
        return ("I", None)

    def ore(self, items: list[Token]) -> tuple[str, Token]:
        return ("R", items[0])

    def spacemines(self, items: list[Any]) -> tuple[str, None]:
        return ("S", None)

    def contract(self, items: list[Any]) -> ShipAction:
        amount, unit, bid = _number(items[0]), items[1], _number(items[2])
        return lambda ship: o.Contract(ship, amount, unit, bid)

    def build_units(self, items: list[Any]) -> ShipAction:
        amount, unit = _number(items[0]), items[1]
        return lambda ship: e.BuildUnits(ship, amount, unit)

    def unbuild(self, items: list[Any]) -> ShipAction:
        amount, unit = _number(items[0]), items[1]
        return lambda ship: e.Unbuild(ship, amount, unit)

    def buy_ore(self, items: list[Token]) -> ShipAction:
        amount, ore = _number(items[0]), _type(items[1], "ore")
        return lambda ship: o.BuyOre(ship, amount, ore)

    def sell_ore(self, items: list[Token]) -> ShipAction:
        amount, ore = _number(items[0]), _type(items[1], "ore")
        return lambda ship: o.SellOre(ship, amount, ore)

    def sell_all(self, items: list[Any]) -> ShipAction:
        return o.SellAllOre

    def deploy_ship(self, items: list[Token]) -> ShipAction:
        return lambda ship: o.DeployFromShip(ship, _number(items[0]))

    def retrieve(self, items: list[Token]) -> ShipAction:
        return lambda ship: o.Retrieve(ship, _number(items[0]))

    def attack(self, items: list[Any]) -> ShipAction:
        fighters = None if items[0] is None else _number(items[0])
        make: Callable[[int, int | None], o.ShipOrder] = items[1]
        return lambda ship: make(ship, fighters)

    def at_ship(self, items: list[Token]) -> Callable[[int, int | None], o.ShipOrder]:
        return lambda ship, fighters: e.AttackShip(ship, _number(items[0]), fighters)

    def at_pdus(self, items: list[Any]) -> Callable[[int, int | None], o.ShipOrder]:
        return e.AttackPDUs

    def at_mines(self, items: list[Token]) -> Callable[[int, int | None], o.ShipOrder]:
        mine = _type(items[0], "mine")
        return lambda ship, fighters: e.AttackMines(ship, mine, fighters)

    def at_ore(self, items: list[Token]) -> Callable[[int, int | None], o.ShipOrder]:
        ore = _type(items[0], "ore")
        return lambda ship, fighters: e.AttackOre(ship, ore, fighters)

    def at_industry(self, items: list[Any]) -> Callable[[int, int | None], o.ShipOrder]:
        return e.AttackIndustry

    def at_spacemines(self, items: list[Any]) -> Callable[[int, int | None], o.ShipOrder]:
        return e.AttackSpacemines

    def engage(self, items: list[Token]) -> ShipAction:
        return lambda ship: e.Engage(ship, _number(items[0]))

    def tend(self, items: list[Any]) -> ShipAction:
        amount, to, (kind, mine_or_ore) = _number(items[0]), _number(items[1]), items[2]
        if kind == "M" and mine_or_ore is not None:
            raise NotationError(mine_or_ore.line or 1, mine_or_ore.column or 1, str(mine_or_ore),
                                ["the end of the order"],
                                f"mines aboard a ship have no type: write S<ship>T{amount}S{to}M")
        _check_types(kind, mine_or_ore)
        made: dict[str, ShipAction] = {
            "M": lambda ship: o.TendMines(ship, amount, to),
            "D": lambda ship: o.TendPDUs(ship, amount, to),
            "I": lambda ship: o.TendIndustry(ship, amount, to),
            "R": lambda ship: o.TendOre(ship, amount, to, int(mine_or_ore)),
            "S": lambda ship: o.TendSpacemines(ship, amount, to),
        }
        return made[kind]

    def tend_all(self, items: list[Token]) -> ShipAction:
        return lambda ship: o.TendAllOre(ship, _number(items[0]))

    def jump(self, items: list[Token]) -> ShipAction:
        if len(items) > e.MAX_JUMPS:
            extra = items[e.MAX_JUMPS]
            raise NotationError(extra.line or 1, extra.column or 1, str(extra), ["the end of the order"],
                                f"a ship jumps at most {e.MAX_JUMPS} links a turn (manual l.1448)")
        path = tuple(_number(item) for item in items)
        return lambda ship: e.Jump(ship, path)

    def cargo_units(self, items: list[Any]) -> o.Unit:
        return o.Unit.CARGO

    def fighter_units(self, items: list[Any]) -> o.Unit:
        return o.Unit.FIGHTER

    def tractor_units(self, items: list[Any]) -> o.Unit:
        return o.Unit.TRACTOR

    def shield_units(self, items: list[Any]) -> o.Unit:
        return o.Unit.SHIELD

    # Planets

    def planet_order(self, items: list[Any]) -> o.PlanetOrder:
        planet, action = items
        order: o.PlanetOrder = action(_number(planet))
        return order

    def name_planet(self, items: list[Token]) -> PlanetAction:
        name = _name(items[0])
        return lambda planet: e.NamePlanet(planet, name)

    def gift_planet(self, items: list[Token]) -> PlanetAction:
        return lambda planet: e.GiftPlanet(planet, str(items[0]))

    def deploy_planet(self, items: list[Token]) -> PlanetAction:
        return lambda planet: e.DeployFromPlanet(planet, _number(items[0]))

    def planet_attack_ship(self, items: list[Any]) -> PlanetAction:
        pdus = None if items[0] is None else _number(items[0])
        return lambda planet: e.PlanetAttackShip(planet, _number(items[1]), pdus)

    def planet_attack_spacemines(self, items: list[Any]) -> PlanetAction:
        pdus = None if items[0] is None else _number(items[0])
        return lambda planet: e.PlanetAttackSpacemines(planet, pdus)

    def transmute(self, items: list[Token]) -> PlanetAction:
        amount, source, result = _number(items[0]), _type(items[1], "ore"), _type(items[2], "ore")
        return lambda planet: e.Transmute(planet, amount, source, result)

    def build(self, items: list[Any]) -> PlanetAction:
        amount, make = _number(items[0]), items[1]
        return lambda planet: make(planet, amount)

    def build_pdus(self, items: list[Any]) -> Callable[[int, int], o.PlanetOrder]:
        return e.BuildPDUs

    def build_mines(self, items: list[Token]) -> Callable[[int, int], o.PlanetOrder]:
        mine = _type(items[0], "mine")
        return lambda planet, amount: e.BuildMines(planet, amount, mine)

    def build_industry(self, items: list[Any]) -> Callable[[int, int], o.PlanetOrder]:
        return e.BuildIndustry

    def build_spacemines(self, items: list[Token]) -> Callable[[int, int], o.PlanetOrder]:
        ore = _type(items[0], "ore")
        return lambda planet, amount: e.BuildSpacemines(planet, amount, ore)

    def build_hyperdrives(self, items: list[Token]) -> Callable[[int, int], o.PlanetOrder]:
        fighters, cargo, tractors, shields = (_number(item) for item in items)
        return lambda planet, amount: e.BuildHyperdrives(planet, amount, fighters, cargo, tractors, shields)

    # The empire, standing orders, messages

    def more_friendly(self, items: list[Token]) -> e.MoreFriendly:
        return e.MoreFriendly(str(items[0]))

    def more_hostile(self, items: list[Token]) -> e.MoreHostile:
        return e.MoreHostile(str(items[0]))

    def scan(self, items: list[Token]) -> e.Scan:
        return e.Scan(_number(items[0]))

    def game_length(self, items: list[Token]) -> e.GameLength:
        return e.GameLength(_number(items[0]))

    def set_standing_order(self, items: list[Any]) -> e.SetStandingOrder:
        return e.SetStandingOrder(items[0])

    def clear_ship_standing_order(self, items: list[Token]) -> e.ClearShipStandingOrder:
        return e.ClearShipStandingOrder(_number(items[0]))

    def clear_planet_standing_order(self, items: list[Token]) -> e.ClearPlanetStandingOrder:
        return e.ClearPlanetStandingOrder(_number(items[0]))

    def broadcast(self, items: list[Token | None]) -> e.Broadcast:
        return e.Broadcast(_message(items[0], "broadcast", "{Hello all}"))

    def personal_message(self, items: list[Any]) -> e.PersonalMessage:
        to, text = items
        if text is None:
            raise _no_text(to, "personal_message")
        return e.PersonalMessage(str(to), _message(text, "personal_message", f"&{to} Hello&"))

    def alliance_message(self, items: list[Any]) -> e.AllianceMessage:
        level, text = items
        found = _LEVELS.get(str(level).upper())
        if found is None:
            raise NotationError(level.line or 1, level.column or 1, str(level),
                                ["an alliance level: ALLY, FRIENDLY, NEUTRAL or HOSTILE"],
                                "an alliance message begins with the level it goes to, such as "
                                "(ALLY We must strike at P304 now)")
        if text is None:
            raise _no_text(level, "alliance_message")
        return e.AllianceMessage(found, _message(text, "alliance_message", f"({found.value} Hello)"))


def _check_types(kind: str, token: Token | None) -> None:
    if token is not None:
        _type(token, "mine" if kind == "M" else "ore")


def _name(token: Token) -> str:
    name = _free_text(token, "name", "BLACKGUARD")
    if len(name) > NAME_LENGTH:
        start = (token.column or 1) + len(str(token)) - len(str(token).lstrip())
        raise NotationError(token.line or 1, start + NAME_LENGTH, name[NAME_LENGTH:],
                            ["the end of the name"],
                            f"names are at most {NAME_LENGTH} characters (manual l.351)")
    return name


def _message(token: Token | None, kind: str, example: str) -> str:
    if token is None:
        raise NotationError(AT_END, 1, "", [f"the message, such as {example}"], "a message needs some text",
                          found="the end of the order")
    return _free_text(token, "message", example, _TERMINATORS[kind])


def _no_text(after: Token, kind: str) -> NotationError:
    example = {"personal_message": f"&{after} Hello&", "alliance_message": f"({after} Hello)"}[kind]
    return NotationError(AT_END, 1, "", [f"the message, such as {example}"],
                         "write the message after the name, separated by a space",
                         found="the end of the order")


@cache
def parser() -> Lark:
    """The Lark parser (built once): LALR(1), contextual lexer."""
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        start="line",
        parser="lalr",
        lexer="contextual",
        transformer=_ToOrders(),
        maybe_placeholders=True,
    )


def _code(text: str) -> tuple[str, str | None]:
    """A line split at its first ``;``: the order part (trailing spaces
    dropped, so that errors at its end point just after it) and the comment."""
    code, semicolon, comment = text.partition(";")
    return code.rstrip(), (comment if semicolon else None)


PARSED_LINES = 4096
"""Order lines whose reading is kept (`_parse_line`): a game's empires send
much the same lines turn after turn (of the 5,700 lines of a game of 80
turns with eight robot empires, standing orders included, 992 differ), and
a replay reads every line again."""


@lru_cache(maxsize=PARSED_LINES)
def _parse_line(code: str) -> o.Order | None:
    """The order on one line, as the grammar reads it. Kept for the next
    time the same line is read: an order is a frozen value, and reading is
    a pure function of the line; a line that does not read raises afresh
    each time (a `NotationError` is not kept, and is changed by its reader)."""
    result: o.Order | None = parse_notation(parser(), code, "line", explain)
    return result


def parse_order(line: str) -> o.Order:
    """Exactly one order on one line, such as ``"s132u42r2 ; ore home"``."""
    if "\n" in line.strip("\n"):
        second = line.strip("\n").split("\n")[1]
        raise NotationError(2, 1, second[:20], ["one order"], "one order a line: use parse_orders for a mail",
                            found="a second line")
    code, _ = _code(line.strip("\n"))
    order = _parse_line(code)
    if order is None:
        raise NotationError(1, 1, "", ["an order, such as S123J120"], "the line holds no order",
                            found="no order")
    return order


def parse_orders(text: str) -> list[Line]:
    """Every line of a mail body, numbered from 1: its order, its error, or
    neither (blank or comment). Errors name their own line."""
    lines = []
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.rstrip("\r")
        code, comment = _code(raw)
        order, error = None, None
        if code.strip():
            try:
                order = _parse_line(code)
            except NotationError as found:
                found.line = number
                found.args = (found.describe(),)
                error = found
        lines.append(Line(number, raw, order, error, comment))
    if lines and not lines[-1].text and len(lines) > 1:
        lines.pop()  # the newline that ends the last line opens no line of its own
    return lines
