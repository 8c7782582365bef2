"""Autodiff: derivatives of every differentiable jnp function against finite differences,
forward against reverse mode, transposition of linear maps, pytrees, and JAX's jaxprs.

Numerical checks run in float64 (x64 on) so finite differences are trustworthy.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from x64_mode import x64
from hypothesis import assume, given
from hypothesis import strategies as st
from jnp_functions import BINARY, NOT_DIFFERENTIABLE, STRUCTURAL, UNARY
from recorded import check, load

import edujax as jax
import edujax.numpy as jnp
from edujax import tree_util
from edujax.test_util import check_grads


def floats(shape, lo=-2.0, hi=2.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False))


SHAPES = st.sampled_from([(), (3,), (2, 3)])

@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data())
def test_unary_grads_match_finite_differences(name, data):
    fn, lo, hi = UNARY[name]
    x = data.draw(hnp.arrays(np.float64, data.draw(SHAPES), elements=st.floats(lo, hi)))
    with x64():
        check_grads(fn, (jnp.asarray(x),), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data())
def test_binary_grads_match_finite_differences(name, data):
    shape = data.draw(SHAPES)
    x, y = data.draw(floats(shape)), data.draw(floats(shape))
    # max and min are not differentiable where the arguments tie (hypot uses them too)
    assume(name not in ("maximum", "minimum") or np.all(np.abs(x - y) > 0.05))
    assume(name != "hypot" or np.all(np.abs(np.abs(x + 3) - np.abs(y)) > 0.05))
    with x64():
        check_grads(BINARY[name], (jnp.asarray(x), jnp.asarray(y)), order=2)


@pytest.mark.parametrize("name", sorted(set(STRUCTURAL) - NOT_DIFFERENTIABLE))
@given(x=floats((2, 3)))
def test_structural_grads_match_finite_differences(name, x):
    x = x + np.arange(6).reshape(2, 3) * 0.37  # keep max/sort away from ties
    # stay away from the kinks of where (x = 0) and clip (|x| = 1), and from ties (sort, max)
    assume(np.all(np.abs(x) > 0.05) and np.all(np.abs(np.abs(x) - 1) > 0.05))
    gaps = np.abs(x.reshape(-1, 1) - x.reshape(1, -1)) + np.eye(6)
    assume(np.all(gaps > 0.05))
    with x64():
        check_grads(STRUCTURAL[name], (jnp.asarray(x),), order=2)


@given(a=floats((3, 4)), b=floats((4, 2)))
def test_matmul_grads(a, b):
    with x64():
        check_grads(lambda a, b: jnp.tanh(a @ b), (jnp.asarray(a), jnp.asarray(b)), order=2)


@given(x=floats((3,)))
def test_forward_and_reverse_mode_agree(x):
    def f(v):
        return jnp.stack([jnp.sum(jnp.sin(v) * v), jnp.prod(v + 3.0), v[0] * v[2]])
    with x64():
        np.testing.assert_allclose(jax.jacfwd(f)(x), jax.jacrev(f)(x), rtol=1e-10,
                                   atol=1e-12)


@given(a=floats((3, 4)), ct=floats((3,)))
def test_vjp_of_a_linear_function_is_its_transpose(a, ct):
    with x64():
        _, vjp_fn = jax.vjp(lambda v: jnp.asarray(a) @ v, jnp.ones(4))
        np.testing.assert_allclose(vjp_fn(jnp.asarray(ct))[0], a.T @ ct, rtol=1e-12,
                                   atol=1e-12)


def test_gradients_keep_the_pytree_structure():
    Pair = namedtuple("Pair", "w b")

    @dataclass
    class Layer:
        w: object
        b: object
    tree_util.register_dataclass(Layer, data_fields=["w", "b"], meta_fields=[])

    class Point:
        def __init__(self, x, y):
            self.x, self.y = x, y
    tree_util.register_pytree_node(Point, lambda p: ((p.x, p.y), None),
                                   lambda _, ch: Point(*ch))
    params = {"pair": Pair(jnp.ones(2), 2.0), "list": [3.0, (4.0,)],
              "layer": Layer(jnp.ones(2), 1.0), "point": Point(2.0, 5.0)}

    def loss(p):
        return (jnp.sum(p["pair"].w * p["pair"].b) + p["list"][0] * p["list"][1][0]
                + jnp.sum(p["layer"].w) * p["layer"].b + p["point"].x * p["point"].y)
    g = jax.grad(loss)(params)
    assert type(g["pair"]) is Pair and type(g["layer"]) is Layer and type(g["point"]) is Point
    assert isinstance(g["list"], list) and isinstance(g["list"][1], tuple)
    assert g["pair"].w.tolist() == [2.0, 2.0] and float(g["pair"].b) == 2.0
    assert (float(g["list"][0]), float(g["list"][1][0])) == (4.0, 3.0)
    assert (float(g["point"].x), float(g["point"].y)) == (5.0, 2.0)


def test_python_control_flow_on_concrete_values_is_differentiable():
    def f(x):
        if x > 0:
            return x ** 3
        return -x
    assert (float(jax.grad(f)(2.0)), float(jax.grad(f)(-2.0))) == (12.0, -1.0)


def test_third_order_through_nested_jit():
    def f(x):
        return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))
    g = jax.grad
    direct = float(g(g(g(f)))(1.0))
    assert float(g(jax.jit(g(jax.jit(g(f)))))(1.0)) == pytest.approx(direct, rel=1e-6)
    assert float(jax.jit(g(g(g(f))))(1.0)) == pytest.approx(direct, rel=1e-6)


def test_missing_rule_names_the_table_and_primitive():
    from edujax.core import Primitive, abstract_eval_rules, impl_rules
    p = Primitive("my_new_op")
    abstract_eval_rules[p] = lambda x: x
    impl_rules[p] = lambda x: x
    with pytest.raises(NotImplementedError, match="no jvp rule for primitive 'my_new_op'"):
        jax.grad(lambda x: p.bind(x))(1.0)


RECORDED = load("autodiff_recorded.json")


@pytest.mark.parametrize("case", RECORDED, ids=[c["name"] for c in RECORDED])
def test_matches_recorded_jax(case):
    check(case)


def test_custom_rules_survive_vmap_in_either_order():
    """grad(vmap(f)) and vmap(grad(f)) both use the custom rule, never the body's derivative."""
    @jax.custom_vjp
    def clip_gradient(x):
        return x
    clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))

    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), 100.0 * t[0]))
    x = jnp.arange(3.0)
    assert jax.grad(lambda v: jnp.sum(jax.vmap(lambda u: 5.0 * clip_gradient(u))(v)))(
        x).tolist() == [1.0, 1.0, 1.0]
    assert jax.vmap(jax.grad(lambda u: 5.0 * clip_gradient(u)))(x).tolist() == [1.0, 1.0, 1.0]
    assert jax.grad(lambda v: jnp.sum(jax.vmap(f)(v)))(x).tolist() == [100.0] * 3
    assert jax.vmap(jax.grad(f))(x).tolist() == [100.0] * 3
