"""edujax.numpy against values recorded from real JAX 0.10.2.

tests/data/jnp_values.json holds one entry per program of tests/jnp_cases.py: what
``out`` was in real JAX (its repr, so value + dtype + weak_type, and the values
themselves), or the exception's type and first message line. Each program runs
here with ``jax = edujax`` and must give the same. Floats may differ by a few
ulps (see ``jnp_cases.outputs_match``); nothing else may.

To re-record after adding cases: ``/tmp/jaxenv/bin/python tests/record_jnp_data.py``.
"""
from __future__ import annotations

import json
import pathlib
import warnings

import jnp_cases
from recorded import params
import numpy as np
import pytest

import edujax
import edujax.numpy as jnp
from edujax import lax

RECORD = json.loads((pathlib.Path(__file__).parent / "data" / "jnp_values.json").read_text())

# Differences we know of, with the reason; each is an expected failure (strict: when
# one gets fixed, the test says so and the entry must go).
KNOWN_DIFFERENCES: dict[str, str] = {}


def run(code: str) -> dict:
    ns = {"jax": edujax, "jnp": jnp, "lax": lax, "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, ns)
        except Exception as error:  # noqa: BLE001 (the error is the result we compare)
            return jnp_cases.encode_error(error)
    return jnp_cases.encode(ns["out"])


@pytest.mark.parametrize("case", params(RECORD["cases"], KNOWN_DIFFERENCES))
def test_matches_real_jax(case):
    got = run(case["code"])
    expected = case["expected"]
    assert jnp_cases.outputs_match(expected, got), (
        f"\nprogram:  {case['code']}\nreal JAX: {_show(expected)}\nedujax:   {_show(got)}")


def _show(result: dict) -> str:
    if "error" in result:
        return f"{result['error']}: {result['message']}"
    return result["repr"]


def test_cases_and_record_agree():
    """The record must be re-made whenever tests/jnp_cases.py changes."""
    recorded = [(c["name"], c["code"]) for c in RECORD["cases"]]
    assert recorded == jnp_cases.VALUE_CASES, "run tests/record_jnp_data.py with real JAX"
