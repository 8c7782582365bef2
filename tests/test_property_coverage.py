"""Every differentiable public function, checked by two laws (issue 17).

* Derivatives against finite differences: ``check_grads`` in float64, forward and reverse
  mode, on a domain where the function is smooth (away from kinks, poles, ties and branch
  cuts); again on complex128 inputs where JAX differentiates complex inputs too.
* Batching against a Python loop: ``vmap(f, in_axes)`` over a batch equals stacking
  ``f`` of each example, with random ``in_axes`` (a batch axis anywhere, or None for an
  operand shared by the whole batch).

The meta test at the end lists every public function of edujax.numpy (with linalg and
fft), lax, scipy.special, scipy.stats, scipy.linalg and nn, and fails when one is neither
in SPECS nor in EXCLUDED with its reason. So a new function cannot slip in untested.

Some of these functions have property tests elsewhere too (tests/jnp_functions.py's
tables, the laws of test_jnp_breadth.py, test_scipy_nn_random.py, test_linalg.py...);
those were written for their own modules, with their own domains, and covered about a
hundred functions. Here every function gets both laws from one table, so that the table
is the single place to look (a few extra milliseconds per function).

A spec whose check fails because of a known bug carries the reason as a strict xfail
(``xfail``, ``vmap_xfail``, ``complex_xfail``): once the bug is fixed, the xfail fails
and must be removed.
"""
from __future__ import annotations

import importlib.util
import pathlib
from typing import Any, Callable, NamedTuple

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from x64_mode import x64

import edujax as jax
import edujax.numpy as jnp
import edujax.scipy.linalg as sla
import edujax.scipy.special as special
import edujax.scipy.stats as stats
from edujax import lax
from edujax import nn
from edujax.test_util import check_grads


# ---------------------------------------------------------------- domains
class Dom(NamedTuple):
    """Where to draw one argument: a shape and a kind of values.

    box: uniform in [lo, hi]; away: |x| in [lo, hi] with either sign (away from a kink
    at 0); spread: distinct values on a grid of step 0.4 (+-0.1), so sorts, maxima and
    medians do not switch within a finite-difference step; spd: symmetric positive
    definite; well: a well-conditioned square matrix (n I + a small one); simplex:
    positive values that sum to one along the last axis.
    """
    kind: str
    shape: tuple[int, ...]
    lo: float = -2.0
    hi: float = 2.0


def box(*shape: int, lo: float = -2.0, hi: float = 2.0) -> Dom:
    return Dom("box", shape, lo, hi)


def away(*shape: int, lo: float = 0.3, hi: float = 2.0) -> Dom:
    return Dom("away", shape, lo, hi)


def spread(*shape: int) -> Dom:
    return Dom("spread", shape)


def pos(*shape: int, lo: float = 0.5, hi: float = 2.0) -> Dom:
    return Dom("box", shape, lo, hi)


def unit(*shape: int) -> Dom:
    return Dom("box", shape, 0.1, 0.9)


def spd(n: int) -> Dom:
    return Dom("spd", (n, n))


def well(n: int) -> Dom:
    return Dom("well", (n, n))


def simplex(*shape: int) -> Dom:
    return Dom("simplex", shape)


def draw(data: st.DataObject, dom: Dom) -> np.ndarray:
    if dom.kind == "box":
        return data.draw(hnp.arrays(np.float64, dom.shape, elements=st.floats(dom.lo, dom.hi)))
    if dom.kind == "away":
        size = data.draw(hnp.arrays(np.float64, dom.shape, elements=st.floats(dom.lo, dom.hi)))
        sign = data.draw(hnp.arrays(np.bool_, dom.shape))
        return np.where(sign, size, -size)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = int(np.prod(dom.shape))
    if dom.kind == "spread":
        grid = (rng.permutation(n) - n / 2) * 0.4 + rng.uniform(-0.1, 0.1, n)
        return grid.reshape(dom.shape)
    if dom.kind in ("spd", "well"):
        k = dom.shape[0]
        a = rng.uniform(-1, 1, dom.shape)
        return a @ a.T + k * np.eye(k) if dom.kind == "spd" else a + 2 * k * np.eye(k)
    if dom.kind == "simplex":
        p = rng.uniform(0.2, 1.0, dom.shape)
        return p / p.sum(-1, keepdims=True)
    raise ValueError(dom.kind)


# ---------------------------------------------------------------- specs
class Spec(NamedTuple):
    fn: Callable            # takes one array per domain; static arguments are closed over
    doms: tuple[Dom, ...]
    complex: bool = False   # also check complex128 inputs (JAX differentiates those too)
    modes: tuple[str, ...] = ("fwd", "rev")  # () where JAX has no derivative: vmap only
    vmap: bool = True
    tol: float | None = None  # check_grads' default (1e-5 in float64) unless set
    eps: float | None = None
    unbatched: tuple[int, ...] = ()  # arguments vmap may not batch (JAX refuses, too)
    examples: int = 4       # hypothesis examples per law (fewer for the slow functions)
    xfail: str = ""         # a known bug, as a strict xfail of the derivative check
    vmap_xfail: str = ""    # a known bug, as a strict xfail of the batching check
    complex_xfail: str = ""  # a known bug, as a strict xfail of the complex128 check


def S(fn: Callable, *doms: Dom, complex: bool = False, modes=("fwd", "rev"),
      vmap: bool = True, tol: float | None = None, eps: float | None = None,
      unbatched: tuple[int, ...] = (), examples: int = 4, xfail: str = "",
      vmap_xfail: str = "", complex_xfail: str = "") -> Spec:
    return Spec(fn, doms, complex, modes, vmap, tol, eps, unbatched, examples, xfail,
                vmap_xfail, complex_xfail)


NO_GRAD = ()  # modes for a function JAX does not differentiate (its error says so)


X = box(3)          # the default argument: three values in [-2, 2]
M = box(2, 3)
SQ = box(3, 3)
P = pos(3)
SPREAD = spread(5)


def unary(fn, lo=-2.0, hi=2.0, complex=False):
    return S(fn, box(3, lo=lo, hi=hi), complex=complex)


def binary(fn, second=X, complex=False):
    return S(fn, X, second, complex=complex)


C = True  # complex inputs allowed (checked in real JAX: its check_grads passes)

JNP_UFUNCS = {
    "abs": unary(jnp.abs, 0.5, 2, C), "absolute": unary(jnp.absolute, 0.5, 2, C),
    "acos": unary(jnp.acos, -0.8, 0.8, C), "arccos": unary(jnp.arccos, -0.8, 0.8, C),
    "acosh": unary(jnp.acosh, 1.5, 3), "arccosh": unary(jnp.arccosh, 1.5, 3),
    "asin": unary(jnp.asin, -0.8, 0.8, C), "arcsin": unary(jnp.arcsin, -0.8, 0.8, C),
    "asinh": unary(jnp.asinh, complex=C), "arcsinh": unary(jnp.arcsinh, complex=C),
    "atan": unary(jnp.atan, -1.5, 1.5, C), "arctan": unary(jnp.arctan, -1.5, 1.5, C),
    "atanh": unary(jnp.atanh, -0.8, 0.8, C), "arctanh": unary(jnp.arctanh, -0.8, 0.8, C),
    "angle": unary(jnp.angle, 0.5, 2, C), "cbrt": unary(jnp.cbrt, 0.5, 2),
    "conj": unary(jnp.conj, complex=C), "conjugate": unary(jnp.conjugate, complex=C),
    "cos": unary(jnp.cos, complex=C), "cosh": unary(jnp.cosh, complex=C),
    "deg2rad": unary(jnp.deg2rad, complex=C), "radians": unary(jnp.radians, complex=C),
    "degrees": unary(jnp.degrees, complex=C), "rad2deg": unary(jnp.rad2deg, complex=C),
    "exp": unary(jnp.exp, complex=C), "exp2": unary(jnp.exp2, complex=C),
    "expm1": unary(jnp.expm1, complex=C), "fabs": unary(jnp.fabs, 0.5, 2),
    "imag": unary(jnp.imag, complex=C), "real": unary(jnp.real, complex=C),
    "log": unary(jnp.log, 0.5, 3, C), "log10": unary(jnp.log10, 0.5, 3, C),
    "log1p": unary(jnp.log1p, -0.5, 2, C), "log2": unary(jnp.log2, 0.5, 3, C),
    "negative": unary(jnp.negative, complex=C), "positive": unary(jnp.positive, complex=C),
    "reciprocal": unary(jnp.reciprocal, 0.5, 2, C), "sin": unary(jnp.sin, complex=C),
    "sinc": S(jnp.sinc, away(3, lo=0.1), complex=C),  # (tiny x: 1 - x**2 cancels)
    "sinh": unary(jnp.sinh, complex=C),
    "sqrt": unary(jnp.sqrt, 0.5, 3, C), "square": unary(jnp.square, complex=C),
    "tan": unary(jnp.tan, -1, 1, C), "tanh": unary(jnp.tanh, complex=C),
    "i0": unary(jnp.i0, -3, 3),
    "modf": S(lambda x: jnp.modf(x)[0], box(3, lo=0.1, hi=0.9)),
    # (away from 0: JAX's ldexp passes x == 0 through a where, whose derivative is 1 there)
    "ldexp": S(lambda x: jnp.ldexp(x, jnp.array([1, -2, 3])), P),
    "add": binary(jnp.add, complex=C), "subtract": binary(jnp.subtract, complex=C),
    "multiply": binary(jnp.multiply, complex=C),
    "divide": binary(jnp.divide, away(3), C), "true_divide": binary(jnp.true_divide, away(3), C),
    "arctan2": S(jnp.arctan2, X, pos(3)), "atan2": S(jnp.atan2, X, pos(3)),
    "copysign": S(jnp.copysign, away(3), away(3)),
    "divmod": S(lambda x, y: jnp.divmod(x, y)[1], unit(3), pos(3, lo=1.2, hi=2.0)),
    "mod": S(jnp.mod, unit(3), pos(3, lo=1.2, hi=2.0)),
    "remainder": S(jnp.remainder, unit(3), pos(3, lo=1.2, hi=2.0)),
    "fmod": S(jnp.fmod, unit(3), pos(3, lo=1.2, hi=2.0)),
    "float_power": S(jnp.float_power, P, X, complex=C),
    "power": S(jnp.power, P, X, complex=C), "pow": S(jnp.pow, P, X, complex=C),
    "fmax": S(lambda x, d: jnp.fmax(x, x + d), X, away(3)),
    "fmin": S(lambda x, d: jnp.fmin(x, x + d), X, away(3)),
    "maximum": S(lambda x, d: jnp.maximum(x, x + d), X, away(3)),
    "minimum": S(lambda x, d: jnp.minimum(x, x + d), X, away(3)),
    "hypot": S(jnp.hypot, away(3), away(3)),
    "logaddexp": binary(jnp.logaddexp), "logaddexp2": binary(jnp.logaddexp2),
}

