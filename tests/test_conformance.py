"""edujax against real JAX: one test per golden case of the issues that have landed.

The programs and real JAX's answers are in tests/jax_golden.json, a byte-for-byte copy of the
team's shared recording (never edit it to make a case pass). Which issue delivers which case,
and which issues have landed, is in conformance_scope.py; cases of later issues are simply not
collected yet. The comparison rules are in conformance.py.
"""

import hashlib
import importlib
from collections import Counter

import pytest
from conformance import GOLDEN_FILE, load_golden, passes, report, run_case
from conformance_scope import ENABLED, ISSUE_CASES, ISSUE_ORDER, issue_of

GOLDEN = load_golden()
CASES = GOLDEN["cases"]

# sha256 of jax_golden.json as recorded from real JAX; a changed file fails test_golden_unedited.
GOLDEN_SHA256 = "4c2d6771a88250a88d8391d67a23c0b09c1bb7f5b8751e21f04ca65f3248c073"


def _enabled_cases():
    names = set().union(*(ISSUE_CASES[issue] for issue in ENABLED))
    return [case for case in CASES if case["name"] in names]


@pytest.fixture(scope="module")
def edujax():
    # Imported here, not at the top, so that a broken edujax fails these tests one by one
    # instead of breaking the collection of the whole suite.
    return importlib.import_module("edujax")


@pytest.mark.parametrize("case", _enabled_cases(), ids=lambda case: case["name"])
def test_case_matches_real_jax(case, edujax, backend):
    """Every case on every backend (the ``backend`` fixture in conftest.py)."""
    result = run_case(case["code"], edujax)
    if not passes(case, result):
        pytest.fail(report(case, result, GOLDEN["jax_version"]), pytrace=False)


def test_every_case_is_in_exactly_one_issue_group():
    golden_names = [case["name"] for case in CASES]
    assert len(golden_names) == len(set(golden_names)), "duplicate names in jax_golden.json"
    listed = Counter(name for names in ISSUE_CASES.values() for name in names)
    missing = sorted(set(golden_names) - set(listed))
    twice = sorted(name for name, n in listed.items() if n > 1)
    unknown = sorted(set(listed) - set(golden_names))
    assert not missing, f"golden cases in no issue group of conformance_scope.py: {missing}"
    assert not twice, f"cases listed under more than one issue: {twice}"
    assert not unknown, f"names in conformance_scope.py that are not golden cases: {unknown}"
    assert set(ISSUE_CASES) == set(ISSUE_ORDER)
    assert ENABLED <= set(ISSUE_ORDER), f"unknown issues in ENABLED: {ENABLED - set(ISSUE_ORDER)}"
    assert all(issue_of(name) in ISSUE_ORDER for name in golden_names)


def test_golden_unedited():
    digest = hashlib.sha256(GOLDEN_FILE.read_bytes()).hexdigest()
    assert digest == GOLDEN_SHA256, (
        "tests/jax_golden.json differs from the recording of real JAX. Golden values are never "
        "edited; copy shared/conformance/jax_golden.json again (and update GOLDEN_SHA256 only "
        "when the team re-records it).")
