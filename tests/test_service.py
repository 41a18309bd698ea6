"""Running gm as a service: `gm serve` as a real process stops cleanly on
SIGTERM and SIGINT, fails in one line when it cannot start, reads checked
configuration files, and never logs a player's secret."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import signal
import smtplib
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from gm.cli import main
from gm.pbem.data.store import Store
from gm.pbem.data.tokens import token
from gmtest import ALICE, BOB, GM

ROOT = Path(__file__).resolve().parent.parent
WAIT = 20.0  # seconds: the longest the daemon may take to start, handle a mail or stop


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gm(*args: str, extra_env: dict[str, str] | None = None, **popen) -> subprocess.Popen:
    """`python -m gm ARGS` as a child process, stderr captured."""
    env = {k: v for k, v in os.environ.items() if k not in ("GM_CRASH_AT", "JOURNAL_STREAM", "GM_LOG_LEVEL")}
    env.update(extra_env or {})
    return subprocess.Popen([sys.executable, "-P", "-m", "gm", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, **popen)


def until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited {WAIT} s for {what}")


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def started(data: Path, *extra: str, extra_env: dict[str, str] | None = None) -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = gm("serve", "--data", str(data), "--smtp", f"127.0.0.1:{port}", "--address", GM, *extra,
                 extra_env=extra_env)
    try:
        until(lambda: process.poll() is not None or listening(port), "gm serve to listen")
    except AssertionError:
        process.kill()
        raise
    assert process.poll() is None, process.communicate()[1]
    return process, port


def stopped(process: subprocess.Popen, number: signal.Signals) -> tuple[int, str]:
    process.send_signal(number)
    try:
        _, err = process.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"gm serve did not stop within {WAIT} s of {number.name}") from None
    return process.returncode, err


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_daemon_cleanly_with_one_line(tmp_path, number):
    process, port = started(tmp_path / "data")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:  # work in flight: a mail to handle
        client.sendmail("a@b.example", [GM], b"From: a@b.example\r\nSubject: hi\r\nMessage-ID: <hi@b>\r\n\r\nhello\r\n")
    status, err = stopped(process, number)
    assert status == 0, err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if "stopped" in line] == [f"INFO gm: stopped signal={number.name}"]
    assert not listening(port)
    shunt = list((tmp_path / "data" / "shunt").glob("*/*"))  # handled (a stranger's mail goes to the shunt)
    spool = list((tmp_path / "data" / "spool").glob("*/*"))
    assert len(shunt + spool) == 1


@pytest.mark.slow  # waits out the daemon's 10 s grace
def test_work_that_cannot_be_interrupted_is_abandoned_after_the_grace_time(tmp_path):
    """An IMAP server that accepts and never greets keeps a worker thread
    waiting (for 30 s); the daemon still stops, within its 10 s grace."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        imap = f"imap://127.0.0.1:{silent.getsockname()[1]}/INBOX"
        process, _ = started(tmp_path / "data", "--imap", imap,
                             extra_env={"GM_IMAP_USER": "gm", "GM_IMAP_PASSWORD": "pw"})
        silent.settimeout(WAIT)
        connection, _ = silent.accept()  # the poller is now waiting in a worker thread
        began = time.monotonic()
        with connection:
            status, err = stopped(process, signal.SIGTERM)
    assert status == 0 and "Traceback" not in err, err
    assert [line for line in err.splitlines() if "stopped" in line] == ["INFO gm: stopped signal=SIGTERM abandoned=1"]
    assert 9 < time.monotonic() - began < WAIT


def test_a_busy_port_is_one_line_and_exit_1(tmp_path):
    with socket.socket() as occupier:
        occupier.bind(("127.0.0.1", 0))
        occupier.listen()
        port = occupier.getsockname()[1]
        process = gm("serve", "--data", str(tmp_path / "data"), "--smtp", f"127.0.0.1:{port}")
        _, err = process.communicate(timeout=WAIT)
    assert process.returncode == 1
    assert err.splitlines() == [f"gm serve: cannot listen for SMTP on 127.0.0.1:{port}: address already in use"]


