"""The Celestial Empire HTML sheet in headless Chromium, as the Spaceships
sheet is checked: every section of the manual's layout is there in the page
a mail client shows, the page itself never scrolls sideways in a desktop or
a phone-wide reading pane (a wide table may scroll inside its own box), and
it needs no script."""

from __future__ import annotations

import re

import pytest

from browser import measured, measuring_page
from test_celestial_sheets import HTML
from test_html_sheet import DESKTOP, chromium

pytestmark = pytest.mark.slow  # headless Chromium renders the sheet

__all__ = ["chromium"]  # a fixture used below

SECTIONS = ("Summary of ship types", "Summary of ships", "Summary of planets", "Ally status", "Earth: planet",
            "Planet list", "PLANET SCANNED THIS TURN", "General messages", "Personal messages",
            "Command history of turn 1", "How to answer")
"""The sheet's headings, in the manual's order."""


def test_every_section_is_in_the_page_chromium_shows(chromium, tmp_path):
    assert "<script" not in HTML.lower()
    page = tmp_path / "sheet.html"
    page.write_text(HTML, encoding="utf-8")
    dom = chromium.dump_dom(page, *DESKTOP)
    headings = re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", dom)
    places = [next(i for i, h in enumerate(headings) if section in h) for section in SECTIONS]
    assert places == sorted(places)
    assert "Black Arrow" in dom and "password" in dom


@pytest.mark.parametrize("width", [1024, 390])
def test_the_page_does_not_scroll_sideways(chromium, tmp_path, width):
    frame = tmp_path / f"measure-{width}.html"
    frame.write_text(measuring_page(HTML, width), encoding="utf-8")
    layout = measured(chromium.dump_dom(frame, 1100, 1000))
    assert layout["innerWidth"] == layout["clientWidth"] == width, layout
    assert layout["scrollWidth"] <= width + 2, f"the page scrolls sideways at {width}px: {layout['overflowing']}"


def mailed() -> tuple[str, str]:
    """A new game of three empires by the engine: Grok's first sheet, and
    the one-page reply to Grok's ``status`` (the reply's text, then the
    sheet), as a game of today's edition mails them."""
    from datetime import UTC, datetime, timedelta

    from gm.games.celestial_empire.mail import Terms
    from gm.kernel import engine
    from gm.kernel.values import Created, Options, PlayerMail, Seat
    from gm.pbem.writing.mailer import body_html

    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter", "Master"), 1))
    game, notices = engine.create(Created(at, "g1", seats, "standard", Options(), Terms(7), game="celestial-empire"))
    folders = game.rules.template_folders(game.edition)
    sheet = body_html(notices[0], game.rules.templates, folders)
    (reply,) = engine.apply(game, PlayerMail(at + timedelta(minutes=1), 1, "354=Capital\nstatus\n"))
    page = body_html(reply, game.rules.templates, folders)
    assert sheet is not None and page is not None and "<pre>" in page
    return sheet, page


@pytest.mark.parametrize("which", ["sheet", "reply"])
def test_a_mailed_sheet_fits_a_phone(chromium, tmp_path, which):
    """Issue 22: at 390 px the reply that holds the sheet (its text part in
    a <pre>) made the whole page scroll sideways."""
    page = dict(zip(("sheet", "reply"), mailed()))[which]
    frame = tmp_path / f"phone-{which}.html"
    frame.write_text(measuring_page(page, 390), encoding="utf-8")
    layout = measured(chromium.dump_dom(frame, 1100, 1000))
    assert layout["scrollWidth"] <= 390 + 2, f"the page scrolls sideways at 390px: {layout['scrollWidth']}"


def test_the_html_sheet_names_the_reader_in_the_scores_and_no_other_empire_r81():
    """Issue 22: the scores were listed by player number alone. The text
    sheet names the reader's empire with its number ("Grok player
    number=1"); so does the HTML score table now. The other empires' rows
    stay numbers: which name has which number is not told (ruling R-81)."""
    sheet, _ = mailed()
    scores = re.search(r"<h3>Player scores</h3>\s*<table>(.*?)</table>", sheet, re.S)
    assert scores, sheet
    rows = re.findall(r'<tr><th scope="row">([^<]*)</th><td>(\d+)</td></tr>', scores.group(1))
    assert [label for label, _ in rows] == ["1 (Grok, you)", "2", "3"], rows
    assert "Winter" not in scores.group(1) and "Master" not in scores.group(1)
