"""What `gm serve` can be told: the daemon's `Config`, with its defaults.

Apart from `gm.daemon` so that the daemon's module holds what it does; the
daemon imports it, and the names are also to be had from there."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import time, timedelta

from .pbem.answers.away import BANK
from .pbem.intake.limits import Limits
from .pbem.master.digests import DIGEST_TIME
from .pbem.serving.delivery import Relay
from .pbem.writing.mailer import Identity

DEFAULT_SMTP = ("127.0.0.1", 2525)
MAX_MESSAGE_BYTES = 1_000_000
"""Mail bigger than this is refused at SMTP with 552."""
CATCH_UP = timedelta(minutes=2)
"""The default `Config.catch_up` behind an MTA or IMAP server."""
MAX_CONNECTIONS = 100
"""SMTP and LMTP connections open at once; past this they get 421."""


@dataclass
class Config:
    """Everything `gm serve` can be told (command line or TOML file).

    `gm.configfile.SETTINGS` declares the settings; `gm serve` fills each
    field named as a setting (``trusted-received``: ``trusted_received``)
    from it, read by its kind, and leaves the default when it is not given."""

    data: str = "gm-data"
    smtp: tuple[str, int] | None = DEFAULT_SMTP
    lmtp: tuple[str, int] | None = None
    http: tuple[str, int] | None = None
    """Where to serve the public web archive of finished games (`gm.web`); off by default."""
    web_only: bool = False
    """Serve only the web archive: no master, no listeners for mail, no
    delivery, nothing written (beside a daemon on the same data directory)."""
    imap: str | None = None
    imap_user: str | None = None
    imap_password: str | None = None
    imap_folder: str = "INBOX"
    relay: Relay | None = None
    identity: Identity = field(default_factory=Identity)
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_connections: int = MAX_CONNECTIONS
    limits: Limits = field(default_factory=Limits)
    trusted_received: int = 1
    """Received headers at the top of LMTP mail that the operator's own MTA
    wrote; the lowest of them dates the mail (`gm.pbem.intake.arrival`)."""
    owner: str | None = None
    """The operator's address: actions by mail (confirmed), the daily summary
    (`gm.pbem.answers.owner`)."""
    web_url: str | None = None
    """The web archive's public address, for the one-click unsubscribe links
    of mail that belongs to no game (`gm.pbem.writing.lists`)."""
    catch_up: timedelta | None = None
    """How long deadlines that passed while gm was down wait after it starts,
    for mail queued meanwhile in the MTA or the IMAP folder. None: two
    minutes behind LMTP or IMAP, none for SMTP alone."""

    vacation_bank: timedelta = BANK
    """How long one player's vacations for all games (`gm.pbem.answers.away`)
    may add up to in any rolling year."""
    digest_time: time = DIGEST_TIME
    """When a player's daily digest is due, in their own time (`gm.pbem.master.digests`)."""
    masters: int = 1
    """How many master processes run the games (`gm.masters`): 1, the
    default, runs them in the daemon's own process."""

    def catch_up_time(self) -> timedelta:
        if self.catch_up is not None:
            return self.catch_up
        return CATCH_UP if (self.lmtp or self.imap) else timedelta(0)
