"""The PRNG: ``random.normal(key, (10_000_000,))`` under jit, and a few smaller cases.

    python benchmarks/random.py [--jax-python /tmp/jaxenv/bin/python]

Prints microseconds per call for edujax and (when available) real JAX, side by side,
with the ratio. edujax runs its reference backend: threefry2x32 as NumPy uint32
arithmetic (cache-sized blocks, in place), and erf_inv as XLA's float32 algorithm
replayed in NumPy, fused multiply-adds included, so the numbers are JAX's bit for bit.
"""
from __future__ import annotations

import json
import os
import sys

# This file is called random.py: keep its folder from shadowing the standard library's
# ``random`` module (the folder is searched last, only for ``_timing``).
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE] + [HERE]
from _timing import best_time, parse_args, print_table, time_jax  # noqa: E402

N = 10_000_000
CASES = [f"normal({N:_}) under jit", f"uniform({N:_}) under jit",
         f"bits({N:_}) under jit", "normal() eager, one draw", "split() eager"]


def run(jax) -> dict:
    random = jax.random
    key = random.PRNGKey(0)
    normal = jax.jit(lambda k: random.normal(k, (N,)))
    uniform = jax.jit(lambda k: random.uniform(k, (N,)))
    bits = jax.jit(lambda k: random.bits(k, (N,)))
    big = dict(repeat=3, min_total=0.0)  # seconds per call for edujax: a few runs suffice
    return dict(zip(CASES, [
        best_time(lambda: normal(key).block_until_ready(), **big),
        best_time(lambda: uniform(key).block_until_ready(), **big),
        best_time(lambda: bits(key).block_until_ready(), **big),
        best_time(lambda: random.normal(key).block_until_ready()),
        best_time(lambda: random.split(key).block_until_ready()),
    ]))


def run_jax() -> dict:
    import jax
    jax.config.update("jax_platforms", "cpu")
    return run(jax)


def main() -> None:
    args = parse_args(__doc__)
    if args.only == "jax":
        print(json.dumps(run_jax()))
        return
    import edujax
    columns = {"edujax": run(edujax), "jax": time_jax(__file__, args.jax_python, run_jax)}
    print_table("random (lower is better)", CASES, columns)


if __name__ == "__main__":
    main()
