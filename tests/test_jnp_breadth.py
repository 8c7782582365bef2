"""The jax.numpy functions added for issue 17's breadth: recorded from JAX, and laws.

* Programs recorded from real JAX 0.10.2 (tests/data/jnp_breadth_cases.py ->
  jnp_breadth_recorded.json): values, dtypes, weak types, errors, a grad and a vmap of the
  differentiable functions.
* Properties: derivatives against finite differences in float64, vmap against a Python
  loop, jit against eager evaluation.
"""
from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recorded import check, load
from x64_mode import x64

import edujax as jax
import edujax.numpy as jnp
from edujax.test_util import check_grads

CASES = load("jnp_breadth_recorded.json")

# Known differences from JAX, each a strict xfail (it fails the suite once it is fixed).
KNOWN_DIFFERENCES: dict[str, str] = {}


def _cases():
    for case in CASES:
        reason = KNOWN_DIFFERENCES.get(case["name"])
        marks = pytest.mark.xfail(reason=reason, strict=True) if reason else ()
        yield pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", list(_cases()))
def test_matches_recorded_jax(case):
    check(case, type_only=case["name"].endswith("_jit_error"))


# ---------------------------------------------------------------- laws
# Each function takes one float array of shape (5,) (the ``2d`` ones a (3, 4) array) and is
# smooth near the inputs drawn below: their values lie within 0.1 of a grid with step 0.4
# (..., -0.2, 0.2, 0.6, ...), so sorts, medians and bins do not switch order within a
# finite-difference step, and the thresholds below (0, 0.4, 1, 1.4) are never crossed.
C = np.array([0.5, -1.0, 2.0])
SMOOTH_1D = {
    "sinc": jnp.sinc,
    "logaddexp2": lambda x: jnp.logaddexp2(x, 0.5 * x + 0.3),
    "fmax": lambda x: jnp.fmax(x, x[::-1] + 0.1),
    "nan_to_num": lambda x: jnp.nan_to_num(x * x),
    "nansum": lambda x: jnp.nansum(jnp.where(x > 0.4, jnp.nan, x * x)),
    "nanmean": lambda x: jnp.nanmean(jnp.where(x > 0.4, jnp.nan, x ** 3)),
    "nanvar": lambda x: jnp.nanvar(x),
    "nanstd": lambda x: jnp.nanstd(x, ddof=1),
    "nanmax": jnp.nanmax,
    "nancumprod": jnp.nancumprod,
    "diff": lambda x: jnp.diff(x, n=2, prepend=1.0),
    "ediff1d": lambda x: jnp.ediff1d(x, to_begin=x[:1]),
    "gradient": lambda x: jnp.gradient(x * x, jnp.cumsum(jnp.arange(1.0, 6.0))),
    "trapezoid": lambda x: jnp.trapezoid(x ** 2, x=jnp.arange(5.0) ** 2),
    "pad_reflect": lambda x: jnp.pad(x, (3, 7), mode="reflect") * jnp.arange(15.0),
    "pad_symmetric_odd": lambda x: jnp.pad(x, 4, mode="symmetric", reflect_type="odd"),
    "pad_linear_ramp": lambda x: jnp.pad(x, 2, mode="linear_ramp", end_values=(1.0, -2.0)),
    "pad_mean": lambda x: jnp.pad(x, 2, mode="mean", stat_length=3),
    "median": jnp.median,
    "quantile": lambda x: jnp.quantile(x, jnp.array([0.1, 0.35, 0.9])),
    "nanpercentile": lambda x: jnp.nanpercentile(x.at[1].set(jnp.nan), 40.0),
    "take": lambda x: jnp.take(x, jnp.array([4, 0, 0, 9]), fill_value=0.0),
    "take_along_axis": lambda x: jnp.take_along_axis(x, jnp.argsort(x), axis=0),
    "insert": lambda x: jnp.insert(x, jnp.array([1, 3]), x[:2] ** 2),
    "delete": lambda x: jnp.delete(x, jnp.array([0, 3])) ** 2,
    "select": lambda x: jnp.select([x < 0, x > 1], [x ** 2, jnp.sin(x)], default=x),
    "piecewise": lambda x: jnp.piecewise(x, [x < 0], [lambda v: v ** 3, jnp.exp]),
    "convolve": lambda x: jnp.convolve(x, x[:3] * 2.0, mode="same"),
    "correlate": lambda x: jnp.correlate(x[:2], x, mode="full"),
    "interp": lambda x: jnp.interp(x, jnp.array([-3.0, 0.0, 1.0, 4.0]),
                                   jnp.array([1.0, 2.0, -1.0, 0.5])),
    "interp_fp": lambda x: jnp.interp(jnp.array([0.2, 1.7]), jnp.arange(5.0), x),
    "polyval": lambda x: jnp.polyval(x, C),
    "polymul": lambda x: jnp.polymul(x, x[::-1]),
    "polyint": lambda x: jnp.polyint(x, m=2, k=x[:2]),
    "polyder": lambda x: jnp.polyder(x * x, m=2),
    "partition": lambda x: jnp.partition(x, 2),
    "cross": lambda x: jnp.cross(x[:3], x[2:]),
    "unwrap": lambda x: jnp.unwrap(x * 3.0),
    "apply_along_axis": lambda x: jnp.apply_along_axis(jnp.cumsum, 0, x),
    "vectorize": lambda x: jnp.vectorize(lambda v, w: jnp.sin(v) * w, excluded={1})(x, 2.0),
    "bincount_weights": lambda x: jnp.bincount(jnp.array([0, 2, 2, 1, 0]), x * x, length=4),
    "histogram_weights": lambda x: jnp.histogram(jnp.arange(5.0), bins=3, weights=x)[0],
    "put": lambda x: jnp.put(x, jnp.array([1, 3]), x[:2] * 3.0, inplace=False),
    "ufunc_reduce": lambda x: jnp.frompyfunc(lambda a, b: a * b + a, 2, 1).reduce(x),
    "einsum_sublist": lambda x: jnp.einsum(x, [0], x, [1], [1, 0]),
    "i0_series": lambda x: jnp.i0(x * 12.0),
    "i0_asymptotic": lambda x: jnp.i0(x * 2.0 + 25.0),
}
SMOOTH_2D = {
    "nanmin_axis": lambda m: jnp.nanmin(jnp.where(m > 1.4, jnp.nan, m), axis=0),
    "pad_wrap_2d": lambda m: jnp.pad(m, ((1, 2), (5, 0)), mode="wrap") ** 2,
    "pad_edge_2d": lambda m: jnp.pad(m, 1, mode="edge") * 2.0,
    "gradient_2d": lambda m: jnp.stack(jnp.gradient(m ** 2, 0.5)),
    "median_axis": lambda m: jnp.median(m, axis=1),
    "nanquantile_axes": lambda m: jnp.nanquantile(m, 0.3, axis=(0, 1), keepdims=True),
    "cov": jnp.cov,
    "corrcoef": jnp.corrcoef,
    "diff_axis0": lambda m: jnp.diff(m, axis=0, append=m[:1]),
    "matvec": lambda m: jnp.matvec(m, m[0]),
    "fill_diagonal": lambda m: jnp.fill_diagonal(m, m[0, :3] ** 2, inplace=False),
    "block": lambda m: jnp.block([[m, m[:, :1]], [m[:1] * 2, m[:1, :1]]]),
    "take_along_axis_1": lambda m: jnp.take_along_axis(m, jnp.array([[3, 0], [1, 1], [0, 2]]), 1),
}
ALL = {**{f"1d/{k}": (v, (5,)) for k, v in SMOOTH_1D.items()},
       **{f"2d/{k}": (v, (3, 4)) for k, v in SMOOTH_2D.items()}}


