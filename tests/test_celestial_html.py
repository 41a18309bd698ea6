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
