"""make_jaxpr prints exactly JAX 0.10's text: inner jits, let-hoisting, grads, vmaps, weak types.

tests/data/jaxpr_fidelity_cases.py holds the programs (selu from JAX's documentation, the
tutorials' programs, the jnp functions JAX wraps in ``jit`` under grad/vmap/jit, weak types
in grad jaxprs, Literal reprs, make_jaxpr's trace cache); tests/data/jaxpr_fidelity_recorded.json
is what real JAX 0.10.2 printed for each. Every case must come out character for character the
same, except the few listed in KNOWN_DIFFERENCES (strict xfails: they fail the suite the day
they start to pass, so the list cannot go stale).
"""
from __future__ import annotations

import numpy as np
import pytest
import recorded

import edujax
import edujax.numpy as jnp

CASES = recorded.load("jaxpr_fidelity_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {
}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES))
def test_jaxpr_text_is_jaxs(case):
    recorded.check(case)


def test_eager_calls_trace_nothing():
    """An eager call of an inner-jitted jnp function runs its body directly: nothing is traced
    or cached (tracing on every call would cost a learner's loop dearly). Under make_jaxpr one
    signature is traced once and shared by every program that uses it."""
    inner = jnp.ufuncs._where._inner_jit
    # (the cache is not cleared: jits traced earlier would hold a body that a new trace no
    # longer shares, and their jaxprs would print it twice instead of once in a ``let``)
    x = jnp.arange(13.0)
    before = len(inner.cache)
    for _ in range(3):
        assert jnp.where(x > 2, x, 0.0).tolist() == [0.0] * 3 + list(range(3, 13))
    assert len(inner.cache) == before
    edujax.make_jaxpr(lambda x: jnp.where(x > 2, x, 0.0))(x)
    traced = len(inner.cache)
    assert traced <= before + 1
    edujax.make_jaxpr(lambda x: jnp.where(x > 1, x, 0.0))(x)
    assert len(inner.cache) == traced


def test_inner_jit_values_under_every_transformation():
    """The inner jit changes how programs print, never what they compute."""
    def f(x):
        return jnp.sum(jnp.where(x > 0, x, 0.1 * x) ** 2 + jnp.clip(x, -1, 1) * jnp.var(x))

    x_np = np.array([-2.0, -0.5, 0.5, 3.0])
    x = jnp.array(x_np)
    expected = np.sum(np.where(x_np > 0, x_np, 0.1 * x_np) ** 2
                      + np.clip(x_np, -1, 1) * np.var(x_np))  # the same formula in NumPy
    assert abs(float(f(x)) - expected) < 1e-4
    assert abs(float(edujax.jit(f)(x)) - expected) < 1e-4
    g = edujax.grad(f)(x)
    g_jit = edujax.jit(edujax.grad(f))(x)
    assert jnp.allclose(g, g_jit, atol=1e-5)
    batched = edujax.vmap(f)(jnp.stack([x, -x]))
    assert jnp.allclose(batched, jnp.array([f(x), f(-x)]), atol=1e-5)


def test_grad_of_python_float_is_weak_like_jax():
    """grad of arithmetic on a Python float stays weakly typed, with no cast at the end."""
    g = edujax.grad(lambda x: x ** 2)(1.5)
    assert repr(g) == "Array(3., dtype=float32, weak_type=True)"
    assert "convert_element_type" not in str(edujax.make_jaxpr(edujax.grad(lambda x: x ** 2))(1.5))


def test_arrays_made_while_tracing_are_constvars_in_the_order_they_were_made():
    """JAX stages ``jnp.array([...])`` as soon as it is made (lax.stage): the constvars come
    in creation order, whichever is read first, under grad and vmap too; one never read is
    dropped. (Recorded from JAX 0.10.2.)"""
    def g(x):
        c = jnp.array([1., 2.])
        d = jnp.array([3., 4.])
        jnp.array([5, 6])  # never read
        return d * x + c
    assert str(edujax.make_jaxpr(g)(1.0)) == """\
{ lambda a:f32[2] b:f32[2]; c:f32[]. let
    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    e:f32[2] = mul b d
    f:f32[2] = add e a
  in (f,) }"""
    h = edujax.vmap(lambda x: jnp.array([3., 4.]) * (x + jnp.array([1., 2.])))
    assert str(edujax.make_jaxpr(h)(jnp.ones((3, 2)))) == """\
{ lambda a:f32[2] b:f32[2]; c:f32[3,2]. let
    d:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
    e:f32[3,2] = add c d
    f:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a
    g:f32[3,2] = mul f e
  in (g,) }"""
    np.testing.assert_allclose(edujax.jit(g)(2.0), [7.0, 10.0])


def test_jvp_of_add_any_instantiates_a_zero_tangent_next_to_a_nonzero_one():
    """Forward over reverse: the backward pass sums the cotangents of x with add_any, and
    the tangent of ``2 * ct`` is zero. JAX's JVP of add_any (linear_jvp) makes that zero a
    real one (here the literal ``0.0``) and keeps the add_any. (Recorded from JAX 0.10.2.)"""
    f = lambda x: x * 2.0 + jnp.sin(x)  # noqa: E731
    g = lambda x, t: edujax.jvp(edujax.grad(f), (x,), (t,))  # noqa: E731
    assert str(edujax.make_jaxpr(g)(1.0, 1.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = mul a 2.0:f32[]
    d:f32[] = mul b 2.0:f32[]
    e:f32[] = sin a
    f:f32[] = cos a
    g:f32[] = mul b f
    h:f32[] = cos a
    i:f32[] = sin a
    j:f32[] = mul b i
    k:f32[] = neg j
    _:f32[] = add c e
    _:f32[] = add d g
    l:f32[] = mul 1.0:f32[] h
    m:f32[] = mul 1.0:f32[] k
    n:f32[] = mul 1.0:f32[] 2.0:f32[]
    o:f32[] = add_any l n
    p:f32[] = add_any m 0.0:f32[]
  in (o, p) }"""
    np.testing.assert_allclose(g(1.0, 1.0), (2.0 + np.cos(1.0), -np.sin(1.0)), rtol=1e-6)
