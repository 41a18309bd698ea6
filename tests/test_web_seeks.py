"""The web archive lists the open seeks (issue 23): game, variant, deadline,
the seeker's public name, the id and how to take it (mail ``accept ID`` to
the GM's address), and no address but the GM's. Served by the installed
gm (``gm serve --web-only``) from a data directory built through the daemon."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from gm.web.pages import Archive, render_list
from gmtest import ALICE, BOB, GM, World
from test_names import name
from test_seeks import CAROL, named_world, seek, take
from test_web import Site


async def _build(root: Path) -> tuple[str, str]:
    """Three named players; two seeks, the second taken: their ids."""
    async with World(root) as world:
        world.clock.now = datetime.now(UTC)  # the site shows what is open by the wall clock
        await named_world(world)
        open_id = await seek(world, world.alice, "seek gridfighters\ndeadline 2d\nunrated\n")
        taken_id = await seek(world, world.bob, "seek spaceships\n")
        await take(world, world.alice, taken_id)
        await name(world, world.bob, "Queequeg")  # a name changed since: the list shows the new one
        return open_id, taken_id


def test_the_list_shows_the_open_seeks_by_name_and_how_to_take_them(tmp_path):
    open_id, taken_id = asyncio.run(_build(tmp_path))
    site = Site(tmp_path / "data", "--web-only")
    try:
        status, _, body = site.get("/")
    finally:
        site.stop()
    assert status == 200
    page = body.decode()
    assert "<h2>Open seeks</h2>" in page
    assert f"<td data-label=\"Seek\">{open_id}</td>" in page and taken_id not in page
    assert "<td data-label=\"Seeker\">Ahab (1500)</td>" in page and "Grid Fighters" in page  # a new player
    assert "2d a turn, unrated" in page
    assert f"mail <code>accept {open_id}</code> to {GM}" in page
    for address in (ALICE, BOB, CAROL, "example.net", "example.com"):
        assert address not in page
    assert page.replace(GM, "").count("@") == page.count("@media")  # no address but the GM's


def test_without_open_seeks_the_list_is_as_before(tmp_path):
    async def build():
        async with World(tmp_path) as world:
            await named_world(world)
    asyncio.run(build())
    assert Archive(str(tmp_path / "data")).seeks(datetime.now(UTC)) == []
    assert b"Open seeks" not in render_list([], [])
    assert render_list([], []) == render_list([])
