"""When a mail arrived, for the rules of time: deadlines, and the order of
mails in a turn.

Mail that waited in the operator's MTA queue or IMAP folder while gm was
down counts from when it reached the operator's first server that accepted
it, not from when gm read it:

- over SMTP, gm itself is that server: the time it spooled the mail;
- over LMTP, behind an MTA: the date of the Received header that MTA added
  on accepting it, the ``trusted``-th from the top (1 when the MTA adds one
  header on receipt, as Postfix and Exim do; more when filters re-inject
  it). Headers further down are written by the sender's side and prove
  nothing;
- over IMAP: the message's INTERNALDATE, which the IMAP server set on
  delivery.

A time that cannot be read, lies in the future, or lies further back than an
MTA keeps mail queued (`LONGEST_WAIT`) counts as now.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

LONGEST_WAIT = timedelta(days=5)
"""Postfix's maximal_queue_lifetime and Exim's usual retry limit."""

_HEADER_END = re.compile(rb"\r?\n\r?\n")
_RECEIVED = re.compile(rb"^Received:(.*(?:\r?\n[ \t].*)*)", re.I | re.M)


def received_dates(raw: bytes) -> list[str]:
    """The date part (after the last ';') of each Received header, top first."""
    head = _HEADER_END.split(raw, 1)[0]
    dates = []
    for found in _RECEIVED.finditer(head):
        value = b" ".join(found.group(1).split())
        dates.append(value.rpartition(b";")[2].strip().decode("ascii", "replace"))
    return dates


def arrival_time(raw: bytes, origin: str, now: datetime, trusted: int = 1,
                 internal_date: datetime | None = None) -> datetime:
    """When ``raw`` reached the operator's first server (see the module)."""
    claimed: datetime | None = None
    if origin == "imap":
        claimed = internal_date
    elif origin == "lmtp":
        dates = received_dates(raw)
        if 0 < trusted <= len(dates):
            try:
                claimed = parsedate_to_datetime(dates[trusted - 1])
            except (TypeError, ValueError, IndexError):
                claimed = None
    if claimed is None:
        return now
    if claimed.tzinfo is None:
        claimed = claimed.replace(tzinfo=UTC)
    claimed = claimed.astimezone(UTC)
    if claimed > now or claimed < now - LONGEST_WAIT:
        return now
    return claimed
