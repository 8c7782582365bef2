"""value_and_grad of a 2-layer MLP, eager and under jit, edujax vs real JAX.

    python benchmarks/grad.py [--jax-python /tmp/jaxenv/bin/python]
"""
from __future__ import annotations

import json
import os
import sys

# This folder goes last on the path: benchmarks/random.py must not hide the
# standard library's random module; _timing.py is still found.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE] + [_HERE]
from _timing import best_time, parse_args, print_table, time_jax  # noqa: E402

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


def run_jax() -> dict:
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    return run(jax, jnp)


def main() -> None:
    args = parse_args(__doc__)
    if args.only == "jax":
        print(json.dumps(run_jax()))
        return
    import edujax
    import edujax.numpy as ejnp
    print(f"edujax backend: {edujax.config.read('edujax_backend')}")
    columns = {"edujax": run(edujax, ejnp), "jax": time_jax(__file__, args.jax_python, run_jax)}
    print_table("2-layer MLP (64 -> 128 -> 10, batch 256): value_and_grad", CASES, columns)


if __name__ == "__main__":
    main()
