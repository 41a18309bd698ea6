"""Golden Grid Fighters records: whole games refereed by
`gm.games.gridfighters.referee`.

Every ``tests/records/gridfighters/NAME.rec`` is a game written by hand, with
comments that work out from the rules why each notable result is what it
is. Its first comment line is ``; exit: N``, the exit status the referee must
give. ``NAME.json`` and ``NAME.txt`` hold the referee's whole JSON and text
outputs, checked by a human against the comments before they were stored.

Regenerate with ``GM_UPDATE_GOLDEN=1``: each test then rewrites its files and
FAILS, so that a regeneration never passes silently. Review the diff against
the comments, then run again without the variable.

The ``test_facts_*`` tests assert the key facts directly, so that they still
hold if the goldens are regenerated carelessly.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from gm.games.gridfighters import NotationError, RecordError, referee_text

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "records" / "gridfighters"
UPDATE = os.environ.get("GM_UPDATE_GOLDEN") == "1"
RECORD_PATHS = sorted(RECORDS.glob("*.rec"))


def _exit_status(path: Path) -> int:
    first = next(line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith(";"))
    match = re.fullmatch(r";\s*exit:\s*([0-2])\s*", first)
    assert match, f"{path.name}: the first comment line must be '; exit: N'"
    return int(match[1])


def _outcome(name: str):
    return referee_text((RECORDS / f"{name}.rec").read_text(encoding="utf-8"))


def test_there_are_records():
    assert {p.stem for p in RECORD_PATHS} >= {
        "worked-example", "home-planet-win", "unreachable-draw", "rejected-moves", "spent-move"}


@pytest.mark.parametrize("path", RECORD_PATHS, ids=[p.stem for p in RECORD_PATHS])
def test_golden_record(path: Path):
    outcome = referee_text(path.read_text(encoding="utf-8"))
    assert outcome.exit_status == _exit_status(path)
    golden_json, golden_txt = path.with_suffix(".json"), path.with_suffix(".txt")
    if UPDATE:
        golden_json.write_text(outcome.json_text(), encoding="utf-8")
        golden_txt.write_text(outcome.text(), encoding="utf-8")
        pytest.fail(f"GM_UPDATE_GOLDEN=1: rewrote {golden_json.name} and {golden_txt.name}; check them by hand "
                    f"against the comments in {path.name}, then run again without the variable")
    assert golden_json.exists() and golden_txt.exists(), "generate the goldens with GM_UPDATE_GOLDEN=1, then check them"
    assert outcome.json() == json.loads(golden_json.read_text(encoding="utf-8"))
    assert outcome.json_text() == golden_json.read_text(encoding="utf-8")
    assert outcome.text() == golden_txt.read_text(encoding="utf-8")


def test_every_golden_belongs_to_a_record():
    stems = {p.stem for p in RECORD_PATHS}
    stray = [p.name for p in RECORDS.iterdir() if p.suffix in (".json", ".txt") and p.stem not in stems]
    assert not stray


# Key facts, asserted directly

def test_facts_worked_example_procedure_note():
    out = _outcome("worked-example").json()
    last = out["moves"][-1]
    assert (last["n"], last["by"], last["piece"], last["from"], last["spent"]) == (4, 1, "Z1", "A1", True)
    assert last["collisions"] == [
        {"square": "B1", "pieces": ["2:Y1", "1:Z1"], "destroyed": ["1:Z1"]},
        {"square": "C2", "pieces": ["1:X1", "2:Y1"], "destroyed": ["2:Y1"]},
    ]
    assert sorted(last["destroyed"]) == ["1:Z1", "2:Y1"]
    assert {"square": "C2", "piece": "1:X1", "to": 2} in last["revealed"]
    assert out["result"] is None and out["legal"] is True


def test_facts_home_planet_win():
    out = _outcome("home-planet-win").json()
    assert out["result"]["ended_after_move"] == 3
    assert out["result"]["winner"] == 1
    assert out["result"]["code"] == "home-destroyed"
    assert out["moves"][2]["collisions"] == [{"square": "J5", "pieces": ["2:H", "1:Z2"], "destroyed": ["2:H"]}]


def test_facts_unreachable_draw():
    out = _outcome("unreachable-draw").json()
    assert out["result"]["ended_after_move"] == 21
    assert out["result"]["winner"] is None
    assert out["result"]["code"] == "unreachable"


def test_facts_rejected_moves_do_not_spend_the_turn():
    out = _outcome("rejected-moves").json()
    rejected = [m for m in out["moves"] if m["rejected"]]
    assert len(rejected) == 6
    assert [m["n"] for m in out["moves"] if not m["rejected"]] == [1, 2]
    assert all(m["n"] == 1 for m in rejected)


def test_facts_spent_move_and_known_destroyed_piece():
    moves = _outcome("spent-move").json()["moves"]
    assert moves[2]["spent"] is True and moves[2]["rejected"] is None
    assert moves[2]["destroyed"] == ["2:X2", "1:X2", "2:A7"]
    assert moves[4]["spent"] is False and "destroyed in move 3" in moves[4]["rejected"]
    assert moves[5]["n"] == 5 and moves[5]["rejected"] is None


def test_facts_three_homes_countdown():
    out = _outcome("three-homes").json()
    assert out["result"]["ended_after_move"] == 9 and out["result"]["winner"] == 1
    assert len(out["late_moves"]) == 1


def test_facts_bad_setup_plays_nothing():
    out = _outcome("bad-setup").json()
    assert out["moves"] == [] and out["result"] is None
    assert {p["player"] for p in out["setup_problems"]} == {1, 2}


def test_unreadable_records_raise_with_a_line():
    with pytest.raises(NotationError) as error:
        referee_text("game gridfighters\nsetup 1\nH A5\nsetup 2\nH J5\n1: Z2 E2 A2\n")
    assert error.value.line == 6
    with pytest.raises(NotationError):
        referee_text("game spaceships\nsetup 1\nsetup 2\n")
    with pytest.raises(RecordError):
        referee_text("variant nosuch\nsetup 1\nsetup 2\n")
