"""Printed jaxprs of jnp functions, character for character as real JAX 0.10.2 prints them.

tests/data/jnp_jaxprs.json is a list of ``{"name", "code", "jaxpr"}``: ``code`` sets
``out = str(jax.make_jaxpr(...)(...))`` and ``jaxpr`` is what real JAX printed.
Only functions whose JAX implementation stages no inner ``jit`` are recorded
(edujax prints those once it has jit); tests/record_jnp_data.py makes the file.
"""
from __future__ import annotations

import json
import pathlib

import jnp_cases
import numpy as np
import pytest

import edujax
import edujax.numpy as jnp
from edujax import lax

RECORD = json.loads((pathlib.Path(__file__).parent / "data" / "jnp_jaxprs.json").read_text())


@pytest.mark.parametrize("case", RECORD, ids=[case["name"] for case in RECORD])
def test_jaxpr_text_matches_real_jax(case):
    ns = {"jax": edujax, "jnp": jnp, "lax": lax, "np": np}
    exec(case["code"], ns)
    assert ns["out"] == case["jaxpr"], f"\n{case['code']}\nreal JAX:\n{case['jaxpr']}\n" \
                                       f"edujax:\n{ns['out']}"


def test_every_recorded_case_is_still_a_case():
    names = {name for name, _ in jnp_cases.JAXPR_CASES}
    assert all(case["name"] in names for case in RECORD), "re-run tests/record_jnp_data.py"
