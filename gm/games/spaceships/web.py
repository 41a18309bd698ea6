"""A finished game of Spaceships for the public web archive (`gm.web`):
both spaces revealed after each turn, each turn's announcements, and the
game as a record for ``gm referee``.

Pure, and built from the finished game alone: the spaces are drawn with the
turn sheets' own marks (`gm.games.spaceships.grids`), and seats are named by
alias. Of a match (several games in one `Table`), the last game is shown:
the earlier games' states are not kept once the next game begins.
"""

from __future__ import annotations

from typing import Any

from ...kernel.protocol import Table
from .checking import Accepted
from .events import Announcement, Result, TurnReport
from .final import record_lines
from .geometry import COLOUR_NAMES, COLOURS, Cell
from .grids import LEGEND_OWN_ENTRIES, Mark, grid_rows, own_mark
from .knowledge import own_space
from .orders import format_orders
from .sheets import announced
from .state import GameState

MISS = Mark("o", "miss", "miss: no ship")


def _space(state: GameState, player: int, reports: list[TurnReport]) -> dict[Cell, Mark]:
    """``player``'s space as it stood: ships, destroyed cells and missiles
    (the owner's marks), and the cells the opponent struck and missed."""
    marks = {cell: own_mark(known) for cell, known in own_space(state.side(player)).items()}
    for report in reports:
        for a in report.announcements:
            if (a.by != player and a.kind in ("strike", "beam") and a.result is Result.MISS
                    and marks[a.cell].css == "empty"):
                marks[a.cell] = MISS
    return marks


def _announcement(a: Announcement, alias: dict[int, str]) -> list[dict[str, Any]]:
    """One announcement and the destructions reported with it, in words
    (the HTML turn sheet's items, with aliases for "you" and "they")."""
    before, result, after = announced(a, f"{alias[a.by]}:")
    items = [{"before": before, "result": result, "after": after, "detail": False}]
    for d in a.destroyed:
        items.append({"before": f"{alias[d.owner]}'s {d.ship.type.title} {d.ship.label} is destroyed: "
                                f"{' '.join(map(str, d.ship.cells))}", "result": "", "after": "", "detail": True})
        items.append({"before": f"flashcube data from {alias[3 - d.owner]}: {', '.join(map(str, d.flashcube))}.",
                      "result": "", "after": "", "detail": True})
    return items


def web_page(game: Table) -> dict[str, Any] | None:
    """The page's data: one entry a turn (0 is the position after both
    setups), each with both spaces, the orders that ran and what was
    announced; None when the game ended before it began."""
    play = game.play
    if play.game is None:
        return None
    alias = {seat.player: seat.alias for seat in game.seats}
    reports = play.game.reports
    turns = []
    for n, state in enumerate(play.game.states):
        done = reports[:n]
        spaces = {p: _space(state, p, done) for p in (1, 2)}
        report = reports[n - 1] if n else None
        turns.append({
            "n": n,
            "title": f"Turn {n}" if n else "The setups",
            "first": None if report is None else alias[report.initially_active],
            "colours": [{"name": COLOUR_NAMES[c], "spaces": [{"alias": alias[p], "rows": grid_rows(spaces[p], c)}
                                                              for p in (1, 2)]} for c in COLOURS],
            "orders": [] if report is None else [
                {"alias": alias[p], "orders": format_orders([o.order for o in report.checks[p - 1].outcomes
                                                             if isinstance(o, Accepted)])} for p in (1, 2)],
            "items": [] if report is None else [i for a in report.announcements for i in _announcement(a, alias)],
            "burn_outs": [] if report is None else [f"{alias[b.player]}'s {b.ship}" for b in report.burn_outs],
            "materiel": [{"alias": alias[p], "cells": state.side(p).remaining_materiel} for p in (1, 2)],
        })
    match = None
    if play.match is not None:
        match = {"games": len(play.match_scores), "scores": [
            {"alias": alias[p], "points": sum(s[p - 1] for s in play.match_scores)} for p in (1, 2)]}
    return {"turns": turns, "ruleset": play.ruleset.describe(), "match": match, "legend_own": LEGEND_OWN_ENTRIES}


def web_public(game: Table) -> dict[str, Any] | None:
    """What anyone may know of a game in progress: each completed turn's
    announcements, which both players heard [2.2.2]-[2.2.4], and who
    reported first. No space, no orders, no burnt-out beam (each told only
    to its owner). Of a match, the game being played."""
    play = game.play
    if play.game is None:
        return None
    alias = {seat.player: seat.alias for seat in game.seats}
    return {"turns": [{"title": f"Turn {report.turn} ({alias[report.initially_active]} reported first)",
                       "lines": [i["before"] + i["result"] + i["after"] for a in report.announcements
                                 for i in _announcement(a, alias)] or ["Nothing was announced."]}
                      for report in play.game.reports]}


def record_text(game: Table) -> str | None:
    """Both setups and every turn's orders that ran, as the final sheet's
    record (`gm.games.spaceships.final`) written for no seat in particular."""
    if game.play.game is None:
        return None
    return "\n".join(record_lines(game, 0)) + "\n"
