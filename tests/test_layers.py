"""The layers hold (issue 20): import-linter checks the contracts in
setup.cfg over the work tree's gm/: the command line on top, then the daemon,
the web archive, the mail edge, the games and the kernel at the bottom;
infrastructure importing none of them; each game on its own; and no import
circle anywhere. A circle or an upward import fails the run, not a review."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_layering_contracts_hold():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}  # the work tree's gm, as the contracts name it
    done = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout
