"""``selftest``: grade what we know the answer to, before grading students.

A hidden test that is too strict fails good students; one that is too lenient passes
wrong answers; a typo in a test makes everyone fail. So for every assignment we grade:

* the **reference solution**: it must get full marks;
* the **untouched student notebook**: it must get 0 (a test that passes on ``...``
  tests nothing);
* every **typical wrong answer** kept with the assignment (``wrong_answers.yml``): the
  reference solution with one answer cell replaced; each must get exactly its intended
  score per question, and its feedback must contain the phrases listed (so the
  explanation a student reads is checked too);

and we check that no hidden test's code appears anywhere in the student notebook.
One line per case, then "N passed, N failed".
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from edujax.grading.assign import Assignment
from edujax.grading.feedback import CHECK_CALL
from edujax.grading.runner import SubmissionResult



class Case(NamedTuple):
    assignment: Assignment
    name: str
    submission: Path
    scores: dict[str, float] | None   # expected per question; None: full marks everywhere
    feedback: list[str]               # phrases the feedback must contain


# ------------------------------------------------------------------ building the cases
ANSWER_TAGS = {"otter_assign_solution_cell", "otter_answer_cell"}  # solution / student notebook


def answer_cells(nb: Any) -> dict[str, int]:
    """{question: index of its first answer cell} in an otter solution or student notebook."""
    cells, pending = {}, []
    for i, cell in enumerate(nb.cells):
        if ANSWER_TAGS & set(cell.metadata.get("tags", [])):
            pending.append(i)
        match = CHECK_CALL.search(cell.source) if cell.cell_type == "code" else None
        if match and pending:
            cells.setdefault(match.group(1), pending[0])
            pending = []
    return cells


def wrong_notebook(solution: Path, answers: dict[str, str], target: Path) -> Path:
    """The notebook ``solution`` with the answer cells of ``answers`` replaced."""
    import nbformat

    nb = nbformat.read(solution, as_version=4)
    where = answer_cells(nb)
    for question, source in answers.items():
        if question not in where:
            raise KeyError(f"{solution}: no answer cell for question {question!r}")
        nb.cells[where[question]].source = source.rstrip("\n")
    nbformat.write(nb, target)
    return target


def load_wrong_answers(folder: Path) -> list[dict]:
    import yaml  # comes with otter-grader

    path = folder / "wrong_answers.yml"
    if not path.exists():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def cases_for(assignment: Assignment, folder: Path, workdir: Path) -> list[Case]:
    """The reference solution, the student notebook, and the wrong answers of ``folder``."""
    cases = [Case(assignment, "reference solution", assignment.solution, None, []),
             Case(assignment, "untouched student notebook", assignment.student,
                  {"*": 0.0}, [])]
    for i, wrong in enumerate(load_wrong_answers(folder)):
        target = workdir / f"{assignment.name}-wrong-{i + 1}.ipynb"
        wrong_notebook(assignment.solution, wrong["answers"], target)
        cases.append(Case(assignment, wrong["name"], target,
                          {k: float(v) for k, v in wrong.get("scores", {}).items()},
                          list(wrong.get("feedback", []))))
    return cases


# ------------------------------------------------------------------ judging them
def judge(case: Case, result: SubmissionResult) -> list[str]:
    """What is wrong with this result for this case (empty: the case passed)."""
    problems = [] if result.status == "graded" else [f"{result.status}: {result.message}"]
    for q in result.questions:
        if case.scores is None:
            want = q.possible
        else:
            want = case.scores.get(q.name, case.scores.get("*", q.possible))
        if abs(q.score - want) > 1e-9:
            problems.append(f"{q.name} scored {q.score:g}, expected {want:g}"
                            + (f" ({q.details or q.feedback})" if q.feedback else ""))
    feedback = " ".join(f"{q.feedback} {q.details}" for q in result.questions)
    problems += [f"feedback lacks {phrase!r}" for phrase in case.feedback
                 if phrase not in feedback]
    return problems


def _statements(doctest_code: str) -> list[str]:
    """The statements of one otter test case (doctest ">>> " lines), imports left out."""
    import ast

    code = "\n".join(line[4:] for line in doctest_code.splitlines()
                     if line.startswith((">>> ", "... ")))
    return [ast.unparse(node) for node in ast.parse(code).body
            if not isinstance(node, (ast.Import, ast.ImportFrom))]


def hidden_test_leaks(assignment: Assignment) -> list[str]:
    """Statements of hidden tests found in the student notebook (should be none).

    A statement that a public test of the same question also has is not a leak.
    """
    student = assignment.student.read_text(encoding="utf-8")
    leaks = []
    with zipfile.ZipFile(assignment.autograder) as archive:
        for item in archive.namelist():
            if not (item.startswith("tests/") and item.endswith(".py")):
                continue
            namespace: dict = {}
            exec(archive.read(item).decode(), namespace)  # the teacher's own test file
            cases = [case for suite in namespace["test"]["suites"] for case in suite["cases"]]
            public = {s for case in cases if not case["hidden"] for s in _statements(case["code"])}
            for case in cases:
                for statement in _statements(case["code"]) if case["hidden"] else []:
                    if statement not in public and json.dumps(statement)[1:-1] in student:
                        leaks.append(f"{item}: {statement}")
    return leaks
