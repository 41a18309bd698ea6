"""A finished game of Grid Fighters for the public web archive (`gm.web`):
the board with both sides revealed after each move, what each move did, and
the game as a record for ``gm referee`` (ruling 18).

Pure: the game is played again from both setups and the moves in its log
(`Play.log`), with the rules core (`Grid`), so that every position is the
truth and not what one side knew. Seats are named by alias.
"""

from __future__ import annotations

import itertools
from typing import Any

from ...kernel.protocol import Table
from .board import Square
from .events import MoveReport
from .game import Grid
from .notation import Move
from .sheets import ROWS, SIDES, happened, name, side_class


def _replayed(game: Table) -> list[tuple[Grid, Any]] | None:
    """Each position from the start, with the log entry that led to it (None
    for the first); None when the game never began."""
    play = game.play
    if play.grid is None or 1 not in play.setups or 2 not in play.setups:
        return None
    grid = Grid.start(play.setups[1], play.setups[2], 1, play.variant)
    positions: list[tuple[Grid, Any]] = [(grid, None)]
    for entry in play.log:
        if isinstance(entry, MoveReport):
            grid, _ = grid.push(entry.by, _move_of(grid, entry))
        else:
            grid, _ = grid.missed()
        positions.append((grid, entry))
    return positions


def _move_of(grid: Grid, report: MoveReport) -> Move:
    """The move a report was made by. A spent move's destination is not
    kept (the piece never went there [procedure 4]): any legal destination
    of the piece from its square plays the same."""
    if report.to is not None:
        return Move(report.piece, report.frm, report.to)
    return next(m for m in grid.legal_moves(report.by) if m.piece == report.piece and m.frm == report.frm)


def _board(grid: Grid) -> list[dict[str, Any]]:
    """The board row by row, J at the top and A at the bottom as player 1
    sees it: on each square the pieces of either side that stand there."""
    rows = []
    for row in range(9, -1, -1):
        cells = []
        for column in range(10):
            square = Square(row, column)
            sides = [[n for n, p in grid.pieces[s].items() if p.destroyed is None and p.at == square] for s in (0, 1)]
            text = " ".join(f"{pieces[0]}{'+' if len(pieces) > 1 else ''}" for pieces in sides if pieces)
            css = "both" if sides[0] and sides[1] else side_class(1) if sides[0] else side_class(2) if sides[1] else ""
            cells.append({"text": text, "css": css, "title": ", ".join(
                f"{SIDES[s + 1]} {n}" for s in (0, 1) for n in sides[s])})
        rows.append({"letter": ROWS[row], "cells": cells})
    return rows


def web_page(game: Table) -> dict[str, Any] | None:
    """The page's data: one entry a position (0 is the setups), each with
    the board, both sides revealed, and what the move did."""
    positions = _replayed(game)
    if positions is None:
        return None
    alias = {seat.player: seat.alias for seat in game.seats}
    turns = []
    for n, (grid, entry) in enumerate(positions):
        lines: list[str] = []
        if isinstance(entry, MoveReport):
            lines = happened(entry, entry.by)["lines"]
            lines += [f"{name(r.piece)} is revealed on {r.square} to {SIDES[r.to]}." for r in entry.revealed
                      if r.to != entry.by]
            title = f"Move {entry.n}: {alias[entry.by]} ({SIDES[entry.by]})"
        elif entry is not None:
            lines = [f"{SIDES[entry.late]} ({alias[entry.late]}) sent no move by the deadline: the move passes "
                     "(ruling 19)."]
            title = f"After move {entry.after_move}: a deadline passed"
        else:
            title = "The setups"
        turns.append({"n": n, "title": title, "lines": lines, "board": _board(grid),
                      "destroyed": [{"side": f"{SIDES[p]} ({alias[p]})", "pieces": list(grid.destroyed(p))}
                                    for p in (1, 2)]})
    sides = [{"alias": alias[p], "side": SIDES[p], "rows": "A to E" if p == 1 else "F to J"} for p in (1, 2)]
    return {"turns": turns, "ruleset": game.play.variant.describe(), "sides": sides}


def web_public(game: Table) -> dict[str, Any] | None:
    """What anyone may know of a game in progress: each move as both
    players were told it (`MoveReport.public`: the piece and its departure,
    collisions, what was destroyed, passes), never a destination or what
    was revealed to one side, and no board."""
    play = game.play
    if play.grid is None:
        return None
    alias = {seat.player: seat.alias for seat in game.seats}
    turns = []
    for entry in play.log:
        if isinstance(entry, MoveReport):
            turns.append({"title": f"Move {entry.n}: {alias[entry.by]} ({SIDES[entry.by]})",
                          "lines": happened(entry.public(), 0)["lines"]})
        else:
            turns.append({"title": f"After move {entry.after_move}: a deadline passed",
                          "lines": [f"{SIDES[entry.late]} sent no move by the deadline: the move passes (ruling 19)."]})
    return {"turns": turns}


def record_text(game: Table) -> str | None:
    """The record (docs/record-format.md, ruling 18): the variant, both
    setups, who moved first, and every move made. None for a game in which a
    deadline passed a move over (ruling 19): a record has no line for it."""
    positions = _replayed(game)
    if positions is None or any(entry is not None and not isinstance(entry, MoveReport) for _, entry in positions):
        return None
    play = game.play
    alias = {seat.player: seat.alias for seat in game.seats}
    lines = ["game gridfighters", f"variant {game.variant}",
             f"; Game {game.id}: 1 is {alias[1]} ({SIDES[1]}), 2 is {alias[2]} ({SIDES[2]})."]
    for p in (1, 2):
        placements = [f"{x.piece} {x.square}" for x in play.setups[p]]
        lines += ["", f"setup {p}"] + [", ".join(placements[k:k + 6]) for k in range(0, len(placements), 6)]
    lines += ["", "first 1"]
    for (before, _), (_, entry) in itertools.pairwise(positions):
        move = _move_of(before, entry)
        lines.append(f"{entry.by}: {move.piece} {move.frm}-{move.to}"
                     + ("  ; spent [procedure 4]" if entry.spent else ""))
    if game.outcome is not None:
        lines += ["", f"; Result: {game.outcome.reason}."]
    return "\n".join(lines) + "\n; end of the record\n"

