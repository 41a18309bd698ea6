"""Every reply that confirms a player's request goes through one check
(`gm.pbem.answers.confirming.confirmed_request`): through the real daemon,
for each kind of request (a name, a seek, a taking, a tournament's sign-up,
settings, a vacation, a deputy and the deputy's consent), a reply with a
wrong token, one without ``confirm`` and one after the step was done are
each shunted with their reason and do nothing; the right one does the step."""

from __future__ import annotations

import re

import pytest

from gm.cli import main
from gmtest import ALICE, BOB, GM, Player, World, run, shunt_reasons
from test_names import name
from test_seeks import seek

CAROL = "carol@example.com"
_TAG = re.compile(r"\+([a-z][0-9a-f]{10})\.(\d)\.([a-z0-9]+)@")


async def asked(world: World, kind: str) -> tuple[Player, str, str]:
    """The player who is asked to confirm a request of ``kind``, the address
    they reply to, and the marker in ``handled/`` that its step was done."""
    carol = Player(CAROL, world)
    player = world.alice
    if kind == "name":
        confirmation = await world.write_gm(player, "name Ahab")
    elif kind == "seek":
        await name(world, player, "Ahab")
        confirmation = await world.write_gm(player, "seek spaceships")
    elif kind == "take":
        await name(world, world.alice, "Ahab")
        await name(world, world.bob, "Ishmael")
        seek_id = await seek(world, world.alice, "seek spaceships\n")
        player = world.bob
        confirmation = await world.write_gm(player, f"accept {seek_id}")
    elif kind == "join":
        assert main(["tournament", "new", "--data", world.config.data, "--game", "spaceships", "--format", "swiss",
                     "--players", ALICE, BOB, "--signup-until", "2099-01-01T12:00"]) == 0
        await world.settle()
        player = carol
        confirmation = await world.write_gm(player, "join t1")
    elif kind == "settings":
        confirmation = await world.write_gm(player, "reminders off")
    elif kind == "vacation":
        confirmation = await world.write_gm(player, "vacation 3d")
    else:
        confirmation = await world.write_gm(player, f"deputy {CAROL}")
    assert confirmation is not None and str(confirmation["Subject"]).startswith("[gm] Confirm"), kind
    if kind == "consent":
        world.clock.advance(seconds=1.25)
        await world.act(player.reply, "confirm", to=confirmation)
        player, confirmation = carol, carol.latest()
        assert str(confirmation["Subject"]) == "[gm] Will you be a deputy?"
    address = str(confirmation["Reply-To"])
    tag = _TAG.search(address)
    assert tag, address
    return player, address, f"{'agreed' if kind == 'consent' else 'confirmed'}-{tag[1]}"


async def answer(world: World, player: Player, address: str, body: str) -> None:
    """``player`` writes ``body`` to ``address`` (a confirmation's reply address, or a forged one)."""
    world.clock.advance(seconds=1.25)
    raw = (f"From: {player.address}\r\nTo: {address}\r\nSubject: Re: [gm] Confirm\r\n"
           f"Message-ID: <{world.clock().timestamp()}@example.org>\r\n\r\n{body}\r\n").encode()
    await world.asend(raw, player.address, [address])
    await world.settle()


@pytest.mark.parametrize("kind", ["name", "seek", "take", "join", "settings", "vacation", "deputy", "consent"])
def test_a_confirmation_with_a_wrong_token_no_confirm_or_after_it_was_done_is_shunted(tmp_path, kind):
    async def scenario():
        async with World(tmp_path) as world:
            store = world.daemon.store
            player, address, done = await asked(world, kind)
            request_id = done.split("-", 1)[1]
            assert address.startswith(GM.split("@")[0] + "+") and done not in store.handled

            async def refused(body: str, to: str, reason: str) -> None:
                before = shunt_reasons(world)
                mail = len(player.inbox())
                await answer(world, player, to, body)
                assert shunt_reasons(world)[len(before):] == [f"X-GM-Shunt-Reason: {reason}".encode()]
                assert len(player.inbox()) == mail  # refused unanswered

            forged = re.sub(r"\.(\d)\.[a-z0-9]+@", r".\1.aaaaaaaaaaaaaaaa@", address)
            await refused("confirm", forged, f"not a valid confirmation of {request_id}")
            assert done not in store.handled
            await refused("yes, please do", address, f"answer to {request_id} without 'confirm'")
            assert done not in store.handled
            before = shunt_reasons(world)
            await answer(world, player, address, "confirm")
            assert done in store.handled and shunt_reasons(world) == before
            await refused("confirm", address, f"{request_id} was confirmed already")

    run(scenario())
