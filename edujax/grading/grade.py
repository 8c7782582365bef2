"""``grade``: many submissions, graded in parallel, into one CSV.

Each submission is graded by ``runner.grade_submission`` in its own process and kernel
(so one that loops, crashes or exits cannot stop the others); a small pool of threads
keeps ``jobs`` of them running at once. The CSV has one row per submission:

    submission, status, total, possible, q1, q2, ..., message, feedback

``status`` is "graded" unless something went wrong (then ``message`` says what), and
``feedback`` holds each question's explanation of what failed, the text a student reads.
"""
from __future__ import annotations

import csv
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

from edujax.grading.feedback import NOT_GRADED, QuestionResult, in_language, student_language
from edujax.grading.runner import (Limits, SubmissionResult, grade_submission, possible_points,
                                   preload)


def find_submissions(paths: Iterable[Path]) -> list[Path]:
    """Every ``.ipynb`` among ``paths`` (folders are searched, in sorted order)."""
    found = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.ipynb")
                                if ".ipynb_checkpoints" not in p.parts))
        else:
            found.append(path)
    return found


def default_jobs() -> int:
    """One more than the cores, at most 4: a grading spends much of its time waiting (for
    its kernel to start, for messages), so 3 at a time beat 2 on a 2-core machine (measured:
    16 submissions in 24 s against 29 s)."""
    return min(4, len(os.sched_getaffinity(0)) + 1)


def grade_many(submissions: list[Path], autograder: Path, *, limits: Limits = Limits(),
               jobs: int | None = None, keep: Path | None = None,
               on_result: Callable[[SubmissionResult], None] | None = None,
               sandboxed: bool = True, language: str | None = None,
               languages: dict[str, str] | None = None) -> list[SubmissionResult]:
    """Grade every submission against one autograder; results in the order given.

    ``keep``: a folder for the executed notebooks (see ``grade_submission``). Each
    student's feedback is in their language: ``languages`` ({submission file name: "ko" or
    "en"}, a roster's ``language`` column), else ``language``, else this process's."""
    preload()  # start the fork server, which imports otter once for every submission
    points = possible_points(autograder)

    def grade(path: Path) -> SubmissionResult:
        lang = student_language((languages or {}).get(path.name) or language)
        try:
            result = grade_submission(path, autograder, limits, points, keep, sandboxed, lang)
        except Exception as error:  # the batch survives anything one submission causes
            not_graded = in_language(NOT_GRADED, lang)
            result = SubmissionResult(str(path), [QuestionResult(n, 0.0, p, not_graded)
                                                  for n, p in points.items()], "error",
                                      f"grading failed: {type(error).__name__}: {error}"[:300],
                                      sandboxed=sandboxed)
        if on_result is not None:
            on_result(result)
        return result

    with ThreadPoolExecutor(max_workers=jobs or default_jobs()) as pool:
        return list(pool.map(grade, submissions))


def write_csv(results: list[SubmissionResult], path: Path) -> None:
    """One row per submission, written atomically (a reader sees the old file or the
    whole new one, never half): scores per question, what the notebook tried (``flags``),
    whether it ran sandboxed, the message, the student's feedback and the teacher's
    details (hidden tests' explanations: not for the student)."""
    questions = list(dict.fromkeys(q.name for r in results for q in r.questions))
    rows = [["submission", "status", "total", "possible", *questions, "flags", "sandboxed",
             "message", "feedback", "details"]]
    for r in results:
        feedback = " | ".join(f"{q.name}: {q.feedback}" for q in r.questions if q.feedback)
        details = " | ".join(f"{q.name}: {q.details}" for q in r.questions if q.details)
        rows.append([r.submission, r.status, _number(r.total), _number(r.possible),
                     *(_number(r.score(name)) for name in questions), r.flags,
                     "yes" if r.sandboxed else "NO (--no-sandbox)", r.message, feedback, details])
    _write_rows_atomically(rows, Path(path))


def write_feedback_files(results: list[SubmissionResult], folder: Path) -> None:
    """``<submission>.feedback.txt`` per submission: what the student may read (scores,
    public tests' explanations, hidden tests' messages; no hidden test's explanation)."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in results:
        lines = [f"{Path(r.submission).name}: {_number(r.total)}/{_number(r.possible)}"]
        lines += [f"{q.name}: {_number(q.score)}/{_number(q.possible)}"
                  + (f"  {q.feedback}" if q.feedback else "") for q in r.questions]
        (folder / f"{Path(r.submission).stem}.feedback.txt").write_text(
            "\n".join(lines) + "\n", encoding="utf-8")


def _write_rows_atomically(rows: list[list[str]], path: Path) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _number(x: float) -> str:
    return f"{x:g}"
