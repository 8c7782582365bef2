"""The sandbox's edges: `grade` refuses to run without it unless told, `--no-sandbox` marks
every row, and what crosses from the sandbox is plain data only."""
import base64
import csv
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from edujax.grading import wire
from edujax.grading.assign import assign_one

ROOT = Path(__file__).resolve().parent.parent
EXERCISE = ROOT / "course-kit" / "exercises" / "01-grad-argnums"


@pytest.fixture(scope="module")
def assignment(tmp_path_factory):
    return assign_one(EXERCISE, tmp_path_factory.mktemp("dist"))


def grade(assignment, tmp_path, *options, path=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "edujax.grading", "grade",
                           str(assignment.solution), "--assignment",
                           str(assignment.autograder.parent), "--csv",
                           str(tmp_path / "grades.csv"), *options],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_grade_refuses_without_the_sandbox_and_says_what_to_do(assignment, tmp_path):
    run = grade(assignment, tmp_path, path=str(tmp_path))  # no bwrap on this PATH
    assert run.returncode != 0
    assert "cannot grade safely: bubblewrap (`bwrap`) is not installed" in run.stderr
    assert "--no-sandbox" in run.stderr
    assert not (tmp_path / "grades.csv").exists()


def test_no_sandbox_is_explicit_and_marks_every_row(assignment, tmp_path):
    run = grade(assignment, tmp_path, "--no-sandbox", path=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert "WARNING: --no-sandbox" in run.stderr
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["total"], r["sandboxed"]) for r in rows] == [("6", "NO (--no-sandbox)")]


def _array(dtype, shape, data: bytes) -> dict:
    return {"t": "array", "dtype": dtype, "shape": shape, "weak": False,
            "data": base64.b64encode(data).decode()}


@pytest.mark.parametrize("message", [
    _array("object", [1], b"\0" * 8),                  # object arrays would unpickle
    _array("float32", [4], b"\0" * 8),                 # bytes that do not match the shape
    _array("float32", [-1], b""),
    {"t": "int", "v": "9" * 6000},                     # a number too long to parse cheaply
    {"t": "str", "v": 5},
    {"t": "list", "v": {"not": "a list"}},
    {"t": "pickle", "v": "gASVAAAAAAAAAAA="},          # unknown kinds are opaque, never loaded
])
def test_what_is_not_plain_data_is_refused_or_opaque(message):
    try:
        value = wire.decode(message)
    except wire.WireError:
        return
    assert isinstance(value, wire.Opaque)


def test_arrays_and_trees_cross_unchanged():
    import edujax.numpy as jnp

    tree = {"w": jnp.arange(6.0).reshape(2, 3), "b": (1, 2.5, None, ...), "s": "text",
            "n": np.float32(1.5)}
    back = wire.decode(wire.loads(wire.dumps({"v": wire.encode(tree)}))["v"])
    assert np.array_equal(np.asarray(back["w"]), np.arange(6.0).reshape(2, 3))
    assert back["w"].dtype == np.float32 and back["w"].weak_type is False
    assert back["b"] == (1, 2.5, None, ...) and back["s"] == "text"
    assert back["n"] == np.float32(1.5) and back["n"].dtype == np.float32


def test_deep_nesting_is_refused():
    message = {"t": "none"}
    for _ in range(50):
        message = {"t": "list", "v": [message]}
    with pytest.raises(wire.WireError):
        wire.decode(message)


def test_the_assignments_own_lines_flag_nobody(assignment):
    import nbformat

    from edujax.grading.flags import notebook_flags
    from edujax.grading.trusted import load_setup

    own = {line.strip() for cell in load_setup(assignment.autograder) for line in cell.splitlines()}
    nb = nbformat.read(assignment.solution, as_version=4)
    assert "import edujax.grading.check_view" in nb.cells[2].source + nb.cells[1].source
    assert notebook_flags(nb, own) == ""
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nsys._getframe(0)"))
    assert notebook_flags(nb, own) == "frames"
