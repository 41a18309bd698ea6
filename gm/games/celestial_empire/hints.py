"""Lark's parse errors for Celestial Empire orders, told in words.

`explain` turns an error from the grammar into a `NotationError`: what was
found, what would have been accepted there (named terminals by `TERMINALS`,
letters and signs as written), and a hint. The hints name the usual slips
first (a planet written with ``P``, a ship order without its ``S``, the
letter O for a zero, a mine load without its type, a jump written with
commas) and otherwise list the forms that begin as the line does, from
`gm.games.celestial_empire.command_help.COMMANDS_HELP`, so the help sheet
and the hints say the same thing.
"""

from __future__ import annotations

import re

from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ...kernel.errors import NotationError, end_position
from .command_help import continuations, next_letters

TERMINALS: dict[str, tuple[str, str]] = {
    "NUMBER": ("a number", "123"),
    "PLAYER": ("an empire's name", "MASTER"),
    "LEVEL": ("an alliance level", "ALLY"),
    "NAME": ("a name", "BLACKGUARD"),
    "TEXT": ("the message", "Death to Grok the infidel."),
    "SPEC_ITEM": ("an ore type 0 to 9, D for PDUs or S for spacemines", "7"),
}
"""Each named terminal of the grammar: what it is and an example. Errors say
"a number such as 123"; the help sheet uses the same words."""

_SIGNS = {"EQUAL": "=", "LPAR": "(", "RPAR": ")", "SLASH": "/", "PLUS": "+", "MINUS": "-",
          "LBRACE": "{", "AMPERSAND": "&"}

_WORD = re.compile(r"[A-Za-z]+|[0-9]+|\S")
_MAX_LISTED = 6


def _described(names: set[str]) -> list[str]:
    """The accepted terminals in words: named ones first, then the letters
    and signs (several at once as one item), then the end of the order."""
    words = [f"{TERMINALS[name][0]} such as {TERMINALS[name][1]}" for name in sorted(names) if name in TERMINALS]
    literals = sorted(_SIGNS.get(name, name) for name in names
                      if name not in TERMINALS and name not in ("_NL", "$END") and not name.startswith("__"))
    if len(literals) > 3:
        words.append("one of " + " ".join(literals))
    else:
        words.extend(f"'{literal}'" for literal in literals)
    if "_NL" in names or "$END" in names:
        words.append("the end of the order")
    return words


def explain(error: UnexpectedInput, text: str) -> NotationError:
    """A `NotationError` for Lark's ``error`` in ``text`` (one order line
    and its newline, as `gm.kernel.parsing.parse_notation` passes it)."""
    line, column = error.line, error.column
    at_end = False
    if isinstance(error, UnexpectedCharacters):
        expected = set(error.allowed or ())
    elif isinstance(error, UnexpectedToken):
        expected = set(error.expected)
        at_end = error.token.type in ("_NL", "$END")
    else:
        expected = set(getattr(error, "expected", ()))
        at_end = True
    source = text.rstrip("\n").split("\n")[0]
    if at_end or not isinstance(line, int) or not isinstance(column, int) or column > len(source):
        line, column = end_position(text)
        at_end = True
    match = _WORD.match(source, column - 1)
    word = "" if at_end or not match else match.group()
    found = "the end of the order" if at_end else None
    if word and not word.isprintable():
        found = f"the character U+{ord(word[0]):04X}"
    return NotationError(line, column, word, _described(expected), hint_for(source, column, word, expected), found)


def hint_for(source: str, column: int, word: str, expected: set[str] | frozenset[str] = frozenset()) -> str | None:
    """A guess at what the line ``source`` meant, given the slip at
    ``column`` (1-based; ``word`` is empty at the end of the order)."""
    before = source[:column - 1]
    squeezed = "".join(before.split()).upper()
    specific = _slip(source, before, squeezed, word, expected)
    if specific:
        return specific
    return _forms_hint(before)


def _slip(source: str, before: str, squeezed: str, word: str, expected: set[str] | frozenset[str]) -> str | None:
    upper = word.upper()
    stripped = source.strip()
    if not squeezed and re.match(r"[Pp]\s*[0-9]", stripped):
        return f"planets are written by number alone, without P (manual l.338): {stripped[1:].strip()}"
    if upper.startswith("O") and (squeezed[-1:].isdigit() or word[1:2].isdigit()):
        return "the letter O is not a number: write the digit 0"
    if re.fullmatch(r"[0-9]+", squeezed) and upper[:1] in "JLUTZEPR":
        return f"ship orders begin with S and the ship's number, such as S{stripped}"
    if squeezed == "S" and word.isalpha():
        return "orders name ships and planets by number, not by name (manual l.344): such as S123J120"
    if re.fullmatch(r"S[0-9]+(J[0-9]+)+", squeezed) and (word in (",", "-", "/") or word.isdigit()):
        return "each planet of a jump has its own J, such as S123J120J240"
    if re.fullmatch(r"S[0-9]+A[0-9]*", squeezed) and upper.startswith("P"):
        return f"PDUs are D in orders, such as {squeezed}D"
    if re.fullmatch(r"S[0-9]+T", squeezed) and not word:
        return f"name the receiving ship, such as {squeezed}S104 for all ore, or {squeezed}4S104R5"
    if re.fullmatch(r"S[0-9]+T[0-9]+", squeezed) and upper[:1] in "RIMDS":
        rest = "".join(source[len(before):].split()).upper()
        return f"name the receiving ship before the cargo, such as {squeezed}S104{rest}"
    if squeezed.endswith("R") and "NUMBER" in expected:
        return "name the ore type 0 to 9 after R, such as S132U42R2"
    if squeezed.endswith(("M", "S")) and "NUMBER" in expected and re.fullmatch(r"[0-9]+B[0-9]+[MS]", squeezed):
        return "a planet builds mines and spacemines of a type: such as 235B5M8 or 100B50S0"
    return None


def _forms_hint(before: str) -> str | None:
    """The forms that begin as ``before`` does: their syntax when a few,
    else the letters that may come next, each with what it begins."""
    if not before.strip():
        return ("an order begins with S and a ship's number, a planet's number, SCAN, TURN, + or - "
                "(alliances), O or X (standing orders), or {, & or ( (messages)")
    forms = continuations(before)
    if forms and len(forms) <= _MAX_LISTED:
        return "; ".join(f"{form.syntax} to {form.meaning}" for form in forms)
    following = next_letters(before)
    if not following:
        return None
    choices = ", ".join(f"{'a number' if letter == '#' else letter} to {' or '.join(verbs)}"
                        for letter, verbs in following.items())
    return f"after {''.join(before.split()).upper()}: {choices}"
