"""One mail, one answer (issue 10, point 4): `help`, `status` and `history`
asked for in one mail come back inside the one reply to it, each under a
banner naming it, in the text and in the HTML alternative alike; orders in
the same mail are answered in the same reply, and a game made under an
earlier edition still answers as it did (tests/test_editions.py)."""

from __future__ import annotations

import asyncio
from html.parser import HTMLParser

import pytest

from browser import rgb
from gm.pbem.writing.mailer import BANNER
from gmtest import World, started_game, text
from test_html_sheet import BLANK, DESKTOP, PALETTE, chromium, displayed, parse

__all__ = ["chromium"]  # a fixture used below


def html(message) -> str:
    return message.get_body(preferencelist=("html",)).get_content()


class Tags(HTMLParser):
    """Counts start tags, and checks every element closes in order."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "col", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.count: dict[str, int] = {}

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()


def well_formed(page: str) -> dict[str, int]:
    tags = Tags()
    tags.feed(page)
    tags.close()
    assert tags.open == [], tags.open
    return tags.count


def test_help_status_and_history_in_one_mail_come_back_in_one_reply(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            world.alice.new_mail()
            bob_before = len(world.bob.inbox())
            world.clock.advance(minutes=3, seconds=0.4)
            await world.act(world.alice.reply, "help\nstatus\n; and the whole game\nhistory\n")
            (reply,) = world.alice.new_mail()
            assert len(world.bob.inbox()) == bob_before
            assert str(reply["Subject"]) == "[gm g1] Help; Turn 1: your sheet; The game so far"
            body = text(reply)
            for line, what in ((1, "help: the help sheet"), (2, "status: the current sheet"),
                               (4, "history: the game so far")):
                assert f"line {line}: {what} is below" in body
            titles = [body.split("\n")[i + 1] for i, line in enumerate(body.split("\n")) if line == BANNER][::2]
            assert titles == ["Help", "Turn 1: your sheet", "The game so far"]
            help_part, sheet_part, history_part = body.split(BANNER)[2::2]
            assert "absent" in help_part and "history" in help_part
            assert "Your space" in sheet_part or "YOUR SPACE" in sheet_part.upper()
            assert "Orders in force for turn 1" in sheet_part
            assert "Your setup" in history_part or "setup" in history_part.lower()
            assert max(len(line) for line in body.splitlines()) <= 78
            # Who and where is said once, at the top; how to answer once, at the end.
            assert body.count("Spaceships game g1: you are Player 1") == 1
            assert body.count("password ") == 1 and body.rstrip().split("\n")[-1].startswith("    password ")

            page = html(reply)
            tags = well_formed(page)
            assert tags["html"] == 1 and tags["body"] == 1 and tags["hr"] == 3
            assert tags["table"] >= 2  # the sheet's own grids, as its HTML draws them
            assert "Orders in force for turn 1" in page and "line 4: history" in page
            assert page.index("Help</h2>") < page.index("your sheet</h2>") < page.index("The game so far</h2>")
    asyncio.run(scenario())


def test_orders_and_status_in_one_mail_are_one_reply_that_keeps_its_subject(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            world.alice.new_mail()
            await world.act(world.alice.reply, "Rv1 Rw1\nstatus\nstatus\n")
            (reply,) = world.alice.new_mail()
            assert str(reply["Subject"]) == "[gm g1] Turn 1: orders received"
            body = text(reply)
            assert body.count(BANNER) == 2 and "line 3: status: asked for already in this mail" in body
            sheet = body.split(BANNER)[2]
            assert "Rv1" in sheet and "Orders in force for turn 1" in sheet
    asyncio.run(scenario())


def test_grid_fighters_answers_help_status_and_history_in_one_reply(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters")
            world.alice.new_mail()
            await world.act(world.alice.reply, "status\nhistory\nhelp\n")
            (reply,) = world.alice.new_mail()
            body = text(reply)
            titles = [body.split("\n")[i + 1] for i, line in enumerate(body.split("\n")) if line == BANNER][::2]
            assert len(titles) == 3 and titles[1:] == ["The game so far", "Help"], titles
            assert str(reply["Subject"]) == "[gm g1] " + "; ".join(titles)
    asyncio.run(scenario())


@pytest.mark.slow  # headless Chromium
def test_the_one_page_shows_the_sheet_as_its_own_mail_would_in_chromium(tmp_path, chromium):
    async def scenario():
        async with World(tmp_path / "game") as world:
            await started_game(world)
            await world.act(world.alice.reply, "Rv1 Rw1\nhelp\nstatus\n")
            return world.alice.latest()
    reply = asyncio.run(scenario())
    page = tmp_path / "reply.html"
    page.write_text(html(reply), encoding="utf-8")
    dumped = chromium.dump_dom(page, *DESKTOP)
    sheet = parse(dumped)
    assert len(sheet.grids) == 10  # the sheet's five grids of each space, drawn as its own mail draws them
    assert "Your orders for turn 1:" in dumped and "Commands, one per line" in dumped
    assert (dumped.index("Your orders for turn 1:") < dumped.index("Commands, one per line")
            < dumped.index("Turn 1: your sheet</h2>"))
    # The sheet's <style> block went into the page's head: its cells are drawn in their colours there too.
    cells = displayed(chromium, html(reply), "table.grid td", tmp_path / "cells-shown.html")
    kinds = [(cell.css or BLANK[which]) for grid in sheet.grids for which in [grid.classes[1]]
             for row in grid.rows for cell in row]
    assert len(cells) == len(kinds) == 250
    assert [c["background"] for c in cells] == [rgb(PALETTE[kind]) for kind in kinds]
    assert {"ship", "unknown", "empty"} <= set(kinds)
