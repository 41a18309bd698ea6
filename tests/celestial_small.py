"""A small hand-made Celestial Empire galaxy for the rules' tests: few
planets, links drawn so that routes are easy to read.

    107 - 101 - 102 - 103 - 104 - 105 - 106 - 199 (Earth)

Empire 1 (Grok) has its home at 101, empire 2 (Winter) at 107, empire 3
(Master) at 105; every other planet is NEUTRAL's and bare.
"""

from __future__ import annotations

from gm.games.celestial_empire.state import (
    START_MINIMUM_BIDS,
    START_PRICES,
    START_STOCK,
    Cargo,
    Empire,
    GameState,
    Market,
    Planet,
    Ship,
)

LINKS = {101: (102, 107), 102: (101, 103), 103: (102, 104), 104: (103, 105), 105: (104, 106),
         106: (105, 199), 107: (101,), 199: (106,)}
EARTH = 199
HOMES = {1: 101, 2: 107, 3: 105}


def small_state(turn: int = 5) -> GameState:
    planets = {n: Planet(n, f"P{n}", links) for n, links in LINKS.items()}
    names = {1: "Grok", 2: "Winter", 3: "Master"}
    empires = {e: Empire(e, names[e], home) for e, home in HOMES.items()}
    for e, home in HOMES.items():
        planets[home].owner, planets[home].home_of = e, e
    market = Market(list(START_PRICES), list(START_STOCK), dict(START_MINIMUM_BIDS), 3)
    return GameState(turn, 1, planets, {}, empires, EARTH, market)


def add_ship(state: GameState, number: int, owner: int, planet: int, fuel: int = 0, *, fighters: int = 1,
             cargo: int = 50, tractors: int = 0, shields: int = 0, efficiency: int = 0) -> Ship:
    hold = Cargo()
    hold.ore[0] = fuel
    ship = Ship(number, owner, planet, fighters=fighters, cargo_units=cargo, tractors=tractors, shields=shields,
                efficiency=efficiency, hold=hold)
    state.ships[number] = ship
    return ship