JNP_REDUCTIONS = {
    "amax": S(jnp.amax, SPREAD), "max": S(lambda x: jnp.max(x, axis=1), spread(2, 3)),
    "amin": S(jnp.amin, SPREAD), "min": S(lambda x: jnp.min(x, axis=0), spread(2, 3)),
    "ptp": S(lambda x: jnp.ptp(x, axis=1), spread(2, 3)),
    "average": S(lambda x, w: jnp.average(x, weights=w), X, P),
    "mean": S(lambda x: jnp.mean(x, axis=0), M, complex=C),
    "sum": S(lambda x: jnp.sum(x, axis=1), M, complex=C),
    "prod": S(lambda x: jnp.prod(x, axis=1), M, complex=C),
    "var": S(lambda x: jnp.var(x, axis=1, ddof=1), M), "std": S(jnp.std, spread(2, 3)),
    "cumsum": S(lambda x: jnp.cumsum(x, axis=1), M, complex=C),
    "cumprod": S(lambda x: jnp.cumprod(x, axis=1), M, complex=C),
    "cumulative_sum": S(lambda x: jnp.cumulative_sum(x, axis=0, include_initial=True), M),
    "cumulative_prod": S(lambda x: jnp.cumulative_prod(x, axis=1), M),
    "median": S(jnp.median, SPREAD),
    "percentile": S(lambda x: jnp.percentile(x, jnp.array([20.0, 65.0])), SPREAD),
    "quantile": S(lambda x: jnp.quantile(x, 0.3, method="midpoint"), SPREAD),
    "nancumprod": S(lambda x: jnp.nancumprod(x.at[1].set(jnp.nan)), X),
    "nancumsum": S(lambda x: jnp.nancumsum(x.at[1].set(jnp.nan)), X),
    "nanmax": S(lambda x: jnp.nanmax(x.at[1].set(jnp.nan)), SPREAD),
    "nanmin": S(lambda x: jnp.nanmin(x.at[1].set(jnp.nan)), SPREAD),
    "nanmean": S(lambda x: jnp.nanmean(x.at[0].set(jnp.nan)), X),
    "nanmedian": S(lambda x: jnp.nanmedian(x.at[2].set(jnp.nan)), SPREAD),
    "nanpercentile": S(lambda x: jnp.nanpercentile(x.at[2].set(jnp.nan), 30.0), SPREAD),
    "nanquantile": S(lambda x: jnp.nanquantile(x.at[0].set(jnp.nan), 0.6), SPREAD),
    "nanprod": S(lambda x: jnp.nanprod(x.at[1].set(jnp.nan)), X),
    "nansum": S(lambda x: jnp.nansum(x.at[1].set(jnp.nan)), X),
    "nanstd": S(lambda x: jnp.nanstd(x.at[1].set(jnp.nan)), spread(4)),
    "nanvar": S(lambda x: jnp.nanvar(x.at[1].set(jnp.nan)), box(4)),
    "trace": S(lambda x: jnp.trace(x, offset=1), M),
    "cov": S(jnp.cov, M), "corrcoef": S(jnp.corrcoef, spread(2, 3)),
    "diff": S(lambda x: jnp.diff(x, axis=0), M, complex=C),
    "ediff1d": S(jnp.ediff1d, X), "gradient": S(jnp.gradient, box(4)),
    "trapezoid": S(lambda y, x: jnp.trapezoid(y, x), box(4), box(4)),
    "unwrap": S(jnp.unwrap, box(4, lo=-1, hi=1)),
    "histogram_bin_edges": S(lambda x: jnp.histogram_bin_edges(x, bins=3), SPREAD),
    "histogram": S(lambda w: jnp.histogram(jnp.arange(4.0), bins=2, weights=w)[0], box(4)),
    "histogram2d": S(lambda w: jnp.histogram2d(jnp.arange(4.0), jnp.array([0., 2., 1., 3.]),
                                               bins=2, weights=w)[0], box(4)),
    "histogramdd": S(lambda w: jnp.histogramdd(jnp.arange(8.0).reshape(4, 2), bins=2,
                                               weights=w)[0], box(4)),
    "bincount": S(lambda w: jnp.bincount(jnp.array([0, 2, 2]), w, length=4), X),
}

