"""Freeze one shipped edition of gm's mail rules as archives: run ONCE per
shipped edition, when it ships, and never again to refresh a frozen one.

    PYTHONPATH=tests .venv/bin/python -P tests/archives/make_frozen.py EDITION

plays three short but rich games through the daemon (`gmtest.World`: a real
SMTP port, the test clock) with games made under EDITION, and keeps what an
archive is of each (games/g1/cur and its secret.key) in
tests/archives/editionEDITION/{spaceships,gridfighters,celestial}. Each game
has an observer, a player with a time zone of their own, a greeting, a
mistyped order line and its correction, press and a plain reply to it, help,
status and history, a deadline the operator moves and one a seat misses,
the final sheets with what they attach, and a sheet asked for after the
end: what editions 4 to 8 each changed (`gm.kernel.values`). Celestial
Empire has three empires, one of them the GM's robot's.

tests/test_frozen.py replays every frozen folder byte for byte. A frozen
folder stands for archives already in operators' data directories: once
committed it is never made again, whatever this script or gm become (the
script refuses a folder that exists). The games are made under EDITION by
writing it into their creation event, as the gm that shipped it did.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from random import Random

from gm.games.gridfighters.bot import random_move, random_setup
from gm.kernel.values import EDITION, DeadlineSet, Options
from gm.pbem.archive import creation
from gm.pbem.operator.actions import request_action
from gm.pbem.operator.admin import request_game
from gmtest import ALICE, BOB, COMMIT_KEY, Player, World, text

HERE = Path(__file__).resolve().parent
FIRST = 4
"""The first edition this script freezes (2 and 3 were frozen before it, by gm of their day)."""

# The setups and first orders of test_html_sheet: turn 1 brings hits, a miss,
# a missile explosion, a ship destroyed and revealed, and a rejected scan.
SETUP_ALICE = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Ox3\n"
SETUP_BOB = "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n"
ORDERS_ALICE = "Yx3 Rz5 Ov3 Gz1 Gz2 mYz1 Yy4 sBv5 sBz1\n"


def latest_with(player: Player, words: str):
    """The latest mail to ``player`` whose subject holds ``words``."""
    return next(m for m in reversed(player.inbox()) if words in str(m["Subject"]))


async def settings(world: World, player: Player, lines: str) -> None:
    """``player`` sets their settings by mail to the GM and confirms them."""
    confirmation = await world.write_gm(player, lines)
    await world.act(player.reply, "confirm", to=confirmation)
    world.clock.advance(minutes=2)  # the game's mail comes after the settings' answer


async def move_deadline(world: World, hours: float) -> None:
    """The operator moves the game's deadline on by ``hours`` (`gm extend`)."""
    world.clock.advance(minutes=3)
    request_action(world.daemon.store, world.config.identity, "g1",
                   DeadlineSet(world.clock(), extend=timedelta(hours=hours)))
    await world.settle()


async def miss_deadline(world: World) -> None:
    """The game's deadline comes: first the time its reminders go out, then
    the deadline itself, each a moment after (what a seat that sent nothing
    is told at each)."""
    game = world.daemon.master.games["g1"]
    assert game.deadline is not None
    world.clock.now = game.deadline - game.options.reminder_before + timedelta(minutes=1, seconds=0.25)
    await world.settle()
    world.clock.now = game.deadline + timedelta(minutes=1, seconds=0.5)
    await world.settle()


async def later(world: World, act: Callable[..., object], *args, **kwargs) -> None:
    """A player's action a few minutes after the one before."""
    world.clock.advance(minutes=7, seconds=0.125)
    await world.act(act, *args, **kwargs)


async def spaceships(world: World) -> str:
    carol = Player("carol@example.com", world)
    await settings(world, world.alice, "timezone Europe/Berlin\n")
    request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1+scoring-by-hits",
                 Options(deadline=timedelta(hours=72)), world.clock(), aliases=["Vega", "Altair"],
                 observers=[carol.address], commit_key=COMMIT_KEY)
    await world.settle()
    await later(world, world.alice.reply, "Hello Altair,\n" + SETUP_ALICE + "Thanks!\n")
    await later(world, world.bob.reply, "help\nstatus\nhistory\n" + SETUP_BOB)
    # A mistyped line beside good ones, and press: edition 8 waits for the correction.
    await later(world, world.alice.reply, "Yx3 Rz5 Ov3 Gz1 Gz2\nQq9\nmessage Good luck, Altair!\n")
    await later(world, world.bob.reply, "Rv1 Rz1 Ox3\n")
    await later(world, world.bob.reply, "Thanks, and good luck to you too!\n",
                to=latest_with(world.bob, "A message from Vega"))
    await later(world, world.alice.reply, ORDERS_ALICE)
    await later(world, world.bob.reply, "Bv1 Bw1 Gv1\nhistory\n")
    await move_deadline(world, 24)
    await later(world, world.alice.reply, "vacation 2d\n")
    await later(world, world.alice.reply, "back\n")
    await later(world, world.alice.reply, "By5 Rv2 Rw2\n")
    await miss_deadline(world)  # Altair misses the deadline
    await later(world, world.alice.reply, "Yv1 Yw1 Yx1\n")
    await later(world, world.bob.reply, "resign\n")
    await later(world, world.alice.reply, "status\n")  # a sheet after the end
    return world.daemon.master.games["g1"].phase


