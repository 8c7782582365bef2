"""Grading speaks the student's language: every message a check, the grader or
``grader.check`` writes has a Korean form (with docs/glossary.md's words where it uses a
term), a Korean student's feedback is Korean in the CSV and in their feedback file, an
English student's English, and a question that fails after an earlier wrong one says so."""
from __future__ import annotations

import ast
import csv
import importlib
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import edujax.grading
from edujax.config import config
from edujax.language import ALL_TEXTS

ROOT = Path(__file__).resolve().parent.parent
GRADING = ROOT / "edujax" / "grading"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD = re.compile(r"\{(\w*)")
# The constructors whose message a student reads.
MESSAGE_CALLS = {"failed", "GradingError", "TimeLimitExceeded"}


def grading_texts():
    for module in pkgutil.iter_modules(edujax.grading.__path__):
        if module.name != "__main__":
            importlib.import_module(f"edujax.grading.{module.name}")
    return [t for t in ALL_TEXTS if t.__class__.__module__ == "edujax.language"
            and _defined_in_grading(t)]


def _defined_in_grading(text) -> bool:
    return any(text is value for name in list(sys.modules) if name.startswith("edujax.grading")
               for value in vars(sys.modules[name]).values())


def test_every_grading_message_has_a_korean_form_with_the_same_placeholders():
    texts = grading_texts()
    assert len(texts) >= 60, len(texts)  # the checks', the grader's and grader.check's words
    for text in texts:
        assert HANGUL.search(text.ko) or not re.search("[A-Za-z]{3}", text.en), text
        assert sorted(FIELD.findall(text.en)) == sorted(FIELD.findall(text.ko)), text


