"""Playing by email: the daemon around the kernel, and games kept as mail.

Mail comes in (`daemon`, `listener`, `imap`; `arrival` dates it), is spooled
in the data directory (`store`), and is screened by the master's named rules
(`screening`, deciding as `decisions` says) before the master (`master`)
applies it to its game through the kernel. Every event and every message the
GM sends is kept in the game's archive (`archive`, `events`, `creation`), from
which `gm replay` rebuilds the game byte for byte; one writer writes all of
the GM's mail (`writer`, `mailer`, `observers`), and `delivery` sends it.
"""

from .. import games  # noqa: F401  (adds gm's games to the kernel's registry, `gm.kernel.protocol.REGISTRY`)
