"""Counting into bins: bincount, digitize, histogram, histogram_bin_edges, histogram2d,
histogramdd.

JAX's recipe, followed here: find each value's bin with ``searchsorted`` (a binary
search over the sorted edges), then add up with a scatter-add
(``zeros(n).at[bin].add(weight)``). Both are primitives with batching rules, and the
scatter-add is linear in the weights, so ``grad`` with respect to the weights works.
The number of bins must be static: it is the shape of the result.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.numpy import reductions
from edujax.numpy.creation import asarray, linspace, ones_like, zeros, zeros_like
from edujax.numpy.differences import diff
from edujax.numpy.index_tricks import ix_, ravel_multi_index
from edujax.numpy.shape_ops import reshape, transpose
from edujax.numpy.sorting import searchsorted
from edujax.numpy.ufuncs import _where, clip
from edujax.numpy.util import (check_arraylike, ensure_array, ensure_arraylike,
                               promote_dtypes_inexact)


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _to_inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else dtypes.float_dtype()


def bincount(x: Any, weights: Any = None, minlength: int = 0, *,
             length: int | None = None) -> Any:
    """How many times each non-negative integer occurs in ``x`` (or the sum of the
    ``weights`` at its occurrences). Without ``length``, ``x`` must be concrete: the
    result has ``max(x) + 1`` entries."""
    x = ensure_array("bincount", x)
    if x.dtype == dtypes.bool_:
        x = lax.convert_element_type(x, np.int32)
    if x.dtype.kind not in "iu":
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if np.ndim(x) != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        if isinstance(x, core.Tracer):
            raise ConcretizationTypeError(
                x, "The error occurred because of argument 'x' of jnp.bincount. To avoid this "
                   "error, pass a static `length` argument.")
        values = np.asarray(x)
        length = max(minlength, values.size and int(max(0, values.max())) + 1)
    if weights is None:
        weights = np.array(1, dtype=dtypes.int_dtype())
    elif np.shape(x) != np.shape(weights):
        aval_x, aval_w = core.get_aval(x), core.get_aval(weights)
        raise ValueError(f"type of weights must match type of x. Got typeof(x)="
                         f"{aval_x.str_short()} and typeof(weights)={aval_w.str_short()}")
    return zeros(length, _dtype(weights)).at[clip(x, 0)].add(weights, mode="drop")


@inner_jit(static_argnames=("right", "method"))
def digitize(x: Any, bins: Any, right: bool = False, *, method: str | None = None) -> Any:
    """The index of the bin each value falls in: ``i`` such that
    ``bins[i-1] <= x < bins[i]`` (``<`` and ``<=`` swapped if ``right``), for
    increasing or decreasing ``bins``."""
    x, bins_arr = ensure_arraylike("digitize", x, bins)
    bins_arr = ensure_array("digitize", bins_arr)
    if np.ndim(bins_arr) != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got {bins=}")
    if bins_arr.shape[0] == 0:
        return zeros_like(x, dtype=np.int32)
    side = "right" if not right else "left"
    kwds = {} if method is None else {"method": method}
    return _where(bins_arr[-1] >= bins_arr[0],
                  searchsorted(bins_arr, x, side=side, **kwds),
                  bins_arr.shape[0] - searchsorted(bins_arr[::-1], x, side=side, **kwds))


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """The edges of ``bins`` equal bins spanning ``range`` (by default the data's min to
    max), or the given edges if ``bins`` is an array."""
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    arr = asarray(a)
    dtype = _to_inexact(_dtype(arr))
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=dtype)
    bins_int = operator.index(bins)
    if range is None:
        range = [reductions.min(arr), reductions.max(arr)]
    range = asarray(range, dtype=dtype)
    if np.shape(range) != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    # a range of width 0 is widened by 1/2 on each side (NumPy's rule)
    lo = _where(reductions.ptp(range) == 0, range[0] - 0.5, range[0])
    hi = _where(reductions.ptp(range) == 0, range[1] + 0.5, range[1])
    return linspace(lo, hi, bins_int + 1, dtype=dtype)


def histogram(a: Any, bins: Any = 10, range: Sequence[Any] | None = None, weights: Any = None,
              density: bool | None = None) -> tuple[Any, Any]:
    """(counts per bin, bin edges). Each bin holds ``edges[i] <= x < edges[i+1]``,
    except the last, which includes its right edge."""
    if isinstance(bins, str):
        raise TypeError(f"asarray: expected ArrayLike, got {bins} of type {type(bins)}.")
    if weights is None:
        a, _ = ensure_arraylike("histogram", a, bins)
        a, = promote_dtypes_inexact(a)
        weights = ones_like(a)
    else:
        a, _, weights = ensure_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(a, weights)
    bin_edges = histogram_bin_edges(a, bins, range, weights)
    bin_idx = searchsorted(bin_edges, a, side="right")
    bin_idx = _where(a == bin_edges[-1], len(bin_edges) - 1, bin_idx)
    counts = zeros(len(bin_edges), _dtype(weights)).at[bin_idx].add(weights)[1:]
    if density:
        counts = counts / diff(bin_edges) / reductions.sum(counts)
    return counts, bin_edges


def histogramdd(sample: Any, bins: Any = 10, range: Sequence[Any] | None = None,
                weights: Any = None, density: bool | None = None) -> tuple[Any, list]:
    """The histogram of ``N`` points in ``D`` dimensions (``sample`` has shape (N, D)):
    each point's bin index along every axis, combined into one flat index and counted
    with ``bincount``."""
    if weights is None:
        sample, = promote_dtypes_inexact(ensure_array("histogramdd", sample))
    else:
        sample, weights = ensure_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(sample, weights)
    n, d = np.shape(sample)
    if range is not None and (len(range) != d or any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or "
                         f"Nones; got {range=}")
    try:
        bins_per_dimension = list(bins)
    except TypeError:
        bins_per_dimension = d * [bins]
    else:
        if len(bins_per_dimension) != d:
            raise ValueError("should be a bin for each dimension.")
    bin_idx_by_dim, bin_edges_by_dim = [], []
    for i in builtins.range(d):  # `range` is an argument here
        edges = histogram_bin_edges(sample[:, i], bins_per_dimension[i],
                                    None if range is None else range[i], weights)
        idx = searchsorted(edges, sample[:, i], side="right")
        bin_idx_by_dim.append(_where(sample[:, i] == edges[-1], idx - 1, idx))
        bin_edges_by_dim.append(edges)
    # one extra bin on each side catches the points outside the edges; cut off below
    nbins = tuple(len(edges) + 1 for edges in bin_edges_by_dim)
    widths = [diff(edges) for edges in bin_edges_by_dim]  # (computed here, as in JAX)
    xy = ravel_multi_index(tuple(bin_idx_by_dim), nbins, mode="clip")
    hist = reshape(bincount(xy, weights, length=math.prod(nbins)), nbins)
    hist = hist[d * (slice(1, -1),)]
    if density:
        hist = lax.convert_element_type(hist, sample.dtype)
        hist = hist / reductions.sum(hist)
        for norm in ix_(*widths):
            hist = hist / norm
    return hist, bin_edges_by_dim


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, Any, Any]:
    """The histogram of points (x[i], y[i]): ``histogramdd`` with D = 2."""
    x, y = ensure_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        bins = [asarray(bins), asarray(bins)]  # one array of edges, for both axes
    sample = transpose(asarray([x, y]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]
