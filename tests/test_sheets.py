"""Golden turn sheets: two fixed games played by mail through the real daemon.

Each game is played over loopback SMTP with a test clock that moves by fixed
steps and a fixed server key (so the password line is fixed too), and every
sheet the players receive is compared, as the decoded text part, byte for
byte with ``tests/sheets/GAME.pPLAYER.LABEL.txt``. The labels are ``begin``
(the first sheet), ``turnN`` (the results of turn N), ``final`` (the last
sheet, with the result and both records) and ``history`` (the answer to the
``history`` command).

The games:

``standard-win``
    the setups and orders of tests/records/standard-win.rec, sent as
    written (comments and all): a beam, a missile launch, missile explosions
    on each side, scans, destructions with flashcube data, termination.
``kamikaze-burnout``
    `KAMIKAZE_BURNOUT` below, worked out by hand in its comments: a
    diagonal beam that burns out, missile explosions, kamikaze strikes (one
    that destroys its own ship, one that does not), a missile fired, a scan of
    a kamikaze launch cell, rejected orders, a resignation.

Every golden was read as its player would read it and checked against the
rules by hand before it was stored (see the comments of `KAMIKAZE_BURNOUT`
and the ``test_facts_*`` tests, which assert the key facts directly so that
a careless regeneration cannot hide a regression). Every line keeps to
`WIDTH` columns: a long order's outcome goes on at column 18 (20 in the
history), under the one above.

Regenerate with ``GM_UPDATE_GOLDEN=1 python3 -m pytest tests/test_sheets.py``:
each golden test rewrites its file and FAILS, saying so, so that a
regeneration never passes silently. Review the diff against the facts and
comments here, then run again without the variable.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from gm.pbem.writing.mailer import BANNER
from gmtest import World, grids, rows, text

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "sheets"
RECORDS = HERE / "records"
UPDATE = os.environ.get("GM_UPDATE_GOLDEN") == "1"

KEY = b"spaceships golden sheets test key"
"""The server key the tokens derive from: fixed, so the goldens are too."""

WIDTH = 78


# The second game: player 1 (Alice) and player 2 (Bob).
KAMIKAZE_BURNOUT = """\
setup 1
DS Rv1-Ow2        ; a cube: beams in all 13 directions
KC Gv1-Gx2
FS Bv1-Bw2
MD Yz1 Yz2 Yz3
LS Bz5

setup 2
DS Rv1-Rx2 Ov1 Ow1   ; 3x2x1 in Red plus Ov1 Ow1: beams in 10 directions
KC Yv1-Yw3        ; Yv1 Yv2 Yv3 Yw1 Yw2 Yw3
PC Yx1-Yx4
MD Bx5 By5 Bz5
HS Yy3 Yz3