I2 = jnp.array([2, 0, 1])
JNP_SHAPES = {
    "append": S(lambda x, y: jnp.append(x, y, axis=0), M, M),
    "array_split": S(lambda x: jnp.array_split(x, 2), box(5)),
    "split": S(lambda x: jnp.split(x, [1], axis=1), M),
    "hsplit": S(lambda x: jnp.hsplit(x, 3), M), "vsplit": S(lambda x: jnp.vsplit(x, 2), M),
    "dsplit": S(lambda x: jnp.dsplit(x, 2), box(1, 2, 4)),
    "atleast_1d": S(jnp.atleast_1d, box()), "atleast_2d": S(jnp.atleast_2d, X),
    "atleast_3d": S(jnp.atleast_3d, M),
    "block": S(lambda x, y: jnp.block([[x, y], [y, x]]), M, M),
    "broadcast_arrays": S(lambda x, y: jnp.broadcast_arrays(x, y), box(2, 1), X),
    "broadcast_to": S(lambda x: jnp.broadcast_to(x, (2, 3)), X),
    "choose": S(lambda a, b: jnp.choose(jnp.array([0, 1, 1]), [a, b]), X, X),
    "column_stack": S(lambda x, y: jnp.column_stack([x, y]), X, X),
    "compress": S(lambda x: jnp.compress(jnp.array([True, False, True]), x, axis=1), M),
    "extract": S(lambda x: jnp.extract(jnp.array([True, False, True]), x), X),
    "concat": S(lambda x, y: jnp.concat([x, y], axis=1), M, M),
    "concatenate": S(lambda x, y: jnp.concatenate([x, y]), M, M),
    "copy": S(jnp.copy, X), "array": S(jnp.array, X), "asarray": S(jnp.asarray, X),
    "astype": S(lambda x: jnp.astype(x, jnp.complex128), X),
    "delete": S(lambda x: jnp.delete(x, 1, axis=1), M),
    "insert": S(lambda x, v: jnp.insert(x, 1, v), X, box(2)),
    "diag": S(jnp.diag, SQ), "diagflat": S(jnp.diagflat, X),
    "diagonal": S(lambda x: jnp.diagonal(x, 1), SQ),
    "dstack": S(lambda x, y: jnp.dstack([x, y]), X, X),
    "hstack": S(lambda x, y: jnp.hstack([x, y]), X, X),
    "vstack": S(lambda x, y: jnp.vstack([x, y]), X, X),
    "stack": S(lambda x, y: jnp.stack([x, y], axis=1), M, M),
    "unstack": S(lambda x: jnp.unstack(x, axis=1), M),
    "expand_dims": S(lambda x: jnp.expand_dims(x, (0, 2)), M),
    "squeeze": S(lambda x: jnp.squeeze(x, 1), box(3, 1)),
    "fill_diagonal": S(lambda x, v: jnp.fill_diagonal(x, v, inplace=False), SQ, X),
    "flip": S(lambda x: jnp.flip(x, 1), M), "fliplr": S(jnp.fliplr, M),
    "flipud": S(jnp.flipud, M), "rot90": S(jnp.rot90, M),
    "matrix_transpose": S(jnp.matrix_transpose, M), "transpose": S(jnp.transpose, M),
    "permute_dims": S(lambda x: jnp.permute_dims(x, (1, 0)), M),
    "moveaxis": S(lambda x: jnp.moveaxis(x, 0, -1), box(2, 3, 1)),
    "rollaxis": S(lambda x: jnp.rollaxis(x, 2), box(2, 3, 1)),
    "swapaxes": S(lambda x: jnp.swapaxes(x, 0, 1), M),
    "place": S(lambda x, v: jnp.place(x, x > 100.0, v, inplace=False), X, box(2)),
    "put": S(lambda x, v: jnp.put(x, jnp.array([0, 2]), v, inplace=False), X, box(2)),
    "put_along_axis": S(lambda x, v: jnp.put_along_axis(x, jnp.array([[1], [0]]), v, 1,
                                                        inplace=False), M, box(2, 1)),
    "ravel": S(jnp.ravel, M), "reshape": S(lambda x: jnp.reshape(x, (3, 2)), M),
    "repeat": S(lambda x: jnp.repeat(x, 2, axis=1), M),
    "resize": S(lambda x: jnp.resize(x, (2, 4)), X),
    "roll": S(lambda x: jnp.roll(x, 1, axis=1), M),
    "select": S(lambda x, y: jnp.select([x > 0, x <= 0], [x * y, y]), away(3), X),
    "where": S(lambda x, y: jnp.where(x > 0, x * y, y), away(3), X),
    "take": S(lambda x: jnp.take(x, I2, axis=1), M),
    "take_along_axis": S(lambda x: jnp.take_along_axis(x, jnp.array([[2, 0], [1, 1]]), 1), M),
    "tile": S(lambda x: jnp.tile(x, (2, 1)), M),
    "tril": S(lambda x: jnp.tril(x, -1), SQ), "triu": S(jnp.triu, SQ),
    "pad": S(lambda x: jnp.pad(x, (1, 2), mode="reflect"), box(4)),
    "partition": S(lambda x: jnp.partition(x, 2), SPREAD),
    "sort": S(lambda x: jnp.sort(x, descending=True), SPREAD),
    "sort_complex": S(jnp.sort_complex, SPREAD),
    "clip": S(lambda x: jnp.clip(x, -2.5, 2.5), box(3, lo=-2.0, hi=2.0)),
    "meshgrid": S(lambda x, y: jnp.meshgrid(x, y), X, box(2)),
    "nan_to_num": S(lambda x: jnp.nan_to_num(x.at[1].set(jnp.nan), nan=2.0), X),
    "apply_along_axis": S(lambda x: jnp.apply_along_axis(jnp.cumprod, 1, x), M),
    "apply_over_axes": S(lambda x: jnp.apply_over_axes(jnp.sum, x, [0, 1]), M),
    "vectorize": S(jnp.vectorize(lambda a, b: jnp.sin(a) * b), X, X),
    "frompyfunc": S(lambda x: jnp.frompyfunc(lambda a, b: a * b + a, 2, 1).accumulate(x), X),
    "piecewise": S(lambda x: jnp.piecewise(x, [x < 0], [jnp.sin, jnp.cos]), away(3)),
    # the set operations with size=: they sort, mask and gather (no data-dependent shape),
    # so they trace under vmap, and the derivative flows through the gathers to the values
    **{name: S(fn, spread(4), box(2, lo=5, hi=6))
       for name, fn in {
        "intersect1d": lambda x, y: jnp.intersect1d(x, jnp.concatenate([y, x[:1]]), size=2),
        "unique": lambda x, y: jnp.unique(x, size=4),
        "unique_values": lambda x, y: jnp.unique_values(x, size=4),
        "unique_all": lambda x, y: jnp.unique_all(x, size=4).values,
        "unique_counts": lambda x, y: jnp.unique_counts(x, size=4).values,
        "unique_inverse": lambda x, y: jnp.unique_inverse(x, size=4).values,
        # (y + [0, 2]: two equal values of y are a point where the output has a kink)
        "union1d": lambda x, y: jnp.union1d(x, y + jnp.array([0.0, 2.0]), size=6),
        "setdiff1d": lambda x, y: jnp.setdiff1d(x, y, size=4),
        "setxor1d": lambda x, y: jnp.setxor1d(x, y + jnp.array([0.0, 2.0]), size=6),
    }.items()},
    # (the cut depends on the values: fine under grad, an error under vmap, as in JAX)
    "trim_zeros": S(lambda x: jnp.trim_zeros(x.at[0].set(0.0)), away(4), vmap=False),
}

JNP_PRODUCTS = {
    "convolve": S(lambda a, b: jnp.convolve(a, b), box(4), X, complex=C),
    "correlate": S(lambda a, b: jnp.correlate(a, b, mode="same"), box(4), X, complex=C),
    "cross": S(jnp.cross, X, X, complex=C), "dot": S(jnp.dot, M, X, complex=C),
    "einsum": S(lambda a, b: jnp.einsum("ij,j->i", a, b), M, X, complex=C),
    "inner": S(jnp.inner, M, X, complex=C), "kron": S(jnp.kron, box(2), X, complex=C),
    "matmul": S(jnp.matmul, M, box(3, 2), complex=C),
    "matvec": S(jnp.matvec, M, X), "vecmat": S(jnp.vecmat, box(2), M),
    "outer": S(jnp.outer, box(2), X, complex=C),
    "tensordot": S(lambda a, b: jnp.tensordot(a, b, 1), M, box(3, 2)),
    "vdot": S(jnp.vdot, X, X, complex=C), "vecdot": S(jnp.vecdot, M, X, complex=C),
    "poly": S(jnp.poly, X), "polyadd": S(jnp.polyadd, X, box(2), complex=C),
    "polysub": S(jnp.polysub, X, box(2), complex=C),
    "polymul": S(jnp.polymul, X, box(2), complex=C),
    "polyval": S(jnp.polyval, X, box(2), complex=C),
    "polyder": S(jnp.polyder, box(4)), "polyint": S(jnp.polyint, X),
    "polydiv": S(jnp.polydiv, box(4), away(2)),
    "polyfit": S(lambda y: jnp.polyfit(jnp.arange(5.0), y, 2), box(5)),
    "roots": S(lambda c: jnp.roots(jnp.poly(c), strip_zeros=False), SPREAD),
    "vander": S(lambda x: jnp.vander(x, 3), away(3)),  # (x**0 has a nan derivative at 0)
    "linspace": S(lambda a, b: jnp.linspace(a, b, 4), box(), box()),
    "logspace": S(lambda a, b: jnp.logspace(a, b, 4), box(), box()),
    "geomspace": S(lambda a, b: jnp.geomspace(a, b, 4), pos(), pos()),
    "full": S(lambda v: jnp.full((2, 2), v), box()),
    "full_like": S(lambda x, v: jnp.full_like(x, v) * x, X, box()),
    "kaiser": S(lambda b: jnp.kaiser(5, b), pos(lo=1.0, hi=5.0)),
    # (the middle knot is a kink, where finite differences are wrong: not at 0.5, a value
    # hypothesis likes to draw)
    "interp": S(lambda x, fp: jnp.interp(x, jnp.array([-3.0, 0.37, 3.0]), fp),
                box(3, lo=-1.9, hi=1.9), X),
}

