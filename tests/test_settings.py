"""`gm serve`'s settings are declared once (gm.configfile.SETTINGS): the
command line's options, the TOML file's keys and the daemon's Config all come
from that table, every value is read the same way from either side, and a
value that cannot be used is one line and exit 2, never a traceback."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import gm.daemon
import gm.logs
from gm.cli import EXIT_CONFIG, build_parser, main
from gm.configfile import SETTINGS
from gm.pbem.serving.delivery import Relay
from gm.pbem.writing.mailer import Identity

ROOT = Path(__file__).resolve().parent.parent


def serve_options() -> set[str]:
    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    serve = commands.choices["serve"]
    return {option for action in serve._actions for option in action.option_strings} - {"-h", "--help", "--config"}


def test_every_option_of_gm_serve_is_a_setting_and_every_setting_an_option():
    assert serve_options() == {setting.option for setting in SETTINGS.values()}


def test_the_operations_guide_lists_every_setting_once():
    text = (ROOT / "docs" / "operations.md").read_text()
    section = text.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `--")]
    listed = [option for row in rows for option in re.findall(r"`(--[a-z-]+)", row.split(" | ")[0])]
    assert sorted(listed) == sorted(setting.option for setting in SETTINGS.values())


@pytest.fixture
def served(monkeypatch):
    """The Config `gm serve` would run the daemon with (the daemon not run)."""
    configs = []

    async def serve(config):
        configs.append(config)

    monkeypatch.setattr(gm.daemon, "serve", serve)
    monkeypatch.setattr(gm.logs, "setup", lambda level: None)
    for variable in ("GM_IMAP_USER", "GM_IMAP_PASSWORD", "GM_RELAY_PASSWORD", "GM_LOG_LEVEL"):
        monkeypatch.delenv(variable, raising=False)
    return configs


def test_the_file_and_the_command_line_make_the_same_daemon(tmp_path, served, capsys):
    secret = tmp_path / "relay-password"
    secret.write_text("s3cret\n")
    values = {"data": str(tmp_path / "data"), "address": "gm@example.org", "smtp": "off", "lmtp": "[::1]:2424",
              "http": "127.0.0.1:8080", "imap": "imaps://mail.example.org:993/INBOX", "imap-user": "gm",
              "relay": "smtp.example.org:587", "relay-user": "gm", "relay-password-file": str(secret),
              "log-level": "warning", "catch-up": "90s", "trusted-received": "2", "owner": "op@example.org"}
    config = tmp_path / "gm.toml"
    config.write_text("".join(f'{key} = "{value}"\n' for key, value in values.items()) + "relay-starttls = true\n")
    assert main(["serve", "--config", str(config)]) == 0
    options = [f"--{key}={value}" for key, value in values.items()] + ["--relay-starttls"]
    assert main(["serve", *options]) == 0
    from_file, from_options = served
    assert from_file == from_options
    assert from_file.data == str(tmp_path / "data") and from_file.identity == Identity("gm@example.org")
    assert (from_file.smtp, from_file.lmtp, from_file.http) == (None, ("::1", 2424), ("127.0.0.1", 8080))
    assert from_file.relay == Relay("smtp.example.org", 587, starttls=True, user="gm", password="s3cret")
    assert (from_file.imap_user, from_file.imap_password) == ("gm", None)
    assert (from_file.catch_up, from_file.trusted_received, from_file.owner) == (timedelta(seconds=90), 2,
                                                                                  "op@example.org")
    assert from_file.web_only is False
    assert capsys.readouterr().out.count("gm serving as gm@example.org: no SMTP listener") == 2


def test_what_is_not_given_is_the_daemons_default(tmp_path, served):
    assert main(["serve", "--data", str(tmp_path)]) == 0
    (config,) = served
    assert config == gm.daemon.Config(data=str(tmp_path), identity=Identity("gm@localhost"))


@pytest.mark.parametrize("key, value, message", [
    ("smtp", "127.0.0.1:99999", "smtp: '127.0.0.1:99999': the port must be from 0 to 65535"),
    ("lmtp", "127.0.0.1:65536", "lmtp: '127.0.0.1:65536': the port must be from 0 to 65535"),
    ("http", "localhost", "http: 'localhost': give HOST:PORT, such as 127.0.0.1:2525"),
    ("relay", "smtp.example.org:²", "relay: 'smtp.example.org:²': give HOST:PORT, such as 127.0.0.1:2525"),
    ("catch-up", "2", "catch-up: '2': give a number and a unit, such as 72h, 3d or 90m"),
    ("catch-up", "9999999999d", "catch-up: '9999999999d': too long"),
    ("trusted-received", "-1", "trusted-received: give a whole number, not '-1'"),
])
def test_a_value_that_cannot_be_used_is_one_line_from_either_side(tmp_path, capsys, served, key, value, message):
    config = tmp_path / "gm.toml"
    config.write_text(f'data = "{tmp_path}"\n{key} = "{value}"\n', encoding="utf-8")
    assert main(["serve", "--config", str(config)]) == EXIT_CONFIG
    assert main(["serve", "--data", str(tmp_path), f"--{key}={value}"]) == EXIT_CONFIG
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("gm serve: ") and message in line for line in lines), lines
    assert not served


def test_a_port_out_of_range_stops_the_real_process_in_one_line(tmp_path):
    config = tmp_path / "gm.toml"
    config.write_text(f'data = "{tmp_path / "data"}"\nsmtp = "127.0.0.1:99999"\n')
    done = subprocess.run([sys.executable, "-P", "-m", "gm", "serve", "--config", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == EXIT_CONFIG
    assert done.stderr.splitlines() == ["gm serve: smtp: '127.0.0.1:99999': the port must be from 0 to 65535"]
    assert not (tmp_path / "data").exists()
