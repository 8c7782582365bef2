"""Grade one notebook: its cells run in the sandbox, its tests run here.

The trusted process (this one) holds the autograder's tests, hidden ones included, and
the assignment's own setup code (the cells that define ``x``, ``y``, ``params``...,
saved by ``assign`` into the autograder). It never runs student code. It walks the
submission's cells, sends each to the sandboxed notebook (``remote.Notebook``), and at
each ``grader.check("qN")`` cell runs question qN's tests here, in a namespace made of

* the assignment's setup, executed here from the teacher's copy (a student who
  redefines ``x`` changes their notebook, not the test's ``x``);
* the names the tests use that the notebook defines: values arrive as plain data,
  functions as ``RemoteFunction`` (calling one sends data in and gets data out).

Scores exist only here: each question is graded once (at its first check, or at the end),
clamped to [0, points]; questions the notebook invents do not exist.
"""
from __future__ import annotations

import ast
import builtins
import json
import re
import zipfile
from pathlib import Path
from typing import Any, Callable, NamedTuple

from edujax.grading.feedback import (CHECK_CALL, MAX_FEEDBACK, QuestionResult, case_feedback,
                                     shorten)
from edujax.language import Text

SETUP_FILE = "edujax_setup.json"   # in the autograder zip, written by ``assign``
LABEL = re.compile(r"""name\s*=\s*(["'])(.+?)\1""")

# The feedback's words, in the student's language: the grading process sets
# ``edujax_language`` to it (runner.py), so ``str(text)`` is the student's form.
HIDDEN_FAILED = Text("[hidden test] failed{what}", "[숨은 테스트] 통과하지 못함{what}")
HIDDEN_DETAIL = Text("[hidden test] {why}", "[숨은 테스트] {why}")
PUBLIC_FAILED = Text("[public test] {why}", "[공개 테스트] {why}")
EARLIER_FAILED = Text("({names} failed too: if this answer uses it, fix that first)",
                      "(앞 문제 {names}도 틀렸습니다: 이 답이 그것을 쓴다면 먼저 고치세요)")
YOUR_CELL = Text("[your cell] {error}", "[답 셀] {error}")


class Question(NamedTuple):
    name: str
    possible: float
    test_file: Any   # otter's TestFile


def load_questions(autograder: Path) -> list[Question]:
    """The autograder's questions, in order, parsed here (never unpacked where a
    notebook could reach them)."""
    import tempfile

    from otter.nbmeta_config import NBMetadataConfig
    from otter.test_files import create_test_file

    questions = []
    with zipfile.ZipFile(autograder) as archive, \
            tempfile.TemporaryDirectory(prefix="edujax-tests-") as tmp:
        for item in sorted(archive.namelist()):
            if item.startswith("tests/") and item.endswith(".py"):
                path = Path(tmp) / Path(item).name
                path.write_bytes(archive.read(item))
                test_file = create_test_file(str(path), NBMetadataConfig())
                questions.append(Question(path.stem, float(test_file.possible), test_file))
    return questions


def load_setup(autograder: Path) -> list[str]:
    """The assignment's setup cells (what every notebook of it defines before answers)."""
    with zipfile.ZipFile(autograder) as archive:
        try:
            return json.loads(archive.read(SETUP_FILE))
        except KeyError:
            raise ValueError(f"{autograder} has no {SETUP_FILE}: run `python -m "
                             "edujax.grading assign` again to rebuild it") from None


def setup_namespace(sources: list[str]) -> dict[str, Any]:
    """The setup cells, executed here: the tests' own ``x``, ``params``, ``loss``..."""
    namespace: dict[str, Any] = {"__name__": "__grading__"}
    for source in sources:
        try:
            exec(compile(source, "<setup>", "exec"), namespace)  # noqa: S102 - teacher's code
        except Exception:  # a setup cell that needs a student's answer: the notebook has it
            continue
    return namespace


def names_used(test_file: Any) -> list[str]:
    """Names the question's test code reads and does not assign itself."""
    loaded, stored = set(), set()
    for case in test_file.test_cases:
        code = "\n".join(line[4:] for line in case.body.splitlines()
                         if line.startswith(">>> ") or line.startswith("... "))
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.alias)):
                stored.add(node.name if isinstance(node, ast.FunctionDef)
                           else (node.asname or node.name).split(".")[0])
    return sorted(loaded - stored - set(dir(builtins)))


def run_question(question: Question, namespace: dict[str, Any],
                 fetch: Callable[[list[str]], dict[str, Any]]) -> QuestionResult:
    """Run one question's tests here; the score, the student's feedback, the details."""
    scope = dict(namespace)
    missing = [n for n in names_used(question.test_file) if n not in scope]
    if missing:
        scope.update(fetch(missing))
    test_file = question.test_file
    test_file.run(scope)
    feedback, details = [], []
    for result in test_file.test_case_results:
        if result.passed:
            continue
        # a GradingError's message is the explanation itself; other errors keep their name
        why = case_feedback(result.message).removeprefix("GradingError: ")
        if result.test_case.hidden:
            label = LABEL.findall(result.test_case.body)
            what = f": {label[-1][1]}" if label else ""
            feedback.append(HIDDEN_FAILED.format(what=what))
            details.append(HIDDEN_DETAIL.format(why=why))
        else:
            feedback.append(PUBLIC_FAILED.format(why=why))
            details.append(PUBLIC_FAILED.format(why=why))
    score = min(max(float(test_file.score), 0.0), question.possible)
    return QuestionResult(question.name, score, question.possible,
                          shorten(" ".join(dict.fromkeys(feedback))),
                          shorten(" ".join(dict.fromkeys(details)), 2 * MAX_FEEDBACK))


def checked_questions(source: str) -> list[str]:
    return CHECK_CALL.findall(source)


def earlier_failure_hint(result: QuestionResult, earlier: list[QuestionResult]) -> QuestionResult:
    """Say so when an earlier question failed too: this one may only fail because of it."""
    failed = [q.name for q in earlier if q.score < q.possible]
    if result.score >= result.possible or not failed:
        return result
    names = ", ".join(failed)
    hint = EARLIER_FAILED.format(names=names)
    return result._replace(feedback=shorten(f"{result.feedback} {hint}".strip()),
                           details=shorten(f"{result.details} {hint}".strip(), 2 * MAX_FEEDBACK))


def with_cell_error(result: QuestionResult, error: str | None) -> QuestionResult:
    """Put the error the question's own answer cells stopped with in front of its feedback."""
    if not error or result.score >= result.possible:
        return result
    note = YOUR_CELL.format(error=shorten(error, 200))
    return result._replace(feedback=shorten(f"{note} {result.feedback}"),
                           details=shorten(f"{note} {result.details}", 2 * MAX_FEEDBACK))
