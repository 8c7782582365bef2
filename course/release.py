"""Hand an assignment to every student: ``python -m course.release dist/exercises/NAME``.

Copies the student notebook that ``python -m edujax.grading assign`` wrote into every home
(``--homes``, default /home) as ``~/assignments/NAME/NAME.ipynb``, where
``python -m edujax.grading collect NAME`` later finds it. A student who already has the file
keeps theirs: releasing again (for a student who joined late) never overwrites work.

The copy is written *as the student* (a child process with their uid), so the file is theirs,
and a link they planted in their home cannot make root write anywhere else.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from edujax.grading.assign import load_assignment
from edujax.grading.collect import as_owner_of, submission_in

# Create the folder, then the file only if it is not there yet (set -C: `>` never overwrites).
WRITE_NEW = 'mkdir -p -- "$(dirname -- "$1")" && set -C && cat > "$1"'


def release(assignment_dir: Path, homes: Path) -> dict[str, str]:
    """Every home's account -> 'released' or why not."""
    assignment = load_assignment(assignment_dir)
    notebook = assignment.student.read_bytes()
    outcome = {}
    for home in sorted(p for p in homes.iterdir() if p.is_dir() and not p.is_symlink()):
        target = submission_in(home, assignment.name)
        result = subprocess.run(["sh", "-c", WRITE_NEW, "sh", str(target)], input=notebook,
                                capture_output=True, timeout=30, **as_owner_of(home))
        outcome[home.name] = ("released" if result.returncode == 0 else
                              f"kept as it was ({result.stderr.decode().strip()[-120:]})")
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.release", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("assignment", type=Path, help="a folder `edujax.grading assign` wrote")
    parser.add_argument("--homes", type=Path, default=Path("/home"))
    args = parser.parse_args(argv)
    for account, what in release(args.assignment, args.homes).items():
        print(f"{account}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
