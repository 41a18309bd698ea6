"""What an operator reads says what is true (issue 22, small ones): `gm
referee` names the winner first, `gm show` the last turn of a game that has
ended, `gm --help` and the systemd unit say what gm is as the README does."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from gm.cli import main
from gmtest import World
from test_player_words import played_to_the_end

ROOT = Path(__file__).resolve().parent.parent


def run_gm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "gm", *args], cwd=ROOT, capture_output=True, text=True,
                          encoding="utf-8", timeout=120)


SECOND_WINS = """\
; standard-win.rec with the players exchanged: player 2 wins 13 to 0.
variant 2.6.1

setup 1
DS Yx3-Gy4
KC Rv1-Rx2
PC Bv5-By5
MD Ov3 Ow3 Ox3
HS Gz1 Gz2

setup 2
DS Rv1-Ow2
KC Gv1-Gx2
FS Bv1-Bw2
MD Yz1 Yz2 Yz3
LS Bz5

turn 1
1: Rv1 Rw2 Yz2 Bz5
2: bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1

turn 2
1: Gv1 Gw1 sBv1 sBw1
2: bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4

turn 3
1: Ov1
2: Gz1 Gz2
"""


def test_the_referees_summary_names_the_winner_and_their_score_first_in_capitalised_sentences(tmp_path):
    record = tmp_path / "second-wins.rec"
    record.write_text(SECOND_WINS)
    done = run_gm("referee", str(record))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == ("Game over after turn 3. Player 2 wins, 13 to 0. "
                                            "Player 1 has no ships left [2.3.1].")




def test_gm_show_gives_the_last_turn_played_of_a_game_that_has_ended(tmp_path, capsys):
    async def scenario() -> str:
        async with World(tmp_path) as world:
            await played_to_the_end(world)
        return str(world.config.data)

    data = asyncio.run(scenario())
    capsys.readouterr()
    assert main(["show", "g1", "--data", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["phase"] == "ended" and shown["outcome"]["winner"] == "Player 1"
    assert shown["turn"] == 3 and shown["outcome"]["after_turn"] == 3


def test_gm_help_and_the_systemd_unit_say_board_games_played_by_email():
    readme = (ROOT / "README").read_text().splitlines()[0]
    assert "board games played by email" in readme
    done = run_gm("--help")
    assert done.returncode == 0 and "board games played by email" in " ".join(done.stdout.split())
    unit = (ROOT / "contrib" / "gm.service").read_text()
    assert "Description=gm, a game master for board games played by email" in unit
    for text in (done.stdout, unit):
        assert "for Spaceships" not in text
