"""A private, real Dovecot IMAP server for the integration tests.

Usage in a test module or conftest.py::

    from dovecot import dovecot_server          # a function-scoped fixture

    def test_something(dovecot_server):
        dovecot_server.deliver(raw_message_bytes)
        with dovecot_server.client() as imap:   # a logged-in IMAPClient
            imap.select_folder("INBOX")

Other scopes or users come from the fixture factory::

    from dovecot import dovecot_fixture
    imap_server = dovecot_fixture(scope="module", users={"gm@example.test": "pw"})

or from ``Dovecot`` itself, a context manager::

    with Dovecot() as server:
        ...

Each instance runs ``dovecot -F -c CONF`` with its own configuration, base_dir,
state_dir, log file, passwd-file and Maildirs, all in one temporary directory
that is removed when the server stops.  It listens on 127.0.0.1 only, on a free
ephemeral port, speaks plain IMAP (no TLS) and nothing else: no POP3, LMTP,
submission or imaps listener.  It never uses, and is never confused with, a
system Dovecot on ports 143/993: readiness is checked against a greeting that
carries this instance's own random token.

When the ``dovecot`` binary (or the ``imapclient`` package) is missing the
fixtures skip, unless the environment variable CI is set: there a missing
install step is a failure, so a green CI run can never hide it.
"""

from __future__ import annotations

import contextlib
import ctypes
import grp
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from gmprocess import read_greeting

HOST = "127.0.0.1"
DEFAULT_USER = "gm@example.test"
START_TIMEOUT = 10.0  # seconds for the server to answer its first greeting
STOP_TIMEOUT = 10.0  # seconds for the master and its children to exit
STOP_GRACE = 0.2  # seconds after SIGTERM before SIGKILL
PORT_ATTEMPTS = 5  # fresh ports tried when the chosen one was taken meanwhile

_SBIN_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin")
# Passwords and user names go into a colon-separated passwd-file and a config
# file: keep them to characters that need no quoting anywhere.
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.@+-]+$")


class DovecotError(RuntimeError):
    """The private Dovecot could not be started or stopped."""


def find_dovecot() -> str | None:
    """Path of the dovecot binary, or None.  /usr/sbin is often not on a
    non-root user's PATH, so it is searched as well."""
    found = shutil.which("dovecot")
    if found:
        return found
    for directory in _SBIN_DIRS:
        candidate = os.path.join(directory, "dovecot")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def in_ci() -> bool:
    return bool(os.environ.get("CI", "").strip())


def require_or_skip(reason: str) -> None:
    """Skip the test for a missing prerequisite, but fail it under CI."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip; "
                    f"run scripts/install-test-packages)", pytrace=False)
    pytest.skip(reason)


def free_port(host: str = HOST) -> int:
    """A port that was free a moment ago: bind port 0, read it, close."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _short_tempdir() -> str:
    """A fresh private directory.  Dovecot puts unix sockets in base_dir and
    a socket path may be at most 107 bytes, so avoid a long $TMPDIR."""
    parent = tempfile.gettempdir()
    if len(parent) > 40:
        parent = "/tmp"
    return tempfile.mkdtemp(prefix="gm-dovecot-", dir=parent)


