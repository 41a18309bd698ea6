"""The data of a Celestial Empire turn sheet: everything the templates show.

`sheet_data(state, report, empire)` is pure and is built only from what that
empire may know (docs/celestial_empire/spec.md section 8): its own ships and
planets in full; every planet it has an interest in (owns, has a ship at, or
scanned this turn, l.1554-1557) with the ships there, other empires' ships
only as number, owner, name and type (l.1847-1851, l.2310-2313); Earth's
listing, which every empire gets; every empire's score, by number (R-81);
its own command history, messages and what it was told. Nothing else of
another empire's holdings goes in, so the secrecy tests can render every
sheet and compare them across states that differ only in what the empire
cannot see.

The sections follow the manual's "Turn Sheet Example" (l.2110-2418), in its
order: header, research block, ship type summary (even turns, R-77), ship
summary, planet summary, ally status, Earth listing, planet list, messages,
command history. The templates (templates/turn_sheet.txt and .html) lay
them out; they also expect from the mail adapter the keys every gm header
carries, which `sheet_data` does not make (see `ADAPTER_KEYS`).
"""

from __future__ import annotations

from typing import Any

from . import formulas
from .damage import amnesty
from .drawn import Drawn, cells, heads, planet_figures, ship_cells, summary_row
from .empire_steps import ending_turn, scans_available
from .endturn import income, planet_income
from .galaxy import ORE_TYPES
from .orders import AllianceLevel, Unit
from .report import Report
from .research import is_research_turn
from .state import NEUTRAL, GameState, Planet, Ship
from .winning import Conditions, Length, last_turn

ADAPTER_KEYS = {
    "game": "the game's id, shown as the game number",
    "alias": "the player's alias in gm",
    "phase": "the kernel's phase: 'play' adds how to answer, 'ended' leaves it out",
    "turn": "the turn whose orders are wanted, as the kernel counts it (the _header partial shows it)",
    "deadline": "when orders are due, as text, or None",
    "remaining": "how long until then, as text, or None",
    "token": "the player's password placeholder (render_text/render_html pass it)",
}
"""What the templates need besides `sheet_data`'s keys: the adapter passes
them (``common | sheet_data(...)``), as Grid Fighters' ``common`` does."""

SIZES = ("Small", "Medium", "Large", "Super", "Mega", "Ultra")
CLASSES = ("Cargo", "Ship", "Battle", "Deathstar")
SHIP_TYPES = ("Empty Ship", *(f"{size} {kind}" for kind in CLASSES for size in SIZES))
"""The 25 ship types of Table "types" (l.1857-1886) in its order; the
table's names govern over the summary example's (R-76)."""


def interest(state: GameState, report: Report | None, empire: int) -> list[int]:
    """The planets ``empire`` has an interest in (l.1554-1557, l.2270-2271):
    those it owns, those its ships orbit, and those it scanned this turn."""
    numbers = {p.number for p in state.planets_of(empire)}
    numbers |= {s.planet for s in state.ships_of(empire)}
    if report is not None:
        numbers |= set(report.scanned.get(empire, []))
    return sorted(n for n in numbers if n in state.planets)


def cargo(ship: Ship) -> list[str]:
    """What a ship carries, in the history's abbreviations (l.2386-2396): ``R0 4``, ``I 1``."""
    hold = ship.hold
    items = [f"R{t} {n}" for t, n in enumerate(hold.ore) if n]
    items += [f"{label} {n}" for label, n in (("M", hold.mines), ("I", hold.industry), ("PDU", hold.pdus),
                                               ("SM", hold.spacemines)) if n]
    return items


def own_ship(state: GameState, ship: Ship) -> dict[str, Any]:
    """One of the empire's own ships, in full (l.2176-2181); ``drawn``, its
    cells from type to cargo for the HTML sheet."""
    kind, empty, absorbed = formulas.ship_type(ship), max(0, ship.free_space()), formulas.absorbed(ship)
    effective, shots, hold = formulas.effective_efficiency(ship), formulas.shots(ship), cargo(ship)
    return {
        "own": True, "number": ship.number, "owner": state.name_of(ship.owner), "name": ship.name,
        "fighters": ship.fighters, "cargo_units": ship.cargo_units, "empty": empty,
        "tractors": ship.tractors, "shields": ship.shields, "absorbed": absorbed,
        "efficiency": ship.efficiency, "effective": effective,
        "shots": shots, "planet": ship.planet, "type": kind,
        "cargo": hold, "standing": ship.standing,
        "drawn": Drawn(ship_cells, kind, ship.fighters, ship.cargo_units, empty, ship.tractors, ship.shields,
                       absorbed, ship.efficiency, effective, shots, hold),
    }


def seen_ship(state: GameState, ship: Ship, empire: int) -> dict[str, Any]:
    """A ship at a planet the empire has an interest in: its own in full, any
    other only as "the ship number, the owner, the name of the ship, and the
    type of the ship" (l.2310-2313)."""
    if ship.owner == empire:
        return own_ship(state, ship)
    return {"own": False, "number": ship.number, "owner": state.name_of(ship.owner), "name": ship.name,
            "type": formulas.ship_type(ship)}


