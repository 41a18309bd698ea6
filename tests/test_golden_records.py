"""Golden game records: whole games refereed by ``gm referee``.

Every ``tests/records/NAME.rec`` is a game written by hand, with comments that
work out from the rules text why each notable result is what it is. Its first
comment line is ``; exit: N``, the exit status ``gm referee`` must give
(0 all legal, 1 something rejected, 2 unreadable); only the older sample
``standard-win.rec`` has its status in ``EXIT_WITHOUT_HEADER`` instead.
Optional header lines:

``; stderr: TEXT``
    for an unreadable record (exit 2): TEXT must appear in the error, which
    must name the line.
``; xfail: REASON``
    gm disagrees with the hand-worked outcome. The goldens of such a record
    hold the *expected* output, corrected by hand, and the test is a strict
    xfail until gm is fixed (or the lead rules otherwise). They are never
    regenerated.

For every record that can be read, ``NAME.json`` and ``NAME.txt`` hold the
output of ``gm referee NAME.rec --json`` and ``gm referee NAME.rec``, checked
by a human against the comments before they were stored.

Regenerate the goldens with ``GM_UPDATE_GOLDEN=1 python3 -m pytest
tests/test_golden_records.py``: each test rewrites its files and then FAILS,
saying so, so that a regeneration can never pass silently. Review the diff
against the comments in the records, then run again without the variable.

The ``test_facts_*`` tests below assert key facts of some records directly,
so that they still say something if the goldens are regenerated carelessly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from gm.games.spaceships.orders import Beam
from gm.games.spaceships.referee import RefereeOutcome, referee_text

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "records"
UPDATE = os.environ.get("GM_UPDATE_GOLDEN") == "1"

RECORD_PATHS = sorted(RECORDS.glob("*.rec"))


@dataclass(frozen=True)
class Header:
    exit: int
    stderr: str | None
    xfail: str | None


# The sample record predates the `; exit: N` header, and tests/test_notation.py
# pins its line numbers, so it keeps its text and its exit status is given here.
EXIT_WITHOUT_HEADER = {"standard-win": 0}


def header(path: Path) -> Header:
    text = path.read_text(encoding="utf-8")
    comments = [line.strip() for line in text.splitlines() if line.strip().startswith(";")]
    match = re.fullmatch(r";\s*exit:\s*([0-2])", comments[0]) if comments else None
    if match is not None:
        exit_status = int(match[1])
    elif path.stem in EXIT_WITHOUT_HEADER:
        exit_status = EXIT_WITHOUT_HEADER[path.stem]
    else:
        raise AssertionError(f"{path.name}: the first comment line must be '; exit: N' with N 0, 1 or 2")
    stderr = re.search(r"^;\s*stderr:\s*(.+?)\s*$", text, re.M)
    xfail = re.search(r"^;\s*xfail:\s*(.+?)\s*$", text, re.M)
    return Header(exit_status, stderr and stderr[1], xfail and xfail[1])


def _params():
    params = []
    for path in RECORD_PATHS:
        marks = []
        reason = header(path).xfail
        if reason:
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


@cache
def run(name: str, as_json: bool) -> subprocess.CompletedProcess:
    """``gm referee`` on a record, in a subprocess, from the project root."""
    command = [sys.executable, "-P", "-m", "gm", "referee", f"tests/records/{name}.rec"]
    if as_json:
        command.append("--json")
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120)


@cache
def outcome(name: str) -> dict:
    """The JSON document ``gm referee --json`` prints for a record."""
    result = run(name, True)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


@cache
def refereed(name: str) -> RefereeOutcome:
    """The same record refereed in-process, for facts the JSON does not carry
    (which announcement a destruction is reported with, which ship fired)."""
    return referee_text((RECORDS / f"{name}.rec").read_text(encoding="utf-8"))


# The goldens

def test_there_are_records():
    assert len(RECORD_PATHS) >= 8


@pytest.mark.parametrize("path", _params())
def test_golden_record(path: Path):
    expected = header(path)
    name = path.stem
    text_run, json_run = run(name, False), run(name, True)
    golden_json, golden_txt = path.with_suffix(".json"), path.with_suffix(".txt")
    for mode, result in (("text", text_run), ("--json", json_run)):
        assert result.returncode == expected.exit, (
            f"{path.name} ({mode}): exit status {result.returncode}, expected {expected.exit}\n{result.stderr}"
        )
    if expected.exit == 2:
        assert expected.stderr, f"{path.name}: an unreadable record needs a '; stderr: ...' header line"
        for result in (text_run, json_run):
            assert result.stdout == ""
            assert re.search(r"\bline \d+", result.stderr), result.stderr
            assert expected.stderr in result.stderr, result.stderr
        assert not golden_json.exists() and not golden_txt.exists(), "an unreadable record has no goldens"
        return
    assert text_run.stderr == "" and json_run.stderr == ""
    if UPDATE and not expected.xfail:
        golden_json.write_text(json_run.stdout, encoding="utf-8")
        golden_txt.write_text(text_run.stdout, encoding="utf-8")
        pytest.fail(
            f"GM_UPDATE_GOLDEN=1: rewrote {golden_json.name} and {golden_txt.name}. Check them against the "
            f"comments in {path.name} (git diff), then run again without GM_UPDATE_GOLDEN."
        )
    missing = [p.name for p in (golden_json, golden_txt) if not p.exists()]
    assert not missing, f"missing goldens {missing}: generate them with GM_UPDATE_GOLDEN=1 and check them by hand"
    assert json.loads(json_run.stdout) == json.loads(golden_json.read_text(encoding="utf-8"))
    assert text_run.stdout == golden_txt.read_text(encoding="utf-8")


def test_every_golden_belongs_to_a_record():
    stems = {p.stem for p in RECORD_PATHS}
    stray = [p.name for p in sorted(RECORDS.iterdir()) if p.suffix in (".json", ".txt") and p.stem not in stems]
    assert not stray, f"goldens without a record: {stray}"


# Direct assertions on key facts

def _turn(name: str, number: int) -> dict:
    turn = outcome(name)["turns"][number - 1]
    assert turn["turn"] == number
    return turn


def _announced(turn: dict, by: int, kind: str) -> list[tuple]:
    """(cell, result, explosions) of one player's announcements of one kind, in order."""
    return [(a["cell"], a["result"], a["explosions"])
            for a in turn["announcements"] if a["by"] == by and a["kind"] == kind]


