"""Small matrix products run on one BLAS thread; large ones, and the user's NumPy, keep all.

On a busy machine a small product split across threads waits for the slowest of them
(edujax/backends/numba_cpu/blas.py): the driver calls ``dot_one_thread`` for products below
``blas.SMALL`` multiply-adds and ``np.dot`` above.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax.backends.numba_cpu import blas  # noqa: E402
from edujax.config import config  # noqa: E402


@pytest.fixture
def numba_backend():
    before = config.read("edujax_backend")
    config.update("edujax_backend", "numba")
    yield
    config.update("edujax_backend", before)


def driver_of(fn, *args) -> str:
    text = jax.jit(fn).lower(*args).compile().as_text()
    return text[text.index("def run("):]


def test_small_products_use_one_thread_and_large_ones_all(numba_backend):
    small_x, small_w = jnp.ones((128, 64)), jnp.ones((64, 128))
    assert "dot_one_thread(a, b)" in driver_of(lambda x, w: x @ w, small_x, small_w)
    big = jnp.ones((512, 512))  # 2^27 multiply-adds
    assert "np.dot(a, b)" in driver_of(lambda x, w: x @ w, big, big)


def test_one_thread_products_are_right_and_give_the_thread_count_back(numba_backend):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    w = rng.standard_normal((64, 10)).astype(np.float32)
    functions = blas._openblas_thread_functions()
    threads_before = functions[1]() if functions else None
    out = jax.jit(lambda x, w: jnp.tanh(x @ w).T @ x)(x, w)
    np.testing.assert_allclose(np.asarray(out), np.tanh(x @ w).T @ x, rtol=1e-4, atol=1e-4)
    if functions:  # NumPy's own OpenBLAS: the user's NumPy keeps its thread count
        assert functions[1]() == threads_before
