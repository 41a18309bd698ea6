"""The project lints clean: `ruff check` (configured in pyproject.toml) finds nothing, so that every
test run, and CI with it, keeps the habit."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-10000:] + done.stderr[-2000:]