LINALG = jnp.linalg
# keeps a 4x2 problem well-posed, with distinct singular values (lstsq's derivative
# goes through the SVD's, which divides by their differences)
TALL = np.array([[3.0, 0.0], [0.0, 1.5], [0.0, 0.0], [0.0, 0.0]])
JNP_LINALG = {
    "cholesky": S(LINALG.cholesky, spd(3), complex=C),
    "cond": S(LINALG.cond, well(3)),
    "cross": S(LINALG.cross, X, X),
    "det": S(LINALG.det, well(3), complex=C),
    "diagonal": S(LINALG.diagonal, SQ),
    "eig": S(lambda a: LINALG.eig(a)[0], spd(3), modes=NO_GRAD),  # eigenvector derivatives
    "eigvals": S(LINALG.eigvals, spd(3), complex=C),
    "eigh": S(lambda a: (lambda w, v: (w, jnp.abs(v) ** 2))(*LINALG.eigh(a)), spd(3),
              complex=C),  # (|v|: eigenvectors are defined up to a sign or phase)
    "eigvalsh": S(LINALG.eigvalsh, spd(3), complex=C),
    "inv": S(LINALG.inv, well(3), complex=C),
    "lstsq": S(lambda a, b: LINALG.lstsq(a + TALL, b)[0], box(4, 2, lo=-0.3, hi=0.3),
                box(4)),
    "matmul": S(LINALG.matmul, M, box(3, 2)),
    "matrix_norm": S(lambda a: LINALG.matrix_norm(a, ord="nuc"), well(3)),
    "matrix_power": S(lambda a: LINALG.matrix_power(a, 3), SQ, complex=C),
    "matrix_transpose": S(LINALG.matrix_transpose, M),
    "multi_dot": S(lambda a, b, c: LINALG.multi_dot([a, b, c]), M, SQ, box(3, 2)),
    "norm": S(lambda x: LINALG.norm(x, 3), away(3), complex=C),
    "outer": S(LINALG.outer, X, box(2)),
    "pinv": S(LINALG.pinv, well(3), complex=C),
    "qr": S(lambda a: jnp.abs(LINALG.qr(a)[1]) ** 2, well(3), complex=C),
    "slogdet": S(lambda a: LINALG.slogdet(a)[1], well(3), complex=C),
    "solve": S(LINALG.solve, well(3), X, complex=C),
    "svd": S(lambda a: (lambda u, s, vh: (s, jnp.abs(u) ** 2))(*LINALG.svd(
        a, full_matrices=False)), well(3), complex=C),  # (|u|: u is defined up to phases)
    "svdvals": S(LINALG.svdvals, well(3), complex=C),
    "tensordot": S(lambda a, b: LINALG.tensordot(a, b, axes=1), M, box(3, 2)),
    "tensorinv": S(lambda a: LINALG.tensorinv(a.reshape(2, 2, 4), 2),
                   Dom("well", (4, 4))),
    "tensorsolve": S(lambda a, b: LINALG.tensorsolve(a.reshape(2, 2, 4), b.reshape(2, 2)),
                     Dom("well", (4, 4)), box(4)),
    "trace": S(LINALG.trace, SQ),
    "vecdot": S(LINALG.vecdot, M, X),
    "vector_norm": S(lambda x: LINALG.vector_norm(x, axis=1), away(2, 3)),
}

FFT = jnp.fft
ONE_D_FFTS = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"}
REAL_INPUT_FFTS = {"rfft", "rfft2", "rfftn", "ihfft"}  # these reject complex input
JNP_FFT = {
    name: S(getattr(FFT, name), box(4) if name in ONE_D_FFTS else box(2, 4),
            complex=name not in REAL_INPUT_FFTS)
    for name in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
                 "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
} | {
    "fftshift": S(FFT.fftshift, box(5), complex=C),
    "ifftshift": S(FFT.ifftshift, box(5), complex=C),
    "fftfreq": S(lambda d: FFT.fftfreq(5, d), pos()),
    "rfftfreq": S(lambda d: FFT.rfftfreq(5, d), pos()),
}


def collective(fn):
    """Collectives run over a named axis: map a (2, 3) array's rows over axis 'i'."""
    return lambda x: jax.vmap(fn, axis_name="i")(x)


