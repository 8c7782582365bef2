"""grad, jvp, vmap and jit through ``cond``, ``switch``, ``while_loop``, ``fori_loop`` and ``scan``.

What is checked, and against what:

* gradients against central finite differences, computed in float64 (x64 is switched on
  for those tests and restored afterwards), for programs with closures over outer values
  and pytree carries; second derivatives too;
* ``vmap`` against a Python loop over the examples, one call per example;
* every transformation again under ``jit``, and composed (grad of vmap, vmap of grad);
* printed jaxprs recorded from real JAX 0.10.2 (``make_jaxpr`` of the same programs);
* JAX's error for reverse-mode differentiation of a while loop.

Where our jaxpr differs from JAX's only in details of layout (JAX's ``grad`` of a cond
has dead ``empty`` equations; its tangents keep weak types, so a few
``convert_element_type`` equations differ), we compare the values and the equations'
primitives instead of the text.
"""
from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import edujax as jax
import edujax.numpy as jnp
from edujax import lax
from edujax.tree_util import tree_flatten, tree_map, tree_unflatten

FEW = settings(max_examples=25, deadline=None)


# ------------------------------------------------------------------ helpers
@contextlib.contextmanager
def float64():
    """Run the block with 64-bit types on (finite differences need them)."""
    previous = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", previous)


def numerical_grad(f, args, eps=1e-6):
    """Central differences ``(f(x + eps e_i) - f(x - eps e_i)) / 2 eps`` for every scalar
    of every array in the pytree ``args``; same structure as ``args``."""
    leaves, tree = tree_flatten(args)
    leaves = [np.array(x, np.float64) for x in leaves]
    grads = [np.zeros_like(x) for x in leaves]
    for leaf, grad in zip(leaves, grads):
        for i in np.ndindex(leaf.shape):
            old = leaf[i]
            leaf[i] = old + eps
            plus = float(f(tree_unflatten(tree, [jnp.asarray(x) for x in leaves])))
            leaf[i] = old - eps
            minus = float(f(tree_unflatten(tree, [jnp.asarray(x) for x in leaves])))
            leaf[i] = old
            grad[i] = (plus - minus) / (2 * eps)
    return tree_unflatten(tree, grads)


def assert_trees_close(actual, expected, rtol=1e-6, atol=1e-8):
    a_leaves, a_tree = tree_flatten(actual)
    e_leaves, e_tree = tree_flatten(expected)
    assert a_tree == e_tree
    for a, e in zip(a_leaves, e_leaves):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=rtol, atol=atol)


def check_grad(f, args):
    """grad(f) and jit(grad(f)) against finite differences, in float64."""
    with float64():
        args = tree_map(lambda x: jnp.asarray(np.asarray(x, np.float64)), args)
        expected = numerical_grad(f, args)
        assert_trees_close(jax.grad(f)(args), expected, rtol=1e-5, atol=1e-7)
        assert_trees_close(jax.jit(jax.grad(f))(args), expected, rtol=1e-5, atol=1e-7)


def stack_loop(f, *batches):
    """The reference for vmap: call f once per example and stack the results."""
    outs = [f(*example) for example in zip(*batches)]
    return tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *outs)


vectors = st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=3, max_size=3).map(
    lambda v: np.array(v, np.float32))

W = jnp.array([0.5, -1.0, 2.0])  # a global array the bodies close over


# ------------------------------------------------------------------ programs
def cond_program(x):
    """Both branches close over W (a global) and over s (a value of the outer trace)."""
    s = jnp.cos(x[0])
    return lax.cond(x.sum() > 0, lambda v: jnp.sum(jnp.sin(v) * W * s),
                    lambda v: jnp.sum(v ** 2) - s, x)


def switch_program(params):
    """A pytree operand; the index comes from the data but is piecewise constant."""
    i = jnp.clip(jnp.floor(params["x"][0] + 1.5), 0, 2).astype(jnp.int32)
    branches = [lambda p: jnp.sum(jnp.exp(p["x"]) * p["y"]),
                lambda p: jnp.sum(p["x"] * p["y"] ** 3),
                lambda p: jnp.sum(jnp.tanh(p["x"] * W)) * p["y"][1]]
    return lax.switch(i, branches, params)


def fori_program(x):
    """Static bounds (so a scan) with a pytree carry and a closure over x."""
    def body(i, carry):
        a, b = carry
        return a * jnp.cos(b) + x * 0.5, b * x[1] + i
    a, b = lax.fori_loop(0, 4, body, (x, x[0] * 2.0))
    return a.sum() + b


