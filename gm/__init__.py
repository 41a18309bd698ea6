"""gm: a game master for Spaceships played by email.

The rules core (pure: no I/O, no clock, no randomness) is `gm.geometry`,
`gm.ships`, `gm.orders`, `gm.notation`, `gm.fleet`, `gm.state`,
`gm.checking`, `gm.resolution`, `gm.events` and `gm.game`.
"""

__version__ = "0.1.0"
