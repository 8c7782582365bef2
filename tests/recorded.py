"""Replaying programs recorded from real JAX (tests/data/*_recorded.json) on edujax.

Each record holds a small program (it sets ``out``) and what real JAX 0.10.2 gave:
``repr(out)``, or the exception type and the first line of its message. The JSON
files are written by running the same programs with real JAX; they are data.
"""
from __future__ import annotations

import contextlib
import io
import json
import pathlib

import numpy as np

import edujax
import edujax.numpy as jnp
from edujax import lax

DATA = pathlib.Path(__file__).parent / "data"


def load(name: str) -> list[dict]:
    return json.loads((DATA / name).read_text())


def run(code: str) -> dict:
    ns = {"jax": edujax, "jnp": jnp, "lax": lax, "np": np, "make_jaxpr": edujax.make_jaxpr}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, ns)
        return {"out": repr(ns["out"])}
    except Exception as e:  # noqa: BLE001 - we compare exceptions with JAX's
        return {"raises": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}


def check(case: dict, type_only: bool = False) -> None:
    """Assert that edujax gives what JAX gave (for errors: the type, and the first line
    unless ``type_only``: for messages that print object addresses or JAX internals)."""
    got = run(case["code"])
    if "raises" in case:
        assert got.get("raises") == case["raises"], f"{case['code']}\ngot {got}"
        if not type_only:
            assert got.get("message") == case["message"], f"{case['code']}\ngot {got}"
    else:
        assert got.get("out") == case["out"], f"{case['code']}\ngot {got}"


def params(cases: list[dict], known_differences: dict[str, str] | None = None,
           type_only: set[str] = frozenset()) -> list:
    """One pytest param per recorded case, named by the case; a case listed in
    ``known_differences`` is a strict xfail with that reason, so it fails once fixed. A
    known difference, or a ``type_only`` name (an error compared by type only), that names
    no case (renamed, or re-recorded away) is an error."""
    import pytest

    known_differences = known_differences or {}
    names = {c["name"] for c in cases}
    for what, listed in (("known differences", known_differences), ("type-only cases", type_only)):
        stale = set(listed) - names
        if stale:
            raise ValueError(f"{what} that are no recorded case: {sorted(stale)}")

    def marks(name):
        if name not in known_differences:
            return ()
        return pytest.mark.xfail(reason=known_differences[name], strict=True)

    return [pytest.param(c, id=c["name"], marks=marks(c["name"])) for c in cases]