def scan_program(x, reverse=False):
    """A dict carry, pytree xs, ys that are used, and closures over W and x."""
    def body(carry, inputs):
        h = jnp.tanh(carry["h"] * W + inputs["a"] * x[0] + inputs["b"])
        return {"h": h, "total": carry["total"] + h.sum()}, h * inputs["a"]
    xs = {"a": jnp.arange(1.0, 4.0) / 3.0, "b": jnp.stack([x, -x, x * x])}
    carry, ys = lax.scan(body, {"h": x, "total": 0.0}, xs, reverse=reverse)
    return carry["h"].sum() + carry["total"] + jnp.sum(ys ** 2)


def nested_program(x):
    """A cond inside a scan, a scan inside a cond."""
    def body(c, a):
        return lax.cond(a > 1.5, lambda c: c * x, lambda c: jnp.sin(c) + a, c), c.sum()
    c, ys = lax.scan(body, x, jnp.arange(4.0))
    inner = lax.cond(c.sum() > 0,
                     lambda v: lax.scan(lambda k, y: (k * y, k), 1.0, v)[0],
                     lambda v: jnp.sum(v), c)
    return inner + ys.sum()


# ------------------------------------------------------------------ grad vs finite differences
@pytest.mark.parametrize("x", [[0.3, -0.2, 0.7], [-0.3, -0.2, 0.1]])
def test_grad_cond_both_branches(x):
    check_grad(cond_program, np.array(x))


@pytest.mark.parametrize("x0", [-1.2, 0.1, 1.0])  # one point per branch
def test_grad_switch_pytree_operand(x0):
    check_grad(switch_program, {"x": np.array([x0, 0.4, -0.3]), "y": np.array([0.5, 1.5, -1.0])})


def test_grad_fori_loop_static_bounds():
    check_grad(fori_program, np.array([0.3, 0.8, -0.5]))


@pytest.mark.parametrize("reverse", [False, True])
def test_grad_scan_pytree_carry(reverse):
    check_grad(lambda x: scan_program(x, reverse), np.array([0.3, -0.4, 0.9]))


def test_grad_nested_cond_and_scan():
    check_grad(nested_program, np.array([0.3, 0.5, 0.9]))


@FEW
@given(vectors)
def test_grad_cond_matches_finite_differences(x):
    assume(abs(float(x.sum())) > 1e-2)  # not on the boundary between the branches
    check_grad(cond_program, x)


@FEW
@given(vectors)
def test_grad_scan_matches_finite_differences(x):
    check_grad(scan_program, x)


def test_grad_with_respect_to_several_arguments_and_closures():
    def f(w, b, xs):
        def body(c, x):
            return jnp.tanh(c * w + x) + b, c * x
        c, ys = lax.scan(body, 0.5, xs)
        return c + ys.sum()
    with float64():
        args = (jnp.asarray(0.7), jnp.asarray(-0.2), jnp.asarray(np.linspace(-1, 1, 5)))
        expected = numerical_grad(lambda a: f(*a), args)
        assert_trees_close(jax.grad(f, argnums=(0, 1, 2))(*args), expected, rtol=1e-5)


def test_second_order_through_scan_and_cond():
    def f(x):
        c, _ = lax.scan(lambda c, a: (jnp.sin(c) * x + a, None), x, jnp.arange(3.0))
        return lax.cond(c > 0, lambda v: v ** 3, lambda v: jnp.cos(v), c)
    with float64():
        g = jax.grad(f)
        for x in (0.4, -1.3):
            expected = numerical_grad(g, jnp.asarray(x))
            np.testing.assert_allclose(jax.grad(g)(x), expected, rtol=1e-5)
            np.testing.assert_allclose(jax.jit(jax.grad(g))(x), expected, rtol=1e-5)


def test_hessian_through_cond():
    with float64():
        x = jnp.asarray([0.3, -0.2, 0.7])
        g = jax.grad(cond_program)
        expected = np.stack([numerical_grad(lambda v, i=i: g(v)[i], x) for i in range(3)])
        np.testing.assert_allclose(jax.hessian(cond_program)(x), expected, rtol=1e-5,
                                   atol=1e-8)


def test_recorded_gradients_match_jax():
    """The conformance cases (values recorded from JAX, float32)."""
    f = lambda x: lax.cond(x > 0, lambda v: jnp.sin(v), lambda v: v ** 2, x)  # noqa: E731
    np.testing.assert_allclose(jax.grad(f)(1.5), 0.07073719799518585, rtol=1e-6)
    fori = lambda x: lax.fori_loop(0, 3, lambda i, c: c * x + i, 1.0)  # noqa: E731
    assert float(jax.grad(fori)(2.0)) == 13.0
    scan = lambda x: lax.scan(lambda c, a: (c * a + x, None), 1.0, jnp.arange(1.0, 4.0))[0]  # noqa: E731,E501
    assert float(jax.grad(scan)(0.5)) == 10.0


