"""The modules that carry out the turn's steps, imported so that each
registers its steps with `gm.games.celestial_empire.turn`."""

from . import empire_steps  # noqa: F401  steps 2, 3, 5, 18, 19 and messages
from . import spacemines  # noqa: F401  step 10 and step 20 (spacemine attacks)
from . import battle  # noqa: F401  step 11
from . import damage  # noqa: F401  step 22 (damage)
