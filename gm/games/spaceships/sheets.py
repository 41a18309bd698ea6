"""The data of a player's turn sheet: everything the templates show.

Pure: built from the game and the player's own views of past turns, so a
sheet holds only what the rules let that player know (tests/test_mail_secrecy.py
checks it byte for byte).
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from ...kernel import shown
from ...kernel.protocol import Table
from ...kernel.text import wrap
from ...kernel.values import ENDED, SHEETS_EDITION, Seat
from .checking import Accepted, OrderCheck, check_orders
from .events import Announcement, TurnReport
from .final import record_lines
from .geometry import STANDARD, Cell, cells_of
from .grids import (
    LEGEND_OPPONENT_ENTRIES,
    LEGEND_OWN,
    LEGEND_OWN_ENTRIES,
    html_text,
    legend_lines,
    legend_opponent,
)
from .orders import format_orders
from .seat_grids import seat_grids


def opponent(game: Table, player: int) -> Seat:
    """Spaceships has two seats: the other one."""
    return game.seat(3 - player)


def common(game: Table, player: int, at: datetime | None = None) -> dict[str, Any]:
    """What every message's header shows."""
    return {
        "game": game.id,
        "player": player,
        "alias": game.seat(player).alias,
        "opponent": opponent(game, player).alias,
        "ruleset": game.play.ruleset.describe(),
        "variant": game.variant,
        "turn": game.turn,
        "phase": game.phase,
        **shown.fields(game, at),
        "wait_for_deadline": game.options.wait_for_deadline,
        "match": match_standing(game, player),
        "early": game.play.ruleset.early,
    }


def match_standing(game: Table, player: int) -> dict[str, Any] | None:
    """The match so far, if this game is part of one [9], [10]."""
    if game.play.match is None:
        return None
    mine = sum(s[player - 1] for s in game.play.match_scores)
    theirs = sum(s[2 - player] for s in game.play.match_scores)
    terms = game.play.match
    length = f"{terms.games} games" if terms.games else f"first to {terms.target} points"
    return {
        "kind": terms.kind,
        "length": length,
        "game_number": len(game.play.match_scores) + (0 if game.phase == ENDED else 1),
        "you": mine,
        "opponent": theirs,
        "additional_cost": game.play.additional_costs[player - 1],
    }


def announcement_parts(a: Announcement, player: int) -> tuple[str, str, str]:
    """An announcement to ``player`` as the text before its result, the
    result (empty for a kamikaze death) and what follows it: the HTML sheet
    colours the result."""
    who = "you" if a.by == player else "they"
    return announced(a, f"{who:<5}")


def announced(a: Announcement, subject: str) -> tuple[str, str, str]:
    """`announcement_parts` with ``subject`` for who made it (the sheets'
    "you" or "they", the web archive's alias)."""
    if a.kind == "kamikaze":
        return f"{subject} kamikaze death {a.cell}", "", ""
    what = {"beam": "beam strike", "strike": "strike", "scan": "scan"}[a.kind]
    after = f"  (missile explosion: {' '.join(map(str, a.explosions))})" if a.explosions else ""
    return f"{subject} {what} {a.cell}: ", "" if a.result is None else str(a.result), after


def announcement_line(a: Announcement, player: int) -> str:
    return "".join(announcement_parts(a, player))


def happened(report: TurnReport, player: int) -> dict[str, Any]:
    """This turn's announcements and results, in the conventional ordering [11.7]."""
    view = report.view(player)
    lines = []
    items = []
    """The same as ``lines``, one entry per announcement or report, unwrapped (for HTML)."""
    destroyed = []
    for a in view.announcements:
        lines.append(announcement_line(a, player))
        before, result, after = announcement_parts(a, player)
        items.append({"text": before + result + after, "detail": False, "before": before, "result": result,
                      "after": after})
        for d in a.destroyed:
            owner = "Your" if d.owner == player else "Their"
            reporter = "them" if d.owner == player else "you"
            entry = {
                "text": f"{owner} {d.ship.type.title} {d.ship.label} is destroyed: {' '.join(map(str, d.ship.cells))}",
                "flashcube": f"flashcube data from {reporter}: {', '.join(map(str, d.flashcube))}",
            }
            destroyed.append(entry)
            lines += wrap(entry["text"], "      ", "        ")
            lines += wrap(entry["flashcube"] + ".", "      ", "        ")
            items += [{"text": entry["text"], "detail": True, "result": ""},
                      {"text": entry["flashcube"] + ".", "detail": True, "result": ""}]
    return {
        "turn": report.turn,
        "first": "you" if report.initially_active == player else "they",
        "lines": lines,
        "items": items,
        "destroyed": destroyed,
        "burn_outs": [b.ship for b in view.burn_outs],
    }


