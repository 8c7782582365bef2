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

import importlib
import json
import sys

import pytest
from seed_compare import SEEDS_DIR, SUBMODULES, compare, record

EXPECTED = json.loads(record.EXPECTED_PATH.read_text(encoding="utf-8"))
SEEDS = [path.stem for path in record.seed_files()]



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
            problems = compare(cell, exp, record.run_cell(cell, ns))
            if problems:
                report.append(f"{seed}.py cell {cell.label} (seed line {cell.line}, "
                              f"file line {cell.file_line}):\n" + "\n".join(problems))
    finally:
        record.close_figures()
    if report:
        pytest.fail(f"{len(report)} of {len(cells)} cells differ from JAX\n\n"
                    + "\n\n".join(report), pytrace=False)
