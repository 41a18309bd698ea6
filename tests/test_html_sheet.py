"""The HTML turn sheet as a player's mail program shows it: a short game is
played through the real daemon, the HTML alternative of a turn sheet is taken
from the delivered mail, and headless Chromium loads it to dump its DOM,
take screenshots at a desktop and a phone width, and measure its layout in a
narrow window. What is displayed is read from Chromium (computed styles), not
from the markup: the sheet is styled by a <style> block and classes from
edition 4 on (inline styles before), and a screenshot of it is compared with
one of the same sheet as a game of edition 3 sends it.

The screenshots stay in this module's pytest temporary directory (pytest
keeps the last few runs), or in $GM_SCREENSHOTS when that is set, for a
person to look at.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browser import Chromium, find_chromium, hex_colour, measured, measuring_page, read_png, rgb, shown, shown_page
from gmtest import World, text

pytestmark = pytest.mark.slow  # headless Chromium renders, measures and photographs the sheet

# Alice's light scout sits where Bob has a missile destroyer, so that when Bob
# destroys it the flashcube data reveals an undamaged MD cell to her [7].
SETUP_ALICE = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Ox3\n"
SETUP_BOB = "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n"
COMMITMENTS = re.compile(r'\n<h3 id="commitments">.*?</table>\n', re.S)
"""The section of the GM's commitments (templates/_commitments.html), which edition 6 added."""

# Turn 1. Alice: hits on Bob's DS (Yx3; Yy4 with the missile's extra strike),
# a miss (Rz5), a missile explosion at the end of Bob's MD (Ov3, which takes
# Ow3 with it and leaves Ox3), Bob's heavy scout destroyed and revealed
# (Gz1 Gz2), one scan (Bv5: a ship) and a second scan she is not entitled to.
# Bob: a hit on her DS (Rv1), a miss (Rz1), and her light scout destroyed (Ox3).
ORDERS_ALICE = "Yx3 Rz5 Ov3 Gz1 Gz2 mYz1 Yy4 sBv5 sBz1"
ORDERS_BOB = "Rv1 Rz1 Ox3"

# What Alice's sheet after turn 1 must show: cell -> (CSS class, code).
OWN = {
    "Rv1": ("destroyed", "ds"), "Rv2": ("ship", "DS"), "Ow2": ("ship", "DS"),
    "Ox3": ("destroyed", "ls"),
    "Yz1": ("fired", "MD'"), "Yz2": ("missile", "MD*"), "Yz3": ("missile", "MD*"),
    "Gv1": ("ship", "KC"), "Bw2": ("ship", "FS"),
    "Rz1": ("empty", ""),  # Bob's miss leaves nothing to see in her own space
}
KNOWN = {
    "Rz5": ("miss", "o"),
    "Ov3": ("explosion", "*"), "Ow3": ("explosion", "*"),  # destroyed by the explosion: drawn as one
    "Ox3": ("revealed", "MD"),
    "Yx3": ("hit", "X"), "Yy4": ("hit", "X"),
    "Gz1": ("revealed-destroyed", "hs"), "Gz2": ("revealed-destroyed", "hs"),
    "Bv5": ("scan-ship", "S"),
}
"""Every other cell of Bob's space is unknown to her: in particular Bz1,
her rejected scan, and Rv1, where Bob's KC is."""

# templates/turn_sheet.html's palette: what each kind of cell is drawn in.
PALETTE = {
    "empty": "#ffffff", "ship": "#9ecae1", "destroyed": "#fb6a4a", "missile": "#c6dbef", "fired": "#dadaeb",
    "unknown": "#d9d9d9", "miss": "#deebf7", "scan-empty": "#e5f5e0", "scan-ship": "#fdd0a2",
    "scan-destroyed": "#fc9272", "hit": "#de2d26", "explosion": "#a50f15", "kamikaze": "#756bb1",
    "revealed": "#6baed6", "revealed-destroyed": "#cb181d",
}
LIGHT = {"hit", "explosion", "kamikaze", "revealed-destroyed"}
"""Drawn in white letters; the others in black."""
BLANK = {"own": "empty", "known": "unknown"}
"""The kind of a cell without a class in each space (its table body's class shows through)."""
CELL_PIXELS = 400
"""At least this many pixels of a cell show its background colour (a cell is
34x22 plus padding, about 800 pixels, less its text)."""