# ------------------------------------------------------------------ while: forward mode only
def while_program(x):
    def body(c):
        i, v = c
        return i + 1, v * jnp.sin(v) + x
    return lax.while_loop(lambda c: c[0] < 5, body, (0, x))[1]


def test_jvp_through_while_matches_finite_differences():
    with float64():
        x = jnp.asarray([0.3, -0.2, 0.7])
        direction = jnp.asarray([1.0, -2.0, 0.5])
        _, tangent = jax.jvp(while_program, (x,), (direction,))
        eps = 1e-6
        numeric = (np.asarray(while_program(x + eps * direction))
                   - np.asarray(while_program(x - eps * direction))) / (2 * eps)
        np.testing.assert_allclose(tangent, numeric, rtol=1e-6)
        _, jitted = jax.jit(lambda x, t: jax.jvp(while_program, (x,), (t,)))(x, direction)
        np.testing.assert_allclose(jitted, tangent, rtol=1e-12)


def test_jvp_through_while_with_data_dependent_trip_count():
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)  # noqa: E731
    primal, tangent = jax.jvp(f, (1.5,), (1.0,))
    assert (float(primal), float(tangent)) == (12.0, 8.0)  # recorded from JAX


def test_forward_mode_jacobians_and_linearize_of_while():
    f = lambda a: lax.while_loop(  # noqa: E731
        lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * a), (0, a))[1]
    np.testing.assert_allclose(jax.jacfwd(jax.jacfwd(f))(0.7), 3.544924, rtol=1e-5)  # JAX
    _, f_lin = jax.linearize(f, 0.7)
    np.testing.assert_allclose(f_lin(1.0), jax.jvp(f, (0.7,), (1.0,))[1], rtol=1e-6)


WHILE_ERROR = ("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
               "with dynamic start/stop values. Try using lax.scan, or using fori_loop with "
               "static start/stop.")


@pytest.mark.parametrize("program", [
    lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c * x, 1.0),
    lambda x: lax.scan(lambda c, _: (lax.while_loop(lambda k: k[0] < 2, lambda k: (
        k[0] + 1, k[1] * x), (0, c))[1], None), x, None, length=3)[0],
])
def test_reverse_mode_through_while_raises_jax_error(program):
    with pytest.raises(ValueError, match=re.escape(WHILE_ERROR)):
        jax.grad(program)(1.5)
    with pytest.raises(ValueError, match=re.escape(WHILE_ERROR)):
        jax.jit(jax.grad(program))(1.5)


def test_reverse_mode_through_fori_loop_with_traced_bounds_raises():
    f = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, 1.0)  # noqa: E731
    assert float(jax.grad(f)(1.5, 3)) == 6.75  # bounds known while tracing: a scan
    with pytest.raises(ValueError, match=re.escape(WHILE_ERROR)):
        jax.jit(jax.grad(f))(1.5, 3)  # bounds traced by jit: a while loop


def test_grad_of_a_while_that_does_not_depend_on_the_input():
    f = lambda a: a * lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0)  # noqa: E731
    assert float(jax.grad(f)(1.5)) == 3.0


# ------------------------------------------------------------------ vmap vs a Python loop
@FEW
@given(vectors)
def test_vmap_cond_with_batched_predicate_is_a_select(xs):
    f = lambda x: lax.cond(x > 0.5, lambda v: jnp.sin(v) * 10.0, lambda v: -v, x)  # noqa: E731
    np.testing.assert_allclose(jax.vmap(f)(xs), stack_loop(f, xs), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(xs), stack_loop(f, xs), rtol=1e-6)
    assert "cond" not in str(jax.make_jaxpr(jax.vmap(f))(xs))


@pytest.mark.parametrize("pred", [True, False])
def test_vmap_cond_with_unbatched_predicate_keeps_the_cond(pred):
    f = lambda p, v: lax.cond(p, lambda u: (u * W[0], 1.0), lambda u: (u + 2.0, u), v)  # noqa: E731,E501
    vs = jnp.arange(4.0)
    expected = stack_loop(lambda v: f(pred, v), vs)
    assert_trees_close(jax.vmap(f, in_axes=(None, 0))(pred, vs), expected)
    assert "cond" in str(jax.make_jaxpr(jax.vmap(f, in_axes=(None, 0)))(pred, vs))


