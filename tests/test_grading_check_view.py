"""What a student sees under ``grader.check("q1")`` in the student notebook, run on the
EduJAX kernel as in JupyterLab: a short verdict per test in Korean and English, no doctest
transcript and no edujax frames, and a hint when an earlier question failed too."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from edujax.grading.assign import assign_one
from edujax.grading.selftest import wrong_notebook

EXERCISE = Path(__file__).parent.parent / "course-kit" / "exercises" / "01-grad-argnums"


def _check_outputs(nb) -> dict[str, str]:
    """{question: the text its grader.check cell displayed}."""
    shown = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("grader.check("):
            name = cell.source.split('"')[1]
            shown[name] = "\n".join(o.get("data", {}).get("text/plain", o.get("text", ""))
                                    for o in cell.outputs)
    return shown


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("view")
    assignment = assign_one(EXERCISE, tmp / "dist")
    folder = assignment.student.parent
    path = wrong_notebook(assignment.student, {
        "q1": "def loss(w, x, y):\n    return jnp.sum((x @ w - y) ** 2)",
        "q2": "def grad_w(w, x, y):\n    return jax.grad(loss)(w, x, y)"}, folder / "work.ipynb")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="edujax", timeout=120,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return _check_outputs(nb)


def test_a_failed_check_is_a_short_bilingual_verdict(shown):
    q1 = shown["q1"]
    assert q1.startswith("q1: 1개 중 0개 통과 / 0 of 1 tests passed"), q1
    assert "[실패 / fail] 테스트 1 / test 1: loss(w, x, y) differs from the expected value" in q1
    assert "you have 7.25, expected 2.416667" in q1
    assert len(q1.splitlines()) <= 3
    for machinery in ("Trying:", "Traceback", "edujax/grading", "Expecting", "❌"):
        assert machinery not in q1


def test_a_question_that_may_fail_because_of_an_earlier_one_says_so(shown):
    assert "Hint: q1 failed too; if this answer uses it, fix that first." in shown["q2"]
    assert "힌트: 앞 문제 q1도 틀렸습니다" in shown["q2"]


def test_an_unanswered_question_says_what_to_do(shown):
    assert "still `...`" in shown["q3"] or "placeholder" in shown["q3"], shown["q3"]
