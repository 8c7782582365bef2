"""What recording provenance costs: ``make_jaxpr`` of the tutorials' ``selu`` with every
equation's source line captured (edujax as it is) and with capturing switched off (every
equation gets an empty place), side by side in one process.

    .venv/bin/python benchmarks/source_info.py

Prints the time per trace of each and their ratio (issue 29 asks for at most 1.1x). A fresh
function is traced each time, so the trace cache does not hide the tracing.
"""
from __future__ import annotations

import edujax as jax
import edujax.numpy as jnp
from edujax import source_info
from edujax.interpreters import partial_eval

from _timing import best_time


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def trace_once() -> None:
    jax.make_jaxpr(lambda v: selu(v))(jnp.arange(5.0))


def no_place(depth: int = 0) -> source_info.SourceInfo:
    return source_info.NO_SOURCE


def main() -> None:
    with_places = best_time(trace_once, repeat=7)
    real_current = source_info.current
    partial_eval.source_info.current = no_place  # the staging trace's only call
    try:
        without = best_time(trace_once, repeat=7)
    finally:
        partial_eval.source_info.current = real_current
    with_places_again = best_time(trace_once, repeat=7)
    best = min(with_places, with_places_again)
    print(f"make_jaxpr(selu), places captured: {best * 1e6:8.1f} us")
    print(f"make_jaxpr(selu), places off:      {without * 1e6:8.1f} us")
    print(f"ratio: {best / without:.3f}x")


if __name__ == "__main__":
    main()