def planet_view(state: GameState, planet: Planet, empire: int, scanned: bool) -> dict[str, Any]:
    """A planet of the planet list (l.2268-2351), in full, with the ships
    there; ``figures`` and ``mine_rows``, its figures and its mine table's
    three rows of cells for the HTML sheet."""
    columns = [{"type": t, "stored": planet.ore[t], "production": planet.mines[t]}
               for t in range(ORE_TYPES) if planet.ore[t] or planet.mines[t]]
    shots, income, links = formulas.pdu_shots(planet.pdus), planet_income(planet), list(planet.links)
    return {
        "number": planet.number, "owner": state.name_of(planet.owner), "own": planet.owner == empire,
        "name": planet.name, "earth": planet.number == state.earth, "scanned": scanned,
        "links": links, "industry": planet.industry, "pdus": planet.pdus,
        "pdu_shots": shots, "income": income,
        "spacemines": planet.spacemines, "deployed": planet.deployed, "research": planet.research,
        "standing": planet.standing if planet.owner == empire else None,
        "mine_columns": columns,
        "figures": Drawn(planet_figures, links, planet.industry, planet.pdus, shots, income,
                         planet.spacemines, planet.deployed),
        "mine_rows": [Drawn(cells, [c[key] for c in columns]) for key in ("type", "stored", "production")],
        "ships": [seen_ship(state, s, empire) for s in state.ships_at(planet.number)],
    }


def _cell(mines: int, ore: int) -> dict[str, str]:
    return {"mines": str(mines) if mines else "", "ore": str(ore) if ore else ""}


def planet_summary(state: GameState, empire: int) -> dict[str, Any]:
    """The summary of the empire's planets (l.2200-2230): mines/ore of each
    type, PDUs and industry on each, then what its ships carry, then the
    totals; each row with ``drawn``, the row as the HTML sheet shows it."""
    planets = state.planets_of(empire)
    ships = state.ships_of(empire)
    rows: list[dict[str, Any]] = []
    for p in planets:
        row = [_cell(p.mines[t], p.ore[t]) for t in range(ORE_TYPES)]
        rows.append({"planet": p.number, "cells": row, "pdus": p.pdus, "industry": p.industry,
                     "drawn": Drawn(summary_row, p.number, [(c["mines"], c["ore"]) for c in row],
                                    p.pdus or "-", p.industry or "-")})
    carried = [sum(s.hold.ore[t] for s in ships) for t in range(ORE_TYPES)]
    pdus, industry = sum(s.hold.pdus for s in ships), sum(s.hold.industry for s in ships)
    on_cells = [_cell(0, carried[t]) for t in range(ORE_TYPES)]
    on_ships = {"cells": on_cells, "pdus": pdus, "industry": industry,
                "mines": sum(s.hold.mines for s in ships), "spacemines": sum(s.hold.spacemines for s in ships),
                "drawn": Drawn(summary_row, "Ships", [("", c["ore"]) for c in on_cells], pdus, industry)}
    mines = [sum(p.mines[t] for p in planets) for t in range(ORE_TYPES)]
    ore = [sum(p.ore[t] for p in planets) + carried[t] for t in range(ORE_TYPES)]
    total_pdus, total_industry = sum(p.pdus for p in planets) + pdus, sum(p.industry for p in planets) + industry
    total = {"mines": mines, "ore": ore, "pdus": total_pdus, "industry": total_industry,
             "drawn": Drawn(summary_row, "Total", list(zip(mines, ore)), total_pdus, total_industry)}
    return {"rows": rows, "ships": on_ships, "total": total, "owned": len(planets)}


def ally_status(state: GameState, empire: int) -> list[dict[str, str]]:
    """Every empire where either rating is not NEUTRAL (l.2232-2241)."""
    rows = []
    for other in sorted(state.empires):
        if other == empire:
            continue
        you, they = state.rating(empire, other), state.rating(other, empire)
        if not you == they == AllianceLevel.NEUTRAL:
            rows.append({"name": state.empires[other].name, "you": you.value, "they": they.value})
    return rows


def earth_listing(state: GameState, empire: int) -> dict[str, Any]:
    """Earth, for every empire (l.2243-2266): amnesty, selling, prices and
    amounts, and the ships over it (others' by type only)."""
    planet = state.planets[state.earth]
    market = state.market
    prices, amounts = list(market.price), list(market.stock)
    return {
        "number": planet.number, "amnesty": amnesty(state, state.earth), "limited": market.limited_selling,
        "links": list(planet.links), "prices": prices, "amounts": amounts,
        "drawn": [Drawn(heads, len(prices)), Drawn(cells, prices), Drawn(cells, amounts)],
        "ships": [seen_ship(state, s, empire) for s in state.ships_at(planet.number)],
    }


