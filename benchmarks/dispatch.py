"""Eager per-operation overhead: one scalar add and one 1000-element add.

    python benchmarks/dispatch.py [--jax-python /tmp/jaxenv/bin/python]

Prints microseconds per call for edujax, NumPy and (when available) real JAX,
side by side, with ratios. Target (issue 2): edujax's scalar add at most half of
JAX's time.
"""
from __future__ import annotations

import os
import sys

# This folder goes last on the path: benchmarks/random.py must not hide the
# standard library's random module; _timing.py is still found.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE] + [_HERE]
from _timing import best_time, compare_with_jax  # noqa: E402

CASES = ["scalar add (x + y)", "1000-element add (a + b)", "scalar sin (jnp.sin)"]


def run(jax, np_module) -> dict:
    x, y = np_module.asarray(1.5), np_module.asarray(2.5)
    a, b = np_module.ones(1000), np_module.ones(1000)
    results = dict(zip(CASES, [
        best_time(lambda: x + y),
        best_time(lambda: a + b),
        best_time(lambda: np_module.sin(x)),
    ]))
    if hasattr(x, "block_until_ready"):  # JAX dispatches asynchronously: wait for results
        results[CASES[0]] = best_time(lambda: (x + y).block_until_ready())
        results[CASES[1]] = best_time(lambda: (a + b).block_until_ready())
        results[CASES[2]] = best_time(lambda: np_module.sin(x).block_until_ready())
    return results


def main() -> None:
    compare_with_jax(__doc__, __file__, "Eager dispatch overhead (lower is better)", CASES, run,
                     with_numpy=True)


if __name__ == "__main__":
    main()
