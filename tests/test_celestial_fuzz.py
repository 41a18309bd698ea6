"""Long random Celestial Empire games: the rules core survives them and
keeps its invariants.

Games of 2 to 9 empires on generated galaxies are played for many turns,
each empire sending a random but plausible order mail built from its own
view (tests/celestial_fuzz.py), read by `notation.parse_orders`. After
every turn `check_turn` asserts: `run_turn` raised nothing and left its
input state as it was; every order, standing order and research line got
exactly one line in its empire's command history (a message only when it
cannot be sent, R-80; a planet scanned twice once, l.2379); nothing is negative (ore,
mines, industry, PDUs, spacemines, ship units, holds, credits, Earth's
market); every hold fits its cargo units; every ship orbits a planet that
exists, at most five links from where it was, owned by an empire that
exists, and no hull is lost; ship numbers stay in 100 to 999; the steps
that only move goods (loading, tending, gifts, movement...) neither make nor
lose any, battle only destroys and fires nothing over Earth before turn 15
(R-31), trading changes only credits; the galaxy's
links stay symmetric; what changes hands loses its standing order (l.1601)
and NEUTRAL's things have none; no empire rates itself or an empire that
is not;
every empire's sheet renders, text and HTML, no text line over 78 columns;
and the winning conditions and variants answer.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from celestial_fuzz import NAMES, mail_for, scattered_game, upheaval
from gm.games.celestial_empire import sheets
from gm.games.celestial_empire.damage import AMNESTY_ENDS
from gm.games.celestial_empire.empire_steps import ending_turn
from gm.games.celestial_empire.galaxy import FIRST_NUMBER, ORE_TYPES, generate
from gm.games.celestial_empire.mail import Terms
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.orders import Order, Phase
from gm.games.celestial_empire.orders_empire import MAX_JUMPS, AllianceMessage, Broadcast, PersonalMessage, Scan
from gm.games.celestial_empire.report import Report, Step
from gm.games.celestial_empire.research import is_research_turn, research_lines
from gm.games.celestial_empire.state import NEUTRAL, GameState, new_game
from gm.games.celestial_empire.steps import STEPS
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.variants import variant_named
from gm.games.celestial_empire.winning import game_over, winners
from gm.kernel import engine
from gm.kernel.values import Created, DeadlinePassed, Options, PlayerMail, Seat
from gm.pbem.writing.mailer import body_html, body_text, render_html, render_text

pytestmark = pytest.mark.slow  # long random games (fuzz)

PACKAGE = "gm.games.celestial_empire"
AT = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
WIDTH = 78
MESSAGES = (Broadcast, PersonalMessage, AllianceMessage)
"""Messages sent are in no history (R-80); only one that cannot be sent is answered there."""
VARIANTS = [variant_named(v) for v in ("standard", "standard+turns=30", "standard+voted=20+most=credits",
                                       "standard+score=no+planets=3+income=50+credits=10")]


def orders_of(state: GameState, rng: random.Random) -> tuple[dict[int, list[Order]], dict[int, list[str]]]:
    """Every empire's orders and research lines for the turn, read from its mail."""
    orders: dict[int, list[Order]] = {}
    research: dict[int, list[str]] = {}
    for empire in sorted(state.empires):
        lines = parse_orders(mail_for(state, empire, rng))
        orders[empire] = [line.order for line in lines if line.order is not None]
        research[empire] = research_lines(lines)
    return orders, research


def standing_count(state: GameState, empire: int) -> int:
    return (sum(s.standing is not None for s in state.ships_of(empire))
            + sum(p.standing is not None for p in state.planets_of(empire)))


def not_negative(state: GameState) -> list[str]:
    """Everything that has gone below zero, named."""
    bad = []
    for p in state.planets.values():
        values = {"mines": p.mines, "ore": p.ore}
        if min(p.mines + p.ore) < 0 or min(p.industry, p.pdus, p.spacemines, p.deployed) < 0:
            bad.append(f"planet {p.number}: {values} I{p.industry} D{p.pdus} S{p.spacemines} dep{p.deployed}")
    for s in state.ships.values():
        h = s.hold
        if min(s.fighters, s.cargo_units, s.tractors, s.shields, s.efficiency) < 0 \
                or min([*h.ore, h.mines, h.industry, h.pdus, h.spacemines]) < 0:
            bad.append(f"ship {s.number}: {s}")
    bad += [f"empire {e.number} credits {e.credits} score {e.score}" for e in state.empires.values()
            if min(e.credits, e.score) < 0]
    market = state.market
    if min(market.price + market.stock) < 0 or min(market.minimum_bids.values()) < 0:
        bad.append(f"market {market}")
    return bad


def within(state: GameState, start: int, end: int, links: int) -> bool:
    """Whether ``end`` is at most ``links`` links from ``start``."""
    reached = {start}
    for _ in range(links):
        reached |= {there for here in reached for there in state.planets[here].links}
    return end in reached


