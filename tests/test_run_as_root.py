"""The administrator's commands on a data directory that belongs to another
user, as under systemd (docs/operations.md, "As a systemd service"): run
by root, each one that writes the directory writes it as its owner (its
user, the directory's group, no more permissions than the directory has),
and a real daemon running as the owner goes on handling the games; ``gm
serve`` started by root runs as the owner itself; run by
a user who is neither root nor the owner, each is refused in one line that
says how to run it, and writes nothing. The commands that only read keep
working as root.

Needs root (to hand files to other users and run processes as them); the
users are Debian's own ``nobody`` (the owner) and ``daemon`` (whose group
is the directory's, and who is refused)."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gm.pbem.data.store import Store
from gmprocess import free_port, inbox, listening, stop, wait_for
from gmtest import GM, send


def _user(name: str) -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def reachable(path: str) -> bool:
    """Whether every user may go through each folder above ``path``."""
    return all(folder.stat().st_mode & 0o001 for folder in Path(os.path.realpath(path)).parents)


def _interpreter() -> tuple[list[str], dict[str, str]] | None:
    """How another user runs the installed gm: with this Python, or, when it
    lies where only root may go (a pyenv under /root), with the system's
    Python of the same version, given this one's installed packages. None
    when neither can."""
    if reachable(sys.executable):
        return [sys.executable, "-P"], {}
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        return None
    version = subprocess.run([system, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
    if version != str(sys.version_info[:2]):
        return None
    packages = os.pathsep.join(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]))
    return [system, "-P"], {**os.environ, "PYTHONPATH": packages}


OWNER, OTHER = _user("nobody"), _user("daemon")
AS_USER = _interpreter() if os.geteuid() == 0 else None
pytestmark = [pytest.mark.slow,  # real daemons and commands run as other users
              pytest.mark.skipif(AS_USER is None or OWNER is None or OTHER is None,
                                 reason="needs root, the users nobody and daemon, and a Python they can run")]
MODE = 0o750
ALICE, BOB = "alice@example.org", "bob@example.org"


def owned_folder(prefix: str) -> Path:
    """A new folder in /tmp (which every user can reach, unlike pytest's
    tmp_path) belonging to nobody, in daemon's group, mode 0750."""
    assert OWNER is not None and OTHER is not None
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    os.chown(folder, OWNER.pw_uid, OTHER.pw_gid)
    folder.chmod(MODE)
    return folder


