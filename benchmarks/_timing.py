"""Shared helpers for the benchmark scripts: timing, and timing real JAX next door.

Real JAX is never a dependency of edujax. It usually lives in its own virtualenv,
so a benchmark can time it by running *itself* under that interpreter
(``--jax-python /path/to/venv/bin/python``) and reading back JSON. If ``jax``
imports in the current interpreter, it is timed directly instead.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import timeit
from typing import Callable


def best_time(fn: Callable[[], object], min_total: float = 0.2, repeat: int = 5) -> float:
    """Seconds per call: the best of ``repeat`` runs, each long enough to be measurable."""
    fn()  # warm up (first calls fill caches)
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(number, int(number * min_total / 0.2))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--jax-python", help="a Python interpreter that can import jax")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # internal: time one library as JSON
    return parser.parse_args()


def jax_importable() -> bool:
    try:
        import jax  # noqa: F401
        return True
    except ImportError:
        return False


def time_jax(script: str, jax_python: str | None, run_jax: Callable[[], dict]) -> dict | None:
    """JAX's timings: measured here if jax imports, else by ``jax_python`` running ``script``."""
    if jax_importable():
        return run_jax()
    if not jax_python:
        return None
    out = subprocess.run([jax_python, script, "--only", "jax"], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def print_table(title: str, rows: list[str], columns: dict[str, dict]) -> None:
    """One row per case; a column per library (µs); ratios edujax/other at the end."""
    names = [n for n, c in columns.items() if c is not None]
    print(title)
    header = f"{'case':32s}" + "".join(f"{n + ' (us)':>14s}" for n in names)
    others = [n for n in names if n != "edujax"]
    header += "".join(f"{'edujax/' + n:>16s}" for n in others)
    print(header)
    for row in rows:
        line = f"{row:32s}" + "".join(f"{columns[n][row] * 1e6:14.2f}" for n in names)
        line += "".join(f"{columns['edujax'][row] / columns[n][row]:16.2f}" for n in others)
        print(line)
    if columns.get("jax") is None:
        print("(real JAX not timed: pass --jax-python /path/to/python-with-jax)")
    sys.stdout.flush()


def compare_with_jax(doc: str, script: str, title: str, cases: list[str], run,
                     with_numpy: bool = False) -> dict:
    """The main of a benchmark: time ``run(jax_module, jnp_module)`` for edujax (and NumPy),
    and for real JAX when available, then print one table.

    Run by the JAX interpreter with ``--only jax``, it prints JAX's timings as JSON instead.
    Returns the columns, for scripts that print more (ratios between their own cases).
    """
    args = parse_args(doc)
    if args.only == "jax":
        print(json.dumps(_run_real_jax(run)))
        return {}
    import edujax
    import edujax.numpy as ejnp
    print(f"edujax backend: {edujax.config.read('edujax_backend')}")
    columns = {"edujax": run(edujax, ejnp)}
    if with_numpy:
        import numpy as np
        columns["numpy"] = run(None, np)
    columns["jax"] = time_jax(script, args.jax_python, lambda: _run_real_jax(run))
    print_table(title, cases, columns)
    return columns


def _run_real_jax(run) -> dict:
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    return run(jax, jnp)
