"""What gm keeps on disk is what mail programs expect on Unix: game
Maildirs and local deliveries with LF line ends (the wire's CRLF is for the
wire), exported mailboxes marked read, and `gm replay` still byte-exact."""

from __future__ import annotations

import asyncio
import mailbox

from gm.cli import main
from gm.pbem.operator.admin import verify_replay
from gmtest import SETUP_ALICE, SETUP_BOB, World


def test_games_and_deliveries_are_stored_with_unix_line_ends_and_exports_are_read(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "Rv1")
            await world.act(world.bob.reply, "resign")
    asyncio.run(scenario())
    data = tmp_path / "data"
    stored = [p for folder in (data / "games" / "g1", data / "delivered") for sub in ("cur", "new")
              for p in (folder / sub).iterdir()]
    assert len(stored) > 10 and all(b"\r\n" not in p.read_bytes() for p in stored)
    for folder in (data / "games" / "g1", data / "delivered"):
        box = mailbox.Maildir(str(folder), create=False)
        assert all(message["Message-ID"] for message in box)  # every file reads as mail
    count, differences = verify_replay(str(data / "games" / "g1"))
    assert count > 0 and differences == []
    for extra in ([], ["--player", "1"]):
        exported = tmp_path / f"export{len(extra)}.mbox"
        assert main(["export", "g1", "--data", str(data), "--mbox", str(exported), *extra]) == 0
        box = mailbox.mbox(str(exported))
        assert len(box) > 3 and {message.get_flags() for message in box} == {"RO"}
