"""The teacher's batch: 30 submissions of assignment 1 (correct, partial, empty, and
hostile of every kind the issue lists) graded in parallel into one CSV.

Every submission is built from the assignment's own notebooks, and its expected score
follows from what was done to it: a broken question loses its points (and the
questions that call it lose theirs), a notebook that tampers with the tests gets 0.
The batch must finish within its time limit, whatever the hostile ones do.
"""
import csv
import time
from pathlib import Path

import nbformat
import pytest

from edujax.grading.assign import assign_one
from edujax.grading.grade import grade_many, write_csv
from edujax.grading.runner import Limits, grade_submission, possible_points
from edujax.grading.selftest import wrong_notebook

EXERCISE = Path(__file__).parent.parent / "course-kit" / "exercises" / "01-grad-argnums"
# Small limits keep the test short: a cell may run 12 s (the tests' own per-call limit
# is 10 s), a whole submission 30 s.
LIMITS = Limits(timeout=30, cell_timeout=12, memory_mb=1500, cpu_seconds=120)
BATCH_LIMIT_S = 240  # for all 30, three at a time, on a loaded 2-core machine

GOOD_GRAD_W = "def grad_w(w, x, y):\n    return jax.grad(loss)(w, x, y)"

# name -> (base notebook, {question: new answer cell}, questions expected to score 0,
#          status, a phrase the CSV row must contain)
SOLUTION, STUDENT = "solution", "student"
CASES = {
    # correct
    "correct": (SOLUTION, {}, set(), "graded", ""),
    "correct-renamed-file": (SOLUTION, {}, set(), "graded", ""),
    "correct-rewritten": (SOLUTION, {"q2": "grad_w = lambda w, x, y: jax.grad(loss)(w, x, y)"},
                          set(), "graded", ""),
    "correct-with-prints": (SOLUTION, {"q3": "print('hello')\ndef grad_x(w, x, y):\n"
                                             "    return jax.grad(loss, 1)(w, x, y)"},
                            set(), "graded", ""),
    # partial
    "only-q1": (STUDENT, {"q1": "def loss(w, x, y):\n    return jnp.mean((x @ w - y) ** 2)"},
                {"q2", "q3"}, "graded", "placeholder `...`"),
    "q2-wrong-argnums": (SOLUTION, {"q2": "def grad_w(w, x, y):\n"
                                          "    return jax.grad(loss, argnums=1)(w, x, y)"},
                         {"q2"}, "graded", "has shape (3, 2), expected (2,)"),
    "q3-no-argnums": (SOLUTION, {"q3": "def grad_x(w, x, y):\n    return jax.grad(loss)(w, x, y)"},
                      {"q3"}, "graded", "has shape (2,), expected (3, 2)"),
    "q2-q3-missing": (SOLUTION, {"q2": "...", "q3": "..."}, {"q2", "q3"}, "graded",
                      "not defined"),
    "q1-no-mean": (SOLUTION, {"q1": "def loss(w, x, y):\n    return (x @ w - y) ** 2"},
                   {"q1", "q2", "q3"}, "graded", "Gradient only defined for scalar-output"),
    # empty
    "empty-student": (STUDENT, {}, {"q1", "q2", "q3"}, "graded", "placeholder `...`"),
    "empty-cells": (STUDENT, {"q1": "", "q2": "", "q3": ""}, {"q1", "q2", "q3"}, "graded",
                    "not defined"),
    # hostile: loops
    "loop-in-cell": (SOLUTION, {"q2": "while True:\n    pass"}, {"q2"}, "graded",
                     "CellTimeout"),
    "loop-in-function": (SOLUTION, {"q2": "def grad_w(w, x, y):\n    while True:\n        pass"},
                         {"q2"}, "graded", "did not finish within 10 s"),
    # ... and leaves a process behind that ignores interrupts too: killed with the sandbox
    "loop-ignoring-interrupts": (SOLUTION, {"q2": "import signal, subprocess\n"
                                                  "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                                                  "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                                                  "subprocess.Popen(['sleep', '313.25'])\n"
                                                  "while True:\n    pass"},
                                 {"q2", "q3"}, "timed out", "did not answer within"),
    # hostile: raising and exiting
    "raise": (SOLUTION, {"q2": "raise RuntimeError('nope')"}, {"q2"}, "graded",
              "RuntimeError: nope"),
    "sys-exit": (SOLUTION, {"q2": "import sys\nsys.exit(3)"}, {"q2"}, "graded", "SystemExit"),
    "exit": (SOLUTION, {"q2": "exit()"}, {"q2"}, "graded", "not defined"),
    "exit-after-answer": (SOLUTION, {"q2": GOOD_GRAD_W + "\nquit()"}, set(), "graded", ""),
    # a notebook that ends its own process: the questions checked before keep their score
    "os-exit": (SOLUTION, {"q2": "import os\nos._exit(1)"}, {"q2", "q3"}, "stopped",
                "its process ended"),
    "os-abort": (SOLUTION, {"q2": "import os\nos.abort()"}, {"q2", "q3"}, "stopped",
                 "its process ended"),
    "kill-kernel": (SOLUTION, {"q2": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"},
                    {"q2", "q3"}, "stopped", "its process ended"),
    # hostile: memory and output
    "memory-list": (SOLUTION, {"q2": "hog = []\nwhile True:\n    hog.append(bytearray(10**8))"},
                    {"q2"}, "graded", "MemoryError"),
    "memory-array": (SOLUTION, {"q2": "import numpy as np\nbig = np.ones(10**11)"},
                     {"q2"}, "graded", "MemoryError"),
    "leaves-a-process": (SOLUTION, {"q2": "import signal, subprocess\n"
                                           "subprocess.Popen(['sleep', '313.25'], preexec_fn="
                                           "lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))\n"
                                           + GOOD_GRAD_W},
                         set(), "graded", ""),
    "megabytes-of-output": (SOLUTION, {"q2": "print('x' * 5_000_000)\n" + GOOD_GRAD_W},
                            set(), "graded", ""),
    # hostile: the tests
    "rewrites-test-files": (SOLUTION, {"q1": (
        "import glob, os\nfor p in glob.glob('tests/*.py'):\n    os.chmod(p, 0o644)\n"
        "    open(p, 'w').write(\"OK_FORMAT = True\\ntest = {'name': 'q', 'points': 2, "
        "'suites': []}\\n\")\ndef loss(w, x, y):\n    return jnp.mean((x @ w - y) ** 2)")},
        set(), "graded", ""),  # the tests are not in its reach: its fair score
    "replaces-grader": (SOLUTION, {"q2": "class Cheat:\n    def check(self, q):\n"
                                         "        return 'passed'\ngrader = Cheat()\n"
                                         "def grad_w(w, x, y):\n    return 0.0"},
                        {"q2"}, "graded", "expected"),
    # not a notebook / not for this kernel
    "not-json": (None, "hello, this is not a notebook", {"q1", "q2", "q3"}, "not gradable",
                 "not a readable notebook"),
    "empty-file": (None, "", {"q1", "q2", "q3"}, "not gradable", "not a readable notebook"),
    "other-kernelspec": (SOLUTION, {}, set(), "graded", ""),  # metadata edited below
}


def build(name, case, assignment, folder: Path) -> Path:
    base, answers = case[0], case[1]
    target = folder / (f"{name}.ipynb" if name != "correct-renamed-file" else "my homework.ipynb")
    if base is None:
        target.write_text(answers)
        return target
    source = assignment.solution if base == SOLUTION else assignment.student
    wrong_notebook(source, answers, target)
    if name == "other-kernelspec":
        text = target.read_text().replace('"name": "edujax"', '"name": "julia-1.9"')
        assert "julia-1.9" in text
        target.write_text(text)
    return target


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("batch")
    assignment = assign_one(EXERCISE, tmp / "dist")
    folder = tmp / "submissions"
    folder.mkdir()
    paths = {name: build(name, case, assignment, folder) for name, case in CASES.items()}
    start = time.perf_counter()
    results = grade_many(list(paths.values()), assignment.autograder, limits=LIMITS, jobs=3,
                         keep=tmp / "executed")
    elapsed = time.perf_counter() - start
    write_csv(results, tmp / "grades.csv")
    with open(tmp / "grades.csv", newline="") as f:
        rows = {Path(row["submission"]).name: row for row in csv.DictReader(f)}
    return assignment, paths, rows, elapsed, tmp / "executed"


def test_thirty_submissions_one_csv_within_the_time_limit(batch):
    _, paths, rows, elapsed, _ = batch
    assert len(CASES) == 30 and len(rows) == 30
    assert elapsed < BATCH_LIMIT_S, f"the batch took {elapsed:.0f} s"
    assert set(rows) == {p.name for p in paths.values()}


def test_executed_notebooks_are_kept_for_the_teacher(batch):
    *_, executed = batch
    nb = nbformat.read(executed / "correct-with-prints.executed.ipynb", as_version=4)
    outputs = [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert any("hello" in text for text in outputs)


def test_nothing_the_notebooks_started_survives(batch):
    leftovers = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"313.25" in cmdline.read_bytes():
                leftovers.append(cmdline.parent.name)
        except OSError:
            pass
    assert not leftovers, f"processes started by a notebook still run: {leftovers}"


@pytest.mark.parametrize("name", list(CASES))
def test_each_submission_scores_what_it_earned(batch, name):
    assignment, paths, rows, _, _ = batch
    _, _, zero, status, phrase = CASES[name]
    row = rows[paths[name].name]
    points = possible_points(assignment.autograder)
    expected = {q: (0.0 if q in zero else p) for q, p in points.items()}
    assert row["status"] == status, f"{row['status']}: {row['message']}"
    assert {q: float(row[q]) for q in points} == expected, row
    assert float(row["total"]) == sum(expected.values())
    assert float(row["possible"]) == sum(points.values())
    assert phrase in row["message"] + row["feedback"], row
    assert len(row["feedback"]) < 2000  # megabytes of output never reach the CSV


def test_a_notebook_of_another_assignment_is_refused(batch, tmp_path):
    assignment, *_ = batch
    other = assign_one(EXERCISE.parent / "09-reading-jaxprs", tmp_path / "dist")
    result = grade_submission(other.solution, assignment.autograder, LIMITS)
    assert result.status == "wrong assignment" and result.total == 0
    assert "belongs to assignment '09-reading-jaxprs', not '01-grad-argnums'" in result.message
