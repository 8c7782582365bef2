"""Issue 17's lax slice: convolutions, reduce_window, top_k, bits, reduce, scans, gather API.

* Programs recorded from real JAX 0.10.2 (tests/data/lax_breadth_cases.py ->
  lax_breadth_recorded.json): values, dtypes, jaxpr text, errors, gradients, vmap.
* Property tests: convolution against a direct NumPy loop, gradients against finite
  differences (float64), vmap against a Python loop, jit against eager.
"""
from __future__ import annotations

import pytest
from recorded import check, load

CASES = load("lax_breadth_recorded.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_recorded_jax(case):
    check(case)


# ---------------------------------------------------------------- convolution vs a direct loop
import hypothesis.extra.numpy as hnp  # noqa: E402
import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from x64_mode import x64  # noqa: E402

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax import lax  # noqa: E402
from edujax.test_util import check_grads  # noqa: E402

PROPS = settings(max_examples=15, deadline=None)


def naive_conv(x, w, strides, padding, lhs_dil, rhs_dil, groups):
    """The definition, one output element at a time: NCHW input, OIHW kernel."""
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    # dilate the input (zeros between elements), then pad (negative pads crop)
    xd = np.zeros((n, c, (h - 1) * lhs_dil[0] + 1, (wd - 1) * lhs_dil[1] + 1))
    xd[:, :, ::lhs_dil[0], ::lhs_dil[1]] = x
    (pt, pb), (pl, pr) = padding
    xp = np.pad(xd, ((0, 0), (0, 0), (max(pt, 0), max(pb, 0)), (max(pl, 0), max(pr, 0))))
    xp = xp[:, :, max(-pt, 0):xp.shape[2] - max(-pb, 0), max(-pl, 0):xp.shape[3] - max(-pr, 0)]
    ekh, ekw = (kh - 1) * rhs_dil[0] + 1, (kw - 1) * rhs_dil[1] + 1
    oh = max(0, (xp.shape[2] - ekh) // strides[0] + 1)
    ow = max(0, (xp.shape[3] - ekw) // strides[1] + 1)
    out = np.zeros((n, o, oh, ow))
    per_group = o // groups
    for b, f, y, z in np.ndindex(n, o, oh, ow):
        g = f // per_group
        for ci, a, d in np.ndindex(i, kh, kw):
            out[b, f, y, z] += (xp[b, g * i + ci, y * strides[0] + a * rhs_dil[0],
                                   z * strides[1] + d * rhs_dil[1]] * w[f, ci, a, d])
    return out


@st.composite
def conv_problems(draw):
    groups = draw(st.integers(1, 2))
    c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    shape_x = (draw(st.integers(1, 2)), c_in, draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    shape_w = (c_out, c_in // groups, draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    x = draw(hnp.arrays(np.float64, shape_x, elements=st.integers(-3, 3)))
    w = draw(hnp.arrays(np.float64, shape_w, elements=st.integers(-3, 3)))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(2))
    padding = tuple((draw(st.integers(-1, 2)), draw(st.integers(-1, 2))) for _ in range(2))
    lhs_dil = tuple(draw(st.integers(1, 2)) for _ in range(2))
    rhs_dil = tuple(draw(st.integers(1, 2)) for _ in range(2))
    return x, w, strides, padding, lhs_dil, rhs_dil, groups


def _conv_output_is_defined(x, w, padding, lhs_dil):
    padded = [(n - 1) * d + 1 + lo + hi for n, d, (lo, hi) in zip(x.shape[2:], lhs_dil, padding)]
    return min(padded) >= 0


@PROPS
@given(conv_problems())
def test_conv_matches_the_definition(problem):
    x, w, strides, padding, lhs_dil, rhs_dil, groups = problem
    if not _conv_output_is_defined(x, w, padding, lhs_dil):
        return
    got = lax.conv_general_dilated(x.astype(np.float32), w.astype(np.float32), strides,
                                   padding, lhs_dil, rhs_dil, feature_group_count=groups)
    np.testing.assert_allclose(np.asarray(got), naive_conv(x, w, strides, padding, lhs_dil,
                                                           rhs_dil, groups), atol=1e-4)


@PROPS
@given(conv_problems())
def test_conv_gradients_match_finite_differences(problem):
    """Both transposes (lhs and rhs), and their transposes (second order), in float64."""
    x, w, strides, padding, lhs_dil, rhs_dil, groups = problem
    if not _conv_output_is_defined(x, w, padding, lhs_dil):
        return
    with x64():
        f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
            x, w, strides, padding, lhs_dil, rhs_dil, feature_group_count=groups)
        check_grads(f, (x + 0.1, w - 0.2), order=2, modes=("fwd", "rev"))


def test_conv_batch_group_gradients_match_finite_differences():
    rng = np.random.RandomState(0)
    x, w = rng.randn(4, 2, 5, 4), rng.randn(6, 2, 2, 3)
    with x64():
        f = lambda x, w: lax.conv_general_dilated(  # noqa: E731
            x, w, (2, 1), ((1, 0), (0, 1)), (1, 2), (2, 1), batch_group_count=2)
        check_grads(f, (x, w), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("groups", [dict(), dict(feature_group_count=2),
                                    dict(batch_group_count=2)])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (2, 3)])
def test_conv_vmap_matches_a_python_loop(groups, in_axes):
    rng = np.random.RandomState(1)
    x = rng.randn(4, 4, 5, 5).astype(np.float32)
    w = rng.randn(4, 2 if groups.get("feature_group_count") else 4, 3, 2).astype(np.float32)
    xs, ws = np.stack([x, x * 2, -x], in_axes[0] or 0), np.stack([w, -w, w + 1], in_axes[1] or 0)
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 2), 'SAME', **groups)  # noqa: E731
    got = jax.vmap(f, in_axes=in_axes)(xs if in_axes[0] is not None else x,
                                       ws if in_axes[1] is not None else w)
    for k in range(3):
        xk = np.take(xs, k, in_axes[0]) if in_axes[0] is not None else x
        wk = np.take(ws, k, in_axes[1]) if in_axes[1] is not None else w
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(f(xk, wk)), rtol=1e-5,
                                   atol=1e-5)


