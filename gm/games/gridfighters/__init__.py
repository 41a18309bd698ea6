"""Grid Fighters (Stephen M. Cameron's "Dueling Masters of Space-Time"): the
pure rules core. No I/O, no clock, no randomness of its own.

`Grid` is the game state; `parse_setup`, `parse_move` and `parse_record` read
the notation; `referee_text` referees a whole record; `random_setup` and
`random_move` are a random-legal bot. Rulings: ``docs/gridfighters/rulings.md``.
"""

from ...kernel.errors import NotationError
from .board import PIECES, THREE_HOMES, Square, collide, kind, path, pieces_for, strength
from .bot import random_move, random_setup
from .events import Collision, MoveReport, OwnPiece, Result, Reveal, Sighting, View
from .game import Grid, IllegalMove, Piece
from .notation import NOTATION_HELP, Move, Placement, Record, RecordMove, parse_move, parse_record, parse_setup
from .referee import EXIT_LEGAL, EXIT_REJECTED, EXIT_UNREADABLE, Outcome, RecordError, referee, referee_text
from .setup import SetupError, SetupProblem
from .variants import STANDARD, Variant, variant_named

__all__ = [
    "EXIT_LEGAL",
    "EXIT_REJECTED",
    "EXIT_UNREADABLE",
    "NOTATION_HELP",
    "PIECES",
    "STANDARD",
    "THREE_HOMES",
    "Collision",
    "Grid",
    "IllegalMove",
    "Move",
    "MoveReport",
    "NotationError",
    "Outcome",
    "OwnPiece",
    "Piece",
    "Placement",
    "Record",
    "RecordError",
    "RecordMove",
    "Result",
    "Reveal",
    "SetupError",
    "SetupProblem",
    "Sighting",
    "Square",
    "Variant",
    "View",
    "collide",
    "kind",
    "parse_move",
    "parse_record",
    "parse_setup",
    "path",
    "pieces_for",
    "random_move",
    "random_setup",
    "referee",
    "referee_text",
    "strength",
    "variant_named",
]
