"""The modules that carry out the turn's steps, imported so that each
registers its steps with `gm.games.celestial_empire.turn`."""

from . import empire_steps  # noqa: F401  steps 2, 3, 5, 18, 19 and messages
from . import movement  # noqa: F401  step 17
from . import industry  # noqa: F401  steps 13-16: unbuilding, transmutation, building
from . import endturn  # noqa: F401  steps 21, 23, 24 (END_OF_TURN: mining, ownership, score)
# The steps without orders run in turn.AUTOMATIC's order, whatever the order here.
from . import earth  # noqa: F401  steps 8-9: Earth trade and contracting; Earth's market
