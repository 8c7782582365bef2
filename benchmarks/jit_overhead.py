"""jit's cache-hit call overhead and warm make_jaxpr time, edujax vs real JAX.

    python benchmarks/jit_overhead.py [--jax-python /tmp/jaxenv/bin/python]

Targets (issue 3): a cache-hit call of a tiny jitted function at most 1.0x JAX's
time, and a warm make_jaxpr at most 1.0x JAX's; issue 16 lowered them to 0.7x (cache hit) and
0.8x (make_jaxpr of the tutorials' selu on f32[5]).
"""
from __future__ import annotations

import os
import sys

# This folder goes last on the path: benchmarks/random.py must not hide the
# standard library's random module; _timing.py is still found.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE] + [_HERE]
from _timing import best_time, compare_with_jax  # noqa: E402

CASES = ["jit hit: f(x) = x + 1, scalar", "jit hit: 2 args + pytree out",
         "make_jaxpr: 5-op function", "make_jaxpr: selu, f32[5]"]


def run(jax, jnp) -> dict:
    f = jax.jit(lambda x: x + 1.0)
    g = jax.jit(lambda x, y: {"s": x * y, "d": x - y})
    x, y = jnp.asarray(1.0), jnp.ones(3)

    def body(x):
        return jnp.sum(jnp.sin(x) * 2.0 + x ** 2) / 3.0

    def selu(x, alpha=1.67, lmbda=1.05):  # the tutorials' selu
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    x5 = jnp.arange(5.0)

    def block(out):
        leaf = out if hasattr(out, "block_until_ready") else out["s"]
        return leaf.block_until_ready()

    return dict(zip(CASES, [
        best_time(lambda: block(f(x))),
        best_time(lambda: block(g(y, y))),
        best_time(lambda: jax.make_jaxpr(body)(y)),
        best_time(lambda: jax.make_jaxpr(selu)(x5)),
    ]))


def main() -> None:
    compare_with_jax(__doc__, __file__, "jit and tracing overhead (lower is better)", CASES, run)


if __name__ == "__main__":
    main()
