"""Celestial Empire rulings that no other test file pins
(docs/celestial_empire/rulings.md), and the check that keeps that document
and the tests together: every ruling is decided and names tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from celestial_text import orders
from gm.games.celestial_empire import formulas
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.mail import NAMES, CelestialEmpire
from gm.games.celestial_empire.notation import parse_order
from gm.games.celestial_empire.orders import Unit
from gm.games.celestial_empire.orders_empire import Jump
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.sheets import SHIP_TYPES, scores
from gm.games.celestial_empire.state import NEUTRAL, GameState, Ship, new_game
from gm.games.celestial_empire.turn import run_turn
from gm.kernel.errors import NotationError
from gm.pbem.operator.admin import seat_aliases

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "docs" / "celestial_empire" / "rulings.md"


@pytest.fixture(scope="module")
def start() -> GameState:
    return new_game(generate(7, 3), ["Grok", "Winter", "Master"])



def answers(report: Report, empire: int = 1) -> dict[str, str]:
    return {e.written: e.done or f"refused: {e.why}" for e in report.history.get(empire, [])}


# The document and the tests ----------------------------------------------------

def test_every_ruling_is_decided_and_pinned_by_tests_that_exist():
    """Every R-n of rulings.md is **Decided:** and has a "Pinned by" line; every
    `tests/<file>.py::<test>` it names is a test function of that file, and every
    bare `test_...` name is a test of some tests/test_celestial_*.py file."""
    text = RULINGS.read_text()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    numbers = [int(re.match(r"R-(\d+)\.", s).group(1)) for s in sections]
    assert numbers == list(range(1, 85))
    defined: dict[str, set[str]] = {}
    for path in (ROOT / "tests").glob("test_*.py"):
        defined[path.name] = set(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(), re.M))
    celestial = set().union(*(names for file, names in defined.items() if file.startswith("test_celestial_")))
    for section in sections:
        title = section.splitlines()[0]
        assert "**Decided:**" in section, title
        assert "**Proposed" not in section, title
        assert re.search(r"Pinned\s+by", section), title
        pinned = re.findall(r"tests/(test_\w+\.py)::(test_\w+)", section)
        assert pinned, f"{title}: names no tests/<file>.py::<test>"
        for file, test in pinned:
            assert test in defined.get(file, set()), f"{title}: no test {test} in tests/{file}"
        bare = set(re.findall(r"\b(test_\w+)\b(?!\.py)", section))
        assert bare <= celestial | {t for _, t in pinned}, f"{title}: no such tests {sorted(bare - celestial)}"


# A. Notation --------------------------------------------------------------------

def test_numbers_are_read_as_written_and_judged_by_the_rules_r4(start):
    """R-4: unsigned decimal, leading zeros dropped, a type one digit; no upper
    bound in the notation; a zero amount is answered as asking for none, a huge
    one is cut (P1), and a ship that is not the empire's is "not yours" whether
    or not it exists."""
    assert parse_order("S0123J0120") == Jump(123, (120,))
    with pytest.raises(NotationError):
        parse_order("S123U4R12")
    with pytest.raises(NotationError):
        parse_order("S123L-4R1")
    ship, home = start.ships_of(1)[0].number, start.empires[1].home
    missing = next(n for n in range(100, 1000) if n not in start.ships)
    _, report = run_turn(start, {1: orders(f"S{ship}L0R2\n{home}B0D\nS{missing}U5R2\nS{ship}L1000000R1\n")})
    said = answers(report)
    assert said[f"S{ship}L0R2"] == "refused: the order asks for none"
    assert said[f"{home}B0D"] == "refused: no PDUs asked for"
    assert said[f"S{missing}U5R2"] == f"refused: ship {missing} is not yours"
    assert said[f"S{ship}L1000000R1"].startswith(f"S{ship}L6R1, cut by C")


def test_standing_orders_are_ship_or_planet_orders_read_when_given_r62():
    """R-62: `O` takes a ship's or a planet's order and nothing else; the
    notation reads it when the mail comes."""
    assert str(parse_order("os123ai")) == "OS123AI" and str(parse_order("O234B3D")) == "O234B3D"
    for text in ("OSCAN200", "O+Winter", "OOS123AI", "OTURN30", "O{hello}", "OS123AQ"):
        with pytest.raises(NotationError):
            parse_order(text)


# B. Names -----------------------------------------------------------------------

def test_empire_names_are_one_word_not_a_reserved_word_unique_ignoring_case_r14():
    """R-14: 1 to 9 letters and digits starting with a letter, no word orders
    use, unique ignoring case; the defaults are mail.NAMES."""
    rules = CelestialEmpire()
    for good in ("Grok", "W", "Psi9Ninja", "abcdefghi"):
        assert rules.alias_problem(good) is None, good
    for bad in ("", "abcdefghij", "9Lives", "Grok the", "Grok;", "Ast-ral"):
        assert "1 to 9 letters and digits" in (rules.alias_problem(bad) or ""), bad
    for reserved in ("Neutral", "EARTH", "ally", "Friend", "friendly", "Enemy", "HOSTILE"):
        assert "orders use the word" in (rules.alias_problem(reserved) or ""), reserved
    assert rules.default_aliases(3) == ["Altair", "Boreas", "Cygnus"] == list(NAMES[:3])
    assert seat_aliases(rules, 3, ["Grok"]) == ["Grok", "Boreas", "Cygnus"]
    with pytest.raises(ValueError, match="alias of their own"):
        seat_aliases(rules, 2, ["Grok", "GROK"])


# M. Galaxy and setup ----------------------------------------------------------

def test_empty_home_positions_are_ordinary_neutral_planets_r73():
    """R-73: a game of fewer than nine empires keeps all nine home positions;
    the empty ones are neutral planets as the generator builds any other, not
    armed home layouts, and nobody's home."""
    galaxy = generate(11, 3)
    state = new_game(galaxy, ["Grok", "Winter", "Master"])
    assert len(galaxy.homes) == 9 and len(state.planets) == 256
    for seat, number in enumerate(galaxy.homes, 1):
        planet = state.planets[number]
        if seat <= 3:
            assert (planet.owner, planet.home_of, planet.industry, planet.pdus) == (seat, seat, 60, 100)
        else:
            assert (planet.owner, planet.home_of) == (NEUTRAL, None)
            assert (planet.industry, planet.pdus) == (0, 0) and sum(planet.mines) <= 15, planet


