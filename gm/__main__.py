"""``python -m gm``: the ``gm`` command."""

import sys

from .cli import main

sys.exit(main())
