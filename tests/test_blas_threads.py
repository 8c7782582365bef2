"""Small matrix products run on one BLAS thread while the machine is busy, on every core
while it is not; large ones, and the user's NumPy, keep all.

On a busy machine a small product split across threads waits for the slowest of them; on
an idle one the split is faster (edujax/backends/numba_cpu/blas.py): the driver calls
``dot_on_free_cores`` for products below ``blas.SMALL`` multiply-adds and ``np.dot`` above.
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
    assert "dot_on_free_cores(a, b)" in driver_of(lambda x, w: x @ w, small_x, small_w)
    big = jnp.ones((512, 512))  # 2^27 multiply-adds
    assert "np.dot(a, b)" in driver_of(lambda x, w: x @ w, big, big)
    tiny_x, tiny_w = jnp.ones((128, 16)), jnp.ones(16)  # OpenBLAS keeps it on one thread
    assert "np.dot(a, b)" in driver_of(lambda x, w: x @ w, tiny_x, tiny_w)


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


@pytest.mark.parametrize("load, busy", [(0.3, False), (1.9, False), (2.0, True), (7.5, True)])
def test_the_machine_is_busy_when_its_load_reaches_its_cores(monkeypatch, load, busy):
    monkeypatch.setattr(blas.os, "getloadavg", lambda: (load, load, load))
    is_busy = blas.BusyMachine()
    is_busy.cores = 2
    assert is_busy() is busy


def test_the_load_is_read_at_most_once_per_interval(monkeypatch):
    reads = []
    monkeypatch.setattr(blas.os, "getloadavg", lambda: reads.append(1) or (9.0, 9.0, 9.0))
    is_busy = blas.BusyMachine(interval=3600)
    assert all(is_busy() for _ in range(100))
    assert len(reads) == 1


@pytest.mark.parametrize("busy", [True, False], ids=["busy: one thread", "idle: every core"])
def test_small_products_take_one_thread_only_on_a_busy_machine(monkeypatch, busy):
    functions = blas._openblas_thread_functions()
    if functions is None:
        pytest.skip("NumPy is not on its own OpenBLAS here: dot_on_free_cores is np.dot")
    set_threads, get_threads = functions
    seen = []

    class SpyNumpy:  # np.dot, noting OpenBLAS's thread count while the product runs
        def dot(self, a, b, out=None):
            seen.append(get_threads())
            return np.dot(a, b, out)
    monkeypatch.setattr(blas, "np", SpyNumpy())
    monkeypatch.setattr(blas, "machine_is_busy", lambda: busy)
    threads_before = get_threads()
    set_threads(2)
    try:
        x = np.ones((128, 64), np.float32)
        np.testing.assert_array_equal(blas.dot_on_free_cores(x, x.T), np.full((128, 128), 64.0))
        assert seen == [1 if busy else 2]
        assert get_threads() == 2
    finally:
        set_threads(threads_before)
