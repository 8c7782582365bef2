"""The quickstart's batching comparison: a Python loop, manual batching, and vmap,
all under jit, for edujax and real JAX.

    python benchmarks/vmap.py [--jax-python /tmp/jaxenv/bin/python]

Target (issue 5): vmap within 1.2x of manual batching.
"""
from __future__ import annotations

import os
import sys

# This folder goes last on the path: benchmarks/random.py must not hide the
# standard library's random module; _timing.py is still found.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE] + [_HERE]
from _timing import best_time, compare_with_jax  # noqa: E402

CASES = ["naive (Python loop), jit", "manual batching, jit", "vmap, jit"]


def run(jax, jnp) -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    mat = jnp.asarray(rng.standard_normal((150, 100)).astype(np.float32))
    batched_x = jnp.asarray(rng.standard_normal((10, 100)).astype(np.float32))

    def apply_matrix(v):
        return jnp.dot(mat, v)

    @jax.jit
    def naively_batched(v_batched):
        return jnp.stack([apply_matrix(v) for v in v_batched])

    @jax.jit
    def manually_batched(v_batched):
        return jnp.dot(v_batched, mat.T)

    vmap_batched = jax.jit(jax.vmap(apply_matrix))
    np.testing.assert_allclose(np.asarray(vmap_batched(batched_x)),
                               np.asarray(manually_batched(batched_x)), rtol=1e-4, atol=1e-4)
    return dict(zip(CASES, [
        best_time(lambda: naively_batched(batched_x).block_until_ready()),
        best_time(lambda: manually_batched(batched_x).block_until_ready()),
        best_time(lambda: vmap_batched(batched_x).block_until_ready()),
    ]))


def main() -> None:
    columns = compare_with_jax(__doc__, __file__,
                               "Batching a matrix-vector product over 10 examples", CASES, run)
    if columns:
        ed = columns["edujax"]
        print(f"edujax vmap / manual batching: {ed[CASES[2]] / ed[CASES[1]]:.2f}x "
              "(target <= 1.2x)")


if __name__ == "__main__":
    main()