@FEW
@given(vectors, st.lists(st.integers(-1, 4), min_size=3, max_size=3))
def test_vmap_switch_matches_loop(xs, indices):
    branches = [jnp.sin, lambda v: v * W[2], lambda v: v ** 2 - 1.0]
    f = lambda i, x: lax.switch(i, branches, x)  # noqa: E731
    indices = np.array(indices, np.int32)
    np.testing.assert_allclose(jax.vmap(f)(indices, xs), stack_loop(f, indices, xs), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(f, in_axes=(None, 0))(1, xs),
                               stack_loop(lambda x: f(1, x), xs), rtol=1e-6)


def pytree_cond(x):
    return lax.cond(x > 0, lambda u: {"a": u, "b": (u * 2, jnp.ones(2))},
                    lambda u: {"a": -u, "b": (u, jnp.zeros(2))}, x)


def test_vmap_cond_pytree_outputs():
    xs = jnp.array([0.3, -0.2, 0.7])
    assert_trees_close(jax.vmap(pytree_cond)(xs), stack_loop(pytree_cond, xs))


@FEW
@given(st.lists(st.integers(0, 6), min_size=1, max_size=5),
       st.lists(st.floats(0.5, 2.0), min_size=5, max_size=5))
def test_vmap_while_with_batched_predicate_matches_loop(limits, scales):
    """Each example runs its own number of iterations."""
    limits = np.array(limits, np.int32)
    scales = np.array(scales[:len(limits)], np.float32)

    def f(n, s):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * s + 1.0),
                              (0, 1.0))
    assert_trees_close(jax.vmap(f)(limits, scales), stack_loop(f, limits, scales), rtol=1e-6)
    assert_trees_close(jax.jit(jax.vmap(f))(limits, scales), stack_loop(f, limits, scales),
                       rtol=1e-6)


def counted_power(n, s):
    """s**n by a while loop that runs n times: its predicate depends on n."""
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * s), (0, 1.0))[1]


def test_vmap_while_keeps_the_batched_predicate_in_the_loop():
    """As in JAX 0.10: the cond_jaxpr returns one bool per example and the body is the
    plain batched body (the masking is the meaning of ``while``, not equations)."""
    ns, ss = jnp.array([0, 3, 1]), jnp.array([2.0, 0.5, 3.0])
    text = str(jax.make_jaxpr(jax.vmap(counted_power))(ns, ss))
    cond = text.split("cond_jaxpr=")[1]
    assert "lt" in cond and "in (" in cond and "bool[3] = lt" in cond
    assert "select_n" not in text and "reduce_or" not in text
    np.testing.assert_allclose(jax.vmap(counted_power)(ns, ss), [1.0, 0.125, 3.0])


def test_vmap_of_vmap_of_a_while_with_batched_predicates():
    """The predicate batched by both vmaps (bool[2,3]), and batched only by the inner one:
    then the outer vmap puts the carry's new batch dimension after the predicate's."""
    ns = jnp.array([[0, 1, 2], [3, 2, 1]])
    ss = jnp.array([[2.0, 3.0, 0.5], [1.5, -1.0, 2.0]])
    expected = np.asarray(ss) ** np.asarray(ns)
    both = jax.vmap(jax.vmap(counted_power))
    np.testing.assert_allclose(both(ns, ss), expected)
    np.testing.assert_allclose(jax.jit(both)(ns, ss), expected)
    inner_only = jax.vmap(jax.vmap(counted_power, in_axes=(0, None)), in_axes=(None, 0))
    expected = np.asarray(ss[:, 0])[:, None] ** np.asarray(ns[0])[None, :]
    np.testing.assert_allclose(inner_only(ns[0], ss[:, 0]), expected)
    np.testing.assert_allclose(jax.jit(inner_only)(ns[0], ss[:, 0]), expected)


def test_jvp_and_vmap_of_a_while_with_batched_predicate_commute():
    ns, ss, ts = jnp.array([0, 3, 1]), jnp.array([2.0, 0.5, 3.0]), jnp.array([1.0, 2.0, 1.0])
    expected = (np.asarray(ss) ** np.asarray(ns),
                np.asarray(ns) * np.asarray(ss) ** (np.asarray(ns) - 1) * np.asarray(ts))
    jvp = lambda n, s, t: jax.jvp(lambda u: counted_power(n, u), (s,), (t,))  # noqa: E731
    assert_trees_close(jax.vmap(jvp)(ns, ss, ts), expected, rtol=1e-6)
    vmapped = lambda s, t: jax.jvp(lambda u: jax.vmap(counted_power)(ns, u), (s,), (t,))  # noqa: E731,E501
    assert_trees_close(vmapped(ss, ts), expected, rtol=1e-6)
    assert_trees_close(jax.jit(vmapped)(ss, ts), expected, rtol=1e-6)


