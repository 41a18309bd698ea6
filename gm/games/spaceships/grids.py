"""Drawing the two spaces as five 5x5 grids each, Red to Blue [11.3].

Each grid has the letters v-z down the side and the numbers 1-5 across
[11.4]. A cell is drawn as a short code, the same in the text and the HTML
sheet, with a CSS class for the HTML colours:

Your space                          The opponent's space, as you know it
  KC    a ship, undamaged             .     nothing known (unexplored)
  kc    a ship's destroyed cell       o     a miss (no ship)
  MD*   an unfired missile            -     scanned: empty
  MD'   a fired missile               S     scanned: a ship, undamaged
  .     empty                         x     scanned: a ship, destroyed
                                      X     a hit
                                      *     a missile explosion
                                      k     a kamikaze death
                                      KC kc a ship revealed (undamaged, destroyed)
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from .geometry import COLOUR_NAMES, COLOURS, LETTERS, Cell
from .knowledge import KnownCell, OwnCell

LEGEND_OWN_ENTRIES = ("KC ship", "kc destroyed", "MD* unfired missile", "MD' fired missile", ". empty")
LEGEND_OPPONENT_ENTRIES = (". unexplored", "o miss", "- scanned empty", "S scanned ship", "x scanned destroyed",
                           "X hit", "* explosion", "k kamikaze", "KC/kc ship revealed")
LEGEND_OWN = "   ".join(LEGEND_OWN_ENTRIES)
LEGEND_OPPONENT = "   ".join(LEGEND_OPPONENT_ENTRIES)


def legend_opponent(edition: int) -> str:
    """The opponent's legend as a game of ``edition`` shows it (edition 1
    had no entry for unexplored cells)."""
    return LEGEND_OPPONENT if edition >= 2 else "   ".join(LEGEND_OPPONENT_ENTRIES[1:])


def legend_lines(title: str, entries: tuple[str, ...], width: int = 76) -> list[str]:
    """A legend in lines of at most ``width`` columns, broken only between
    entries, never inside one; further lines are indented by two."""
    lines: list[str] = []
    line, gap = title, " "
    for entry in entries:
        if len(line) + len(gap) + len(entry) > width:
            lines.append(line)
            line = "  " + entry
        else:
            line += gap + entry
        gap = "   "
    return [*lines, line]


class Mark(NamedTuple):
    """How one cell is drawn: its code and its CSS class. A tuple, so that
    hashing a grid of them (the key of `html_grid`'s cache, 250 marks a
    sheet) is the interpreter's own work: a frozen dataclass's ``__hash__``
    is a Python function called for every mark."""

    code: str
    css: str
    title: str


@functools.lru_cache(maxsize=1024)
def own_mark(cell: OwnCell) -> Mark:
    """How a cell of the player's own space is drawn (a cell is one of a few
    hundred values, each drawn alike whenever it comes)."""
    if cell.ship is None:
        return Mark(".", "empty", "empty")
    if cell.destroyed:
        return Mark(cell.ship.lower(), "destroyed", f"{cell.ship}, destroyed")
    if cell.missile == "unfired":
        return Mark(cell.ship + "*", "missile", f"{cell.ship}, unfired missile")
    if cell.missile == "fired":
        return Mark(cell.ship + "'", "fired", f"{cell.ship}, fired missile")
    return Mark(cell.ship, "ship", f"{cell.ship}, undamaged")


def known_mark(cell: KnownCell, edition: int = 2) -> Mark:
    """How a cell of the opponent's space is drawn, as the player knows it."""
    return _known_mark(cell.ship, bool(cell.destroyed), bool(cell.strikes), cell.scan, cell.empty, cell.kamikaze,
                       cell.exploded, edition >= 2)


@functools.lru_cache(maxsize=1024)
def _known_mark(ship: str | None, destroyed: bool, struck: bool, scan: str | None, empty: bool, kamikaze: bool,
                exploded: bool, named_unexplored: bool) -> Mark:
    """`known_mark` of what it reads of a cell: made once for every cell
    drawn alike (most are unexplored)."""
    if ship is not None:
        if destroyed:
            return Mark(ship.lower(), "revealed-destroyed", f"{ship}, destroyed")
        return Mark(ship, "revealed", f"{ship}, undamaged when last reported")
    if kamikaze:
        return Mark("k", "kamikaze", "kamikaze launched from here")
    if exploded:
        return Mark("*", "explosion", "missile explosion")
    if destroyed and struck:
        return Mark("X", "hit", "hit")
    if destroyed:
        return Mark("X" if scan != "destroyed" else "x", "hit" if scan != "destroyed" else "scan-destroyed",
                    "destroyed")
    if scan == "undamaged":
        return Mark("S", "scan-ship", "scanned: a ship, undamaged")
    if scan == "empty":
        return Mark("-", "scan-empty", "scanned: empty")
    if empty:
        return Mark("o", "miss", "miss: no ship")
    return Mark(".", "unknown", "unexplored: nothing known" if named_unexplored else "nothing known")


