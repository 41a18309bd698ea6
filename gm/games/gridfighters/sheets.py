"""The data of a Grid Fighters player's sheet: everything the templates show.

Pure, and built only from the player's `View` and the reports as that
player may see them (`MoveReport.public` for the opponent's moves), so a
sheet holds only what the rules let that player know: the secrecy tests
render every mail and compare them across games that differ only in the
opponent's hidden squares.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...kernel import shown
from ...kernel.protocol import Table
from ...kernel.values import ENDED, Seat
from .board import IMMOBILE, Square, kind
from .events import MoveReport, View, untag
from .notation import Placement
from .variants import Variant

SIDES = {1: "Red", 2: "Blue"}
"""Each player's colour: Red (player 1) holds rows A to E, Blue rows F to J."""
ROWS = "ABCDEFGHIJ"


def side(player: int) -> str:
    return SIDES[player]


def side_class(player: int) -> str:
    """The HTML class of a square holding the side's pieces, in the sheet and
    the web archive alike; templates/_sides.css gives each its one colour."""
    return SIDES[player].lower()


def opponent(game: Table, player: int) -> Seat:
    """Grid Fighters has two seats: the other one."""
    return game.seat(3 - player)


def common(game: Table, player: int, at: datetime | None = None) -> dict[str, Any]:
    """What every message's header shows."""
    grid = game.play.grid
    to_move = None if grid is None or grid.to_move is None else grid.to_move
    return {
        "game": game.id,
        "player": player,
        "alias": game.seat(player).alias,
        "opponent": opponent(game, player).alias,
        "side": side(player),
        "rows": "A to E" if player == 1 else "F to J",
        "opponent_side": side(3 - player),
        "side_class": side_class(player),
        "opponent_class": side_class(3 - player),
        "ruleset": game.play.variant.describe(),
        "variant": game.variant,
        "turn": game.turn,
        "phase": game.phase,
        "your_move": to_move == player,
        **shown.fields(game, at),
    }


def name(tagged: str) -> str:
    """``"2:Y1"`` -> ``"Blue Y1"``."""
    player, piece = untag(tagged)
    return f"{side(player)} {piece}"


def announcement(report: MoveReport) -> str:
    """What both players are told of a move [procedure 2]: ``Red Z2 departs E2``."""
    return f"{side(report.by)} {report.piece} departs {report.frm}"


def happened(report: MoveReport, player: int) -> dict[str, Any]:
    """One move as ``player`` may know it: the announcement (with the
    destination for its mover), the collisions, what was revealed to them,
    the passes and the end."""
    seen = report if report.by == player else report.public()
    lines = []
    where = f" for {seen.to}" if seen.to is not None else ""
    lines.append(f"{announcement(seen)}{where}.")
    if seen.spent:
        lines.append(f"{seen.piece} had been destroyed on its previous path: the move is spent [procedure 4].")
    if seen.rammed:
        lines.append(f"{seen.piece} rammed its own asteroid on {seen.to} (ruling 4).")
    for collision in seen.collisions:
        lost = ", ".join(name(t) for t in collision.destroyed) or "nothing"
        lines.append(f"On {collision.square}: {name(collision.pieces[1])} met {name(collision.pieces[0])}; "
                     f"destroyed: {lost}.")
    for reveal in seen.revealed:
        if reveal.to == player:
            lines.append(f"{name(reveal.piece)} is revealed on {reveal.square}.")
    for passer in seen.passes:
        lines.append(f"{side(passer)} has no legal move and passes (ruling 11).")
    return {"n": seen.n, "by": seen.by, "lines": lines}


def passes_lines(game: Table, player: int, note: dict[str, Any]) -> list[str]:
    """What a missed deadline did: who lost their move, who then passed."""
    late = note["late"][0]
    lines = [f"{side(late)} sent no move by the deadline: the move passes (ruling 19)."]
    for passer in note["passes"][1:]:
        lines.append(f"{side(passer)} has no legal move and passes (ruling 11).")
    return lines


def _cell(label: str) -> str:
    return f"{label:<4}"


def board_rows(player: int, own: dict[Square, list[str]], theirs: dict[Square, str]) -> list[tuple[str, list[str]]]:
    """The board as ``player`` keeps it, row by row, their own rows at the
    bottom (the rules' boards: player 1 sees A at the bottom, player 2 J):
    their pieces in capitals (``Z2+`` where several share a square), the
    other side's marks in small letters, "" for an empty square."""
    order = range(9, -1, -1) if player == 1 else range(10)
    rows = []
    for row in order:
        cells = []
        for column in range(10):
            square = Square(row, column)
            mine = own.get(square)
            cells.append(mine[0] + ("+" if len(mine) > 1 else "") if mine else theirs.get(square, ""))
        rows.append((ROWS[row], cells))
    return rows