def test_vmap_while_with_batched_carry_only_and_nested_vmap():
    f = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2 + x, x)  # noqa: E731
    xs = jnp.arange(1.0, 7.0).reshape(2, 3)
    expected = np.stack([stack_loop(f, row) for row in xs])
    np.testing.assert_allclose(jax.vmap(jax.vmap(f))(xs), expected)
    g = lambda n: lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0) * n  # noqa: E731
    np.testing.assert_array_equal(jax.vmap(g)(jnp.arange(3)), [0, 3, 6])


@FEW
@given(vectors, st.booleans())
def test_vmap_scan_matches_loop(x, reverse):
    xs = jnp.stack([x, -x, x * 2])
    f = lambda v: scan_program(v, reverse)  # noqa: E731
    np.testing.assert_allclose(jax.vmap(f)(xs), stack_loop(f, xs), rtol=1e-5, atol=1e-5)


def test_vmap_scan_over_each_kind_of_operand():
    body = lambda c, a: (c * a + W.sum(), c)  # noqa: E731
    xs = jnp.arange(6.0).reshape(2, 3)
    # batched xs (along axis 1 of the batch, too), unbatched carry that becomes batched
    f = lambda x: lax.scan(body, 0.5, x)  # noqa: E731
    assert_trees_close(jax.vmap(f)(xs), stack_loop(f, xs))
    assert_trees_close(jax.vmap(f, in_axes=1)(xs.T), stack_loop(f, xs))
    # batched carry only
    g = lambda c: lax.scan(body, c, jnp.arange(3.0))  # noqa: E731
    assert_trees_close(jax.vmap(g)(jnp.arange(2.0)), stack_loop(g, jnp.arange(2.0)))
    # batched constant only
    h = lambda k: lax.scan(lambda c, a: (c + a * k, c * k), 1.0, jnp.arange(3.0))  # noqa: E731
    assert_trees_close(jax.vmap(h)(jnp.arange(2.0)), stack_loop(h, jnp.arange(2.0)))


@pytest.mark.parametrize("static", [True, False])
def test_vmap_fori_loop(static):
    def f(n, a):
        upper = 3 if static else n
        return lax.fori_loop(0, upper, lambda i, c: c * a + i, 1.0)
    ns, scales = jnp.array([1, 3, 2]), jnp.array([1.0, 2.0, 0.5])
    np.testing.assert_allclose(jax.vmap(f)(ns, scales), stack_loop(f, ns, scales))
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(ns, scales), stack_loop(f, ns, scales))


# ------------------------------------------------------------------ compositions
COMPOSED = [("cond", cond_program, [[0.3, -0.2, 0.7], [-0.3, -0.2, 0.1], [1.0, 2.0, -0.5]]),
            ("scan", scan_program, [[0.3, -0.4, 0.9], [0.1, 0.2, 0.3]]),
            ("fori", fori_program, [[0.3, 0.8, -0.5], [0.2, -0.1, 0.4]]),
            ("nested", nested_program, [[0.3, 0.5, 0.9], [-0.2, 0.1, 0.4]])]


@pytest.mark.parametrize("name, f, points", COMPOSED, ids=[c[0] for c in COMPOSED])
def test_vmap_of_grad_and_grad_of_vmap(name, f, points):
    xs = jnp.asarray(np.array(points, np.float32))
    expected = stack_loop(jax.grad(f), xs)
    for transformed in (jax.vmap(jax.grad(f)), jax.jit(jax.vmap(jax.grad(f))),
                        jax.vmap(jax.jit(jax.grad(f))),
                        jax.grad(lambda b: jax.vmap(f)(b).sum()),
                        jax.jit(jax.grad(lambda b: jax.vmap(f)(b).sum()))):
        np.testing.assert_allclose(transformed(xs), expected, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name, f, points", COMPOSED, ids=[c[0] for c in COMPOSED])
def test_jit_of_each_transformation(name, f, points):
    x = jnp.asarray(np.array(points[0], np.float32))
    t = jnp.ones(3)
    np.testing.assert_allclose(jax.jit(f)(x), f(x), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.jit(f))(x), jax.grad(f)(x), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda x: jax.jvp(f, (x,), (t,))[1])(x),
                               jax.jvp(f, (x,), (t,))[1], rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(f, (x,), (t,))[1], jnp.vdot(jax.grad(f)(x), t),
                               rtol=1e-5)


def test_vmap_of_jvp_of_while_and_jvp_of_vmap_of_while():
    f = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2 + x, x)  # noqa: E731
    xs = jnp.arange(1.0, 5.0)
    tangents = jax.vmap(lambda x: jax.jvp(f, (x,), (1.0,))[1])(xs)
    np.testing.assert_allclose(tangents, [15.0, 7.0, 7.0, 3.0])  # recorded from JAX
    np.testing.assert_allclose(jax.jvp(jax.vmap(f), (xs,), (jnp.ones(4),))[1], tangents)


