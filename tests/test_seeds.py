"""The five tutorials the project teaches (shared/seeds) run unchanged on edujax.

Their programs are in tests/seeds/seed_*.py, one cell per notebook cell (see
tests/seeds/record.py for the format and the tags); tests/seeds/expected.json is what real
JAX printed for each cell. Each test runs one tutorial's cells in order, in one namespace,
with ``jax`` (and ``jax.numpy``, ``jax.lax``, ...) imported as edujax, and compares every
cell: its stdout, the value a notebook would display, and the exception a ``raises`` cell
shows. Cells tagged ``timing`` or ``device`` need only run without error. A test checks all
of its cells and then fails once, listing every cell that differed.

Re-record after changing a seed file:
    /tmp/jaxenv/bin/python tests/seeds/record.py
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import json
import re
import sys
import traceback
from pathlib import Path

import pytest

SEEDS_DIR = Path(__file__).resolve().parent / "seeds"


def _load_record():
    spec = importlib.util.spec_from_file_location("seeds_record", SEEDS_DIR / "record.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up in sys.modules
    spec.loader.exec_module(module)
    return module


record = _load_record()
EXPECTED = json.loads(record.EXPECTED_PATH.read_text(encoding="utf-8"))
SEEDS = [path.stem for path in record.seed_files()]

# jax.<name> -> edujax.<name> while a tutorial runs (`import jax.numpy as jnp`, `from jax
# import random`, `jax.tree_util.tree_map`, ...). Names edujax lacks are left out.
SUBMODULES = ["numpy", "lax", "random", "tree_util", "tree", "nn", "errors", "dtypes",
              "numpy.linalg", "scipy", "scipy.special", "experimental"]


@pytest.fixture
def jax_is_edujax(monkeypatch):
    """Make ``import jax`` (and its submodules) give edujax; undone after the test."""
    import edujax

    monkeypatch.setitem(sys.modules, "jax", edujax)
    for name in SUBMODULES:
        try:
            module = importlib.import_module(f"edujax.{name}")
        except ImportError:
            continue
        monkeypatch.setitem(sys.modules, f"jax.{name}", module)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    yield edujax


def _diff(what: str, expected: str | None, got: str | None) -> str:
    if expected is None or got is None:
        return f"  {what}: JAX {expected!r}, edujax {got!r}"
    lines = difflib.unified_diff(expected.splitlines(), got.splitlines(), "JAX", "edujax",
                                 lineterm="", n=2)
    return f"  {what} differs:\n" + "\n".join("    " + line for line in lines)


def _where(error: BaseException) -> str:
    """The innermost frames of an edujax traceback (where to look)."""
    frames = traceback.extract_tb(error.__traceback__)[-3:]
    return "\n".join(f"      {Path(f.filename).name}:{f.lineno} in {f.name}: {f.line}"
                     for f in frames)


_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?")


def _same_up_to_rounding(a: str | None, b: str | None) -> bool:
    """Same text, and numbers equal to 1e-6 relative. For cells tagged ``xla_rounding``:
    XLA's compiled code may round a float32 result differently in its last bit
    (JAX's own eager run of such a cell prints edujax's number)."""
    if a is None or b is None:
        return a == b
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    x = [float(v) for v in _NUMBER.findall(a)]
    y = [float(v) for v in _NUMBER.findall(b)]
    return len(x) == len(y) and all(abs(u - v) <= 1e-6 * max(abs(u), abs(v)) for u, v in zip(x, y))


def _compare(cell, exp: dict, got) -> list[str]:
    """What differs between JAX's record of a cell and edujax's run of it."""
    problems = []
    compared = not (set(cell.tags) & record.NOT_COMPARED)
    if got.raises != exp["raises"] or (got.raises and got.message != exp["message"]):
        if exp["raises"] is None:
            problems.append(f"  edujax raised {got.raises}: {got.message}\n{_where(got.error)}")
        elif got.raises is None:
            problems.append(f"  JAX raised {exp['raises']}: {exp['message']}\n"
                            f"  edujax raised nothing")
        elif not compared and got.raises == exp["raises"]:
            pass
        else:
            problems.append(f"  JAX raised    {exp['raises']}: {exp['message']}\n"
                            f"  edujax raised {got.raises}: {got.message}\n{_where(got.error)}")
    if compared:
        norm = record.normalize
        same = (_same_up_to_rounding if "xla_rounding" in cell.tags
                else lambda a, b: a == b)
        if not same(norm(got.stdout), norm(exp["stdout"])):
            problems.append(_diff("stdout", norm(exp["stdout"]), norm(got.stdout)))
        if norm(got.display) != norm(exp["display"]):
            problems.append(_diff("displayed value", norm(exp["display"]), norm(got.display)))
    return problems


@pytest.mark.parametrize("seed", SEEDS)
def test_tutorial_runs_on_edujax_as_on_jax(seed, jax_is_edujax, backend):
    cells = record.parse_cells(SEEDS_DIR / f"{seed}.py")
    expected = EXPECTED.get(seed, [])
    recorded = [(c["line"], c["tags"], c["code"]) for c in expected]
    if recorded != [(c.line, c.tags, c.code) for c in cells]:
        pytest.fail(f"tests/seeds/{seed}.py changed since expected.json was recorded: "
                    "run /tmp/jaxenv/bin/python tests/seeds/record.py", pytrace=False)
    ns = record.new_namespace()
    report = []
    try:
        for cell, exp in zip(cells, expected):
            problems = _compare(cell, exp, record.run_cell(cell, ns))
            if problems:
                report.append(f"{seed}.py cell {cell.label} (seed line {cell.line}, "
                              f"file line {cell.file_line}):\n" + "\n".join(problems))
    finally:
        record.close_figures()
    if report:
        pytest.fail(f"{len(report)} of {len(cells)} cells differ from JAX\n\n"
                    + "\n\n".join(report), pytrace=False)