def test_the_starting_values_r74_r78(start):
    """R-74: the decided starting figures; R-78: starting ships have efficiency 0."""
    for empire in start.empires.values():
        home = start.planets[empire.home]
        assert (home.industry, home.pdus, home.spacemines, home.deployed) == (60, 100, 0, 0)
        assert home.mines == [4, 3, 3, 2, 2, 1, 1, 0, 4, 4] and home.ore == [30] * 10
        ships = start.ships_of(empire.number)
        assert sorted((s.fighters, s.cargo_units, s.tractors, s.shields, s.hold.ore[0]) for s in ships) == \
            [(0, 40, 0, 0, 0)] + [(1, 10, 0, 0, 4)] * 4
        assert all(s.planet == empire.home and s.efficiency == 0 and sum(s.hold.ore) == s.hold.ore[0]
                   for s in ships)
        assert (empire.score, empire.credits, empire.ratings) == (0, 0, {})
    earth = start.planets[start.earth]
    assert (earth.owner, earth.industry, earth.pdus, earth.mines, earth.ore) == \
        (NEUTRAL, 60, 200, [0] * 10, [100] * 10)
    market = start.market
    assert market.price == [10, 16, 6, 6, 15, 6, 5, 3, 12, 14]
    assert market.stock == [89, 76, 99, 98, 71, 100, 95, 90, 81, 74]
    assert market.minimum_bids == {Unit.CARGO: 1, Unit.FIGHTER: 3, Unit.SHIELD: 2, Unit.TRACTOR: 2}
    assert (market.score_per_credit, market.limited_selling) == (2, True)


def test_ship_numbers_are_drawn_from_100_to_999_by_the_seed_r75():
    """R-75: the starting ships' numbers are random three-digit numbers from
    the game's seed, all different; new ships draw unused ones (R-54)."""
    one = new_game(generate(7, 9), list(NAMES))
    again = new_game(generate(7, 9), list(NAMES))
    other = new_game(generate(8, 9), list(NAMES))
    numbers = sorted(one.ships)
    assert len(numbers) == 45 and all(100 <= n <= 999 for n in numbers)
    assert numbers == sorted(again.ships) and numbers != sorted(other.ships)
    assert numbers != list(range(numbers[0], numbers[0] + 45))  # not sequential


def hull(fighters: int, cargo: int) -> Ship:
    return Ship(100, 1, 100, fighters=fighters, cargo_units=cargo, tractors=7, shields=9)