def at_earth(state: GameState) -> tuple[object, ...]:
    """What shots could change over Earth: its planet, the units of the ships
    there, and who is hostile to Earth."""
    earth = state.planets[state.earth]
    ships = [(s.number, s.fighters, s.cargo_units, s.tractors, s.shields) for s in state.ships_at(state.earth)]
    hostile = [e.hostile_to_earth for _, e in sorted(state.empires.items())]
    return (earth.pdus, earth.industry, earth.deployed, tuple(earth.mines), tuple(earth.ore), ships, hostile)


def goods(state: GameState) -> dict[str, int]:
    """Everything that can only be moved, not made, by most steps: ore of
    each type (planets, holds, Earth's market), mines, industry, PDUs,
    spacemines (stored, carried, deployed), credits, ship units."""
    planets, holds = list(state.planets.values()), [s.hold for s in state.ships.values()]
    found = {f"ore {t}": sum(p.ore[t] for p in planets) + sum(h.ore[t] for h in holds) + state.market.stock[t]
             for t in range(ORE_TYPES)}
    found["mines"] = sum(sum(p.mines) for p in planets) + sum(h.mines for h in holds)
    found["industry"] = sum(p.industry for p in planets) + sum(h.industry for h in holds)
    found["pdus"] = sum(p.pdus for p in planets) + sum(h.pdus for h in holds)
    found["spacemines"] = sum(p.spacemines + p.deployed for p in planets) + sum(h.spacemines for h in holds)
    found["credits"] = sum(e.credits for e in state.empires.values())
    found["units"] = sum(s.units() for s in state.ships.values())
    return found


MOVES_ONLY = {Phase.GAME_LENGTH, Phase.NAMING, Phase.GIFTING, Phase.ALLIANCES, Phase.UNLOADING, Phase.LOADING,
              Phase.SPACEMINES, Phase.TENDING, Phase.MOVEMENT, Phase.SCANNING, Phase.STANDING_ORDERS, None}
"""The steps that only move goods about: every total of `goods` is the same after them."""
TRADES = {Phase.TRADING: ("credits",)}
"""Steps that may change some totals only (trading: credits come from Earth's purse)."""
BURNS = {Phase.MOVEMENT: ("ore 0",)}
"""Steps that may use some totals up (a jump burns fuel)."""
DESTROYS = {Phase.BATTLE}
"""Steps that may destroy but never make anything."""


