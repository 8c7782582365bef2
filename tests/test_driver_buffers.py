"""The driver reuses the arrays that no result shares, call after call (codegen.private_arrays).

A kernel's output that only other kernels and matrix products read is filled into the same
array on every call (``BUFFERS`` in the generated module), instead of a new ``np.empty``.
What a user can notice is only that it is faster; what must never happen is a result, or an
array a callback kept, changing under the user's feet when the function is called again.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("numba")

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax.config import config  # noqa: E402


@pytest.fixture(autouse=True)
def numba_backend(monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "0")  # (the kernels, from the first call on)
    before = config.read("edujax_backend")
    config.update("edujax_backend", "numba")
    yield
    config.update("edujax_backend", before)


def mlp(w, x):
    h = jnp.tanh(x @ w)  # x @ w and tanh: arrays only kernels read
    return jnp.sum(h * h, axis=1), h.T @ x  # (tanh's array is read by a product, too)


def driver_of(fn, *args) -> str:
    text = jax.jit(fn).lower(*args).compile().as_text()
    return text[text.index("BUFFERS = []") if "BUFFERS = []" in text else text.index("def run("):]


def inputs(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((16, 32)).astype(np.float32),
            rng.standard_normal((64, 16)).astype(np.float32))


def by_numpy(w, x) -> tuple:
    h = np.tanh(x @ w)
    return (h * h).sum(axis=1), h.T @ x


def test_private_arrays_are_reused_and_results_stay_put():
    f = jax.jit(mlp)
    driver = driver_of(mlp, *inputs(0))
    assert "buffers = BUFFERS.pop()" in driver and "out=" in driver, driver
    first = f(*inputs(0))
    kept = [np.array(r) for r in first]
    second = f(*inputs(1))
    for got, want in zip(first, kept):  # the first call's results did not move
        np.testing.assert_array_equal(np.asarray(got), want)
    for got, want in zip(second, by_numpy(*inputs(1))):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


def test_a_result_that_is_a_view_of_a_kernels_output_gets_its_own_array():
    f = jax.jit(lambda x: (jnp.sin(x) * 2.0).reshape(4, 8))
    x0, x1 = np.linspace(0, 1, 32, dtype=np.float32), np.linspace(1, 2, 32, dtype=np.float32)
    first = f(x0)
    kept = np.array(first)
    f(x1)
    np.testing.assert_array_equal(np.asarray(first), kept)


def test_an_array_a_callback_kept_is_not_overwritten():
    kept = []
    def f(x):
        y = jnp.sin(x) * 2.0
        jax.debug.callback(kept.append, y)
        return jnp.sum(y * y)
    g = jax.jit(f)
    x0, x1 = np.linspace(0, 1, 32, dtype=np.float32), np.linspace(1, 2, 32, dtype=np.float32)
    g(x0)
    g(x1)
    np.testing.assert_allclose(np.asarray(kept[0]), np.sin(x0) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(kept[1]), np.sin(x1) * 2.0, rtol=1e-6)


def test_calls_in_several_threads_each_get_their_own_arrays():
    f = jax.jit(mlp)
    f(*inputs(0))  # (compiled before the threads start)
    errors = []

    def worker(seed: int) -> None:
        args = inputs(seed)
        want = by_numpy(*args)
        for _ in range(200):
            got = f(*args)
            for g, w in zip(got, want):
                if not np.allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4):
                    errors.append(seed)
                    return
    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
