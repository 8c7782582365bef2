"""The teacher's tools that need no kernel: masters in percent format, feedback lines
from otter's doctest transcripts, answer cells, the CSV."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from edujax.grading.feedback import QuestionResult, case_feedback, cell_errors, shorten
from edujax.grading.grade import write_csv
from edujax.grading.runner import SubmissionResult
from edujax.grading.selftest import answer_cells, wrong_notebook
from edujax.grading.source import notebook_from_percent, split_cells

MASTER = """\
# a header comment that belongs to no cell
# %% [markdown]
# # Title
#
# Some *text*.

# %% [raw]
# # BEGIN QUESTION
# name: q1

# %%
def f(x):
    # BEGIN SOLUTION
    return x + 1
    # END SOLUTION

# %%
print("not an answer")
"""


def test_percent_cells_are_split_and_uncommented():
    cells = split_cells(MASTER)
    assert [kind for kind, _ in cells] == ["markdown", "raw", "code", "code"]
    assert cells[0][1] == "# Title\n\nSome *text*."
    assert cells[1][1] == "# BEGIN QUESTION\nname: q1"
    assert cells[2][1].startswith("def f(x):\n    # BEGIN SOLUTION")


def test_answer_cells_get_otters_solution_delimiters_and_the_edujax_kernel():
    nb = notebook_from_percent(MASTER)
    sources = [(c.cell_type, c.source) for c in nb.cells]
    i = sources.index(("raw", "# BEGIN SOLUTION"))
    assert sources[i + 1][0] == "code" and "return x + 1" in sources[i + 1][1]
    assert sources[i + 2] == ("raw", "# END SOLUTION")
    assert sources.count(("raw", "# BEGIN SOLUTION")) == 1  # the print cell is no answer
    assert nb.metadata.kernelspec.name == "edujax"


DOCTEST_FAILURE = """\
q1 - 1 result:
    ❌ Test case failed
    Trying:
        _a, _b = call(two_normals, key)
    Expecting nothing
    **********************************************************************
    Line 2, in q1 0
    Failed example:
        _a, _b = call(two_normals, key)
    Exception raised:
        Traceback (most recent call last):
          File "<doctest q1 0[1]>", line 1, in <module>
        edujax.grading.verdict.GradingError: calling two_normals raised TypeError: no
    **********************************************************************
    Failed example:
        assert _a.shape == (3,)
    Exception raised:
        NameError: name '_a' is not defined
"""


def test_feedback_is_the_first_exception_without_its_module():
    first = "GradingError: calling two_normals raised TypeError: no"
    assert case_feedback(DOCTEST_FAILURE) == first
    assert case_feedback("Traceback:\n  AssertionError") == "AssertionError"
    assert case_feedback(None) == "failed"


def _nb(cells):
    nb = nbformat.v4.new_notebook()
    for source, tags, error in cells:
        cell = nbformat.v4.new_code_cell(source, metadata={"tags": tags})
        if error:
            cell.outputs = [nbformat.v4.new_output("error", ename=error, evalue="boom",
                                                   traceback=[])]
        nb.cells.append(cell)
    return nb


def test_long_feedback_keeps_whole_sentences():
    """The CSV's feedback is cut after a sentence (or between words), never inside a word."""
    notes = " ".join(f"[hidden test] GradingError: element [{i}] differs, expected 0.5 "
                     f"but got 0.25 here." for i in range(40))
    short = shorten(notes)
    assert len(short) <= 600 and short.endswith("here. …")
    assert notes.startswith(short[:-2])
    one_sentence = "word " * 200
    cut = shorten(one_sentence, 100)
    assert len(cut) <= 100 and cut.endswith("word …")
    assert shorten("fits.") == "fits."


def test_answer_cells_and_their_errors_belong_to_the_next_check():
    nb = _nb([("import x", [], None),
              ("def f(): ...", ["otter_answer_cell"], "MemoryError"),
              ('grader.check("q1")', [], None),
              ("def g(): ...", ["otter_answer_cell"], None),
              ('grader.check("q2")', [], None)])
    assert answer_cells(nb) == {"q1": 1, "q2": 3}
    assert cell_errors(nb) == {"q1": "MemoryError: boom"}


def test_wrong_notebook_replaces_only_that_answer(tmp_path):
    nb = _nb([("def f(): return 1", ["otter_assign_solution_cell"], None),
              ('grader.check("q1")', [], None),
              ("def g(): return 2", ["otter_assign_solution_cell"], None),
              ('grader.check("q2")', [], None)])
    nbformat.write(nb, tmp_path / "solution.ipynb")
    wrong_notebook(tmp_path / "solution.ipynb", {"q2": "def g(): return 3\n"},
                   tmp_path / "wrong.ipynb")
    sources = [c.source for c in nbformat.read(tmp_path / "wrong.ipynb", as_version=4).cells]
    assert sources[0] == "def f(): return 1" and sources[2] == "def g(): return 3"


def test_csv_has_one_row_per_submission_and_a_column_per_question(tmp_path):
    results = [
        SubmissionResult("a.ipynb", [QuestionResult("q1", 2.0, 2.0, ""),
                                     QuestionResult("q2", 0.5, 1.0, "GradingError: shape")],
                         "graded"),
        SubmissionResult("b.ipynb", [QuestionResult("q1", 0.0, 2.0, "not reached"),
                                     QuestionResult("q2", 0.0, 1.0, "not reached")],
                         "timed out", "took too long"),
    ]
    write_csv(results, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["total"] for r in rows] == ["2.5", "0"]
    assert rows[0]["q2"] == "0.5" and rows[0]["feedback"] == "q2: GradingError: shape"
    assert rows[1]["status"] == "timed out" and rows[1]["message"] == "took too long"


def test_the_checks_need_neither_otter_nor_ipython():
    # pytest users of edujax.grading may have neither; only the teacher's commands need otter
    code = ("import sys\n"
            "for m in ('otter', 'nbformat', 'yaml', 'nbconvert', 'IPython', 'ipykernel'):\n"
            "    sys.modules[m] = None\n"
            "import edujax.grading as g, edujax.numpy as jnp\n"
            "def relu(x):\n"
            "    return x if x > 0 else 0.0\n"
            "assert 'TracerBoolConversionError' in g.check_jittable(relu, 1.0).explanation\n"
            "assert not g.check_close(jnp.ones(2), jnp.zeros(2))\n"
            "import edujax.grading.__main__, edujax.grading.runner, edujax.grading.inside\n")
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(root)),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