MOVES = 5
"""The Grid Fighters moves made before the player to move resigns: enough
for sheets and a history, few enough for a small archive."""


def gridfighters_setup(player: int, rng: Random) -> str:
    """A random legal setup, as a player writes it (three pieces a line)."""
    placements = random_setup(player, rng)
    return "\n".join(", ".join(f"{p.piece} {p.square}" for p in placements[k:k + 3])
                     for k in range(0, len(placements), 3)) + "\n"


async def gridfighters(world: World) -> str:
    rng = Random(20261127)
    dan = Player("dan@example.com", world)
    players = {1: world.alice, 2: world.bob}
    await settings(world, world.bob, "timezone America/New_York\n")
    request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "standard+quiet=6",
                 Options(deadline=timedelta(hours=48)), world.clock(), game="gridfighters",
                 observers=[dan.address], commit_key=COMMIT_KEY)
    await world.settle()
    game = world.daemon.master.games["g1"]
    await later(world, world.alice.reply, "Hi Bob,\n" + gridfighters_setup(1, rng) + "help\n")
    await later(world, world.bob.reply, gridfighters_setup(2, rng) + "status\nhistory\n")
    first, second = players[game.play.grid.to_move], players[3 - game.play.grid.to_move]
    await later(world, first.reply, "; my move\nQ9 Z1-Z2\nmessage Your move soon, I hope.\n")
    await later(world, second.reply, "Patience!\n", to=latest_with(second, "A message from"))
    await move_deadline(world, 12)
    await miss_deadline(world)  # the player to move misses it
    for _ in range(MOVES):
        grid = game.play.grid
        move = random_move(grid, grid.to_move, rng)
        await later(world, players[grid.to_move].reply, f"{move.piece} {move.frm}-{move.to}\n")
    await later(world, players[game.play.grid.to_move].reply, "resign\n")
    await later(world, world.bob.reply, "status\nhistory\n")  # after the end
    return game.phase


def earth_scan(sheet: str) -> str:
    """An order any empire may give from its sheet: a scan of Earth."""
    found = re.search(r"(\d+)\s+\*+ EARTH \*+", sheet)
    assert found, sheet[:3000]
    return f"SCAN{found.group(1)}\n"


def sheet_of(player: Player) -> str:
    """The player's latest turn sheet."""
    return next(text(m) for m in reversed(player.inbox()) if "EARTH" in text(m))


async def celestial(world: World) -> str:
    ann, bea, eve = (Player(a, world) for a in ("ann@example.org", "bea@example.net", "eve@example.com"))
    await settings(world, ann, "timezone Asia/Tokyo\n")
    request_game(world.daemon.store, world.config.identity, [ann.address, bea.address], "standard+turns=3",
                 Options(deadline=timedelta(hours=48), take_over_after=1), world.clock(), aliases=["Grok", "Winter"],
                 game="celestial-empire", observers=[eve.address], robot="easy", commit_key=COMMIT_KEY)
    await world.settle()
    game = world.daemon.master.games["g1"]
    state = game.play.state
    home, ship = state.empires[1].home, state.ships_of(2)[0]
    await later(world, ann.reply, f"Hello,\n{home}=Capital\nS{ship.number}J\n+Winter\n{{Hello from Grok}}\n"
                                  "message Peace between our empires, Winter?\nstatus\nhelp\n")
    await later(world, bea.reply, f"check\nS{ship.number}J999\nSCAN999\n+Nobody\n")
    await later(world, bea.reply, "Greetings to you too.\n", to=latest_with(bea, "A message from"))
    await later(world, ann.reply, f"{home}=Capital\n" + earth_scan(sheet_of(ann)))
    await later(world, bea.reply, earth_scan(sheet_of(bea)) + "history\n")
    await move_deadline(world, 24)
    await later(world, ann.reply, earth_scan(sheet_of(ann)))
    await miss_deadline(world)  # Winter misses the deadline
    await later(world, ann.reply, earth_scan(sheet_of(ann)))
    await later(world, bea.reply, earth_scan(sheet_of(bea)))
    await later(world, bea.reply, "status\nhistory\n")  # after the end
    return game.phase


GAMES: dict[str, Callable[[World], Awaitable[str]]] = {
    "spaceships": spaceships, "gridfighters": gridfighters, "celestial": celestial}


def main(edition: int) -> None:
    if not FIRST <= edition < EDITION:  # today's edition has not shipped: its mail may still change
        sys.exit(f"freeze a shipped edition, {FIRST} to {EDITION - 1}, not {edition}")
    out = HERE / f"edition{edition}"
    if out.exists():
        sys.exit(f"{out} exists: a frozen archive is never made again")
    creation.EDITION = edition  # the edition new games are made under, as the gm that shipped it wrote
    for name, play in GAMES.items():
        with tempfile.TemporaryDirectory() as tmp:
            async def run(play=play, tmp=tmp) -> str:
                async with World(Path(tmp)) as world:
                    return await play(world)
            phase = asyncio.run(run())
            if phase != "ended":
                sys.exit(f"{name}: the game did not end ({phase})")
            shutil.copytree(Path(tmp) / "data" / "games" / "g1" / "cur", out / name / "games" / "g1" / "cur")
            shutil.copyfile(Path(tmp) / "data" / "secret.key", out / name / "secret.key")
        print(name, phase)


if __name__ == "__main__":
    main(int(sys.argv[1]))