def test_grad_through_vmapped_cond_does_not_see_the_branch_not_taken():
    """log(x) at x <= 0 is NaN, but its example takes the other branch: the select that
    vmap makes must not let the NaN into the gradient (hence the stop_gradient)."""
    f = lambda x: lax.cond(x > 1.0, jnp.log, lambda v: v * 3, x)  # noqa: E731
    g = jax.grad(lambda xs: jax.vmap(f)(xs).sum())(jnp.arange(4.0))
    np.testing.assert_allclose(g, [3.0, 3.0, 0.5, 1 / 3], rtol=1e-6)


# ------------------------------------------------------------------ jaxprs recorded from JAX
def hoisted_scan(x, t, w):
    def body(c, a):
        return c * jnp.sin(t) + jnp.where(c > 0, jnp.cos(w), w * 2.0) + t * w, c
    return lax.scan(body, x, None, length=3)[0]


def where_scan(x, w):
    def body(c, a):
        c = jnp.where(a > 0, c * jnp.sin(w), c + a) + jnp.cos(w) * 2.0
        return c, jnp.minimum(c, w)
    return lax.scan(body, x, jnp.arange(3.0) - 1.0)


# (name, function, arguments, what real JAX 0.10.2 printed for make_jaxpr(function)(*args)).
JAXPR_CASES = [
    ("vmap_cond_batched_predicate",
     jax.vmap(lambda x: lax.cond(x > 0, lambda v: jnp.sin(v), lambda v: v ** 2, x)),
     (jnp.arange(3.0),),
     """\
{ lambda ; a:f32[3]. let
    b:bool[3] = gt a 0.0:f32[]
    c:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:bool[3] = eq c 0:i32[]
    e:f32[3] = stop_gradient a
    f:f32[3] = select_n d e a
    g:f32[3] = integer_pow[y=2] f
    h:bool[3] = eq c 1:i32[]
    i:f32[3] = stop_gradient a
    j:f32[3] = select_n h i a
    k:f32[3] = sin j
    l:f32[3] = select_n c g k
  in (l,) }"""),
    ("vmap_cond_unbatched_predicate",
     jax.vmap(lambda p, y: lax.cond(p > 0, lambda v: v * y, lambda v: v + 1.0, p),
              in_axes=(None, 0)),
     (1.0, jnp.arange(3.0)),
     """\
{ lambda ; a:f32[] b:f32[3]. let
    c:bool[] = gt a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[3] = cond[
      branches=(
        { lambda ; f:f32[3] g:f32[]. let
            h:f32[] = add g 1.0:f32[]
            i:f32[3] = broadcast_in_dim h
          in (i,) }
        { lambda ; j:f32[3] k:f32[]. let
            l:f32[] = convert_element_type[new_dtype=float32 weak_type=False] k
            m:f32[3] = mul l j
          in (m,) }
      )
    ] d b a
  in (e,) }"""),
    ("jvp_scan",
     lambda x: jax.jvp(lambda x: lax.scan(lambda c, a: (c * a + x, jnp.sin(c)), 1.0,
                                          jnp.arange(3.0)), (x,), (1.0,)),
     (2.0,),
     """\
let jaxpr = { lambda ; a:f32[] b:f32[] c:f32[] d:f32[] e:f32[]. let
    f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
    h:f32[] = mul f e
    i:f32[] = mul g e
    j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    l:f32[] = add h j
    m:f32[] = add i k
    n:f32[] = sin c
    o:f32[] = cos c
    p:f32[] = mul d o
  in (l, m, n, p) } in
{ lambda ; q:f32[]. let
    r:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None]\x20
    s:f32[] t:f32[] u:f32[3] v:f32[3] = scan[
      jaxpr=jaxpr
      length=3
      num_carry=2
      num_consts=2
      reverse=False
      unroll=1
    ] q 1.0:f32[] 1.0:f32[] 0.0:f32[] r
  in (s, u, t, v) }"""),
    ("vmap_scan",
     jax.vmap(lambda x: lax.scan(lambda c, a: (c + a * x, c * 2), x, jnp.arange(3.0))),
     (jnp.arange(2.0),),
     """\
{ lambda ; a:f32[2]. let
    b:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None]\x20
    c:f32[2] d:f32[3,2] = scan[
      jaxpr={ lambda ; e:f32[2] f:f32[2] g:f32[]. let
          h:f32[2] = mul g e
          i:f32[2] = add f h
          j:f32[2] = mul f 2.0:f32[]
        in (i, j) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a a b
    k:f32[2,3] = transpose[permutation=(1, 0)] d
  in (c, k) }"""),
    ("jvp_while",
     lambda x: jax.jvp(lambda x: lax.while_loop(lambda c: c[0] < 3,
                                                lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1],
                       (x,), (1.0,)),
     (2.0,),
     """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:f32[] e:f32[] f:i32[] g:f32[] h:f32[]. let
          i:i32[] = add f 1:i32[]
          j:f32[] = mul g d
          k:f32[] = mul h d
          l:f32[] = mul g e
          m:f32[] = add_any k l
        in (i, j, m) }
      body_nconsts=2
      cond_jaxpr={ lambda ; n:i32[] o:f32[] p:f32[]. let
          q:bool[] = lt n 3:i32[]
        in (q,) }
      cond_nconsts=0
    ] a 1.0:f32[] 0:i32[] 1.0:f32[] 0.0:f32[]
  in (b, c) }"""),
    # vmap of a while whose predicate is batched: JAX 0.10's cond_jaxpr returns bool[3]
    ("vmap_while_batched_predicate", jax.vmap(counted_power),
     (jnp.array([0, 3, 1]), jnp.array([2.0, 0.5, 3.0])),
     """\
{ lambda ; a:i32[3] b:f32[3]. let
    c:i32[3] = broadcast_in_dim 0:i32[]
    d:f32[3] = broadcast_in_dim 1.0:f32[]
    _:i32[3] e:f32[3] = while[
      body_jaxpr={ lambda ; f:f32[3] g:i32[3] h:f32[3]. let
          i:i32[3] = add g 1:i32[]
          j:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] h
          k:f32[3] = mul j f
        in (i, k) }
      body_nconsts=1
      cond_jaxpr={ lambda ; l:i32[3] m:i32[3] n:f32[3]. let
          o:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] m
          p:bool[3] = lt o l
        in (p,) }
      cond_nconsts=1
    ] a b c d
  in (e,) }"""),
    # grad of a scan whose loop-invariant work is hoisted: the scan's constants come in the
    # order of JAX's graph of tracers (d f e g), and the jit split inside the body takes its
    # residuals last (JAX's JaxprTrace, _pjit_partial_eval)
    ("grad_scan_hoisted_consts", jax.grad(hoisted_scan), (1.0, 0.3, 0.7),
     """\
{ lambda ; a:f32[] b:f32[] c:f32[]. let
    d:f32[] = sin b
    e:f32[] = cos c
    f:f32[] = mul c 2.0:f32[]
    jit[name=_where jaxpr={ lambda ; e:f32[] f:f32[]. let  in () }] e f
    g:f32[] = mul b c
    _:f32[] _:f32[3] = scan[
      jaxpr={ lambda ; h:f32[] i:f32[] j:f32[] k:f32[] l:f32[]. let
          m:f32[] = mul l h
          n:bool[] = gt l 0.0:f32[]
          o:f32[] = jit[
            name=_where
            jaxpr={ lambda ; n:bool[] i:f32[] j:f32[]. let
                o:f32[] = select_n n i j
              in (o,) }
          ] n i j
          p:f32[] = add m o
          q:f32[] = add p k
        in (q, l) }
      length=3
      num_carry=1
      num_consts=4
      reverse=False
      unroll=1
    ] d f e g a
    r:f32[] = scan[
      jaxpr={ lambda ; s:f32[] t:f32[]. let u:f32[] = mul t s in (u,) }
      length=3
      num_carry=1
      num_consts=1
      reverse=True
      unroll=1
    ] d 1.0:f32[]
  in (r,) }"""),
    # linearize of a scan: its body is split by JAX's LinearizeTrace, whose jits take their
    # residuals first (_pjit_linearize)
    ("linearize_scan_with_jit", jax.linearize(where_scan, 1.0, 0.5)[1], (1.0, 1.0),
     """\
let jaxpr = { lambda ; a:f32[] b:f32[] c:f32[] d:f32[] e:f32[] f:f32[] g:bool[] h:f32[]
    i:f32[]. let
    j:f32[] = mul d a
    k:f32[] = mul e b
    l:f32[] = mul f j
    m:f32[] = add_any k l
    n:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
    o:f32[] = jit[
      name=_where
      jaxpr={ lambda ; g:bool[] m:f32[] n:f32[]. let
          p:f32[] = convert_element_type[new_dtype=float32 weak_type=False] m
          o:f32[] = select_n g n p
        in (o,) }
    ] g m n
    q:f32[] = mul d c
    r:f32[] = neg q
    s:f32[] = mul r 2.0:f32[]
    t:f32[] = convert_element_type[new_dtype=float32 weak_type=False] s
    u:f32[] = add o t
    v:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
    w:f32[] = mul u h
    x:f32[] = mul v i
    y:f32[] = add_any w x
  in (u, y) } in
{ lambda z:f32[] ba:f32[] bb:f32[] bc:f32[3] bd:bool[3] be:f32[3] bf:f32[3]; bg:f32[]
    bh:f32[]. let
    bi:f32[] bj:f32[3] = scan[
      jaxpr=jaxpr
      length=3
      num_carry=1
      num_consts=4
      reverse=False
      unroll=1
    ] z ba bb bh bg bc bd be bf
  in (bi, bj) }"""),
]


