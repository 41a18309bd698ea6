"""What makes a Celestial Empire turn cheaper (issue 27), and that it
changes nothing: the copy of the state that `run_turn` works on
(`GameState.copy`: each state class copies what a turn may change, in
place of `copy.deepcopy`, which was a third of a replay), and the state's
canonical serialisation, whose digest every turn commits to
(`verification.canonical_state`: written by `json` as it walks the state).

Pinned here, on random games of 2 to 9 empires (the fuzz test's orders,
tests/celestial_fuzz.py), turn after turn: the copy equals a deepcopy and
shares no mutable object with its original (a field added later that
holds a list, a dict or another state object, and is not copied, fails
this); `run_turn` on the copy gives the same state, pickled byte for
byte (snapshots are pickles), and the same report as on a deepcopy; the
state it was given is left as it was; a turn makes no deepcopy; each
state is serialised byte for byte as `plain_value` and `json` write it,
to the digests gm wrote before; and two steps no longer do work a turn
rarely needs (the ship numbers drawn when no ship is built, every ship
looked at for each planet when ownership is judged).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from celestial_fuzz import NAMES, scattered_game, upheaval
from gm.games.celestial_empire import endturn, industry, verification
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.state import GameState, new_game
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.verification import canonical_state, plain_value, state_digest
from test_celestial_fuzz import orders_of


def mutable_parts(thing: object) -> Iterator[object]:
    """Every object reachable from ``thing`` that could be changed in place:
    the state's dataclasses, and every list, dict and set, at any depth."""
    if dataclasses.is_dataclass(thing) and not isinstance(thing, type):
        if not type(thing).__dataclass_params__.frozen:
            yield thing
        for name in vars(thing):
            yield from mutable_parts(getattr(thing, name))
    elif isinstance(thing, (list, dict, set)):
        yield thing
        for part in (thing.items() if isinstance(thing, dict) else thing):
            yield from mutable_parts(part)
    elif isinstance(thing, tuple):
        for part in thing:
            yield from mutable_parts(part)


def shared(original: GameState, twin: GameState) -> list[str]:
    """The mutable objects ``twin`` shares with ``original``, described."""
    mine = {id(part) for part in mutable_parts(original)}
    return [f"{type(part).__name__} {part!r:.80}" for part in mutable_parts(twin) if id(part) in mine]


def parse_orders_of(text: str) -> list:
    """The orders of a mail's text."""
    return [line.order for line in parse_orders(text) if line.order is not None]


def games(seed: int, empires: int, turns: int, upset: bool = False) -> Iterator[tuple[GameState, dict, dict]]:
    """The states of a random game of ``turns`` turns, each with the orders
    and research lines its turn is run with."""
    state = scattered_game(seed, empires) if seed % 2 else new_game(generate(seed, empires), list(NAMES[:empires]))
    if upset:
        state = upheaval(state)
    rng = random.Random(seed)
    for _ in range(turns):
        orders, research = orders_of(state, rng)
        yield state, orders, research
        state, _ = run_turn(state, orders, research)


def deep_turn(state: GameState, orders: dict, research: dict, monkeypatch: pytest.MonkeyPatch):
    """`run_turn` as it was, on a deepcopy of the state."""
    with monkeypatch.context() as patched:
        patched.setattr(GameState, "copy", lambda self: copy.deepcopy(self))
        return run_turn(state, orders, research)


def plainly(state: GameState) -> bytes:
    """The canonical serialisation as the docs define it: `plain_value`, then `json`."""
    return (json.dumps(plain_value(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            + "\n").encode("utf-8")


def check(seed: int, empires: int, turns: int, monkeypatch: pytest.MonkeyPatch, upset: bool = False) -> None:
    for state, orders, research in games(seed, empires, turns, upset):
        assert canonical_state(state) == plainly(state), f"turn {state.turn}"
        twin = state.copy()
        assert twin == copy.deepcopy(state)
        assert shared(state, twin) == []
        untouched = copy.deepcopy(state)
        after, report = run_turn(state, orders, research)
        assert state == untouched, "run_turn changed the state it was given"
        deep_after, deep_report = deep_turn(state, orders, research, monkeypatch)
        assert after == deep_after and report == deep_report, f"turn {state.turn}"
        assert pickle.dumps(after) == pickle.dumps(deep_after), f"turn {state.turn}"
        assert shared(state, after) == []


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 9))
@example(3, 9)
@example(4, 2)
def test_run_turn_on_the_copy_is_run_turn_on_a_deepcopy(seed, empires):
    with pytest.MonkeyPatch.context() as monkeypatch:
        check(seed, empires, 10, monkeypatch)


