"""Large loop nests split their outer loop across the CPU's cores (Numba's ``prange``).

Only loops whose iterations are independent may be split: elementwise work, and reductions
that keep the outer axis (a row sum). A column sum adds every row into the same
accumulators, so it must stay serial. The numba results must equal the reference
interpreter's either way.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax.backends.numba_cpu.codegen import PARALLEL_MIN_ELEMENTS  # noqa: E402
from edujax.config import config  # noqa: E402

SHAPE = (512, 256)  # exactly PARALLEL_MIN_ELEMENTS elements


@pytest.fixture(autouse=True)
def synchronous(monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    before = config.read("edujax_backend")
    yield
    config.update("edujax_backend", before)


def both(fn, *args):
    """(numba result, reference result, the generated source)."""
    config.update("edujax_backend", "numba")
    f = jax.jit(fn)
    got, text = f(*args), f.lower(*args).compile().as_text()
    config.update("edujax_backend", "reference")
    return got, jax.jit(fn)(*args), text


def test_the_shape_is_at_the_threshold():
    assert np.prod(SHAPE) == PARALLEL_MIN_ELEMENTS


def test_elementwise_and_row_reductions_run_in_parallel():
    x = jnp.asarray(np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32))

    def f(x):
        y = jnp.tanh(x) * 2.0 + jnp.exp(-x * x)
        return y, y.sum(axis=1), jnp.argmax(y, axis=1)

    got, want, text = both(f, x)
    assert "parallel=True" in text and "in prange(512)" in text  # one loop nest
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got[2], want[2])


def test_column_sums_and_small_loops_stay_serial():
    x = jnp.asarray(np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32))
    got, want, text = both(lambda x: jnp.sin(x).sum(axis=0), x)
    assert "prange" not in text
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    _, _, small = both(lambda x: jnp.sin(x) * 2.0, x[:4])
    assert "prange" not in small
