"""jit: calling conventions, the compile cache and its explanations, errors.

What a learner of the jit tutorial (seed 004) would check by hand: when does jit
retrace, why, and what does it say about it.
"""
from __future__ import annotations

import functools
import gc
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax.config import config
from edujax.errors import (ConcretizationTypeError, TracerArrayConversionError,
                           TracerBoolConversionError, TracerIntegerConversionError)


def test_hits_and_misses_are_counted():
    f = jax.jit(lambda x: x * 2)
    f(jnp.ones(3))
    f(jnp.ones(3) * 5)
    f(jnp.ones(4))
    info = f.cache_info()
    # lru_cache's accounting: a hit is a call that found its entry, a miss a compile
    assert (info.hits, info.misses, info.currsize) == (1, 2, 2)
    assert [e.hits for e in info.entries] == [1, 0]
    assert info.entries[0].signature.startswith("x: f32[3]")
    backend = config.read("edujax_backend")  # the suite's (conftest.py), normally "reference"
    assert all(e.backend == backend for e in info.entries)
    assert all(e.compile_seconds >= 0 for e in info.entries)


def test_numba_is_the_default_backend_and_entries_report_their_tier():
    """In a fresh process with no EDUJAX_BACKEND, jit compiles with the Numba backend, and
    the entry's tier names where the kernels came from: edujax's own compiler takes this
    program at once (``direct``), or an earlier process left its machine code on disk
    (``object file``); a program it declines would say ``reference`` while Numba compiles."""
    code = textwrap.dedent("""
        import edujax as jax, edujax.numpy as jnp
        f = jax.jit(lambda x: x * 2 + 1)
        print(f(jnp.ones(3)))
        entry = f.cache_info().entries[0]
        print(entry.backend, entry.tier)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("EDUJAX_BACKEND", "EDUJAX_TIERED")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "[3. 3. 3.]"
    backend, tier = out[1].split(maxsplit=1)
    assert backend == "numba"
    assert tier in ("direct", "object file")


def test_miss_reasons_name_the_argument_and_what_changed():
    def f(x, y):
        return x + y
    g = jax.jit(f)
    g(jnp.ones(3), 1.0)
    g(jnp.ones(5), 1.0)
    g(jnp.ones(5, dtype=jnp.int32), 1.0)
    g(jnp.ones(5, dtype=jnp.int32), 1)
    reasons = g.explain_misses()
    assert reasons[0].startswith("first call of f")
    assert reasons[1] == "argument x: new shape f32[3] → f32[5]"
    assert reasons[2] == "argument x: new dtype f32[5] → i32[5]"
    assert reasons[3] == "argument y: new dtype ~f32[] → ~i32[]"


def test_static_argument_changes_are_explained():
    g = jax.jit(lambda x, n: x * n, static_argnums=1)
    g(1.0, 20)
    g(1.0, 30)
    assert g.explain_misses()[1] == "static argument n: 20 → 30"


def test_weak_python_scalars_do_not_retrace():
    calls = []

    @jax.jit
    def f(x):
        calls.append(1)
        return x + 1
    f(1.0)
    f(2.0)
    f(3.5)
    assert len(calls) == 1 and f.cache_info().hits == 2


def test_loop_of_lambdas_misses_every_time_but_same_function_hits():
    def body(x):
        return x + 1
    lambdas = [jax.jit(lambda x: body(x)) for _ in range(3)]
    for g in lambdas:
        g(1)
        assert g.cache_info().misses == 1
    partials = [jax.jit(functools.partial(body)) for _ in range(3)]
    for g in partials:
        g(1)
        assert g.cache_info().misses == 1
    same = [jax.jit(body) for _ in range(3)]  # one function object: one shared cache
    for g in same:
        g(1)
    assert same[-1].cache_info().misses == 1 and same[-1].cache_info().hits == 2


def test_pytree_calls_hit_and_a_changed_structure_or_leaf_retraces():
    # A training step's parameters: the shortcut that compares a call's structure with the
    # last one's must still count hits and notice every change.
    f = jax.jit(lambda p: p["w"] * 2 + p["b"][0])
    params = {"w": jnp.ones(3), "b": [jnp.zeros(3)]}
    f(params)
    out = f({"w": jnp.ones(3) * 2, "b": [jnp.ones(3)]})
    np.testing.assert_allclose(np.asarray(out), [5.0, 5.0, 5.0])
    f({"w": jnp.ones(4), "b": [jnp.ones(4)]})           # a new shape
    f({"w": jnp.ones(3), "b": (jnp.ones(3),)})          # a tuple, not a list
    np.testing.assert_allclose(np.asarray(f({"w": jnp.ones(3), "b": [jnp.ones(3) * 3]})), 5.0)
    info = f.cache_info()
    assert (info.hits, info.misses) == (2, 3)
    f.clear_cache()
    f(params)
    assert f.cache_info().misses == 4


def test_eviction_is_least_recently_used():
    jax.config.update("edujax_jit_cache_size", 2)
    try:
        f = jax.jit(lambda x: x + 1)
        for n in (1, 2, 1, 3):  # shape (2,) is the least recently used when (3,) arrives
            f(jnp.ones(n))
        shapes = [e.signature.split(" ")[1] for e in f.cache_info().entries]
        assert shapes == ["f32[1]", "f32[3]"]
        f(jnp.ones(2))
        assert f.explain_misses()[-1].startswith("this signature was compiled before, but was "
                                                 "evicted from the cache")
    finally:
        jax.config.update("edujax_jit_cache_size", 1024)


def test_no_stale_entry_after_a_function_is_freed():
    def make(k):
        def f(x):
            return x * k
        return f
    results = []
    for k in range(20):  # new functions, often at a reused id()
        f = make(k)
        results.append(float(jax.jit(f)(1.0)))
        del f
        gc.collect()
    assert results == [float(k) for k in range(20)]


def test_side_effects_run_once_per_trace_and_globals_are_captured():
    g = 0.0
    calls = []

    def impure(x):
        calls.append(1)
        return x + g
    f = jax.jit(impure)
    first = f(4.0)
    g = 10.0
    second = f(5.0)
    third = f(jnp.array([4.0]))
    assert (float(first), float(second), third.tolist()) == (4.0, 5.0, [14.0])
    assert len(calls) == 2


def test_static_argnames_from_signature_and_kwargs():
    def g(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i
    assert int(jax.jit(g, static_argnames=["n"])(10, 20)) == 30
    assert int(jax.jit(g, static_argnames="n")(10, n=3)) == 13
    assert int(jax.jit(g, static_argnums=1)(1, n=3)) == 4

    @functools.partial(jax.jit, static_argnames=["n"])
    def h(x, n):
        return x * n
    assert int(h(2, n=5)) == 10
    assert jax.jit(lambda x, scale=2.0: x * scale)(jnp.arange(3.0), scale=3.0).tolist() == \
        [0.0, 3.0, 6.0]


def test_unhashable_static_argument_is_a_value_error():
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        jax.jit(lambda x, n: x, static_argnums=1)(1.0, [1])


def test_pytrees_none_and_scalars_in_and_out():
    @jax.jit
    def f(p, xs, nothing):
        assert nothing is None
        return {"y": p["w"] * xs[0] + p["b"], "n": None, "t": (xs[1] * 2,)}
    out = f({"w": 2.0, "b": jnp.ones(2)}, (jnp.arange(2.0), 3.0), None)
    assert out["y"].tolist() == [1.0, 3.0] and out["n"] is None
    assert float(out["t"][0]) == 6.0


@pytest.mark.parametrize("fn, error, first", [
    (lambda x: 1 if x > 0 else 0, TracerBoolConversionError,
     "Attempted boolean conversion of traced array with shape bool[]."),
    (lambda x: [1, 2][x], TracerIntegerConversionError,
     "The __index__() method was called on traced array with shape int32[]"),
    (lambda x: np.asarray(x), TracerArrayConversionError,
     "The numpy.ndarray conversion method __array__() was called on traced array with shape "
     "int32[]"),
    (lambda x: jnp.arange(x), ConcretizationTypeError,
     "Abstract tracer value encountered where concrete value is expected: traced array with "
     "shape int32[]"),
])
def test_tracer_errors_say_where_and_why(fn, error, first):
    def my_function(x):
        return fn(x)
    with pytest.raises(error) as info:
        jax.jit(my_function)(1)
    lines = str(info.value).splitlines()
    assert lines[0] == first
    origin = next(line for line in lines if line.startswith("The error occurred"))
    assert "while tracing the function my_function at " in origin
    assert "test_jit.py:" in origin
    assert "depends on the value of the argument x." in origin
    assert any(line.startswith("Hint:") for line in lines)


def test_error_names_a_pytree_leaf():
    def g(p):
        return 1 if p["b"] > 0 else 0
    with pytest.raises(TracerBoolConversionError, match=r"argument p\['b'\]"):
        jax.jit(g)({"a": 1.0, "b": 2.0})


def test_lower_and_compile_show_their_text():
    f = jax.jit(lambda x: x * 2.0 + 1.0)
    lowered = f.lower(jnp.ones(3))
    assert lowered.as_text() == str(jax.make_jaxpr(lambda x: x * 2.0 + 1.0)(jnp.ones(3)))
    compiled = lowered.compile()
    assert "mul" in compiled.as_text() and "reference" in compiled.as_text()
    assert compiled(jnp.ones(3)).tolist() == [3.0, 3.0, 3.0]


def test_nested_jit_prints_as_a_jit_equation_and_runs():
    @jax.jit
    def inner(x):
        return x * 2.0
    text = str(jax.make_jaxpr(lambda x: inner(x) + 1.0)(1.0))
    assert "jit[\n      name=inner\n      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a 2.0" in text
    outer = jax.jit(lambda x: inner(x) + 1.0)
    assert float(outer(3.0)) == 7.0


def test_explain_cache_misses_flag_logs(caplog):
    jax.config.update("jax_explain_cache_misses", True)
    try:
        with caplog.at_level(logging.WARNING, logger="edujax.jit"):
            f = jax.jit(lambda x: x)
            f(jnp.ones(2))
            f(jnp.ones(3))
    finally:
        jax.config.update("jax_explain_cache_misses", False)
    messages = [r.getMessage() for r in caplog.records]
    assert any("new shape f32[2] → f32[3]" in m for m in messages)


def test_x64_and_backend_are_part_of_the_key():
    f = jax.jit(lambda x: x + 1)
    f(1.0)
    jax.config.update("jax_enable_x64", True)
    try:
        assert str(f(1.0).dtype) == "float64"
    finally:
        jax.config.update("jax_enable_x64", False)
    assert f.explain_misses()[-1] == ("jax_enable_x64: False → True; "
                                      "argument x: new dtype ~f32[] → ~f64[]")
