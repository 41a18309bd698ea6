"""What makes a Celestial Empire replay cheaper, second round (issue 27,
row 4 again), and that it changes nothing.

The state's digest: each object of the state's mappings (planet, ship,
empire) is written once and its text kept for the game's next state
(`verification._object_text`), keyed by the pickle of its members, so a
value that compares equal but is written differently (``True`` and ``1``,
``1`` and ``1.0``) is never taken for another. Pinned here: the text is
the one `plain_value` and `json` write, turn after turn of one game and
after such a change; unchanged objects are not written again; the texts
kept are bounded.

The formulas a turn and every sheet compute for each ship again and again
in exact fractions (`formulas.shots`, `ship_type`, `pdu_shots`) keep their
results by the whole numbers they are a function of: pinned against the
formulas as written before, on random ships and on ships that differ in
one number.

The turn's steps that looked at every planet for each empire or each order
(scanning's count of scans, the winners' count of planets, the score's
incomes) look once; an order carried out in full is answered by itself,
not by a copy of it. Pinned by what each step answers, and by refusing the
look they no longer take.
"""

from __future__ import annotations

import dataclasses
import json
import random
from fractions import Fraction
from math import floor

from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_fuzz import scattered_game, upheaval
from gm.games.celestial_empire import answers, empire_steps, endturn, formulas, verification
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.state import GameState, Ship, new_game
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.verification import canonical_state, plain_value, state_digest
from gm.games.celestial_empire.winning import Conditions, winners
from gm.kernel.commitments import text_value
from test_celestial_fuzz import orders_of


def parse_orders_of(text: str) -> list:
    """The orders of a mail's text."""
    return [line.order for line in parse_orders(text) if line.order is not None]


