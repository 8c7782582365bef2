"""A Canvas gradebook import file from the grades and a roster.

Canvas imports a CSV whose first columns identify the student (``Student``, ``ID``,
``SIS User ID``, ``SIS Login ID``, ``Section``) and whose other columns are assignments,
headed by the assignment's name (Canvas matches "Name (id)" too), with a second row
``Points Possible``. The roster says which submission file is whose:

    student,id,sis_user_id,sis_login_id,section,submission
    "Kim, Minji",1001,2026123,minji,CS101,minji.ipynb

(only ``student``, ``id`` and ``submission`` are required; ``submission`` is the file's
name as graded; an optional ``language`` column, ``ko`` or ``en``, is the language that
student's feedback is written in). A student on the roster without a submission gets an
empty cell (Canvas leaves the grade alone); a submission not on the roster is reported, not guessed.
"""
from __future__ import annotations

import csv
from pathlib import Path

from edujax.grading.runner import SubmissionResult

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
ROSTER_FIELDS = ["student", "id", "sis_user_id", "sis_login_id", "section"]


def read_roster(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [{k.strip().lower(): (v or "").strip() for k, v in row.items() if k}
                for row in csv.DictReader(f)]
    for i, row in enumerate(rows, start=2):
        if not row.get("student") or not row.get("id") or not row.get("submission"):
            raise ValueError(f"{path}:{i}: every roster row needs student, id and submission")
        if row.get("language", "") not in ("", "ko", "en"):
            raise ValueError(f"{path}:{i}: language must be ko or en, not {row['language']!r}")
    return rows


def canvas_rows(results: list[SubmissionResult], roster: list[dict[str, str]],
                assignment: str) -> tuple[list[list[str]], list[str]]:
    """(the CSV rows, the submissions that no roster row names)."""
    by_file = {Path(r.submission).name: r for r in results}
    possible = max((r.possible for r in results), default=0.0)
    rows = [HEADER + [assignment], ["Points Possible", "", "", "", "", f"{possible:g}"]]
    for student in roster:
        result = by_file.get(Path(student["submission"]).name)
        score = f"{result.total:g}" if result is not None else ""
        rows.append([student.get(field, "") for field in ROSTER_FIELDS] + [score])
    named = {Path(s["submission"]).name for s in roster}
    return rows, sorted(name for name in by_file if name not in named)