def english_only_messages(source: str, filename: str = "<source>") -> list[str]:
    """Calls such as ``failed("some words")`` whose message is English text written in
    place, instead of a ``Text`` (``failed(WRONG_SHAPE.format(...))``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) in MESSAGE_CALLS):
            continue
        for argument in node.args:
            for part in _outside_format_values(argument):
                if isinstance(part, ast.Constant) and isinstance(part.value, str) \
                        and re.search(r"[A-Za-z]{3}", part.value):
                    found.append(f"{filename}:{node.lineno}: {part.value!r}")
    return found


def _outside_format_values(node: ast.AST):
    """The nodes of ``node``, leaving out the values passed to a call by keyword (the
    numbers and names ``TEXT.format(name=...)`` fills in) and subscripts (``reply["error"]``)."""
    yield node
    for field, value in ast.iter_fields(node):
        if field in ("keywords", "slice"):
            continue
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                yield from _outside_format_values(child)


def test_no_check_writes_an_english_only_message():
    found = [hit for path in sorted(GRADING.glob("*.py"))
             for hit in english_only_messages(path.read_text(), path.name)]
    assert found == []


def test_an_english_only_message_is_caught():
    assert english_only_messages('failed(f"{name} has shape {got}")')
    assert english_only_messages('raise GradingError("calling " + name + " raised")')
    assert not english_only_messages('failed(WRONG_SHAPE.format(name=name, got=f"{x:g}"))')


@pytest.fixture
def korean():
    before = config.read("edujax_language")
    config.update("edujax_language", "ko")
    yield
    config.update("edujax_language", before)


def test_a_checks_explanation_is_korean_in_a_korean_notebook(korean):
    import edujax.numpy as jnp
    from edujax.grading import check_close, check_tree_close

    verdict = check_close(jnp.array([1.0, 2.0]), jnp.array([1.0, 3.0]), name="loss")
    assert "loss이(가) 기대한 값과 2개 위치 중 1곳에서 다릅니다" in verdict.explanation
    assert "여러분의 값은 2, 기대한 값은 3입니다" in verdict.explanation
    shape = check_close(jnp.zeros(3), jnp.zeros(()))
    assert shape.explanation.startswith("여러분의 결과의 모양이 (3,)입니다"), shape
    tree = check_tree_close({"w": jnp.zeros(2)}, {"w": jnp.zeros(2), "b": jnp.zeros(1)})
    assert "구조가 기대한 구조와 다릅니다" in tree.explanation and "['b']" in tree.explanation


def test_the_grader_says_an_earlier_wrong_question_may_be_the_cause(korean):
    from edujax.grading.feedback import QuestionResult
    from edujax.grading.trusted import earlier_failure_hint

    q1 = QuestionResult("q1", 0.0, 2.0, "[공개 테스트] ...")
    q2 = QuestionResult("q2", 0.0, 1.0, "[공개 테스트] ...")
    hinted = earlier_failure_hint(q2, [q1])
    assert "(앞 문제 q1도 틀렸습니다: 이 답이 그것을 쓴다면 먼저 고치세요)" in hinted.feedback
    assert "앞 문제" not in earlier_failure_hint(q2, [q1._replace(score=2.0)]).feedback


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Two students hand in the same wrong notebook (q1 sums instead of averaging, which
    makes q2 fail too); the roster says one reads Korean, the other English."""
    from edujax.grading.assign import assign_one
    from edujax.grading.selftest import wrong_notebook

    tmp = tmp_path_factory.mktemp("languages")
    assignment = assign_one(ROOT / "course-kit" / "exercises" / "01-grad-argnums", tmp / "dist")
    subs = tmp / "subs"
    subs.mkdir()
    wrong = wrong_notebook(assignment.solution, {
        "q1": "def loss(w, x, y):\n    return jnp.sum((x @ w - y) ** 2)"}, subs / "minji.ipynb")
    shutil.copy(wrong, subs / "alex.ipynb")
    roster = tmp / "roster.csv"
    roster.write_text("student,id,submission,language\nKim Minji,1,minji.ipynb,ko\n"
                      "Alex Doe,2,alex.ipynb,en\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "edujax.grading", "grade", str(subs), "--assignment",
         str(tmp / "dist" / assignment.name), "--csv", str(tmp / "grades.csv"), "--roster",
         str(roster), "--feedback", str(tmp / "feedback"), "--language", "en"],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(tmp / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {Path(r["submission"]).stem: r for r in csv.DictReader(f)}
    files = {name: (tmp / "feedback" / f"{name}.feedback.txt").read_text(encoding="utf-8")
             for name in rows}
    return rows, files


def test_a_korean_students_feedback_is_korean(graded):
    rows, files = graded
    for text in (rows["minji"]["feedback"], files["minji"]):
        assert "[공개 테스트] loss(w, x, y)이(가) 기대한 값과" in text, text
        assert "[숨은 테스트] 통과하지 못함" in text
        assert "(앞 문제 q1도 틀렸습니다: 이 답이 그것을 쓴다면 먼저 고치세요)" in text
        assert "differs" not in text and "hidden test" not in text
    assert "[숨은 테스트]" in rows["minji"]["details"]  # the teacher's column too


def test_an_english_students_feedback_is_english(graded):
    rows, files = graded
    for text in (rows["alex"]["feedback"], files["alex"]):
        assert "[public test] loss(w, x, y) differs from the expected value" in text, text
        assert "(q1 failed too: if this answer uses it, fix that first)" in text
        assert not HANGUL.search(text), text
    assert rows["alex"]["q1"] == rows["minji"]["q1"] == "0"  # the language changes no score


def test_a_roster_language_that_is_neither_ko_nor_en_is_refused(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,id,submission,language\nA,1,a.ipynb,fr\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "edujax.grading", "grade", str(tmp_path), "--autograder",
         str(tmp_path / "none.zip"), "--csv", str(tmp_path / "g.csv"), "--roster", str(roster),
         "--no-sandbox"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "language must be ko or en, not 'fr'" in done.stderr
    assert "Traceback" not in done.stderr
