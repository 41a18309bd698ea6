"""Playing by email: the mail edge around the kernel, and games kept as mail.

One sub-package for each kind of work, bottom up, each importing only those
before it in this list (a layers contract in setup.cfg checks it):

- `data`: the data directory: `store` (the spool, the archives, the outbox,
  the shunt, shard numbering), `tokens` (the players' secrets) and
  `crashpoints` (where the crash tests stop gm);
- `writing`: the mail the GM writes, all through one writer (`writer`),
  players' notices (`mailer`) and observers' mail (`observers`);
- `archive`: games as mail: the GM's own events (`events`), a game's
  creation (`creation`), and the archive read back (`replay`), from which
  `gm replay` rebuilds a game byte for byte;
- `state`: games kept: in memory (`resident`), as snapshots (`snapshots`),
  and loaded from both (`loading`);
- `operator`: the operator's requests: actions and the shunt (`actions`),
  `gm new`, `gm games`, `gm replay` (`admin`), and shard moves (`shards`);
- `intake`: what an incoming mail is: when it counts as come (`arrival`),
  whom it is for (`addressing`), the daily allowances (`limits`) and what
  handling it can end in (`decisions`);
- `answers`: the GM's answers that change no game: mail about no game and
  challenges (`outside`), the owner's mail (`owner`), a seat's new address
  (`moving`);
- `master`: the master (`game_master`: its batches, applying events), its
  mail screening as named rules (`screening`), its clock (`clockwork`), the
  games it keeps (`keeping`), the robot's seats (`robots`), and what it does
  about its own faults (`faults`);
- `serving`: the listeners (`listener` for SMTP and LMTP, `imap`) and
  `delivery`.

The daemon that runs them in one process, with the web archive, is
`gm.daemon`; importing this package adds gm's games to the kernel's registry.
"""

from .. import games  # noqa: F401  (adds gm's games to the kernel's registry, `gm.kernel.protocol.REGISTRY`)
