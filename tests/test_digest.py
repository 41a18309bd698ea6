"""Fewer mails (issue 24): ``reminders digest`` puts one daily mail in place
of a reminder from each game, ``reminders off`` stops both; mail that is not a
game's own turn mail carries list headers (RFC 2369, 2919, 8058), and
unsubscribing by their mailto or by the web archive's one-click POST sets the
matching setting. Through the daemon, on real SMTP and HTTP ports, with a
clock that has sub-second parts."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from datetime import timedelta

from gm.pbem.data.settings import settings_of
from gm.pbem.master.digests import digest_subject
from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, BOB, GM, START, World, run, shunt_reasons, text

MORNING = START.replace(hour=7, minute=0, second=0, microsecond=0)
"""07:00 UTC on the test clock's first day: when the digest of a player with no time zone is due."""


async def choose(world: World, player, lines: str) -> None:
    confirmation = await world.write_gm(player, lines)
    assert str(confirmation["Subject"]) == "[gm] Confirm your settings", text(confirmation)
    await world.act(player.reply, "confirm", to=confirmation)


def subjects(player) -> list[str]:
    return [str(m["Subject"]) for m in player.inbox()]


async def until(world: World, moment) -> None:
    """Let the clock run to ``moment`` (it keeps its sub-second part) and the GM act."""
    world.clock.now = moment
    await world.settle()


def unsubscribe_ways(message) -> tuple[str | None, str]:
    """The https URL (if any) and the mailto address of a List-Unsubscribe header."""
    ways = re.findall(r"<([^>]+)>", str(message["List-Unsubscribe"]))
    url = next((w for w in ways if w.startswith("https://")), None)
    mailto = next(w for w in ways if w.startswith("mailto:"))
    return url, mailto[len("mailto:"):].split("?")[0]


def plain(sender: str, to: str, body: str = "unsubscribe") -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: unsubscribe\r\nMessage-ID: <u.{len(body)}.{sender}>\r\n\r\n"
            f"{body}\r\n").encode()