@st.composite
def spread_arrays(draw, shape):
    """Distinct values at least 0.15 apart (a shuffled grid plus a little noise)."""
    n = int(np.prod(shape))
    order = draw(st.permutations(range(n)))
    noise = draw(hnp.arrays(np.float64, n, elements=st.floats(-0.1, 0.1)))
    return ((np.asarray(order) - n / 2) * 0.4 + noise).reshape(shape)


@pytest.mark.parametrize("name", sorted(ALL))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_grad_matches_finite_differences(name, data):
    fn, shape = ALL[name]
    x = data.draw(spread_arrays(shape))
    with x64():
        check_grads(fn, (jnp.asarray(x),), order=1, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


# functions whose outputs are integers or booleans: checked by vmap and jit only
NOT_DIFFERENTIABLE = {
    "nanargmax": lambda x: jnp.nanargmax(jnp.where(x > 0, jnp.nan, x)),
    "digitize": lambda x: jnp.digitize(x, jnp.array([-1.0, 0.0, 2.5])),
    "isin": lambda x: jnp.isin(jnp.round(x), jnp.array([0.0, 1.0, -2.0])),
    "argpartition": lambda x: jnp.argpartition(x, 1),
    "lexsort": lambda x: jnp.lexsort([x, jnp.round(x)]),
    "frexp": jnp.frexp,
    "bincount": lambda x: jnp.bincount(jnp.clip(x, 0, 3).astype(int), length=4),
    "histogram": lambda x: jnp.histogram(x, bins=4, range=(-2.0, 2.0))[0],
    "unravel_index": lambda x: jnp.unravel_index(jnp.abs(x).astype(int), (2, 3)),
}
BATCHED = {**{k: f for k, (f, s) in ALL.items() if s == (5,)},
           **{f"1d/{k}": f for k, f in NOT_DIFFERENTIABLE.items()}}


@pytest.mark.parametrize("name", sorted(BATCHED))
@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_vmap_matches_python_loop(name, data):
    fn = BATCHED[name]
    xs = np.stack([data.draw(spread_arrays((5,))) for _ in range(3)]).astype(np.float32)
    got = jax.vmap(fn)(jnp.asarray(xs))
    want = [fn(jnp.asarray(x)) for x in xs]
    for g, *w in zip(jax.tree_util.tree_leaves(got),
                     *[jax.tree_util.tree_leaves(v) for v in want]):
        np.testing.assert_allclose(np.asarray(g), np.stack([np.asarray(v) for v in w]),
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_jit_matches_eager(name):
    fn = BATCHED[name]
    x = jnp.asarray(np.random.default_rng(3).permutation(5) * 0.4 - 1.0, jnp.float32)
    for g, w in zip(jax.tree_util.tree_leaves(jax.jit(fn)(x)),
                    jax.tree_util.tree_leaves(fn(x))):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
