"""The modules that carry out the turn's steps, imported so that each
registers its steps with `gm.games.celestial_empire.turn`."""

from . import empire_steps  # noqa: F401  steps 2, 3, 5, 18, 19 and messages
from . import gifts  # noqa: F401  step 4
from . import cargo  # noqa: F401  steps 6, 7 and 12
