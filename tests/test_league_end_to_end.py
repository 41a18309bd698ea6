"""Issue 23's end to end, through the real daemon and the real web server:
two strangers who only know the GM's address choose public names, find
each other by ``seek``/``seeks``/``accept``, play a rated Spaceships game to
its end (a resignation), and see their new ratings by mail (``ratings``)
and on the web archive, by name, never by address."""

from __future__ import annotations

import asyncio
import re

import pytest

from gm.league import glicko2
from gmtest import ALICE, BOB, GM, World, text
from test_names import name
from test_seeks import seek, take
from test_web import Site

pytestmark = pytest.mark.slow  # a whole rated game by mail through a real daemon


def test_strangers_seek_play_rated_and_see_their_ratings_by_mail_and_on_the_web(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
            await name(world, world.bob, "Ishmael")
            seek_id = await seek(world, world.alice, "seek spaceships\n")
            listing = text(await world.write_gm(world.bob, "seeks"))
            assert f"accept {seek_id}" in listing and "by Ahab (rating 1500); rated" in listing and GM in listing
            await take(world, world.bob, seek_id)
            game = world.daemon.master.games["g1"]
            assert game.options.rated and [s.alias for s in game.seats] == ["Ahab", "Ishmael"]
            invitation = [m for m in world.bob.inbox() if not str(m["Subject"]).startswith("[gm] ")][-1]
            world.clock.advance(minutes=5, seconds=0.5)
            await world.act(world.bob.reply, "resign", to=invitation)
            assert game.phase == "ended" and game.outcome.winner == 1
            return [await world.write_gm(player, "ratings spaceships") for player in (world.alice, world.bob)]

    answers = asyncio.run(scenario())
    won = glicko2.update(glicko2.Rating(), [(glicko2.Rating(), 1.0)])
    lost = glicko2.update(glicko2.Rating(), [(glicko2.Rating(), 0.0)])
    rows = [rf"1  Ahab\s+{won.rating:.0f}\s+{won.deviation:.0f}\s+1\s+100%",
            rf"2  Ishmael\s+{lost.rating:.0f}\s+{lost.deviation:.0f}\s+1\s+100%"]
    for answer, address in zip(answers, (ALICE, BOB)):
        body = text(answer)
        assert str(answer["To"]) == address
        assert all(re.search(row, body) for row in rows), body
        assert "@" not in body and "without a public name" not in body
    site = Site(tmp_path / "data", "--web-only")
    try:
        status, _, index = site.get("/")
        assert status == 200 and b'href="/ratings/spaceships"' in index
        status, _, body = site.get("/ratings/spaceships")
    finally:
        site.stop()
    page = body.decode()
    cells = re.findall(r'data-label="Name"><a href="/players/\w+">(\w+)</a></td><td data-label="Rating">(\d+)<', page)
    assert status == 200 and cells == [("Ahab", f"{won.rating:.0f}"), ("Ishmael", f"{lost.rating:.0f}")]
    assert "@" not in page and "example" not in page
