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
    "NotationError", "PIECES", "THREE_HOMES", "Square", "collide", "kind", "path", "pieces_for", "strength",
    "random_move", "random_setup", "Collision", "MoveReport", "OwnPiece", "Result", "Reveal", "Sighting", "View",
    "Grid", "IllegalMove", "Piece", "NOTATION_HELP", "Move", "Placement", "Record", "RecordMove", "parse_move",
    "parse_record", "parse_setup", "EXIT_LEGAL", "EXIT_REJECTED", "EXIT_UNREADABLE", "Outcome", "RecordError",
    "referee", "referee_text", "SetupError", "SetupProblem", "STANDARD", "Variant", "variant_named",
]
