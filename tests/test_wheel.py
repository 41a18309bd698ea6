"""gm as its users get it: the distributions built from this work tree, the
wheel installed into a fresh virtual environment playing a game by mail, and
an editable install of a copy of the work tree rendering a game's
invitations.

The tests run against gm installed (not editable) into .venv, and
`scripts/test` runs pytest with ``python -P`` so that this work tree's own
gm/ folder is never what gets imported: the first test checks that.

The tests marked ``wheel`` are slow (about a minute together, with a warm pip cache): they
build an sdist and a wheel with ``python -m build`` (in an isolated build
environment, as CI or a packager would) and install the wheel, and a copy
of the work tree as an editable install, with their dependencies from PyPI,
into new virtual environments outside the work tree.
They run in the normal test run all the same: a gm that works from a
checkout but not once installed (templates or grammar missing from the
wheel, or not found by an editable install) cannot run a game, and only
these tests see it.
"""

from __future__ import annotations

import contextlib
import email.policy
import os
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from datetime import UTC, datetime
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest

import gm
from gmprocess import stop
from gmtest import SETUP_ALICE, SETUP_BOB

ROOT = Path(__file__).resolve().parent.parent
ALICE = "alice@example.org"
BOB = "bob@example.net"
WAIT = 60.0
"""Seconds any one step of the game by mail may take."""


def wheel(test):
    """Marks a test that builds or installs a distribution: ``wheel``, and ``slow`` (setup.cfg)."""
    return pytest.mark.slow(pytest.mark.wheel(test))


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def test_the_tests_import_the_installed_gm_not_the_work_tree():
    where = Path(gm.__file__)
    assert not _inside(where, ROOT / "gm"), (
        f"the tests imported gm from the work tree ({where}); run them with scripts/test")
    assert _inside(where, Path(sysconfig.get_paths()["purelib"])), where


def _clean_env() -> dict[str, str]:
    """The environment without anything that points Python at other code."""
    return {k: v for k, v in os.environ.items()
            if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "VIRTUAL_ENV", "GM_CRASH_AT"}}


def _run(command: list, timeout: float, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=timeout,
                          env=_clean_env(), **kwargs)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel) built from the work tree; the wheel is built from the
    sdist, as ``python -m build`` does, so the sdist must be complete."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", out, ROOT], timeout=600, cwd=out)
    sdists = list(out.glob("*.tar.gz"))
    wheels = list(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in out.iterdir())
    return sdists[0], wheels[0]


def _project_files(folder: str, pattern: str) -> set[str]:
    return {p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).rglob(pattern)
            if "__pycache__" not in p.parts}


@wheel
def test_the_wheel_holds_the_templates_the_grammar_and_every_module(dists):
    _, built = dists
    assert built.name.startswith("gm_pbem-")
    with zipfile.ZipFile(built) as archive:
        names = set(archive.namelist())
        info = next(n.rsplit("/", 1)[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(f"{info}/METADATA").decode()
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    templates = _project_files("templates", "*")
    assert {"press.txt", "reminder.txt", "_syntax.txt"} <= templates, "the kernel's own templates"
    missing = {f"gm/templates/{t}" for t in templates} - names
    for game in _project_files("gm/games", "*/templates"):
        game_templates = _project_files(f"gm/games/{game}", "*")
        assert {"turn_sheet.txt", "turn_sheet.html"} <= game_templates, game  # every game has a sheet
        missing |= {f"gm/games/{game}/{t}" for t in game_templates
                    if (ROOT / "gm" / "games" / game / t).is_file()} - names
    assert not missing, f"templates missing from the wheel: {sorted(missing)}"
    assert "gm/games/spaceships/notation.lark" in names
    assert "gm/games/celestial_empire/celestial_empire.lark" in names
    modules = {f"gm/{m}" for m in _project_files("gm", "*.py")}
    assert not modules - names, f"modules missing from the wheel: {sorted(modules - names)}"
    assert not [n for n in names if n.startswith(("tests/", "templates/", "bench/"))]
    assert "Name: gm-pbem\n" in metadata
    assert any(n.startswith(f"{info}/") and n.endswith("/LICENSE") for n in names), "no licence in the wheel"
    assert "gm = gm.cli:main" in entry_points and "gm-pbem = gm.cli:main" in entry_points


def archive_text(sdist: Path, name: str) -> str:
    with tarfile.open(sdist) as archive:
        return archive.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/{name}").read().decode()


@wheel
def test_the_sdist_holds_the_licence_and_what_the_tests_need(dists):
    sdist, _ = dists
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1]: m for m in archive.getmembers() if "/" in m.name}
        licence = archive.extractfile(members["LICENSE"]).read().decode()
    assert "GNU GENERAL PUBLIC LICENSE" in licence and "Version 3" in licence
    assert "License-File: LICENSE" in archive_text(sdist, "PKG-INFO")
    for needed in ("README", "setup.cfg", "pyproject.toml", "gm/games/spaceships/notation.lark",
                   "gm/games/spaceships/templates/turn_sheet.html", "templates/press.txt",
                   "tests/gmtest.py", "tests/records/standard-win.rec", "docs/rulings.md",
                   "sample-mail/README", "bench/ingest.py", ".ci/run"):
        assert needed in members, f"{needed} missing from the sdist"
    for script in ("scripts/test", "scripts/serve", "scripts/setup-venv", "scripts/install-test-packages"):
        assert members[script].mode & 0o111, f"{script} is not executable in the sdist"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _delivered(data: Path) -> list:
    """Every message in the local delivery Maildir."""
    found = []
    for sub in ("new", "cur"):
        folder = data / "delivered" / sub
        for path in sorted(folder.iterdir()) if folder.is_dir() else []:
            found.append(BytesParser(policy=email.policy.default).parsebytes(path.read_bytes()))
    return found


