"""How the edition-3 archives here were made: three games played through gm at
commit b73d3fe with its test clock (run from a checkout of that commit, with
gm/templates linked to ../templates, as
`PYTHONPATH=. python -P tests/archives/edition3/make.py OUTDIR`). Each game's
data directory is played in a temporary folder and only what an archive is
kept: games/g1/cur and secret.key. Kept as a record; never run it with a newer
gm, for these stand for archives already in operators' data directories."""
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from gmtest import Player, World
from test_gridfighters_by_mail import play_to_the_end, setup_text

# test_html_sheet's setups: turn 1 brings hits, a miss, a missile explosion,
# a ship destroyed and revealed, scans and a rejected scan, so the sheets show
# every kind of cell and coloured results.
SETUP_ALICE = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Ox3\n"
SETUP_BOB = "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n"


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
        await world.act(world.alice.reply, "Yx3 Rz5 Ov3 Gz1 Gz2 mYz1 Yy4 sBv5 sBz1\nhelp\nstatus\nhistory\n")
        await world.act(world.bob.reply, "Rv1 Rz1 Ox3\nmessage good luck\n")
        world.clock.advance(hours=2, seconds=0.25)
        await world.act(world.alice.reply, "Gy3 Gy4 Bv5 Bw5 Bx5\nstatus\n")
        await world.act(world.bob.reply, "Bv1 Bw1 Gv1\nhistory\n")
        await world.act(world.alice.reply, "absent until 2026-11-25\nback\nBy5 Rv2 Rw2\n")
        world.clock.advance(days=8, seconds=0.5)  # Bob misses turn 3's deadline
        await world.settle()
        await world.act(world.alice.reply, "Yv1 Yw1 Yx1\nstatus\nhelp\n")
        await world.act(world.bob.reply, "resign\nstatus\n")
        return world.daemon.master.games["g1"].phase


async def gridfighters(tmp):
    rng = Random(4)
    async with World(tmp) as world:
        await world.new_game(game="gridfighters", variant="standard+quiet=8")
        await world.act(world.alice.reply, setup_text(1, rng) + "help\nstatus\nhistory\n")
        await world.act(world.bob.reply, setup_text(2, rng))
        await world.act(world.alice.reply, "status\nhistory\n")
        await play_to_the_end(world, rng)
        await world.act(world.bob.reply, "status\nhistory\nhelp\n")
        return world.daemon.master.games["g1"].phase


async def celestial(tmp):
    from datetime import timedelta

    from gm.kernel.values import Options
    from gm.pbem.operator.admin import request_game
    addresses = ("ann@example.org", "bea@example.net")
    async with World(tmp) as world:
        request_game(world.daemon.store, world.config.identity, list(addresses), "standard+turns=2",
                     Options(deadline=timedelta(hours=48)), world.clock(), aliases=["Grok", "Winter"],
                     game="celestial-empire")
        await world.settle()
        ann, bea = (Player(a, world) for a in addresses)
        game = world.daemon.master.games["g1"]
        home = game.play.state.empires[1].home
        await world.act(ann.reply, f"{home}=Capital\n+Winter\n{{Hello from Grok}}\nstatus\nhelp\n")
        await world.act(bea.reply, "+Grok\nhistory\n")
        world.clock.advance(hours=49, seconds=0.3)  # turn 2 runs at its deadline, the last
        await world.settle()
        await world.act(bea.reply, "status\nhistory\n")
        return game.phase


for name, play in (("spaceships", spaceships), ("gridfighters", gridfighters), ("celestial", celestial)):
    out = Path(sys.argv[1]) / name
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        print(name, asyncio.run(play(Path(tmp))))
        shutil.copytree(Path(tmp) / "data" / "games" / "g1" / "cur", out / "games" / "g1" / "cur")
        shutil.copyfile(Path(tmp) / "data" / "secret.key", out / "secret.key")
