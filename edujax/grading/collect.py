"""``python -m edujax.grading collect``: each student's submission, from their home, into one
folder that ``grade`` takes, one notebook per student, named by their account.

On the course's hub (course/) every student is a Unix user with a home in ``/home/<name>``, and
an assignment released to them sits at ``~/assignments/<assignment>/<assignment>.ipynb``. This
reads that file from every home into ``OUT/<name>.ipynb``; the grades CSV then has one row per
student, its ``submission`` column ending in their account name.

The teacher runs this as root, but each file is read *as the home's owner* (a child process with
the student's uid): a student who replaced their notebook by a link to another student's file,
or to /etc/shadow, gets what they themselves could read, which is nothing.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

MAX_BYTES = 20 * 2**20   # a notebook larger than this is cut off (and then not gradable)


class Collected(NamedTuple):
    found: dict[str, Path]    # account -> collected notebook
    missing: dict[str, str]   # account -> why nothing was collected


def submission_in(home: Path, assignment: str) -> Path:
    """Where a released assignment lives in a student's home."""
    return home / "assignments" / assignment / f"{assignment}.ipynb"


def as_owner_of(home: Path) -> dict:
    """subprocess.run keyword arguments that run a command as the owner of `home` (when we are
    root and they are not; otherwise as ourselves)."""
    info = home.stat()
    if os.geteuid() != 0 or info.st_uid == 0:
        return {}
    return {"user": info.st_uid, "group": info.st_gid, "extra_groups": []}


def read_as_owner(home: Path, path: Path) -> bytes | None:
    """The file's bytes as the home's owner can read them, or None when they cannot."""
    result = subprocess.run(["head", "-c", str(MAX_BYTES), "--", str(path)],
                            capture_output=True, timeout=30, **as_owner_of(home))
    return result.stdout if result.returncode == 0 else None


def collect(assignment: str, homes: Path, out: Path) -> Collected:
    """Copy every home's submission of `assignment` into `out` as ``<account>.ipynb``."""
    out.mkdir(parents=True, exist_ok=True)
    found, missing = {}, {}
    for home in sorted(p for p in homes.iterdir() if p.is_dir() and not p.is_symlink()):
        data = read_as_owner(home, submission_in(home, assignment))
        if data is None:
            missing[home.name] = f"no readable {submission_in(Path('~'), assignment)}"
            continue
        target = out / f"{home.name}.ipynb"
        target.write_bytes(data)
        found[home.name] = target
    return Collected(found, missing)