LAX = {
    "abs": unary(lax.abs, 0.5, 2, C), "acos": unary(lax.acos, -0.8, 0.8, C),
    "acosh": unary(lax.acosh, 1.5, 3), "asin": unary(lax.asin, -0.8, 0.8, C),
    "asinh": unary(lax.asinh, complex=C), "atan": unary(lax.atan, complex=C),
    "atanh": unary(lax.atanh, -0.8, 0.8, C), "cbrt": unary(lax.cbrt, 0.5, 2),
    "conj": unary(lax.conj, complex=C), "cos": unary(lax.cos, complex=C),
    "cosh": unary(lax.cosh, complex=C), "exp": unary(lax.exp, complex=C),
    "exp2": unary(lax.exp2, complex=C), "expm1": unary(lax.expm1, complex=C),
    "imag": S(lambda x: lax.imag(x + 0j), X, complex=C),  # (real input is an error)
    "real": S(lambda x: lax.real(x + 0j), X, complex=C),
    "log": unary(lax.log, 0.5, 3, C), "log1p": unary(lax.log1p, -0.5, 2, C),
    "logistic": unary(lax.logistic, complex=C), "neg": unary(lax.neg, complex=C),
    "reciprocal": unary(lax.reciprocal, 0.5, 2, C), "rsqrt": unary(lax.rsqrt, 0.5, 3, C),
    "sin": unary(lax.sin, complex=C), "sinh": unary(lax.sinh, complex=C),
    "sqrt": unary(lax.sqrt, 0.5, 3, C), "square": unary(lax.square, complex=C),
    "tan": unary(lax.tan, -1, 1, C), "tanh": unary(lax.tanh, complex=C),
    "erf": unary(lax.erf), "erfc": unary(lax.erfc), "erf_inv": unary(lax.erf_inv, -0.8, 0.8),
    "lgamma": unary(lax.lgamma, 0.3, 5), "digamma": unary(lax.digamma, 0.3, 5),
    "bessel_i0e": unary(lax.bessel_i0e, 0.2, 4), "bessel_i1e": unary(lax.bessel_i1e, 0.2, 4),
    "integer_pow": S(lambda x: lax.integer_pow(x, 3), X, complex=C),
    "add": binary(lax.add, complex=C), "sub": binary(lax.sub, complex=C),
    "mul": binary(lax.mul, complex=C), "div": binary(lax.div, away(3), C),
    "atan2": S(lax.atan2, X, pos(3)), "pow": S(lax.pow, P, X, complex=C),
    "rem": S(lax.rem, unit(3), pos(3, lo=1.2, hi=2.0)),
    "max": S(lambda x, d: lax.max(x, x + d), X, away(3)),
    "min": S(lambda x, d: lax.min(x, x + d), X, away(3)),
    "complex": S(lax.complex, X, X),
    "clamp": S(lambda x: lax.clamp(-2.5, x, 2.5), X),
    "igamma": S(lax.igamma, pos(3), pos(3)), "igammac": S(lax.igammac, pos(3), pos(3)),
    "betainc": S(lambda x: lax.betainc(2.5, 1.5, x), unit(3)),
    "polygamma": S(lambda x: lax.polygamma(1.0, x), pos(3)),
    "zeta": S(lambda q: lax.zeta(3.0, q), pos(3), modes=NO_GRAD),
    "select_n": S(lambda x, y: lax.select_n(jnp.array([True, False, True]), x, y), X, X),
    "select": S(lambda x, y: lax.select(jnp.array([True, False, True]), x, y), X, X),
    "convert_element_type": S(lambda x: lax.convert_element_type(x, jnp.complex128), X),
    "reduce_precision": S(lambda x: lax.reduce_precision(x, 11, 52), X),
    "stage": S(lambda x: lax.stage(x) * x, X),
    "optimization_barrier": S(lambda x: lax.optimization_barrier(x) * x, X),
    "broadcast": S(lambda x: lax.broadcast(x, (2,)), X),
    "broadcast_in_dim": S(lambda x: lax.broadcast_in_dim(x, (3, 2), (0,)), X),
    "broadcast_like": S(lambda x, y: lax.broadcast_like(x, y) * y, box(), M),
    "broadcast_to_rank": S(lambda x: lax.broadcast_to_rank(x, 3), M),
    "collapse": S(lambda x: lax.collapse(x, 0, 2), M),
    "concatenate": S(lambda x, y: lax.concatenate([x, y], 1), M, M),
    "expand_dims": S(lambda x: lax.expand_dims(x, (1,)), M),
    "squeeze": S(lambda x: lax.squeeze(x, (1,)), box(3, 1)),
    "reshape": S(lambda x: lax.reshape(x, (3, 2), dimensions=(1, 0)), M),
    "rev": S(lambda x: lax.rev(x, (0, 1)), M),
    "transpose": S(lambda x: lax.transpose(x, (1, 0)), M),
    "pad": S(lambda x, v: lax.pad(x, v, [(1, -1, 1), (0, 2, 0)]), M, box(), unbatched=(1,)),
    "slice": S(lambda x: lax.slice(x, (0, 1), (2, 3)), M),
    "slice_in_dim": S(lambda x: lax.slice_in_dim(x, 1, 3, axis=1), M),
    "index_in_dim": S(lambda x: lax.index_in_dim(x, 1, axis=1, keepdims=False), M),
    "dynamic_slice": S(lambda x: lax.dynamic_slice(x, (jnp.array(1), 1), (1, 2)), M),
    "dynamic_slice_in_dim": S(lambda x: lax.dynamic_slice_in_dim(x, jnp.array(1), 2, 1), M),
    "dynamic_index_in_dim": S(lambda x: lax.dynamic_index_in_dim(x, jnp.array(2), 1), M),
    "dynamic_update_slice": S(lambda x, u: lax.dynamic_update_slice(x, u, (0, jnp.array(1))),
                              M, box(2, 2)),
    "dynamic_update_slice_in_dim": S(
        lambda x, u: lax.dynamic_update_slice_in_dim(x, u, jnp.array(1), 1), M, box(2, 1)),
    "dynamic_update_index_in_dim": S(
        lambda x, u: lax.dynamic_update_index_in_dim(x, u, jnp.array(2), 1), M, box(2, 1)),
    "index_take": S(lambda x: lax.index_take(x, (jnp.array([1, 0]), jnp.array([2, 2])),
                                             (0, 1)), M),
    "split": S(lambda x: lax.split(x, (1, 2), axis=1), M),
    "tile": S(lambda x: lax.tile(x, (1, 2)), M),
    "stack": S(lambda x, y: lax.stack([x, y], axis=1), X, X),
    "unstack": S(lambda x: lax.unstack(x, 1), M),
    "full": S(lambda v: lax.full((2, 2), v), box()),
    "full_like": S(lambda x, v: lax.full_like(x, v) * x, X, box()),
    "reduce_sum": S(lambda x: lax.reduce_sum(x, (1,)), M, complex=C),
    "reduce_prod": S(lambda x: lax.reduce_prod(x, (0,)), M, complex=C),
    "reduce_max": S(lambda x: lax.reduce_max(x, (1,)), spread(2, 3)),
    "reduce_min": S(lambda x: lax.reduce_min(x, (0, 1)), spread(2, 3)),
    "cumsum": S(lambda x: lax.cumsum(x, 1, reverse=True), M, complex=C),
    "cumprod": S(lambda x: lax.cumprod(x, 1), M, complex=C),
    "cumlogsumexp": S(lambda x: lax.cumlogsumexp(x, 1), M),
    "cummax": S(lambda x: lax.cummax(x, 0), spread(3, 2)),
    "cummin": S(lambda x: lax.cummin(x, 1, reverse=True), spread(2, 3)),
    "sort": S(lambda x: lax.sort(x, dimension=1), spread(2, 3)),
    "sort_key_val": S(lambda k, v: lax.sort_key_val(k, v), SPREAD, box(5)),
    "top_k": S(lambda x: lax.top_k(x, 2)[0], SPREAD),
    "approx_max_k": S(lambda x: lax.approx_max_k(x, 2)[0], SPREAD),
    "approx_min_k": S(lambda x: lax.approx_min_k(x, 2)[0], SPREAD),
    "dot": S(lax.dot, M, X, complex=C),
    "dot_general": S(lambda a, b: lax.dot_general(a, b, (((1,), (1,)), ((0,), (0,)))),
                     box(2, 3), box(2, 3), complex=C),
    "batch_matmul": S(lax.batch_matmul, box(2, 2, 3), box(2, 3, 2)),
    "ragged_dot": S(lambda a, b: lax.ragged_dot(a, b, jnp.array([1, 2], jnp.int32)),
                    box(3, 2), box(2, 2, 3)),
    "ragged_dot_general": S(lambda a, b: lax.ragged_dot_general(
        a, b, jnp.array([1, 2], jnp.int32), lax.RaggedDotDimensionNumbers(
            dot_dimension_numbers=(([1], [1]), ([], [])),
            lhs_ragged_dimensions=[0], rhs_group_dimensions=[0])),
        box(3, 2), box(2, 2, 3)),
    "scaled_dot": S(lambda a, b: lax.scaled_dot(
        a, b, dimension_numbers=(((1,), (0,)), ((), ())), preferred_element_type=jnp.float64),
        M, box(3, 2), modes=NO_GRAD),
    "fft": S(lambda x: lax.fft(x, "FFT", (4,)), box(4), complex=C),
    "conv": S(lambda x, w: lax.conv(x, w, (1,), "SAME"), box(1, 2, 5), box(3, 2, 2)),
    "conv_general_dilated": S(lambda x, w: lax.conv_general_dilated(
        x, w, (2,), [(1, 0)], lhs_dilation=(1,), rhs_dilation=(2,)), box(1, 1, 6),
        box(2, 1, 2)),
    "conv_with_general_padding": S(lambda x, w: lax.conv_with_general_padding(
        x, w, (1,), [(1, 1)], (1,), (1,)), box(2, 1, 4), box(1, 1, 3)),
    "conv_transpose": S(lambda x, w: lax.conv_transpose(
        x, w, (2,), "SAME", dimension_numbers=("NCH", "OIH", "NCH")), box(1, 2, 3),
        box(1, 2, 2)),
    "conv_general_dilated_local": S(lambda x, w: lax.conv_general_dilated_local(
        x, w, (1,), "VALID", (2,), dimension_numbers=("NCH", "OIH", "NCH")),
        box(1, 1, 4), box(1, 2, 3)),
    "conv_general_dilated_patches": S(lambda x: lax.conv_general_dilated_patches(
        x, (2,), (1,), "VALID"), box(1, 2, 4)),
    "reduce_window": S(lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (1,), "VALID"),
                       box(5)),
    "reduce": S(lambda x: lax.reduce(x, 1.0, lax.mul, (1,)), M),
    "associative_scan": S(lambda x: lax.associative_scan(lax.mul, x, axis=1), M),
    "scan": S(lambda c, xs: lax.scan(lambda c, x: (c * jnp.sin(x), c + x), c, xs), box(),
              box(4)),
    "map": S(lambda xs: lax.map(lambda x: x * jnp.sum(x), xs), M),
    "fori_loop": S(lambda x: lax.fori_loop(0, 3, lambda i, v: jnp.sin(v) * i + v, x), X),
    "while_loop": S(lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (
        c[0] + 1, jnp.sin(c[1]) + c[1]), (0, x))[1], X, modes=("fwd",)),
    "cond": S(lambda x: lax.cond(True, jnp.sin, jnp.cos, x) + lax.cond(
        False, jnp.sin, jnp.cos, x), X),
    "switch": S(lambda x: lax.switch(1, [jnp.sin, jnp.cos, jnp.exp], x), X),
    "custom_linear_solve": S(lambda a, b: lax.custom_linear_solve(
        lambda x: a @ x, b, lambda mv, r: jnp.linalg.solve(a, r),
        lambda mv, r: jnp.linalg.solve(a.T, r)), well(3), X),
    "custom_root": S(lambda c: lax.custom_root(
        lambda x: x ** 3 - c, c, lambda f, x0: x0 ** (1 / 3) + 0.0 * f(x0),
        lambda g, y: y / g(1.0)), pos(lo=1.0, hi=3.0), vmap=False),
    "gather": S(lambda x: lax.gather(x, jnp.array([[1], [0]]), lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 3)), M),
    "scatter": S(lambda x, u: lax.scatter(x, jnp.array([[1]]), u, SCATTER_DNUMS), M,
                 box(1, 3)),
    "scatter_add": S(lambda x, u: lax.scatter_add(x, jnp.array([[1], [1]]), u, SCATTER_DNUMS),
                     M, box(2, 3)),
    "scatter_sub": S(lambda x, u: lax.scatter_sub(x, jnp.array([[0]]), u, SCATTER_DNUMS),
                     M, box(1, 3)),
    "scatter_mul": S(lambda x, u: lax.scatter_mul(x, jnp.array([[1]]), u, SCATTER_DNUMS,
                                                  unique_indices=True), M, box(1, 3)),
    "scatter_max": S(lambda x, d: lax.scatter_max(x, jnp.array([[1]]), x[1:] + d,
                                                  SCATTER_DNUMS), M, away(1, 3)),
    "scatter_min": S(lambda x, d: lax.scatter_min(x, jnp.array([[0]]), x[:1] + d,
                                                  SCATTER_DNUMS), M, away(1, 3)),
    "scatter_apply": S(lambda x: lax.scatter_apply(x, jnp.array([[1]]), jnp.sin,
                                                   SCATTER_DNUMS, update_shape=(1, 3)), M,
                       modes=NO_GRAD),
    "igamma_grad_a": S(lax.igamma_grad_a, pos(3), pos(3), modes=NO_GRAD),
    # traced code with two while_loops, as in JAX: forward mode only (a while_loop has no
    # transpose)
    "random_gamma_grad": S(lax.random_gamma_grad, pos(3), pos(3), modes=("fwd",)),
    "platform_dependent": S(lambda x: lax.platform_dependent(x, default=jnp.sin, cpu=jnp.cos),
                            X),
    "psum": S(collective(lambda v: lax.psum(v * v, "i")), M),
    "pmean": S(collective(lambda v: lax.pmean(jnp.sin(v), "i")), M),
    "pmax": S(collective(lambda v: lax.pmax(v, "i")), spread(2, 3), modes=NO_GRAD),
    "pmin": S(collective(lambda v: lax.pmin(v, "i")), spread(2, 3), modes=NO_GRAD),
    "all_gather": S(collective(lambda v: lax.all_gather(v, "i") * v), M),
    "all_to_all": S(collective(lambda v: lax.all_to_all(v, "i", 0, 0)), box(2, 2, 3)),
    "ppermute": S(collective(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 0)])), M),
    "pshuffle": S(collective(lambda v: lax.pshuffle(v, "i", [1, 0])), M),
    "pswapaxes": S(collective(lambda v: lax.pswapaxes(v, "i", 0)), box(2, 2, 3)),
    "psum_scatter": S(collective(lambda v: lax.psum_scatter(v, "i", tiled=True)),
                      box(2, 4)),
    # the identity on values: laid out on a mesh of the one default device
    "with_sharding_constraint": S(lambda x: lax.with_sharding_constraint(
        jnp.sin(x), jax.sharding.NamedSharding(jax.make_mesh((1,), ("i",)),
                                               jax.sharding.PartitionSpec())), M),
}
SCATTER_DNUMS = lax.ScatterDimensionNumbers(update_window_dims=(1,),
                                            inserted_window_dims=(0,),
                                            scatter_dims_to_operand_dims=(0,))

