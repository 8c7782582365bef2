"""``assign``: master notebooks → student notebooks and autograders (otter assign).

For each master, ``otter assign`` writes two things, and we put them where the other
commands look for them:

    OUT/<name>/student/<name>.ipynb   what students get: no solutions, no hidden tests
                                       (public tests travel in its metadata)
    OUT/<name>/autograder.zip         what grading uses: every test, hidden ones included
    OUT/<name>/solution.ipynb         the reference solution, which selftest grades

A master is one folder of course-kit/exercises/: ``<name>.py`` (percent format, see
``source.py``) or ``<name>.ipynb``, beside an optional ``wrong_answers.yml``.
"""
from __future__ import annotations

import json
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

from edujax.grading.source import read_master


class Assignment(NamedTuple):
    name: str
    student: Path       # the student notebook
    autograder: Path    # the autograder zip
    solution: Path      # the reference solution notebook (otter's autograder notebook)


def find_master(folder: Path) -> Path:
    """The master notebook of an exercise folder: ``<folder name>.py`` or ``.ipynb``."""
    for suffix in (".py", ".ipynb"):
        candidate = folder / f"{folder.name}{suffix}"
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"{folder} has no master notebook ({folder.name}.py or .ipynb)")


def find_exercises(paths: list[Path]) -> list[Path]:
    """Exercise folders among ``paths``: each path is one, or a folder of them."""
    folders = []
    for path in paths:
        if any(path.glob(f"{path.name}.*")):
            folders.append(path)
        else:
            folders.extend(sorted(p for p in path.iterdir()
                                  if p.is_dir() and any(p.glob(f"{p.name}.*"))))
    return folders


def assign_one(folder: Path, out: Path) -> Assignment:
    """Run otter assign on one exercise folder; results under ``out/<name>``."""
    import nbformat
    from otter.assign import main as otter_assign  # the grading extra; imported when used

    name = folder.name
    target = out / name
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix=f"edujax-assign-{name}-") as tmp:
        master = Path(tmp) / f"{name}.ipynb"
        nbformat.write(read_master(find_master(folder)), master)
        # The solutions are checked by `selftest`, in a contained kernel; running them
        # here as well would only double the time assign takes.
        otter_assign(str(master), str(Path(tmp) / "dist"), no_pdfs=True, no_run_tests=True)
        dist = Path(tmp) / "dist"
        (target / "student").mkdir(parents=True)
        shutil.copy(dist / "student" / f"{name}.ipynb", target / "student" / f"{name}.ipynb")
        shutil.copy(next((dist / "autograder").glob("*.zip")), target / "autograder.zip")
        shutil.copy(dist / "autograder" / f"{name}.ipynb", target / "solution.ipynb")
    add_setup(target / "autograder.zip", target / "student" / f"{name}.ipynb")
    return load_assignment(target)


def setup_cells(student: Path) -> list[str]:
    """The code cells of the student notebook that are the assignment's own: not an
    answer cell, not a ``grader.check``, not otter's first cell."""
    import nbformat

    from edujax.grading.feedback import CHECK_CALL

    nb = nbformat.read(student, as_version=4)
    return [c.source for c in nb.cells
            if c.cell_type == "code" and "otter_answer_cell" not in c.metadata.get("tags", [])
            and not CHECK_CALL.search(c.source) and "otter.Notebook(" not in c.source]


def add_setup(autograder: Path, student: Path) -> None:
    """Save the setup cells into the autograder: the grader runs them itself, so that the
    tests use the teacher's ``x``, whatever a submission did to its copy."""
    from edujax.grading.trusted import SETUP_FILE

    with zipfile.ZipFile(autograder, "a") as archive:
        archive.writestr(SETUP_FILE, json.dumps(setup_cells(student)))


def load_assignment(target: Path) -> Assignment:
    """An assignment that ``assign`` wrote earlier into ``target``."""
    return Assignment(target.name, target / "student" / f"{target.name}.ipynb",
                      target / "autograder.zip", target / "solution.ipynb")