def test_conv_and_pooling_jit_match_eager():
    rng = np.random.RandomState(2)
    x, w = rng.randn(2, 3, 6, 6).astype(np.float32), rng.randn(4, 3, 3, 3).astype(np.float32)

    def net(x, w):
        y = lax.conv_general_dilated(x, w, (1, 1), 'SAME')
        y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), 'VALID')
        return lax.reduce_window(y, 0., lax.add, (1, 1, 2, 2), (1, 1, 1, 1), 'SAME')

    np.testing.assert_allclose(np.asarray(jax.jit(net)(x, w)), np.asarray(net(x, w)),
                               rtol=1e-5)
    g = jax.jit(jax.grad(lambda x, w: net(x, w).sum(), (0, 1)))(x, w)
    h = jax.grad(lambda x, w: net(x, w).sum(), (0, 1))(x, w)
    for a, b in zip(g, h):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- reduce_window
@st.composite
def window_problems(draw):
    shape = (draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    # distinct values: max and min have no ties, so they are differentiable everywhere
    x = np.random.RandomState(draw(st.integers(0, 99))).permutation(
        shape[0] * shape[1]).reshape(shape) * 0.5 - 3.0
    window = tuple(draw(st.integers(1, 3)) for _ in range(2))
    strides = tuple(draw(st.integers(1, 2)) for _ in range(2))
    padding = tuple((draw(st.integers(0, 1)), draw(st.integers(0, 1))) for _ in range(2))
    base = tuple(draw(st.integers(1, 2)) for _ in range(2))
    win_dil = tuple(draw(st.integers(1, 2)) for _ in range(2))
    return x, window, strides, padding, base, win_dil


def _loop_reduce_window(x, fn, init, window, strides, padding, base, win_dil):
    """The definition: dilate, pad with init, reduce every window with a Python loop."""
    xd = np.full([(n - 1) * b + 1 for n, b in zip(x.shape, base)], init)
    xd[::base[0], ::base[1]] = x
    xp = np.pad(xd, padding, constant_values=init)
    ew = [(w - 1) * d + 1 for w, d in zip(window, win_dil)]
    out_shape = [max(0, (p - e) // s + 1) for p, e, s in zip(xp.shape, ew, strides)]
    out = np.full(out_shape, init)
    for i, j in np.ndindex(*out_shape):
        patch = xp[i * strides[0]:i * strides[0] + ew[0]:win_dil[0],
                   j * strides[1]:j * strides[1] + ew[1]:win_dil[1]]
        out[i, j] = fn.reduce(patch.ravel(), initial=init)
    return out


@PROPS
@given(window_problems())
def test_reduce_window_matches_the_definition(problem):
    x, *params = problem
    for fn, init, ufunc in ((lax.add, 0., np.add), (lax.max, -np.inf, np.maximum),
                            (lax.min, np.inf, np.minimum)):
        got = lax.reduce_window(x.astype(np.float32), init, fn, *params)
        np.testing.assert_allclose(np.asarray(got), _loop_reduce_window(x, ufunc, init, *params))


@PROPS
@given(window_problems())
def test_reduce_window_gradients_match_finite_differences(problem):
    x, window, strides, padding, base, win_dil = problem
    with x64():
        pool_sum = lambda x: lax.reduce_window(  # noqa: E731
            x, 0., lax.add, window, strides, padding, base, win_dil)
        check_grads(pool_sum, (x,), order=2, modes=("fwd", "rev"))
        pool_max = lambda x: lax.reduce_window(  # noqa: E731
            x, -np.inf, lax.max, window, strides, padding, base, win_dil)
        out = np.asarray(pool_max(x))
        if np.all(np.isfinite(out)):  # a window of padding only reduces to -inf
            check_grads(pool_max, (x,), order=1, modes=("fwd", "rev"), eps=1e-3)


# ---------------------------------------------------------------- top_k, scans, reduce
@PROPS
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 3), st.integers(1, 6)),
                  elements=st.floats(-10, 10, width=32)), st.data())