@pytest.fixture
def data() -> Iterator[Path]:
    folder = owned_folder("gm-owned-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def gm(*args: str, user: pwd.struct_passwd | None = None) -> subprocess.CompletedProcess:
    """Run the installed gm, as root or as ``user`` (with only its own group),
    with a Python the owner can run too, as the daemon's user can on a real
    installation."""
    assert AS_USER is not None
    python, env = AS_USER
    who = {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    return subprocess.run([*python, "-m", "gm", *args], cwd="/tmp", capture_output=True, text=True, timeout=60,
                          env=env or None, **who)


def serve_as_owner(data: Path, port: int, output: int) -> subprocess.Popen:
    """``gm serve`` as the owner, in the directory's group, with a umask that fits its mode (as systemd's
    ``UMask`` does); ``output`` takes its stdout and stderr."""
    assert AS_USER is not None and OWNER is not None and OTHER is not None
    python, env = AS_USER
    return subprocess.Popen([*python, "-m", "gm", "serve", "--data", str(data), "--smtp", f"127.0.0.1:{port}",
                             "--address", GM], cwd="/tmp", env=env or None, user=OWNER.pw_uid, group=OTHER.pw_gid,
                            extra_groups=[], umask=0o027, stdout=output, stderr=output)


def strangers(*roots: Path) -> list[tuple[str, int, int, str]]:
    """Every file and folder under ``roots`` that does not belong to the
    owner, in the folder's group, with no more permissions than it has."""
    assert OWNER is not None and OTHER is not None
    found = []
    for root in roots:
        for folder, names, files in os.walk(root):
            for path in [Path(folder), *(Path(folder) / name for name in names + files)]:
                try:
                    info = path.lstat()
                except FileNotFoundError:  # a file the daemon renamed meanwhile
                    continue
                if (info.st_uid, info.st_gid) != (OWNER.pw_uid, OTHER.pw_gid) or stat.S_IMODE(info.st_mode) & ~MODE:
                    found.append((str(path), info.st_uid, info.st_gid, oct(stat.S_IMODE(info.st_mode))))
    return found


def everything(root: Path) -> dict[str, tuple[int, ...]]:
    """Each path under ``root`` with what a write would change of it."""
    found = {}
    for folder, names, files in os.walk(root):
        for path in [Path(folder), *(Path(folder) / name for name in names + files)]:
            info = path.lstat()
            found[str(path)] = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_mode,
                                info.st_uid, info.st_gid)
    return found


def shunted(data: Path) -> list[str]:
    return sorted(p.name.split(":")[0] for sub in ("new", "cur") for p in (data / "shunt" / sub).iterdir())


def test_commands_run_as_root_write_as_the_owner_whose_daemon_goes_on(data, tmp_path):
    assert OWNER is not None and OTHER is not None
    port = free_port()
    daemon = serve_as_owner(data, port, subprocess.PIPE)
    try:
        wait_for("the SMTP listener", lambda: listening(port) or daemon.poll() is not None)
        assert daemon.poll() is None and strangers(data) == []

        new = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB)
        assert new.returncode == 0 and new.stdout.startswith("game requested: g1 "), new.stderr
        assert strangers(data) == []
        wait_for("the invitations", lambda: inbox(data, ALICE) and inbox(data, BOB),
                 lambda: daemon.stderr.read1().decode() if daemon.poll() is not None else "")

        for action in (("pause", "g1"), ("resume", "g1"), ("deadline", "g1", "--extend", "24h"),
                       ("replace", "g1", "--player", "2", "--address", "carol@example.org"),
                       ("answer", "g1", "--player", "1", "--text", "yes")):
            done = gm(*action, "--data", str(data))
            assert done.returncode == 0 and "requested" in done.stdout, done.stderr
            assert strangers(data) == []
            wait_for(f"the daemon to apply {action[0]}", lambda: not os.listdir(data / "spool" / "new"))

        send(port, b"From: eve@example.net\r\nTo: gm+g77.1.abcdefgh@example.org\r\nSubject: x\r\n\r\nhello\r\n",
             "eve@example.net", ["gm+g77.1.abcdefgh@example.org"])
        first = wait_for("the shunted mail", lambda: shunted(data))
        released = gm("shunt", "release", first[0], "--data", str(data))
        assert released.returncode == 0 and strangers(data) == [], released.stderr
        again = wait_for("the released mail shunted again", lambda: [k for k in shunted(data) if k not in first])
        discarded = gm("shunt", "discard", again[0], "--data", str(data))
        assert discarded.returncode == 0 and strangers(data) == [], discarded.stderr

        # What only reads works as root, and writes its mbox as root, where the owner could not.
        listed = gm("games", "--data", str(data))
        assert listed.returncode == 0 and listed.stdout.startswith("g1 "), listed.stderr
        assert gm("show", "g1", "--data", str(data)).returncode == 0
        assert gm("shunt", "list", "--data", str(data)).returncode == 0
        mbox = tmp_path / "g1.mbox"
        exported = gm("export", "g1", "--mbox", str(mbox), "--data", str(data))
        assert exported.returncode == 0 and mbox.stat().st_uid == 0, exported.stderr

        before = len(inbox(data, ALICE))
        cancelled = gm("cancel", "g1", "--reason", "the test is over", "--data", str(data))
        assert cancelled.returncode == 0, cancelled.stderr
        wait_for("the cancellation, after every request before it", lambda: len(inbox(data, ALICE)) > before
                 and not os.listdir(data / "spool" / "new"))
        assert strangers(data) == []
    finally:
        stop(daemon)
    assert daemon.returncode == 0, daemon.stderr.read().decode() if daemon.stderr else ""
    log = daemon.stderr.read().decode() if daemon.stderr else ""
    assert "Permission denied" not in log and "ERROR" not in log, log