@contextmanager
def conservation_checked() -> Iterator[None]:
    """Every step of `MOVES_ONLY`, `TRADES` and `DESTROYS` checked against
    `goods` as the turns run: the steps wrapped in `steps.STEPS`, then put back."""
    original = dict(STEPS)

    def checked(phase: Phase | None, function: Step) -> Step:
        def run(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
            before = goods(state)
            earth_before = at_earth(state)
            function(state, orders, report)
            after = goods(state)
            if phase in MOVES_ONLY or phase in TRADES:
                free = TRADES.get(phase, ()) + BURNS.get(phase, ())
                assert {k: v for k, v in after.items() if k not in free} == \
                    {k: v for k, v in before.items() if k not in free}, (phase, before, after)
                assert all(after[k] <= before[k] for k in BURNS.get(phase, ())), (phase, before, after)
            if phase in DESTROYS:
                assert all(after[k] <= before[k] for k in before), (phase, before, after)
            if phase == Phase.BATTLE and state.turn < AMNESTY_ENDS:
                assert at_earth(state) == earth_before, "a shot at Earth in the amnesty (R-31)"
        return run

    STEPS.update({phase: checked(phase, function) for phase, function in original.items()})
    try:
        yield
    finally:
        STEPS.update(original)


def check_turn(before: GameState, untouched: GameState, orders: dict[int, list[Order]],
               research: dict[int, list[str]], after: GameState, report: Report) -> None:
    """Every invariant of one turn (see the module's docstring)."""
    assert before == untouched, "run_turn changed the state it was given"
    for empire in before.empires:
        lines = report.history.get(empire, [])
        assert sum(e.standing for e in lines) == standing_count(before, empire), (empire, lines)
        sent = orders.get(empire, [])
        asked = Counter(str(o) for o in sent if not isinstance(o, (*MESSAGES, Scan)))
        asked += Counter({str(o): 1 for o in sent if isinstance(o, Scan)})  # once in the history (l.2379)
        if is_research_turn(before.turn):
            asked += Counter(research.get(empire, []))
        answered = Counter(e.written for e in lines if not e.standing)
        messages = Counter(str(o) for o in orders.get(empire, []) if isinstance(o, MESSAGES))
        assert answered - asked <= messages, (empire, answered - asked - messages)
        assert asked - answered == Counter(), (empire, asked - answered)
        assert all(bool(e.done) != bool(e.why) for e in lines), [e for e in lines if bool(e.done) == bool(e.why)]
    assert not_negative(after) == []
    for ship in after.ships.values():
        assert ship.hold.space() <= ship.cargo_units, ship
        assert ship.planet in after.planets, ship
        assert ship.owner in after.empires or ship.owner == NEUTRAL, ship
        assert len(ship.hold.ore) == ORE_TYPES
    assert all(number == ship.number for number, ship in after.ships.items())
    assert all(FIRST_NUMBER <= number < FIRST_NUMBER + 900 for number in after.ships), sorted(after.ships)
    for number, ship in after.ships.items():
        if number in before.ships:
            assert within(after, before.ships[number].planet, ship.planet, MAX_JUMPS), (ship, before.ships[number])
    assert set(before.ships) <= set(after.ships), "a ship's hull was lost"
    for planet in after.planets.values():
        assert planet.owner in after.empires or planet.owner == NEUTRAL, planet
        assert all(planet.number in after.planets[other].links for other in planet.links), planet
        assert len(planet.ore) == len(planet.mines) == ORE_TYPES
    assert after.turn == before.turn + 1
    for number, empire in after.empires.items():
        assert number not in empire.ratings and set(empire.ratings) <= set(after.empires), empire
    things = [(before.ships, after.ships), (before.planets, after.planets)]
    for was, now in things:
        for key, thing in now.items():
            if key in was and was[key].owner != thing.owner and thing.standing is not None:
                set_again = f"O{thing.standing}"  # set anew by its new owner (a ship's order starts with its S)
                assert any(e.done and e.written == set_again for e in report.history.get(thing.owner, [])), \
                    f"{thing} changed hands and kept its standing order (l.1601)"
            assert thing.owner != NEUTRAL or thing.standing is None, thing
    for empire in after.empires:
        data = {"game": "g1", "alias": NAMES[empire - 1], "phase": "play", "turn": after.turn,
                "deadline": None, "remaining": None} | sheets.sheet_data(after, report, empire)
        text = render_text("turn_sheet", data, PACKAGE)
        long = [line for line in text.splitlines() if len(line) > WIDTH]
        assert long == [], f"empire {empire}, turn {report.turn}: lines over {WIDTH} columns"
        assert render_html("turn_sheet", data, PACKAGE)
    for variant in VARIANTS:
        result = variant.result(after, report)
        assert result is None or set(result[1]) <= set(after.empires)
        assert isinstance(game_over(after, variant.conditions), bool)
        assert set(winners(after, variant.conditions)) <= set(after.empires)


def play(seed: int, empires: int, turns: int, scatter: bool = False, upset: bool = False) -> GameState:
    """A game of ``turns`` turns of random orders, checked after each; with
    ``scatter``, started in the middle of things (`celestial_fuzz.scattered_game`),
    with ``upset`` from an empire with nothing and Earth held (`celestial_fuzz.upheaval`)."""
    state = scattered_game(seed, empires) if scatter else new_game(generate(seed, empires), list(NAMES[:empires]))
    if upset:
        state = upheaval(state)
    rng = random.Random(seed * 1000 + empires)
    for _ in range(turns):
        orders, research = orders_of(state, rng)
        untouched = copy.deepcopy(state)
        with conservation_checked():
            after, report = run_turn(state, orders, research)
        check_turn(state, untouched, orders, research, after, report)
        state = after
    return state


@pytest.mark.parametrize(("seed", "empires", "turns", "scatter"),
                         [(1, 2, 40, False), (2, 5, 30, True), (3, 9, 20, True), (4, 3, 40, True)])
def test_a_long_random_game_keeps_every_invariant(seed, empires, turns, scatter):
    state = play(seed, empires, turns, scatter)
    assert state.turn == turns + 1


def test_a_game_where_an_empire_has_nothing_and_earth_is_held_keeps_every_invariant():
    assert play(11, 4, 20, scatter=True, upset=True).turn == 21


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 9))
@example(1997, 8)  # a ship given away, its standing order set again by its new owner the same turn
def test_any_seed_and_number_of_empires_keeps_every_invariant(seed, empires):
    play(seed, empires, 12, scatter=True)


def test_random_mails_through_the_kernel_play_a_voted_game_to_its_end():
    """The same orders by mail, through the kernel and the adapter
    (`celestial_empire.mail`), with slips, comments and commands among them,
    in a game whose length the empires vote: every notice renders, and the
    game ends after the turn the votes chose."""
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(NAMES[:4], 1))
    game, _ = engine.create(Created(AT, "g1", seats, "standard+voted=12", Options(), Terms(5),
                                    game="celestial-empire"))
    rng = random.Random(5)
    at = AT
    for _ in range(20):
        if game.phase != "play":
            break
        state = game.play.state
        for seat in seats:
            at += timedelta(minutes=1)
            extra = rng.choice(["", "status\n", "history\n", "help\n", "S1Q7\n", "TURN12\n"])
            body = mail_for(state, seat.player, rng) + extra
            for notice in engine.apply(game, PlayerMail(at, seat.player, body)):
                assert body_text(notice, PACKAGE)
                body_html(notice, PACKAGE)
            if game.play.state is not state:
                break
        if game.phase == "play" and game.play.state is state and game.deadline is not None:
            at = game.deadline
            for notice in engine.apply(game, DeadlinePassed(at, at)):
                assert body_text(notice, PACKAGE)
    assert game.phase != "play", "the votes never ended the game"
    assert game.outcome is not None, game.phase
    last = game.play.reports[-1].turn
    votes = [e.vote for e in game.play.state.empires.values() if e.vote is not None]
    assert "won" in game.outcome.reason or last >= (ending_turn(game.play.state) or 12), (game.outcome, votes)
