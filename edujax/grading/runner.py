"""Grade one submission, contained: whatever the notebook does, a score comes back.

This is ``otter run`` (no Docker) with the walls a classroom needs. The layers, from
the inside out:

1. the tests call student code through ``edujax.grading.call``: a SIGALRM time limit
   per call, and exceptions explained instead of crashing the test;
2. the guard cell (``guard.py``) turns ``exit()`` into an error and writes each
   question's result to a progress file as soon as it is known;
3. the notebook runs with a time limit per cell (``cell_timeout``): a cell that runs
   too long is interrupted, like pressing the stop button, and the next cell runs;
4. the kernel runs inside operating system limits (``kernel.py``): memory, CPU time,
   file size;
5. the whole grading runs in a separate process with a wall-clock limit
   (``timeout``): if it is exceeded, that process and the kernel are killed and the
   questions already in the progress file keep their scores;
6. after the run, the test files are compared with the autograder's: a notebook that
   wrote to them scores 0 for every question, with a message saying so.

One submission's fate never touches another: each gets its own temporary folder,
process and kernel.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import pickle
import re
import shutil
import signal
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from edujax.grading.feedback import (QuestionResult, cell_errors, question_result, shorten,
                                     with_cell_error)
from edujax.grading.guard import cell_source

GRADING_KERNEL = "edujax-grading"


class Limits(NamedTuple):
    timeout: float = 300.0       # seconds of wall clock for one whole submission
    cell_timeout: float = 60.0   # seconds for one cell (student cell or test cell)
    memory_mb: int = 2048        # address space of the kernel (RLIMIT_AS)
    cpu_seconds: int = 600       # CPU time of the kernel (RLIMIT_CPU), the last resort
    file_mb: int = 64            # largest file the kernel may write (RLIMIT_FSIZE)


class SubmissionResult(NamedTuple):
    submission: str
    questions: list[QuestionResult]
    status: str        # "graded", or what went wrong: "timed out", "kernel died", "incomplete",
                       # "tests modified", "not gradable", "wrong assignment", "error"
    message: str = ""  # what happened, for the teacher and the student, when not "graded"

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
                           "message": self.message,
                           "questions": [q._asdict() for q in self.questions]})

    @classmethod
    def from_json(cls, text: str) -> SubmissionResult:
        data = json.loads(text)
        return cls(data["submission"], [QuestionResult(**q) for q in data["questions"]],
                   data["status"], data["message"])


# ------------------------------------------------------------------ the autograder's tests
def unpack_tests(autograder: Path, folder: Path) -> dict[str, str]:
    """Extract the autograder's ``tests/`` into ``folder``; {file name: sha256}."""
    hashes = {}
    with zipfile.ZipFile(autograder) as archive:
        for item in archive.namelist():
            if item.startswith("tests/") and item.endswith(".py"):
                data = archive.read(item)
                target = folder / item
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                target.chmod(0o444)  # read-only: a first, polite obstacle
                hashes[item] = hashlib.sha256(data).hexdigest()
    return hashes


def changed_tests(folder: Path, hashes: dict[str, str]) -> list[str]:
    """The test files that no longer match the autograder's."""
    changed = []
    for item, digest in hashes.items():
        path = folder / item
        if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            changed.append(item)
    return changed


def assignment_name(autograder: Path) -> str | None:
    """The assignment's name, as otter assign wrote it into the autograder's config."""
    with zipfile.ZipFile(autograder) as archive:
        try:
            return json.loads(archive.read("otter_config.json")).get("assignment_name")
        except (KeyError, ValueError):
            return None


def possible_points(autograder: Path) -> dict[str, float]:
    """{question: points} from the autograder's test files, in question order."""
    from otter.nbmeta_config import NBMetadataConfig
    from otter.test_files import create_test_file

    with tempfile.TemporaryDirectory(prefix="edujax-points-") as tmp:
        unpack_tests(autograder, Path(tmp))
        files = sorted((Path(tmp) / "tests").glob("*.py"))
        return {f.stem: float(create_test_file(str(f), NBMetadataConfig()).possible) for f in files}


