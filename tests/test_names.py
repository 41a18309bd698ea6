"""Players' public names (issue 23): ``name NAME`` to the GM's own address,
confirmed from the player's own mailbox, checked, unique, changeable, and
shown instead of the address where a player reaches another."""

from __future__ import annotations

import pytest

from gm.league.names import holder_of, name_problem, refusal
from gm.pbem.data.names import address_of, public_names
from gmtest import ALICE, BOB, GM, Player, World, run, shunt_reasons, text

CAROL = "carol@example.com"


@pytest.mark.parametrize("name", ["Ahab", "ab", "Queequeg_2", "j.smith", "Star-buck", "a" * 24])
def test_good_names(name):
    assert name_problem(name) is None


@pytest.mark.parametrize(("name", "why"), [
    ("a", "2 to 24 characters"), ("a" * 25, "2 to 24 characters"),
    ("ahab@example.org", "mail address"), ("<b>Ahab</b>", "no markup"), ("Ahab Ishmael", "no spaces"),
    ("2pac", "begins with a letter"), ("example.org", "domain"), ("bob.net", "domain"),
    ("gm", "game master"), ("GM", "game master"), ("Robot", "robot"), ("robot-hard", "robot"),
    ("Ähab", "letters A to Z"),
])
def test_bad_names_are_refused_with_the_reason(name, why):
    assert why in name_problem(name)


def test_a_name_is_unique_whatever_the_capitals():
    names = {ALICE: "Ahab"}
    assert holder_of(names, "AHAB") == ALICE
    assert "taken" in refusal(names, BOB, "ahab")
    assert refusal(names, ALICE, "AHAB") is None  # one's own name, in other capitals
    assert "already" in refusal(names, ALICE, "Ahab")


async def name(world: World, player: Player, chosen: str):
    """``player`` asks for ``chosen`` and confirms it; returns the GM's answer."""
    confirmation = await world.write_gm(player, f"name {chosen}")
    assert "Confirm your name" in str(confirmation["Subject"]), text(confirmation)
    world.clock.advance(seconds=1)
    await world.act(player.reply, "confirm", to=confirmation)
    return player.latest()


def test_a_name_is_set_once_confirmed_and_changed_freeing_the_old(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            store = world.daemon.store
            confirmation = await world.write_gm(world.alice, "name Ahab")
            assert public_names(store) == {}  # not before the confirmation
            assert str(confirmation["To"]) == ALICE and "confirm" in text(confirmation)
            world.clock.advance(seconds=1)
            await world.act(world.alice.reply, "confirm", to=confirmation)
            assert str(world.alice.latest()["Subject"]) == "[gm] Your name is Ahab"
            assert public_names(store) == {ALICE: "Ahab"}
            assert address_of(store, "AHAB") == ALICE
            refused = await world.write_gm(world.bob, "name ahab")
            assert "ahab is taken" in text(refused)
            done = await name(world, world.alice, "Ishmael")
            assert "now Ishmael (it was Ahab, which anyone may take now)" in text(done)
            await name(world, world.bob, "ahab")
            assert public_names(store) == {ALICE: "Ishmael", BOB: "ahab"}
            # The same confirmation again changes nothing.
            await world.act(world.alice.reply, "confirm", to=confirmation)
            assert public_names(store) == {ALICE: "Ishmael", BOB: "ahab"}
            assert any(b"confirmed already" in reason for reason in shunt_reasons(world))

    run(scenario())


def test_a_name_taken_while_a_request_waits_is_refused_at_its_confirmation(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            first = await world.write_gm(world.alice, "name Ahab")
            second = await world.write_gm(world.bob, "name AHAB")
            await world.act(world.bob.reply, "confirm", to=second)
            world.clock.advance(seconds=1)
            await world.act(world.alice.reply, "confirm", to=first)
            assert "AHAB is taken" not in text(world.alice.latest())
            assert "Ahab is taken" in text(world.alice.latest())
            assert public_names(world.daemon.store) == {BOB: "AHAB"}

    run(scenario())


@pytest.mark.parametrize(("asked", "why"), [
    ("x", "2 to 24 characters"), ("bob@example.net", "mail address"), ("evil.com", "domain name"),
    ("<script>", "no markup"), ("gm", "game master"), ("Robot", "robot"),
])
def test_a_refused_name_is_answered_with_the_reason(tmp_path, asked, why):
    async def scenario():
        async with World(tmp_path) as world:
            answer = await world.write_gm(world.alice, f"name {asked}")
            assert str(answer["Subject"]).startswith("[gm] Refused: name")
            assert why in text(answer).replace("\n", " ")
            assert public_names(world.daemon.store) == {}
            assert any(why.encode() in reason for reason in shunt_reasons(world))

    run(scenario())


def test_a_forged_name_request_is_answered_only_to_the_claimed_address(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            mallory = Player("mallory@evil.example", world)
            answer = await world.write_gm(mallory, "name Ahab", from_=ALICE)
            assert str(answer["To"]) == ALICE  # the confirmation goes to the claimed address only
            assert mallory.inbox() == []
            assert public_names(world.daemon.store) == {}  # nothing changes unless Alice confirms

    run(scenario())


def test_the_challenge_invitation_names_the_challenger_by_name(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
            world.clock.advance(minutes=1)
            await world.challenge(world.alice, f"challenge {BOB}\n")
            (invite,) = world.bob.inbox()
            assert str(invite["Subject"]) == "[gm] Ahab challenges you to Spaceships"
            assert ALICE not in invite.as_string()
            games = await world.write_gm(world.bob, "games")
            assert "Ahab challenges you" in text(games) and ALICE not in text(games)

    run(scenario())


def test_the_names_survive_a_restart(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
        async with World(tmp_path) as world:
            assert public_names(world.daemon.store) == {ALICE: "Ahab"}
            assert GM not in public_names(world.daemon.store)

    run(scenario())
