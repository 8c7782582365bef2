"""The "inside" tasks: the student's copy of edujax has exactly the five pieces removed,
the solution copy passes every task test, and removing one piece fails exactly the tests
of that task (so each task can be done, and graded, on its own)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from edujax.grading.inside import load_tasks, make_student_copy, remove_task

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "course-kit" / "exercises" / "inside"


def run_pytest(copy: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only the copy's edujax
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                           *args], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=300)


def outcomes(run: subprocess.CompletedProcess) -> dict[str, str]:
    """{test file stem: "PASSED"/"FAILED" (FAILED if any of its tests failed)}"""
    result: dict[str, str] = {}
    for status, stem in re.findall(r"^(PASSED|FAILED|ERROR) tests/(test_task_\d+)\w*\.py",
                                   run.stdout, re.MULTILINE):
        if result.get(stem) != "FAILED":
            result[stem] = "PASSED" if status == "PASSED" else "FAILED"
    return result


def test_every_piece_is_found_exactly_once_in_todays_edujax():
    for task in load_tasks(TASKS):
        source = (ROOT / task.file).read_text()
        assert source.count(task.find) == 1, f"task {task.number} no longer matches {task.file}"
        assert f"Task {task.number}:" in remove_task(source, task)


def test_the_solution_passes_and_the_student_copy_fails_every_task(tmp_path):
    make_student_copy(TASKS, tmp_path / "solution", solution=True)
    solved = run_pytest(tmp_path / "solution")
    assert solved.returncode == 0, solved.stdout[-3000:]
    assert set(outcomes(solved).values()) == {"PASSED"} and len(outcomes(solved)) == 5

    tasks = make_student_copy(TASKS, tmp_path / "student")
    student = run_pytest(tmp_path / "student")
    assert set(outcomes(student).values()) == {"FAILED"}
    summary = student.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ failed", summary) and "passed" not in summary, summary
    for task in tasks:
        assert f"NotImplementedError: Task {task.number}:" in student.stdout


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_each_task_stands_alone(tmp_path, number):
    copy = tmp_path / "copy"
    make_student_copy(TASKS, copy, solution=True)
    task = next(t for t in load_tasks(TASKS) if t.number == number)
    (copy / task.file).write_text(remove_task((copy / task.file).read_text(), task))
    results = outcomes(run_pytest(copy))
    failed = {stem for stem, status in results.items() if status == "FAILED"}
    assert len(results) == 5 and failed == {f"test_task_{number}"}, results


def test_marker_selects_one_task(tmp_path):
    make_student_copy(TASKS, tmp_path / "student")
    run = run_pytest(tmp_path / "student", "-m", "task_4")
    assert set(outcomes(run)) == {"test_task_4"}
