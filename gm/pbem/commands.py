"""Reading a player's mail as commands, one per line, as PBEM players expect.

A line is one of:

- blank, or a ``;`` comment: ignored;
- a command: a keyword first (case does not matter), its arguments after;
- an order or setup line in conventional notation [11.5], [11.6]: in
  the setup phase setup lines, in play orders. Several orders may share a
  line. ``orders``, ``check`` or ``setup`` on a line of its own says what the
  notation lines of the mail are; ``check`` validates orders without
  submitting them.

A line that is neither gets "not understood", with the nearest command, and
does not stop the rest of the mail from being handled.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

KEYWORDS = (
    "help", "status", "check", "orders", "setup", "resign", "draw", "message", "press",
    "history", "games", "challenge", "accept",
)
"""Every command a player may write (``press`` is another name for ``message``)."""
NO_ARGUMENT = ("help", "status", "history", "games", "resign", "draw", "accept")

_NOTATION_WORD = re.compile(r"^(?:\S*\d\S*|(?:DS|KC|FS|PC|MD|HS|LS|AG|LG|HF)|m[ROYGB]?[vwxyz]?|[bmks])$")
"""A first word that makes a line notation: anything with a digit in it (a
cell, however mistyped), a ship type, or a missile selector without one."""


@dataclass(frozen=True)
class Command:
    """A command line: its keyword, the rest of the line, and where it was."""

    keyword: str
    argument: str
    line: int


@dataclass
class Mail:
    """A player's mail, sorted into commands and notation.

    ``notation`` keeps the notation lines at their line numbers (other lines
    blanked), so that syntax errors name the line the player wrote."""

    commands: list[Command] = field(default_factory=list)
    notation: str = ""
    notation_lines: int = 0
    mode: str | None = None
    """``orders``, ``check`` or ``setup`` when the mail said so."""
    lines: list[str] = field(default_factory=list)
    """The mail's lines as written, for quoting them back."""
    not_understood: list[tuple[int, str, str]] = field(default_factory=list)
    """(line, text, why) for each line that is neither a command nor notation."""

    def has(self, keyword: str) -> bool:
        return any(c.keyword == keyword for c in self.commands)


def read_mail(text: str) -> Mail:
    """Sort a player's text into commands and notation lines."""
    mail = Mail(lines=text.split("\n"))
    notation: list[str] = []
    for number, raw in enumerate(mail.lines, 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            notation.append("")
            continue
        word, _, rest = line.partition(" ")
        keyword = word.lower().rstrip(":")
        if keyword in KEYWORDS:
            notation.append("")
            if keyword in ("orders", "check", "setup"):
                mail.mode = keyword if mail.mode in (None, keyword) or keyword == "check" else mail.mode
                if rest.strip():  # `orders Rv1 Rv2`: notation on the same line
                    notation[-1] = " " * (len(raw) - len(raw.lstrip()) + len(word) + 1) + rest
                    mail.notation_lines += 1
                continue
            if keyword in ("message", "press"):  # the whole line: a ';' is part of the message
                rest = raw.strip()[len(word):].strip()
            elif keyword in NO_ARGUMENT and rest.strip():
                mail.not_understood.append((number, raw.strip(), f"'{keyword}' takes nothing after it: write it alone on its line (and orders on lines of their own)"))
                continue
            mail.commands.append(Command("message" if keyword == "press" else keyword, rest.strip(), number))
            continue
        if _NOTATION_WORD.match(re.split(r"[\s,]+", line)[0]):
            notation.append(raw.split(";", 1)[0])
            mail.notation_lines += 1
            continue
        notation.append("")
        nearest = difflib.get_close_matches(keyword, KEYWORDS, n=1, cutoff=0.6)
        why = f"did you mean '{nearest[0]}'?" if nearest else "not a command, an order or a setup line (send 'help' for the list)"
        mail.not_understood.append((number, raw.strip(), why))
    mail.notation = "\n".join(notation)
    return mail


def help_commands() -> list[tuple[str, str]]:
    """Each command with what it does, for the help sheet."""
    return [
        ("Rv1 bRv1Rx1 mRv2 kGy3 sBz5", "orders for this turn, several to a line; replace all you sent before"),
        ("orders", "(optional) the notation lines of this mail are orders"),
        ("check", "check the orders in this mail and say what would happen, without submitting them"),
        ("setup", "(optional) the lines of this mail are your setup, one ship per line"),
        ("status", "send me the current turn sheet again"),
        ("history", "send me the whole game so far, as I may see it"),
        ("message TEXT", "pass TEXT to my opponent (your address is never shown); also: press TEXT"),
        ("draw", "offer a draw, or accept the opponent's offer"),
        ("resign", "give up this game"),
        ("games", "list the games I play"),
        ("challenge ADDRESS", "(to the GM's own address) invite ADDRESS to a new game"),
        ("accept", "(in reply to a challenge) accept it"),
        ("help", "send this help"),
    ]
