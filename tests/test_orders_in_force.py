"""`status` shows the orders in force for the coming turn, each as it will
be carried out or why it will not (issue 10, point 1), in both the text and
the HTML sheet; a sheet fresh from a turn says that none are in force yet."""

from __future__ import annotations

import asyncio

from gmtest import SETUP_ALICE, SETUP_BOB, World, rows, text


def html(message) -> str:
    return message.get_body(preferencelist=("html",)).get_content()


async def status(world: World, player) -> object:
    world.clock.advance(minutes=1)
    await world.act(player.reply, "status")
    (sheet,) = [m for m in player.inbox()[-2:] if "your sheet" in str(m["Subject"])]
    return sheet


def test_status_shows_the_orders_in_force(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            begin = text(world.alice.latest())
            assert "\n== Orders in force for turn 1 ==\nYou have no orders in force for turn 1 yet.\n" in begin

            sheet = await status(world, world.alice)
            assert "You have no orders in force for turn 1 yet." in text(sheet)
            assert "You have no orders in force for turn 1 yet." in html(sheet)

            # Player 1 may make 7 conventional strikes and 1 scan in turn 1.
            await world.act(world.alice.reply, "mYz1 Rv1 Rw1 sBz1 sBz2")
            sheet = await status(world, world.alice)
            plain = text(sheet)
            assert "no orders in force" not in plain
            block = plain.split("\n== Orders in force for turn 1 ==\n", 1)[1].split("\n\n", 1)[0]
            table = rows(block)
            assert table[:4] == [
                "  mYz1            missile launched from Yz1 (MD)",
                "  Rv1             strike Rv1",
                "  Rw1             strike Rw1",
                "  sBz1            scan Bz1"]
            assert table[4].startswith("  sBz2            REJECTED: only 1 scan allowed this turn")
            assert block.splitlines()[-2:] == [
                "They run when the turn runs, unless you send new orders before: mailing again",
                "replaces them all."]
            page = html(sheet)
            assert 'id="in-force"' in page
            for written in ("mYz1", "missile launched from Yz1 (MD)", "sBz2", "REJECTED: only 1 scan allowed"):
                assert written in page
            assert "Turn 1: your sheet" in str(sheet["Subject"])
            # Bob's status is untouched by Alice's orders.
            bobs = await status(world, world.bob)
            assert "You have no orders in force for turn 1 yet." in text(bobs)
            assert "mYz1" not in text(bobs) and "mYz1" not in html(bobs)
            # The turn runs: the new sheet has none in force for turn 2.
            await world.act(world.bob.reply, "Rz5")
            after = text(world.alice.latest())
            assert "Turn 1 results" in str(world.alice.latest()["Subject"])
            assert "You have no orders in force for turn 2 yet." in after
    asyncio.run(scenario())
