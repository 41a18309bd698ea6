"""The package type-checks: `mypy gm` finds nothing (configuration in setup.cfg), and the
kernel, with the protocol games implement, and the pure league (`gm.league`)
pass `mypy --strict`."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs mypy over all of gm

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_errors_in_gm():
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "gm"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_the_kernel_and_the_league_pass_mypy_strict():
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--strict", "gm/kernel", "gm/league"],
                          cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