def _rejected(turn: dict) -> list[tuple[int, str]]:
    return [(r["by"], r["order"]) for r in turn["rejected"]]


def _reason(turn: dict, by: int, order: str) -> str:
    return next(r["reason"] for r in turn["rejected"] if r["by"] == by and r["order"] == order)


def _destroyed_with(name: str, turn: int) -> list[tuple[int, str, str, str]]:
    """(announcer, kind, cell, destroyed ship) for each destruction reported in a turn [11.7.3]."""
    report = refereed(name).reports[turn - 1]
    return [(a.by, a.kind, str(a.cell), f"{d.owner}:{d.ship.label}") for a in report.announcements for d in a.destroyed]


def test_facts_win_by_destroying_every_ship_2_3_1():
    name = "win-patrol-cruiser-heavy-scout"
    out = outcome(name)
    assert out["legal"] is True
    result = out["result"]
    assert (result["ended_after_turn"], result["scores"], result["winner"]) == (3, {"1": 8, "2": 0}, 1)
    assert "[2.3.1]" in result["reason"]
    lost = sorted(d["ship"] for t in out["turns"] for d in t["destroyed"] if d["owner"] == 2)
    assert lost == ["DS", "HS", "KC", "MD", "PC"]
    # [8.1.3.2]: a missile launched this turn is a plain hit.
    assert ("Yz1", "hit", []) in _announced(_turn(name, 1), 2, "strike")
    # A beam strike on an unfired missile explodes [5.3], [8.1.4]; the MD is
    # reported destroyed with it [11.7.3].
    assert _announced(_turn(name, 3), 1, "beam") == [
        ("Ov5", "hit", []), ("Ow5", "explosion", ["Ow5", "Ox5"]), ("Ox5", "duplicate", []),
    ]
    assert (1, "beam", "Ow5", "2:MD") in _destroyed_with(name, 3)
    assert all(t["burn_outs"] == [] for t in out["turns"])  # axis beams only [8.2.4.1]


