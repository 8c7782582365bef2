"""Grade one submission: whatever the notebook does, a score comes back, and a fair one.

The layers, from the outside in:

1. a trusted process per submission (forked from a fork server that has imported the
   grader once), under a wall-clock limit (``timeout``): past it, it is killed, and the
   questions already graded keep their scores (the progress file is the trusted
   process's own, out of the notebook's reach);
2. in it, ``trusted.py`` runs the autograder's tests; the tests never enter the sandbox;
3. the notebook's cells run in a sandbox (``sandbox.py``, bubblewrap: no network, no
   files of the machine, its own processes and user id, rlimits, a memory watch over all
   its processes), one request at a time over a pipe, each with a deadline
   (``cell_timeout`` per cell); answers are plain data (``wire.py``);
4. inside the sandbox, a cell that runs too long is interrupted (SIGALRM), like the stop
   button, and the next cell runs; one that ignores the interrupt stops the notebook.

One submission's fate never touches another's: each has its own trusted process, sandbox,
and folder (``--no-sandbox`` runs the notebook as a plain process, and every row says so).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import tempfile
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from edujax.grading.feedback import (NOT_GRADED, NOT_REACHED, QuestionResult, in_language, shorten,
                                     student_language)

MAX_NOTEBOOK_MB = 20


class Limits(NamedTuple):
    timeout: float = 300.0       # seconds of wall clock for one whole submission
    cell_timeout: float = 60.0   # seconds for one cell
    memory_mb: int = 2048        # memory of the notebook's processes (each, and together)
    cpu_seconds: int = 600       # CPU time of one process (RLIMIT_CPU), the last resort
    file_mb: int = 64            # largest file, and size of the sandbox's writable folder
    processes: int = 64          # processes and threads of the sandbox


class SubmissionResult(NamedTuple):
    submission: str
    questions: list[QuestionResult]
    status: str        # "graded", or what went wrong: "timed out", "stopped", "not gradable",
                       # "wrong assignment", "error"
    message: str = ""  # what happened, for the teacher, when not "graded"
    flags: str = ""    # what the notebook's code tried (flags.py), for the teacher
    sandboxed: bool = True
    peak_mb: float = 0.0   # the notebook's processes together, at their peak (sampled)

    @property
    def total(self) -> float:
        return sum(q.score for q in self.questions)

    @property
    def possible(self) -> float:
        return sum(q.possible for q in self.questions)

    def score(self, name: str) -> float:
        return next((q.score for q in self.questions if q.name == name), 0.0)

    def to_json(self) -> str:
        return json.dumps({"submission": self.submission, "status": self.status,
                           "message": self.message, "flags": self.flags,
                           "sandboxed": self.sandboxed, "peak_mb": self.peak_mb,
                           "questions": [q._asdict() for q in self.questions]})

    @classmethod
    def from_json(cls, text: str) -> SubmissionResult:
        data = json.loads(text)
        return cls(data["submission"], [QuestionResult(**q) for q in data["questions"]],
                   data["status"], data["message"], data.get("flags", ""),
                   data.get("sandboxed", True), float(data.get("peak_mb", 0.0)))


def assignment_name(autograder: Path) -> str | None:
    """The assignment's name, as otter assign wrote it into the autograder's config."""
    with zipfile.ZipFile(autograder) as archive:
        try:
            return json.loads(archive.read("otter_config.json")).get("assignment_name")
        except (KeyError, ValueError):
            return None


def possible_points(autograder: Path) -> dict[str, float]:
    """{question: points} from the autograder's test files, in question order."""
    from edujax.grading.trusted import load_questions

    return {q.name: q.possible for q in load_questions(autograder)}


# ------------------------------------------------------------------ the trusted child
def _read_submission(submission: Path) -> Any:
    import nbformat

    if submission.is_symlink() or not submission.is_file():
        raise ValueError("not a regular file")
    if submission.stat().st_size > MAX_NOTEBOOK_MB * 1024 * 1024:
        raise ValueError(f"larger than {MAX_NOTEBOOK_MB} MB")
    nb = nbformat.reads(submission.read_text(encoding="utf-8", errors="replace"), as_version=4)
    nbformat.validate(nb)
    return nb