def command_history(check: OrderCheck) -> list[dict[str, Any]]:
    """Each order as written and as executed, or why not (Celestial Empire's COMMAND HISTORY)."""
    rows = []
    for outcome in check.outcomes:
        if isinstance(outcome, Accepted):
            rows.append({"written": str(outcome.order), "done": outcome.executed, "accepted": True, "why": ""})
        else:
            rows.append({"written": str(outcome.order), "done": "", "accepted": False, "why": outcome.reason})
    return rows


def next_turn(game: Table, player: int) -> dict[str, Any]:
    """What the player may do in the coming turn, ship by ship: worked out
    once for each state of the game (`SeatGrids.next_turn`); the sheet and
    the replies that show it only read it."""
    assert game.play.game is not None
    state = game.play.game.state
    kept = seat_grids(game.play.game, player, game.edition)
    if kept.next_turn is None or kept.next_turn[0] is not state:
        kept.next_turn = (state, _next_turn(game, player))
    return kept.next_turn[1]


def _next_turn(game: Table, player: int) -> dict[str, Any]:
    assert game.play.game is not None
    state = game.play.game.state
    e = state.entitlement(player)
    side = state.side(player)
    ships = side.fleet.ships
    unfired = cells_of(side.unfired_missiles)
    data = {
        "conventional": e.conventional,
        "by_ship": [{"ship": ships[i].label, "strikes": n} for i, n in enumerate(e.conventional_by_ship) if n],
        "missiles": [
            _choice(ships[i].label, [c for c in unfired if side.fleet.ship_at[c.index] == i])
            for i in e.missile_ships
        ],
        "kamikaze": [_choice(ships[i].label, cells_of(side.undamaged(ships[i]))) for i in e.kamikaze_ships],
        "beams": [
            {"ship": ships[i].label, "directions": len(d), "all": len(d) == 13,
             "names": ", ".join(_direction_name(v) for v in sorted(d)),
             "lines": wrap(f"Beam from {ships[i].label} [early 6.1.3]: five cells in a straight row, "
                           "through your death star's cells in your own space (e.g. bRv1Rz1)", "", "  ")
             if game.play.ruleset.early else
             wrap(f"Beam from {ships[i].label} [8.2]: "
                  + ("in any of the 13 directions" if len(d) == 13
                     else "along " + ", ".join(_direction_name(v) for v in sorted(d))),
                  "", "  ")}
            for i, d in e.beam_directions.items()
        ],
        "scans": e.scans,
        "strikes_total": e.conventional + len(e.missile_ships) + len(e.kamikaze_ships),
    }
    data["fill_in"] = fill_in(data)
    data["drawn"] = {"by_ship": html_text(", ".join(f"{s['ship']} {s['strikes']}" for s in data["by_ship"])),
                     "fill_in": html_text("".join(f"{line}\n" for line in data["fill_in"]))}
    return data


def _choice(ship: str, cells: list) -> dict[str, str]:
    """A ship's cells to launch from: ``cells`` all of them, ``choice`` as a
    sheet says it ("Bx5", or "one of Yz1 Yz2 Yz3")."""
    listed = " ".join(map(str, cells))
    return {"ship": ship, "cells": listed, "choice": listed if len(cells) == 1 else f"one of {listed}"}


def fill_in(next: dict[str, Any]) -> list[str]:
    """The block of comment lines a player fills in with the turn's orders,
    each saying what may go there; the text and HTML sheets show the same."""
    lines = [f"; b<end><end>      beam from {b['ship']}" for b in next["beams"]]
    lines += [f"; m<cell>          missile from {m['ship']}: {m['choice']}, plus its target" for m in next["missiles"]]
    lines += [f"; k<cell>          kamikaze from {k['ship']}, plus its target" for k in next["kamikaze"]]
    conventional = next["conventional"]
    if conventional:
        lines.append(f"; <cell> ...       up to {conventional} conventional strike{'s' * (conventional != 1)}")
    elif next["missiles"] or next["kamikaze"]:
        lines.append("; <cell>           the target of each launch (no conventional strikes)")
    if next["scans"]:
        lines.append(f"; s<cell> ...      up to {next['scans']} scan{'s' * (next['scans'] != 1)}")
    return lines or ["; (no strikes and no scans this turn)"]