def test_facts_draw_both_fleets_destroyed_in_the_same_turn_2_3_4():
    name = "draw-mutual-destruction"
    result = outcome(name)["result"]
    assert (result["ended_after_turn"], result["scores"], result["winner"]) == (4, {"1": 0, "2": 0}, None)
    assert [(d["owner"], d["ship"]) for d in _turn(name, 4)["destroyed"]] == [(1, "DS"), (2, "DS")]
    # Flashcube data is a snapshot [7.2.2]: player 2 reports first in turn 2.
    lights = _turn(name, 2)["destroyed"]
    assert [(d["owner"], d["flashcube"]) for d in lights] == [
        (1, [{"cell": "Bz5", "ship": "LS", "destroyed": False}]),
        (2, [{"cell": "Bz5", "ship": "LS", "destroyed": True}]),
    ]


def test_facts_termination_by_only_kamikaze_and_scans_2_3_2():
    name = "termination-only-kamikaze-and-scans"
    out = outcome(name)
    assert len(out["turns"]) == 4
    result = out["result"]
    assert (result["ended_after_turn"], result["scores"], result["winner"]) == (4, {"1": 13, "2": 1}, 1)
    assert "[2.3.2]" in result["reason"] and "[2.3.1]" not in result["reason"]
    # Turn 3: a recorded kamikaze keeps the game going; the KC it destroys is
    # reported with the kamikaze death [11.7.3].
    assert _destroyed_with(name, 3) == [(2, "kamikaze", "Rx1", "2:KC")]
    assert [a["kind"] for a in _turn(name, 4)["announcements"] if a["by"] == 2] == ["scan", "scan"]


def test_facts_kamikaze_4_5():
    name = "kamikaze"
    turn = _turn(name, 2)
    assert turn["initially_active"] == 2
    # Ruling a [4.5.3]: the launch cell is destroyed before the reveal.
    assert _announced(turn, 2, "strike")[0] == ("Bv2", "duplicate", [])
    assert _announced(turn, 2, "scan") == [("Gx2", "destroyed", [])]
    # Kamikaze deaths come last, in the order written [11.7.1.1]; the KC goes
    # with its death [11.7.3].
    assert [a["kind"] for a in turn["announcements"] if a["by"] == 1][-2:] == ["kamikaze", "kamikaze"]
    assert _destroyed_with(name, 2) == [(1, "kamikaze", "Gx2", "1:KC")]
    assert _rejected(turn) == [(2, "kYz5")] and "[6.8.2]" in _reason(turn, 2, "kYz5")
    assert _destroyed_with(name, 3) == [(1, "strike", "Yw4", "2:FS"), (2, "kamikaze", "Rz4", "2:KC")]


def test_facts_missile_explosions_8_1_4():
    turn = _turn("missile-explosions", 1)
    assert _announced(turn, 1, "strike") == [
        ("Ov3", "explosion", ["Ov3", "Ow3"]),  # Ow3 fired this turn, still undamaged
        ("Ow3", "duplicate", []),  # destroyed by the explosion: no missile any more [8.1.2]
        ("Ox3", "explosion", ["Ox3"]),  # no chaining: Ox3 was untouched until struck
    ]
    assert _announced(turn, 2, "strike") == [
        ("Yz1", "hit", []),  # launched this turn [8.1.3.2]
        ("Yz3", "explosion", ["Yz3", "Yz2"]),
    ]
    assert [(d["owner"], d["ship"]) for d in turn["destroyed"]] == [(2, "MD"), (1, "MD")]


