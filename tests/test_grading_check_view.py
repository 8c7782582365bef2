"""What a student sees under ``grader.check("q1")`` in the student notebook, run on the
EduJAX kernel as in JupyterLab: a short verdict per test in the notebook's language (here
chosen by its folder, ko/ or en/), no doctest transcript and no edujax frames, and a hint
when an earlier question failed too."""
import shutil
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


@pytest.fixture(scope="module", params=["en", "ko"])
def shown(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("view")
    assignment = assign_one(EXERCISE, tmp / "dist")
    # the kernel starts in the notebook's folder, whose name (ko/ or en/) says the language
    folder = tmp / request.param
    shutil.copytree(assignment.student.parent, folder)
    path = wrong_notebook(folder / assignment.student.name, {
        "q1": "def loss(w, x, y):\n    return jnp.sum((x @ w - y) ** 2)",
        "q2": "def grad_w(w, x, y):\n    return jax.grad(loss)(w, x, y)"}, folder / "work.ipynb")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="edujax", timeout=120,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return request.param, _check_outputs(nb)


EXPECTED = {
    "en": {"title": "q1: 0 of 1 tests passed",
           "case": "[fail] test 1: loss(w, x, y) differs from the expected value",
           "numbers": "you have 7.25, expected 2.416667",
           "earlier": "Hint: q1 failed too; if this answer uses it, fix that first.",
           "placeholder": "placeholder"},
    "ko": {"title": "q1: 1개 테스트 중 0개 통과",
           "case": "[실패] 테스트 1: loss(w, x, y)이(가) 기대한 값과",
           "numbers": "여러분의 값은 7.25, 기대한 값은 2.416667입니다",
           "earlier": "도움말: 앞 문제 q1도 틀렸습니다. 이 답이 그것을 쓴다면 먼저 고치세요.",
           "placeholder": "자리표시자"},
}


def test_a_failed_check_is_a_short_verdict_in_the_notebooks_language(shown):
    lang, shown = shown
    q1, want = shown["q1"], EXPECTED[lang]
    assert q1.startswith(want["title"]), q1
    assert want["case"] in q1 and want["numbers"] in q1, q1
    assert len(q1.splitlines()) <= 3
    for machinery in ("Trying:", "Traceback", "edujax/grading", "Expecting", "❌"):
        assert machinery not in q1
    other = EXPECTED["en" if lang == "ko" else "ko"]
    assert other["case"] not in q1 and other["title"] not in q1  # one language, not both


def test_a_question_that_may_fail_because_of_an_earlier_one_says_so(shown):
    lang, shown = shown
    assert EXPECTED[lang]["earlier"] in shown["q2"], shown["q2"]


def test_an_unanswered_question_says_what_to_do(shown):
    lang, shown = shown
    assert EXPECTED[lang]["placeholder"] in shown["q3"], shown["q3"]
