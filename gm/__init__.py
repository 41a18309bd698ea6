"""gm: a game master for board games played by email.

`gm.kernel` runs games by mail and knows no game; each game is a package in
`gm.games` (`gm.games.spaceships`, `gm.games.gridfighters`) whose rules core
is pure: no I/O, no clock, no randomness.
"""

__version__ = "0.2.0"
