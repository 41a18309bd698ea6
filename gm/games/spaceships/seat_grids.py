"""A seat's two spaces as its sheets draw them, kept from turn to turn
(and what the seat may do next, shown by a sheet and each reply to orders).

A sheet draws 250 cells, and a turn changes a few of them. So each seat of a
game in memory keeps what it last drew (`SeatGrids`): the opponent's cells
as the seat was told of them, one turn's view folded in at a time
(`knowledge.told_since`); its own cells, drawn again only when its side's
damage or fired missiles changed; and each colour's text lines and HTML
grids, made again only when a row of that colour changed.

It is derived from the game alone and never saved: kept beside the `Game`
(weakly, so it goes with it), a game loaded from its snapshot or replayed
makes it afresh and draws the same sheets. Pure like the rest of the sheet's
data: no I/O, clock or randomness.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from .fleet import Fleet
from .game import Game
from .geometry import ALL_CELLS, COLOUR_NAMES, COLOURS, Cell
from .grids import Html, Mark, grid_rows, html_grid, known_mark, own_mark, text_colour, text_titles
from .knowledge import KnownCell, Told, own_space, told_since
from .state import GameState

Rows = tuple[tuple[Mark, ...], ...]


@dataclass(frozen=True)
class _Colour:
    """One colour's grids of both spaces, as drawn."""

    own: Rows
    known: Rows
    lines: tuple[str, ...]
    own_grid: Html
    known_grid: Html


class SeatGrids:
    """What one seat's sheets draw of both spaces, as of the turns folded in."""

    def __init__(self, player: int, edition: int) -> None:
        self.player = player
        self.edition = edition
        self.told = Told()
        self.folded = 0
        """How many of the game's turn reports ``told`` holds."""
        unknown = known_mark(KnownCell(), edition)
        self.known: dict[Cell, Mark] = dict.fromkeys(ALL_CELLS, unknown)
        self.own: dict[Cell, Mark] = {}
        self.side: tuple[Fleet | None, int, int] = (None, 0, 0)
        """The side ``own`` was drawn from: its fleet, destroyed cells and fired missiles."""
        self.colours: dict[str, _Colour] = {}
        """Each colour as last drawn."""
        self.current: dict[str, _Colour] = {}
        """The colours drawn since the last change: each as it stands."""
        self.next_turn: tuple[GameState, dict[str, Any]] | None = None
        """What the player may do in the coming turn (`sheets.next_turn`),
        and the state it was worked out from: each order mail's reply shows
        it, and the sheet of the turn before showed it too."""

    def update(self, game: Game) -> None:
        """Draw what changed since the last sheet: the turns run since, and
        the seat's own side as it stands."""
        reports = game.reports
        if self.folded < len(reports):
            views = [report.view(self.player) for report in reports[self.folded:]]
            for cell in told_since(self.told, self.player, views):
                self.known[cell] = known_mark(self.told[cell], self.edition)
            self.folded = len(reports)
            self.current = {}
        side = game.state.side(self.player)
        fleet, destroyed, fired = self.side
        if fleet is not side.fleet or destroyed != side.destroyed or fired != side.fired:
            drawn: dict[int, Mark] = {}  # by identity: a cell drawn alike is one value, hashed once
            own = {}
            for cell, value in own_space(side).items():
                mark = drawn.get(id(value))
                own[cell] = drawn[id(value)] = own_mark(value) if mark is None else mark
            self.own = own
            self.side = (side.fleet, side.destroyed, side.fired)
            self.current = {}

    def colour(self, colour: str) -> _Colour:
        """One colour's grids, drawn again only when one of its rows changed."""
        kept = self.current.get(colour)
        if kept is not None:
            return kept
        own, known = grid_rows(self.own, colour), grid_rows(self.known, colour)
        kept = self.colours.get(colour)
        if kept is not None and kept.own == own and kept.known == known:
            self.current[colour] = kept
            return kept
        name = COLOUR_NAMES[colour]
        self.colours[colour] = kept = _Colour(own, known, tuple(text_colour(colour, own, known, self.edition)),
                                              html_grid(name, own, "own", "empty"),
                                              html_grid(name, known, "known", "unknown"))
        self.current[colour] = kept
        return kept

    def text_lines(self, left_title: str, right_title: str) -> list[str]:
        """Both spaces side by side, as `grids.text_grids` draws them."""
        lines = [text_titles(left_title, right_title)]
        for colour in COLOURS:
            lines += self.colour(colour).lines
        return lines

    def colour_tables(self) -> list[dict[str, Any]]:
        """The grids as data for the HTML sheet: a colour's rows of marks
        and its drawn grids, for each colour."""
        tables = []
        for code in COLOURS:
            drawn = self.colour(code)
            tables.append({"code": code, "name": COLOUR_NAMES[code], "own": drawn.own, "known": drawn.known,
                           "own_grid": drawn.own_grid, "known_grid": drawn.known_grid})
        return tables

    def html_colours(self) -> Html:
        """Every colour's two grids as the HTML sheet of
        `gm.games.spaceships.mail.LIGHTER_SHEET_EDITION` on lays them out,
        each colour in its box: one value for the template to show, where
        it showed ten (one escape each)."""
        return Html("".join([f'<div class="colour">\n{drawn.own_grid}\n{drawn.known_grid}\n</div>\n'
                             for drawn in map(self.colour, COLOURS)]))


_KEPT: weakref.WeakKeyDictionary[Game, dict[tuple[int, int], SeatGrids]] = weakref.WeakKeyDictionary()


def seat_grids(game: Game, player: int, edition: int) -> SeatGrids:
    """What ``player``'s sheets in ``game`` keep: as of its last sheet,
    until `SeatGrids.update` draws in what changed since."""
    seats = _KEPT.get(game)
    if seats is None:
        _KEPT[game] = seats = {}
    grids = seats.get((player, edition))
    if grids is None:
        seats[player, edition] = grids = SeatGrids(player, edition)
    return grids