def test_an_empire_with_nothing_and_earth_held_copy_as_deepcopy_did(monkeypatch):
    check(11, 4, 8, monkeypatch, upset=True)


def test_a_turn_makes_no_deepcopy(monkeypatch):
    state, orders, research = next(games(5, 9, 1))

    def refused(*_args, **_kwargs):
        raise AssertionError("a turn deep-copied")

    monkeypatch.setattr(copy, "deepcopy", refused)
    after, _ = run_turn(state, orders, research)
    assert after.turn == state.turn + 1


def test_a_field_that_is_not_copied_is_found():
    """The check itself: a list shared by a copy is named."""
    state = scattered_game(7, 3)
    twin = state.copy()
    twin.planets[state.earth].ore = state.planets[state.earth].ore
    assert [line.split()[0] for line in shared(state, twin)] == ["list"]


def test_a_state_is_serialised_without_making_its_plain_value_first(monkeypatch):
    state = upheaval(scattered_game(11, 4))
    expected = plainly(state)

    def refused(_value):
        raise AssertionError("the state was made plain first")

    monkeypatch.setattr(verification, "plain_value", refused)
    assert canonical_state(state) == expected


def test_the_digests_are_those_gm_wrote_before():
    """Made by gm before this serialisation (main at 68aea0b): a new game, and one turned upside down."""
    assert state_digest(new_game(generate(7, 2), ["Grok", "Winter"])) == (
        "7bfee2ee6a279ae4a00188801fe403c85d3be284ab5d1e8907e9075537c7c595")
    assert state_digest(upheaval(scattered_game(11, 4))) == (
        "50352227e5848208d6aa37f2cefc8584b576df5808c48aa05416b5cf992b853f")


def test_a_turn_that_builds_no_ship_draws_no_ship_numbers(monkeypatch):
    """The free ship numbers are shuffled for a turn only when an order
    builds a ship (900 numbers, every turn before); a turn that builds
    one draws them as before."""
    drawn: list[str] = []
    real = industry.draws
    monkeypatch.setattr(industry, "draws", lambda seed, turn, purpose: drawn.append(purpose) or real(
        seed, turn, purpose))
    state = new_game(generate(3, 2), ["Grok", "Winter"])
    home = state.empires[1].home
    after, _ = run_turn(state, {1: parse_orders_of(f"{home}B1I\n")})
    assert drawn == [] and after.turn == 2
    state.planets[home].ore = [50] * 10
    state.planets[home].industry = 50
    after, report = run_turn(state, {1: parse_orders_of(f"{home}B1H1/0/0/0\n")})
    assert drawn == ["new-ship-numbers"] and len(after.ships) == len(state.ships) + 1, report.history[1]


def test_ownership_finds_the_ships_over_each_planet_in_one_pass(monkeypatch):
    """Step 23 judges every planet from the ships over it: gathered in one
    pass over the ships, not a pass over all of them for each planet."""
    state, orders, research = next(games(3, 9, 1))
    expected, _ = run_turn(state, orders, research)

    def refused(*_args):
        raise AssertionError("every ship looked at for one planet")

    with monkeypatch.context() as patched:
        patched.setattr(endturn.GameState, "ships_at", refused)
        report = Report(state.turn)
        twin = state.copy()
        endturn.ownership(twin, report)
    reference = state.copy()
    endturn.ownership(reference, Report(state.turn))
    assert twin == reference and expected.turn == state.turn + 1
