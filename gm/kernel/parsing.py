"""The one parse envelope of every game's Lark notation: plain spaces, the
final newline, and every error (Lark's own, or a `NotationError` a game's
Transformer raises) as a `NotationError` at its line and column.

Apart from `gm.kernel.errors`, which every command imports: only the games'
notation, which use Lark themselves, import this, and with it Lark."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark.exceptions import UnexpectedInput, VisitError

from .errors import AT_END, NotationError, end_position

_PLAIN_SPACE = str.maketrans({c: " " for c in "\xa0\u2007\u202f\u200b\ufeff\x0b\x0c\r\u2028\u2029\x85"})
"""Spaces a mail program may put in (non-breaking, zero-width, ...), read as plain ones."""


def parse_notation(parser: Any, text: str, start: str, explain: Callable[[Any, str], NotationError]) -> Any:
    """Parse ``text`` from rule ``start`` with a game's Lark ``parser`` (whose
    Transformer may raise `NotationError`), every error as a `NotationError`
    naming its line and column: Lark's own through the game's ``explain``."""
    text = text.translate(_PLAIN_SPACE)
    if not text.endswith("\n"):
        text += "\n"
    try:
        return parser.parse(text, start=start)
    except (VisitError, NotationError) as error:
        found = getattr(error, "orig_exc", error)
        if not isinstance(found, NotationError):
            raise
        if found.line == AT_END:
            found.line, found.column = end_position(text)
            found.args = (found.describe(),)
        raise found from None
    except UnexpectedInput as error:
        raise explain(error, text) from None
