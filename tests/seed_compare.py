"""Comparing one tutorial cell's outcome on edujax with real JAX's recording.

Shared by tests/test_seeds.py (cells run in-process) and tests/test_kernel.py (cells run
through the edujax Jupyter kernel). ``compare(cell, expected, got)`` returns the list of
differences, empty when the cell printed, displayed and raised what JAX did.
"""
from __future__ import annotations

import difflib
import importlib.util
import re
import sys
import traceback
from pathlib import Path

SEEDS_DIR = Path(__file__).resolve().parent / "seeds"


def _load_record():
    spec = importlib.util.spec_from_file_location("seeds_record", SEEDS_DIR / "record.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up in sys.modules
    spec.loader.exec_module(module)
    return module


record = sys.modules.get("seeds_record") or _load_record()

# jax.<name> -> edujax.<name> while a tutorial runs (`import jax.numpy as jnp`, `from jax
# import random`, `jax.tree_util.tree_map`, ...). Names edujax lacks are left out.
SUBMODULES = ["numpy", "lax", "random", "tree_util", "tree", "nn", "errors", "dtypes",
              "numpy.linalg", "scipy", "scipy.special", "experimental"]


def _diff(what: str, expected: str | None, got: str | None) -> str:
    if expected is None or got is None:
        return f"  {what}: JAX {expected!r}, edujax {got!r}"
    lines = difflib.unified_diff(expected.splitlines(), got.splitlines(), "JAX", "edujax",
                                 lineterm="", n=2)
    return f"  {what} differs:\n" + "\n".join("    " + line for line in lines)


def _where(error: BaseException | None) -> str:
    """The innermost frames of an edujax traceback (where to look)."""
    if error is None:  # an error seen through the kernel: its traceback is in the report
        return ""
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


def compare(cell, exp: dict, got) -> list[str]:
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
