"""Open seeks (issue 23): ``seek GAME`` posts a challenge anyone may take,
``seeks`` lists them, ``accept ID`` takes one and the game starts as an
accepted challenge's does; every step confirmed from the sender's own
mailbox, decided by the mail's time, and nobody's address shown to another."""

from __future__ import annotations

import re
from datetime import timedelta

from gm.pbem.data.names import public_names
from gm.pbem.data.seeks import open_seeks
from gmtest import ALICE, BOB, GM, Player, World, run, shunt_reasons, text
from test_names import name

CAROL = "carol@example.com"


async def named_world(world: World) -> Player:
    """Alice is Ahab, Bob is Ishmael and Carol is Starbuck; returns Carol."""
    carol = Player(CAROL, world)
    for player, chosen in ((world.alice, "Ahab"), (world.bob, "Ishmael"), (carol, "Starbuck")):
        await name(world, player, chosen)
    return carol


async def seek(world: World, player: Player, lines: str) -> str:
    """``player`` posts a seek (``lines``) and confirms it; returns its id."""
    confirmation = await world.write_gm(player, lines)
    assert str(confirmation["Subject"]) == "[gm] Confirm your seek", text(confirmation)
    world.clock.advance(seconds=1)
    await world.act(player.reply, "confirm", to=confirmation)
    opened = player.latest()
    found = re.search(r"Your seek (s[0-9a-f]{10}) is open", str(opened["Subject"]))
    assert found, str(opened["Subject"])
    return found[1]


async def take(world: World, player: Player, seek_id: str):
    """``player`` takes seek ``seek_id`` and confirms it; returns the GM's
    answer (the game's own mail follows it)."""
    confirmation = await world.write_gm(player, f"accept {seek_id}")
    assert str(confirmation["Subject"]).startswith("[gm] Confirm you take"), text(confirmation)
    world.clock.advance(seconds=1)
    await world.act(player.reply, "confirm", to=confirmation)
    return own_answer(player)


def own_answer(player: Player):
    """The GM's latest mail to ``player`` about no game."""
    return [m for m in player.inbox() if str(m["Subject"]).startswith("[gm] ")][-1]