LOOK_TOLERANCE = 100
"""How many pixels of a screenshot may differ between the sheet of edition 3
and that of edition 4 (none did when edition 4 came; a cell of another
colour is some 600, a line of text in another colour about 500)."""
DESKTOP = (1024, 2400)
PHONE = (390, 3200)
NARROW = (320, 3600)
COLOURS = "ROYGB"
LETTERS = "vwxyz"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="module")
def chromium() -> Chromium:
    binary = find_chromium()
    if binary is None:
        message = "headless Chromium is not installed (scripts/install-test-packages installs it)"
        if in_ci():
            pytest.fail(message + "; under CI it must be there")
        pytest.skip(message)
    return Chromium(binary)


@dataclass
class Delivered:
    html: str
    text: str
    token: str
    final_html: str = ""
    """Alice's final sheet, after Bob resigned in turn 2."""
    final_text: str = ""
    edition3_html: str = ""
    """The same turn sheet, as a game made under edition 3 mailed it."""
    edition3_final_html: str = ""
    edition6_html: str = ""
    """The same turn sheet, as a game made under edition 6 (before the lighter markup) mailed it."""
    edition6_final_html: str = ""


@pytest.fixture(scope="module")
def delivered(tmp_path_factory) -> Delivered:
    """Alice's turn sheet after turn 1, as the daemon mailed it to her; and
    the same sheet from the same game made under edition 3."""

    async def play() -> Delivered:
        async with World(tmp_path_factory.mktemp("daemon")) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            assert "the game begins" in str(world.alice.latest()["Subject"])
            await world.act(world.alice.reply, ORDERS_ALICE)
            await world.act(world.bob.reply, ORDERS_BOB)
            sheet = world.alice.latest()
            assert "Turn 1 results" in str(sheet["Subject"])
            assert sheet.get_content_type() == "multipart/alternative"
            token = str(sheet["Reply-To"]).split(".")[2].split("@")[0]
            await world.act(world.bob.reply, "resign")
            final = world.alice.latest()
            assert "The game is over" in str(final["Subject"])
            return Delivered(sheet.get_body(preferencelist=("html",)).get_content(), text(sheet), token,
                             final.get_body(preferencelist=("html",)).get_content(), text(final))

    now = asyncio.run(play())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("gm.pbem.archive.creation.EDITION", 3)
        before = asyncio.run(play())
    with pytest.MonkeyPatch.context() as patch:  # edition 4 changed the HTML alone (edition 5 the words)
        patch.setattr("gm.pbem.archive.creation.EDITION", 4)
        light = asyncio.run(play())
    with pytest.MonkeyPatch.context() as patch:  # edition 7 drew the same sheet with lighter markup
        patch.setattr("gm.pbem.archive.creation.EDITION", 6)
        six = asyncio.run(play())
    assert "style=" in before.html and "<style>" not in before.html
    assert before.text.replace(before.token, light.token) == light.text
    # Edition 6 added the GM's commitments (issue 26), and nothing else, to the HTML sheet.
    assert COMMITMENTS.search(six.html) and not COMMITMENTS.search(light.html)
    assert light.html.replace(light.token, six.token) == COMMITMENTS.sub("", six.html)
    # Edition 7 changed the HTML's markup alone (issue 27): the text is edition 6's, but for each game's own
    # token and commitments, and the HTML is lighter.
    assert (as_in(six.text, six, now), as_in(six.final_text, six, now)) == (now.text, now.final_text)
    assert len(now.html) < len(six.html) and len(now.final_html) < len(six.final_html)
    now.edition3_html = before.html.replace(before.token, now.token)
    now.edition3_final_html = before.final_html.replace(before.token, now.token)
    now.edition6_html = as_in(six.html, six, now)
    now.edition6_final_html = as_in(six.final_html, six, now)
    return now


HEX = re.compile(r"\b[0-9a-f]{16,64}\b")
"""A commitment's digest or salt, whole or in the HTML's groups of 16."""


