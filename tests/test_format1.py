"""Archives written before format 2 (tests/archives/format1/, made by gm at
4807e5d) still replay byte for byte, and a game in play at the upgrade goes
on under today's gm: its final sheet attaches the player's own mailbox, never
the opponent's mail, and the whole game still replays."""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from gm.pbem.data.tokens import token
from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, BOB, World

FORMAT1 = Path(__file__).resolve().parent / "archives" / "format1"


def data_dir(tmp_path: Path) -> Path:
    """A data directory holding the format-1 games (Maildirs need their empty folders)."""
    data = tmp_path / "data"
    shutil.copytree(FORMAT1 / "games", data / "games")
    shutil.copyfile(FORMAT1 / "secret.key", data / "secret.key")
    for game in (data / "games").iterdir():
        for sub in ("new", "tmp"):
            (game / sub).mkdir(exist_ok=True)
    return data


@pytest.mark.parametrize("game", ["g1", "g2"])
def test_format1_archives_replay_byte_for_byte(tmp_path, game):
    count, differences = verify_replay(str(data_dir(tmp_path) / "games" / game))
    assert count > 5 and differences == []


def test_a_game_in_play_at_the_upgrade_ends_with_the_players_own_mailbox(tmp_path):
    data = data_dir(tmp_path)
    key = (data / "secret.key").read_bytes()

    async def scenario():
        world = World(tmp_path)
        world.clock.now = datetime(2026, 11, 24, 13, 0, 0, 250_000, tzinfo=UTC)  # after g2's deadline ran
        async with world:
            game = world.daemon.master.games["g2"]
            assert game.turn == 2 and game.instance is None
            to = f"gm+g2.2.{token(key, 'g2', 2)}@example.org"
            raw = (f"From: {BOB}\r\nTo: {to}\r\nSubject: Re: turn 2\r\nMessage-ID: <bob-resigns@example.net>\r\n\r\n"
                   "resign\r\n").encode()
            await world.asend(raw, BOB, [to])
            await world.settle()
            assert game.phase == "ended"
            final = [m for m in world.alice.inbox() if "over" in str(m["Subject"])][-1]
            assert (str(final["Message-ID"]).startswith("<g2.")
                    and str(final["Message-ID"]).count(".") == 3)  # its old form
            (attachment,) = final.iter_attachments()
            mailbox = attachment.get_content()
            assert mailbox.count(b"\nFrom gm ") + mailbox.startswith(b"From gm ") >= 5
            assert BOB.encode() not in mailbox and token(key, "g2", 2).encode() not in mailbox
            assert b"198.51.100.77" not in mailbox and b"Secret Lane" not in mailbox
            for message in mailbox.split(b"\nFrom gm ")[1:]:
                headers = message_from_bytes(message.split(b"\n", 1)[1], policy=policy.default)
                assert str(headers["To"]) == ALICE
        _count, differences = verify_replay(str(data / "games" / "g2"))
        assert differences == []
    asyncio.run(scenario())
