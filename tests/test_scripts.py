"""scripts/serve and scripts/setup-venv (issue 22, point 6), run on a copy of
them whose .venv is a stand-in: its python records every pip command
instead of running it, and its gm prints the arguments it was given. So
the tests see what the scripts would install and run, in a second, and
never touch the .venv the tests run from."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILT_FROM = ("gm", "templates", "scripts", "setup.cfg", "pyproject.toml", "MANIFEST.in", "README", "LICENSE")
"""What the scripts read of a work tree."""


@pytest.fixture
def tree(tmp_path) -> Path:
    """A copy of the work tree's scripts and sources, with a stand-in .venv
    on which gm is installed and the dependencies are up to date."""
    tree = tmp_path / "tree"
    for name in BUILT_FROM:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, tree / name)
    venv_bin = tree / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    _script(venv_bin / "python",
            f"""if [ "$1" = -m ] && [ "$2" = pip ]; then echo "$*" >> "$(dirname "$0")/../pip.log"; exit 0; fi
exec {sys.executable} "$@"
""")
    _script(venv_bin / "gm", 'echo "gm $*"\n')
    site = tree / ".venv" / "lib" / "python3.11" / "site-packages" / "gm"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (tree / ".venv" / ".installed").touch()
    os.utime(tree / ".venv" / ".installed", (2**31, 2**31))  # newer than setup.cfg: the dependencies are in
    return tree


def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def _run(tree: Path, *command: str) -> str:
    done = subprocess.run([str(tree / "scripts" / command[0]), *command[1:]], capture_output=True, text=True,
                          timeout=60, cwd=tree)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _installs(tree: Path) -> list[str]:
    """The gm installs pip was asked for since the last call."""
    log = tree / ".venv" / "pip.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [line for line in lines if "--force-reinstall" in line]


def test_serve_passes_every_gm_command_through_and_options_to_gm_serve(tree):
    assert _run(tree, "serve") == "gm serve\n"
    assert _run(tree, "serve", "--data", "demo-data", "--address", "gm@example.org") == \
        "gm serve --data demo-data --address gm@example.org\n"
    assert _run(tree, "serve", "pause", "g3") == "gm pause g3\n"
    assert _run(tree, "serve", "shunt", "list") == "gm shunt list\n"
    assert _run(tree, "serve", "new", "--player", "you@localhost", "--player", "friend@localhost") == \
        "gm new --player you@localhost --player friend@localhost\n"


def test_gm_is_reinstalled_only_when_what_a_wheel_holds_changed(tree):
    _run(tree, "setup-venv")
    assert len(_installs(tree)) == 1, "the first call installs the work tree"
    _run(tree, "setup-venv")
    _run(tree, "serve", "games")
    assert _installs(tree) == [], "nothing changed: nothing is reinstalled"
    os.utime(tree / "templates" / "press.txt")
    _run(tree, "setup-venv", "test")
    assert _installs(tree) == [], "a file touched, not changed"
    for changed in ("templates/press.txt", "gm/kernel/addresses.py", "setup.cfg"):
        with open(tree / changed, "a") as file:
            file.write("\n")
        (tree / ".venv" / ".installed-test").touch()
        _run(tree, "setup-venv", "test")
        assert len(_installs(tree)) == 1, f"{changed} changed: gm is reinstalled"
    (tree / "gm" / "kernel" / "addresses.py").unlink()
    _run(tree, "setup-venv")
    assert len(_installs(tree)) == 1, "a file removed: gm is reinstalled"
    shutil.rmtree(tree / ".venv" / "lib")
    _run(tree, "setup-venv")
    assert len(_installs(tree)) == 1, "gm is not installed in .venv (or only as an editable install)"
