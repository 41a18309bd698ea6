"""One address policy (issue 22, point 1): what ``gm new``, a challenge, the
``address`` command, the operator's ``replace``, the owner setting and the
mail that comes in accept is the same set of addresses
(`gm.kernel.addresses`), and a domain without a dot (``you@localhost``) is
in it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from gm.daemon import Config, StartError, serve
from gm.kernel import moving
from gm.kernel.actions import AddressReplaced
from gm.kernel.addresses import is_mail_address, mail_address
from gm.kernel.values import Options
from gm.pbem.data.store import Store
from gm.pbem.intake.limits import normalized
from gm.pbem.operator.actions import check_action
from gm.pbem.operator.admin import request_game
from gm.pbem.writing.mailer import Identity
from gmtest import Player, World, run, started_game, text

TAKEN = ["carol@example.org", "you@localhost", "friend@host", "Bob.Smith+games@mail-1.Example.NET", "x@a.b.c.example"]
REFUSED = ["not-an-address", "you@", "@localhost", "a b@example.org", "a@b@c.example", "a@-x.example", "a@x..example",
           "a@x_y.example", "a@x.example, b@y.example", '"a b"@x.example', "a@[127.0.0.1]", "robot", ""]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_policy_reads_one_address_as_a_header_or_a_line_writes_it():
    assert mail_address("Alice <Alice@X.example>,") == "Alice@X.example"
    assert mail_address(" <you@localhost> ") == "you@localhost"
    assert mail_address("carol@example.org.") == "carol@example.org"  # the end of a sentence
    assert [mail_address(a) for a in TAKEN] == TAKEN
    assert [mail_address(a) for a in REFUSED] == [None] * len(REFUSED)
    assert not is_mail_address("<you@localhost>")  # a seat's address is written bare


@pytest.mark.parametrize("address", TAKEN + REFUSED)
def test_gm_new_and_the_intake_take_the_same_addresses(tmp_path, address):
    taken = address in TAKEN
    assert (normalized(address) is not None) == taken  # the sender of every mail, a challenge, the owner
    store, identity = Store(str(tmp_path / "data")), Identity()
    for players, observers in (([address, "other@example.org"], []),
                               (["one@example.org", "two@example.org"], [address])):
        try:
            request_game(store, identity, players, "2.6.1", Options(), NOW, observers=observers)
        except ValueError as error:
            assert not taken, error
            assert f"{address!r} is not a mail address" in str(error)
        else:
            assert taken, f"gm new took {address!r}"


def test_gm_new_says_what_an_address_is(tmp_path, capsys):
    from gm.cli import main

    data = str(tmp_path / "data")
    Store(data)
    assert main(["new", "--data", data, "--player", "not-an-address", "--player", "friend@localhost"]) == 2
    assert "player 'not-an-address' is not a mail address (write it as name@domain" in capsys.readouterr().err
    assert main(["new", "--data", data, "--player", "you@localhost", "--player", "friend@localhost"]) == 0


def test_the_address_command_and_replace_take_the_same_addresses(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            for address in TAKEN + REFUSED:
                moved = moving.refusal(game, 1, address)
                replaced = check_action(world.daemon.master.games, "g1", AddressReplaced(world.clock(), 1, address))
                if address in TAKEN:
                    assert moved is None and replaced is None, (address, moved, replaced)
                else:
                    assert "not one mail address" in str(moved) and "not a mail address" in str(replaced), address
            await world.act(world.alice.reply, "address you@localhost")
            assert "a mail has gone to you@localhost to confirm it" in text(world.alice.latest()).replace("\n    ", " ")

    run(scenario())


def test_a_challenge_between_local_addresses_is_answered(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            you, friend = Player("you@localhost", world), Player("friend@localhost", world)
            await world.challenge(you, "challenge friend@localhost\n")
            (invitation,) = friend.inbox()
            await world.act(friend.reply, "accept", to=invitation)
            await world.settle()
            assert [s.address for s in world.daemon.master.games["g1"].seats] == ["you@localhost", "friend@localhost"]
            assert not list(world.daemon.store.shunt.keys())

    run(scenario())


def test_the_owner_setting_takes_a_local_address_and_refuses_what_is_none(tmp_path):
    async def scenario():
        async with World(tmp_path, owner="you@localhost") as world:
            assert world.daemon.master.owner.owner == "you@localhost"

    run(scenario())
    with pytest.raises(StartError, match="owner: 'not an address' is not a mail address"):
        asyncio.run(serve(Config(data=str(tmp_path / "other"), smtp=None, owner="not an address")))
    assert not (tmp_path / "other").exists()