SPECIAL = {
    "bessel_jn": S(lambda z: special.bessel_jn(z, v=2), pos(3)),
    "beta": S(special.beta, pos(3), pos(3)),
    "betaln": S(special.betaln, pos(3), pos(3)),
    "betainc": S(lambda x: special.betainc(2.5, 1.5, x), unit(3)),
    # (lambda away from 0, where boxcox switches to log)
    "boxcox": S(special.boxcox, pos(3), away(3, lo=0.2, hi=1)),
    "boxcox1p": S(special.boxcox1p, pos(3), away(3, lo=0.2, hi=1)),
    "comb": S(special.comb, pos(3, lo=5, hi=8), pos(3, lo=1, hi=3)),
    "dawsn": unary(special.dawsn), "digamma": unary(special.digamma, 0.3, 5),
    "entr": unary(special.entr, 0.2, 3), "erf": unary(special.erf),
    "erfc": unary(special.erfc), "erfcx": unary(special.erfcx, -1, 3),
    "erfinv": unary(special.erfinv, -0.8, 0.8), "expit": unary(special.expit),
    # (the exponential integrals run while loops op by op: seconds per example)
    "exp1": S(special.exp1, pos(3, lo=0.3, hi=3), examples=1),
    "expi": S(special.expi, pos(3, lo=0.3, hi=3), examples=1),
    "expn": S(lambda x: special.expn(2, x), pos(3), examples=1),
    "factorial": unary(special.factorial, 0.5, 4), "gamma": unary(special.gamma, 0.5, 4),
    "gammainc": S(special.gammainc, pos(3), pos(3)),
    "gammaincc": S(special.gammaincc, pos(3), pos(3)),
    "gammaln": unary(special.gammaln, 0.3, 5), "loggamma": unary(special.loggamma, 0.3, 5),
    "i0": S(special.i0, away(3, lo=0.2)), "i0e": unary(special.i0e, 0.2, 4),
    "i1": unary(special.i1), "i1e": unary(special.i1e, 0.2, 4),
    "kl_div": S(special.kl_div, pos(3), pos(3)),
    "rel_entr": S(special.rel_entr, pos(3), pos(3)),
    "log_ndtr": unary(special.log_ndtr, -8, 4), "ndtr": unary(special.ndtr, -4, 4),
    "ndtri": unary(special.ndtri, 0.05, 0.95), "logit": unary(special.logit, 0.1, 0.9),
    "log_softmax": S(lambda x: special.log_softmax(x, axis=1), M),
    "softmax": S(lambda x: special.softmax(x, axis=0), M),
    "logsumexp": S(lambda x, b: special.logsumexp(x, b=b, axis=1), M, pos(2, 3), complex=C),
    "multigammaln": S(lambda a: special.multigammaln(a, 2), pos(3, lo=1.5, hi=4)),
    "owens_t": S(special.owens_t, box(3, lo=-1.5, hi=1.5), box(3, lo=-1.5, hi=1.5)),
    "poch": S(special.poch, pos(3), pos(3)),
    "polygamma": S(lambda x: special.polygamma(1, x), pos(3)),
    "sici": S(special.sici, pos(3)),
    "spence": unary(special.spence, 0.2, 0.6),  # (JAX's derivative is nan near 1)
    "xlog1py": S(special.xlog1py, X, pos(3)), "xlogy": S(special.xlogy, X, pos(3)),
    "zeta": S(lambda q: special.zeta(3.0, q), pos(3)),
}


def _continuous(dist, x, *params):
    """Specs for every continuous-distribution function that edujax's ``dist`` has."""
    out = {}
    for fn in ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]:
        if hasattr(dist, fn):
            out[fn] = S(getattr(dist, fn), x, *params)
    for fn in ["ppf", "isf"]:
        if hasattr(dist, fn):
            out[fn] = S(getattr(dist, fn), unit(3), *params)
    return out


def _stats():
    loc, scale = box(3, lo=-1, hi=1), pos(3)
    continuous = {
        "norm": (X, loc, scale), "cauchy": (X, loc, scale), "logistic": (X, loc, scale),
        "laplace": (away(3), box(3, lo=-0.1, hi=0.1), scale), "gumbel_l": (X, loc, scale),
        "gumbel_r": (X, loc, scale), "expon": (pos(3), box(3, lo=-0.4, hi=0.4), scale),
        "gamma": (pos(3), pos(3)), "chi2": (pos(3), pos(3, lo=1.0, hi=4.0)),
        "beta": (unit(3), pos(3), pos(3)), "pareto": (pos(3, lo=2.5, hi=4), pos(3),
                                                       box(3, lo=-0.5, hi=0.5)),
        "uniform": (box(3, lo=0.2, hi=0.8), box(3, lo=-0.1, hi=0.1), pos(3, lo=1, hi=2)),
        "gennorm": (away(3), pos(3, lo=1.2, hi=3)), "t": (X, pos(3, lo=1, hi=5)),
        "vonmises": (box(3, lo=-3, hi=3), pos(3)), "wrapcauchy": (box(3, lo=0.1, hi=6),
                                                                  unit(3)),
    }
    out = {}
    for name, doms in continuous.items():
        for fn, spec in _continuous(getattr(stats, name), *doms).items():
            out[f"{name}.{fn}"] = spec
    for dist in ["gumbel_l", "gumbel_r"]:  # JAX's xlogy(-1, scale) breaks grad in scale
        for fn in ["logpdf", "pdf"]:
            out[f"{dist}.{fn}"] = S(lambda x, loc, f=getattr(getattr(stats, dist), fn):
                                    f(x, loc, 1.5), X, loc)
        out[f"{dist}.ppf"] = S(lambda q, loc, f=getattr(stats, dist).ppf: f(q, loc, 1.5),
                               unit(3), loc)
    for fn in ["cdf", "logcdf", "sf", "logsf"]:  # JAX's betainc has no derivative in a, b
        out[f"beta.{fn}"] = S(lambda x, f=getattr(stats.beta, fn): f(x, 2.5, 1.5), unit(3))
    k = jnp.array([0.0, 1.0, 3.0])
    kb = jnp.array([0.0, 1.0, 1.0])
    ki = jnp.array([0, 1, 3])
    out |= {
        "bernoulli.logpmf": S(lambda p: stats.bernoulli.logpmf(kb, p), unit(3)),
        "bernoulli.pmf": S(lambda p: stats.bernoulli.pmf(kb, p), unit(3)),
        "bernoulli.cdf": S(lambda p: stats.bernoulli.cdf(jnp.array([0.0, 0.5, 1.0]), p),
                           unit(3)),
        "binom.logpmf": S(lambda p: stats.binom.logpmf(k, 5.0, p), unit(3)),
        "binom.pmf": S(lambda p: stats.binom.pmf(k, 5.0, p), unit(3)),
        "betabinom.logpmf": S(lambda a, b: stats.betabinom.logpmf(k, 5.0, a, b), P, P),
        "betabinom.pmf": S(lambda a, b: stats.betabinom.pmf(k, 5.0, a, b), P, P),
        "geom.logpmf": S(lambda p: stats.geom.logpmf(k + 1, p), unit(3)),
        "geom.pmf": S(lambda p: stats.geom.pmf(k + 1, p), unit(3)),
        "nbinom.logpmf": S(lambda n, p: stats.nbinom.logpmf(k, n, p), pos(3), unit(3)),
        "nbinom.pmf": S(lambda n, p: stats.nbinom.pmf(k, n, p), pos(3), unit(3)),
        "poisson.logpmf": S(lambda mu: stats.poisson.logpmf(k, mu), pos(3)),
        "poisson.pmf": S(lambda mu: stats.poisson.pmf(k, mu), pos(3)),
        "poisson.cdf": S(lambda mu: stats.poisson.cdf(k + 0.5, mu), pos(3)),
        "multinomial.logpmf": S(lambda p: stats.multinomial.logpmf(ki, 4, p), simplex(3)),
        "multinomial.pmf": S(lambda p: stats.multinomial.pmf(ki, 4, p), simplex(3)),
        # x must stay on the simplex: move it through a softmax
        "dirichlet.logpdf": S(lambda z, a: stats.dirichlet.logpdf(nn.softmax(z), a), X,
                              pos(3)),
        "dirichlet.pdf": S(lambda z, a: stats.dirichlet.pdf(nn.softmax(z), a), X, pos(3)),
        "sem": S(lambda x: stats.sem(x, axis=1), spread(2, 4)),
        "multivariate_normal.logpdf": S(stats.multivariate_normal.logpdf, X, X, spd(3)),
        "multivariate_normal.pdf": S(stats.multivariate_normal.pdf, X, X, spd(3)),
    }
    return out