def as_in(document: str, made: Delivered, other: Delivered) -> str:
    """``document``, one of the sheets of game ``made``, with that game's token
    and the hex strings of its commitments (a fresh salt each game) those of
    the same sheet of game ``other``, in the same places."""
    theirs = {"text": other.text, "final_text": other.final_text, "html": other.html, "final_html": other.final_html}
    (name,) = [name for name in theirs if getattr(made, name) == document]
    mine, wanted = HEX.findall(document), HEX.findall(theirs[name].replace(other.token, made.token))
    assert [len(h) for h in mine] == [len(h) for h in wanted], name
    replaced = iter(wanted)
    return HEX.sub(lambda _: next(replaced), document).replace(made.token, other.token)


@pytest.fixture(scope="module")
def outdir(tmp_path_factory) -> Path:
    chosen = os.environ.get("GM_SCREENSHOTS")
    if chosen:
        path = Path(chosen)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("html-sheet")


@pytest.fixture(scope="module")
def page(delivered, outdir) -> Path:
    path = outdir / "turn-sheet.html"
    path.write_text(delivered.html, encoding="utf-8")
    return path


# --- the DOM -------------------------------------------------------------------

@dataclass
class Cell:
    css: str
    """Its class: what it shows (none for a blank cell, `BLANK`)."""
    text: str = ""


@dataclass
class Grid:
    classes: list[str]
    caption: str = ""
    rows: list[list[Cell]] = field(default_factory=list)


class SheetParser(HTMLParser):
    """The parts of the sheet's DOM the tests look at."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.grids: list[Grid] = []
        self.ids: set[str] = set()
        self.headings: list[str] = []  # the ids of the h3 sections, in order
        self.spans: list[tuple[str, list[str]]] = []  # (class, [text]) of result and key spans
        self._span: list[str] | None = None
        self.pres: dict[str, str] = {}  # pre id -> its text
        self._pre_id: str | None = None
        self.history: list[list[tuple[str, str]]] = []  # rows of (text, class)
        self.texts: dict[str, str] = {}  # section id -> its text
        self._grid: Grid | None = None
        self._cell: Cell | None = None
        self._in_caption = False
        self._in_history = False
        self._history_cell: list | None = None
        self._section: str | None = None
        self._pre = False
        self.happened = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h3":
            self.headings.append(a.get("id") or "")
        if tag == "span" and (a.get("class") or "").split()[:1] in (["result"], ["key"]):
            self._span = []
            self.spans.append((a["class"], self._span))
        if tag == "pre" and a.get("id"):
            self._pre_id = a["id"]
            self.pres[a["id"]] = ""
        if a.get("id"):
            self.ids.add(a["id"])
            if tag in ("h2", "h3"):
                self._section = a["id"]
        classes = (a.get("class") or "").split()
        if tag == "table" and "grid" in classes:
            self._grid = Grid(classes)
            self.grids.append(self._grid)
        elif tag == "table" and a.get("id") == "history":
            self._in_history = True
        elif self._grid is not None and tag == "caption":
            self._in_caption = True
        elif self._grid is not None and tag == "tr":
            self._grid.rows.append([])
        elif self._grid is not None and tag == "td":
            self._cell = Cell(a.get("class") or "")
            self._grid.rows[-1].append(self._cell)
        elif self._in_history and tag == "tr":
            self.history.append([])
        elif self._in_history and tag == "td":
            self._history_cell = ["", a.get("class") or ""]
            self.history[-1].append(self._history_cell)
        elif tag == "div" and a.get("id") == "announcements":
            self._pre = True
        elif tag == "h3":
            self._pre = False

    def handle_endtag(self, tag):
        if tag == "span":
            self._span = None
        elif tag == "pre":
            self._pre_id = None
        if tag == "table":
            self._grid = None
            self._in_history = False
        elif tag == "caption":
            self._in_caption = False
        elif tag == "td":
            self._cell = None
            self._history_cell = None

    def handle_data(self, data):
        if self._span is not None:
            self._span.append(data)
        if self._pre_id is not None:
            self.pres[self._pre_id] += data
        if self._in_caption and self._grid is not None:
            self._grid.caption += data
        elif self._cell is not None:
            self._cell.text += data
        elif self._history_cell is not None:
            self._history_cell[0] += data
        if self._pre:
            self.happened += data
        if self._section:
            self.texts[self._section] = self.texts.get(self._section, "") + data


def parse(dom: str) -> SheetParser:
    parser = SheetParser()
    parser.feed(dom)
    parser.close()
    return parser


def cell_rows(grid: Grid) -> list[list[Cell]]:
    """The grid's five rows of cells (the header row has no td)."""
    return [row for row in grid.rows if row]