def board_lines(rows: list[tuple[str, list[str]]]) -> list[str]:
    """The board rows as text, a column of four characters a square."""
    lines = ["    " + "".join(_cell(str(c)) for c in range(1, 11))]
    for letter, cells in rows:
        lines.append(f" {letter}  " + "".join(_cell(cell or ".") for cell in cells).rstrip())
    return lines


_EXAMPLE_IMMOBILE = (("A1", "B5"), ("A2", "B4"), ("A3", "B6"), ("A4", "A4"), ("A5", "A6"), ("A6", "C3"), ("A7", "C8"))
_EXAMPLE_FIGHTERS = (("W", "E1"), ("B", "E10"), ("X1", "E3"), ("X2", "E8"), ("Y1", "D5"), ("Y2", "D6"),
                     ("Z1", "E4"), ("Z2", "E5"), ("Z3", "E6"), ("Z4", "E7"))
_EXAMPLE_HOMES = {1: (("H", "A5"),), 3: (("H1", "A5"), ("H2", "A1"), ("H3", "A10"))}


def example_setup(player: int, variant: Variant) -> list[str]:
    """A legal setup for the invitation, in ``player``'s rows (player 2's
    mirrors player 1's), with the variant's home planets."""
    def place(pairs: tuple[tuple[str, str], ...]) -> str:
        squares = [(piece, Square.parse(square)) for piece, square in pairs]
        if player == 2:
            squares = [(piece, Square(9 - sq.row, sq.column)) for piece, sq in squares]
        return ", ".join(f"{piece} {square}" for piece, square in squares)
    return [place(_EXAMPLE_HOMES[variant.homes] + _EXAMPLE_IMMOBILE), place(_EXAMPLE_FIGHTERS)]


def setup_board(player: int, placements: Sequence[Placement]) -> list[str]:
    own: dict[Square, list[str]] = {}
    for p in placements:
        own.setdefault(p.square, []).append(p.piece)
    return board_lines(board_rows(player, own, {}))


def _view_board(view: View) -> list[tuple[str, list[str]]]:
    own: dict[Square, list[str]] = {}
    for mine in view.own:
        own.setdefault(mine.square, []).append(mine.piece)
    gone = set(view.destroyed[2 - view.player])
    theirs: dict[Square, str] = {}
    for piece, square in view.departures:
        if piece not in gone:
            theirs[square] = piece.lower()
    for sighting in view.sightings:
        if sighting.piece not in gone:
            theirs[sighting.square] = sighting.piece.lower() + "!"
    return board_rows(view.player, own, theirs)


def sheet(game: Table, player: int, at: datetime, report: MoveReport | None) -> dict[str, Any]:
    """A player's whole sheet after ``report`` (None: at the start, or on request)."""
    grid = game.play.grid
    assert grid is not None
    view = grid.view(player)
    other = 3 - player
    destroyed_own, destroyed_theirs = view.destroyed[player - 1], view.destroyed[other - 1]
    departures = dict(view.departures)
    sightings = {s.piece: s for s in view.sightings}
    theirs, unmoved = [], []
    for piece in game.play.variant.pieces:
        if piece in destroyed_theirs:
            theirs.append(f"{piece}: destroyed")
            continue
        known = []
        if piece in departures:
            known.append(f"last departed {departures[piece]}")
        if piece in sightings:
            known.append(f"seen on {sightings[piece].square} in move {sightings[piece].move}")
        if known:
            theirs.append(f"{piece}: " + "; ".join(known))
        else:
            unmoved.append(piece)
    own = [f"{p.piece} {p.square}" + ("*" if p.in_transit else "") for p in view.own]
    rows = _view_board(view)
    mobile = [p for p in view.own if kind(p.piece) not in IMMOBILE]
    data = common(game, player, at) | {
        "board": board_lines(rows),
        "board_rows": rows,
        "own": own,
        "own_lines": [", ".join(own[k:k + 8]) for k in range(0, len(own), 8)],
        "example": f"{mobile[0].piece} {mobile[0].square}" if mobile else None,
        "unmoved": unmoved,
        "own_destroyed": list(destroyed_own),
        "theirs": theirs,
        "last": happened(report, player) if report is not None else None,
        "moves_made": grid.moves,
        "outcome": None,
    }
    if game.phase == ENDED or grid.result is not None:
        data |= outcome(game, player)
    return data


def outcome(game: Table, player: int) -> dict[str, Any]:
    result = game.outcome
    if result is None:
        return {"outcome": None}
    reason = result.words({p: game.seat(p).alias for p in (1, 2)}, player)
    return {"outcome": {"reason": reason, "draw": result.winner is None, "you_won": result.winner == player}}
