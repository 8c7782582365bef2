"""The honest coverage table: every public name of real JAX is implemented, left (with a
reason) or missing, and docs/api_coverage.md says which.

The names come from real JAX (tests/data/api_names.json, recorded by
tests/data/record_api_names.py); the deliberate omissions from tests/data/api_omissions.py.
After adding names to edujax, regenerate the table with one command from the repository root:

    PYTHONPATH=$PWD python tests/data/coverage.py

The floors below are a ratchet: raise them when a namespace gets better, never lower them.
"""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

_spec = importlib.util.spec_from_file_location(
    "coverage_table", pathlib.Path(__file__).parent / "data" / "coverage.py")
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)

# percent of each namespace's public names that edujax implements (today's values, rounded down)
FLOORS = {
    "jax": 48.8,
    "jax.numpy": 95.4,
    "jax.lax": 94.0,
    "jax.random": 100.0,
    "jax.nn": 91.6,
    "jax.nn.initializers": 100.0,
    "jax.numpy.linalg": 100.0,
    "jax.numpy.fft": 100.0,
    "jax.scipy.special": 90.5,
    "jax.scipy.stats": 92.2,
    "jax.scipy.linalg": 72.5,
    "jax.tree_util": 97.2,
    "jax.tree": 100.0,
}

TABLE = coverage.coverage()
OMISSIONS = coverage.load_omissions()
_, NAMES = coverage.load_names()


def test_every_recorded_namespace_has_a_floor():
    assert set(FLOORS) == set(TABLE)


@pytest.mark.parametrize("namespace", sorted(FLOORS))
def test_coverage_does_not_fall_below_its_floor(namespace):
    rows = TABLE[namespace]
    done = sum(r.status == "implemented" for r in rows)
    pct = coverage.percent(done, len(rows))
    assert pct >= FLOORS[namespace], (
        f"{namespace}: {done}/{len(rows)} = {pct:.1f}% implemented, below the floor "
        f"{FLOORS[namespace]}%; missing now: {[r.name for r in rows if r.status == 'missing']}")


def test_every_left_name_has_a_reason():
    no_reason = [(ns, name) for ns, names in OMISSIONS.items()
                 for name, reason in names.items() if not str(reason).strip()]
    assert not no_reason, f"left without a reason in tests/data/api_omissions.py: {no_reason}"


def test_left_names_are_names_of_jax():
    unknown = [(ns, name) for ns, names in OMISSIONS.items() for name in names
               if name not in NAMES.get(ns, {})]
    assert not unknown, f"tests/data/api_omissions.py names what JAX does not have: {unknown}"


def test_left_names_are_not_implemented():
    implemented = [(ns, name) for ns, names in OMISSIONS.items() for name in names
                   if coverage.has_name(coverage.edujax_namespace(ns), name)]
    assert not implemented, (
        f"these names are implemented now; delete them from tests/data/api_omissions.py and "
        f"run `{coverage.COMMAND}`: {implemented}")


def test_every_name_has_a_status():
    for ns, rows in TABLE.items():
        assert [r.name for r in rows] == list(NAMES[ns])
        assert all(r.status in ("implemented", "left", "missing") for r in rows)
        assert all(bool(r.reason) == (r.status == "left") for r in rows)


def test_committed_table_is_up_to_date():
    committed = coverage.TABLE.read_text() if coverage.TABLE.exists() else ""
    assert committed == coverage.render(), (
        f"docs/api_coverage.md is out of date; regenerate it from the repository root with "
        f"`{coverage.COMMAND}`")


def test_the_table_tells_a_known_name_apart():
    """A sanity check of the lookup itself: names we know are present and absent."""
    numpy_rows = {r.name: r for r in TABLE["jax.numpy"]}
    assert numpy_rows["sum"].status == "implemented"
    assert numpy_rows["float8_e4m3fn"].status == "left"
    assert numpy_rows["sum"].kind == "function" and numpy_rows["float32"].kind == "dtype"