def by_cell(grids: list[Grid], which: str) -> dict[str, Cell]:
    """Cell name (``Rv1``) -> the td that shows it, in the own or known
    grids; a blank cell's class is its space's `BLANK` kind."""
    chosen = [g for g in grids if which in g.classes]
    cells = {}
    for colour, grid in zip(COLOURS, chosen):
        for letter, row in zip(LETTERS, cell_rows(grid)):
            for number, cell in enumerate(row, 1):
                cells[f"{colour}{letter}{number}"] = Cell(cell.css or BLANK[which], cell.text)
    return cells


def cell_names() -> list[tuple[str, str]]:
    """(space, cell name) of every grid cell, in the sheet's order: each
    colour's own grid, then its known grid, row by row."""
    return [(which, f"{colour}{letter}{number}") for colour in COLOURS for which in ("own", "known")
            for letter in LETTERS for number in range(1, 6)]


def displayed(chromium: Chromium, sheet: str, selector: str, where: Path) -> list[dict]:
    """What Chromium displays of the sheet's elements that ``selector`` picks (`browser.shown_page`)."""
    where.write_text(shown_page(sheet, selector), encoding="utf-8")
    return shown(chromium.dump_dom(where, 1100, 1000))


def text_codes(plain: str) -> tuple[dict[str, str], dict[str, str]]:
    """The codes of both spaces in the plain-text sheet's grids."""
    lines = [line.split() for line in plain.split("== The spaces ==", 1)[1].splitlines()
             if re.match(r"^    [vwxyz]  ", line)]
    assert len(lines) == 25, lines
    own, known = {}, {}
    for n, tokens in enumerate(lines):
        colour, letter = COLOURS[n // 5], LETTERS[n % 5]
        assert len(tokens) == 12 and tokens[0] == tokens[6] == letter, tokens
        for number in range(1, 6):
            own[f"{colour}{letter}{number}"] = tokens[number]
            known[f"{colour}{letter}{number}"] = tokens[6 + number]
    return own, known


@pytest.fixture(scope="module")
def dom(chromium, page) -> SheetParser:
    dumped = chromium.dump_dom(page, *DESKTOP)
    (page.parent / "turn-sheet.dom.html").write_text(dumped, encoding="utf-8")
    return parse(dumped)


def test_the_delivered_html_part_carries_the_real_token(delivered):
    assert "@@GM-SECRET" not in delivered.html and "*" * 16 not in delivered.html
    assert f"<code>password {delivered.token}</code>" in delivered.html


def test_ten_grids_of_five_rows_of_five_cells(dom):
    assert len(dom.grids) == 10
    own = [g for g in dom.grids if "own" in g.classes]
    known = [g for g in dom.grids if "known" in g.classes]
    assert len(own) == len(known) == 5
    names = ["Red", "Orange", "Yellow", "Green", "Blue"]
    assert [g.caption.split(" · ")[0] for g in own] == names == [g.caption.split(" · ")[0] for g in known]
    assert all(g.caption.endswith("yours") for g in own)
    assert all(g.caption.endswith("theirs") for g in known)
    for grid in dom.grids:
        rows = cell_rows(grid)
        assert len(rows) == 5 and all(len(row) == 5 for row in rows), grid.caption
        # A cell says what it shows by one class of the palette, or none when it is blank.
        assert all(cell.css in PALETTE if cell.text.strip() else cell.css == ""
                   for row in rows for cell in row), grid.caption


def test_cells_show_what_the_game_implies(dom):
    own, known = by_cell(dom.grids, "own"), by_cell(dom.grids, "known")
    assert len(own) == len(known) == 125
    for name, (css, code) in OWN.items():
        assert (own[name].css, own[name].text.strip()) == (css, code), name
    for name, cell in known.items():
        css, code = KNOWN.get(name, ("unknown", ""))
        assert (cell.css, cell.text.strip()) == (css, code), name


def test_every_cell_is_displayed_in_its_colour(chromium, delivered, dom, outdir):
    """The colour Chromium paints behind each of the 250 cells, and its
    letters' colour, are those of the kind of cell it is."""
    cells = displayed(chromium, delivered.html, "table.grid td", outdir / "cells-shown.html")
    assert len(cells) == 250
    kinds = {"own": by_cell(dom.grids, "own"), "known": by_cell(dom.grids, "known")}
    for (which, name), cell in zip(cell_names(), cells):
        css = kinds[which][name].css
        assert cell["text"] == kinds[which][name].text, (which, name)
        assert cell["background"] == rgb(PALETTE[css]), (which, name, css, cell)
        assert cell["color"] == rgb("#ffffff" if css in LIGHT else "#000000"), (which, name, css, cell)
        assert "monospace" in cell["font"]


def code_shape(code: str) -> str:
    """A cell's code with the ship label generalised: ``FS2*`` -> ``KC*``."""
    return re.sub(r"^[a-z]{2}\d*", "kc", re.sub(r"^[A-Z]{2}\d*", "KC", code))


def test_grids_agree_with_the_plain_text_part(dom, delivered):
    """The same code in both alternatives for all 250 cells, and one CSS
    class for each kind of code (and the other way round)."""
    own_text, known_text = text_codes(delivered.text)
    for which, codes in (("own", own_text), ("known", known_text)):
        cells = by_cell(dom.grids, which)
        classes_of: dict[str, set[str]] = {}
        shapes_of: dict[str, set[str]] = {}
        for name, code in codes.items():
            assert (cells[name].text.strip() or ".") == code, (which, name)
            classes_of.setdefault(code_shape(code), set()).add(cells[name].css)
            shapes_of.setdefault(cells[name].css, set()).add(code_shape(code))
        assert all(len(v) == 1 for v in classes_of.values()), classes_of
        assert all(len(v) == 1 for v in shapes_of.values()), shapes_of


def test_a_rejected_order_is_shown_in_red(chromium, delivered, outdir):
    cells = displayed(chromium, delivered.html, "#history td", outdir / "history-shown.html")
    colours = {cell["text"].split(":")[0]: cell["color"] for cell in cells[1::2]}
    assert colours["REJECTED"] == rgb("#bb0000")
    assert {c for word, c in colours.items() if word != "REJECTED"} == {rgb("#000000")}
    assert all("monospace" in cell["font"] for cell in cells[0::2])


def test_sections_what_happened_orders_spaces_next(dom, delivered):
    assert {"happened", "history", "spaces", "next"} <= dom.ids
    assert "outcome" not in dom.ids
    happened = " ".join(dom.happened.split())
    for line in ["you strike Rz5: miss", "you strike Ov3: explosion (missile explosion: Ov3 Ow3)",
                 "Their heavy scout HS is destroyed: Gz1 Gz2", "you scan Bv5: undamaged",
                 "Your light scout LS is destroyed: Ox3", "flashcube data from them: Ox3 MD undamaged."]:
        assert line in happened
    rows = {row[0][0]: row for row in dom.history if len(row) == 2}
    assert rows["mYz1"][1][0] == "missile launched from Yz1 (MD)"
    assert rows["sBz1"][1][0].startswith("REJECTED: only 1 scan allowed this turn")
    assert [row[0][0] for row in dom.history] == ORDERS_ALICE.split()
    assert "7 conventional strikes" in dom.texts["next"]
    assert f"password {delivered.token}" in dom.texts["next"]


# --- screenshots -----------------------------------------------------------------

EXPECTED_CELLS = {"ship": 17, "destroyed": 2, "missile": 2, "fired": 1, "unknown": 100, "scan-ship": 1,
                  "hit": 3, "explosion": 1, "revealed": 1, "revealed-destroyed": 2}
"""How many cells of each colour Alice's sheet has (at least)."""


@pytest.mark.parametrize("name, size", [("desktop", DESKTOP), ("phone", PHONE)])
def test_screenshots_show_the_grids_in_their_colours(chromium, page, name, size):
    width, height = size
    shot = chromium.screenshot(page, page.parent / f"turn-sheet-{name}-{width}.png", width, height)
    assert shot.stat().st_size > 10_000
    image = read_png(shot.read_bytes())
    assert (image.width, image.height) == size
    counts = image.colours()
    white = counts[(255, 255, 255)]
    assert white < width * height * 0.97, "the screenshot is (nearly) blank"
    assert len(counts) > 50, "too few colours for text and coloured grids"
    for css, cells in EXPECTED_CELLS.items():
        seen = counts[hex_colour(PALETTE[css])]
        assert seen >= cells * CELL_PIXELS, f"{css} {PALETTE[css]}: {seen} pixels, expected {cells} cells' worth"


@pytest.mark.parametrize("sheet, size", [("turn", DESKTOP), ("turn", PHONE), ("final", DESKTOP)])
def test_the_sheet_looks_as_it_did_in_edition_3(chromium, delivered, outdir, sheet, size):
    """Edition 4 styles the sheet by classes where edition 3 styled each
    cell inline: the same sheet, screenshot at the same size, is the same
    picture (but for a few pixels, should Chromium draw some text a shade
    apart)."""
    images = {}
    pages = {"turn": (delivered.edition3_html, COMMITMENTS.sub("", delivered.html)),  # which edition 3 had not
             "final": (delivered.edition3_final_html, COMMITMENTS.sub("", delivered.final_html))}
    for edition, html in zip((3, 4), pages[sheet]):
        page = outdir / f"look-{sheet}-edition{edition}.html"
        page.write_text(html, encoding="utf-8")
        shot = outdir / f"look-{sheet}-{size[0]}-edition{edition}.png"
        images[edition] = read_png(chromium.screenshot(page, shot, *size).read_bytes())
    before, after = images[3], images[4]
    assert (before.width, before.height, before.channels) == (after.width, after.height, after.channels)
    c = before.channels
    differing = [(y, sum(row_a[x:x + 3] != row_b[x:x + 3] for x in range(0, len(row_a), c)))
                 for y, (row_a, row_b) in enumerate(zip(before.rows, after.rows)) if row_a != row_b]
    pixels = sum(n for _, n in differing)
    assert pixels <= LOOK_TOLERANCE, f"{pixels} pixels differ, in rows {[y for y, _ in differing][:40]}"


@pytest.mark.parametrize("sheet, size", [("turn", DESKTOP), ("turn", PHONE), ("turn", NARROW), ("final", DESKTOP),
                                         ("final", PHONE)])
def test_the_sheet_looks_as_it_did_in_edition_6(chromium, delivered, outdir, sheet, size):
    """Edition 7 draws the sheet with lighter markup (issue 27: no thead or
    tbody, a blank cell's colour from its table's rows, fewer classes and
    line breaks): the same sheet as a game of edition 6 sends it, commitments
    and all, screenshot at the same size, is the same picture, pixel for pixel."""
    pages = {"turn": (delivered.edition6_html, delivered.html),
             "final": (delivered.edition6_final_html, delivered.final_html)}
    images = []
    for edition, html in zip((6, 7), pages[sheet]):
        page = outdir / f"look6-{sheet}-edition{edition}.html"
        page.write_text(html, encoding="utf-8")
        shot = outdir / f"look6-{sheet}-{size[0]}-edition{edition}.png"
        images.append(read_png(chromium.screenshot(page, shot, *size).read_bytes()))
    before, after = images
    assert (before.width, before.height, before.channels) == (after.width, after.height, after.channels)
    differing = [y for y, (row_a, row_b) in enumerate(zip(before.rows, after.rows)) if row_a != row_b]
    assert differing == [], f"{len(differing)} rows of pixels differ: {differing[:40]}"


# --- a narrow window ----------------------------------------------------------------

@pytest.mark.parametrize("width", [1024, 390, 320])
def test_grids_wrap_instead_of_scrolling_sideways(chromium, delivered, outdir, width):
    frame = outdir / f"measure-{width}.html"
    frame.write_text(measuring_page(delivered.html, width), encoding="utf-8")
    layout = measured(chromium.dump_dom(frame, 1100, 1000))
    assert layout["innerWidth"] == layout["clientWidth"] == width, layout
    assert layout["scrollWidth"] <= width + 2, f"scrolls sideways at {width}px: {layout['overflowing']}"
    assert layout["overflowing"] == []
    assert len(layout["colours"]) == 5
    cell_width, cell_height = layout["smallestCell"]
    assert cell_width >= 24 and cell_height >= 18, f"grid cells squeezed to {cell_width}x{cell_height}px"
    for colour in layout["colours"]:
        for left, top, right, bottom in colour.values():
            assert left >= 0 and right <= width and bottom > top
    if width >= 1024:  # room for a colour's two grids side by side
        assert all(abs(c["own"][1] - c["known"][1]) < 1 and c["known"][0] > c["own"][2] for c in layout["colours"])
    else:  # either side by side, or the known grid wrapped below its own
        for c in layout["colours"]:
            assert abs(c["own"][1] - c["known"][1]) < 1 or c["known"][1] >= c["own"][3], c


# --- issue 10: the legend, coloured results, the fill-in block, the final sheet ------

def test_unexplored_and_searched_empty_cells_differ_and_are_in_the_legend(chromium, delivered, dom, outdir):
    spans = displayed(chromium, delivered.html, ".legend .key", outdir / "legend-shown.html")
    keys = {span["classes"].split()[1]: (span["background"], span["text"].strip()) for span in spans}
    assert len(keys) == 14 and all(keys[css][0] == rgb(PALETTE[css]) for css in keys), keys
    assert {"unknown", "miss", "scan-empty"} <= set(keys)
    colours = {keys[k][0] for k in ("unknown", "miss", "scan-empty")}
    assert len(colours) == 3, keys
    # The cells themselves: Bz1 is unexplored, Rz5 a miss; they are drawn as the legend says.
    known = by_cell(dom.grids, "known")
    assert known["Bz1"].css == "unknown" and known["Rz5"].css == "miss"
    assert keys["unknown"][0] != keys["miss"][0]


def test_announced_results_are_coloured_and_written(chromium, delivered, dom, outdir):
    spans = displayed(chromium, delivered.html, "#announcements .result", outdir / "results-shown.html")
    results = [(span["classes"].split()[1], span["background"], span["text"]) for span in spans]
    assert [(css, word) for css, _, word in results] == [
        (cls.split()[1], "".join(text)) for cls, text in dom.spans if cls.startswith("result ")]
    words = [word for _, _, word in results]
    # Alice's own announcements and Bob's, in order: each result is its word, in a colour of its own.
    assert {"hit", "miss", "explosion", "undamaged"} <= set(words)
    by_word = {}
    for _css, colour, word in results:
        by_word.setdefault(word, set()).add(colour)
    assert all(len(c) == 1 for c in by_word.values()), by_word
    assert len({next(iter(by_word[w])) for w in ("hit", "miss", "explosion")}) == 3
    happened = " ".join(dom.happened.split())
    assert "you strike Rz5: miss" in happened and "you strike Yx3: hit" in happened


def test_the_fill_in_block_is_the_text_sheets(dom, delivered):
    block = delivered.text.split("(fill in and send; ';' lines are comments):\n", 1)[1].split("\n\n", 1)[0]
    assert dom.pres["fill-in"].strip("\n") == block
    assert "; <cell> ...       up to 7 conventional strikes" in block
    assert {"in-force", "fill-in"} <= dom.ids
    assert dom.headings.index("in-force") < dom.headings.index("next")


@pytest.fixture(scope="module")
def final_dom(chromium, delivered, outdir) -> SheetParser:
    page = outdir / "final-sheet.html"
    page.write_text(delivered.final_html, encoding="utf-8")
    chromium.screenshot(page, outdir / "final-sheet-desktop.png", *DESKTOP)
    return parse(chromium.dump_dom(page, *DESKTOP))


def test_the_final_sheet_opens_with_the_result(final_dom, delivered):
    assert final_dom.headings[0] == "outcome", final_dom.headings
    outcome = " ".join(final_dom.texts["outcome"].split())
    assert outcome.startswith("The game is over Player 2 resigned. Scores: you 20, Player 2 0. You win.")
    assert "next" not in final_dom.ids and "fill-in" not in final_dom.ids
    record = final_dom.pres["records"]
    assert record.startswith("game spaceships\nvariant 2.6.1\n") and record.endswith("; end of the record\n")
    assert record in delivered.final_text
