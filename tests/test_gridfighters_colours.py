"""Grid Fighters paints each side in one colour (issue 22): Red's pieces on
Red's colour and Blue's on Blue's, in either player's HTML sheet and in the
web archive alike, as Chromium displays them. The sheet used to colour the
reader's own pieces pink and the other side's blue, so Blue saw its own
pieces in Red's colour."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from browser import Chromium, find_chromium, shown, shown_page
from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail
from gm.pbem.writing.mailer import body_html
from gm.web.pages import render
from gmtest import START
from test_gridfighters_sheets import MAILS, SEATS

SIDES = {1: "Red", 2: "Blue"}


@pytest.fixture(scope="module")
def chromium() -> Chromium:
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium (scripts/test installs it)")
    return Chromium(binary)


def played():
    """The worked example by mail, to Blue's resignation: the game, and each
    player's HTML sheets with a board, as their game's edition renders them."""
    game, notices = engine.create(Created(START, "g1", SEATS, "standard", Options(), game="gridfighters"))
    sheets: dict[int, list[str]] = {1: [], 2: []}
    folders = game.rules.template_folders(game.edition)
    for minutes, (player, text) in enumerate(MAILS, 1):
        for notice in notices:
            html = body_html(notice, game.rules.templates, folders)
            if html is not None and "table class=\"board\"" in html:
                sheets[notice.player].append(html)
        notices = engine.apply(game, PlayerMail(START + timedelta(minutes=minutes), player, text))
    return game, sheets


def backgrounds(chromium: Chromium, page: str, where: Path) -> list[dict]:
    where.write_text(shown_page(page, "table.board td"), encoding="utf-8")
    return shown(chromium.dump_dom(where, 1024, 1200))


def test_each_side_has_one_colour_in_both_sheets_and_the_web_page(chromium, tmp_path):
    game, sheets = played()
    assert game.phase == "ended" and all(sheets.values())
    web = backgrounds(chromium, render(game, None).html.decode(), tmp_path / "web.html")
    colour = {}
    for player, name in SIDES.items():
        seen = {cell["background"] for cell in web if name.lower() in cell["classes"].split()}
        assert len(seen) == 1, (name, seen)
        colour[player] = seen.pop()
    assert colour[1] != colour[2]
    for player, pages in sheets.items():
        cells = [cell for n, sheet in enumerate(pages) for cell in
                 backgrounds(chromium, sheet, tmp_path / f"p{player}-{n}.html") if cell["text"].strip()]
        own = {cell["background"] for cell in cells if cell["text"][:1].isupper()}
        theirs = {cell["background"] for cell in cells if cell["text"][:1].islower()}
        assert own == {colour[player]}, (player, own, colour)
        assert theirs <= {colour[3 - player]} and theirs, (player, theirs, colour)
