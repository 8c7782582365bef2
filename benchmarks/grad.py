"""value_and_grad of a 2-layer MLP, eager and under jit, edujax vs real JAX.

    python benchmarks/grad.py [--jax-python /tmp/jaxenv/bin/python]
"""
from __future__ import annotations

import os
import sys

# This folder goes last on the path: benchmarks/random.py must not hide the
# standard library's random module; _timing.py is still found.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE] + [_HERE]
from _timing import best_time, compare_with_jax  # noqa: E402

CASES = ["value_and_grad, eager", "value_and_grad, jit"]


def run(jax, jnp) -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    params = {"w1": jnp.asarray(rng.standard_normal((64, 128)).astype(np.float32) * 0.1),
              "b1": jnp.zeros(128),
              "w2": jnp.asarray(rng.standard_normal((128, 10)).astype(np.float32) * 0.1),
              "b2": jnp.zeros(10)}
    x = jnp.asarray(rng.standard_normal((256, 64)).astype(np.float32))
    y = jnp.asarray(rng.standard_normal((256, 10)).astype(np.float32))

    def loss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)
    eager = jax.value_and_grad(loss)
    jitted = jax.jit(jax.value_and_grad(loss))

    def block(out):
        return out[0].block_until_ready()
    return dict(zip(CASES, [best_time(lambda: block(eager(params, x, y))),
                            best_time(lambda: block(jitted(params, x, y)))]))


def main() -> None:
    compare_with_jax(__doc__, __file__,
                     "2-layer MLP (64 -> 128 -> 10, batch 256): value_and_grad", CASES, run)


if __name__ == "__main__":
    main()