def test_facts_beams_and_burn_out_8_2_4():
    name = "beams-burn-out"
    out = outcome(name)
    assert [t["burn_outs"] for t in out["turns"]] == [[], [], [{"by": 1, "ship": "DS"}], []]
    # Face-aligned, both ends hit: no burn-out [8.2.4.1].
    assert [r for _, r, _ in _announced(_turn(name, 1), 1, "beam")] == ["hit", "hit", "hit"]
    # Diagonal with a duplicate end: no burn-out [8.2.4.2].
    assert [r for _, r, _ in _announced(_turn(name, 2), 1, "beam")] == ["duplicate", "hit", "hit"]
    assert _rejected(_turn(name, 1)) == [(2, "bRv1Yx3")] and "[8.2.2]" in _reason(_turn(name, 1), 2, "bRv1Yx3")
    assert _rejected(_turn(name, 4)) == [(1, "bYx3Yz3")] and "[8.4]" in _reason(_turn(name, 4), 1, "bYx3Yz3")
    assert _announced(_turn(name, 4), 1, "strike") == [("Yx3", "hit", [])]


def test_facts_scans_8_3():
    name = "scans"
    assert outcome(name)["legal"] is True
    assert _announced(_turn(name, 2), 1, "scan") == [
        ("Rv1", "destroyed", []), ("Rw1", "destroyed", []), ("Rx1", "undamaged", []),
        ("Yz5", "empty", []), ("Oz5", "undamaged", []),
    ]
    assert len(_announced(_turn(name, 2), 2, "scan")) == 1
    assert len(_announced(_turn(name, 4), 2, "scan")) == 3  # three cells lost to one explosion
    assert _announced(_turn(name, 4), 1, "scan") == [("Oz5", "undamaged", [])]  # [2.4]


def test_facts_rejections_and_late_orders():
    name = "rejections-and-late-orders"
    out = outcome(name)
    assert out["legal"] is False
    one, two = _turn(name, 1), _turn(name, 2)
    assert _rejected(one) == [(1, "Yx5"), (1, "sBv4"), (2, "bRv1Rw3")]
    assert "[4.4.1]" in _reason(one, 1, "Yx5")
    assert "[8.3.1]" in _reason(one, 1, "sBv4")
    assert "[8.2.1]" in _reason(one, 2, "bRv1Rw3")
    assert _rejected(two) == [(1, "m2"), (1, "kBv1"), (1, "sOz5"), (2, "mOx3")]
    ambiguous = _reason(two, 1, "m2")
    assert "Oz2" in ambiguous and "Yz2" in ambiguous and "Rz2" not in ambiguous and "[11.5.3]" in ambiguous
    assert "[4.5]" in _reason(two, 1, "kBv1")
    assert "[8.3.2]" in _reason(two, 1, "sOz5")
    assert "[8.1.3]" in _reason(two, 2, "mOx3")
    assert [(d["owner"], d["ship"]) for d in two["destroyed"]] == [(2, "KC"), (2, "FS"), (2, "MD"), (2, "LS")]
    late = out["late_orders"]
    assert [(o["turn"], o["by"], o["orders"]) for o in late] == [(3, 1, "Rv1")] and "[2.3]" in late[0]["reason"]
    result = out["result"]
    assert (result["ended_after_turn"], result["scores"], result["winner"]) == (2, {"1": 16, "2": 0}, 1)