NN = {
    "celu": S(nn.celu, away(3), complex=C), "elu": S(nn.elu, away(3), complex=C),
    "gelu": S(lambda x: (nn.gelu(x), nn.gelu(x, approximate=False)), X),
    "glu": S(nn.glu, box(2, 4)),
    "hard_sigmoid": unary(nn.hard_sigmoid, -2.5, 2.5),
    "hard_silu": unary(nn.hard_silu, -2.5, 2.5), "hard_swish": unary(nn.hard_swish, -2.5, 2.5),
    "hard_tanh": unary(nn.hard_tanh, -0.9, 0.9), "identity": unary(nn.identity),
    "leaky_relu": S(nn.leaky_relu, away(3)), "log1mexp": unary(nn.log1mexp, 0.2, 3),
    "log_sigmoid": unary(nn.log_sigmoid, complex=C),
    "log_softmax": S(lambda x: nn.log_softmax(x, axis=0), M),
    "logmeanexp": S(lambda x: nn.logmeanexp(x, axis=1), M),
    "logsumexp": S(lambda x: nn.logsumexp(x, axis=0), M),
    "mish": unary(nn.mish, complex=C), "relu": S(nn.relu, away(3)),
    "relu6": S(nn.relu6, box(3, lo=0.2, hi=5.8)), "selu": S(nn.selu, away(3), complex=C),
    "sigmoid": unary(nn.sigmoid, complex=C), "silu": unary(nn.silu, complex=C),
    "swish": unary(nn.swish, complex=C), "soft_sign": S(nn.soft_sign, away(3)),
    "softmax": S(lambda x: nn.softmax(x, axis=1), M),
    "softplus": unary(nn.softplus, complex=C),
    "sparse_plus": S(nn.sparse_plus, box(3, lo=-0.9, hi=0.9)),
    "sparse_sigmoid": S(nn.sparse_sigmoid, box(3, lo=-0.9, hi=0.9)),
    "squareplus": unary(nn.squareplus), "tanh": unary(nn.tanh, complex=C),
    "standardize": S(lambda x: nn.standardize(x, axis=1), spread(2, 4)),
    # JAX computes the logits and the softmax in float32 even for float64 inputs
    "dot_product_attention": S(nn.dot_product_attention, box(3, 1, 2), box(4, 1, 2),
                               box(4, 1, 2), tol=2e-3, eps=1e-3),
}

def sym(a):
    return (a + a.T) / 2


SCIPY_LINALG = {
    "block_diag": S(sla.block_diag, M, box(1, 2)),
    # (the derivative of a Cholesky factor assumes a symmetric perturbation: symmetrize)
    "cho_factor": S(lambda a: jnp.tril(sla.cho_factor(sym(a), lower=True)[0]), spd(3)),
    "cho_solve": S(lambda a, b: sla.cho_solve((jnp.linalg.cholesky(a), True), b), spd(3), X),
    "cholesky": S(lambda a: sla.cholesky(sym(a)), spd(3)),
    "circulant": S(sla.circulant, X), "companion": S(sla.companion, away(3)),
    "det": S(sla.det, well(3)),
    "eigh": S(lambda a: sla.eigh(a, eigvals_only=True), spd(3)),
    "expm": S(sla.expm, box(3, 3, lo=-1, hi=1)),
    "fiedler": S(sla.fiedler, spread(3)), "fiedler_companion": S(sla.fiedler_companion, away(3)),
    "hankel": S(sla.hankel, X, X), "toeplitz": S(sla.toeplitz, X, X),
    "inv": S(sla.inv, well(3)),
    "leslie": S(sla.leslie, X, box(2)),
    "lu": S(lambda a: sla.lu(a)[1:], well(3)),
    "lu_factor": S(lambda a: sla.lu_factor(a)[0], well(3)),
    "lu_solve": S(lambda a, b: sla.lu_solve(sla.lu_factor(a), b), well(3), X),
    # (JAX's polar iterates in a while_loop: forward mode only)
    "polar": S(lambda a: sla.polar(a)[0], well(3), modes=("fwd",)),
    "qr": S(lambda a: sla.qr(a)[1] ** 2, well(3)),
    "solve": S(sla.solve, well(3), X),
    "solve_triangular": S(lambda a, b: sla.solve_triangular(a, b, lower=True), well(3), X),
    "svd": S(lambda a: sla.svd(a, compute_uv=False), well(3)),
}


def _prefixed(prefix: str, table: dict[str, Spec]) -> dict[str, Spec]:
    return {f"{prefix}{name}": spec for name, spec in table.items()}


SPECS: dict[str, Spec] = {
    **_prefixed("jnp.", JNP_UFUNCS | JNP_REDUCTIONS | JNP_SHAPES | JNP_PRODUCTS),
    **_prefixed("jnp.linalg.", JNP_LINALG), **_prefixed("jnp.fft.", JNP_FFT),
    **_prefixed("lax.", LAX), **_prefixed("scipy.special.", SPECIAL),
    **_prefixed("scipy.stats.", _stats()), **_prefixed("scipy.linalg.", SCIPY_LINALG),
    **_prefixed("nn.", NN),
}
COMPLEX = sorted(name for name, spec in SPECS.items() if spec.complex)


# ---------------------------------------------------------------- the laws
def _as_complex(data: st.DataObject, x: np.ndarray) -> np.ndarray:
    """x plus a small imaginary part (within 0.5 of the real domain, off branch cuts)."""
    imag = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(-0.5, 0.5)))
    return x + 1j * imag


def _params(names: list[str], law: str = "xfail") -> list:
    """pytest params; a spec with a known bug is a strict xfail (it fails once fixed)."""
    reasons = {n: getattr(SPECS[n], law) for n in names}
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=reasons[n]))
            if reasons[n] else n for n in names]


def _run(spec: Spec, examples: int, test: Callable, xfail: str = "") -> None:
    """Run ``test(data)`` as a hypothesis property with the spec's number of examples (a
    known failure: one example, not shrunk, so that it costs little)."""
    if xfail:
        chosen = settings(max_examples=1, deadline=None, phases=[Phase.generate])
    else:
        chosen = settings(max_examples=min(examples, spec.examples), deadline=None)
    chosen(given(data=st.data())(test))()


@pytest.mark.parametrize("name", _params(sorted(n for n, s in SPECS.items() if s.modes)))
def test_grads_match_finite_differences(name):
    spec = SPECS[name]

    def law(data):
        args = [draw(data, dom) for dom in spec.doms]
        with x64():
            check_grads(spec.fn, [jnp.asarray(a) for a in args], order=1, modes=spec.modes,
                        atol=spec.tol, rtol=spec.tol, eps=spec.eps)
    _run(spec, 4, law, spec.xfail)


@pytest.mark.parametrize("name", _params(COMPLEX, "complex_xfail"))
def test_complex_grads_match_finite_differences(name):
    spec = SPECS[name]

    def law(data):
        args = [_as_complex(data, draw(data, dom)) for dom in spec.doms]
        with x64():
            check_grads(spec.fn, [jnp.asarray(a) for a in args], order=1, modes=spec.modes,
                        atol=spec.tol, rtol=spec.tol, eps=spec.eps)
    _run(spec, 3, law, spec.complex_xfail)