class Dovecot:
    """A private Dovecot IMAP server; use as a context manager.

    Attributes once started: host, port, user, password, users (every
    user -> password), maildir (the Maildir of ``user``'s INBOX), root (the
    temporary directory), config_path, log_path, start_seconds, and
    mail_uid/mail_gid, the owner of the mail files.  That owner is the
    current user, except under root, where Dovecot will not serve mail as
    root and it is the ``dovecot`` user: a test running as root that creates
    files or folders inside a Maildir by hand should chown them to it
    (messages written straight into an existing new/ or cur/ need not be).
    """

    host = HOST

    def __init__(
        self,
        user: str = DEFAULT_USER,
        password: str | None = None,
        *,
        users: Mapping[str, str] | None = None,
        binary: str | None = None,
        start_timeout: float = START_TIMEOUT,
        stop_timeout: float = STOP_TIMEOUT,
    ) -> None:
        if users:
            self.users = dict(users)
            if user not in self.users:
                user = next(iter(self.users))
        else:
            self.users = {user: password or secrets.token_urlsafe(18)}
        for name, secret in self.users.items():
            if not _SAFE_NAME.match(name):
                raise ValueError(f"unsupported IMAP user name {name!r}")
            if not secret or not _SAFE_NAME.match(secret):
                raise ValueError(f"unsupported password for {name!r}: use "
                                 f"letters, digits and _.@+-")
        self.user = user
        self.password = self.users[user]
        self.binary = binary or find_dovecot()
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.port: int | None = None
        self.root: Path | None = None
        self.config_path: Path | None = None
        self.log_path: Path | None = None
        self.start_seconds: float | None = None
        self.mail_uid: int | None = None
        self.mail_gid: int | None = None
        self.stop_seconds: float | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._token = secrets.token_hex(6)

    # -- life cycle ---------------------------------------------------------

    def __enter__(self) -> Dovecot:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> Dovecot:
        if self._process is not None:
            raise DovecotError("this Dovecot is already running")
        if self.binary is None:
            raise DovecotError("the dovecot binary was not found "
                               "(install dovecot-imapd: scripts/install-test-packages)")
        began = time.monotonic()
        self.root = Path(_short_tempdir())
        try:
            self._prepare_tree()
            last_error = ""
            for attempt in range(1, PORT_ATTEMPTS + 1):
                self.port = free_port(self.host)
                self._write_config(attempt)
                outcome = self._launch_and_wait()
                if outcome is None:
                    self.start_seconds = time.monotonic() - began
                    return self
                last_error = outcome
                if "Address already in use" not in outcome:
                    break
            raise DovecotError(f"Dovecot did not start: {last_error}")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the master and its children (SIGTERM to its process group,
        SIGKILL after stop_timeout) and remove the temporary directory.
        Harmless when not running."""
        began = time.monotonic()
        try:
            if self._process is not None:
                self._terminate(self._process)
        finally:
            self._process = None
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None
            self.stop_seconds = time.monotonic() - began

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The master's pid, which is also its process group's id."""
        return self._process.pid if self._process is not None else None

    # -- helpers for tests --------------------------------------------------

    def home(self, user: str | None = None) -> Path:
        assert self.root is not None, "Dovecot is not running"
        return self.root / "home" / (user or self.user)

    def maildir_for(self, user: str | None = None) -> Path:
        """The Maildir holding ``user``'s INBOX (cur/, new/, tmp/)."""
        return self.home(user) / "Maildir"

    @property
    def maildir(self) -> Path:
        return self.maildir_for(self.user)

    def client(self, user: str | None = None, password: str | None = None,
               *, timeout: float = 10.0) -> Any:
        """A logged-in imapclient.IMAPClient (plain IMAP on 127.0.0.1).
        The caller logs out, e.g. ``with server.client() as imap: ...``."""
        import imapclient

        assert self.port is not None, "Dovecot is not running"
        user = user or self.user
        password = password if password is not None else self.users[user]
        imap = imapclient.IMAPClient(self.host, port=self.port, ssl=False,
                                     timeout=timeout)
        try:
            imap.login(user, password)
        except BaseException:
            with contextlib.suppress(Exception):
                imap.shutdown()
            raise
        return imap

    def deliver(self, raw: bytes, folder: str = "INBOX", *,
                flags: tuple[str | bytes, ...] = (), user: str | None = None,
                create: bool = True) -> int | None:
        """APPEND ``raw`` to ``folder`` over IMAP, as ``user``; return the new
        message's UID (from APPENDUID) or None.  The folder is created first
        when missing and ``create`` is true."""
        if not isinstance(raw, bytes):
            raise TypeError("deliver() takes the raw message as bytes")
        with self.client(user) as imap:
            if create and folder.upper() != "INBOX" and not imap.folder_exists(folder):
                imap.create_folder(folder)
            response = imap.append(folder, raw, flags=flags)
        match = re.search(rb"\[APPENDUID \d+ (\d+)\]", response or b"")
        return int(match.group(1)) if match else None

    def log_tail(self, lines: int = 40) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no Dovecot log)"
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:]) or "(Dovecot log is empty)"

    # -- internals ----------------------------------------------------------

    def _identities(self) -> dict[str, Any]:
        """Who runs what.

        Not root: everything (master, internal services, login and mail
        processes) runs as the current user, and nothing is chrooted.

        Root: Dovecot refuses both to serve mail as root ("Couldn't drop
        privileges: Mail access not allowed for root"; imap has no way to
        allow it) and to run login processes as root ("This process must not
        be run as root").  So the master stays root, the internal services
        and the mail processes run as the Debian package's ``dovecot`` user
        (which therefore owns the temporary tree), and the login processes as
        ``dovenull``; ``nobody`` stands in for either when missing.
        """
        uid = os.getuid()
        if uid != 0:
            gid = os.getgid()
            name = pwd.getpwuid(uid).pw_name
            return {"uid": uid, "gid": gid, "user": name,
                    "group": grp.getgrgid(gid).gr_name, "login_user": name,
                    "chroot": False}
        service = _first_user("dovecot", "nobody")
        login = _first_user("dovenull", "nobody")
        return {"uid": service.pw_uid, "gid": service.pw_gid,
                "user": service.pw_name,
                "group": grp.getgrgid(service.pw_gid).gr_name,
                "login_user": login.pw_name, "chroot": True}

    def _prepare_tree(self) -> None:
        assert self.root is not None
        self._ids = ids = self._identities()
        self.mail_uid, self.mail_gid = ids["uid"], ids["gid"]
        for sub in ("run", "state", "home"):
            (self.root / sub).mkdir(mode=0o700)
        for user in self.users:
            for sub in ("cur", "new", "tmp"):
                (self.maildir_for(user) / sub).mkdir(mode=0o700, parents=True)
        passwd = self.root / "passwd"
        passwd.write_text("".join(f"{u}:{{PLAIN}}{p}::::::\n"
                                  for u, p in self.users.items()))
        passwd.chmod(0o600)
        self.log_path = self.root / "dovecot.log"
        if os.getuid() == 0:
            # Hand the tree to the unprivileged service user (see above);
            # run/ stays root's: the master creates what it needs in there.
            for path in [self.root, *self.root.rglob("*")]:
                if path == self.root / "run" or path.parent == self.root / "run":
                    continue
                os.chown(path, ids["uid"], ids["gid"])

    def _write_config(self, attempt: int) -> None:
        assert self.root is not None and self.port is not None
        ids = self._ids
        root = self.root
        # A fresh base_dir per attempt: a failed master may leave its pid file.
        base_dir = root / "run" / str(attempt)
        base_dir.mkdir(mode=0o755)
        unprivileged = not ids["chroot"]
        chroot_off = ""
        chroot_line = "\n  chroot =" if unprivileged else ""
        if unprivileged:
            # Only root can chroot; these services chroot by default.
            chroot_off = "".join(f"service {svc} {{\n  chroot =\n}}\n"
                                 for svc in ("anvil", "imap-urlauth-login"))
        self.config_path = root / "dovecot.conf"
        self.config_path.write_text(f"""\
# Private Dovecot for gm's tests; written by tests/dovecot.py.
instance_name = gm-test-{self._token}
base_dir = {base_dir}
state_dir = {root / "state"}
log_path = {self.log_path}
login_greeting = gm-test-{self._token} ready

protocols = imap
listen = {self.host}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_verbose = yes
# Fail wrong logins fast: no extra delay (Dovecot still answers a failure
# only on its 0.5 s tick) and, below, no growing per-IP penalty (2, 4, 8 s).
auth_failure_delay = 0

default_internal_user = {ids["user"]}
default_internal_group = {ids["group"]}
default_login_user = {ids["login_user"]}
first_valid_uid = {ids["uid"]}
last_valid_uid = {ids["uid"]}
first_valid_gid = {ids["gid"]}
last_valid_gid = {ids["gid"]}
mail_uid = {ids["uid"]}
mail_gid = {ids["gid"]}
mail_location = maildir:~/Maildir

passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root / "passwd"}
}}
userdb {{
  driver = static
  args = home={root / "home"}/%u allow_all_users=yes
}}

service imap-login {{
  inet_listener imap {{
    address = {self.host}
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}{chroot_line}
}}
# auth finds no anvil-auth-penalty socket, so it quietly disables penalties.
service anvil {{
  unix_listener anvil-auth-penalty {{
    path = anvil-auth-penalty-disabled
  }}
}}
{chroot_off}""")

    def _launch_and_wait(self) -> str | None:
        """Start the master and wait for our greeting.  None when it answers;
        else a description of the failure (the master is then stopped)."""
        assert self.config_path is not None and self.binary is not None
        with open(self.root / "dovecot.stdout", "ab") as stdout:  # type: ignore[operator]
            process = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.STDOUT,
                start_new_session=True, close_fds=True,
                preexec_fn=_die_with_parent(),
            )
        self._process = process
        deadline = time.monotonic() + self.start_timeout
        expected = f"gm-test-{self._token} ready".encode()
        while time.monotonic() < deadline:
            if process.poll() is not None:
                self._terminate(process)
                self._process = None
                return (f"master exited with status {process.returncode}\n"
                        f"{self._startup_output()}")
            greeting = read_greeting(self.host, self.port or 0, b"x LOGOUT\r\n", timeout=0.5)
            if greeting is not None and expected in greeting:
                return None
                # Someone else owns the port; our master will fail to bind.
            time.sleep(0.02)
        self._terminate(process)
        self._process = None
        return (f"no IMAP greeting on {self.host}:{self.port} within "
                f"{self.start_timeout:.0f} s\n{self._startup_output()}")

    def _startup_output(self) -> str:
        stdout = self.root / "dovecot.stdout" if self.root else None
        extra = ""
        if stdout is not None and stdout.exists():
            extra = stdout.read_text(errors="replace").strip()
        return (f"--- tail of {self.log_path} ---\n{self.log_tail()}"
                + (f"\n--- dovecot stdout/stderr ---\n{extra}" if extra else ""))

    def _terminate(self, process: subprocess.Popen[bytes]) -> None:
        """SIGTERM the master's whole process group, wait a moment, then
        SIGKILL the group; every wait is bounded by stop_timeout.

        SIGTERM to the master alone takes Dovecot about 2 s to stop its
        children; to the whole group usually about 10 ms, but now and then
        the master lingers for a 1 s tick, so after STOP_GRACE the rest is
        killed: nothing in the temporary tree is kept anyway."""
        group = process.pid  # start_new_session: the master leads its group
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGTERM)
        if not _wait(process, min(STOP_GRACE, self.stop_timeout)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
            if not _wait(process, self.stop_timeout):
                raise DovecotError(f"Dovecot master {group} survived SIGKILL")
        deadline = time.monotonic() + self.stop_timeout
        while _group_alive(group):
            if time.monotonic() >= deadline:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
                break
            time.sleep(0.005)


def _wait(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the process to exit; False on timeout.  Polls every 5 ms:
    Popen.wait(timeout) sleeps up to 50 ms between its polls."""
    deadline = time.monotonic() + timeout
    while process.poll() is None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True


def _die_with_parent() -> Callable[[], None] | None:
    """On Linux, have the kernel SIGTERM the master if the test process dies
    without stopping it (killed by a timeout, say), so no Dovecot lingers."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def set_death_signal() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)

    return set_death_signal


def _first_user(*names: str) -> pwd.struct_passwd:
    for name in names:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise DovecotError(f"running Dovecot as root needs one of the users "
                       f"{', '.join(names)}")


def _group_alive(group: int) -> bool:
    """Whether a live (not zombie) process is left in the process group."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[2] == str(group) and fields[0] not in "ZX":
            return True
    return False




# -- pytest fixtures --------------------------------------------------------

def _check_prerequisites(binary: str | None) -> None:
    if binary is None and find_dovecot() is None:
        require_or_skip("dovecot binary not found (Debian: dovecot-imapd)")
    try:
        import imapclient  # noqa: F401
    except ImportError:
        require_or_skip("Python package imapclient is not installed")


def dovecot_fixture(*, scope: str = "function", **options: Any) -> Callable[..., Any]:
    """Make a pytest fixture yielding a running Dovecot(**options).
    Assign it to a module-level name: that name is the fixture's name."""

    @pytest.fixture(scope=scope)  # type: ignore[call-overload]
    def _dovecot() -> Iterator[Dovecot]:
        _check_prerequisites(options.get("binary"))
        with Dovecot(**options) as server:
            yield server

    return _dovecot


#: A running private Dovecot for one test, user gm@example.test with a
#: random password.
dovecot_server = dovecot_fixture()


@pytest.fixture
def dovecot_factory() -> Iterator[Callable[..., Dovecot]]:
    """A function starting further Dovecot instances (same arguments as
    Dovecot); all are stopped when the test ends."""
    _check_prerequisites(None)
    started: list[Dovecot] = []

    def start(**options: Any) -> Dovecot:
        server = Dovecot(**options).start()
        started.append(server)
        return server

    try:
        yield start
    finally:
        errors = []
        for server in reversed(started):
            try:
                server.stop()
            except Exception as error:  # stop every one, then report
                errors.append(error)
        if errors:
            raise errors[0]