_GRID_CELLS = {colour: tuple(tuple(Cell(colour, letter, number) for number in range(1, 6)) for letter in LETTERS)
               for colour in COLOURS}
"""Each colour's cells, row by row: what `grid_rows` looks up."""


def grid_rows(marks: dict[Cell, Mark], colour: str) -> tuple[tuple[Mark, ...], ...]:
    """One colour's grid: rows v-z, columns 1-5. Tuples, which a notice's
    deadline (`gm.kernel.shown.resolve`) is never looked for in."""
    return tuple([tuple([marks[cell] for cell in row]) for row in _GRID_CELLS[colour]])


class Html(str):
    """Markup that a sheet's HTML template shows as it is (Jinja's
    ``__html__``), made here where Jinja would make it cell by cell."""

    def __html__(self) -> str:
        return self


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&#34;"})
"""What Jinja's autoescape (markupsafe) writes for each character it escapes."""


def html_text(text: str) -> Html:
    """``text`` as ``{{ text }}`` writes it under autoescape, made once
    here: for a run of what the game writes (ship codes, cells, counts),
    which the sheet would otherwise escape piece by piece."""
    return Html(text.translate(_ESCAPES))


@functools.lru_cache(maxsize=1024)
def html_grid(colour: str, rows: tuple[tuple[Mark, ...], ...], which: str, blank: str) -> Html:
    """One colour's grid of one space (``which``: ``own`` or ``known``) as
    the HTML sheet of `gm.games.spaceships.mail.LIGHTER_SHEET_EDITION` on
    draws it: a table with a caption and a head row, then a row for each
    letter, each cell of the ``blank`` class drawn empty (its table's rows
    are painted in that colour), every other one as its code in a cell of
    its class. Drawn here, once for every grid and row drawn alike, rather
    than by the template: its loop over 250 cells, each with a test and two
    escapes, was most of the time of rendering a sheet."""
    head = (f'<table class="grid {which.translate(_ESCAPES)}"><caption>{colour.translate(_ESCAPES)} &middot; '
            f'{"yours" if which == "own" else "theirs"}</caption>'
            "<tr><th></th><th>1</th><th>2</th><th>3</th><th>4</th><th>5</th></tr>\n")
    body = "\n".join(f"<tr><th>{letter}</th>{_html_cells(row, blank)}</tr>" for letter, row in zip(LETTERS, rows))
    return Html(head + body + "</table>")


@functools.lru_cache(maxsize=4096)
def _html_cells(row: tuple[Mark, ...], blank: str) -> str:
    return "".join("<td></td>" if mark.css == blank else
                   f'<td class="{mark.css.translate(_ESCAPES)}">{mark.code.translate(_ESCAPES)}</td>' for mark in row)


class _Padded(dict):
    """A cell's code as the text grids show it, in a column of four (a few
    dozen codes: each padded once)."""

    def __missing__(self, code: str) -> str:
        self[code] = padded = f"{code:<{_CELL_WIDTH}}"
        return padded


_CELL_WIDTH = 4
"""Columns of a cell in the text grids."""

_PADDED = _Padded()


def text_grids(left: dict[Cell, Mark], right: dict[Cell, Mark], left_title: str, right_title: str,
               edition: int = 2) -> list[str]:
    """Both spaces side by side, one colour under the other, in 78 columns
    (edition 1 set the opponent's column numbers one column left)."""
    lines = [text_titles(left_title, right_title)]
    for colour in COLOURS:
        lines += text_colour(colour, grid_rows(left, colour), grid_rows(right, colour), edition)
    return lines


def text_titles(left_title: str, right_title: str) -> str:
    """The first line of `text_grids`: each space's title over its grids."""
    return f"{'':11}{left_title:<{5 * _CELL_WIDTH + 6}}{right_title}"


_NUMBERS = "".join(f"{n:<{_CELL_WIDTH}}" for n in range(1, 6))


def text_colour(colour: str, left_rows: tuple[tuple[Mark, ...], ...], right_rows: tuple[tuple[Mark, ...], ...],
                edition: int = 2) -> list[str]:
    """One colour's lines of `text_grids`: its name over the column
    numbers, then a line for each letter, both spaces' rows side by side."""
    width = _CELL_WIDTH
    shift = 6 if edition >= 2 else 5
    name = COLOUR_NAMES[colour]
    lines = [f"{name + ' (' + colour + ')':<11}{_NUMBERS:<{5 * width + shift}}{_NUMBERS}".rstrip()]
    for letter, left_row, right_row in zip(LETTERS, left_rows, right_rows):
        cells_left = "".join([_PADDED[m.code] for m in left_row])
        cells_right = "".join([_PADDED[m.code] for m in right_row])
        lines.append(f"    {letter}      {cells_left:<{5 * width + 3}}{letter}  {cells_right}".rstrip())
    return lines
