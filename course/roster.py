"""The class list: who may log in to the course's hub, and who is a teacher.

A roster is a CSV file with a header line ``username,role``; role is ``student`` or ``teacher``.
Usernames are Unix login names too (each student runs as their own Unix user), so they follow
the portable rules: lowercase letters, digits, ``_`` and ``-``, starting with a letter.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

USERNAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
ROLES = ("student", "teacher")


@dataclass(frozen=True)
class Member:
    username: str
    role: str


def read_roster(path: Path) -> list[Member]:
    """The roster's members, or a ValueError that names the file, the line and the rule."""
    members = []
    with open(path, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            name, role = (row.get("username") or "").strip(), (row.get("role") or "").strip()
            if not USERNAME.fullmatch(name):
                raise ValueError(f"{path}:{line}: username {name!r} is not a Unix login name "
                                 "(lowercase letters, digits, _ and -, starting with a letter)")
            if role not in ROLES:
                raise ValueError(f"{path}:{line}: role {role!r} must be one of {ROLES}")
            members.append(Member(name, role))
    return members