; Turn 1 (player 1 reports first).
; Player 1: bYw1Yy3, a face diagonal (Yw1 Yx2 Yy3), fired by the cube's pair
;   Rv1-Rw2. Hits the KC, the PC and the HS: two hits in end cells that are
;   not loosely adjacent, so the DS's beam weapon burns out [8.2.4]; only
;   player 1 is told.
;   Bz5: an unfired missile: explosions in Bz5 and By5 [8.1.4]; Bx5 is not
;   adjacent to Bz5. Gz5: miss. sRv1: undamaged.
; Player 2: Gv1 Gv2 Gw1 Gw2 Gx1 (KC left: Gx2) and Bv1 Bw2 (FS left: Bv2
;   Bw1, not adjacent) hit. Yz2: explosions in Yz2, Yz1, Yz3: player 1's MD
;   is destroyed; flashcube from player 2 for Yz1 Yz2 Yz3: empty, empty, and
;   Yz3 is its HS, undamaged (player 1's Yy3 hit came earlier, on Yy3).
; Entitlements for turn 2:
;   player 1: DS 1 conventional, no beam (burnt out [8.4]); KC (Gx2) and FS
;     (Bv2, Bw1) entitle to no conventional strike, so each may kamikaze
;     [4.5]; LS none [6.8.2]. 10 cells lost: 10 scans [8.3.1.1].
;   player 2: DS 1, KC 2 (Yv1 Yv2 Yv3 Yw2 Yw3), PC 1 (Yx3-Yx4); MD (Bx5
;     unfired) a missile; HS (Yz3) a kamikaze. 5 cells lost: 5 scans.
turn 1
1: bYw1Yy3 Bz5 Gz5 sRv1
2: Gv1 Gv2 Gw1 Gw2 Gx1 Bv1 Bw2 Yz2

; Turn 2 (player 2 reports first). Player 2 launches kYz3 (its HS's last
; cell) and mBx5; 6 strikes allowed (4 + missile + kamikaze), the 7th (Gz3)
; is rejected. Player 1 launches kGx2 (its KC's last cell) and kBv2: 3
; strikes allowed; bYv1Yv3 is rejected, the beam weapon burnt out [8.4].
; Player 2 reports: Rv1 Rw1 Ov1 Ow1 hit the DS; Bz5 destroys player 1's LS
;   (flashcube from player 2: Bz5 its MD, destroyed); Gz2 miss. sGx2:
;   destroyed, a kamikaze launch cell [4.5.3]; sBw1: undamaged. Kamikaze
;   death Yz3, with which player 2's HS is destroyed [11.7.3] (flashcube
;   from player 1: Yy3 empty, Yz3 its MD, destroyed).
; Player 1 reports: Yx1 Yx3 Yx4 hit, destroying the PC (flashcube: all
;   empty). Scans as entitled at the start of the turn [2.4], though the LS
;   was destroyed a moment ago: sBx5 undamaged (fired this turn, still a
;   ship), sYv1 undamaged, sYw1 destroyed, sRz5 empty. Kamikaze deaths Gx2,
;   with which the KC is destroyed (flashcube: all empty), and Bv2 (the FS
;   keeps Bw1): player 2 sees a kamikaze mark at Bv2.
; Entitlements for turn 3:
;   player 1: DS 1 (beam burnt out), FS (Bw1) a kamikaze; no scanner.
;   player 2: DS 1 and beam, KC 2; MD (Bx5, fired) a kamikaze [4.5]; no
;     scanner.
turn 2
1: kGx2 Yx1 kBv2 Yx3 Yx4 bYv1Yv3 sBx5 sYv1 sYw1 sRz5
2: kYz3 Rv1 Rw1 mBx5 Ov1 Ow1 Bz5 Gz2 Gz3 sGx2 sBw1

; Then player 1 asks for the history and resigns; player 2 asks for the
; history after the end. A resignation scores as if the fleet were destroyed:
; 0 to 14.
"""


@dataclass(frozen=True)
class Step:
    player: int
    body: str
    hours: float
    """How long after the previous mail this one is sent."""


def read_record(text: str) -> tuple[dict[int, str], list[dict[int, str]]]:
    """Setups (as written, comments included) and each turn's orders from a
    game record in the format of tests/records/*.rec."""
    setups: dict[int, list[str]] = {1: [], 2: []}
    turns: list[dict[int, str]] = []
    section: int | str | None = None
    for raw in text.splitlines():
        line = raw.split(";", 1)[0].strip()
        if not line or line.startswith("variant "):
            continue
        if re.fullmatch(r"setup [12]", line):
            section = int(line[-1])
        elif re.fullmatch(r"turn \d+", line):
            section = "turn"
            turns.append({})
        elif section == "turn":
            player, _, orders = line.partition(":")
            turns[-1][int(player)] = orders.strip()
        else:
            setups[section].append(raw.rstrip())
    return {p: "\n".join(lines) + "\n" for p, lines in setups.items()}, turns


def game_steps(record: str) -> list[Step]:
    setups, turns = read_record(record)
    steps = [Step(1, setups[1], 2), Step(2, setups[2], 3)]
    for orders in turns:
        steps += [Step(1, orders[1], 5), Step(2, orders[2], 4)]
    return steps


GAMES = {
    "standard-win": game_steps((RECORDS / "standard-win.rec").read_text()),
    "kamikaze-burnout": [*game_steps(KAMIKAZE_BURNOUT), Step(1, "history", 0.5), Step(1, "resign", 2),
                         Step(2, "history", 1)],
}

LABELS = {
    "standard-win": ["begin", "turn1", "turn2", "final"],
    "kamikaze-burnout": ["begin", "turn1", "turn2", "history", "final"],
}
NAMES = [f"{game}.p{player}.{label}" for game in GAMES for player in (1, 2) for label in LABELS[game]]


def label_of(subject: str) -> str | None:
    subject = subject.removeprefix("[gm g1] ")
    if subject == "Turn 1: the game begins":
        return "begin"
    if match := re.fullmatch(r"Turn (\d+) results; orders for turn \d+", subject):
        return f"turn{match[1]}"
    if re.fullmatch(r"(Turn \d+: t|T)he game is over", subject):
        return "final"
    if subject == "The game so far":
        return "history"
    return None


async def _play(tmp_path: Path, steps: list[Step]) -> dict[str, str]:
    data = tmp_path / "data"
    data.mkdir(parents=True)
    (data / "secret.key").write_bytes(KEY)
    sheets: dict[str, str] = {}
    async with World(tmp_path) as world:
        await world.new_game()
        for step in steps:
            world.clock.advance(hours=step.hours)
            await world.act((world.alice if step.player == 1 else world.bob).reply, step.body)
        for number, player in ((1, world.alice), (2, world.bob)):
            for message in player.inbox():
                label = label_of(str(message["Subject"]))
                if label is not None:
                    assert f"p{number}.{label}" not in sheets, f"two {label} sheets for player {number}"
                    sheets[f"p{number}.{label}"] = text(message)
    return sheets


@pytest.fixture(scope="module")
def sheets(tmp_path_factory) -> dict[str, str]:
    """Every sheet of both games, by name."""
    out = {}
    for game, steps in GAMES.items():
        played = asyncio.run(_play(tmp_path_factory.mktemp(game), steps))
        out.update({f"{game}.{name}": sheet for name, sheet in played.items()})
    return out


# The goldens

def test_every_sheet_is_there_and_no_golden_is_stale(sheets):
    assert sorted(sheets) == sorted(NAMES)
    stored = sorted(p.name for p in GOLDEN.glob("*.txt"))
    assert stored == sorted(f"{name}.txt" for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_golden(sheets, name):
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(sheets[name].encode("utf-8"))
        pytest.fail(f"GM_UPDATE_GOLDEN=1: rewrote {path.relative_to(HERE.parent)}; review the diff, then run "
                    "again without GM_UPDATE_GOLDEN")
    assert sheets[name].encode("utf-8") == path.read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_lines_fit_78_columns(sheets, name):
    long = [(n, len(line)) for n, line in enumerate(sheets[name].splitlines(), 1) if len(line) > WIDTH]
    assert long == []


# Reading the sheets



def marks(spec: str) -> dict[str, str]:
    """``"Rv1 Rv2:kc Gz1:S"`` -> {Rv1: kc, Rv2: kc, Gz1: S}: cells up to a
    ``:MARK`` take that mark."""
    out: dict[str, str] = {}
    pending: list[str] = []
    for word in spec.split():
        cell, _, mark = word.partition(":")
        pending.append(cell)
        if mark:
            out.update({c: mark for c in pending})
            pending = []
    assert not pending, spec
    return out


def drawn(space: dict[str, str]) -> dict[str, str]:
    """The cells of a space that are not drawn '.'."""
    return {cell: mark for cell, mark in space.items() if mark != "."}


def happened(sheet: str, turn: int) -> list[str]:
    block = sheet.split(f"== What happened in turn {turn} (", 1)[1].split("\n\n", 1)[0]
    return [line[2:] for line in block.splitlines()[1:]]




def the_history(reply: str) -> str:
    """The history a reply encloses, headed by the reply's header (the game, the player, the rules)."""
    header = reply.split("\n\n", 1)[0]
    (history,) = enclosures_of(reply).values()
    return f"{header}\n\n{history.split(chr(10) + 'To play, reply to this mail')[0]}"


def enclosures_of(body: str) -> dict[str, str]:
    parts = body.split(f"\n{BANNER}\n")
    return {title: part.removeprefix("\n") for title, part in zip(parts[1::2], parts[2::2])}


def command_history(sheet: str, turn: int) -> list[str]:
    block = sheet.split(f"== Your orders in turn {turn}: as written, as carried out ==\n", 1)[1]
    return [line[2:] for line in rows(block.split("\n\n", 1)[0])]


def next_turn(sheet: str, turn: int) -> str:
    return sheet.split(f"== Turn {turn} ==\n\n", 1)[1].split("\n\n", 1)[0] + "\n"


def beam_directions(sheet: str, turn: int) -> set[str]:
    block = next_turn(sheet, turn)
    beam = re.search(r"^Beam from DS \[8\.2\]: along (.*?)\n(?!  )", block, re.M | re.S)
    assert beam, "no beam"
    return set(re.findall(r"([a-z+-]+) \(b[ROYGB][v-z][1-5][ROYGB][v-z][1-5]\)", beam[1].replace("\n  ", " ")))


DIRECTIONS = {"number", "letter", "letter+number", "letter-number", "colour", "colour+number", "colour-number",
              "colour+letter", "colour-letter", "colour+letter+number", "colour+letter-number",
              "colour-letter+number", "colour-letter-number"}


# Facts of standard-win, worked out by hand from the rules

def test_facts_standard_win_player_1(sheets):
    begin, turn1, turn2, final = (sheets[f"standard-win.p1.{x}"] for x in ("begin", "turn1", "turn2", "final"))
    assert begin.startswith("Spaceships game g1: you are Player 1, playing Player 2\nRules: Spaceships 2.6.1\n"
                            "Turn 1. Deadline 2026-11-24 17:00 UTC, in 3 days.\n")
    assert drawn(grids(begin)[1]) == {}
    assert drawn(grids(begin)[0]) == marks("Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2:DS Gv1 Gv2 Gw1 Gw2 Gx1 Gx2:KC "
                                           "Bv1 Bv2 Bw1 Bw2:FS Yz1 Yz2 Yz3:MD* Bz5:LS")
    assert next_turn(begin, 1) == (
        "In turn 1 you may make 8 strikes:\n"
        "  7 conventional (DS 1, KC 3, FS 2, MD 1) [4.4.1]\n"
        "  + 1 if MD launches a missile: unfired Yz1 Yz2 Yz3 [8.1.3]\n"
        "Beam from DS [8.2]: in any of the 13 directions\n"
        "Scans: 1 [8.3.1]\n")

    # Turn 1: player 1 reports first.
    lines = happened(turn1, 1)
    assert lines[:7] == ["you   beam strike Rv1: hit", "you   beam strike Rw1: hit", "you   beam strike Rx1: hit",
                         "you   strike Rv2: hit", "you   strike Rw2: hit", "you   strike Rx2: hit",
                         "      Their kill cruiser KC is destroyed: Rv1 Rv2 Rw1 Rw2 Rx1 Rx2"]
    assert "you   strike Ow3: explosion  (missile explosion: Ow3 Ov3 Ox3)" in lines
    assert "you   scan Gz1: undamaged" in lines
    assert "they  strike Yz2: explosion  (missile explosion: Yz2 Yz1 Yz3)" in lines
    assert "      Your light scout LS is destroyed: Bz5" in lines
    assert lines.index("you   scan Gz1: undamaged") < lines.index("they  strike Rv1: hit")
    # Flashcube data is as at the time it is given [7.2.2]: Rv1 before it was hit.
    assert "      flashcube data from you: Rv1 DS undamaged, Rv2 DS undamaged, Rw1 DS" in lines
    assert command_history(turn1, 1) == [
        "bRv1Rx1         beam from DS on Rv1 Rw1 Rx1", "Rv2             strike Rv2", "Rw2             strike Rw2",
        "Rx2             strike Rx2", "Ow3             strike Ow3", "Bv5             strike Bv5",
        "Bw5             strike Bw5", "Bx5             strike Bx5", "mYz1            missile launched from Yz1 (MD)",
        "By5             strike By5", "sGz1            scan Gz1"]
    own, known = grids(turn1)
    assert drawn(known) == marks("Rv1 Rv2 Rw1 Rw2 Rx1 Rx2:kc Ov3 Ow3 Ox3:md Bv5 Bw5 Bx5 By5:pc Gz1:S "
                                 "Yz1 Yz2 Yz3:o Bz5:o")  # the last two from player 2's flashcube data
    assert drawn(own) == marks("Rv1:ds Rv2:DS Rw1:DS Rw2:ds Ov1 Ov2 Ow1 Ow2:DS Gv1 Gv2 Gw1 Gw2 Gx1 Gx2:KC "
                               "Bv1 Bv2 Bw1 Bw2:FS Yz1 Yz2 Yz3:md Bz5:ls")
    assert "Your remaining materiel: 16 cells." in turn1
    block = next_turn(turn1, 2)
    assert block.startswith("In turn 2 you may make 6 strikes:\n  6 conventional (DS 1, KC 3, FS 2) [4.4.1]\n"
                            "Beam from DS [8.2]: along ")
    assert "missile" not in block and "Scans" not in block  # MD and LS destroyed
    # Rv1 and Rw2 are gone: no firing pair on the two space diagonals through them.
    assert beam_directions(turn1, 2) == DIRECTIONS - {"colour+letter+number", "colour-letter-number"}

    # Turn 2: player 2 reports first.
    lines = happened(turn2, 2)
    assert lines[:4] == ["they  strike Gv1: hit", "they  strike Gw1: hit", "they  scan Bv1: undamaged",
                         "they  scan Bw1: undamaged"]
    assert "you   beam strike Yx5: miss" in lines
    assert "      Their death star DS is destroyed: Yx3 Yx4 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4" in lines
    own, known = grids(turn2)
    assert drawn(known) == marks("Rv1 Rv2 Rw1 Rw2 Rx1 Rx2:kc Ov3 Ow3 Ox3:md Bv5 Bw5 Bx5 By5:pc Gz1:S "
                                 "Yz1 Yz2 Yz3:o Bz5:o Yx3 Yx4 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4:ds Yx5:o")
    assert own["Gv1"] == own["Gw1"] == "kc" and own["Gv2"] == "KC"
    assert next_turn(turn2, 3).startswith("In turn 3 you may make 5 strikes:\n"
                                          "  5 conventional (DS 1, KC 2, FS 2) [4.4.1]\n")
    assert beam_directions(turn2, 3) == DIRECTIONS - {"colour+letter+number", "colour-letter-number"}

    # Turn 3 ends the game [2.3.1].
    assert happened(final, 3) == ["you   strike Gz1: hit", "you   strike Gz2: hit",
                                  "      Their heavy scout HS is destroyed: Gz1 Gz2",
                                  "      flashcube data from you: Gz1 empty, Gz2 empty.", "they  strike Ov1: hit"]
    own, known = grids(final)
    assert known["Gz1"] == known["Gz2"] == "hs" and own["Ov1"] == "ds"
    assert ("== The game is over ==\nPlayer 2 has no ships left [2.3.1].\nScores: you 13, Player 2 0.\nYou win.\n"
            in final)
    assert "Your remaining materiel: 13 cells." in final
    # The records are a record gm referee reads (tests/test_final_sheet.py referees one).
    assert ("\nturn 1                  ; you reported first\n"
            "1: bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1\n2: Rv1 Rw2 Yz2 Bz5\n") in final
    assert "== Turn 4 ==" not in final and "may make" not in final and "password" not in final


def test_facts_standard_win_player_2(sheets):
    begin, turn1, turn2, final = (sheets[f"standard-win.p2.{x}"] for x in ("begin", "turn1", "turn2", "final"))
    assert next_turn(begin, 1) == (
        "In turn 1 you may make 9 strikes:\n"
        "  8 conventional (DS 1, KC 3, PC 2, MD 1, HS 1) [4.4.1]\n"
        "  + 1 if MD launches a missile: unfired Ov3 Ow3 Ox3 [8.1.3]\n"
        "Beam from DS [8.2]: in any of the 13 directions\n"
        "Scans: 1 [8.3.1]\n")
    lines = happened(turn1, 1)
    assert lines[0] == "they  beam strike Rv1: hit"
    assert "      Your kill cruiser KC is destroyed: Rv1 Rv2 Rw1 Rw2 Rx1 Rx2" in lines
    assert "they  scan Gz1: undamaged" in lines
    own, known = grids(turn1)
    # Rv1 and Rw2 were reported undamaged by flashcube, then hit by player 2.
    assert drawn(known) == marks("Rv1:ds Rw2:ds Rv2:DS Rw1:DS Rx1 Rx2:o Ov3 Ow3 Ox3:o Yz1 Yz2 Yz3:md Bz5:ls "
                                 "Bv5 Bw5 Bx5 By5:o")
    assert drawn(own) == marks("Rv1 Rv2 Rw1 Rw2 Rx1 Rx2:kc Ov3 Ow3 Ox3:md Bv5 Bw5 Bx5 By5:pc "
                               "Yx3 Yx4 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4:DS Gz1 Gz2:HS")
    assert "Your remaining materiel: 10 cells." in turn1
    # 13 cells lost in turn 1: 13 scans [8.3.1.1].
    assert next_turn(turn1, 2) == (
        "In turn 2 you may make 2 strikes:\n"
        "  2 conventional (DS 1, HS 1) [4.4.1]\n"
        "Beam from DS [8.2]: in any of the 13 directions\n"
        "Scans: 13 [8.3.1]\n")
    assert command_history(turn2, 2) == ["Gv1             strike Gv1", "Gw1             strike Gw1",
                                         "sBv1            scan Bv1", "sBw1            scan Bw1"]
    own, known = grids(turn2)
    assert drawn(known) == marks("Rv1:ds Rw2:ds Rv2:DS Rw1:DS Rx1 Rx2:o Ov3 Ow3 Ox3:o Yz1 Yz2 Yz3:md Bz5:ls "
                                 "Bv5 Bw5 Bx5 By5:o Gv1 Gw1:X Bv1 Bw1:S Yx3 Yx4 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4:o")
    assert next_turn(turn2, 3) == (
        "In turn 3 you may make 1 strike:\n"
        "  1 conventional (HS 1) [4.4.1]\n"
        "Scans: 8 [8.3.1]\n")
    _, known = grids(final)
    assert known["Ov1"] == "X" and known["Gz1"] == known["Gz2"] == "o"
    assert ("== The game is over ==\nYou have no ships left [2.3.1].\nScores: Player 1 13, you 0.\n"
            "Player 1 wins.\n") in final
    assert "Your remaining materiel: 0 cells." in final


# Facts of kamikaze-burnout (see its comments)

def test_facts_kamikaze_burnout_player_1(sheets):
    turn1, turn2, history, final = (sheets[f"kamikaze-burnout.p1.{x}"] for x in ("turn1", "turn2", "history", "final"))
    history = the_history(history)
    lines = happened(turn1, 1)
    assert lines[:6] == ["you   beam strike Yw1: hit", "you   beam strike Yx2: hit", "you   beam strike Yy3: hit",
                         "you   strike Bz5: explosion  (missile explosion: Bz5 By5)", "you   strike Gz5: miss",
                         "you   scan Rv1: undamaged"]
    assert "      flashcube data from them: Yz1 empty, Yz2 empty, Yz3 HS undamaged." in lines
    assert "\n  The beam weapon of your DS burnt out [8.2.4].\n" in turn1
    own, known = grids(turn1)
    assert drawn(own) == marks("Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2:DS Gv1 Gv2 Gw1 Gw2 Gx1:kc Gx2:KC Bv1 Bw2:fs "
                               "Bv2 Bw1:FS Yz1 Yz2 Yz3:md Bz5:LS")
    # Both cells of the missile explosion are drawn '*' [8.1.4.2], By5 as much as the struck Bz5.
    assert drawn(known) == marks("Rv1:S Yw1 Yx2 Yy3:X Bz5 By5:* Gz5:o Yz1 Yz2:o Yz3:HS")
    assert "Your remaining materiel: 12 cells." in turn1
    assert next_turn(turn1, 2) == (
        "In turn 2 you may make 3 strikes:\n"
        "  1 conventional (DS 1) [4.4.1]\n"
        "  + 1 if KC launches a kamikaze from Gx2 [4.5]\n"
        "  + 1 if FS launches a kamikaze from one of Bv2 Bw1 [4.5]\n"
        "Scans: 10 [8.3.1]\n")  # and no beam: it burnt out [8.4]

    lines = happened(turn2, 2)
    scans = lines.index("they  scan Gx2: destroyed")  # a kamikaze launch cell [4.5.3], [8.3.4.1]
    assert lines[scans:scans + 5] == [
        "they  scan Gx2: destroyed", "they  scan Bw1: undamaged", "they  kamikaze death Yz3",
        "      Their heavy scout HS is destroyed: Yy3 Yz3",  # with the kamikaze death [11.7.3]
        "      flashcube data from you: Yy3 empty, Yz3 MD destroyed."]
    assert lines[:scans] == [
        "they  strike Rv1: hit", "they  strike Rw1: hit", "they  strike Ov1: hit", "they  strike Ow1: hit",
        "they  strike Bz5: hit", "      Your light scout LS is destroyed: Bz5",
        "      flashcube data from them: Bz5 MD destroyed.", "they  strike Gz2: miss"]
    assert lines[-5:] == [
        "you   kamikaze death Gx2", "      Your kill cruiser KC is destroyed: Gv1 Gv2 Gw1 Gw2 Gx1 Gx2",
        "      flashcube data from them: Gv1 empty, Gv2 empty, Gw1 empty, Gw2 empty,",
        "        Gx1 empty, Gx2 empty.", "you   kamikaze death Bv2"]
    assert "you   scan Bx5: undamaged" in lines and "you   scan Rz5: empty" in lines
    assert command_history(turn2, 2) == [
        "kGx2            kamikaze launched from Gx2 (KC)", "Yx1             strike Yx1",
        "kBv2            kamikaze launched from Bv2 (FS)", "Yx3             strike Yx3", "Yx4             strike Yx4",
        "bYv1Yv3         REJECTED: DS's beam weapon has burnt out [8.4]", "sBx5            scan Bx5",
        "sYv1            scan Yv1", "sYw1            scan Yw1", "sRz5            scan Rz5"]
    own, known = grids(turn2)
    assert drawn(own) == marks("Rv1 Rw1 Ov1 Ow1:ds Rv2 Rw2 Ov2 Ow2:DS Gv1 Gv2 Gw1 Gw2 Gx1 Gx2:kc Bv1 Bv2 Bw2:fs "
                               "Bw1:FS Yz1 Yz2 Yz3:md Bz5:ls")
    assert drawn(known) == marks("Rv1:S Rz5:- Yv1:S Yw1:X Yx1 Yx2 Yx3 Yx4:pc Yy3 Yz3:hs Yz1 Yz2:o Gz5:o "
                                 "Gv1 Gv2 Gw1 Gw2 Gx1 Gx2:o Bx5:S Bz5:md By5:*")  # Bz5 revealed by flashcube
    assert "Your remaining materiel: 5 cells." in turn2
    assert next_turn(turn2, 3) == (
        "In turn 3 you may make 2 strikes:\n"
        "  1 conventional (DS 1) [4.4.1]\n"
        "  + 1 if FS launches a kamikaze from Bw1 [4.5]\n")  # one cell: no choice

    # The history, asked for in turn 3, holds both turns as the sheets told them.
    assert history.count("== Turn ") == 2
    assert "\n".join("  " + line for line in happened(turn2, 2)) in history
    assert "    bYv1Yv3         REJECTED: DS's beam weapon has burnt out [8.4]\n" in history

    assert "What happened" not in final  # a resignation, not a turn
    assert "== The game is over ==\nPlayer 1 resigned.\nScores: Player 2 14, you 0.\nPlayer 2 wins.\n" in final
    assert grids(final) == grids(turn2)


def test_facts_kamikaze_burnout_player_2(sheets):
    begin, turn1, turn2, history, final = (
        sheets[f"kamikaze-burnout.p2.{x}"] for x in ("begin", "turn1", "turn2", "history", "final"))
    history = the_history(history)
    ten = DIRECTIONS - {"colour+number", "colour+letter+number", "colour-letter+number"}
    assert beam_directions(begin, 1) == ten
    # Only player 1 was told; the records at the end reveal both players' orders [1.4.1], and
    # with them why player 1's beam in turn 2 was rejected.
    assert "burnt out" not in "".join([turn1, turn2, history, final.split("== Both records")[0]])
    assert "\n; rejected: bYv1Yv3: DS's beam weapon has burnt out [8.4]\n" in final
    own, known = grids(turn1)
    assert drawn(known) == marks("Yz1 Yz2 Yz3:md Gv1 Gv2 Gw1 Gw2 Gx1:X Bv1 Bw2:X")
    assert drawn(own) == marks("Rv1 Rv2 Rw1 Rw2 Rx1 Rx2 Ov1 Ow1:DS Yv1 Yv2 Yv3 Yw2 Yw3:KC Yw1:kc Yx1 Yx3 Yx4:PC "
                               "Yx2:pc Yy3:hs Yz3:HS Bx5:MD* By5 Bz5:md")
    assert next_turn(turn1, 2).startswith(
        "In turn 2 you may make 6 strikes:\n"
        "  4 conventional (DS 1, KC 2, PC 1) [4.4.1]\n"
        "  + 1 if MD launches a missile: unfired Bx5 [8.1.3]\n"
        "  + 1 if HS launches a kamikaze from Yz3 [4.5]\n")
    assert next_turn(turn1, 2).endswith("\nScans: 5 [8.3.1]\n")
    assert beam_directions(turn1, 2) == ten

    orders = command_history(turn2, 2)
    assert orders[0] == "kYz3            kamikaze launched from Yz3 (HS)"
    assert orders[3] == "mBx5            missile launched from Bx5 (MD)"
    assert orders[8] == ("Gz3             REJECTED: too many strikes: 6 allowed this turn (4 conventional "
                         "[4.4.1], 1 missile [8.1.3], 1 kamikaze [4.5])")
    assert [r for r in orders if "REJECTED" in r] == [orders[8]]
    assert ("\n  Gz3             REJECTED: too many strikes: 6 allowed this turn (4\n"
            "                  conventional [4.4.1], 1 missile [8.1.3], 1 kamikaze [4.5])\n") in turn2
    lines = happened(turn2, 2)
    assert lines[:2] == ["you   strike Rv1: hit", "you   strike Rw1: hit"]
    assert "      flashcube data from you: Bz5 MD destroyed." in lines
    assert "Gz3" not in "\n".join(lines)
    own, known = grids(turn2)
    assert own["Bx5"] == "MD'" and own["Yz3"] == "hs"  # fired [8.1.3.2]; launched its kamikaze
    assert drawn(known) == marks("Rv1 Rw1 Ov1 Ow1:X Yx1 Yx2 Yx3 Yx4:o Yy3:o Yz1 Yz2 Yz3:md Gv1 Gv2 Gw1 Gw2 Gx1 Gx2:kc "
                                 "Gz2:o Bv1:X Bv2:k Bw1:S Bw2:X Bz5:ls")
    assert "Your remaining materiel: 14 cells." in turn2
    assert next_turn(turn2, 3).startswith(
        "In turn 3 you may make 4 strikes:\n"
        "  3 conventional (DS 1, KC 2) [4.4.1]\n"
        "  + 1 if MD launches a kamikaze from Bx5 [4.5]\n"
        "Beam from DS")
    assert "Scans" not in next_turn(turn2, 3)  # the HS is gone

    assert "== The game is over ==\nPlayer 1 resigned.\nScores: you 14, Player 1 0.\nYou win.\n" in final
    # Gz3 ran not, so it is a comment in the record, with the rule it broke.
    assert ("\n2: kYz3 Rv1 Rw1 mBx5 Ov1 Ow1 Bz5 Gz2 sGx2 sBw1\n"
            "; rejected: Gz3: too many strikes: 6 allowed this turn (4 conventional\n") in final
    assert history.startswith("Spaceships game g1: you are Player 2, playing Player 1\nRules: Spaceships 2.6.1\n\n"
                              "Your setup:\n    DS Rv1-Rx2 Ov1 Ow1\n")
    assert "\n".join("  " + line for line in happened(turn1, 1)) in history
    # The history's orders are the sheet's, the long one wrapped at column 20.
    assert rows(history.split("== Turn 2 ", 1)[1].split("  Your orders:\n", 1)[1]) == [
        "    " + line for line in orders]
    assert ("\n    Gz3             REJECTED: too many strikes: 6 allowed this turn (4\n"
            "                    conventional [4.4.1], 1 missile [8.1.3], 1 kamikaze [4.5])\n") in history


def test_an_explosion_next_to_the_target_is_drawn_as_one(sheets):
    # 'you   strike Bz5: explosion  (missile explosion: Bz5 By5)': both drawn '*', as the legend says.
    for label in ("turn1", "turn2", "final"):
        sheet = sheets[f"kamikaze-burnout.p1.{label}"]
        assert grids(sheet)[1]["By5"] == "*"
        assert "   * explosion   " in sheet
    assert grids(sheets["kamikaze-burnout.p1.turn1"])[1]["Bz5"] == "*"


BURN_OUT = "  The beam weapon of your DS burnt out [8.2.4].\n"


def test_the_history_tells_of_the_burn_out(sheets):
    turn1, history = sheets["kamikaze-burnout.p1.turn1"], sheets["kamikaze-burnout.p1.history"]
    assert history.count(BURN_OUT) == 1
    # As the turn sheet told it, last of what happened in turn 1; then the orders.
    told = "".join(f"  {line}\n" for line in happened(turn1, 1))
    assert told.endswith("flashcube data from them: Yz1 empty, Yz2 empty, Yz3 HS undamaged.\n" + BURN_OUT)
    assert "\n" + told + "  Your orders:\n    bYw1Yy3         beam from DS on Yw1 Yx2 Yy3\n" in history
    assert history.index(BURN_OUT) < history.index("== Turn 2 ")


def test_the_sheets_show_each_player_only_their_own_password(sheets):
    from gm.pbem.data.tokens import token

    for name, sheet in sheets.items():
        player = int(name.split(".")[1][1])
        if "password" in sheet:
            assert sheet.endswith(f"    password {token(KEY, 'g1', player)}\n")
            assert token(KEY, "g1", 3 - player) not in sheet


def test_the_orders_block_is_aligned(sheets):
    assert "\n; b<end><end>      beam from DS\n; m<cell>          missile from MD: " in sheets["standard-win.p1.begin"]
    blocks = 0
    for name, sheet in sheets.items():
        if "(fill in and send; ';' lines are comments):\n" not in sheet:
            continue
        blocks += 1
        block = sheet.split("(fill in and send; ';' lines are comments):\n", 1)[1]
        lines = block.split("\n\n", 1)[0].splitlines()
        assert len(lines) >= 2, name
        columns = {len(line) - len(line[2:].split("  ", 1)[1].lstrip()) for line in lines}
        assert columns == {19}, (name, columns)
    assert blocks == 12  # begin, turn1 and turn2 of both players in both games