def summary_of_ship_types(state: GameState) -> list[tuple[str, int]]:
    """How many ships of each type there are in the whole galaxy (l.2157-2172,
    R-77), every type of the table, in its order: public, as the manual prints it."""
    counts = dict.fromkeys(SHIP_TYPES, 0)
    for ship in state.ships.values():
        kind = formulas.ship_type(ship)
        counts[kind] = counts.get(kind, 0) + 1
    return list(counts.items())


def research_block(state: GameState, empire: int) -> dict[str, Any] | None:
    """On a research turn, the reminder and the empire's research planets (l.2148-2153)."""
    if not is_research_turn(state.turn):
        return None
    return {"planets": [p.number for p in state.planets_of(empire) if p.research]}


def research_owners(state: GameState, report: Report | None) -> list[dict[str, Any]] | None:
    """After a research turn, to every empire, the research planets owned at
    its end, with owner and nearby planets (l.1701-1704)."""
    if report is None or not is_research_turn(report.turn):
        return None
    return [{"number": p.number, "owner": state.name_of(p.owner), "links": list(p.links)}
            for _, p in sorted(state.planets.items()) if p.research and p.owner != NEUTRAL]


def messages(state: GameState, report: Report | None, empire: int) -> dict[str, list[str]]:
    """The empire's messages, sorted as the manual's sheet heads them
    (l.2353-2366): general ("Name: ..."), alliance ("Name (to ALLY): ..."),
    personal ("From Name: ..."), each in the order received (R-80)."""
    found: dict[str, list[str]] = {"general": [], "alliance": [], "personal": []}
    names = [e.name for _, e in sorted(state.empires.items())]
    for text in [] if report is None else report.messages.get(empire, []):
        if any(text.startswith(f"From {name}: ") for name in names):
            found["personal"].append(text)
        elif any(text.startswith(f"{name} (to ") for name in names):
            found["alliance"].append(text)
        else:
            found["general"].append(text)
    return found


def history(report: Report | None, empire: int) -> list[dict[str, Any]]:
    """The empire's command history (l.2368-2417): each order as written and
    what was carried out, or why not; standing orders marked (l.1581-1582)."""
    if report is None:
        return []
    return [{"written": e.written, "done": e.done, "why": e.why, "standing": e.standing}
            for e in report.history.get(empire, [])]


def scores(state: GameState) -> list[list[int]]:
    """Every empire's score by player number, three to a row (l.2122, R-81)."""
    values = [state.empires[n].score for n in sorted(state.empires)]
    return [values[k:k + 3] for k in range(0, len(values), 3)]


def game_end(state: GameState, conditions: Conditions | None) -> tuple[int | None, str]:
    """The turn after which the game ends by its length, and how that was
    decided ("" for a fixed length): the empires' votes count only in a voted
    game (l.1994-2003, R-72); a game played until won has no such turn.
    Without ``conditions`` the votes are shown as they stand, if any."""
    if conditions is None:
        voted = ending_turn(state)
        return voted, "the middle vote" if voted is not None else ""
    if conditions.length is Length.VOTED:
        return last_turn(state, conditions), "the middle vote" if ending_turn(state) is not None else "no votes yet"
    return last_turn(state, conditions), ""


def sheet_data(state: GameState, report: Report | None, empire: int,
               conditions: Conditions | None = None) -> dict[str, Any]:
    """Empire ``empire``'s turn sheet after ``report``'s turn (None: before
    the first), ``state`` being the state that turn left: the sheet asks for
    the orders of turn ``state.turn``. ``conditions`` are the game's winning
    conditions and how its end is decided; without them the sheet shows the
    ``standard`` variant's conditions (R-70) and the votes as they stand."""
    own = state.empires[empire]
    scanned = set() if report is None else {n for found in report.scanned.values() for n in found}
    market = state.market
    end, how = game_end(state, conditions)
    bids = " ".join(f"{unit.name.capitalize()}={market.minimum_bids[unit]}"
                    for unit in (Unit.CARGO, Unit.FIGHTER, Unit.SHIELD, Unit.TRACTOR) if unit in market.minimum_bids)
    return {
        "empire": empire,
        "empire_name": own.name,
        "turn_number": state.turn,
        "report_turn": None if report is None else report.turn,
        "score": own.score,
        "income": income(state, empire),
        "credits": own.credits,
        "score_per_credit": market.score_per_credit,
        "scores": scores(state),
        "winning": (conditions or Conditions()).printed(),
        "minimum_bids": bids,
        "scans": scans_available(state, empire),
        "vote": own.vote,
        "ending_turn": end,
        "ending_how": how,
        "research": research_block(state, empire),
        "research_owners": research_owners(state, report),
        "ship_types": summary_of_ship_types(state) if state.turn % 2 == 0 else None,
        "ships": [own_ship(state, s) for s in state.ships_of(empire)],
        "planet_summary": planet_summary(state, empire),
        "allies": ally_status(state, empire),
        "earth": earth_listing(state, empire),
        "planets": [planet_view(state, state.planets[n], empire, n in scanned)
                    for n in interest(state, report, empire)],
        "messages": messages(state, report, empire),
        "history": history(report, empire),
        "seen": [] if report is None else list(report.seen.get(empire, [])),
    }