def _shunted(data: Path) -> list[str]:
    return [p.name for sub in ("new", "cur", "tmp") if (data / "shunt" / sub).is_dir()
            for p in (data / "shunt" / sub).iterdir()]


def _wait_for(data: Path, daemon: subprocess.Popen, address: str, subject: str):
    """The GM's mail to ``address`` whose subject holds ``subject``, once delivered."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert daemon.poll() is None, f"gm serve exited {daemon.returncode}"
        for message in _delivered(data):
            if address in str(message["To"]) and subject in str(message["Subject"]):
                return message
        assert not _shunted(data), f"mail was shunted: {_shunted(data)}"
        time.sleep(0.1)
    raise AssertionError(f"no mail {subject!r} to {address} within {WAIT} s")


def _answer(port: int, player: str, original, body: str) -> None:
    """Reply to the GM's mail over SMTP, as a mail client would."""
    reply = EmailMessage(policy=email.policy.SMTP)
    reply["From"] = player
    reply["To"] = str(original["Reply-To"])
    reply["Subject"] = "Re: " + str(original["Subject"])
    reply["Date"] = format_datetime(datetime.now(UTC))
    reply["Message-ID"] = make_msgid(domain=player.split("@")[1])
    reply["In-Reply-To"] = str(original["Message-ID"])
    reply.set_content(body)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(player, [str(original["Reply-To"])], reply.as_bytes())


def _venv(folder: Path) -> Path:
    """A fresh virtual environment in ``folder``; its bin/ folder."""
    _run([sys.executable, "-m", "venv", folder], timeout=120)
    return folder / "bin"


def _pip_install(venv_bin: Path, *what) -> None:
    _run([venv_bin / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *what], timeout=600)