@pytest.mark.parametrize("name, fun, args, expected", JAXPR_CASES,
                         ids=[c[0] for c in JAXPR_CASES])
def test_jaxpr_text_matches_jax(name, fun, args, expected):
    assert str(jax.make_jaxpr(fun)(*args)) == expected


def primitives(jaxpr):
    """The primitive names of a jaxpr's equations, sub-jaxprs as nested lists; the
    ``convert_element_type`` equations are left out (they differ with weak types)."""
    names = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "convert_element_type":
            continue
        names.append(eqn.primitive.name)
        for value in eqn.params.values():
            subs = value if isinstance(value, tuple) else (value,)
            inner = [primitives(sub.jaxpr) for sub in subs if hasattr(sub, "consts")]
            if inner:
                names.append(inner)
    return names


def test_grad_of_cond_has_jaxs_two_conds():
    """JAX prints (its ``empty`` equations are dead code that fills unused residual slots):

        _:f32[] d:f32[] = cond[branches=(
            { lambda ; e. let f = integer_pow[y=2] e; g = mul 2.0 e; h = empty2[...] in (f, g) }
            { lambda ; i. let j = sin i; k = cos i; l = empty2[...] in (j, k) })] c a
        m:f32[] = cond[branches=(
            { lambda ; n o. let p = mul o n in (p,) }
            { lambda ; q r. let s = mul r q in (s,) })] c d 1.0
    """
    f = lambda x: lax.cond(x > 0, lambda v: jnp.sin(v), lambda v: v ** 2, x)  # noqa: E731
    jaxpr = jax.make_jaxpr(jax.grad(f))(1.5)
    assert primitives(jaxpr.jaxpr) == ["gt", "cond", [["integer_pow", "mul"], ["sin", "cos"]],
                                       "cond", [["mul"], ["mul"]]]
    known, linear = [e for e in jaxpr.eqns if e.primitive.name == "cond"]
    assert len(known.outvars) == 2 and len(linear.invars) == 3  # index, residual, cotangent
    assert linear.invars[1] is known.outvars[1]


