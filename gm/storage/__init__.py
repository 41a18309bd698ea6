"""Where gm keeps what must survive a crash or a power cut, in three parts:

- `gm.storage.maildirs`: durable Maildirs, every message gm keeps a file
  any mail client can open;
- `gm.storage.batches`: staged files and group commit, a batch's files
  published whole (with a manifest) after one data barrier;
- `gm.storage.syncing`: how data and names are made durable (fsync, or
  syncfs once per file system), and the `Syncer` each writer has;
- `gm.storage.removals`: the files a master's batch took out of their
  Maildirs, unlinked by a thread of their own.

Each module's docstring holds its part of the design. Infrastructure: it
imports none of gm's layers.
"""