def _stack_leaves(outs: list[Any]) -> list[np.ndarray]:
    leaves = [jax.tree_util.tree_leaves(o) for o in outs]
    return [np.stack([np.asarray(ls[i]) for ls in leaves]) for i in range(len(leaves[0]))]


VMAPPED = sorted(n for n, s in SPECS.items() if s.vmap)


@pytest.mark.parametrize("name", _params(VMAPPED, "vmap_xfail"))
def test_vmap_matches_a_python_loop(name):
    spec = SPECS[name]
    _run(spec, 3, lambda data: _check_vmap(spec, data, data.draw(st.integers(1, 3))),
         spec.vmap_xfail)


def _check_vmap(spec: Spec, data: st.DataObject, size: int) -> None:
    # in_axes: None (shared by the batch) or any position, counted from either end
    axes = [None if i in spec.unbatched else
            data.draw(st.one_of(st.none(), st.integers(-len(d.shape) - 1, len(d.shape))))
            for i, d in enumerate(spec.doms)]
    if all(a is None for a in axes):
        batchable = [i for i in range(len(axes)) if i not in spec.unbatched]
        axes[data.draw(st.sampled_from(batchable))] = 0
    examples = [[draw(data, dom) for _ in range(size)] for dom in spec.doms]
    batched = [ex[0] if ax is None else np.stack(ex, axis=ax) for ex, ax in zip(examples, axes)]
    with x64():
        got = jax.vmap(spec.fn, in_axes=tuple(axes))(*[jnp.asarray(b) for b in batched])
        want = _stack_leaves([spec.fn(*[jnp.asarray(ex[0 if ax is None else i])
                                        for ex, ax in zip(examples, axes)])
                              for i in range(size)])
    got = jax.tree_util.tree_leaves(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-9, atol=1e-12, equal_nan=True)


# ---------------------------------------------------------------- every function is covered
_BOOL = "returns booleans (a comparison or a test)"
_INT = "returns integers (indices, counts, bit patterns)"
_STEP = "piecewise constant: its derivative is zero wherever it exists"
_NO_INPUT = "builds an array from shapes or Python integers only: nothing to differentiate"
_SHAPE_ONLY = "depends on its argument's shape and dtype only, not on its values"
_META = "about dtypes, shapes, types or printing, not array values"
_IO = "reads or writes files or buffers"
_FLOAT_GRID = "a step on the floating-point grid (bit manipulation): no derivative"
_RANDOM = "random bits from a key or a state (JAX has no derivative rule)"

EXCLUDED: dict[str, str] = {
    **{f"jnp.{n}": _BOOL for n in [
        "all", "allclose", "any", "array_equal", "array_equiv", "equal", "greater",
        "greater_equal", "less", "less_equal", "not_equal", "isclose", "isfinite", "isinf",
        "isnan", "isneginf", "isposinf", "isin", "signbit", "iscomplex", "isreal",
        "logical_and", "logical_not", "logical_or", "logical_xor"]},
    **{f"jnp.{n}": _INT for n in [
        "argmax", "argmin", "argpartition", "argsort", "argwhere", "bitwise_and",
        "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
        "bitwise_right_shift", "bitwise_xor", "count_nonzero", "diag_indices",
        "diag_indices_from", "digitize", "flatnonzero", "nonzero", "gcd", "lcm", "invert",
        "left_shift", "right_shift", "ix_", "lexsort", "mask_indices", "nanargmax",
        "nanargmin", "packbits", "unpackbits", "ravel_multi_index", "unravel_index",
        "searchsorted", "tril_indices", "tril_indices_from", "triu_indices",
        "triu_indices_from"]},
    **{f"jnp.{n}": _STEP for n in [
        "around", "round", "rint", "trunc", "floor", "ceil", "sign", "heaviside",
        "floor_divide"]},
    **{f"jnp.{n}": _NO_INPUT for n in [
        "arange", "bartlett", "blackman", "hamming", "hanning", "empty", "eye", "identity",
        "ones", "zeros", "tri", "indices"]},
    **{f"jnp.{n}": _SHAPE_ONLY for n in ["empty_like", "ones_like", "zeros_like"]},
    **{f"jnp.{n}": _META for n in [
        "array_repr", "array_str", "broadcast_shapes", "can_cast", "einsum_path",
        "iscomplexobj", "isrealobj", "isscalar", "isdtype", "issubdtype", "iterable", "ndim",
        "shape", "size", "promote_types", "result_type", "get_printoptions", "printoptions",
        "set_printoptions"]},
    **{f"jnp.{n}": _FLOAT_GRID for n in ["frexp", "nextafter", "spacing"]},
    **{f"jnp.{n}": _IO for n in ["frombuffer", "fromfile", "fromiter", "fromstring", "load",
                                 "save", "savez"]},
    "jnp.fromfunction": "calls a Python function on integer index arrays",
    "jnp.linalg.matrix_rank": _INT,
    **{f"lax.{n}": _INT for n in [
        "argmax", "argmin", "axis_index", "bitwise_and", "bitwise_not", "bitwise_or",
        "bitwise_xor", "clz", "population_count", "shift_left", "shift_right_arithmetic",
        "shift_right_logical", "mulhi"]},
    **{f"lax.{n}": _BOOL for n in [
        "eq", "ge", "gt", "le", "lt", "ne", "is_finite", "reduce_and", "reduce_or",
        "reduce_xor"]},
    **{f"lax.{n}": _STEP for n in ["ceil", "floor", "round", "sign"]},
    **{f"lax.{n}": _NO_INPUT for n in ["broadcasted_iota", "iota", "empty"]},
    **{f"lax.{n}": _META for n in [
        "ConvGeneralDilatedDimensionNumbers", "DotDimensionNumbers", "PrecisionLike",
        "axis_size", "broadcast_shapes", "conv_dimension_numbers", "conv_general_permutations",
        "conv_general_shape_tuple", "conv_shape_tuple", "conv_transpose_shape_tuple",
        "padtype_to_pads", "reduce_window_shape_tuple", "dtype"]},
    **{f"lax.{n}": _FLOAT_GRID for n in ["nextafter", "bitcast_convert_type"]},
    **{f"lax.{n}": _RANDOM for n in ["rng_bit_generator", "rng_uniform"]},
    "lax.stop_gradient": "its derivative is zero by definition, not its finite difference",
    "lax.pcast": "a cast between shard_map's varying-axes types, the identity on values, "
                 "defined only inside shard_map (test_sharding_recorded replays it from JAX)",
    "scipy.special.bernoulli": _NO_INPUT, "scipy.special.gammasgn": _STEP,
    "scipy.stats.bernoulli.ppf": _STEP,
    **{f"scipy.linalg.{n}": _NO_INPUT for n in [
        "hadamard", "helmert", "hilbert", "invhilbert", "invpascal", "pascal"]},
    "nn.one_hot": _BOOL,
}

# JAX's namespaces, and the prefix their functions have in SPECS and EXCLUDED
NAMESPACES = {"jax.numpy": "jnp.", "jax.numpy.linalg": "jnp.linalg.",
              "jax.numpy.fft": "jnp.fft.", "jax.lax": "lax.",
              "jax.scipy.special": "scipy.special.", "jax.scipy.stats": "scipy.stats.",
              "jax.scipy.linalg": "scipy.linalg.", "jax.nn": "nn."}


def _public_functions() -> set[str]:
    """Every function of those namespaces that edujax implements (tests/data/coverage.py
    says which: JAX's public names, recorded, that edujax has)."""
    path = pathlib.Path(__file__).parent / "data" / "coverage.py"
    spec = importlib.util.spec_from_file_location("api_coverage_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.coverage()
    return {prefix + row.name for ns, prefix in NAMESPACES.items() for row in table[ns]
            if row.kind == "function" and row.status == "implemented"}


def test_every_public_function_is_checked_or_excluded_with_a_reason():
    public = _public_functions()
    unclassified = sorted(public - set(SPECS) - set(EXCLUDED))
    assert not unclassified, (
        "these public functions have no property test: add a spec to SPECS (domain, "
        f"complex=..., modes=...) or, if not differentiable, a reason to EXCLUDED: "
        f"{unclassified}")
    assert not set(SPECS) & set(EXCLUDED), sorted(set(SPECS) & set(EXCLUDED))
    stale = sorted((set(SPECS) | set(EXCLUDED)) - public)
    assert not stale, f"not public functions of edujax (renamed or removed?): {stale}"
    assert all(reason.strip() for reason in EXCLUDED.values())


def test_every_spec_checks_something():
    """A spec without derivatives (JAX has none) still has its batching checked."""
    for name, spec in SPECS.items():
        assert spec.modes or spec.vmap, name
        assert len(spec.doms) >= 1, name