@contextlib.contextmanager
def _serving(venv_bin: Path, data: Path, work: Path, log: Path):
    """``gm serve`` of the gm in ``venv_bin`` on a free loopback port, until the
    block ends; yields the daemon and its port."""
    port = _free_port()
    with open(log, "wb") as output:
        daemon = subprocess.Popen([venv_bin / "gm", "serve", "--data", data, "--smtp", f"127.0.0.1:{port}"],
                                  cwd=work, env=_clean_env(), stdin=subprocess.DEVNULL, stdout=output,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + WAIT
            while True:
                assert daemon.poll() is None, f"gm serve exited {daemon.returncode}:\n{log.read_text()}"
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    assert time.monotonic() < deadline, f"gm serve did not listen on {port} within {WAIT} s"
                    time.sleep(0.1)
            yield daemon, port
        finally:
            stop(daemon, signal.SIGTERM, 15)
    assert daemon.returncode is not None


@wheel
def test_the_installed_wheel_plays_a_game_by_mail(dists, tmp_path):
    _, built = dists
    assert not _inside(tmp_path, ROOT)
    venv = tmp_path / "venv"
    venv_bin = _venv(venv)
    _pip_install(venv_bin, built)
    work = tmp_path / "work"
    work.mkdir()
    where = _run([venv_bin / "python", "-c", "import gm.pbem.writing.mailer, gm; print(gm.__file__)"],
                 timeout=60, cwd=work).stdout.strip()
    assert _inside(Path(where), venv), where
    assert "gm " in _run([venv_bin / "gm-pbem", "--version"], timeout=60, cwd=work).stdout

    data = work / "data"
    with _serving(venv_bin, data, work, tmp_path / "serve.log") as (daemon, port):
        _run([venv_bin / "gm", "new", "--data", data, "--player", ALICE, "--player", BOB],
             timeout=60, cwd=work)
        invitations = {p: _wait_for(data, daemon, p, "Invitation") for p in (ALICE, BOB)}
        for player, setup in ((ALICE, SETUP_ALICE), (BOB, SETUP_BOB)):
            _answer(port, player, invitations[player], setup)
        for player in (ALICE, BOB):
            sheet = _wait_for(data, daemon, player, "Turn 1: the game begins")
            assert "== The spaces ==" in sheet.get_body(preferencelist=("plain",)).get_content()
            assert "<html" in sheet.get_body(preferencelist=("html",)).get_content().lower()
        listing = _run([venv_bin / "python", "-m", "gm", "games", "--data", data], timeout=60, cwd=work).stdout
        assert listing.strip(), "gm games lists no game"
        assert not _shunted(data), f"mail was shunted: {_shunted(data)}"


_NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                     ".hypothesis", "gm-data", "*.mbox")
"""What a checkout holds besides its source (.gitignore's list)."""


def _copy_of_the_work_tree(where: Path) -> Path:
    """The work tree's source, copied to ``where`` (without its .venv, its
    build leftovers, or a gm/templates folder an old layout left behind)."""
    shutil.copytree(ROOT, where, ignore=_NOT_SOURCE)
    shutil.rmtree(where / "gm" / "templates", ignore_errors=True)
    return where


def _invitations_rendered(venv_bin: Path, work: Path) -> None:
    """``gm serve`` and ``gm new`` of the gm in ``venv_bin`` make a game whose
    invitations, rendered from the templates, reach the delivered Maildir."""
    work.mkdir()
    data = work / "data"
    with _serving(venv_bin, data, work, work / "serve.log") as (daemon, _):
        _run([venv_bin / "gm", "new", "--data", data, "--player", ALICE, "--player", BOB], timeout=60, cwd=work)
        for player in (ALICE, BOB):
            invitation = _wait_for(data, daemon, player, "Invitation")
            text = invitation.get_body(preferencelist=("plain",)).get_content()
            assert "You are invited to a game of Spaceships" in text, text
            assert "password " in text, text
        assert not _shunted(data), f"mail was shunted: {_shunted(data)}"


def _where_gm_is(venv_bin: Path, work: Path) -> tuple[Path, Path]:
    """Where the gm in ``venv_bin`` imports gm and its kernel's templates from."""
    found = _run([venv_bin / "python", "-c",
                  "import gm, gm.templates; print(gm.__file__); print(gm.templates.__file__)"],
                 timeout=60, cwd=work).stdout.split()
    return Path(found[0]), Path(found[1])


@wheel
def test_an_editable_install_renders_the_invitations(tmp_path):
    """``pip install -e`` of a copy of the work tree, as a developer would.
    (An sdist install is what the wheel test already covers: pip builds the
    same wheel from the sdist that ``python -m build`` builds.)"""
    assert not _inside(tmp_path, ROOT)
    source = _copy_of_the_work_tree(tmp_path / "checkout")
    venv_bin = _venv(tmp_path / "venv")
    _pip_install(venv_bin, "--editable", source)
    package, templates = _where_gm_is(venv_bin, tmp_path)
    assert _inside(package, source / "gm") and _inside(templates, source / "templates"), (package, templates)
    _invitations_rendered(venv_bin, tmp_path / "work")
