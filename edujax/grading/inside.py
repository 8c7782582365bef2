"""``inside``: assignments where the student writes pieces of edujax itself.

minitorch's idea: the best way to understand a library is to fill in its missing parts,
with tests that say which part works. ``make_student_copy`` copies the edujax package,
removes the pieces listed in ``tasks.yml`` (a JVP rule, a transpose rule, a batching
rule, a threefry round, a fusion decision), each replaced by a stub that explains the
task and raises ``NotImplementedError("Task N: ...")``, and adds the task tests:

    python -m edujax.grading inside student-edujax/      # make the copy
    cd student-edujax && python -m pytest -m task_1      # work on task 1

Everything else in the copy is the real edujax, so a finished task makes real programs
(``jax.grad(jnp.sin)``, ``jax.vmap(jnp.sum)``, ``random.split``...) work again. The
removals are matched as exact text, so a change to edujax that moves one of them makes
``make_student_copy`` fail loudly instead of handing out a broken copy (a test checks it).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import NamedTuple

import edujax


class Task(NamedTuple):
    number: int
    title: str
    file: str   # relative to the repository root, e.g. edujax/prng.py
    find: str   # the text removed (the reference solution)
    stub: str   # what the student gets instead


def load_tasks(folder: Path) -> list[Task]:
    import yaml  # comes with otter-grader, the grading extra

    entries = yaml.safe_load((folder / "tasks.yml").read_text(encoding="utf-8"))
    return [Task(e["task"], e["title"], e["file"], e["find"], e["stub"]) for e in entries]


def remove_task(source: str, task: Task) -> str:
    """``source`` with the task's text replaced by its stub (it must occur exactly once)."""
    count = source.count(task.find)
    if count != 1:
        raise ValueError(f"task {task.number} ({task.title}): its text occurs {count} times "
                         f"in {task.file}, expected once; update tasks.yml")
    return source.replace(task.find, task.stub)


def _pytest_ini(tasks: list[Task]) -> str:
    markers = "\n".join(f"    task_{t.number}: {t.title}" for t in tasks)
    return f"[pytest]\ntestpaths = tests\naddopts = -q\nmarkers =\n{markers}\n"


def make_student_copy(folder: Path, out: Path, *, solution: bool = False) -> list[Task]:
    """Write the student's copy (``solution=True``: nothing removed) into ``out``."""
    package = Path(edujax.__file__).resolve().parent
    tasks = load_tasks(folder)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "edujax", ignore_errors=True)
    shutil.copytree(package, out / "edujax",
                    ignore=shutil.ignore_patterns("__pycache__", "grading"))
    for task in [] if solution else tasks:
        path = out / task.file
        path.write_text(remove_task(path.read_text(encoding="utf-8"), task), encoding="utf-8")
    shutil.rmtree(out / "tests", ignore_errors=True)
    shutil.copytree(folder / "tests", out / "tests",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (out / "pytest.ini").write_text(_pytest_ini(tasks))
    shutil.copy(folder / "README.md", out / "README.md")
    return tasks
