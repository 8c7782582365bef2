"""From otter's test results to one short line of feedback per question.

otter records, for every test case, the doctest transcript of the failure: "Trying:
... Expecting nothing ... Traceback ... GradingError: element [1] differs ...". The
line that teaches is the last one, the exception and its message; the rest is the
machinery. ``case_feedback`` keeps that line, and a question's feedback joins the
lines of its failed cases, saying which were hidden tests.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from edujax.language import LANGUAGES, Text, language

# "SomeError: message" or "module.SomeError: message" at the start of a line.
EXCEPTION_LINE = re.compile(r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*"
                            r"(?:Error|Exception|Exceeded|Interrupt|Exit))(?::\s*(.*))?$")
MAX_FEEDBACK = 600  # characters per question in the CSV: a sentence or three, never megabytes
NOT_GRADED = Text("not graded", "채점되지 않음")
NOT_REACHED = Text("not reached", "채점이 여기까지 오지 못함")


def student_language(chosen: str | None) -> str:
    """The language a student's feedback is written in: ``chosen`` (a roster's ``language``
    column, or ``grade --language``) when it is "ko" or "en", else the grading process's own
    (``edujax.language``: ``EDUJAX_LANG``, the folder, the locale)."""
    return chosen if chosen in LANGUAGES else language()


def in_language(text: Text, lang: str) -> str:
    """``text`` in ``lang``, whatever language this process speaks."""
    return text.ko if lang == "ko" else text.en


class QuestionResult(NamedTuple):
    name: str
    score: float
    possible: float
    feedback: str   # empty when every test case passed: what the student reads
    details: str = ""  # the same with hidden tests' explanations: for the teacher only


def case_feedback(message: str | None) -> str:
    """The first exception line of a failed doctest transcript (or its last line).

    doctest goes on after a failing line, so later lines often fail only because an
    earlier one did (a NameError for a variable it never assigned): the first is the cause.
    """
    lines = [line for line in (message or "").splitlines() if line.strip()]
    for line in lines:
        match = EXCEPTION_LINE.match(line)
        if match:
            name, text = match.group(1).rsplit(".", 1)[-1], (match.group(2) or "").strip()
            return f"{name}: {text}" if text else name
    return lines[-1].strip() if lines else "failed"


SENTENCE_END = re.compile(r"[.!?](?=\s)")


def shorten(text: str, limit: int = MAX_FEEDBACK) -> str:
    """``text``, or as many of its whole sentences as fit in ``limit`` characters, then " …".

    A sentence cut in the middle can say the opposite of what it meant ("expected no"); so
    the cut falls after a sentence, or, for one long sentence, between two words.
    """
    if len(text) <= limit:
        return text
    ends = [m.end() for m in SENTENCE_END.finditer(text) if m.end() <= limit - 2]
    cut = ends[-1] if ends else text.rfind(" ", 0, limit - 1)
    return text[:cut if cut > 0 else limit - 2].rstrip() + " …"


def question_result(test_file: Any) -> QuestionResult:
    """A QuestionResult from one otter ``TestFile`` that has been run."""
    notes = []
    for result in test_file.test_case_results:
        if not result.passed:
            where = "hidden test" if result.test_case.hidden else "public test"
            notes.append(f"[{where}] {case_feedback(result.message)}")
    return QuestionResult(test_file.name, float(test_file.score), float(test_file.possible),
                          shorten(" ".join(dict.fromkeys(notes))))  # repeated notes once


CHECK_CALL = re.compile(r'grader\.check\("([^"]+)"\)')


def cell_errors(nb: Any) -> dict[str, str]:
    """{question: the error its answer cells stopped with}, from an executed notebook.

    A test that says "NameError: name 'grad_w' is not defined" is true but unhelpful
    when the real story is that the cell defining ``grad_w`` ran out of memory. The
    cells between two ``grader.check`` calls belong to the second one's question.
    """
    errors: dict[str, str] = {}
    pending: list[str] = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        match = CHECK_CALL.search(cell.source)
        if match:
            if pending:
                errors.setdefault(match.group(1), pending[0])
            pending = []
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                pending.append(shorten(f"{output.get('ename')}: {output.get('evalue', '')}", 200))
    return errors


def with_cell_error(result: QuestionResult, error: str | None) -> QuestionResult:
    """Put "[your cell] MemoryError: ..." in front of a failed question's feedback."""
    if not error or result.score >= result.possible:
        return result
    return result._replace(feedback=shorten(f"[your cell] {error} {result.feedback}".strip()))