def test_facts_fleet_of_two_death_stars_3_7_1():
    name = "fleet-two-death-stars"
    out = outcome(name)
    assert "fleet of any ships costing 24 [3.7.1]" in out["ruleset"]
    one = _turn(name, 1)
    assert _rejected(one) == [(1, "bYx3Yx5"), (2, "sYw4")]
    assert "DS1, DS2" in _reason(one, 1, "bYx3Yx5") and "[8.2.3.1]" in _reason(one, 1, "bYx3Yx5")
    assert "[8.3.1]" in _reason(one, 2, "sYw4")  # two scanners, one scan [8.3.1.3]
    report = refereed(name).reports[0]
    fleet = refereed(name).game.states[0].sides[0].fleet
    fired = [(str(a.order), fleet.ships[a.ship].label) for a in report.checks[0].accepted if isinstance(a.order, Beam)]
    assert fired == [("bYy3By5", "DS1"), ("bYx3Yx5(DS2)", "DS2")]
    strikes = _announced(one, 1, "strike") + _announced(one, 2, "strike")
    assert ("Gz5", "explosion", ["Gz5"]) in strikes  # light gunboat
    assert ("Bz4", "explosion", ["Bz4", "Bz5"]) in strikes  # assault gunboat
    result = out["result"]
    assert (result["ended_after_turn"], result["scores"], result["winner"]) == (2, {"1": 16, "2": 0}, 1)


def test_facts_setup_errors():
    out = outcome("setup-errors")
    assert out["turns"] == [] and out["result"] is None and out["legal"] is False
    assert [(p["player"], p["line"]) for p in out["setup_problems"]] == [(1, 12), (1, 14), (2, None)]
    reasons = [p["reason"] for p in out["setup_problems"]]
    assert "[6.2.3]" in reasons[0] and "[3.4]" in reasons[1] and "missile destroyer" in reasons[2]


def test_facts_setup_error_lines_count_comment_lines():
    out = outcome("setup-errors-comment-lines")
    assert [(p["player"], p["line"]) for p in out["setup_problems"]] == [(1, 13), (1, 16), (2, None)]


def test_facts_kamikaze_death_reports_its_ship_even_after_a_duplicate_11_7_3():
    name = "kamikaze-death-reports-destruction"
    assert _announced(_turn(name, 2), 2, "strike") == [("Gx2", "duplicate", [])]
    assert _destroyed_with(name, 2) == [(1, "strike", "Yz5", "2:LS"), (1, "kamikaze", "Gx2", "1:KC")]


def test_facts_variants_change_the_result():
    """Each variant record's result depends on its rules (docs/variants.md)."""
    early = outcome("early-rules")
    first = early["turns"][0]["announcements"]
    assert [a["result"] for a in first if a["cell"] == "Rv2"] == ["hit", "hit"]  # [early 5.1.3]
    assert [a["explosions"] for a in first if a["cell"] in ("Ow3", "Ov3")] == [["Ow3", "Ov3", "Ox3"], ["Ov3", "Ow3"]]
    assert len([a for a in first if a["kind"] == "beam"]) == 5  # [early 6.1.3]
    assert all(not t["destroyed"] for t in early["turns"])  # no destruction reports in the early rules
    second = early["turns"][1]["announcements"]
    assert second[0] == {"by": 2, "kind": "strike", "cell": "Bz5", "result": "hit", "explosions": []}  # [early 4.4.3]
    hits = outcome("scoring-by-hits")["result"]
    assert hits["scores"] == {"1": 5, "2": 2} and hits["winner"] == 1  # [explanation 6.2]
    hypothetical = outcome("hypothetical-hits")["result"]
    assert hypothetical["scores"] == {"1": 0, "2": 0}
    assert hypothetical["tiebreak"] == {"1": 1, "2": 0} and hypothetical["winner"] == 1  # [explanation 6.1]
    colours = outcome("colours-rygob")["turns"][0]
    assert colours["announcements"][0]["explosions"] == ["Yz1", "Rz1", "Gz1"]
    assert [d["ship"] for d in colours["destroyed"]] == ["MD"]
