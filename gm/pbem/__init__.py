"""Playing by email: games as sequences of mail events, and the daemon around them.

`model` and `engine` are pure (time comes in as an argument); `mailer`,
`store`, `pipeline` and `daemon` are the edges that touch mail, disk and the
clock.
"""

from .. import games  # noqa: F401  (adds gm's games to the kernel's registry, `gm.kernel.protocol.REGISTRY`)
