"""Create the roster's Unix users on the course server: ``python -m course.accounts ROSTER``.

Run as root on the server that hosts the hub (it changes the server's /etc/passwd through
``useradd``). Each member gets a home in /home (or ``--homes``) that only they can read
(mode 700), so that students cannot read each other's work. Members that already exist are
left as they are. ``--dry-run`` prints the commands instead.
"""
from __future__ import annotations

import argparse
import pwd
import subprocess
import sys
from pathlib import Path

from course.roster import read_roster


def useradd_command(username: str, homes: Path) -> list[str]:
    return ["useradd", "--create-home", "--home-dir", str(homes / username),
            "--shell", "/bin/bash", "--key", "HOME_MODE=0700", "--user-group", username]


def exists(username: str) -> bool:
    try:
        pwd.getpwnam(username)
        return True
    except KeyError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.accounts", description=__doc__)
    parser.add_argument("roster", type=Path)
    parser.add_argument("--homes", type=Path, default=Path("/home"))
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    for member in read_roster(args.roster):
        if exists(member.username):
            print(f"{member.username}: exists")
            continue
        command = useradd_command(member.username, args.homes)
        print(" ".join(command))
        if not args.dry_run:
            subprocess.run(command, check=True)
            (args.homes / member.username).chmod(0o700)
    return 0


if __name__ == "__main__":
    sys.exit(main())
