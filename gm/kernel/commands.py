"""Reading a player's mail as commands, one per line, as PBEM players expect.

A line is one of:

- blank, or a ``;`` comment: ignored;
- a command: a keyword first (case does not matter), its arguments after;
- a line of the game's own notation (setup lines, orders, a move), which
  the game recognises by its first word (`GameRules.is_notation`).
  ``orders``, ``check`` or ``setup`` on a line of its own says what the
  notation lines of the mail are; ``check`` validates orders without
  submitting them.

A line that is neither gets "not understood", and does not stop the rest
of the mail from being handled. In games of `WORDS_EDITION` on it is
answered with a command only when its first word is close to one (`nearest`:
a slip of about one letter in three), and a greeting or sign-off ("Hi!",
"Thanks", "Best regards, Bob") is no slip at all: it is set aside as chat
(`Mail.chat`), never answered "did you mean 'help'?". (A signature after
``-- `` never gets here: `gm.mail.reading` drops it with the quoted text.)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

KEYWORDS = (
    "help", "status", "check", "orders", "setup", "resign", "draw", "message", "press",
    "history", "games", "challenge", "accept",
)
"""Every command a player may write (``press`` is another name for ``message``)."""
NO_ARGUMENT = ("help", "status", "history", "games", "resign", "draw", "accept")
GREETINGS = frozenset({
    "hi", "hello", "hey", "hiya", "howdy", "dear", "greetings", "morning", "afternoon", "evening", "thanks",
    "thank", "thx", "cheers", "regards", "best", "kind", "warm", "yours", "sincerely", "bye", "goodbye", "ciao",
    "good", "gl", "gg", "have", "enjoy", "see", "love", "hallo", "salut", "bonjour",
})
"""The first words of greetings and sign-offs ("Hi Bob,", "Good luck!", "Best
regards,"): chat, not a slip of a command."""
SIGN_OFFS = frozenset({
    "thanks", "thank", "thx", "cheers", "regards", "best", "kind", "warm", "yours", "sincerely", "bye", "goodbye",
    "ciao", "love", "see",
})
"""The first words of sign-offs ("Thanks,", "Best regards,"), after which a name may be signed."""
_SIGNED = re.compile(r"[A-Za-z][\w.'-]*( [A-Za-z][\w.'-]*)?")
"""A name signed under a sign-off ("Thanks,", then "Bob" or "Bob B."): chat too,
when it is the mail's last line."""

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
    chat: list[tuple[int, str]] = field(default_factory=list)
    """(line, text) for each greeting or sign-off (games of `WORDS_EDITION` on)."""

    def has(self, keyword: str) -> bool:
        return any(c.keyword == keyword for c in self.commands)


def nearest(word: str, keywords: tuple[str, ...]) -> str | None:
    """The command ``word`` is a slip of, or None: the keyword at the fewest
    edits (a letter added, dropped, changed, or two swapped), when those are
    at most one in three of the longer word's letters ("hlep", "histroy",
    "resing"; never "hi" for "help")."""
    best: tuple[int, str] | None = None
    for keyword in keywords:
        distance = _edits(word, keyword)
        if 3 * distance <= max(len(word), len(keyword)) and (best is None or distance < best[0]):
            best = (distance, keyword)
    return None if best is None else best[1]


def _edits(a: str, b: str) -> int:
    """The optimal string alignment distance between ``a`` and ``b``."""
    rows = [list(range(len(b) + 1))] + [[i] + [0] * len(b) for i in range(1, len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[len(a)][len(b)]


def read_mail(text: str, is_notation: Callable[[str], bool], game_keywords: tuple[str, ...] = (),
              is_notation_comment: Callable[[str], bool] | None = None, chat_aside: bool = False) -> Mail:
    """Sort a player's text into commands and notation lines; a line is the
    game's notation when ``is_notation`` says so of its first word, and a
    command when its first word is the kernel's or one of ``game_keywords``
    (the game's own commands, `GameRules.keywords`). A comment line is
    notation when ``is_notation_comment`` says so of it (Celestial Empire's
    research orders are written as comments); it is kept whole. With
    ``chat_aside`` (games of `WORDS_EDITION` on), greetings and sign-offs are
    set aside as chat and a command is guessed only when close (`nearest`);
    without it, as earlier editions answered."""
    keywords = KEYWORDS + game_keywords
    mail = Mail(lines=text.split("\n"))
    notation: list[str] = []
    written = [n for n, raw in enumerate(mail.lines, 1) if raw.split(";", 1)[0].strip()]
    for number, raw in enumerate(mail.lines, 1):
        line = raw.split(";", 1)[0].strip()
        if not line and is_notation_comment is not None and is_notation_comment(raw):
            notation.append(raw)
            mail.notation_lines += 1
            continue
        if not line:
            notation.append("")
            continue
        word, _, rest = line.partition(" ")
        keyword = word.lower().rstrip(":")
        if keyword in keywords:
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
                mail.not_understood.append((number, raw.strip(),
                                            f"'{keyword}' takes nothing after it: write it alone on its line (and "
                                            "orders on lines of their own)"))
                continue
            mail.commands.append(Command("message" if keyword == "press" else keyword, rest.strip(), number))
            continue
        if is_notation(re.split(r"[\s,]+", line)[0]):
            notation.append(raw.split(";", 1)[0])
            mail.notation_lines += 1
            continue
        notation.append("")
        if chat_aside and re.sub(r"\W+$", "", keyword) in GREETINGS:
            mail.chat.append((number, raw.strip()))
            continue
        if (chat_aside and number == written[-1] and len(written) > 1 and _SIGNED.fullmatch(line)
                and mail.chat and mail.chat[-1][0] == written[-2] and _first_word(mail.chat[-1][1]) in SIGN_OFFS):
            mail.chat.append((number, raw.strip()))  # the name signed under the sign-off just above
            continue
        if chat_aside:
            guess = nearest(keyword, keywords)
        else:
            guess = next(iter(difflib.get_close_matches(keyword, keywords, n=1, cutoff=0.6)), None)
        why = (f"did you mean '{guess}'?" if guess
               else "not a command, an order or a setup line (send 'help' for the list)")
        mail.not_understood.append((number, raw.strip(), why))
    mail.notation = "\n".join(notation)
    return mail


def _first_word(line: str) -> str:
    return re.sub(r"\W+$", "", line.split(maxsplit=1)[0].lower()) if line.split() else ""


KERNEL_HELP = [
    ("status", "send me the current sheet again"),
    ("history", "send me the whole game so far, as I may see it"),
    ("message TEXT", "pass TEXT to my opponent (your address is never shown); also: press TEXT"),
    ("draw", "offer a draw, or accept the opponent's offer"),
    ("resign", "give up this game"),
    ("games", "list the games I play"),
    ("challenge ADDRESS", "(to the GM's own address) invite ADDRESS to a new game"),
    ("accept", "(in reply to a challenge) accept it"),
    ("help", "send this help"),
]
"""The kernel's own commands, for every game's help sheet (after the game's)."""

ABSENCE_HELP = [
    ("absent until YYYY-MM-DD", "I am away to the end of that day (UTC): deadlines that fall before then wait for me"),
    ("vacation 10d", "I am away for 10 days (or 72h, ...) from now; also: absent 10d"),
    ("absent cancel", "I am back early (also: back): the deadlines no longer wait for me"),
    ("address NEW", "move your seat to the address NEW, once you confirm it from there"),
]
"""The commands of edition 2 on (`gm.kernel.absence`, `gm.kernel.moving`), in the help of games that have them."""
