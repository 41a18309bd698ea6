"""Hidden information as a property over everything a player is sent.

A whole game through the real daemon, in which each player's mail carries
what a real player's mail carries and the opponent must never see: their
address, their reply-address token (in To: and on a ``password`` line), the
IP address their client sent from, their signature and chat that the GM does
not relay. Every byte delivered to the other player is searched, with every
MIME part decoded, attachments included, and the mailboxes inside them
opened and searched the same way; so is the mailbox ``gm export --player``
writes for each player. Only what the GM relays (press) may pass."""

from __future__ import annotations

import asyncio
import mailbox
import re
from email import message_from_bytes, policy

import pytest

from gm.cli import main
from gm.pbem.data.tokens import token
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, World

SECRETS = {
    1: {"ip": "192.0.2.41", "signature": "Alice Arden, 7 Rabbit Hole Road", "chat": "my sister says hi, xyzzy-a"},
    2: {"ip": "198.51.100.77", "signature": "Bob Brown, Flat 3, 12 Secret Lane",
        "chat": "I bet she never finds plugh-b"},
}
ADDRESSES = {1: ALICE, 2: BOB}
PRESS = {1: "good luck from alice", 2: "good luck from bob"}
UNREAD = "frobozz-b"
"""Bob's own words in an order line that cannot be read: named to him
alone, in his answer and his reminder (`gm.kernel.correction`)."""


def texts(raw: bytes, depth: int = 0) -> list[bytes]:
    """The raw bytes, every MIME part decoded, and, for an attached mailbox,
    the same of each message in it."""
    found = [raw]
    message = message_from_bytes(raw, policy=policy.default)
    for part in message.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True) or b""
        found.append(payload)
        if part.get_content_type() == "application/mbox" and depth < 3:
            for inner in re.split(rb"(?m)^From gm [^\n]*\n", payload):
                if inner.strip():
                    found += texts(inner, depth + 1)
    return found


def leaks(blobs: list[bytes], opponent: int, key: bytes) -> list[str]:
    needles = {
        "address": ADDRESSES[opponent].encode(),
        "token": token(key, "g1", opponent).encode(),
        **{name: value.encode() for name, value in SECRETS[opponent].items()},
        **({"unread line": UNREAD.encode()} if opponent == 2 else {}),
    }
    return sorted({name for blob in blobs for name, needle in needles.items() if needle.lower() in blob.lower()})


def mail(player, world: World, body: str, password: bool = False) -> None:
    secrets = SECRETS[player.number]
    extra = f"\npassword {token(world.daemon.store.key, 'g1', player.number)}" if password else ""
    player.player.reply(f"{body}{extra}\n; {secrets['chat']}\n\n-- \n{secrets['signature']}\n",
                        Received=f"from laptop ([{secrets['ip']}]) by mx.example with ESMTPSA; Sat, 21 Nov 2026 "
                                 "12:00:00 +0000")


class Seat:
    def __init__(self, number: int, player):
        self.number, self.player = number, player


@pytest.mark.parametrize("ending", ["destroyed", "resigned"])
def test_nothing_of_the_opponent_reaches_a_player_but_what_the_gm_relays(tmp_path, ending):
    async def scenario():
        async with World(tmp_path) as world:
            alice, bob = Seat(1, world.alice), Seat(2, world.bob)
            await world.new_game()
            await asyncio.to_thread(mail, alice, world, SETUP_ALICE, True)
            await world.settle()
            await asyncio.to_thread(mail, bob, world, SETUP_BOB, True)
            await world.settle()
            await asyncio.to_thread(mail, alice, world, f"message {PRESS[1]}")
            await asyncio.to_thread(mail, bob, world, f"message {PRESS[2]}\nstatus\nhistory")
            await world.settle()
            turns = [("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
                     ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"), ("Gz1 Gz2", "Ov1")]
            if ending == "resigned":
                turns = [*turns[:1], ("Rz5", "resign")]
            for number, (orders_a, orders_b) in enumerate(turns, 1):
                await asyncio.to_thread(mail, alice, world, orders_a)
                await world.settle()
                if number == 2:  # a line of Bob's own words that cannot be read: his turn waits, he is reminded
                    await asyncio.to_thread(mail, bob, world, f"Gv1 {UNREAD}")
                    world.clock.advance(hours=60, seconds=1)
                    await world.settle()
                    assert f"Gv1 {UNREAD}" in world.bob.latest_text()
                    assert str(world.bob.latest()["Subject"]) == "[gm g1] Reminder: your corrected orders for turn 2"
                await asyncio.to_thread(mail, bob, world, orders_b, True)
                await world.settle()
            assert world.daemon.master.games["g1"].phase == "ended"
            key = world.daemon.store.key
            store = world.daemon.store
            delivered = {1: [], 2: []}
            for k in store.delivered.keys():
                raw = store.delivered.get_bytes(k)
                to = str(message_from_bytes(raw, policy=policy.default)["To"])
                delivered[1 if ALICE in to else 2].append(raw)
        for player, opponent in ((1, 2), (2, 1)):
            blobs = [b for raw in delivered[player] for b in texts(raw)]
            record = f'filename="game-g1-player-{player}.txt"'.encode()
            attachments = [raw for raw in delivered[player] if record in raw]
            assert attachments, "the final sheet attaches the player's own record (edition 5 on, issue 22)"
            assert leaks(blobs, opponent, key) == []
            assert any(PRESS[opponent].encode() in b for b in blobs)  # what the GM relays does arrive
            exported = tmp_path / f"p{player}.mbox"
            assert main(["export", "g1", "--data", str(tmp_path / "data"), "--mbox", str(exported),
                         "--player", str(player)]) == 0
            assert len(mailbox.mbox(str(exported))) == len(delivered[player])  # all the GM sent them, as delivered
            assert leaks(texts(exported.read_bytes()), opponent, key) == []
    asyncio.run(scenario())


def test_the_search_would_see_a_leak(tmp_path):
    """The operator's whole-archive export holds both players' own mail:
    the same search finds every secret in it, so the property above can fail."""
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await asyncio.to_thread(mail, Seat(2, world.bob), world, SETUP_BOB, True)
            await world.settle()
            return world.daemon.store.key
    key = asyncio.run(scenario())
    whole = tmp_path / "all.mbox"
    assert main(["export", "g1", "--data", str(tmp_path / "data"), "--mbox", str(whole)]) == 0
    assert leaks(texts(whole.read_bytes()), 2, key) == ["address", "chat", "ip", "signature", "token"]