def plainly(state: GameState) -> bytes:
    """The canonical serialisation as the docs define it: `plain_value`, then `json`."""
    return (json.dumps(plain_value(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            + "\n").encode("utf-8")


def test_each_turn_of_a_game_is_serialised_as_plain_value_writes_it():
    state = scattered_game(5, 9)
    rng = random.Random(5)
    for _ in range(12):
        assert canonical_state(state) == plainly(state), f"turn {state.turn}"
        orders, research = orders_of(state, rng)
        state, _ = run_turn(state, orders, research)


def test_a_value_equal_to_the_one_before_but_written_otherwise_is_written_anew():
    """``True == 1`` and ``1 == 1.0``: a cache keyed by the values alone
    would write the planet as it was."""
    state = scattered_game(3, 4)
    home = state.empires[1].home
    state.planets[home].pdus = 1
    state.planets[home].ore[0] = 1
    state.empires[2].credits = 0
    canonical_state(state)
    twin = state.copy()
    twin.planets[home].pdus = True
    twin.planets[home].ore[0] = 1.0  # type: ignore[call-overload]
    twin.empires[2].credits = False
    assert canonical_state(twin) == plainly(twin)
    assert b'"pdus":true' in canonical_state(twin) and b'"credits":false' in canonical_state(twin)


def test_the_unchanged_objects_of_a_state_are_not_written_again(monkeypatch):
    state = upheaval(scattered_game(11, 4))
    canonical_state(state)
    twin = state.copy()
    moved = next(iter(twin.ships.values()))
    moved.fighters += 1
    written: list[object] = []
    real = verification._ENCODE
    monkeypatch.setattr(verification, "_ENCODE", lambda value: written.append(value) or real(value))
    assert canonical_state(twin) == plainly(twin)
    objects = [value for value in written if isinstance(value, dict) and "number" in value]
    assert [value["number"] for value in objects] == [moved.number]


def test_the_texts_kept_are_those_of_the_last_games_met():
    for seed in range(verification._RECENT_GAMES + 5):
        canonical_state(new_game(generate(seed, 2), ["Grok", "Winter"]))
    assert len(verification._TEXTS) == verification._RECENT_GAMES


def test_the_digests_are_still_those_gm_wrote_before():
    """As tests/test_celestial_cost.py pins them, each twice: written anew, then from the texts kept."""
    for _ in range(2):
        assert state_digest(new_game(generate(7, 2), ["Grok", "Winter"])) == (
            "7bfee2ee6a279ae4a00188801fe403c85d3be284ab5d1e8907e9075537c7c595")
        assert state_digest(upheaval(scattered_game(11, 4))) == (
            "50352227e5848208d6aa37f2cefc8584b576df5808c48aa05416b5cf992b853f")


def shots_as_defined(ship: Ship, fighters: int | None = None) -> int:
    """floor(fighters x spf(fighters / mass)), mass = 1 + empty cargo + 1.5
    full cargo + tractors/2 + shields/2 + fighters/10 (l.955-997), as written
    before its results were kept."""
    used = ship.fighters if fighters is None else min(fighters, ship.fighters)
    if used <= 0:
        return 0
    full = min(ship.hold.space(), ship.cargo_units)
    mass = (1 + ship.cargo_units - full + Fraction(3, 2) * full + Fraction(ship.tractors, 2)
            + Fraction(ship.shields, 2) + Fraction(ship.fighters, 10))
    return floor(used * formulas._polyline(formulas.SHOTS_PER_FIGHTER, Fraction(used) / mass))


UNITS = st.integers(0, 60)


@settings(max_examples=300, deadline=None)
@given(UNITS, UNITS, UNITS, UNITS, st.integers(0, 40), st.integers(0, 5), st.none() | st.integers(0, 70))
def test_the_shots_kept_are_the_shots_of_each_ship(fighters, cargo, tractors, shields, ore, mines, firing):
    ship = Ship(100, 1, 1, fighters=fighters, cargo_units=cargo, tractors=tractors, shields=shields)
    ship.hold.ore[0], ship.hold.mines = ore, mines
    assert formulas.shots(ship, firing) == shots_as_defined(ship, firing)
    assert formulas.ship_type(ship) == formulas._ship_type.__wrapped__(fighters, cargo)


def test_ships_that_differ_in_one_unit_have_their_own_shots():
    """Each number the shots depend on is a part of what they are kept by."""
    base = {"fighters": 12, "cargo_units": 20, "tractors": 4, "shields": 6}
    ship = Ship(100, 1, 1, **base)
    ship.hold.ore[0] = 10
    assert formulas.shots(ship) == shots_as_defined(ship)
    for name in base:
        other = Ship(100, 1, 1, **(base | {name: base[name] * 4}))
        other.hold.ore[0] = 10
        assert formulas.shots(other) == shots_as_defined(other), name
        assert formulas.shots(other, 5) == shots_as_defined(other, 5), name
    full = Ship(100, 1, 1, **base)
    full.hold.ore[0] = 20
    assert formulas.shots(full) == shots_as_defined(full) != formulas.shots(ship)


def test_the_pdus_shots_kept_are_those_of_the_curve():
    for pdus in (*range(-2, 130), 200, 499, 500, 501, 2000):
        assert formulas.pdu_shots(pdus) == formulas.pdu_shots.__wrapped__(pdus)
    assert (formulas.pdu_shots(4), formulas.pdu_shots(120), formulas.pdu_shots(200)) == (4, 366, 650)


def test_scanning_counts_each_empires_scans_once(monkeypatch):
    """Scanning changes no planet: each empire's scans are counted once a
    turn, not for each order (every planet looked at each time), and the
    orders past them are refused as before."""
    state = new_game(generate(3, 3), ["Grok", "Winter", "Ash"])
    others = [p for p in sorted(state.planets) if p != state.earth][:4]
    mail = {1: parse_orders_of("".join(f"SCAN{p}\n" for p in [state.earth, *others])),
            2: parse_orders_of(f"SCAN{others[0]}\nSCAN{others[1]}\n")}
    counted: list[int] = []
    real = empire_steps.scans_available
    monkeypatch.setattr(empire_steps, "scans_available", lambda s, e: counted.append(e) or real(s, e))
    _, report = run_turn(state, mail)
    assert sorted(counted) == [1, 2]
    assert report.scanned == {1: [state.earth], 2: [others[0]]}
    refused = [entry.why for entry in report.history[1] if entry.why]
    assert refused == ["no scans left: you have 1 this turn"] * 4


def test_a_game_without_a_planets_condition_does_not_count_planets_to_find_its_winners(monkeypatch):
    state = scattered_game(4, 5)
    expected = winners(state, Conditions(planets=1))
    assert expected and all(why.endswith(" planets") for why in expected.values())

    def refused(*_args):
        raise AssertionError("planets counted")

    monkeypatch.setattr(GameState, "planets_of", refused)
    assert winners(state, Conditions(planets=None, score=10 ** 9)) == {}


def test_an_order_carried_out_in_full_is_answered_by_itself_and_one_cut_by_a_copy(monkeypatch):
    """Transmuting and building answer each order by the order as carried
    out: the order itself when all of it was (no copy made for each), a
    copy for what was done when it was cut; the history reads as before."""
    state = new_game(generate(3, 2), ["Grok", "Winter"])
    home = state.empires[1].home
    state.planets[home].ore = [40] * 10
    state.planets[home].industry = 63
    copied: list[object] = []
    real = answers.dataclasses.replace
    monkeypatch.setattr(answers.dataclasses, "replace", lambda order, **changes: copied.append(order) or real(
        order, **changes))
    mail = parse_orders_of(f"{home}X2R5R6\n{home}X9R1R2\n{home}B3D\n")
    _, report = run_turn(state, {1: mail})
    assert [(entry.done, entry.why) for entry in report.history[1]] == [
        (f"{home}X2R5R6", ""), (f"{home}X4R1R2, cut by I: 43 industry free", ""), (f"{home}B3D", "")]
    assert copied == [mail[1]]
    assert answers.as_carried_out(mail[0], 2) is mail[0]
    assert answers.as_carried_out(mail[0], 1) == dataclasses.replace(mail[0], amount=1)


def test_each_empires_income_from_one_look_at_the_galaxy(monkeypatch):
    state = upheaval(scattered_game(11, 4))
    rng = random.Random(11)
    for _ in range(6):
        state.ships[next(iter(state.ships))].hold.mines = rng.randrange(3)
        assert endturn.incomes(state) == {number: endturn.income(state, number) for number in state.empires}
        orders, research = orders_of(state, rng)
        state, _ = run_turn(state, orders, research)

    def refused(*_args):
        raise AssertionError("the planets looked at for each empire")

    expected = {number: empire.score + endturn.income(state, number) for number, empire in state.empires.items()}
    monkeypatch.setattr(GameState, "planets_of", refused)
    endturn.score(state, Report(state.turn))
    assert {number: empire.score for number, empire in state.empires.items()} == expected


def test_a_turns_committed_value_is_made_once_and_reads_as_before():
    digest = state_digest(new_game(generate(7, 2), ["Grok", "Winter"]))
    made = verification.turn_value(3, digest)
    assert made == f"turn 3\nstate {digest}\n".encode() == text_value(["turn 3", f"state {digest}"])
    assert verification.turn_value(3, digest) is made
    assert verification.turn_value(4, digest) == f"turn 4\nstate {digest}\n".encode()
