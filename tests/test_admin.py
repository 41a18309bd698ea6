"""The administrator's commands: gm new, games, show, export, replay."""

import asyncio
import json
import mailbox

from gm.cli import main
from gm.pbem.data.store import Store
from gmtest import SETUP_ALICE, SETUP_BOB, World


def played(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "Rv1")
        return world.config.data
    return asyncio.run(scenario())


def test_new_spools_a_request_and_refuses_nonsense(tmp_path, capsys):
    data = str(tmp_path / "data")
    Store(data)  # made by `gm serve`: `gm new` refuses a missing data directory
    assert main(["new", "--data", data, "--player", "a@x.example", "--player", "b@y.example", "--deadline", "48h"]) == 0
    assert "game requested" in capsys.readouterr().out
    assert main(["new", "--data", data, "--player", "a@x.example", "--player", "a@x.example"]) == 2
    assert "different addresses" in capsys.readouterr().err
    assert main(["new", "--data", data, "--player", "a@x.example", "--player", "b@y.example", "--variant", "9.9"]) == 2
    assert "unknown ruleset" in capsys.readouterr().err


def test_games_show_export_replay(tmp_path, capsys):
    data = played(tmp_path)
    assert main(["games", "--data", data]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("g1") and "turn 1" in line and "alice@example.org" in line
    assert main(["show", "g1", "--data", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["phase"] == "play" and shown["waiting_for"] == ["Player 2"]
    assert main(["show", "g9", "--data", data]) == 2
    mbox = tmp_path / "g1.mbox"
    assert main(["export", "g1", "--data", data, "--mbox", str(mbox)]) == 0
    box = mailbox.mbox(str(mbox))
    subjects = [str(m["Subject"]) for m in box]
    assert subjects[0] == "[gm g1] created" and len(box) == 11
    assert all("*" * 16 in m.as_string() or "X-GM-Event" in m or "X-GM-Accepted" in m for m in box)
    capsys.readouterr()
    assert main(["export", "g1", "--data", data, "--mbox", str(mbox), "--player", "3"]) == 2
    assert "game g1 has no player 3: its players are 1 to 2" in capsys.readouterr().err
    archive = f"{data}/games/g1"
    assert main(["replay", archive]) == 0
    assert "all identical" in capsys.readouterr().out


def test_replay_notices_a_tampered_archive(tmp_path, capsys):
    data = played(tmp_path)
    from pathlib import Path

    sent = sorted(Path(data, "games", "g1", "cur").glob("000004.out.1*"))[0]
    sent.write_bytes(sent.read_bytes().replace(b"strike Rv1", b"strike Rv2", 1))
    assert main(["replay", f"{data}/games/g1"]) == 1
    assert "000004.out.1: differs from the archived copy" in capsys.readouterr().out


def test_aliases_given_for_some_seats_leave_the_rest_to_the_games_defaults(tmp_path, capsys):
    from gm.kernel.protocol import game_named
    from gm.pbem.operator.admin import seat_aliases

    spaceships = game_named("spaceships")
    assert seat_aliases(spaceships, 2, ["Ann"]) == ["Ann", "Player 2"]
    assert seat_aliases(spaceships, 2, []) == ["Player 1", "Player 2"]
    for given, why in ((["A", "B", "C"], "3 aliases for 2 players"), (["Ann", "ann"], "an alias of their own"),
                       (["  "], "at least one letter")):
        try:
            seat_aliases(spaceships, 2, given)
        except ValueError as error:
            assert why in str(error)
        else:
            raise AssertionError(f"{given} accepted")
    data = str(tmp_path / "data")
    Store(data)
    assert main(["new", "--data", data, "--player", "a@x.example", "--player", "b@y.example", "--alias", "Ann"]) == 0
    assert main(["new", "--data", data, "--player", "a@x.example", "--player", "b@y.example",
                 "--alias", "Ann", "--alias", "ANN"]) == 2
    assert "an alias of their own" in capsys.readouterr().err
