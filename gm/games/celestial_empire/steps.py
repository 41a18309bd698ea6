"""The modules that carry out the turn's steps, imported so that each
registers its steps with `gm.games.celestial_empire.turn`. The steps that
take no orders run in `turn.END_ORDER`'s order, whatever the order here."""

from . import empire_steps  # noqa: F401  steps 2, 3, 5, 18, 19 and messages
from . import gifts  # noqa: F401  step 4
from . import cargo  # noqa: F401  steps 6, 7 and 12
from . import earth  # noqa: F401  steps 8-9: Earth trade and contracting; Earth's market
from . import spacemines  # noqa: F401  step 10 and step 20 (spacemine attacks)
from . import battle  # noqa: F401  step 11
from . import industry  # noqa: F401  steps 13-16: unbuilding, transmutation, building
from . import movement  # noqa: F401  step 17
from . import endturn  # noqa: F401  steps 21, 23, 24 (mining, ownership, score)
from . import damage  # noqa: F401  step 22 (damage)