def test_the_ship_type_table_governs_r76():
    """R-76: the 25 types of the table (Empty Ship and 24), in its names; the
    example's S101 (f=1, c=10) is a Small Cargo, not a "Medium Cargo"."""
    assert len(SHIP_TYPES) == 25 and SHIP_TYPES[:2] == ("Empty Ship", "Small Cargo")
    assert SHIP_TYPES[-1] == "Ultra Deathstar" and "Mini Battle" not in SHIP_TYPES
    assert not {"Dreadnought", "Death Star", "Mega DthStar"} & set(SHIP_TYPES)
    assert formulas.ship_type(hull(1, 10)) == "Small Cargo"
    assert {formulas.ship_type(hull(f, c)) for f in range(0, 300, 7) for c in range(0, 300, 11)} <= set(SHIP_TYPES)


@pytest.mark.parametrize("fighters, cargo, kind", [
    (0, 0, "Empty Ship"), (0, 10, "Small Cargo"), (0, 11, "Medium Cargo"), (0, 251, "Ultra Cargo"),
    (4, 9, "Small Cargo"), (5, 10, "Small Ship"), (20, 10, "Medium Ship"), (21, 10, "Medium Battle"),
    (89, 10, "Super Battle"), (90, 10, "Super Deathstar"), (1, 0, "Small Deathstar"),
    (251, 0, "Ultra Deathstar"), (75, 100, "Large Ship"), (76, 1, "Super Deathstar"),
])
def test_ship_type_boundaries_r79(fighters, cargo, kind):
    """R-79: r = f/c; below 0.5 a Cargo sized by c; 0.5 to 2 a Ship, above 2
    and below 9 a Battle, 9 or more (and c = 0) a Deathstar, sized by f;
    shields and tractors count for nothing."""
    assert formulas.ship_type(hull(fighters, cargo)) == kind


def test_every_empires_score_by_player_number_three_to_a_row_r81(start):
    """R-81: empires are numbered in seat order; the score table lists every
    score by number, three to a row, without names."""
    state = new_game(generate(7, 5), ["A", "B", "C", "D", "E"])
    for number, empire in state.empires.items():
        assert empire.name == "ABCDE"[number - 1]
        empire.score = 100 * number
    assert scores(state) == [[100, 200, 300], [400, 500]]


# N. Empires that stop sending orders ----------------------------------------

def test_silence_costs_only_that_turns_orders_r84(start):
    """R-84: no forfeit for silence; an empire that sends nothing still mines,
    scores and keeps everything."""
    assert CelestialEmpire.forfeit_for_silence is False
    after, report = run_turn(start, {2: orders("+Grok\n")})
    home = start.empires[1].home
    assert after.empires[1].score > start.empires[1].score
    assert after.planets[home].ore[8] == start.planets[home].ore[8] + 4 and after.planets[home].owner == 1
    assert {s.number for s in after.ships_of(1)} == {s.number for s in start.ships_of(1)}
    assert 1 not in report.history


# A. Late orders, by mail -------------------------------------------------------

def test_a_mail_answering_a_turn_that_ran_is_not_used_for_the_next_r12(tmp_path):
    """R-12: a reply to turn 1's sheet that comes after turn 1 ran is not
    taken as turn 2's orders (ruling w): the orders already sent for turn 2
    stand, and the reply says so."""
    import asyncio
    from datetime import timedelta

    from gm.kernel.values import Options
    from gm.pbem.operator.admin import request_game
    from gmtest import Player, World, text

    addresses = ("ann@example.org", "bea@example.net")

    async def scenario() -> None:
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, list(addresses), "standard",
                         Options(deadline=timedelta(hours=48)), world.clock(), aliases=["Grok", "Winter"],
                         game="celestial-empire")
            await world.settle()
            ann, bea = (Player(a, world) for a in addresses)
            game = world.daemon.master.games["g1"]
            first = ann.latest()
            await world.act(ann.reply, "+Winter\n")
            await world.act(bea.reply, "+Grok\n")
            assert game.turn == 2
            await world.act(ann.reply, "SCAN200\n")  # turn 2's orders, in reply to turn 2's sheet
            await world.act(ann.reply, "-Winter\n", to=first)  # answers turn 1, which has run
            reply = ann.latest()
            assert str(reply["Subject"]) == "[gm g1] Turn 2: your mail answers turn 1: not used"
            assert "they answer turn 1, which ran before your mail came" in text(reply)
            assert "    SCAN200\n" in text(reply)  # what is in force now
            assert [str(o) for o in game.play.pending[1]] == ["SCAN200"]

    asyncio.run(scenario())