# ------------------------------------------------------------------ the kernel
def write_kernelspec(folder: Path, limits: Limits, pidfile: Path) -> Path:
    """A kernelspec "edujax-grading" in ``folder``: the EduJAX kernel inside ``limits``.

    The kernel imports the same edujax as this grader (PYTHONPATH), and runs jit on the
    reference interpreter: graded notebooks are small, and compiling with Numba would
    only add seconds and memory to every submission.
    """
    import edujax

    root = str(Path(edujax.__file__).resolve().parent.parent)
    path = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    spec = {
        "argv": [sys.executable, "-m", "edujax.grading.kernel", "-f", "{connection_file}"],
        "display_name": "EduJAX (grading)", "language": "python",
        "env": {"PYTHONPATH": os.pathsep.join(path), "EDUJAX_BACKEND": "reference",
                "EDUJAX_GRADING_MEMORY_MB": str(limits.memory_mb),
                "EDUJAX_GRADING_CPU_SECONDS": str(limits.cpu_seconds),
                "EDUJAX_GRADING_FILE_MB": str(limits.file_mb),
                "EDUJAX_GRADING_PIDFILE": str(pidfile)},
    }
    spec_dir = folder / "kernels" / GRADING_KERNEL
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return folder


# ------------------------------------------------------------------ inside the child
def _execute(nb: Any, workdir: Path, limits: Limits) -> Any:
    """otter's grade_notebook, with a cell timeout that interrupts instead of aborting."""
    import nbformat
    from nbconvert.preprocessors import ExecutePreprocessor
    from otter.execute.logging import start_server
    from otter.execute.preprocessor import GradingPreprocessor
    from traitlets.config import Config

    results_path = workdir / "results.pkl"
    config = Config()
    gp_config = config.GradingPreprocessor
    gp_config.cwd, gp_config.test_dir = str(workdir / "submission"), "./tests"
    gp_config.tests_glob = sorted(f"./tests/{p.name}"
                                  for p in (workdir / "submission" / "tests").glob("*.py"))
    gp_config.results_path = str(results_path)
    gp_config.force_python3_kernel = False  # keep our kernel
    gp_config.seed = gp_config.seed_variable = None  # no per-cell seeding (traitlets' default is 0)
    gp_config.otter_log = gp_config.variables = None
    ep_config = config.ExecutePreprocessor
    ep_config.allow_errors = True
    ep_config.timeout = int(limits.cell_timeout)
    ep_config.interrupt_on_timeout = True
    ep_config.kernel_name = GRADING_KERNEL
    # The kernel talks to us over Unix sockets, not TCP ports: jupyter_client picks a TCP
    # port by binding it, letting it go and telling the kernel to take it, and in between
    # another grader working in parallel (or any other process) may take it first; the
    # kernel then dies at start. Socket files in this submission's own work folder (outside
    # the student's folder) have no such race.
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(workdir / "kernel-ipc")
    (host, port), stop_server = start_server()
    gp_config.logging_server_host, gp_config.logging_server_port = host, port
    try:
        nb, _ = GradingPreprocessor(config=config).preprocess(nb)
        ExecutePreprocessor(config=config).preprocess(nb, {"metadata": {"path": "."}})
    finally:
        stop_server()
        # The executed notebook, outputs and all: what the teacher opens to see why.
        nbformat.write(nb, workdir / "executed.ipynb")
    with open(results_path, "rb") as f:
        return pickle.load(f), nb


def _failure(error: BaseException) -> tuple[str, str]:
    """(status, message) for a run that ended without otter's results."""
    if type(error).__name__ == "DeadKernelError":
        return ("kernel died", "the notebook's kernel stopped (a crash, os.kill, or the memory "
                "limit); questions checked before that keep their score")
    if isinstance(error, FileNotFoundError):
        return ("incomplete", "the notebook did not run to its end, so otter wrote no results; "
                "questions checked before that keep their score")
    return ("error", shorten(f"grading failed: {type(error).__name__}: {error}", 300))


def _all_code(nb: Any) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "code")