def test_top_k_agrees_with_a_sort(x, data):
    k = data.draw(st.integers(0, x.shape[1]))
    values, indices = lax.top_k(x, k)
    np.testing.assert_array_equal(np.asarray(values), -np.sort(-x, axis=1)[:, :k])
    np.testing.assert_array_equal(np.take_along_axis(x, np.asarray(indices), 1),
                                  np.asarray(values))


def test_top_k_gradient_and_vmap():
    x = np.random.RandomState(3).permutation(12).reshape(3, 4).astype(np.float64)
    with x64():
        check_grads(lambda x: lax.top_k(x, 2)[0], (x,), order=2, modes=("fwd", "rev"))
        check_grads(lambda x: lax.top_k(x, 2, axis=0)[0], (x,), order=1, modes=("rev",))
    got = jax.vmap(lambda v: lax.top_k(v, 2), in_axes=1)(x)
    for k in range(4):
        want = lax.top_k(x[:, k], 2)
        np.testing.assert_array_equal(np.asarray(got[0][k]), np.asarray(want[0]))
        np.testing.assert_array_equal(np.asarray(got[1][k]), np.asarray(want[1]))


@PROPS
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 9), st.integers(1, 3)),
                  elements=st.floats(-3, 3, width=32)), st.booleans())
def test_associative_scan_is_a_cumulative_sum(x, reverse):
    got = lax.associative_scan(lax.add, x, reverse=reverse)
    want = np.cumsum(x[::-1], 0)[::-1] if reverse else np.cumsum(x, 0)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_generic_reduce_folds_in_order_and_vmaps():
    m = np.arange(12.).reshape(3, 4)
    fold = lambda a, b: a * 0.5 + b  # noqa: E731 - not associative: the order shows
    want = np.zeros(4)
    for row in m:
        want = want * 0.5 + row
    np.testing.assert_allclose(np.asarray(lax.reduce(m, 0., fold, (0,))), want)
    got = jax.vmap(lambda v: lax.reduce(v, 0., fold, (0,)), in_axes=1)(m)
    np.testing.assert_allclose(np.asarray(got), want)


