"""Refereeing a whole game record [1.4.1]: the engine behind ``gm referee``.

A record is read (`gm.notation.parse_record`), both setups are checked, and
every turn is played; the outcome keeps what ran and everything rejected, and
prints as text or as one JSON document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...kernel.errors import RecordError
from ...kernel.records import EXIT_LEGAL, EXIT_REJECTED, EXIT_UNREADABLE
from .events import Announcement, Destruction, TurnReport
from .fleet import SetupError, build_fleet
from .game import Game
from .notation import Record, parse_record
from .orders import format_orders
from .ruleset import Ruleset, ruleset_named
from .state import GameResult

__all__ = ["EXIT_LEGAL", "EXIT_REJECTED", "EXIT_UNREADABLE", "RecordError", "RefereeOutcome", "referee",
           "referee_text", "render_json", "render_text"]


@dataclass
class RefereeOutcome:
    """What refereeing a record found."""

    ruleset: Ruleset
    game: Game | None
    setup_problems: list[dict] = field(default_factory=list)
    late_turns: list[dict] = field(default_factory=list)
    """Orders given for turns after the game ended [2.3]."""
    variant: str = "2.6.1"
    """The variant as the record named it, options included."""
    unplayed: int = 0
    """Turns in the record that could not be played because a setup was illegal."""

    @property
    def reports(self) -> list[TurnReport]:
        return self.game.reports if self.game else []

    @property
    def legal(self) -> bool:
        return not self.setup_problems and not self.late_turns and not any(
            check.rejected for report in self.reports for check in report.checks
        )

    @property
    def exit_status(self) -> int:
        return EXIT_LEGAL if self.legal else EXIT_REJECTED

    def text(self) -> str:
        return render_text(self)

    def json(self) -> str:
        return render_json(self)


def referee_text(text: str) -> RefereeOutcome:
    """Referee a record given as text; raises `RecordError` or `NotationError`
    when it cannot be read."""
    record = parse_record(text)
    return referee(record)


def referee(record: Record) -> RefereeOutcome:
    try:
        ruleset = ruleset_named(record.variant)
    except ValueError as error:
        raise RecordError(f"variant: {error}") from None
    expected = 1
    for turn in record.turns:
        if turn.number != expected:
            raise RecordError(f"line {turn.line}: turn {turn.number} where turn {expected} was expected")
        expected += 1
    fleets = []
    problems = []
    for player, placements in ((1, record.setups[0]), (2, record.setups[1])):
        try:
            fleets.append(build_fleet(placements, ruleset))
        except SetupError as error:
            for problem in error.problems:
                line = None if problem.line is None else placements[problem.line].line
                problems.append({"player": player, "line": line, "reason": problem.reason})
    if problems:
        return RefereeOutcome(ruleset, None, problems, variant=record.variant, unplayed=len(record.turns))
    game = Game(fleets[0], fleets[1], ruleset)
    outcome = RefereeOutcome(ruleset, game, variant=record.variant)
    for turn in record.turns:
        if game.result is not None:
            for player, orders in ((1, turn.orders[0]), (2, turn.orders[1])):
                if orders:
                    outcome.late_turns.append({
                        "turn": turn.number, "by": player, "orders": format_orders(orders),
                        "reason": f"the game ended after turn {game.result.ended_after_turn} [2.3]",
                    })
            continue
        game.push(*turn.orders)
    return outcome


# JSON

def _ship_json(destruction: Destruction) -> dict:
    ship = destruction.ship
    return {
        "owner": destruction.owner,
        "type": ship.type.code,
        "identity": ship.identity or 1,
        "ship": ship.label,
        "cells": [str(c) for c in ship.cells],
        "flashcube": [
            {"cell": str(f.cell), "ship": f.ship, "destroyed": f.destroyed if f.ship else None}
            for f in destruction.flashcube
        ],
    }


def _announcement_json(a: Announcement) -> dict:
    data = {
        "by": a.by,
        "kind": a.kind,
        "cell": str(a.cell),
        "result": None if a.result is None else a.result.value,
        "explosions": [str(c) for c in a.explosions],
    }
    if a.beam:
        data["beam"] = f"b{a.beam[0]}{a.beam[1]}"
    return data


def turn_json(report: TurnReport) -> dict:
    return {
        "turn": report.turn,
        "initially_active": report.initially_active,
        "announcements": [_announcement_json(a) for a in report.announcements],
        "destroyed": [_ship_json(d) for d in report.destructions],
        "rejected": [
            {"by": player, "order": str(r.order), "reason": r.reason}
            for player, check in ((1, report.checks[0]), (2, report.checks[1]))
            for r in check.rejected
        ],
        "burn_outs": [{"by": b.player, "ship": b.ship} for b in report.burn_outs],
    }


def outcome_json(outcome: RefereeOutcome) -> dict:
    result = outcome.game.result if outcome.game else None
    return {
        "variant": outcome.variant,
        "ruleset": outcome.ruleset.describe(),
        "legal": outcome.legal,
        "setup_problems": outcome.setup_problems,
        "turns": [turn_json(r) for r in outcome.reports],
        "late_orders": outcome.late_turns,
        "result": None if result is None else {
            "ended_after_turn": result.ended_after_turn,
            "reason": result.reason,
            "scores": {"1": result.scores[0], "2": result.scores[1]},
            "tiebreak": None if result.tiebreak is None else {"1": result.tiebreak[0], "2": result.tiebreak[1]},
            "winner": result.winner,
        },
    }


def render_json(outcome: RefereeOutcome) -> str:
    return json.dumps(outcome_json(outcome), indent=2) + "\n"


# Text

def render_text(outcome: RefereeOutcome) -> str:
    lines = [outcome.ruleset.describe()]
    for problem in outcome.setup_problems:
        where = f"line {problem['line']}: " if problem["line"] else ""
        lines.append(f"setup {problem['player']}: {where}{problem['reason']}")
    for report in outcome.reports:
        lines.append("")
        lines.append(f"Turn {report.turn} (player {report.initially_active} reports first)")
        lines.extend(_announcement_lines(report))
        for b in report.burn_outs:
            lines.append(f"  player {b.player}'s {b.ship} beam weapon burns out [8.2.4]")
        for player, check in ((1, report.checks[0]), (2, report.checks[1])):
            for r in check.rejected:
                lines.append(f"  rejected: player {player} {r.order}: {r.reason}")
    for late in outcome.late_turns:
        lines.append(f"rejected: turn {late['turn']} player {late['by']} {late['orders']}: {late['reason']}")
    result = outcome.game.result if outcome.game else None
    lines.append("")
    if result is None:
        if outcome.game:
            lines.append("The game has not ended.")
        else:
            lines.append(f"The game could not start; {outcome.unplayed} turn{'s' * (outcome.unplayed != 1)} of the "
                         "record not played.")
    else:
        lines.append(_verdict(result))
    return "\n".join(lines) + "\n"


def _verdict(result: GameResult) -> str:
    """The last line of the text: the winner named first, with their score
    (and tiebreak) first, each sentence capitalised."""
    first = 2 if result.winner == 2 else 1
    ours, theirs = result.scores if first == 1 else result.scores[::-1]
    verdict = "A draw" if result.winner is None else f"Player {result.winner} wins"
    tiebreak = ""
    if result.tiebreak is not None:
        hits = result.tiebreak if first == 1 else result.tiebreak[::-1]
        tiebreak = f" (level on score; hypothetical hits in the last turn {hits[0]} to {hits[1]} [explanation 6.1])"
    return (f"Game over after turn {result.ended_after_turn}. {verdict}, {ours} to {theirs}{tiebreak}. "
            f"{result.reason[:1].upper()}{result.reason[1:]}.")


def _announcement_lines(report: TurnReport) -> list[str]:
    lines = []
    beam_group: list[Announcement] = []

    def flush() -> None:
        if beam_group:
            first = beam_group[0]
            results = ", ".join(f"{a.cell} {a.result}" for a in beam_group)
            lines.append(f"  {first.by}> beam b{first.beam[0]}{first.beam[1]}: {results}")  # type: ignore[index]
            for a in beam_group:
                lines.extend(_detail_lines(a))
            beam_group.clear()

    for a in report.announcements:
        if a.kind == "beam":
            if beam_group and beam_group[0].beam != a.beam:
                flush()
            beam_group.append(a)
            continue
        flush()
        if a.kind == "kamikaze":
            lines.append(f"  {a.by}> kamikaze death {a.cell}")
        else:
            lines.append(f"  {a.by}> {a.kind} {a.cell}: {a.result}")
        lines.extend(_detail_lines(a))
    flush()
    return lines


def _detail_lines(a: Announcement) -> list[str]:
    lines = []
    if a.explosions:
        lines.append(f"       missile explosions: {' '.join(map(str, a.explosions))}")
    for d in a.destroyed:
        lines.append(f"       player {d.owner}'s {d.ship.type.title} {d.ship.label} destroyed: "
                     f"{' '.join(map(str, d.ship.cells))}")
        lines.append(f"       flashcube from player {3 - d.owner}: {', '.join(map(str, d.flashcube))}")
    return lines
