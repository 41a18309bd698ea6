"""``gm verify MAILBOX``: a player checks, from the mail they received alone,
that the GM kept its commitments (docs/verification.md).

Offline, with no data directory and no key: the mailbox (an mbox, or a
Maildir, as ``gm export --player`` writes it or a mail client saved it) is
read, the GM's mail of each game in it taken in the order the GM sent it
(its Message-IDs number it: ``<GAME.EVENT.POSITION...@...>``), and three
checks are made:

1. every commitment matches the revealed value and salt (``X-GM-Reveal`` of
   the mail that ended the game);
2. the values never changed: every mail carries the same commitment for each
   label, from the first mail that carries it to the last (a commitment made
   anew each turn, ``turn-N``, is carried by the mails of its turn only);
3. the whole record of the game (``X-GM-Record``) holds the committed values,
   and played again under the rules (`GameRules.replayed`) it gives what the
   player's mail said of each turn, turn by turn.

A check that fails names itself and the mail. Input that cannot be checked
(no mail of gm, mail from before commitments, a game not over, mail that
lost its header fields) is said in words, never as a traceback.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import mailbox
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from ...kernel.commitments import COMMITMENT_HEADER, PER_TURN, RECORD_HEADER, REVEAL_HEADER, commitment_digest
from ...kernel.errors import NotationError, RecordError
from ...kernel.protocol import game_named
from ...kernel.records import game_of_record
from ...mail.reading import parse_message
from ..writing.mailer import GAME_HEADER

PASSED = 0
FAILED = 1
UNCHECKABLE = 2
"""Exit statuses: every check passed; a check failed; something could not be checked."""

_ID = re.compile(r"<([^.@>]+)\.(\d+)\.(\d+)[.@]")


@dataclass
class Verdict:
    """What ``gm verify`` found: its lines, and the worst status."""

    lines: list[str] = field(default_factory=list)
    status: int = PASSED
    limited: bool = False
    """Whether a check the game's mail cannot support was left out (check 3
    of a game without a record): every check made may still have passed."""

    def say(self, line: str, status: int = PASSED) -> None:
        """Add a finding; a failure outweighs what could not be checked."""
        self.lines.append(line)
        self.status = FAILED if FAILED in (self.status, status) else max(self.status, status)


@dataclass(frozen=True)
class _Mail:
    position: int
    """Where it stands in the mailbox, from 1."""
    message: EmailMessage

    def name(self) -> str:
        """How the verdict names it: its place, Message-ID and subject."""
        subject = " ".join(str(self.message.get("Subject", "")).split())
        return f"mail {self.position} {str(self.message.get('Message-ID', '')).strip()} \"{subject}\""

    def fields(self, header: str) -> list[str]:
        return [" ".join(str(value).split()) for value in self.message.get_all(header) or []]

    def order(self, game: str) -> tuple[int, int] | None:
        """Where the GM sent it in ``game``: (event, position), from its Message-ID."""
        found = _ID.match(str(self.message.get("Message-ID", "")).strip())
        return (int(found.group(2)), int(found.group(3))) if found and found.group(1) == game else None

    def text(self) -> str:
        try:
            body = self.message.get_body(preferencelist=("plain",))
            return str(body.get_content()) if body is not None else ""
        except (LookupError, ValueError, AttributeError):
            return ""


def read_mailbox(path: str) -> list[EmailMessage]:
    """The messages of an mbox file or a Maildir, in the order they are stored;
    ValueError saying why for anything else."""
    where = Path(path)
    if where.is_dir():
        folders = [where / sub for sub in ("cur", "new") if (where / sub).is_dir()]
        if not folders:
            raise ValueError(f"{path} is a folder but no Maildir (it has no cur/ or new/)")
        files = [entry for folder in folders for entry in folder.iterdir() if entry.is_file()]
        return [parse_message(entry.read_bytes()) for entry in sorted(files, key=_maildir_order)]
    if not where.is_file():
        raise ValueError(f"{path}: no such file or folder")
    data = where.read_bytes()
    if data and not data.startswith(b"From "):
        raise ValueError(f"{path} is no mbox (it does not begin with a 'From ' line)")
    box = mailbox.mbox(str(where), create=False)
    return [parse_message(box.get_bytes(key)) for key in box.keys()]


def _maildir_order(entry: Path) -> tuple[float, str]:
    """A Maildir keeps no order: its messages are taken by the time their
    names begin with (then by name)."""
    head = entry.name.split(".")[0]
    try:
        return float(head), entry.name
    except ValueError:
        return 0.0, entry.name


def verify(path: str) -> Verdict:
    """Check the mailbox at ``path`` (module docstring)."""
    verdict = Verdict()
    try:
        messages = read_mailbox(path)
    except (OSError, ValueError) as error:
        verdict.say(f"cannot read the mailbox: {error}", UNCHECKABLE)
        return verdict
    games: dict[str, list[_Mail]] = {}
    for n, message in enumerate(messages, 1):
        game = str(message.get(GAME_HEADER, "")).strip()
        if game:
            games.setdefault(game, []).append(_Mail(n, message))
    if not games:
        verdict.say(f"no mail of gm's in {path} (no message has an {GAME_HEADER} field): nothing to check; "
                    "a forwarded mail keeps none of the GM's header fields", UNCHECKABLE)
    for game, mails in games.items():
        _verify_game(game, mails, verdict)
    return verdict


def _verify_game(game: str, mails: list[_Mail], verdict: Verdict) -> None:
    verdict.say(f"game {game}: {len(mails)} mail{'s' * (len(mails) != 1)} of the GM's")
    if not any(m.fields(COMMITMENT_HEADER) for m in mails):
        verdict.say(f"game {game}: no mail carries a commitment ({COMMITMENT_HEADER}): a game made before gm "
                    "committed to hidden information (or mail whose header fields were changed) cannot be "
                    "checked", UNCHECKABLE)
        return
    aside = [m for m in mails if m.order(game) is None]
    for mail in aside:  # a warning of forged mail, a daily cap: the GM's, but of no event of the game
        verdict.say(f"game {game}: {mail.name()} answers no event of the game (its Message-ID is not "
                    f"<{game}.EVENT.POSITION...>): left out")
    mails = [m for m in mails if m.order(game) is not None]
    if not _in_order(game, mails, verdict):
        return
    committed = _check_unchanged(game, mails, verdict)
    if committed is None:
        return
    final = next((m for m in reversed(mails) if m.fields(REVEAL_HEADER)), None)
    if final is None:
        verdict.say(f"game {game}: no mail reveals the commitments ({REVEAL_HEADER}): the game is not over, or "
                    "the mail that ended it is missing; checks 1 and 3 cannot be made", UNCHECKABLE)
        return
    revealed = _check_reveal(game, final, committed, verdict)
    if revealed is not None:
        _check_replay(game, mails, final, revealed, verdict)


def _in_order(game: str, mails: list[_Mail], verdict: Verdict) -> bool:
    """Whether the mails stand in the order the GM sent them (check 2 needs it)."""
    for before, after in itertools.pairwise(mails):
        first, second = before.order(game), after.order(game)
        if first is not None and second is not None and second < first:
            verdict.say(f"game {game}: FAILED check 2 (order): {after.name()} was sent before "
                        f"{before.name()}, which the mailbox holds first", FAILED)
            return False
    return True


def _check_unchanged(game: str, mails: list[_Mail], verdict: Verdict) -> dict[str, str] | None:
    """Check 2: each label's commitment is the same on every mail from the
    first that carries it on (one made anew each turn, `PER_TURN`, on every
    mail that carries it); the commitments, by label, or None."""
    committed: dict[str, str] = {}
    first_seen: dict[str, _Mail] = {}
    for mail in mails:
        carried: dict[str, str] = {}
        for value in mail.fields(COMMITMENT_HEADER):
            label, _, digest = value.partition(" ")
            carried[label] = digest.strip()
        for label, digest in committed.items():
            if label not in carried and label.startswith(PER_TURN):
                continue  # a turn's commitment is carried by the mail of its turn, then the next one's
            if label not in carried:
                verdict.say(f"game {game}: FAILED check 2 (unchanged): {mail.name()} lacks the commitment to "
                            f"{label} that {first_seen[label].name()} made (were its header fields changed?)",
                            FAILED)
                return None
            if carried[label] != digest:
                verdict.say(f"game {game}: FAILED check 2 (unchanged): the commitment to {label} changed on "
                            f"{mail.name()}: {carried[label]}, where {first_seen[label].name()} said {digest}",
                            FAILED)
                return None
        for label, digest in carried.items():
            if label not in committed:
                committed[label], first_seen[label] = digest, mail
    verdict.say(f"game {game}: check 2 passed: {len(committed)} commitment{'s' * (len(committed) != 1)} "
                f"({', '.join(committed)}), each the same on every mail from its first")
    return committed


def _unpieces(text: str) -> bytes:
    return base64.b64decode("".join(text.split()), validate=True)


def _check_reveal(game: str, final: _Mail, committed: dict[str, str], verdict: Verdict) -> dict[str, bytes] | None:
    """Check 1: every commitment matches its revealed salt and value; the
    revealed values, by label, or None."""
    revealed: dict[str, bytes] = {}
    for value in final.fields(REVEAL_HEADER):
        label, _, rest = value.partition(" ")
        salt, _, data = rest.partition(" ")
        try:
            salt_bytes, value_bytes = bytes.fromhex(salt), _unpieces(data)
        except (ValueError, binascii.Error):
            verdict.say(f"game {game}: FAILED check 1 (reveal): {final.name()} reveals {label} unreadably", FAILED)
            return None
        if label not in committed:
            verdict.say(f"game {game}: FAILED check 1 (reveal): {final.name()} reveals {label}, which no mail "
                        "committed to", FAILED)
            return None
        if commitment_digest(salt_bytes, value_bytes) != committed[label]:
            verdict.say(f"game {game}: FAILED check 1 (reveal): the value and salt of {label} revealed by "
                        f"{final.name()} do not give its commitment {committed[label]}", FAILED)
            return None
        revealed[label] = value_bytes
    missing = [label for label in committed if label not in revealed]
    if missing:
        verdict.say(f"game {game}: FAILED check 1 (reveal): {final.name()} does not reveal "
                    f"{', '.join(missing)}", FAILED)
        return None
    verdict.say(f"game {game}: check 1 passed: every commitment matches the value and salt {final.name()} reveals")
    return revealed


def _check_replay(game: str, mails: list[_Mail], final: _Mail, revealed: dict[str, bytes], verdict: Verdict) -> None:
    """Check 3: the record holds the committed values and, played again under
    the rules, gives what the player's mail said, turn by turn."""
    pieces = final.fields(RECORD_HEADER)
    if not pieces:
        verdict.say(f"game {game}: check 3 is not made: {final.name()} carries no record of the game "
                    f"({RECORD_HEADER}): one player's mail cannot replay a Celestial Empire game made before "
                    "edition 7, nor a Grid Fighters game in which a deadline passed a move over (docs/verification.md)")
        verdict.limited = True
        return
    try:
        record = _unpieces(" ".join(pieces)).decode("utf-8")  # a long record goes on field after field
        name, body = game_of_record(record)
        rules = game_named(name or "")
        player = int(str(final.message.get("X-GM-Player", "")).strip())
        replayed = rules.replayed(body, player)
    except (binascii.Error, UnicodeDecodeError) as error:
        verdict.say(f"game {game}: FAILED check 3 (replay): the record {final.name()} carries is unreadable: "
                    f"{error}", FAILED)
        return
    except (ValueError, RecordError, NotationError) as error:
        verdict.say(f"game {game}: FAILED check 3 (replay): the record {final.name()} carries cannot be played "
                    f"again: {error}", FAILED)
        return
    if replayed is None:
        verdict.say(f"game {game}: check 3 is not made: the rules of {rules.title} cannot play a record again "
                    "as one player was told it (docs/verification.md)")
        verdict.limited = True
        return
    for label, value in replayed.values:
        same = [known for known in revealed if known == label or known.endswith(f"-{label}")]
        if not same or revealed[same[-1]] != value:  # in a match, the last game's: game-N-setup-1
            made = next((m for m in mails if any(f.split(" ", 1)[0] == label for f in m.fields(COMMITMENT_HEADER))),
                        None)
            where = f" (committed first on {made.name()})" if made is not None else ""
            verdict.say(f"game {game}: FAILED check 3 (replay): the record {final.name()} carries, played again "
                        f"under the rules, does not give the committed {label}{where}", FAILED)
            return
    texts = [" ".join(m.text().split()) for m in mails]
    start = 0
    for turn, lines in replayed.turns:
        block = " ".join(" ".join(lines).split())
        found = next((k for k in range(start, len(mails)) if block in texts[k]), None)
        if found is None:
            heading = " ".join(lines[0].split()) if lines else ""
            said = next((mails[k] for k in range(start, len(mails)) if heading and heading in texts[k]), None)
            where = (f"{said.name()} says otherwise" if said is not None
                     else f"no mail from {mails[start].name()} on says it")
            verdict.say(f"game {game}: FAILED check 3 (replay): {turn}, played again under the rules, is not "
                        f"what the mail said: {where}; the rules give: {' / '.join(x.strip() for x in lines)}",
                        FAILED)
            return
        start = found
    count = len({turn for turn, _ in replayed.turns})
    verdict.say(f"game {game}: check 3 passed: the record holds the committed values, and played again under "
                f"the rules it gives what the mail said of each turn ({count} turn{'s' * (count != 1)})")
