"""The GM's robot for Celestial Empire (`gm.games.celestial_empire.robot`):
its orders are a player's (every line read by the game's own parser, over
whole games at every level), it sees no more than its empire's sheet (two
games that differ only in what the empire cannot see give it the same
orders), and its only chance is the ``rng`` it is given."""

from __future__ import annotations

import copy
import random
from collections import deque
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_robots import play
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.mail import Terms
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.robot import LEVELS, robot_mail
from gm.games.celestial_empire.state import GameState, new_game
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.variants import variant_named
from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail, Seat

pytestmark = pytest.mark.slow  # whole games of nine robot empires, and hypothesis over robot turns

AT = datetime(2026, 11, 26, 12, 0, 0, 250_000, tzinfo=UTC)
CONDITIONS = variant_named("standard").conditions


@pytest.mark.parametrize("seed", [1, 2])
def test_every_level_plays_whole_games_with_no_line_refused_and_few_orders_undone(seed):
    played = play(seed, LEVELS * 3, turns=60)
    assert played.rejected == 0
    assert played.orders > 1000
    undone = sum(played.not_done.values())
    assert undone <= played.orders // 20, played.not_done.most_common(10)


def test_the_same_seed_gives_the_same_orders_and_another_seed_may_not():
    first = play(3, ("hard", "normal", "easy"), turns=15, keep=True)
    again = play(3, ("hard", "normal", "easy"), turns=15, keep=True)
    assert first.mails == again.mails
    state = new_game(generate(4, 3), ["Grok", "Winter", "Master"])
    texts = {robot_mail(state, None, 1, CONDITIONS, "hard", random.Random(seed)) for seed in range(20)}
    assert all(text.strip() for text in texts)


def test_the_robot_plays_through_the_kernel_as_a_player_mails():
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter", "Master"), 1))
    game, _ = engine.create(Created(AT, "g1", seats, "standard", Options(), Terms(11), game="celestial-empire"))
    rules = game.rules
    assert rules.robot_levels == ("easy", "normal", "hard")
    at = AT
    for turn in range(1, 9):
        assert rules.turn(game) == turn
        for seat, level in zip(seats, LEVELS):
            text = rules.robot_text(game, seat.player, level, random.Random(f"{turn}.{seat.player}"))
            assert text
            at += timedelta(minutes=1)
            notices = engine.apply(game, PlayerMail(at, seat.player, text))
            if seat.player < len(seats):
                assert rules.robot_text(game, seat.player, level, random.Random(1)) is None, "sent already"
                assert not any("not understood" in n.subject for n in notices)
    assert rules.turn(game) == 9


# Secrecy: what an empire cannot see does not change its robot's orders.

WATCHER = 1


def distances(state: GameState, starts: set[int]) -> dict[int, int]:
    """Jumps from the nearest of ``starts`` to every planet, on the real map."""
    found = dict.fromkeys(starts, 0)
    queue = deque(sorted(starts))
    while queue:
        here = queue.popleft()
        for there in state.planets[here].links:
            if there not in found:
                found[there] = found[here] + 1
                queue.append(there)
    return found


def base() -> tuple[GameState, Report, int, int, int, int]:
    """Nine robot empires six turns in; the empire whose home is farthest from
    all the watcher holds (the hider), a ship of the hider's and a planet of
    its own to move it to, and a neutral planet, all at least `FAR` jumps
    from all the watcher holds: its robot's ships move one jump a turn and
    it scans one beyond its planets, so in three turns it sees none of them."""
    state = new_game(generate(9, 9), [f"E{n}" for n in range(1, 10)])
    report = None
    for turn in range(1, 7):
        orders = {}
        for empire in sorted(state.empires):
            text = robot_mail(state, report, empire, CONDITIONS, LEVELS[empire % 3], random.Random(turn * 10 + empire))
            orders[empire] = [line.order for line in parse_orders(text) if line.order is not None]
        state, report = run_turn(state, orders)
    held = {p.number for p in state.planets_of(WATCHER)} | {s.planet for s in state.ships_of(WATCHER)}
    far = distances(state, held)
    hider = max((e for e in state.empires if e != WATCHER), key=lambda e: (far[state.empires[e].home], -e))
    neutral = max((p for p in state.planets.values() if p.owner == 0 and p.number != state.earth),
                  key=lambda p: (far[p.number], -p.number)).number
    ship = next(s.number for s in state.ships_of(hider) if far[s.planet] >= FAR)
    to = next(p.number for p in state.planets_of(hider)
              if far[p.number] >= FAR and p.number != state.ships[ship].planet)
    assert far[state.empires[hider].home] >= FAR and far[neutral] >= FAR
    assert report is not None
    return state, report, hider, neutral, ship, to


FAR = 4
BASE = base()


def change(state: GameState, what: str, amount: int) -> None:
    """Change something the watcher cannot see."""
    _, _, hider, neutral, number, to = BASE
    home = state.planets[state.empires[hider].home]
    ship = state.ships[number]
    if what == "ore":
        home.ore[amount % 10] += amount
    elif what == "pdus":
        home.pdus += amount
    elif what == "stored spacemines":
        home.spacemines += amount
    elif what == "shields":
        ship.shields += amount
    elif what == "hold":
        ship.hold.ore[amount % 10] += amount
        ship.cargo_units += amount
    elif what == "a ship elsewhere":
        ship.planet = to
    elif what == "unscanned planet's ore":
        state.planets[neutral].ore[amount % 10] += amount
    elif what == "unscanned planet's pdus":
        state.planets[neutral].pdus += amount


def watch(state: GameState, report: Report) -> list[str]:
    """Three turns in which only the watcher sends orders (its robot's, at
    the hard level): its mail of each turn."""
    mails = []
    for turn in range(3):
        text = robot_mail(state, report, WATCHER, CONDITIONS, "hard", random.Random(turn))
        mails.append(text)
        state, report = run_turn(state, {WATCHER: [line.order for line in parse_orders(text)
                                                   if line.order is not None]})
    return mails


SEEN = watch(copy.deepcopy(BASE[0]), BASE[1])

HIDDEN = ["ore", "pdus", "stored spacemines", "shields", "hold", "a ship elsewhere", "unscanned planet's ore",
          "unscanned planet's pdus"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(HIDDEN), st.integers(1, 40))
def test_what_an_empire_cannot_see_changes_nothing_its_robot_orders(what, amount):
    state, report = copy.deepcopy(BASE[0]), BASE[1]
    change(state, what, amount)
    assert watch(state, report) == SEEN


def test_what_the_empire_does_see_can_change_its_orders():
    state, report = copy.deepcopy(BASE[0]), BASE[1]
    home = state.planets[state.empires[WATCHER].home]
    home.ore[8] += 200
    home.ore[9] += 200
    assert watch(state, report) != SEEN
