"""Observers' way out (issue 24, "fewer mails"): in games of edition 7 on,
an observer's mail carries ``List-Id`` and ``List-Unsubscribe`` with the
observer's own token for the game (and the one-click URL of RFC 8058 when
the web archive's address is configured); unsubscribing by the mailto or by
the one-click POST stops that observer's mail of that game, and is
answered. Through the daemon, on real SMTP and HTTP ports, with a clock that
has sub-second parts; the archives replay byte for byte, the URL (the
operator's, not the game's) being put in only as the mail is queued."""

from __future__ import annotations

import asyncio
import re

from gm.cli import main
from gm.kernel.values import Options
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import ALICE, BOB, GM, Player, World, run, shunt_reasons, text
from test_digest import _http, plain, unsubscribe_ways

CAROL = "carol@example.com"
DAVE = "dave@example.net"


def observed_game(world: World, observers: list[str]) -> None:
    request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1", Options(),
                 world.clock(), observers=observers)


def subjects(player: Player) -> list[str]:
    return [str(m["Subject"]) for m in player.inbox()]


def test_an_observer_unsubscribes_by_the_mailto_and_is_sent_nothing_more_of_that_game(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            observed_game(world, [CAROL, DAVE])
            observed_game(world, [CAROL])
            await world.settle()
            carol, dave = Player(CAROL, world), Player(DAVE, world)
            note = next(m for m in carol.inbox() if "[gm g1]" in str(m["Subject"]))
            assert str(note["List-Id"]) == "gm g1.observers <g1.observers.example.org>"
            assert "List-Unsubscribe-Post" not in note  # no web address configured: the mailto alone
            url, mailto = unsubscribe_ways(note)
            assert url is None and re.fullmatch(r"gm\+ug1\.0\.[a-z2-7]{16}@example\.org", mailto)
            _, daves = unsubscribe_ways(dave.inbox()[0])
            other = next(m for m in carol.inbox() if "[gm g2]" in str(m["Subject"]))
            _, in_g2 = unsubscribe_ways(other)
            assert len({mailto, daves, in_g2}) == 3  # each observer's own, for each game
            archived = b"".join(world.daemon.store.archive("g1").get_bytes(k)
                                for k in world.daemon.store.archive("g1").keys())
            assert b"gm+ug1.0.****************@example.org" in archived and mailto.encode() not in archived
            # Another's token, or a token from another address, changes nothing.
            await world.asend(plain(DAVE, mailto), DAVE, [mailto])
            await world.asend(plain(CAROL, daves), CAROL, [daves])
            forged = re.sub(r"\.[a-z2-7]{16}@", ".aaaaaaaaaaaaaaaa@", mailto)
            await world.asend(plain(CAROL, forged), CAROL, [forged])
            await world.settle()
            assert world.daemon.master.games["g1"].observers == (CAROL, DAVE)
            assert sum(b"not that observer's token" in r for r in shunt_reasons(world)) == 3
            # Carol's own token, from her address: she leaves g1 and is told so.
            before = len(carol.inbox())
            await world.asend(plain(CAROL, mailto), CAROL, [mailto])
            await world.settle()
            await world.settle()
            (answer,) = carol.inbox()[before:]
            assert str(answer["Subject"]) == "[gm g1] Unsubscribed" and GM in str(answer["From"])
            assert str(answer["From"]).startswith("Spaceships GM <")  # about one game: from its GM
            assert "You no longer watch Spaceships game g1" in text(answer)
            assert world.daemon.master.games["g1"].observers == ("", DAVE)
            await world.asend(plain(CAROL, mailto), CAROL, [mailto])  # a second time: nothing to do or say
            await world.settle()
            assert len(carol.inbox()) == before + 1
            for game in ("g1", "g2"):
                assert main(["cancel", game, "--data", str(tmp_path / "data"), "--reason", "test"]) == 0
            await world.settle()
            await world.settle()
            assert [s for s in subjects(carol) if "whole game" in s] == ["[gm g2] The game is over: the whole game"]
            assert [s for s in subjects(dave) if "whole game" in s] == ["[gm g1] The game is over: the whole game"]
            end = dave.latest()
            assert unsubscribe_ways(end)[1] == daves  # every observer mail carries the way out
        for game in ("g1", "g2"):
            count, differences = verify_replay(str(tmp_path / "data" / "games" / game))
            assert count and not differences, differences

    run(scenario())


def test_one_click_unsubscribes_an_observer_and_the_archive_keeps_no_url(tmp_path):
    async def scenario():
        async with World(tmp_path, http=("127.0.0.1", 0), web_url="https://games.example.org/") as world:
            observed_game(world, [CAROL])
            await world.settle()
            carol = Player(CAROL, world)
            note = carol.latest()
            assert str(note["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
            url, mailto = unsubscribe_ways(note)
            assert url and url.startswith("https://games.example.org/unsubscribe/g1/")
            assert url.rsplit("/", 1)[1] == mailto.split(".")[2].split("@")[0]  # the observer's token in both
            archive = world.daemon.store.archive("g1")
            archived = b"".join(archive.get_bytes(k) for k in archive.keys())
            assert b"games.example.org" not in archived and b"List-Unsubscribe-Post" not in archived
            local = f"http://127.0.0.1:{world.daemon.bound['http'][1]}" + url[len("https://games.example.org"):]
            status, page = await asyncio.to_thread(_http, local)
            assert status == 200 and "mail of game g1" in page and CAROL not in page
            await world.settle()
            assert world.daemon.master.games["g1"].observers == (CAROL,)  # a GET (a prefetch) does nothing
            wrong = local.replace("/g1/", "/g2/")
            assert (await asyncio.to_thread(_http, wrong, b"List-Unsubscribe=One-Click"))[0] == 404
            status, page = await asyncio.to_thread(_http, local, b"List-Unsubscribe=One-Click")
            assert status == 200 and "Done" in page
            await world.settle()
            await world.settle()
            assert world.daemon.master.games["g1"].observers == ("",)
            assert str(carol.latest()["Subject"]) == "[gm g1] Unsubscribed"
            assert main(["cancel", "g1", "--data", str(tmp_path / "data"), "--reason", "test"]) == 0
            await world.settle()
            await world.settle()
            assert not [s for s in subjects(carol) if "whole game" in s]
        count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert count and not differences, differences

    run(scenario())


def test_an_unsubscribe_come_twice_in_one_batch_leaves_once_and_is_answered_once(tmp_path):
    """An MTA's resend after a 250 it lost (or a second click) spools a second
    copy; handled in the batch that handled the first, before the game has
    applied the first's ``observer-left``, it changes nothing more."""
    async def scenario():
        async with World(tmp_path) as world:
            observed_game(world, [CAROL])
            await world.settle()
            carol = Player(CAROL, world)
            _, mailto = unsubscribe_ways(carol.latest())
            before = len(carol.inbox())
            for _ in range(2):
                await world.asend(plain(CAROL, mailto), CAROL, [mailto])
            assert len(world.daemon.store.spool.keys()) == 2
            await world.settle()
            await world.settle()
            assert [str(m["Subject"]) for m in carol.inbox()[before:]] == ["[gm g1] Unsubscribed"]
            assert world.daemon.master.games["g1"].observers == ("",)
            archive = world.daemon.store.archive("g1")
            left = [k for k in archive.keys() if b"X-GM-Event: observer-left" in archive.get_bytes(k)]
            assert len(left) == 1, left
        count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert count and not differences, differences

    run(scenario())
