"""Both players' records at the end of a game [1.4.1], written as a record
`gm referee` reads (docs/record-format.md), so that a player can cut it out
of the final sheet and check the game.

Only the orders that ran are written as orders; each rejected one follows
its player's line as a `;` comment with the rule it broke, so the record
still parses and referees to the same result. Every line keeps to 76
columns: a long orders line goes on, indented, on the next (the record
format allows it).
"""

from __future__ import annotations

from ...kernel.protocol import Table
from ...kernel.text import wrap
from .checking import Accepted, Rejected

END = "; end of the record"
"""The record's last line, so that a player knows where to cut."""


def _who(game: Table, player: int, seat: int) -> str:
    return "you" if seat == player else game.seat(seat).alias


def _tagged(comment: str, line: str, column: int = 24) -> str:
    return f"{line:<{column - 1}} ; {comment}"


def record_lines(game: Table, player: int) -> list[str]:
    """The game's record as ``player`` receives it, line by line."""
    play = game.play
    assert play.game is not None
    seats = ", ".join(f"{s} is {'you (' + game.seat(s).alias + ')' if s == player else game.seat(s).alias}"
                      for s in (1, 2))
    lines = ["game spaceships", f"variant {game.variant}", f"; Game {game.id}: {seats}."]
    extra = play.additional_costs
    if any(extra):
        lines += wrap(f"Each fleet could add ships costing {extra[0]} (1) and {extra[1]} (2) in this game of a "
                      "continued match [10.3], which gm referee does not allow for.", "; ", "; ")
    for seat in (1, 2):
        owner = "yours" if seat == player else f"{game.seat(seat).alias}'s"
        lines += ["", _tagged(owner, f"setup {seat}")]
        lines += [str(p) for p in play.setups[seat]]
    for report in play.game.reports:
        lines += ["", _tagged(f"{_who(game, player, report.initially_active)} reported first", f"turn {report.turn}")]
        for seat in (1, 2):
            check = report.checks[seat - 1]
            ran = " ".join(str(o.order) for o in check.outcomes if isinstance(o, Accepted))
            lines += wrap(ran, f"{seat}: ", "   ") if ran else [f"{seat}:"]
            for o in check.outcomes:
                if isinstance(o, Rejected):
                    lines += wrap(f"rejected: {o.order}: {o.reason}", "; ", ";   ")
    outcome = game.outcome
    if outcome is not None:
        result = f"Result: {outcome.reason}"
        if outcome.scores is not None:
            result += f"; scores 1: {outcome.scores[0]}, 2: {outcome.scores[1]}"
        lines += ["", *wrap(result + ".", "; ", "; ")]
    return [*lines, END]