def test_grad_of_scan_hoists_loop_invariant_residuals_like_jax():
    """sin(w) and cos(w) do not change from one iteration to the next: JAX (and edujax)
    compute them once, before the loops, and pass them in as constants:

        c = sin a; d = cos a
        _ e = scan[jaxpr={ f g h. i = mul f g; k = add i h in (k, g) } num_consts=1] c 1.0 b
        l _ = scan[jaxpr={ m n o p q. s = mul n p; t = mul p q; u = mul t m; v = add_any o u
                           in (v, s) } num_consts=2 num_carry=2 reverse=True] d c 0.0 1.0 e
    """
    f = lambda w: lax.scan(lambda c, a: (jnp.sin(w) * c + a, None), 1.0, jnp.arange(3.0))[0]  # noqa: E731,E501
    jaxpr = jax.make_jaxpr(jax.grad(f))(0.5)
    assert primitives(jaxpr.jaxpr) == ["iota", "sin", "cos", "scan", [["mul", "add"]],
                                       "scan", [["mul", "mul", "mul", "add_any"]]]
    forward, backward = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert (forward.params["reverse"], backward.params["reverse"]) == (False, True)
    assert backward.params["num_consts"] == 2 and backward.params["num_carry"] == 2
    np.testing.assert_allclose(jax.grad(f)(0.5), jax.grad(jax.jit(f))(0.5), rtol=1e-6)


def test_grad_of_fori_loop_values_and_structure():
    """JAX's transposed body sums the constant's cotangent as soon as it is computed
    (``add_any`` before the carry's ``mul``); edujax's after the body's backward pass:
    the same equations in another order. The values agree."""
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * x + i, 1.0)  # noqa: E731
    jaxpr = jax.make_jaxpr(jax.grad(f))(2.0)
    assert [e.primitive.name for e in jaxpr.eqns if e.primitive.name != "convert_element_type"
            ] == ["scan", "scan"]
    backward = jaxpr.eqns[1]
    assert sorted(e.primitive.name for e in backward.params["jaxpr"].eqns) == [
        "add_any", "mul", "mul"]
    assert float(jax.grad(f)(2.0)) == 13.0
