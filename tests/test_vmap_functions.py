"""vmap of every jnp function in tests/jnp_functions.py equals a Python loop over examples,
for random batch sizes and random in_axes (issue 5)."""
from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jnp_functions import BINARY, STRUCTURAL, UNARY

import edujax as jax
import edujax.numpy as jnp


def batch_of(data, shape, lo, hi, size, axis):
    elements = st.floats(float(np.float32(lo)), float(np.float32(hi)), width=32)
    examples = [data.draw(hnp.arrays(np.float32, shape, elements=elements)) for _ in range(size)]
    return examples, np.stack(examples, axis=axis)


def check(fn, examples_per_arg, batched, in_axes):
    size = next(len(e) for e, ax in zip(examples_per_arg, in_axes) if ax is not None)
    want = np.stack([np.asarray(fn(*[jnp.asarray(e[i] if ax is not None else e[0])
                                     for e, ax in zip(examples_per_arg, in_axes)]))
                     for i in range(size)])
    got = np.asarray(jax.vmap(fn, in_axes=tuple(in_axes))(*batched))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data(), size=st.integers(1, 3), shape=st.sampled_from([(), (3,), (2, 3)]))
def test_unary(name, data, size, shape):
    fn, lo, hi = UNARY[name]
    axis = data.draw(st.integers(0, len(shape)))
    examples, batched = batch_of(data, shape, lo, hi, size, axis)
    check(fn, [examples], [batched], [axis])


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data(), size=st.integers(1, 3), shape=st.sampled_from([(), (3,), (2, 3)]))
def test_binary(name, data, size, shape):
    axes = [data.draw(st.one_of(st.none(), st.integers(0, len(shape)))) for _ in range(2)]
    if axes == [None, None]:
        axes[0] = 0
    args, batched = [], []
    for ax in axes:
        examples, stacked = batch_of(data, shape, -2, 2, size, ax or 0)
        args.append(examples)
        batched.append(stacked if ax is not None else examples[0])
    check(BINARY[name], args, batched, axes)


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
@given(data=st.data(), size=st.integers(1, 3))
def test_structural(name, data, size):
    axis = data.draw(st.integers(-3, 2))
    examples, batched = batch_of(data, (2, 3), -2, 2, size, axis)
    check(STRUCTURAL[name], [examples], [batched], [axis])
