"""Errors every game's notation shares: the kernel answers them all the same way.

A `NotationError` names the line, the column, the offending text and what was
expected there, so that the GM's reply can point at the very place.
"""

from __future__ import annotations


class NotationError(ValueError):
    """Text that is not conventional notation.

    ``line`` and ``column`` are 1-based; ``text`` is the offending word;
    ``expected`` lists what would have been accepted there; ``hint`` is a
    guess at what was meant, or None.
    """

    def __init__(self, line: int, column: int, text: str, expected: list[str], hint: str | None = None,
                 found: str | None = None):
        self.line = line
        self.column = column
        self.text = text
        self.expected = expected
        self.hint = hint
        self.found = found
        """How to name what was found where ``text`` cannot, e.g. the end of the line."""
        super().__init__(self.describe())

    def found_words(self, end: str = "the end of the text") -> str:
        """What was found, as a noun phrase: ``found``, else the text quoted,
        else ``end`` ("the end of the line")."""
        return self.found or (f"'{self.text}'" if self.text else end)

    def describe(self) -> str:
        message = f"line {self.line}, column {self.column}: {found_phrase(self.found_words())}"
        if self.expected:
            message += "; expected " + join_or(self.expected)
        if self.hint:
            message += f". Hint: {self.hint}"
        return message


class RecordError(ValueError):
    """A game record that cannot be read (``gm referee`` exits with status 2)."""


def found_phrase(found: str) -> str:
    """The one wording of a syntax error's "found" part, for every game,
    grammatical: quoted text or a bare noun is "unexpected" ("unexpected 'Q'",
    "unexpected number too large (5000 digits)"); a noun phrase with its
    article is "found" ("found the end of the order", "found the character
    U+00A0", "found a second setup of player 2"), never "unexpected the end
    of the order"."""
    return f"found {found}" if found.startswith(("the ", "a ", "an ")) else f"unexpected {found}"


def join_or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


AT_END = 0
"""The line of a `NotationError` found only once the whole text was read:
`gm.kernel.parsing.parse_notation` puts it at the end of the text."""


def end_position(text: str) -> tuple[int, int]:
    """The line and column just after the last character of ``text``."""
    lines = text.rstrip("\n").split("\n")
    return len(lines), len(lines[-1]) + 1

