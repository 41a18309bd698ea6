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

    def describe(self) -> str:
        found = self.found or (f"'{self.text}'" if self.text else "the end of the text")
        message = f"line {self.line}, column {self.column}: unexpected {found}"
        if self.expected:
            message += "; expected " + join_or(self.expected)
        if self.hint:
            message += f". Hint: {self.hint}"
        return message


def join_or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