def test_bit_primitives_against_python_integers():
    xs = np.array([0, 1, 5, 255, 2 ** 31 - 1, -1, -2 ** 31, 12345], np.int32)
    u = xs.view(np.uint32).astype(object)
    np.testing.assert_array_equal(np.asarray(lax.clz(xs)), [32 - int(v).bit_length() for v in u])
    np.testing.assert_array_equal(np.asarray(lax.population_count(xs)),
                                  [bin(int(v)).count("1") for v in u])
    ys = xs[::-1].copy()
    want = [((int(a) * int(b)) >> 32) for a, b in zip(xs, ys)]
    np.testing.assert_array_equal(np.asarray(lax.mulhi(xs, ys)), np.array(want, np.int64))


def test_generic_reduce_gradients_match_finite_differences():
    """The JVP unrolls the fold (one jvp of the computation per element); reverse mode
    transposes that. Two operands reduced together, over two axes."""
    m = np.random.RandomState(4).randn(3, 2, 4)
    fold = lambda a, b: (a[0] * 0.5 + b[0] * b[1], a[1] + jnp.sin(b[1]))  # noqa: E731
    with x64():
        f = lambda x, y: lax.reduce((x, y), (0., 1.), fold, (0, 2))  # noqa: E731
        check_grads(f, (m, m + 1.0), order=2, modes=("fwd", "rev"))
    with pytest.raises(NotImplementedError, match="non-zero tangents for initial values"):
        jax.grad(lambda i: lax.reduce(m, i, lambda a, b: a * b + 1, (1,)).sum())(2.)


@PROPS
@given(st.data())
def test_conv_transpose_is_the_gradient_of_conv(data):
    """What conv_transpose is for: with the forward conv's padding (use_consistent_padding)
    and the kernel flipped and in/out swapped (transpose_kernel), it is conv's VJP in x."""
    draw = lambda s: data.draw(s)  # noqa: E731
    k, s = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    lo, hi = draw(st.integers(0, k - 1)), draw(st.integers(0, k - 1))
    steps = draw(st.integers(0, 3))
    n = k - lo - hi + steps * s  # so that the windows tile the padded input exactly
    if n < 1:
        return
    rng = np.random.RandomState(draw(st.integers(0, 99)))
    x = rng.randn(2, n, n, 3).astype(np.float32)
    w = rng.randn(k, k, 3, 2).astype(np.float32)
    dn = ('NHWC', 'HWIO', 'NHWC')
    pads = ((lo, hi), (lo, hi))
    y, pullback = jax.vjp(lambda x: lax.conv_general_dilated(x, w, (s, s), pads,
                                                             dimension_numbers=dn), x)
    ct = rng.randn(*y.shape).astype(np.float32)
    want, = pullback(ct)
    got = lax.conv_transpose(ct, w, (s, s), pads, dimension_numbers=dn, transpose_kernel=True,
                             use_consistent_padding=True)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


@PROPS
@given(window_problems())
def test_generic_reduce_window_jvp_matches_finite_differences(problem):
    """A computation lax has no primitive for (a product that is not a monoid's) goes
    through the generic reduce_window, whose JVP unrolls the fold over window positions."""
    x, window, strides, padding, base, win_dil = problem
    with x64():
        f = lambda x: lax.reduce_window(  # noqa: E731
            x, 1.5, lambda a, b: a * jnp.tanh(b) + 0.25, window, strides, padding, base, win_dil)
        check_grads(f, (x * 0.3,), order=1, modes=("fwd",))