def test_a_digest_replaces_each_games_reminder_and_comes_once_a_day(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.new_game()
            await choose(world, world.alice, "reminders digest")
            world.clock.advance(seconds=1.5)
            await world.settle()  # each game records the setting
            # Today's digest (due at 07:00 UTC, Alice set no zone) comes at once, the day's digest being due.
            assert subjects(world.alice)[-1] == "[gm] 2 games wait for you"
            before = len(world.alice.inbox())
            # The next one comes the next morning, at 07:00.
            first = MORNING + timedelta(days=1)
            await until(world, first - timedelta(microseconds=1))
            assert len(world.alice.inbox()) == before, subjects(world.alice)
            await until(world, first + timedelta(seconds=0.25))
            (digest,) = world.alice.inbox()[before:]
            assert str(digest["Subject"]) == "[gm] 2 games wait for you"
            body = text(digest)
            assert "game g1:" in body and "game g2:" in body and body.count("orders to: gm+g") == 2
            assert str(digest["List-Id"]) == "gm reminders <reminders.example.org>"
            assert "List-Unsubscribe-Post" not in digest  # no web address configured: the mailto alone
            assert unsubscribe_ways(digest)[1].startswith("gm+ureminders.1.")
            await until(world, first + timedelta(hours=5, seconds=0.5))
            assert len(world.alice.inbox()) == before + 1  # once a day
            # The games' reminders (12 hours before each deadline) go to Bob, not to Alice.
            reminder_time = START + timedelta(hours=60, seconds=1)
            await until(world, reminder_time)
            assert [s for s in subjects(world.alice) if "Reminder" in s] == []
            assert len([s for s in subjects(world.bob) if "Reminder" in s]) == 2
            reminder = next(m for m in world.bob.inbox() if "Reminder" in str(m["Subject"]))
            assert str(reminder["List-Id"]) == "gm reminders <reminders.example.org>"
            assert re.fullmatch(r"gm\+ug[12]\.2\.[a-z2-7]{16}@example\.org", unsubscribe_ways(reminder)[1])
            invitation = world.bob.inbox()[0]
            assert "List-Id" not in invitation and "List-Unsubscribe" not in invitation  # a game's own turn mail
            # The next morning: another digest, as the games still wait.
            await until(world, first + timedelta(days=1, seconds=0.75))
            assert subjects(world.alice)[-1] == "[gm] 2 games wait for you"
            for game in ("g1", "g2"):
                count, differences = verify_replay(str(tmp_path / "data" / "games" / game))
                assert count and not differences, differences

    run(scenario())


def test_reminders_off_sends_neither_reminder_nor_digest(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await choose(world, world.alice, "reminders off")
            await world.settle()
            before = len(world.alice.inbox())
            await until(world, START + timedelta(hours=61, seconds=0.5))
            assert len(world.alice.inbox()) == before
            assert [s for s in subjects(world.bob) if "Reminder" in s]

    run(scenario())


def test_unsubscribing_by_the_reminders_mailto_sets_reminders_off_and_a_wrong_token_changes_nothing(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await until(world, START + timedelta(hours=60, seconds=0.5))
            reminder = next(m for m in world.bob.inbox() if "Reminder" in str(m["Subject"]))
            _, mailto = unsubscribe_ways(reminder)
            forged = re.sub(r"\.[a-z2-7]{16}@", ".aaaaaaaaaaaaaaaa@", mailto)
            await world.asend(plain(ALICE, forged), ALICE, [forged])
            await world.settle()
            assert settings_of(world.daemon.store, BOB).reminders == "each"
            assert any(b"not a seat's token" in reason for reason in shunt_reasons(world))
            # The real one, even sent from another address (a forwarding mailbox): the seat's address leaves.
            await world.asend(plain("bob.forwarded@example.net", mailto), BOB, [mailto])
            await world.settle()
            assert settings_of(world.daemon.store, BOB).reminders == "off"
            assert str(world.bob.latest()["Subject"]) == "[gm] Unsubscribed"
            assert 'write "reminders each"' in text(world.bob.latest()).replace("\n", " ")
            await world.settle()
            assert world.daemon.master.games["g1"].settings_of(2).reminders == "off"
            count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
            assert count and not differences, differences

    run(scenario())


def _http(url: str, data: bytes | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_one_click_on_the_web_archive_unsubscribes_and_a_get_does_not(tmp_path):
    async def scenario():
        async with World(tmp_path, http=("127.0.0.1", 0), web_url="https://games.example.org/") as world:
            await world.new_game()
            await choose(world, world.alice, "reminders digest")
            await until(world, MORNING + timedelta(days=1, seconds=0.5))
            digest = world.alice.latest()
            assert str(digest["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
            url, _ = unsubscribe_ways(digest)
            assert url and url.startswith("https://games.example.org/unsubscribe/reminders/")
            local = f"http://127.0.0.1:{world.daemon.bound['http'][1]}" + url[len("https://games.example.org"):]
            status, page = await asyncio.to_thread(_http, local)
            assert status == 200 and "<form method=\"post\">" in page
            assert ALICE not in page and url.rsplit("/", 1)[1] not in page  # neither address nor token shown
            await world.settle()
            assert settings_of(world.daemon.store, ALICE).reminders == "digest"  # a GET (a prefetch) does nothing
            wrong = local[:-4] + "aaaa"
            assert (await asyncio.to_thread(_http, wrong, b"List-Unsubscribe=One-Click"))[0] == 404
            status, page = await asyncio.to_thread(_http, local, b"List-Unsubscribe=One-Click")
            assert status == 200 and "Done" in page
            await world.settle()
            assert settings_of(world.daemon.store, ALICE).reminders == "off"
            assert str(world.alice.latest()["Subject"]) == "[gm] Unsubscribed"
            assert str(world.alice.latest()["To"]) == ALICE and GM in str(world.alice.latest()["From"])

    run(scenario())


def test_a_games_reminder_carries_the_one_click_url_where_the_web_archive_is_known(tmp_path):
    async def scenario():
        async with World(tmp_path, http=("127.0.0.1", 0), web_url="https://games.example.org/") as world:
            await world.new_game()
            await until(world, START + timedelta(hours=60, seconds=1))
            reminder = next(m for m in world.bob.inbox() if "Reminder" in str(m["Subject"]))
            assert str(reminder["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
            url, mailto = unsubscribe_ways(reminder)
            assert url and url.startswith("https://games.example.org/unsubscribe/reminders/")
            assert re.fullmatch(r"gm\+ug1\.2\.[a-z2-7]{16}@example\.org", mailto)
            local = f"http://127.0.0.1:{world.daemon.bound['http'][1]}" + url[len("https://games.example.org"):]
            status, _ = await asyncio.to_thread(_http, local, b"List-Unsubscribe=One-Click")
            assert status == 200
            await world.settle()
            assert settings_of(world.daemon.store, BOB).reminders == "off"
            count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
            assert count > 0 and differences == []  # the archive keeps the mailto alone
            invitation = next(m for m in world.bob.inbox() if "List-Unsubscribe" not in m)
            assert "List-Unsubscribe-Post" not in invitation

    run(scenario())


def test_a_digest_of_one_game_says_so_in_the_singular() -> None:
    assert digest_subject(1) == "[gm] 1 game waits for you"
    assert digest_subject(3) == "[gm] 3 games wait for you"
