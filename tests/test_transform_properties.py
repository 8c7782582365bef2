"""Laws that hold for every program, checked on random ones (tests/program_generator.py):

* ``jit(f)`` computes what ``f`` computes (issue 3), static arguments included;
* ``vmap(f)`` over a batch equals stacking ``f`` over a Python loop, for any in_axes (issue 5);
* ``pmap(f)`` equals ``vmap(f)`` on 1, 2 and 4 simulated devices, and the collectives
  equal their NumPy definitions.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from program_generator import random_program

import edujax as jax
import edujax.numpy as jnp
from edujax import lax


def assert_same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@given(random_program(), st.integers(-2, 2))
def test_jit_equals_eager_with_a_static_argument(program_and_args, k):
    program, args = program_and_args

    def f(*xs, k):
        out = program(*xs)
        return (out, out) if k > 0 else out  # Python control flow on a static value

    jitted = jax.jit(f, static_argnames="k")
    want = f(*args, k=k)
    for _ in range(2):  # the second call is a cache hit
        got = jitted(*args, k=k)
        if k > 0:
            assert_same(got[0], want[0])
            assert_same(got[1], want[1])
        else:
            assert_same(got, want)
    assert jitted.cache_info().hits >= 1


def _example(arg: np.ndarray, i: int) -> np.ndarray:
    """The i-th example of a batch built from one argument (different values per example)."""
    if arg.dtype.kind == "f":
        return (arg * (1 + 0.25 * i)).astype(arg.dtype)
    if arg.dtype.kind == "b":
        return arg ^ bool(i % 2)
    return (arg + i).astype(arg.dtype)


@given(random_program(), st.integers(1, 3), st.data())
def test_vmap_equals_a_python_loop(program_and_args, batch, data):
    program, args = program_and_args
    axes = [data.draw(st.one_of(st.none(), st.integers(-(a.ndim + 1), a.ndim)))
            for a in args]
    if all(a is None for a in axes):
        axes[0] = 0
    batched = [a if ax is None else np.stack([_example(a, i) for i in range(batch)], ax)
               for a, ax in zip(args, axes)]
    want = np.stack([np.asarray(program(*[a if ax is None else _example(a, i)
                                          for a, ax in zip(args, axes)]))
                     for i in range(batch)])
    got = jax.vmap(program, in_axes=tuple(axes))(*batched)
    assert_same(got, want)
    assert_same(jax.jit(jax.vmap(program, in_axes=tuple(axes)))(*batched), want)


@settings(max_examples=15, deadline=None)
@given(random_program(), st.sampled_from([1, 2, 4]))
def test_pmap_equals_vmap(program_and_args, devices):
    program, args = program_and_args
    batched = [np.stack([_example(a, i) for i in range(devices)]) for a in args]
    jax.config.update("edujax_num_cpu_devices", devices)
    try:
        assert_same(jax.pmap(program)(*batched), jax.vmap(program)(*batched))
    finally:
        jax.config.update("edujax_num_cpu_devices", 1)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([1, 2, 4]), st.integers(0, 3))
def test_collectives_equal_their_numpy_definitions(devices, seed):
    x = np.random.default_rng(seed).standard_normal((devices, 3)).astype(np.float32)
    perm = [(i, (i + 1) % devices) for i in range(devices)]

    def f(v):
        return (lax.psum(v, "i"), lax.pmean(v, "i"), lax.pmax(v, "i"), lax.pmin(v, "i"),
                lax.all_gather(v, "i"), lax.axis_index("i"), lax.ppermute(v, "i", perm))
    want = (np.broadcast_to(x.sum(0), x.shape), np.broadcast_to(x.mean(0), x.shape),
            np.broadcast_to(x.max(0), x.shape), np.broadcast_to(x.min(0), x.shape),
            np.broadcast_to(x, (devices, *x.shape)), np.arange(devices, dtype=np.int32),
            np.roll(x, 1, axis=0))
    jax.config.update("edujax_num_cpu_devices", devices)
    try:
        for mapped in (jax.pmap(f, axis_name="i"), jax.vmap(f, axis_name="i")):
            for got, expected in zip(mapped(jnp.asarray(x)), want):
                np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)
    finally:
        jax.config.update("edujax_num_cpu_devices", 1)


def test_collectives_inside_control_flow_under_vmap():
    """A body re-traced by a batching rule still knows the named axis (JAX gives [0, 1, 3])."""
    out = jax.vmap(lambda x: lax.cond(x > 1, lambda v: lax.psum(v, "i"), lambda v: v, x),
                   axis_name="i")(jnp.arange(3.0))
    assert out.tolist() == [0.0, 1.0, 3.0]
