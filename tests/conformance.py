"""Run the golden programs recorded from real JAX against edujax, and compare.

`jax_golden.json` (beside this file) holds small programs and what real JAX gave for them. Each
program is a snippet that sets a variable `out`; the golden record is `out`, *encoded* into plain
JSON (below), or the exception JAX raised. To check edujax we run the same snippet with
`jax = edujax`, encode what we got the same way, and compare the two encodings.

This is a helper module for tests/test_conformance.py, not a test file. It follows the team's
shared checker (shared/conformance/check.py) rule for rule, so both give the same verdicts:

  kind     what must match
  exact    values bit for bit, plus dtypes and shapes
  num      values within rtol 1e-5 / atol 1e-6; dtypes and shapes exactly
  loose    values within rtol 1e-3 / atol 1e-4; dtypes and shapes exactly
  jaxpr    the printed jaxpr text, after dropping params whose value is None (`foo=None`)
  raises   the exception's type name
  errmsg   the exception's type name and the first line of its message

The standard output of a snippet is recorded but, as in check.py, never compared.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import io
import json
import math
import re
import traceback
import types
from pathlib import Path

import numpy as np

GOLDEN_FILE = Path(__file__).with_name("jax_golden.json")

# (rtol, atol) per kind; "exact" ignores them.
TOLERANCES = {"loose": (1e-3, 1e-4)}
DEFAULT_TOLERANCE = (1e-5, 1e-6)


def load_golden(path: Path = GOLDEN_FILE) -> dict:
    """The golden file as a dict: {"jax_version": ..., "cases": [case, ...]}."""
    with open(path) as f:
        return json.load(f)


# --- Encoding: any Python value -> plain JSON data -------------------------------------------


def encode(x):
    """Turn a program's output into JSON data that can be compared with the golden record.

    Arrays (anything with .shape and .dtype, so NumPy scalars too) become dtype + shape + a flat
    list of values; NaN and infinities become the strings "nan", "inf", "-inf" because JSON has
    no spelling for them. Python containers keep their kind, so a tuple never equals a list.
    """
    if x is None:
        return None
    if isinstance(x, bool):  # before int: bool is a subclass of int
        return {"py": "bool", "v": x}
    if isinstance(x, int):
        return {"py": "int", "v": x}
    if isinstance(x, float):
        return {"py": "float", "v": _json_float(x)}
    if isinstance(x, str):
        return {"str": x}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"namedtuple": type(x).__name__, "items": [encode(v) for v in x]}
    if isinstance(x, tuple):
        return {"tuple": [encode(v) for v in x]}
    if isinstance(x, list):
        return {"list": [encode(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": [[k, encode(v)] for k, v in x.items()]}
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return {"array": _encode_array(np.asarray(x))}
    return {"repr": repr(x)}


def _encode_array(a: np.ndarray) -> dict:
    if a.dtype.kind in "fc":
        to_json = _json_float
    elif a.dtype.kind == "b":
        to_json = bool
    else:
        to_json = int
    data = [to_json(v) for v in a.reshape(-1).tolist()]
    return {"dtype": str(a.dtype), "shape": list(a.shape), "data": data}


def _json_float(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


# --- Running one program ----------------------------------------------------------------------


class _Missing(types.ModuleType):
    """Stands in for a part of the API that edujax does not have yet (say `jax.random` before
    the PRNG issue lands). Building the namespace still works; using it raises AttributeError,
    which is what `jax.random` would raise on a module that lacks it."""

    def __getattr__(self, attr):
        raise AttributeError(f"edujax has no `{self.__name__}` yet (wanted .{attr})")

    def __call__(self, *args, **kwargs):
        raise AttributeError(f"edujax has no `{self.__name__}` yet")


def namespace(mod) -> dict:
    """The globals a golden snippet runs in: `jax` is the module under test."""

    def part(name):
        return getattr(mod, name) if hasattr(mod, name) else _Missing(name)

    return {
        "jax": mod,
        "jnp": part("numpy"),
        "lax": part("lax"),
        "random": part("random"),
        "tree_util": part("tree_util"),
        "np": np,
        "make_jaxpr": part("make_jaxpr"),
    }


def run_case(code: str, mod=None) -> dict:
    """Run one snippet with `jax = mod` (edujax by default), capturing what it prints.

    Returns {"out": encoded out, "stdout": ...}, or, when the snippet raised,
    {"raises": type name, "message": first line of the message, "stdout": ..., "traceback": ...}.
    The traceback is only for humans reading a failure; it is never compared.
    """
    if mod is None:
        mod = importlib.import_module("edujax")
    ns = namespace(mod)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "<case>", "exec"), ns)
    except Exception as e:
        text = str(e).strip()
        return {
            "raises": type(e).__name__,
            "message": text.splitlines()[0] if text else "",
            "stdout": printed.getvalue(),
            "traceback": traceback.format_exc(),
        }
    return {"out": encode(ns.get("out")), "stdout": printed.getvalue()}


# --- Comparing ---------------------------------------------------------------------------------


def normalize_jaxpr_text(s: str) -> str:
    """Drop params whose value is None (JAX prints e.g. `out_sharding=None`; they carry no
    meaning for a reimplementation), then the `[]` left behind when all params went."""
    s = re.sub(r" ?\b\w+=None\b", "", s)
    return re.sub(r"\[\s*\]", "", s)


def same(want, got, kind: str, rtol: float, atol: float) -> bool:
    """Do two encoded values match under `kind`? `want` is the golden one."""
    if type(want) is not type(got):
        return False
    if want is None:
        return True
    tag = next((t for t in ("array", "py", "str", "tuple", "list", "namedtuple", "dict")
                if t in want), None)
    if tag is None:  # {"repr": ...}
        return want == got
    if tag not in got:  # e.g. an array where JAX gave a Python float
        return False
    if tag == "array":
        return _same_array(want["array"], got["array"], kind, rtol, atol)
    if tag == "py":
        if want["py"] != got["py"]:
            return False
        if want["py"] == "float" and kind != "exact":
            return _close(float(want["v"]), float(got["v"]), rtol, atol)
        return want["v"] == got["v"]
    if tag == "str":
        if kind == "jaxpr":
            return normalize_jaxpr_text(want["str"]) == normalize_jaxpr_text(got["str"])
        return want["str"] == got["str"]
    if tag in ("tuple", "list"):
        return _same_items(want[tag], got[tag], kind, rtol, atol)
    if tag == "namedtuple":
        # As in check.py, the class name is not compared, only the fields' values.
        return _same_items(want["items"], got["items"], kind, rtol, atol)
    # dict: the same keys in the same order, and matching values.
    if [k for k, _ in want["dict"]] != [k for k, _ in got["dict"]]:
        return False
    return _same_items([v for _, v in want["dict"]], [v for _, v in got["dict"]],
                       kind, rtol, atol)


def _same_items(want, got, kind, rtol, atol) -> bool:
    return len(want) == len(got) and all(
        same(w, g, kind, rtol, atol) for w, g in zip(want, got))


def _same_array(want, got, kind, rtol, atol) -> bool:
    if want["shape"] != got["shape"] or want["dtype"] != got["dtype"]:
        return False
    w, g = _as_floats(want["data"]), _as_floats(got["data"])
    if kind == "exact":
        return bool(np.array_equal(w, g, equal_nan=True))
    return _close(w, g, rtol, atol)


def _as_floats(data) -> np.ndarray:
    # "nan" / "inf" strings back to floats; every value compares as a float64, as in check.py.
    return np.array([float(v) if isinstance(v, str) else v for v in data], dtype=float)


def _close(w, g, rtol, atol) -> bool:
    return bool(np.allclose(w, g, rtol=rtol, atol=atol, equal_nan=True))


def passes(case: dict, result: dict) -> bool:
    """The verdict on one golden case, given what run_case returned for it."""
    kind = case["kind"]
    if "raises" in case:
        if result.get("raises") != case["raises"]:
            return False
        return kind != "errmsg" or result.get("message") == case["message"]
    if "out" not in result:
        return False
    rtol, atol = TOLERANCES.get(kind, DEFAULT_TOLERANCE)
    return same(case["out"], result["out"], kind, rtol, atol)


# --- Explaining a failure to a human ---------------------------------------------------------


def show(enc, limit: int = 12) -> str:
    """A short readable form of an encoded value, e.g. `int32[10] [0, 1, 2, ...]`."""
    if enc is None:
        return "None"
    if "array" in enc:
        a = enc["array"]
        shape = ",".join(str(n) for n in a["shape"])
        data = a["data"]
        values = ", ".join(repr(v) for v in data[:limit]) + (", ..." if len(data) > limit else "")
        return f"{a['dtype']}[{shape}] [{values}]"
    if "py" in enc:
        return f"{enc['py']} {enc['v']!r}"
    if "str" in enc:
        return repr(enc["str"])
    if "tuple" in enc:
        return "(" + ", ".join(show(v, limit) for v in enc["tuple"]) + ")"
    if "list" in enc:
        return "[" + ", ".join(show(v, limit) for v in enc["list"]) + "]"
    if "namedtuple" in enc:
        return enc["namedtuple"] + "(" + ", ".join(show(v, limit) for v in enc["items"]) + ")"
    if "dict" in enc:
        return "{" + ", ".join(f"{k!r}: {show(v, limit)}" for k, v in enc["dict"]) + "}"
    return enc.get("repr", repr(enc))


def _describe(record: dict) -> str:
    if "raises" in record:
        return f"raised {record['raises']}: {record.get('message', '')}"
    out = record.get("out")
    if out is not None and "str" in out and "\n" in out["str"]:
        return "out =\n" + _indent(out["str"])
    return "out = " + show(out)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.rstrip("\n").splitlines())


def report(case: dict, result: dict, jax_version: str = "?") -> str:
    """A failure message: the program, what real JAX gave, what edujax gave."""
    lines = [
        f"conformance case {case['name']!r} (kind {case['kind']}) differs from real JAX "
        f"{jax_version}",
        "program:",
        _indent(case["code"]),
        "expected (real JAX): " + _describe(case),
        "got (edujax):        " + _describe(result),
    ]
    if case["kind"] == "jaxpr" and "out" in result:
        want, got = case.get("out") or {}, result.get("out") or {}
        if "str" in want and "str" in got:
            diff = difflib.unified_diff(
                normalize_jaxpr_text(want["str"]).splitlines(),
                normalize_jaxpr_text(got["str"]).splitlines(),
                "real JAX", "edujax", lineterm="")
            lines += ["jaxpr diff (params=None dropped):", _indent("\n".join(diff))]
    if result.get("stdout"):
        lines += ["edujax printed:", _indent(result["stdout"])]
    if "traceback" in result:
        lines += ["edujax traceback:", _indent(result["traceback"])]
    return "\n".join(lines)
