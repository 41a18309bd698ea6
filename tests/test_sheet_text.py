"""The wording and layout of the plain-text turn sheet (issue 10, point 10),
through the real daemon: plural agreement, a choice of one cell, a turn with
no conventional strikes, the legend and the grids' column numbers.

The game: Bob takes Alice's fleet apart in three turns while she fires one
miss a turn, until only her light scout is left (1 cell, no conventional
strike [6.8.2], no kamikaze). Worked out with `gm.games.spaceships.game.Game`:
  turn 1  Bob: mOv3 and 9 strikes: Yz2 explodes her MD [8.1.4], then her KC
          and Bv1 Bv2 of her FS.
  turn 2  Bob: her DS, all 8 cells.
  turn 3  Bob: Bw1 Bw2, the rest of her FS. She keeps Bz5 (the LS): 1 cell,
          0 strikes, 2 scans (2 cells lost in turn 3 [8.3.1.1]).
"""

from __future__ import annotations

import asyncio
import re

from gmtest import World, text

SETUP_ALICE = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n"
SETUP_BOB = "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n"
TURNS = [("Rz5", "mOv3 Yz2 Gv1 Gv2 Gw1 Gw2 Gx1 Gx2 Bv1 Bv2"),
         ("Rz4", "Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2"),
         ("Rz3", "Bw1 Bw2")]

LEGEND_ENTRIES = ["KC ship", "kc destroyed", "MD* unfired missile", "MD' fired missile", ". empty",
                  "o miss", "- scanned empty", "S scanned ship", "x scanned destroyed", "X hit",
                  "* explosion", "k kamikaze", "KC/kc ship revealed"]


def play(tmp_path) -> list[str]:
    """Alice's turn sheets, from the first to the one for turn 4."""
    async def scenario() -> list[str]:
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            for alice, bob in TURNS:
                await world.act(world.alice.reply, alice)
                await world.act(world.bob.reply, bob)
            return [text(m) for m in world.alice.inbox()
                    if re.search(r"the game begins|results; orders for turn", str(m["Subject"]))]
    return asyncio.run(scenario())


def test_a_lone_light_scout(tmp_path):
    sheets = play(tmp_path)
    assert len(sheets) == 4
    last = sheets[-1]
    assert "Your remaining materiel: 1 cell.\n" in last
    assert "cells." not in last.split("== The spaces ==", 1)[1].split("== Turn 4 ==", 1)[0]
    assert "up to 0" not in last and "0 conventional" not in last
    assert "In turn 4 you may make no strikes [4.4.1].\nScans: 2 [8.3.1]\n" in last
    block = last.split("(fill in and send; ';' lines are comments):\n", 1)[1].split("\n\n", 1)[0]
    assert block == "; s<cell> ...      up to 2 scans"
    # Earlier, with strikes to make, the sheets said so as before.
    assert "Your remaining materiel: 22 cells.\n" in sheets[0]
    assert "; <cell> ...       up to 7 conventional strikes\n" in sheets[0]
    assert "; <cell> ...       up to 1 conventional strike\n" in sheets[3 - 1]


def test_the_legend_keeps_each_entry_on_one_line(tmp_path):
    for sheet in play(tmp_path):
        legend = sheet.split("\nYour space: ", 1)[1].split("\nYour remaining materiel", 1)[0]
        lines = ("Your space: " + legend).splitlines()
        assert all(len(line) <= 78 for line in lines)
        for entry in LEGEND_ENTRIES:
            assert any(entry in line for line in lines), (entry, lines)


def test_column_numbers_stand_over_their_cells(tmp_path):
    sheet = play(tmp_path)[-1]
    lines = sheet.split("== The spaces ==\n", 1)[1].splitlines()
    headers = [n for n, line in enumerate(lines) if re.match(r"^\w+ \([ROYGB]\) ", line)]
    assert len(headers) == 5
    for n in headers:
        numbers = [m.start() for m in re.finditer(r"[1-5]", lines[n])]
        assert len(numbers) == 10, lines[n]
        for row in lines[n + 1:n + 6]:
            cells = [m.start() for m in re.finditer(r"\S+", row)]
            assert len(cells) == 12, row
            assert cells[1:6] + cells[7:12] == numbers, (lines[n], row)