def test_two_strangers_find_each_other_by_seek_seeks_and_accept(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            seek_id = await seek(world, world.alice, "seek spaceships\ndeadline 3d\n")
            listing = await world.write_gm(world.bob, "seeks")
            body = text(listing)
            assert f"seek {seek_id}: a game of Spaceships" in body and "by Ahab (rating 1500); rated; 3d a turn" in body
            assert f"to take it, write: accept {seek_id}" in body and f"to {GM}" in body
            assert ALICE not in listing.as_string()
            done = await take(world, world.bob, seek_id)
            assert str(done["Subject"]) == "[gm] You took Ahab's seek"
            told = [m for m in world.alice.inbox() if str(m["Subject"]) == "[gm] Ishmael took your seek"]
            assert len(told) == 1 and "game g1" in text(told[0])
            game = world.daemon.master.games["g1"]
            assert [(seat.address, seat.alias) for seat in game.seats] == [(ALICE, "Ahab"), (BOB, "Ishmael")]
            assert game.options.rated and game.options.deadline == timedelta(days=3)
            assert not game.options.public_each_turn
            # Each is told by name, never by the other's address.
            assert all(BOB not in m.as_string() for m in world.alice.inbox())
            assert all(ALICE not in m.as_string() for m in world.bob.inbox())
            assert "No seek is open" in text(await world.write_gm(world.bob, "seeks"))

    run(scenario())


def test_a_rating_range_lets_in_only_the_players_rated_within_it(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            high = await seek(world, world.alice, "seek spaceships\nrating 1600-1800\n")
            listing = text(await world.write_gm(world.bob, "seeks")).replace("\n", " ")
            assert f"seek {high}" in listing and "for players rated 1600-1800" in listing
            answer = await world.write_gm(world.bob, f"accept {high}")  # a new player is rated 1500
            assert str(answer["Subject"]) == f"[gm] Refused: accept {high}"
            assert (f"seek {high} is for players rated 1600 to 1800 at Spaceships, and your rating there is 1500"
                    in " ".join(text(answer).split()))
            around = await seek(world, world.alice, "seek spaceships\nrating 1400-1500\n")  # bounds included
            done = await take(world, world.bob, around)
            assert str(done["Subject"]) == "[gm] You took Ahab's seek"

    run(scenario())


def test_a_seek_takes_a_challenges_lines_and_unrated(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            seek_id = await seek(world, world.alice, "seek gridfighters\nunrated\npublic\nlapse 2d\n")
            listing = text(await world.write_gm(world.bob, "seeks"))
            assert "of Grid Fighters" in listing and "unrated" in listing and "shown on the web archive" in listing
            await take(world, world.bob, seek_id)
            game = world.daemon.master.games["g1"]
            assert game.rules.name == "gridfighters"
            assert not game.options.rated and game.options.public_each_turn

    run(scenario())


def test_a_seeker_needs_a_name_and_bad_seeks_are_refused_with_the_reason(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            answer = await world.write_gm(world.alice, "seek spaceships")
            assert str(answer["Subject"]) == "[gm] Refused: seek spaceships"
            assert "you have none yet: choose one first" in text(answer).replace("\n", " ")
            await name(world, world.alice, "Ahab")
            for lines, why in (("seek chess", "no such game"), ("seek spaceships\nvariant nonsense", "nonsense"),
                               ("seek spaceships\ndeadline soon", "give a number and a unit"),
                               ("seek spaceships\nlapse 90d", "between 1h and 30d")):
                answer = await world.write_gm(world.alice, lines)
                assert str(answer["Subject"]).startswith("[gm] Refused: seek"), text(answer)
                assert why in text(answer).replace("\n", " "), text(answer)
            assert world.daemon.store.seeks.keys() == []
            assert len([r for r in shunt_reasons(world) if b"seek" in r]) == 5

    run(scenario())


def test_a_seek_lapses_by_the_time_of_the_mail(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            seven = await seek(world, world.alice, "seek spaceships")
            one = await seek(world, world.alice, "seek spaceships\nlapse 1d")
            world.clock.advance(days=1)
            listing = text(await world.write_gm(world.bob, "seeks"))
            assert seven in listing and one not in listing
            answer = await world.write_gm(world.bob, f"accept {one}")
            assert f"seek {one} lapsed at" in text(answer)
            world.clock.advance(days=6)
            assert "No seek is open" in text(await world.write_gm(world.bob, "seeks"))
            assert world.daemon.master.games.all() == [] or not list(world.daemon.master.games.all())

    run(scenario())


def test_only_its_seeker_withdraws_a_seek(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            seek_id = await seek(world, world.alice, "seek spaceships")
            answer = await world.write_gm(world.bob, f"seek cancel {seek_id}")
            assert "is not yours" in text(answer)
            answer = await world.write_gm(world.alice, f"seek cancel {seek_id}")
            assert str(answer["Subject"]) == f"[gm] Seek {seek_id} withdrawn"
            answer = await world.write_gm(world.bob, f"accept {seek_id}")
            assert "withdrawn by its seeker" in text(answer)
            assert "No seek is open" in text(await world.write_gm(world.bob, "seeks"))

    run(scenario())


def test_a_seeker_cannot_take_their_own_seek_and_a_taker_needs_a_name(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
            seek_id = await seek(world, world.alice, "seek spaceships")
            assert "is your own" in text(await world.write_gm(world.alice, f"accept {seek_id}"))
            assert "you have none yet" in text(await world.write_gm(world.bob, f"accept {seek_id}")).replace("\n", " ")
            assert "no open seek s0000000000" in text(await world.write_gm(world.bob, "accept s0000000000"))

    run(scenario())


def test_of_two_accepts_of_one_seek_the_first_confirmed_wins(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = await named_world(world)
            seek_id = await seek(world, world.alice, "seek spaceships")
            bob_asks = await world.write_gm(world.bob, f"accept {seek_id}")
            carol_asks = await world.write_gm(carol, f"accept {seek_id}")
            world.clock.advance(seconds=1)
            await world.act(carol.reply, "confirm", to=carol_asks)
            world.clock.advance(seconds=1)
            await world.act(world.bob.reply, "confirm", to=bob_asks)
            assert "taken by someone else first" in text(own_answer(world.bob))
            (game,) = world.daemon.master.games.all()
            assert [seat.alias for seat in game.seats] == ["Ahab", "Starbuck"]
            # The same confirmation again makes no second game.
            await world.act(carol.reply, "confirm", to=carol_asks)
            assert len(list(world.daemon.master.games.all())) == 1

    run(scenario())


def test_a_forged_seek_or_accept_is_answered_only_to_the_claimed_address(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            mallory = Player("mallory@evil.example", world)
            answer = await world.write_gm(mallory, "seek spaceships", from_=ALICE)
            assert str(answer["To"]) == ALICE and mallory.inbox() == []
            seek_id = await seek(world, world.alice, "seek spaceships")
            answer = await world.write_gm(mallory, f"accept {seek_id}", from_=BOB)
            assert str(answer["To"]) == BOB and mallory.inbox() == []
            assert "No seek is open" not in text(await world.write_gm(world.bob, "seeks"))  # still open
            assert not list(world.daemon.master.games.all())

    run(scenario())


def test_seeks_and_accepts_are_rate_limited_per_address(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
            limit = world.daemon.master.limits.league_answers_per_day
            answers = [await world.write_gm(world.alice, "seeks") for _ in range(limit)]
            assert all(answer is not None for answer in answers[:-1])  # the name took one
            assert answers[-1] is None
            assert any(b"mails about names and seeks today already" in r for r in shunt_reasons(world))
            assert public_names(world.daemon.store) == {ALICE: "Ahab"}

    run(scenario())


def test_no_more_than_three_seeks_open_at_once_even_if_confirmed_late(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
            asked = [await world.write_gm(world.alice, f"seek spaceships\ndeadline {n}d") for n in (1, 2, 3, 4)]
            for confirmation in asked:
                world.clock.advance(seconds=1)
                await world.act(world.alice.reply, "confirm", to=confirmation)
            assert "you have 3 seeks open already" in text(own_answer(world.alice))
            assert len(open_seeks(world.daemon.store, world.clock())) == 3
            answer = await world.write_gm(world.alice, "seek spaceships")
            assert "you have 3 seeks open already" in text(answer)

    run(scenario())
