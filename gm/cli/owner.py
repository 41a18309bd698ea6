"""Whom a command that writes the data directory writes it as: its owner.

The daemon runs as the data directory's owner (user ``gm`` under systemd)
and must be able to write every file and folder in it. A ``gm new`` run as
root would otherwise leave ``games/gN`` and its spooled request belonging
to root, and the daemon could handle no more mail. So root acts as the
owner (its user, the directory's group, and the permissions the directory
has), and anyone else who is not the owner is refused before anything is
written."""

from __future__ import annotations

import os
import pwd
import shlex
import stat
from collections.abc import Sequence
from pathlib import Path


class NotOwner(Exception):
    """The command cannot write the data directory as its owner: it is run
    by another user than root, or the owner cannot read the gm it runs."""


def _name(uid: int) -> str:
    """A user's name, or ``#UID`` (as sudo -u takes it) when it has none."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"#{uid}"


def act_as_owner(root: Path, words: Sequence[str]) -> None:
    """Make this process write as the owner of the data directory ``root``.

    Nothing to do when it runs as the owner already, or when ``root`` cannot
    be found (opening the store then says so). Run by root, it becomes the
    owner for good: the owner's uid, the directory's gid (and the owner's
    other groups), and a umask that gives new files and folders no more
    permissions than the directory has; NotOwner if the owner then cannot
    read Python's library or gm (installed where only root may go), which
    the command would import as it goes on. Run by anyone else, NotOwner
    says how to run ``gm WORDS`` instead."""
    try:
        found = os.stat(root)
    except OSError:  # none there, or out of this user's reach: opening the store says so
        return
    me = os.geteuid()
    if me == found.st_uid:
        return
    owner = _name(found.st_uid)
    if me != 0:
        raise NotOwner(f"{root} belongs to {owner}, not to {_name(me)}, and the gm daemon must be able to write "
                       f"all of it: run `sudo -u {shlex.quote(owner)} {shlex.join(['gm', *words])}` "
                       f"(or the command as root, which acts as {owner}); nothing was written")
    try:
        os.initgroups(pwd.getpwuid(found.st_uid).pw_name, found.st_gid)
    except KeyError:  # a uid with no name: its only group is the directory's
        os.setgroups([found.st_gid])
    os.setgid(found.st_gid)
    os.setuid(found.st_uid)
    os.umask(0o777 & ~stat.S_IMODE(found.st_mode))
    for needed in (Path(os.__file__).parent, Path(__file__).parents[1]):  # Python's library, and gm
        if not os.access(needed, os.R_OK | os.X_OK):
            raise NotOwner(f"root acts as {owner}, who owns {root}, but {owner} cannot read {needed}: install gm "
                           f"where {owner} can run it, as its daemon does; nothing was written")
