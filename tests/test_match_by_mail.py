"""Scored [9] and continued [10] matches played by mail."""

import asyncio
from datetime import timedelta

import pytest

from gm.games.spaceships.match import MatchTerms
from gm.kernel.values import Options
from gm.pbem.operator.admin import request_game
from gmtest import ALICE, BOB, World, text

pytestmark = pytest.mark.slow  # whole matches by mail

TWO_GUNBOATS = "LG Rv1\nLG Rv3\n"  # fleet cost 2 [3.7.1], [6.10]


async def new_match(world: World, terms: MatchTerms) -> None:
    request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1+fleet=2",
                 Options(deadline=timedelta(hours=24)), world.clock(), match=terms)
    await world.settle()


async def alice_wins_a_game(world: World, alice_setup: str = TWO_GUNBOATS) -> None:
    await world.act(world.alice.reply, alice_setup)
    await world.act(world.bob.reply, TWO_GUNBOATS)
    await world.act(world.alice.reply, "mRv1 Rv1 mRv3 Rv3")  # both of Bob's gunboats explode
    world.clock.advance(hours=24)  # Bob sends nothing: the turn runs at the deadline
    await world.settle()


def test_scored_match_of_two_games(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await new_match(world, MatchTerms("scored", games=2))
            assert "Match: scored, 2 games; game 1" in text(world.alice.latest())
            await alice_wins_a_game(world)
            invitation = world.alice.latest()
            assert "Invitation to the next game of your match" in str(invitation["Subject"])
            assert "match score: you 2, Player 2 0" in text(invitation)
            game = world.daemon.master.games["g1"]
            assert game.phase == "setup" and game.play.additional_costs == (0, 0)  # [9.2]
            await alice_wins_a_game(world)
            final = text(world.alice.latest())
            assert "The match is over." in final and "You win the match." in final
            assert "Player 1 wins the match." in text(world.bob.latest())
            assert game.phase == "ended" and game.play.match_scores == [(2, 0), (2, 0)]
            world.clock.advance(days=5)
            count = len(world.bob.inbox())
            await world.settle()
            assert len(world.bob.inbox()) == count
    asyncio.run(scenario())


def test_continued_match_carries_materiel_into_the_next_fleet(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await new_match(world, MatchTerms("continued", games=2))
            await alice_wins_a_game(world)
            game = world.daemon.master.games["g1"]
            assert game.play.additional_costs == (2, 0)  # [10.3]
            assert "Your fleet may add ships costing 2 in all" in text(world.alice.latest())
            await world.act(world.alice.reply, TWO_GUNBOATS)
            assert "the ships cost 2 in all; this game's fleet costs 4 [3.7.1]" in text(world.alice.latest())
            await alice_wins_a_game(world, TWO_GUNBOATS + "AG Bz4 Bz5\n")
            assert "You win the match." in text(world.alice.latest())
    asyncio.run(scenario())


def test_a_game_under_the_early_rules_by_mail(tmp_path):
    """A variant game made with gm new --variant: its sheets name the rules."""
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(variant="early+colours=RYGOB")
            invitation = text(world.alice.latest())
            assert "Rules: Spaceships, early rules, colours ordered R-Y-G-O-B" in invitation
            assert "heavy fighter (HF, 2 adjacent cells)" in invitation
            setup = "DS Rv1 Rv2 Rw1 Rw2 Yv1 Yv2 Yw1 Yw2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Oz1 Oz2 Oz3\nHF Bz4 Bz5\n"
            await world.act(world.alice.reply, setup)
            await world.act(world.bob.reply, setup)
            sheet = text(world.alice.latest())
            assert "Rules: Spaceships, early rules" in sheet and "five cells in a straight row" in sheet
            assert "Scans" not in sheet
            await world.act(world.alice.reply, "bRv1Rz1")
            await world.act(world.bob.reply, "Gv1 Gv1")
            sheet = text(world.alice.latest())
            assert sheet.count("they  strike Gv1: hit") == 2  # both hit: destruction waits for the turn's end
    asyncio.run(scenario())


def test_a_variant_game_started_by_a_challenge(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\nvariant early+scoring-by-hits")
            (invite,) = world.bob.inbox()
            assert "rules: Spaceships, early rules, scoring by hits" in text(invite)
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert (game.play.ruleset.early and game.play.ruleset.scoring_by_hits
                    and game.variant == "early+scoring-by-hits")
            assert "Rules: Spaceships, early rules, scoring by hits" in text(world.alice.latest())
    asyncio.run(scenario())


def test_a_match_started_by_a_challenge(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\nvariant 2.6.1+fleet=2\nmatch scored 2")
            (invite,) = world.bob.inbox()
            assert "challenges you to a scored match, 2 games of Spaceships" in text(invite).replace("\n", " ")
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.play.match == MatchTerms("scored", games=2)
            assert "Match: scored, 2 games; game 1" in text(world.alice.latest())
            bad = (f"From: {ALICE}\r\nTo: gm@example.org\r\nSubject: x\r\nMessage-ID: <m2@example.org>\r\n\r\n"
                   f"challenge {BOB}\r\nmatch forever\r\n").encode()
            await world.asend(bad, ALICE, ["gm@example.org"])
            await world.settle()
            assert len(world.bob.inbox()) == 2  # the invitation to g1 only: no second challenge
            reasons = [world.daemon.store.shunt.get_bytes(k).split(b"\r\n")[0] for k in world.daemon.store.shunt.keys()]
            assert any(b"match line gm cannot read" in r for r in reasons)
    asyncio.run(scenario())


def test_a_reply_address_of_a_finished_game_of_a_match_is_useless(tmp_path):
    """Each game of a match has its own reply addresses: Bob's address from
    game 1 cannot resign game 2 (as a leaked one once could); mail to it is
    answered with where to write instead, and is no forgery."""
    async def scenario():
        async with World(tmp_path) as world:
            await new_match(world, MatchTerms("scored", games=2))
            await world.act(world.alice.reply, TWO_GUNBOATS)
            await world.act(world.bob.reply, TWO_GUNBOATS)
            old_address = str(world.bob.latest()["Reply-To"])  # game 1's
            await world.act(world.alice.reply, "mRv1 Rv1 mRv3 Rv3")
            world.clock.advance(hours=24)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.play.match_scores == [(2, 0)] and game.phase == "setup"
            new_address = str(world.bob.latest()["Reply-To"])
            assert new_address != old_address and new_address.split("+")[1].split(".")[:2] == ["g1", "2"]
            raw = (f"From: {BOB}\r\nTo: {old_address}\r\nSubject: Re: turn 1\r\nMessage-ID: <old@example.net>\r\n\r\n"
                   "resign\r\n").encode()
            await world.asend(raw, BOB, [old_address])
            await world.settle()
            assert game.phase == "setup" and game.outcome is None and len(game.play.match_scores) == 1
            answer = world.bob.latest()
            assert "reached no game" in str(answer["Subject"]) and str(answer["Reply-To"]) == new_address
            assert not [m for m in world.bob.inbox() if "Someone tried" in str(m["Subject"])]
            await world.act(world.bob.reply, TWO_GUNBOATS, to=answer)  # the new address works
            assert 2 in game.play.setups
    asyncio.run(scenario())
