"""Refereeing a whole Grid Fighters record: the engine behind ``gm referee``.

A record reads::

    game gridfighters            ; optional
    variant standard             ; optional: standard, options such as +homes=3
    setup 1
    H A5, A1 B1, ...             ; setup lines, as players write them
    setup 2
    ...
    first 1                      ; optional: who moves first (default 1)
    1: Z2 E2-A2                  ; the tag is the player, not the move number
    2: Y1 G6-D3

Both setups are checked, then every move line is played in order. A move the
rules forbid is rejected with its reason and does not spend the turn: the
record goes on, and the same player's next line is their retry. Lines after
the game ended are reported as late. Exit status: `EXIT_LEGAL` when
everything was legal, `EXIT_REJECTED` when a setup was illegal or anything
was rejected or late; a record that cannot be read raises `NotationError`
or `RecordError` (`EXIT_UNREADABLE`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .events import MoveReport, Result
from .game import Grid, IllegalMove
from .notation import Record, RecordMove, parse_record
from .setup import SetupError, SetupProblem
from .variants import Variant, variant_named

EXIT_LEGAL = 0
EXIT_REJECTED = 1
EXIT_UNREADABLE = 2


class RecordError(ValueError):
    """A record that can be parsed but not refereed (exit status 2)."""


@dataclass(frozen=True)
class Entry:
    """One move line of the record: its report if it was played, or the
    reason it was rejected. ``n`` is the move's number (for a rejected line,
    the number the move would have had)."""

    line: RecordMove
    n: int
    report: MoveReport | None = None
    rejected: str | None = None


@dataclass
class Outcome:
    """What refereeing a record found."""

    variant: Variant
    first: int
    grid: Grid | None
    """The final state; None when a setup was illegal."""
    entries: list[Entry] = field(default_factory=list)
    setup_problems: list[SetupProblem] = field(default_factory=list)
    late: list[Entry] = field(default_factory=list)
    unplayed: int = 0
    """Move lines not played because a setup was illegal."""

    @property
    def result(self) -> Result | None:
        return self.grid.result if self.grid else None

    @property
    def legal(self) -> bool:
        return not self.setup_problems and not self.late and not any(e.rejected for e in self.entries)

    @property
    def exit_status(self) -> int:
        return EXIT_LEGAL if self.legal else EXIT_REJECTED

    def json(self) -> dict[str, Any]:
        """The outcome as one JSON-ready document."""
        return {
            "game": "gridfighters",
            "variant": self.variant.spec,
            "first": self.first,
            "legal": self.legal,
            "setup_problems": [{"player": p.player, "line": p.line, "reason": p.reason} for p in self.setup_problems],
            "moves": [_entry_json(e) for e in self.entries],
            "late_moves": [{"line": e.line.line, "by": e.line.player, "move": str(e.line.move), "reason": e.rejected}
                           for e in self.late],
            "result": _result_json(self.result),
        }

    def json_text(self) -> str:
        """`json` as ``gm referee --json`` prints it."""
        return json.dumps(self.json(), indent=2) + "\n"

    def text(self) -> str:
        """A readable account of the game."""
        lines = [self.variant.describe()]
        for problem in self.setup_problems:
            where = f"line {problem.line}: " if problem.line is not None else ""
            lines.append(f"setup {problem.player}: {where}{problem.reason}")
        if self.grid is None:
            lines += ["", f"The game could not start; {self.unplayed} move line{'s' * (self.unplayed != 1)} "
                          "of the record not played."]
            return "\n".join(lines) + "\n"
        lines.append(f"Player {self.first} moves first.")
        lines.append("")
        for entry in self.entries:
            lines += _entry_lines(entry)
        for entry in self.late:
            lines.append(f"Line {entry.line.line}: late: player {entry.line.player} {entry.line.move}: "
                         f"{entry.rejected}")
        lines.append("")
        result = self.result
        if result is None:
            lines.append(f"The game has not ended; player {self.grid.to_move} is to move.")
        else:
            verdict = "a draw" if result.winner is None else f"player {result.winner} wins"
            lines.append(f"Game over after move {result.ended_after_move}: {verdict} ({result.code}): {result.reason}")
        return "\n".join(lines) + "\n"


def referee_text(text: str) -> Outcome:
    """Referee a record given as text; raises `NotationError` or `RecordError`
    when it cannot be read."""
    return referee(parse_record(text))


def referee(record: Record) -> Outcome:
    """Referee a parsed record."""
    try:
        variant = variant_named(record.variant)
    except ValueError as error:
        raise RecordError(f"variant: {error}") from None
    try:
        grid = Grid.start(record.setups[0], record.setups[1], record.first, variant)
    except SetupError as error:
        return Outcome(variant, record.first, None, setup_problems=list(error.problems), unplayed=len(record.moves))
    outcome = Outcome(variant, record.first, grid)
    for line in record.moves:
        n = grid.moves + 1
        if grid.result is not None:
            outcome.late.append(Entry(line, n, rejected=f"the game ended after move {grid.result.ended_after_move}"))
            continue
        try:
            grid, report = grid.push(line.player, line.move)
        except IllegalMove as error:
            outcome.entries.append(Entry(line, n, rejected=error.reason))
            continue
        outcome.entries.append(Entry(line, n, report))
    outcome.grid = grid
    return outcome


def _result_json(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"ended_after_move": result.ended_after_move, "winner": result.winner, "reason": result.reason,
            "code": result.code}


def _entry_json(entry: Entry) -> dict[str, Any]:
    move, report = entry.line.move, entry.report
    data: dict[str, Any] = {
        "n": entry.n, "by": entry.line.player, "line": entry.line.line, "piece": move.piece,
        "from": str(move.frm), "to": str(move.to), "spent": False, "rejected": entry.rejected,
        "collisions": [], "destroyed": [], "revealed": [], "passes": [], "rammed": False,
    }
    if report is not None:
        data.update({
            "to": None if report.to is None else str(report.to),
            "spent": report.spent,
            "collisions": [{"square": str(c.square), "pieces": list(c.pieces), "destroyed": list(c.destroyed)}
                           for c in report.collisions],
            "destroyed": list(report.destroyed),
            "revealed": [{"square": str(r.square), "piece": r.piece, "to": r.to} for r in report.revealed],
            "passes": list(report.passes),
            "rammed": report.rammed,
        })
    return data


def _entry_lines(entry: Entry) -> list[str]:
    move, report = entry.line.move, entry.report
    if report is None:
        return [f"Line {entry.line.line}: rejected: player {entry.line.player} {move}: {entry.rejected}"]
    head = f"Move {report.n}: player {report.by} {report.piece} departs {report.frm}"
    if report.spent:
        head += f": spent, {report.piece} was destroyed on its previous path"
    elif report.rammed:
        head += f" and rams its own asteroid on {report.to}"
    else:
        head += f" (secretly for {report.to})"
    lines = [head]
    for c in report.collisions:
        if c.pieces[0].split(":")[0] == c.pieces[1].split(":")[0]:
            what = f"{c.pieces[1]} rams {c.pieces[0]}"
        else:
            what = f"{c.pieces[1]} meets {c.pieces[0]}"
        lines.append(f"  {c.square}: {what}; destroyed: {', '.join(c.destroyed) or 'none'}")
    for r in report.revealed:
        lines.append(f"  revealed to player {r.to}: {r.piece} on {r.square}")
    for p in report.passes:
        lines.append(f"  player {p} has no legal move and passes")
    return lines