def test_a_bad_configuration_is_one_line_and_exit_2(tmp_path):
    config = tmp_path / "gm.toml"
    config.write_text(f'data = "{tmp_path}/data"\nadress = "gm@example.org"\n')
    process = gm("serve", "--config", str(config))
    _, err = process.communicate(timeout=WAIT)
    assert process.returncode == 2
    assert err.splitlines() == [f"gm serve: {config}: unknown key 'adress'; did you mean 'address'?"]
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("text, message", [
    ('relay_user = "gm"\n', "unknown key 'relay_user'; did you mean 'relay-user'?"),
    ('smpt = "127.0.0.1:25"\n', "unknown key 'smpt'; did you mean 'smtp'?"),
    ('zzz = 1\n', "unknown key 'zzz' (known keys: data, address, "),
    ('smtp = 2525\n', "smtp must be a string in quotes, not 2525"),
    ('relay-starttls = "yes"\n', "relay-starttls must be true or false, not 'yes'"),
    ('data = "x\n', "not valid TOML"),
])
def test_configuration_keys_and_values_are_checked(tmp_path, capsys, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "gm.toml"
    config.write_text(text)
    for command in (["serve"], ["games"], ["show", "g1"], ["export", "g1", "--mbox", str(tmp_path / "x.mbox")],
                    ["new", "--player", ALICE, "--player", BOB]):
        assert main([*command, "--config", str(config)]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"gm {command[0]}: {config}: ") and message in line
    assert not Path("gm-data").exists()


def test_bad_values_from_the_command_line_are_one_line_too(tmp_path, capsys):
    assert main(["serve", "--data", str(tmp_path), "--smtp", "nowhere"]) == 2
    assert capsys.readouterr().err.splitlines() == ["gm serve: smtp: 'nowhere': give HOST:PORT, such as 127.0.0.1:2525"]
    assert main(["serve", "--data", str(tmp_path), "--log-level", "loud"]) == 2
    assert "log level 'loud': choose one of debug, info, warning, error" in capsys.readouterr().err
    assert main(["serve", "--data", str(tmp_path), "--relay", "127.0.0.1:25", "--relay-password-file",
                 str(tmp_path / "missing")]) == 2
    assert "cannot read the password file" in capsys.readouterr().err


@pytest.mark.parametrize("command", [
    ["games"], ["show", "g1"], ["export", "g1", "--mbox", "out.mbox"], ["new", "--player", ALICE, "--player", BOB],
])
def test_a_missing_data_directory_is_refused_not_created(tmp_path, capsys, command):
    typo = tmp_path / "gm-dta"
    assert main([*command, "--data", str(typo)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"gm {command[0]}: no gm data directory at {typo}") and f"gm serve --data {typo}" in line
    assert not typo.exists()


def test_a_data_directory_that_lost_its_key_is_sent_to_the_backup_not_to_gm_serve(tmp_path, capsys):
    """A directory that holds games but no ``secret.key`` is refused by the
    administration commands as by `gm serve`; the one-line error says to
    restore the key, not that `gm serve` makes a directory (it refuses this one)."""
    data = tmp_path / "data"
    Store(data)
    assert main(["new", "--data", str(data), "--player", ALICE, "--player", BOB]) == 0
    capsys.readouterr()
    (data / "secret.key").unlink()
    assert main(["games", "--data", str(data)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"has lost its {data / 'secret.key'}" in line and "restore the key from the backup" in line, line
    assert "gm serve" not in line


def test_data_commands_read_the_configuration_and_the_command_line_wins(tmp_path, capsys):
    data = tmp_path / "data"
    Store(data)  # as `gm serve` makes it
    config = tmp_path / "gm.toml"
    config.write_text(f'data = "{data}"\naddress = "{GM}"\nsmtp = "off"\nlog-level = "warning"\n')
    assert main(["games", "--config", str(config)]) == 0
    assert capsys.readouterr().out == "no games\n"
    assert main(["new", "--config", str(config), "--player", ALICE, "--player", BOB]) == 0
    assert "game requested" in capsys.readouterr().out
    (key,) = Store(data, create=False).spool.keys()
    assert b"gm@example.org" in Store(data, create=False).spool.get_bytes(key)  # the identity came from the file
    assert main(["games", "--config", str(config), "--data", str(tmp_path / "other")]) == 2
    assert f"no gm data directory at {tmp_path / 'other'}" in capsys.readouterr().err


def test_no_secret_reaches_the_log_even_at_debug(tmp_path):
    data = tmp_path / "data"
    process, port = started(data, "--log-level", "debug")
    try:
        assert main(["new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB]) == 0
        until(lambda: (data / "games" / "g1").is_dir() and not list((data / "outbox" / "new").iterdir()),
              "the daemon to make game g1 and mail the invitations")
        secret = token((data / "secret.key").read_bytes(), "g1", 1)
        reply_to = f"gm+g1.1.{secret}@example.org"
        raw = (f"From: {ALICE}\r\nTo: {reply_to}\r\nSubject: Re: setup\r\nMessage-ID: <setup@example.org>\r\n\r\n"
               f"password {secret}\r\nDS Rv1-Ow2\r\n").encode()
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
            client.sendmail(ALICE, [reply_to], raw)
        until(lambda: not list((data / "spool" / "new").iterdir()) and not list((data / "outbox" / "new").iterdir()),
              "the daemon to handle the reply")
    finally:
        status, err = stopped(process, signal.SIGTERM)
    assert status == 0, err
    assert "DEBUG" in err and "stopped signal=SIGTERM" in err
    assert secret not in err and secret.upper() not in err
    assert token((data / "secret.key").read_bytes(), "g1", 2) not in err
    assert "gm+g1.1.****************@example.org" in err  # the address was logged, masked


def test_the_documented_configuration_uses_only_known_keys():
    from gm.configfile import check

    text = (ROOT / "docs" / "operations.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        check(tomllib.loads(block), "docs/operations.md")


def test_the_systemd_unit_runs_gm_serve_with_sigterm_and_a_sandbox():
    from gm.cli import EXIT_CONFIG, build_parser

    unit = configparser.ConfigParser(interpolation=None)
    unit.optionxform = str
    unit.read(ROOT / "contrib" / "gm.service")
    service = unit["Service"]
    assert service["Type"] == "simple" and service["KillSignal"] == "SIGTERM" and service["User"] == "gm"
    assert service["Restart"] == "on-failure" and service["RestartPreventExitStatus"] == str(EXIT_CONFIG)
    assert service["ProtectSystem"] == "strict" and service["ReadWritePaths"] == "/var/lib/gm"
    assert service["StateDirectory"] == "gm"
    program, *arguments = shlex.split(service["ExecStart"])
    assert program.endswith("/gm")
    args = build_parser().parse_args(arguments)
    assert args.command == "serve" and args.config == "/etc/gm/gm.toml"
    assert "contrib/gm.service" in (ROOT / "docs" / "operations.md").read_text()
