"""A reply that confirms a request of a player's (a setting, a vacation, a
deputy, a name, a taking, a tournament's sign-up, all kept in ``requests/``;
a seek, kept in ``seeks/``): one check for the answers that ask for such a
reply (`gm.pbem.answers.settings`, `.away`, `.deputies`, `.league`,
`.tournaments`)."""

from __future__ import annotations

import re
from email.message import Message

from ...mail.reading import parse_message
from ...storage import DurableMaildir
from ..archive.replay import orders_text
from ..data.store import Store
from ..data.tokens import verify
from ..intake.decisions import Shunted
from .outside import fields_of

REQUEST_HEADER = "X-GM-Request"
"""The header that records a kept request's fields: ``id=...; kind=...; address=...``."""
CONFIRMING = 1
"""The "player" number of the reply address that confirms a player's own request."""
_CONFIRM = re.compile(r"^\s*confirm\s*$", re.I | re.M)


def confirmed_request(store: Store, message: Message, request_id: str, side: int, secret: str, done: str,
                      kept_in: DurableMaildir | None = None) -> tuple[bytes, dict[str, str]]:
    """The request ``request_id`` kept in ``kept_in`` (``requests/`` unless
    given) and the fields of its ``X-GM-Request`` header (none for a seek,
    whose header is its own), once ``message`` proves to confirm it: the
    reply address's token is the one sent for that request and side, its
    text says ``confirm``, and the step is not done already (its marker
    ``done``); raises `Shunted` otherwise."""
    folder = store.requests if kept_in is None else kept_in
    if not verify(store.key, request_id, side, secret) or request_id not in folder:
        raise Shunted(f"not a valid confirmation of {request_id}")
    if not _CONFIRM.search(orders_text(message)[0]):
        raise Shunted(f"answer to {request_id} without 'confirm'")
    if done in store.handled:
        raise Shunted(f"{request_id} was confirmed already")
    kept = folder.get_bytes(request_id)
    return kept, fields_of(parse_message(kept), REQUEST_HEADER)
