"""Step 1, research planet orders (§Research Planets, manual l.1693-1803;
spec section 9; rulings R-66, R-67, R-68).

On turn 10 and every fourth turn after (10, 14, 18, ...) each research
planet gives its owner one benefit, before any other order is carried out
(l.1790-1792). The manual's research orders are free text in a comment,
"human read, not machine read" (l.1797-1798): ``;RP103 Increase efficiency
of S100``. gm reads a keyword form after ``;RP<planet>`` (R-67) and carries
out these benefits itself (R-66's numbers):

=====================  =====  ===============================================
``;RP103 LINK 104 250``  1    a link between two own planets, each with fewer than 4
``;RP103 CARGO S100``    2    four cargo units and four fuel onto an own ship on the RP
``;RP103 IND``           3    one industry on the RP
``;RP103 MINE 7``        4    one mine of type 7 on the RP
``;RP103 PDU [250]``     5    10 PDUs on the RP, or 5 on own planet 250
``;RP103 ORE 1 2 [250]`` 6    100 ore of type 1 into type 2 on the RP, or 25 on own planet 250
``;RP103 MINES 1 2 [250]`` 7  2 mines of type 1 into type 2 on the RP, or 1 on own planet 250
``;RP103 FUEL S300``     11   one fuel onto another empire's ship, cargo space allowing
``;RP103 SHIPS name``    15   how many ships of each type the empire ``name`` has
``;RP103 OWNERS``        16   how many planets each empire (and NEUTRAL) owns
``;RP103 EFF S100``      18   +1 drive efficiency of an own ship on the RP
=====================  =====  ===============================================

Every other ``;RP`` line, whether another benefit (8, 9, 10, 12-14, 17,
19-21, which R-66 says can be automated but gm does not yet) or the special
request (22) or free text, goes to the operator (``report.operator``, with
the empire and the line) and the empire is told so. An ally may use a
research planet its owner leaves unused when the owner rates it ALLY
(R-68): owners' orders are taken first, then allies' in the order of R-11.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from ..numbers import TOO_LARGE, too_large, whole_number
from .answers import owned_planet, owned_ship, planet_not_yours, ship_not_yours
from .formulas import ship_type
from .notation import Line
from .orders import AllianceLevel
from .report import Report
from .rotation import rotation
from .state import NEUTRAL, GameState, Planet, Ship

FIRST_RESEARCH_TURN, RESEARCH_EVERY = 10, 4
"""Research turns: "on turn 10 and every 4 turns thereafter" (l.1697-1698)."""
MAX_LINKS = 4
PDUS_ON, PDUS_OFF = 10, 5
ORE_ON, ORE_OFF = 100, 25
MINES_ON, MINES_OFF = 2, 1
CARGO_GIFT = 4

_LINE = re.compile(r"^\s*;?\s*RP\s*(\d+)\s*(.*)$", re.IGNORECASE)


class _Refused(Exception):
    """The research order cannot be carried out: the reason."""


def is_research_turn(turn: int) -> bool:
    """Turn 10, 14, 18, ... (l.210, l.1697-1698)."""
    return turn >= FIRST_RESEARCH_TURN and (turn - FIRST_RESEARCH_TURN) % RESEARCH_EVERY == 0


def research_comments(texts: Sequence[str]) -> list[str]:
    """The research orders among a mail's lines as written: each comment
    (what follows a line's first ``;``) that starts ``RP<planet>`` (R-67),
    as ``;`` and the comment."""
    found = []
    for text in texts:
        _, semicolon, comment = text.partition(";")
        if semicolon and _LINE.match(comment):
            found.append(";" + comment.strip())
    return found


def is_research_line(text: str) -> bool:
    """Whether a line holds a research order (`research_comments`)."""
    return bool(research_comments([text]))


def research_lines(lines: Sequence[Line]) -> list[str]:
    """The research orders of a parsed mail (`research_comments` of its lines)."""
    return research_comments([line.text for line in lines])


def research_all(state: GameState, by_empire: Mapping[int, Sequence[str]], report: Report) -> None:
    """Step 1 for every empire: owners' orders first, then allies' for the
    research planets their owners left unused (R-68), each group in the
    rotation of R-11. Outside research turns ``;RP`` lines are comments and
    nothing is done (R-67)."""
    if not is_research_turn(state.turn):
        return
    empires = rotation(state.turn, by_empire)
    used: set[int] = set()
    own = {e: [t for t in by_empire[e] if _owner_of(state, t) == e] for e in empires}
    for empire in empires:
        research(state, empire, own[empire], report, used)
    for empire in empires:
        research(state, empire, [t for t in by_empire[empire] if t not in own[empire]], report, used)


def _owner_of(state: GameState, text: str) -> int | None:
    found = _LINE.match(text)
    number = whole_number(found.group(1)) if found else None
    planet = state.planets.get(number) if number is not None else None
    return planet.owner if planet else None


def research(state: GameState, empire: int, lines: Sequence[str], report: Report,
             used: set[int] | None = None) -> None:
    """Carry out ``empire``'s research lines (``;RP<planet> ...``), each
    answered in its command history; ``used`` holds the research planets
    already used this turn (one benefit each), and is added to."""
    used = set() if used is None else used
    for text in lines:
        found = _LINE.match(text)
        if not found:
            continue
        number = whole_number(found.group(1))
        planet = state.planets.get(number) if number is not None else None
        if planet is None or not planet.research:
            report.refused(empire, text, f"planet {found.group(1)} is not a research planet")
            continue
        mine = planet.owner == empire
        ally = planet.owner != NEUTRAL and state.rating(planet.owner, empire) == AllianceLevel.ALLY
        if not mine and not ally:
            report.refused(empire, text, f"research planet {planet.number} is not yours nor an ally's (ruling R-68)")
            continue
        if planet.number in used:
            why = "already used this turn" if mine else "its owner uses it this turn (ruling R-68)"
            report.refused(empire, text, f"research planet {planet.number}: {why}")
            continue
        used.add(planet.number)
        words = found.group(2).split()
        handler = _BENEFITS.get(words[0].upper()) if words else None
        if handler is None:
            _to_operator(state, empire, text, report)
            continue
        try:
            report.did(empire, text, handler(state, empire, planet, [w.upper() for w in words[1:]]))
        except _Refused as why:
            used.discard(planet.number)
            report.refused(empire, text, str(why))


def _to_operator(state: GameState, empire: int, text: str, report: Report) -> None:
    report.operator.append((empire, f"research, turn {state.turn}: {text}"))
    report.refused(empire, text, "gm does not carry this out itself: passed to the operator (ruling R-67)")


def _number(word: str, what: str) -> int:
    number = whole_number(word)
    if number is None:
        raise _Refused(f"{TOO_LARGE} for {what} ({len(word)} digits)" if word.isdecimal() and too_large(word)
                       else f"{what} should be a number, not {word}")
    return number


def _args(words: list[str], least: int, most: int, form: str) -> None:
    if not least <= len(words) <= most:
        raise _Refused(f"write it as {form}")


def _own_planet(state: GameState, empire: int, word: str) -> Planet:
    """The empire's planet ``word`` names; else refused "planet N is not yours" (R-5)."""
    number = _number(word, "a planet")
    planet = owned_planet(state, empire, number)
    if planet is None:
        raise _Refused(planet_not_yours(number))
    return planet


def _ship_number(word: str) -> int:
    """The ship ``S123`` or ``123`` names."""
    return _number(word[1:] if word.startswith("S") else word, "a ship")


def _own_ship_on(state: GameState, empire: int, word: str, planet: Planet) -> Ship:
    """The empire's ship ``word`` names, on ``planet``; else refused, "not yours" whether it exists or not (R-5)."""
    number = _ship_number(word)
    ship = owned_ship(state, empire, number)
    if ship is None:
        raise _Refused(ship_not_yours(number))
    if ship.planet != planet.number:
        raise _Refused(f"ship {ship.number} is not on research planet {planet.number}")
    return ship


def _link(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 1 (l.1707-1709)."""
    _args(words, 2, 2, "LINK <planet> <planet>")
    a, b = (_own_planet(state, empire, w) for w in words)
    if a.number == b.number or b.number in a.links:
        raise _Refused(f"planets {a.number} and {b.number} are already linked" if a.number != b.number
                       else "a link joins two planets")
    for p in (a, b):
        if len(p.links) >= MAX_LINKS:
            raise _Refused(f"planet {p.number} has four links already")
    a.links, b.links = tuple(sorted((*a.links, b.number))), tuple(sorted((*b.links, a.number)))
    return f"planets {a.number} and {b.number} are linked"


def _cargo(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 2 (l.1710-1711)."""
    _args(words, 1, 1, "CARGO S<ship>")
    ship = _own_ship_on(state, empire, words[0], rp)
    ship.cargo_units += CARGO_GIFT
    ship.hold.ore[0] += CARGO_GIFT
    return f"ship {ship.number} has four more cargo units, with four fuel"


def _industry(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 3 (l.1712)."""
    _args(words, 0, 0, "IND")
    rp.industry += 1
    return f"one industry on planet {rp.number}"


def _mine(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 4 (l.1713-1714): of any type, present there or not."""
    _args(words, 1, 1, "MINE <type>")
    kind = _type(words[0])
    rp.mines[kind] += 1
    return f"one mine of type {kind} on planet {rp.number}"


def _type(word: str) -> int:
    if len(word) != 1 or not word.isdecimal():
        raise _Refused(f"an ore or mine type is one digit, 0 to 9, not {word}")
    return int(word)


def _pdus(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 5 (l.1716): 10 on the research planet, 5 on another of the orderer's (R-66)."""
    _args(words, 0, 1, "PDU [<planet>]")
    target = _own_planet(state, empire, words[0]) if words else rp
    count = PDUS_ON if target is rp else PDUS_OFF
    target.pdus += count
    return f"{count} PDUs on planet {target.number}"


def _transmute(state: GameState, empire: int, rp: Planet, words: list[str], ore: bool) -> str:
    """Benefits 6 and 7 (l.1717-1721): one type into another, on the RP or another own planet."""
    word = "ORE" if ore else "MINES"
    _args(words, 2, 3, f"{word} <from type> <to type> [<planet>]")
    source, target = _type(words[0]), _type(words[1])
    if source == target:
        raise _Refused("the two types must differ")
    planet = _own_planet(state, empire, words[2]) if len(words) == 3 else rp
    stock = planet.ore if ore else planet.mines
    most = (ORE_ON if planet is rp else ORE_OFF) if ore else (MINES_ON if planet is rp else MINES_OFF)
    count = min(most, stock[source])
    what = "ore" if ore else "mines"
    if count == 0:
        raise _Refused(f"planet {planet.number} has no {what} of type {source}")
    stock[source] -= count
    stock[target] += count
    limit = "" if count == most else f" (all there was; up to {most})"
    return f"{count} {what} of type {source} made type {target} on planet {planet.number}{limit}"


def _fuel(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 11 (l.1734): any ship of another empire, anywhere, if it has room."""
    _args(words, 1, 1, "FUEL S<ship>")
    try:
        ship = state.ships.get(_ship_number(words[0]))
    except _Refused:
        ship = None
    if ship is not None and ship.owner == empire:
        raise _Refused("the fuel goes onto another empire's ship")
    if ship is None or ship.free_space() < 1:  # the same words either way: no probing for ships or full holds
        raise _Refused(f"the fuel could not be delivered to ship {words[0].lstrip('S')}")
    ship.hold.ore[0] += 1
    return f"one fuel loaded onto ship {ship.number}"


def _ships(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 15 (l.1752-1753): the number of each type, nothing else."""
    if not words:
        raise _Refused("write it as SHIPS <empire>")
    other = state.empire_named(" ".join(words))
    if other is None:
        raise _Refused(f"there is no empire called {' '.join(words)}")
    kinds = Counter(ship_type(s) for s in state.ships_of(other))
    listed = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "none"
    return f"{state.empires[other].name}'s ships: {listed}"


def _owners(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 16 (l.1754): who owns how many planets."""
    _args(words, 0, 0, "OWNERS")
    counts = Counter(p.owner for p in state.planets.values())
    listed = [f"{state.empires[e].name} {counts[e]}" for e in sorted(state.empires)]
    return "planets owned: " + ", ".join([*listed, f"NEUTRAL {counts[NEUTRAL]}"])


def _efficiency(state: GameState, empire: int, rp: Planet, words: list[str]) -> str:
    """Benefit 18 (l.1759-1760): +1, the amount R-66 fixes; the drive may exceed 4."""
    _args(words, 1, 1, "EFF S<ship>")
    ship = _own_ship_on(state, empire, words[0], rp)
    ship.efficiency += 1
    return f"ship {ship.number}'s drive efficiency is now {ship.efficiency}"


_BENEFITS = {
    "LINK": _link, "CARGO": _cargo, "IND": _industry, "MINE": _mine, "PDU": _pdus,
    "ORE": lambda s, e, rp, w: _transmute(s, e, rp, w, True),
    "MINES": lambda s, e, rp, w: _transmute(s, e, rp, w, False),
    "FUEL": _fuel, "SHIPS": _ships, "OWNERS": _owners, "EFF": _efficiency,
}
