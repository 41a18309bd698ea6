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
"""

from __future__ import annotations

import json
import random

from celestial_fuzz import scattered_game, upheaval
from gm.games.celestial_empire import verification
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.state import GameState, new_game
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.verification import canonical_state, plain_value, state_digest
from test_celestial_fuzz import orders_of


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