def in_force(game: Table, player: int) -> list[dict[str, Any]] | None:
    """The player's orders in force for the coming turn, each as it will be
    carried out or why it will not (None when none are in force)."""
    orders = game.play.pending.get(player)
    if orders is None or game.play.game is None:
        return None
    state = game.play.game.state
    return command_history(check_orders(state.side(player), state.entitlement(player), orders, game.play.ruleset))


@functools.cache
def _direction_name(d: tuple[int, int, int]) -> str:
    """A line direction as the axes it runs along, with an example beam
    through the middle of the space, e.g. ``letter (bYw3Yy3)``."""
    axes: list[str] = []
    for value, name in zip(d, ("colour", "letter", "number")):
        if value:
            axes.append(name if value > 0 or not axes else f"-{name}")
    middle = Cell("Y", "x", 3)
    start = STANDARD.step(middle, (-d[0], -d[1], -d[2]))
    end = STANDARD.step(middle, d)
    return f"{'+'.join(axes).replace('+-', '-')} (b{start}{end})"


def _records_edition_1(game: Table) -> dict[str, Any]:
    """Both players' complete records [1.4.1], as edition 1 showed them."""
    assert game.play.game is not None
    return {
        "setups": [[str(p) for p in game.play.setups[p]] for p in (1, 2)],
        "turns": [
            {"turn": n, "orders": [format_orders(o1), format_orders(o2)]}
            for n, (o1, o2) in enumerate(game.play.game.orders, 1)
        ],
    }


def sheet(game: Table, player: int, at: datetime, report: TurnReport | None) -> dict[str, Any]:
    """A full turn sheet: header, what happened, grids, command history,
    what the player may do next, and at the end the result and both records."""
    assert game.play.game is not None
    grids = seat_grids(game.play.game, player, game.edition)
    grids.update(game.play.game)
    data = common(game, player, at) | {
        "happened": None if report is None else happened(report, player),
        "history": None if report is None else command_history(report.view(player).check),
        "grid_lines": grids.text_lines("Your space", f"{opponent(game, player).alias}'s space, as you know it"),
        "tables": {"colours": grids.colour_tables(), "drawn": grids.html_colours(), "legend_own": LEGEND_OWN,
                   "legend_opponent": legend_opponent(game.edition)},
        "legend_lines": (legend_lines("Your space:", LEGEND_OWN_ENTRIES)
                         + legend_lines("Theirs:", LEGEND_OPPONENT_ENTRIES)
                         if game.edition >= 2 else
                         wrap("Your space: " + LEGEND_OWN, "", "  ") + wrap("Theirs: " + legend_opponent(1), "", "  ")),
        "remaining_materiel": game.play.game.state.side(player).remaining_materiel,
        "next": None,
        "in_force": None,
        "outcome": None,
        "records": None,
    }
    if game.phase == ENDED:
        data["outcome"] = outcome_data(game, player)
        data["records"] = record_lines(game, player) if game.edition >= 2 else _records_edition_1(game)
        data["attached"] = (f"The whole game is attached as a mailbox (game-{game.id}.mbox)."
                            if game.edition < SHEETS_EDITION else
                            f"Your record of the game ('history') is attached: game-{game.id}-player-{player}.txt.")
    else:
        data["next"] = next_turn(game, player)
        data["in_force"] = in_force(game, player)
    return data


def outcome_data(game: Table, player: int) -> dict[str, Any]:
    outcome = game.outcome
    assert outcome is not None
    reason = outcome.words({p: game.seat(p).alias for p in (1, 2)}, player)
    reason = reason[:1].upper() + reason[1:]
    scores: Any = None
    if outcome.scores is not None and game.edition < 2:
        scores = [outcome.scores[player - 1], outcome.scores[2 - player]]
    elif outcome.scores is not None:
        first = outcome.winner or player  # the winner's score first; in a draw, the player's own
        scores = ", ".join(f"{'you' if p == player else game.seat(p).alias} {outcome.scores[p - 1]}"
                           for p in (first, 3 - first))
    return {
        "reason": reason,
        "scores": scores,
        "you_won": outcome.winner == player,
        "draw": outcome.winner is None,
        "after_turn": outcome.after_turn,
    }