def uid_of(process: subprocess.Popen) -> int:
    """The real user id a process runs as now."""
    status = Path(f"/proc/{process.pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def test_gm_serve_run_as_root_runs_as_the_owner_and_writes_nothing_as_root(data):
    """A data directory that belongs to another user (as under systemd):
    ``gm serve`` started by root becomes its owner before it opens or binds
    anything, as the administration commands do, so the owner's own daemon
    can go on with everything it wrote."""
    assert AS_USER is not None and OWNER is not None and OTHER is not None
    python, env = AS_USER
    port = free_port()
    daemon = subprocess.Popen([*python, "-m", "gm", "serve", "--data", str(data), "--smtp", f"127.0.0.1:{port}",
                               "--address", GM], cwd="/tmp", env=env or None, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        wait_for("the SMTP listener", lambda: listening(port) or daemon.poll() is not None)
        assert daemon.poll() is None and uid_of(daemon) == OWNER.pw_uid
        new = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB)
        assert new.returncode == 0, new.stderr
        wait_for("the invitations", lambda: inbox(data, ALICE) and inbox(data, BOB),
                 lambda: daemon.stderr.read1().decode() if daemon.poll() is not None and daemon.stderr else "")
        assert strangers(data) == []
    finally:
        stop(daemon)
    assert daemon.returncode == 0, daemon.stderr.read().decode() if daemon.stderr else ""
    owners = serve_as_owner(data, port, subprocess.DEVNULL)  # the owner's own daemon takes over what root's left
    try:
        wait_for("the owner's daemon", lambda: listening(port) or owners.poll() is not None)
        assert owners.poll() is None
    finally:
        stop(owners)
    assert owners.returncode == 0 and strangers(data) == []


def test_a_game_moved_between_shards_by_root_belongs_to_the_owners(data):
    """``gm shard init``, ``export`` and ``import`` as root (the daemons stopped)."""
    assert OWNER is not None and OTHER is not None
    Store(data)  # a data directory as the daemon makes it, with a game spooled
    for path in [data, *data.rglob("*")]:
        os.chown(path, OWNER.pw_uid, OTHER.pw_gid)
        path.chmod(MODE if path.is_dir() else 0o600)
    assert gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB).returncode == 0
    port = free_port()
    daemon = serve_as_owner(data, port, subprocess.DEVNULL)
    try:
        wait_for("the game", lambda: inbox(data, ALICE))
    finally:
        stop(daemon)
    other, bundles = owned_folder("gm-owned-b-"), owned_folder("gm-bundles-")
    try:
        shutil.copy2(data / "secret.key", other / "secret.key")
        Store(other)
        for path in [other, *other.rglob("*")]:
            os.chown(path, OWNER.pw_uid, OTHER.pw_gid)
            path.chmod(MODE if path.is_dir() else 0o600)
        assert gm("shard", "init", "1/2", "--data", str(data)).returncode == 0
        exported = gm("shard", "export", "g1", "--data", str(data), "--address", GM, "--to", str(bundles / "g1"))
        assert exported.returncode == 0, exported.stderr
        imported = gm("shard", "import", str(bundles / "g1"), "--data", str(other))
        assert imported.returncode == 0, imported.stderr
        assert (other / "games" / "g1" / "new").is_dir()
        assert strangers(data, other, bundles) == []
    finally:
        shutil.rmtree(other, ignore_errors=True)
        shutil.rmtree(bundles, ignore_errors=True)


def test_a_user_who_is_not_the_owner_is_refused_and_writes_nothing(data):
    assert OWNER is not None and OTHER is not None
    Store(data)
    (data / "shunt" / "new" / "00000000000000000001.smtp.abc").write_bytes(b"X-GM-Shunt-Reason: test\n\nhi\n")
    for path in [data, *data.rglob("*")]:
        os.chown(path, OWNER.pw_uid, OTHER.pw_gid)
        path.chmod(MODE if path.is_dir() else 0o640)
    before = everything(data)
    bundle = Path("/tmp") / f"{data.name}-bundle"
    for command in (("new", "--player", ALICE, "--player", BOB), ("pause", "g1"), ("resume", "g1"),
                    ("deadline", "g1", "--extend", "24h"), ("replace", "g1", "--player", "2", "--address", BOB),
                    ("cancel", "g1", "--reason", "no"), ("answer", "g1", "--player", "1", "--text", "no"),
                    ("shunt", "release", "abc"), ("shunt", "discard", "abc"), ("shard", "init", "0/2"),
                    ("shard", "export", "g1", "--to", str(bundle)), ("shard", "import", str(bundle)),
                    ("serve", "--smtp", f"127.0.0.1:{free_port()}", "--address", GM)):
        words = [*command, "--data", str(data)]
        refused = gm(*words, user=OTHER)
        assert refused.returncode == 2 and refused.stdout == "", refused.stderr
        line = refused.stderr
        assert line.startswith(f"gm {command[0]}: {data} belongs to nobody, not to daemon") and line.count("\n") == 1
        assert f"run `sudo -u nobody gm {' '.join(words)}`" in line and line.endswith("nothing was written\n"), line
        assert everything(data) == before and not bundle.exists(), command
    done = gm("new", "--player", ALICE, "--player", BOB, "--data", str(data), user=OWNER)  # as the line says
    assert done.returncode == 0 and done.stdout.startswith("game requested: g1 "), done.stderr
    assert (data / "games" / "g1").stat().st_uid == OWNER.pw_uid


@pytest.mark.skipif(reachable(sys.executable), reason="the owner can run this Python")
def test_root_is_refused_when_the_owner_cannot_run_this_gm(data):
    """This Python (a pyenv under /root, say) is one the owner cannot run:
    acting as the owner, the command could not go on importing."""
    assert OWNER is not None and OTHER is not None
    Store(data)
    for path in [data, *data.rglob("*")]:
        os.chown(path, OWNER.pw_uid, OTHER.pw_gid)
    before = everything(data)
    refused = subprocess.run([sys.executable, "-P", "-m", "gm", "new", "--data", str(data), "--player", ALICE,
                              "--player", BOB], cwd="/tmp", capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith(f"gm new: root acts as nobody, who owns {data}, but nobody cannot read ")
    assert refused.stderr.endswith("nothing was written\n") and everything(data) == before
