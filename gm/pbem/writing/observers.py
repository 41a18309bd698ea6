"""Mail to a game's observers (`gm.kernel.observers`): the notices with no seat.

An observer's mail goes to the observer's own address, from the GM, with no
Reply-To token (an observer cannot act in the game: their mail is a
stranger's) and no X-GM-Player header, so no player's mailbox ever holds it.
In games of `OBSERVERS_EDITION` on it carries the list headers of the game's
observers, with the observer's own way out (`gm.pbem.writing.lists`).
It names the players by alias only. The records attached at the end are the
game's own ``history`` sheets, rendered as each seat is sent them, with any
token placeholder masked. Like every message of the GM's it is the notice
of an event, so `gm replay` rebuilds it byte for byte.
"""

from __future__ import annotations

from datetime import datetime
from email.utils import format_datetime

from ...kernel.model import MailGame
from ...kernel.values import SHEETS_EDITION, Notice
from ..data.tokens import MASK, PLACEHOLDER
from .lists import OBSERVER, OBSERVERS_EDITION, add_list_headers, observer_list, unsubscribe_tag
from .mailer import GAME_HEADER, Identity, fitted, message_id, record_name, render_text
from .writer import Mail, with_attachments

OBSERVER_HEADER = "X-GM-Observer"


def _masked(text: str) -> str:
    return text.replace(PLACEHOLDER, MASK)


OBSERVED_RECORD_EDITION = 3
"""From this edition on, a player's record sent to an observer says whose it
is at its top, in place of the player's own header ("you are Player 1")."""


def _as_observed(game: MailGame, record: dict) -> dict:
    """What a record's template is given besides the player's own data: for
    an observer, no header of the player's, and a heading naming whose record
    it is, and who "you" is in it."""
    if game.edition < OBSERVED_RECORD_EDITION:
        return {}
    return {"bare_header": True, "observed": f"{game.rules.title} game {game.id}: the record of {record['alias']}, "
            f"as the GM sent it to them (\"you\" in it is {record['alias']})"}


def build_observer(notice: Notice, game: MailGame, identity: Identity, event: int, position: int, at: datetime,
                   thread: list[str]) -> Mail:
    """The message for a notice to observer ``notice.observer``."""
    message = Mail()
    message["From"] = f"{identity.name_for(game.rules.title)} <{identity.address}>"
    message["To"] = game.observers[notice.observer - 1]
    message["Subject"] = f"[gm {game.id}] {notice.subject}"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = message_id(identity, game, event, position)
    if thread:
        message["In-Reply-To"] = thread[-1]
        message["References"] = " ".join(thread[-8:])
    message["Auto-Submitted"] = "auto-generated"
    message[GAME_HEADER] = game.id
    message[OBSERVER_HEADER] = str(notice.observer)
    if game.edition >= OBSERVERS_EDITION:
        add_list_headers(message, identity.domain, observer_list(game.id),
                         identity.reply_address(unsubscribe_tag(game.id), OBSERVER))
    package, folders = game.rules.templates, game.rules.template_folders(game.edition)
    fit = fitted if game.edition >= SHEETS_EDITION else str
    records = [(record_name(game, record["player"]),
                _masked(fit(render_text("history", record["data"] | _as_observed(game, record), package, folders))))
               for record in notice.data.get("records", [])]
    with_attachments(message, _masked(fit(render_text(notice.template, notice.data, package, folders))), records,
                     f"gm-{game.id}-{event}-{position}")
    return message
