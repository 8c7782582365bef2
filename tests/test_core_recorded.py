"""Core behaviour recorded from real JAX: jaxpr printing, tracer errors, Array protocol.

tests/data/core_recorded.json holds small programs and what real JAX 0.10.2 gave
for them: ``repr(out)``, or the exception type and first message line. Each
program runs here with ``jax = edujax`` and must give the same.
"""
from __future__ import annotations

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import edujax
import edujax.numpy as jnp
from edujax import lax

CASES = json.loads((pathlib.Path(__file__).parent / "data" / "core_recorded.json").read_text())
# JAX's message for these names a memory address: compare the exception type only.
TYPE_ONLY = {"bad_argument_type"}


def run(code: str) -> dict:
    ns = {"jax": edujax, "jnp": jnp, "lax": lax, "np": np, "make_jaxpr": edujax.make_jaxpr}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, ns)
        return {"out": repr(ns["out"])}
    except Exception as e:  # noqa: BLE001 - we compare exceptions with JAX's
        return {"raises": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_recorded_jax(case):
    got = run(case["code"])
    if "raises" in case:
        assert got.get("raises") == case["raises"], f"{case['code']}\ngot {got}"
        if case["name"] not in TYPE_ONLY:
            assert got.get("message") == case["message"], f"{case['code']}\ngot {got}"
    else:
        assert got.get("out") == case["out"], f"{case['code']}\ngot {got}"
