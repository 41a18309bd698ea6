"""What a Celestial Empire replay keeps from turn to turn, or no longer
makes, gives what a fresh computation gives (issue 27, row 4, third round).

The state's digest writes each planet, ship and empire once and keeps its
text for the game's next state (`verification._object_text`, keyed by the
object's class and the pickle of its members); an object whose members are
its fields, none a mapping, goes to `json` as it is, and the mappings'
keys are written once for the game (`verification._key_label`). Pinned on
random games (hypothesis, the fuzz test's orders), turn after turn, and on
the same states with one member of one object changed in place to a value
that compares equal but is written otherwise (``True`` for ``1``, ``1.0``
for ``1``) or to another value: the text is the one `plain_value` and
`json` write from scratch.

The turn reads every empire's standing orders from one look at the ships
and planets (`turn.standing_texts`), and hands each step its phase's orders
from one pass over them all: pinned against each empire's own look
(`GameState.ships_of`, `planets_of`) and against each step's orders picked
from all of them, on random games.

The reply to the GM's robot's own mail, which the kernel sends no one, no
longer lists the orders in force (``in_force``); a person's still does.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st

from celestial_fuzz import NAMES, scattered_game, upheaval
from gm.games.celestial_empire import turn
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.mail import CelestialEmpire, Terms
from gm.games.celestial_empire.orders import PlanetOrder, ShipOrder
from gm.games.celestial_empire.state import GameState, new_game
from gm.games.celestial_empire.steps import STEPS
from gm.games.celestial_empire.turn import run_turn, standing_texts
from gm.games.celestial_empire.verification import canonical_state, plain_value
from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail, Seat
from test_celestial_fuzz import orders_of


def plainly(state: GameState) -> bytes:
    """The canonical serialisation as the docs define it, made from scratch: `plain_value`, then `json`."""
    return (json.dumps(plain_value(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            + "\n").encode("utf-8")


def first_state(seed: int, empires: int) -> GameState:
    """A random game's first state: new, in the middle of things, or turned upside down."""
    if seed % 3 == 0:
        return new_game(generate(seed, empires), list(NAMES[:empires]))
    state = scattered_game(seed, empires)
    return upheaval(state) if seed % 3 == 2 and empires >= 3 else state


def changed_in_place(state: GameState, rng: random.Random) -> None:
    """One member of one planet, ship or empire changed in place: to a
    value equal to it but written otherwise, or to another value."""
    things = [*state.planets.values(), *state.ships.values(), *state.empires.values()]
    thing = rng.choice(things)
    names = sorted(name for name, value in vars(thing).items() if type(value) in (int, bool))
    name = rng.choice(names)
    value = getattr(thing, name)
    setattr(thing, name, rng.choice([bool(value), float(value), value + 1, -value]))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 9))
@example(3, 9)
@example(5, 4)
def test_each_turns_digest_is_the_state_written_from_scratch(seed, empires):
    state = first_state(seed, empires)
    rng = random.Random(seed)
    for _ in range(8):
        assert canonical_state(state) == plainly(state), f"turn {state.turn}"
        orders, research = orders_of(state, rng)
        state, _ = run_turn(state, orders, research)
        twin = state.copy()
        changed_in_place(twin, rng)
        assert canonical_state(twin) == plainly(twin), f"turn {state.turn}, changed"


def test_a_planet_changed_in_type_only_is_written_anew():
    """A planet's members go to `json` as they are: ``True`` stays ``true``."""
    state = scattered_game(4, 3)
    planet = next(p for p in state.planets.values() if p.research)
    planet.pdus = 1
    canonical_state(state)
    twin = state.copy()
    twin.planets[planet.number].pdus = True
    twin.planets[planet.number].research = 1
    written = canonical_state(twin)
    assert written == plainly(twin)
    assert f'"number":{planet.number},"ore"'.encode() in written and b'"pdus":true,"research":1,' in written


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 9))
@example(3, 9)
def test_the_standing_orders_read_in_one_look_are_each_empires_own(seed, empires):
    state = first_state(seed, empires)
    rng = random.Random(seed)
    for _ in range(6):
        for thing in [*state.ships.values(), *state.planets.values()]:
            if rng.random() < 0.2:
                thing.standing = rng.choice(["J100", "nonsense", f"S{rng.randrange(100, 999)}J100", "100B1P"])
        numbers = sorted(set(state.empires) | {rng.randrange(1, 12)})
        texts = standing_texts(state, numbers)
        for empire in numbers:
            expected = [(s.standing, ShipOrder, s.number) for s in state.ships_of(empire) if s.standing is not None]
            expected += [(p.standing, PlanetOrder, p.number) for p in state.planets_of(empire)
                         if p.standing is not None]
            assert texts[empire] == expected, f"turn {state.turn}, empire {empire}"
        orders, research = orders_of(state, rng)
        state, _ = run_turn(state, orders, research)


def turn_spied(state: GameState, orders: dict, research: dict) -> tuple[GameState, list, dict]:
    """`run_turn`, with every order of the turn in the rotation (what
    `turn.in_rotation` gave) and the orders each step was given, by phase."""
    everything: list = []
    given_to: dict[object, list] = {}
    real_steps = dict(STEPS)
    real_rotation = turn.in_rotation

    def rotation(turn_number, by_empire):
        everything.extend(real_rotation(turn_number, by_empire))
        return list(everything)

    def spy(phase, step):
        def step_spied(after, taken, report):
            given_to[phase] = list(taken)
            return step(after, taken, report)
        return step_spied

    try:
        turn.in_rotation = rotation
        for phase, step in real_steps.items():
            STEPS[phase] = spy(phase, step)
        after, _ = run_turn(state, orders, research)
    finally:
        turn.in_rotation = real_rotation
        STEPS.update(real_steps)
    return after, everything, given_to


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 9))
@example(3, 9)
def test_each_step_is_given_its_phases_orders_in_the_rotation(seed, empires):
    state = first_state(seed, empires)
    rng = random.Random(seed)
    for _ in range(4):
        orders, research = orders_of(state, rng)
        state, everything, given_to = turn_spied(state, orders, research)
        assert everything
        assert given_to == {phase: [(e, o) for e, o in everything if o.phase == phase] for phase in STEPS}


AT = datetime(2026, 11, 27, 9, 0, 0, 250_000, tzinfo=UTC)


def test_the_robots_reply_lists_no_orders_in_force_and_a_persons_does(monkeypatch):
    seats = (Seat(1, "p1@example.org", "Grok"), Seat(2, "robot@gm.example.org", "Winter", robot="easy"))
    game, _ = engine.create(Created(AT, "g1", seats, "standard", Options(), Terms(7), game="celestial-empire"))
    replies = []
    real = CelestialEmpire.submit

    def submit(self, game, event, mail, reply):
        replies.append((event.player, reply))
        return real(self, game, event, mail, reply)

    monkeypatch.setattr(CelestialEmpire, "submit", submit)
    ship = game.play.state.ships_of(1)[0]
    robots = game.play.state.ships_of(2)[0]
    engine.apply(game, PlayerMail(AT + timedelta(minutes=1), 2, f"S{robots.number}=Arrow\n", robot=True))
    engine.apply(game, PlayerMail(AT + timedelta(minutes=2), 1, f"S{ship.number}=Bow\n"))
    (robot, robot_reply), (person, person_reply) = replies
    assert (robot, person) == (2, 1)
    assert "in_force" not in robot_reply.data and robot_reply.done
    assert person_reply.data["in_force"] == [f"S{ship.number}=Bow"]
