"""The operator's recipe in docs/operations.md ("Postfix and Dovecot, from a
fresh Debian"), read as the shell it is.

Each block of the recipe is a fenced ``sh`` block with an HTML comment
before it naming what it belongs to::

    <!-- recipe: lmtp imap -->
    ```sh
    postfix -c "$POSTFIX_CONF" start
    ```

``settings`` is the first block (it only sets the variables the others
use), ``packages`` the apt-get block, and ``lmtp`` and ``imap`` the two
set-ups. tests/test_recipe.py runs the blocks of one set-up as they stand,
after a settings block of its own; tests/test_postfix.py reads the files the
LMTP blocks write, to check that its private Postfix has the same lines.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "operations.md"

_BLOCK = re.compile(r"^<!-- recipe: ([\w ]+) -->\n```sh\n(.*?)^```$", re.M | re.S)
_SETTING = re.compile(r"^([A-Z][A-Z0-9_]*)=(\S*)")
_WRITE = re.compile(r'^cat >>? "\$POSTFIX_CONF/([\w.-]+)" <<EOF\n(.*?)^EOF$', re.M | re.S)


@dataclass(frozen=True)
class Block:
    """One marked block: what it belongs to, and its shell text."""

    tags: frozenset[str]
    code: str


def blocks(text: str | None = None) -> list[Block]:
    """Every marked block of the guide (or of ``text``), in order."""
    text = GUIDE.read_text() if text is None else text
    return [Block(frozenset(tags.split()), code) for tags, code in _BLOCK.findall(text)]


def settings(found: list[Block] | None = None) -> dict[str, str]:
    """The first block's variables and their values, in order; the first
    block must be the settings block and set nothing else."""
    found = blocks() if found is None else found
    first = found[0]
    assert first.tags == {"settings"}, "the recipe's first block is not its settings"
    values = {}
    for line in first.code.splitlines():
        matched = _SETTING.match(line)
        assert matched, f"the settings block does more than set variables: {line!r}"
        values[matched[1]] = shlex.split(matched[2])[0] if matched[2] else ""
    return values


def script(setup: str, values: dict[str, str], found: list[Block] | None = None) -> str:
    """The shell script that follows the recipe for ``setup`` (``lmtp`` or
    ``imap``): its own settings block with ``values``, then the recipe's
    blocks for that set-up, as they stand, in order."""
    found = blocks() if found is None else found
    own = "".join(f"{name}={shlex.quote(value)}\n" for name, value in values.items())
    return "set -euo pipefail\n" + own + "".join(block.code for block in found if setup in block.tags)


def postfix_files(setup: str) -> dict[str, list[str]]:
    """The lines each block of ``setup`` writes into a file of Postfix's
    configuration directory (only the blocks of that set-up alone, not
    those shared with the other), with the documented settings filled in:
    file name -> its lines."""
    found = blocks()
    values = settings(found)
    files: dict[str, list[str]] = {}
    for block in found:
        if block.tags != {setup}:
            continue
        for name, body in _WRITE.findall(block.code):
            for line in body.splitlines():
                files.setdefault(name, []).append(
                    re.sub(r"\$([A-Z][A-Z0-9_]*)", lambda m: values[m[1]], line).strip())
    return files
