"""How the edition-2 archives here were made: two games played through gm at
commit fb31187 with its test clock (run from a checkout of that commit as
`python -P tests/archives/edition2/make.py OUTDIR`). Kept as a record; never run it
with a newer gm, for these stand for archives already in operators' data
directories."""
import asyncio
import shutil
import sys
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from gmtest import SETUP_ALICE, SETUP_BOB, World
from test_gridfighters_by_mail import play_to_the_end, setup_text


async def spaceships(tmp):
    async with World(tmp) as world:
        from gm.kernel.values import Options
        from gm.pbem.operator.admin import request_game
        from gmtest import ALICE, BOB
        request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1", Options(), world.clock(),
                     observers=["carol@example.com"])
        await world.settle()
        await world.act(world.alice.reply, SETUP_ALICE)
        await world.act(world.bob.reply, "help\nstatus\nhistory\n" + SETUP_BOB)
        await world.act(world.alice.reply, "Rv1\nQq9\nstatus\nhistory\nhelp\n")
        await world.act(world.alice.reply, "absent until 2026-11-25\nback\n")
        await world.act(world.bob.reply, "Gy3 draw\nmessage hello there\n")
        world.clock.advance(hours=2, seconds=0.25)
        await world.act(world.alice.reply, "Bx2\nstatus\n")
        await world.act(world.bob.reply, "Ov3\nhistory\nhelp\n")
        world.clock.advance(days=8, seconds=0.5)
        await world.settle()
        await world.act(world.alice.reply, "status\nhelp\n")
        await world.act(world.bob.reply, "resign\nstatus\n")
        return world.daemon.master.games["g1"].phase

async def gridfighters(tmp):
    rng = Random(7)
    async with World(tmp) as world:
        await world.new_game(game="gridfighters", variant="standard+quiet=2")
        await world.act(world.alice.reply, setup_text(1, rng) + "help\nstatus\nhistory\n")
        await world.act(world.bob.reply, setup_text(2, rng))
        await world.act(world.alice.reply, "status\nhistory\n")
        await play_to_the_end(world, rng)
        await world.act(world.bob.reply, "status\nhistory\nhelp\n")
        return world.daemon.master.games["g1"].phase

for name, play in (("spaceships", spaceships), ("gridfighters", gridfighters)):
    tmp = Path(sys.argv[1]) / name
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    print(name, asyncio.run(play(tmp)))