def _grade_in_child(submission: Path, autograder: Path, workdir: Path, limits: Limits,
                    points: dict[str, float], sandboxed: bool, language: str) -> None:
    """Runs in the trusted child process; writes result.json into ``workdir``.

    Every message made here (and in the sandbox, which inherits ``EDUJAX_LANG``) is in the
    student's ``language``."""
    os.setsid()  # our own process group, so the parent can stop all of it
    from edujax.config import config

    config.update("edujax_language", language)
    os.environ["EDUJAX_LANG"] = language
    log = os.open(workdir / "grader.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from edujax.grading.flags import notebook_flags
    from edujax.grading.session import grade_notebook
    from edujax.grading.trusted import load_setup

    def write(result: SubmissionResult) -> None:
        (workdir / "result.json").write_text(result.to_json())

    try:
        nb = _read_submission(submission)
    except Exception as error:
        write(SubmissionResult(str(submission), _partial(workdir, points, language), "not gradable",
                               "not a readable notebook "
                               f"({type(error).__name__}; open it in Jupyter to see why)",
                               sandboxed=sandboxed))
        return
    flags = notebook_flags(nb, {line.strip() for cell in load_setup(autograder)
                                for line in cell.splitlines()})
    expected, found = assignment_name(autograder), nb.metadata.get("otter", {}).get(
        "assignment_name")
    if expected and found and expected != found:
        write(SubmissionResult(str(submission), _partial(workdir, points, language),
                               "wrong assignment",
                               f"this notebook belongs to assignment {found!r}, not {expected!r}",
                               flags, sandboxed))
        return
    questions, status, message, peak = grade_notebook(nb, autograder, limits, workdir, sandboxed)
    write(SubmissionResult(str(submission), questions, status, message, flags, sandboxed, peak))


# ------------------------------------------------------------------ in the parent
def _kill(process: multiprocessing.Process) -> None:
    """Stop the trusted child's process group; its sandbox dies with it (bwrap's
    --die-with-parent, and the sandbox's PID namespace takes every process inside)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass  # already gone
    process.join(5)


def _partial(workdir: Path, points: dict[str, float], language: str) -> list[QuestionResult]:
    """Every question: its score from the progress file if it got that far, else 0."""
    done = {}
    progress = workdir / "progress.jsonl"
    if progress.exists():
        for line in progress.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                q = QuestionResult(**json.loads(line))
            except (ValueError, TypeError):
                continue
            done.setdefault(q.name, q)  # a question's first check is the one that counts
    return [done.get(name, QuestionResult(name, 0.0, possible, in_language(NOT_REACHED, language)))
            for name, possible in points.items()]


def _log_tail(workdir: Path, limit: int = 300) -> str:
    try:
        data = (workdir / "grader.log").read_bytes()[-4000:].decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line for line in data.splitlines() if line.strip()]
    return shorten(lines[-1].strip(), limit) if lines else ""


# What every grading process needs; the fork server imports it once (about 4 s), and each
# submission's process starts as a fork of that server, with all of it already loaded.
PRELOAD = ["edujax", "edujax.grading", "edujax.grading.runner", "edujax.grading.session",
           "nbformat", "otter.test_files", "otter.nbmeta_config"]


def _context() -> multiprocessing.context.BaseContext:
    """Processes forked from a *fork server*: a clean single-threaded process that has
    imported otter once. Forking the grader itself would be faster still, but the grader
    runs a pool of threads (and, under pytest, whatever else), and a fork copies the locks
    other threads hold: a recipe for rare hangs."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def preload() -> None:
    """Start the fork server now (it imports otter) rather than at the first submission."""
    _context().Process(target=_noop).start()


def _noop() -> None:
    pass


def grade_submission(submission: Path, autograder: Path, limits: Limits = Limits(),
                     points: dict[str, float] | None = None,
                     keep: Path | None = None, sandboxed: bool = True,
                     language: str | None = None) -> SubmissionResult:
    """Grade one notebook against one autograder zip. Never raises, never hangs.

    ``points`` ({question: possible}, from ``possible_points``) lets a batch read the
    autograder once; it is what a submission that produced no results scores against.
    ``keep``: a folder where the executed notebook (outputs and all) is saved as
    ``<submission>.executed.ipynb``, for the teacher who wants to see what happened.
    ``language``: "ko" or "en", the student's, which the feedback is written in (None:
    this process's, see ``feedback.student_language``).
    """
    language = student_language(language)
    # not resolved: a submission that is a link is refused, not followed
    submission, autograder = Path(submission).absolute(), Path(autograder).resolve()
    points = points if points is not None else possible_points(autograder)
    context = _context()
    with tempfile.TemporaryDirectory(prefix="edujax-grade-") as tmp:
        workdir = Path(tmp)
        process = context.Process(target=_grade_in_child,
                                  args=(submission, autograder, workdir, limits, points,
                                        sandboxed, language))
        process.start()
        process.join(limits.timeout)
        timed_out = process.is_alive()
        _kill(process)  # also what the notebook left running after a normal finish
        if keep is not None and (workdir / "executed.ipynb").exists():
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(workdir / "executed.ipynb", keep / f"{submission.stem}.executed.ipynb")
        if (workdir / "result.json").exists():
            result = SubmissionResult.from_json((workdir / "result.json").read_text())
            return _fill_missing(result, points, language)._replace(submission=str(submission),
                                                          sandboxed=sandboxed)
        questions = _partial(workdir, points, language)
        if timed_out:
            return SubmissionResult(str(submission), questions, "timed out",
                                    f"grading took longer than {limits.timeout:g} s and was "
                                    "stopped; questions checked before that keep their score",
                                    sandboxed=sandboxed)
        return SubmissionResult(str(submission), questions, "error",
                                "the grader stopped before the end "
                                f"({_log_tail(workdir) or 'no message'}); questions checked "
                                "before that keep their score", sandboxed=sandboxed)


def _fill_missing(result: SubmissionResult, points: dict[str, float],
                  language: str) -> SubmissionResult:
    """Every question of the assignment appears once, in order (0 if it has no result)."""
    have = {q.name: q for q in result.questions}
    return result._replace(questions=[
        have.get(name, QuestionResult(name, 0.0, possible, in_language(NOT_GRADED, language)))
        for name, possible in points.items()])

