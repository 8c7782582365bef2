"""jit's cache-hit fast path (jit/hit_plan.py) never takes a call for the last signature
when it is not: each test calls the public API with two signatures that the plan must tell
apart and checks the values, dtypes and cache counters a student would see."""
from __future__ import annotations

import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax.config import config


@pytest.fixture(params=["reference", "numba"])
def backend(request, monkeypatch):
    """Both backends: the reference interpreter, and compiled kernels called directly
    (not tiered, so the plan's direct call of the driver is what runs)."""
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    previous = config.read("edujax_backend")
    jax.config.update("edujax_backend", request.param)
    yield request.param
    jax.config.update("edujax_backend", previous)


def calls(f, *arg_lists):
    """f called on each argument list in turn, twice over (so each is a repeat once)."""
    return [np.asarray(f(*args)) for args in arg_lists * 2]


def test_repeat_is_a_counted_hit(backend):
    traced = []

    @jax.jit
    def f(x, y):
        traced.append(1)
        return x * y + 1.0
    x, y = jnp.arange(3.0), jnp.full(3, 2.0)
    outs = [f(x, y) for _ in range(5)]
    assert all(np.array_equal(o, [1.0, 3.0, 5.0]) for o in outs)
    assert outs[-1].dtype == np.float32 and not outs[-1].weak_type
    info = f.cache_info()
    assert (info.hits, info.misses, len(traced)) == (4, 1, 1)
    assert info.entries[0].hits == 4


def test_same_shape_other_dtype(backend):
    f = jax.jit(lambda x: x // 2 if x.dtype == jnp.int32 else x / 2)
    i, r = jnp.array([3, 5], dtype=jnp.int32), jnp.array([3.0, 5.0])
    got = calls(f, (i,), (r,))
    for out in got[::2]:
        assert out.dtype == np.int32 and out.tolist() == [1, 2]
    for out in got[1::2]:
        assert out.dtype == np.float32 and out.tolist() == [1.5, 2.5]
    assert f.cache_info().misses == 2 and f.cache_info().hits == 2


def test_weak_and_strong_type_are_two_signatures(backend):
    f = jax.jit(lambda x: x * 2)
    weak, strong = jnp.asarray(1.5), jnp.asarray(1.5, dtype=jnp.float32)
    assert weak.weak_type and not strong.weak_type
    outs = [f(weak), f(strong), f(weak), f(strong)]
    assert [o.weak_type for o in outs] == [True, False, True, False]
    # what a student sees: a weak result gives way to float16, a strong one does not
    assert [(o + jnp.float16(1)).dtype for o in outs] == [jnp.float16, jnp.float32] * 2
    assert f.cache_info().misses == 2


def test_pytree_with_a_none_or_a_leaf(backend):
    f = jax.jit(lambda t: t["a"] * 10 if t["b"] is None else t["a"] * 10 + t["b"])
    x = jnp.ones(2)
    got = calls(f, ({"a": x, "b": None},), ({"a": x, "b": x},))
    assert [o.tolist() for o in got] == [[10.0, 10.0], [11.0, 11.0]] * 2
    assert f.cache_info().misses == 2


def test_other_structure_same_leaves(backend):
    f = jax.jit(lambda t: t[0] - t[1] if isinstance(t, tuple) else t[0] + t[1])
    a, b = jnp.full(2, 5.0), jnp.full(2, 2.0)
    got = calls(f, ((a, b),), ([a, b],))
    assert [o.tolist() for o in got] == [[3.0, 3.0], [7.0, 7.0]] * 2

    g = jax.jit(lambda d: d["a"] * 10 + (d["b"] if "b" in d else -d["c"]))
    got = calls(g, ({"a": a, "b": b},), ({"a": a, "c": b},))
    assert [o.tolist() for o in got] == [[52.0, 52.0], [48.0, 48.0]] * 2
    # the same keys in another order are the same structure: a hit, the same value
    assert g({"b": b, "a": a}).tolist() == [52.0, 52.0]
    assert g.cache_info().misses == 2

    k = jax.jit(lambda d: d["a"] * len(d))  # one key more: another structure
    got = calls(k, ({"a": a},), ({"a": a, "b": b},))
    assert [o.tolist() for o in got] == [[5.0, 5.0], [10.0, 10.0]] * 2

    h = jax.jit(lambda t: t[0][0] + t[1] if isinstance(t[0], tuple) else t[0] * t[1])
    got = calls(h, (((a,), b),), ((a, b),))  # nested one level deeper, or not
    assert [o.tolist() for o in got] == [[7.0, 7.0], [10.0, 10.0]] * 2


def test_number_of_arguments_and_shapes(backend):
    f = jax.jit(lambda *xs: sum(xs) * len(xs))
    x = jnp.ones(3)
    got = calls(f, (x,), (x, x), (jnp.ones(4),))
    assert [o.tolist() for o in got] == [[1.0] * 3, [4.0] * 3, [1.0] * 4] * 2
    assert f.cache_info().misses == 3


def test_other_leaf_types_take_the_general_path(backend):
    f = jax.jit(lambda x: x + 1)
    x = jnp.array([1.0, 2.0])
    assert f(x).tolist() == [2.0, 3.0]
    # a NumPy array of the same shape and dtype: the same signature, its own values
    assert f(np.array([5.0, 6.0], np.float32)).tolist() == [6.0, 7.0]
    assert f(x).tolist() == [2.0, 3.0]
    assert f.cache_info().misses == 1 and f.cache_info().hits == 2
    with pytest.raises(TypeError):  # a list is not an array: JAX's error, not a wrong hit
        f([1.0, 2.0])


def test_cleared_cache_and_config_changes_retrace(backend):
    traced = []

    @jax.jit
    def f(x):
        traced.append(1)
        return x + jnp.arange(2.0)
    x = jnp.ones(2)
    f(x), f(x)
    f.clear_cache()
    assert f(x).tolist() == [1.0, 2.0] and len(traced) == 2
    jax.config.update("jax_enable_x64", True)
    try:
        out = f(x)  # the same Array, another mode: traced again, arange is float64 now
        assert out.dtype == np.float64 and len(traced) == 3
    finally:
        jax.config.update("jax_enable_x64", False)
    assert f(x).dtype == np.float32


def test_evicted_signature_is_traced_again(backend):
    jax.config.update("edujax_jit_cache_size", 1)
    try:
        f = jax.jit(lambda x: x * 3)
        a, b = jnp.ones(2), jnp.ones(3)
        got = calls(f, (a,), (b,))
        assert [o.tolist() for o in got] == [[3.0] * 2, [3.0] * 3] * 2
        assert f.cache_info().misses == 4 and f.cache_info().hits == 0
    finally:
        jax.config.update("edujax_jit_cache_size", 1024)


def test_disable_jit_and_tracing_still_bypass_the_plan(backend):
    seen = []

    @jax.jit
    def f(x):
        seen.append(type(x).__name__)
        return x * 2
    x = jnp.ones(2)
    f(x), f(x)
    with jax.disable_jit():
        assert f(x).tolist() == [2.0, 2.0]
    assert seen[-1] == "ArrayImpl"  # ran as plain Python on the Array
    assert "jit" in str(jax.make_jaxpr(f)(x))  # inside a trace: a jit equation, not a run
    assert jax.grad(lambda v: f(v).sum())(x).tolist() == [2.0, 2.0]