def _grade_in_child(submission: Path, autograder: Path, workdir: Path, limits: Limits,
                    points: dict[str, float]) -> None:
    """Runs in the child process; writes result.json into ``workdir``."""
    os.setsid()  # our own process group, so the parent can stop all of it
    log = os.open(workdir / "grader.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    import nbformat

    folder = workdir / "submission"
    hashes = unpack_tests(autograder, folder)
    os.environ["JUPYTER_PATH"] = str(write_kernelspec(workdir / "jupyter", limits,
                                                      workdir / "kernel.pid"))
    os.chdir(folder)
    try:
        nb = nbformat.read(submission, as_version=4)
        nbformat.validate(nb)
    except Exception as error:
        _write_result(workdir, SubmissionResult(
            str(submission), _partial(workdir, points), "not gradable",
            shorten(f"not a readable notebook: {error}", 300)))
        return
    expected, found = assignment_name(autograder), nb.metadata.get("otter", {}).get(
        "assignment_name")
    if expected and found and expected != found:
        _write_result(workdir, SubmissionResult(
            str(submission), _partial(workdir, points), "wrong assignment",
            f"this notebook belongs to assignment {found!r}, not {expected!r}"))
        return
    # otter's first cell opens the notebook by name (grader = otter.Notebook("hw.ipynb")):
    # put the submission there under that name, whatever the student called the file.
    opened = re.search(r'otter\.Notebook\("([^"/]+)"\)', _all_code(nb))
    shutil.copy(submission, folder / (opened.group(1) if opened else submission.name))
    nb.metadata["kernelspec"] = {"name": GRADING_KERNEL, "language": "python",
                                 "display_name": "EduJAX (grading)"}
    nb.cells.insert(0, nbformat.v4.new_code_cell(cell_source(str(workdir / "progress.jsonl"))))
    try:
        results, executed = _execute(nb, workdir, limits)
        errors = cell_errors(executed)
        questions = [with_cell_error(question_result(tf), errors.get(tf.name))
                     for tf in results.results.values()]
        status, message = "graded", ""
    except Exception as error:
        questions = _partial(workdir, points)
        status, message = _failure(error)
    changed = changed_tests(folder, hashes)
    if changed:
        questions = [q._replace(score=0.0, feedback="not graded: the tests were modified")
                     for q in questions]
        status = "tests modified"
        message = (f"the notebook changed the test files {', '.join(changed)}: every question "
                   "scores 0")
    _write_result(workdir, SubmissionResult(str(submission), questions, status, message))


def _write_result(workdir: Path, result: SubmissionResult) -> None:
    (workdir / "result.json").write_text(result.to_json())


# ------------------------------------------------------------------ in the parent
def _ours(pid: int) -> bool:
    """Is ``pid`` still our grading kernel, or gone? (Never signal a recycled pid.)"""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"edujax.grading.kernel" in f.read()
    except FileNotFoundError:
        return True  # exited (or no /proc): its process group may still hold its children
    except OSError:
        return False


def _kill(workdir: Path, process: multiprocessing.Process) -> None:
    """Stop the child's process group, and the kernel's: the kernel leads a session of its
    own (jupyter_client starts it so), with whatever the notebook started under it."""
    groups = [process.pid]
    try:
        kernel = int((workdir / "kernel.pid").read_text())
        if _ours(kernel):
            groups.append(kernel)
    except (OSError, ValueError):
        pass
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass  # already gone
    process.join(5)


def _partial(workdir: Path, points: dict[str, float]) -> list[QuestionResult]:
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
    return [done.get(name, QuestionResult(name, 0.0, possible, "not reached"))
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
PRELOAD = ["edujax", "edujax.grading.runner", "nbformat", "nbconvert.preprocessors",
           "nbclient", "jupyter_client", "traitlets.config", "otter.execute",
           "otter.execute.logging", "otter.execute.preprocessor", "otter.test_files"]


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
                     keep: Path | None = None) -> SubmissionResult:
    """Grade one notebook against one autograder zip. Never raises, never hangs.

    ``points`` ({question: possible}, from ``possible_points``) lets a batch read the
    autograder once; it is what a submission that produced no results scores against.
    ``keep``: a folder where the executed notebook (outputs and all) is saved as
    ``<submission>.executed.ipynb``, for the teacher who wants to see what happened.
    """
    submission, autograder = Path(submission).resolve(), Path(autograder).resolve()
    points = points if points is not None else possible_points(autograder)
    context = _context()
    with tempfile.TemporaryDirectory(prefix="edujax-grade-") as tmp:
        workdir = Path(tmp)
        process = context.Process(target=_grade_in_child,
                                  args=(submission, autograder, workdir, limits, points))
        process.start()
        process.join(limits.timeout)
        timed_out = process.is_alive()
        _kill(workdir, process)  # also what the notebook left running after a normal finish
        if keep is not None and (workdir / "executed.ipynb").exists():
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(workdir / "executed.ipynb", keep / f"{submission.stem}.executed.ipynb")
        if (workdir / "result.json").exists():
            result = SubmissionResult.from_json((workdir / "result.json").read_text())
            return _fill_missing(result, points)
        questions = _partial(workdir, points)
        if timed_out:
            return SubmissionResult(str(submission), questions, "timed out",
                                    f"grading took longer than {limits.timeout:g} s and was "
                                    "stopped; questions checked before that keep their score")
        return SubmissionResult(str(submission), questions, "error",
                                "the grader stopped before the end "
                                f"({_log_tail(workdir) or 'no message'}); questions checked "
                                "before that keep their score")


def _fill_missing(result: SubmissionResult, points: dict[str, float]) -> SubmissionResult:
    """Every question of the assignment appears once, in order (0 if it has no result)."""
    have = {q.name: q for q in result.questions}
    return result._replace(questions=[
        have.get(name, QuestionResult(name, 0.0, possible, "not graded"))
        for name, possible in points.items()])

