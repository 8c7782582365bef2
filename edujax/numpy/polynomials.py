"""Polynomials as coefficient arrays, highest power first (NumPy's ``np.poly*``
convention): ``[1, -3, 2]`` is ``x**2 - 3x + 2``.

* ``polyval`` evaluates by Horner's rule, ``((p0 x + p1) x + p2) ...``, as a ``scan``
  over the coefficients (so a long polynomial is one loop in the jaxpr, not a chain);
* ``polymul`` and ``poly`` are convolutions of coefficient sequences;
* ``polyder``/``polyint`` multiply or divide by the falling powers;
* ``polyfit`` solves the least-squares problem with a Vandermonde matrix (``vander``).
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from edujax import core, lax
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.numpy import linalg, reductions
from edujax.numpy.creation import arange, array, full, ones, zeros
from edujax.numpy.diagonals import diag
from edujax.numpy.products import dot, outer
from edujax.numpy.shape_ops import atleast_1d, concatenate, expand_dims
from edujax.numpy.signal import convolve
from edujax.numpy.ufuncs import _where, maximum, power, sqrt
from edujax.numpy.util import (broadcast_shapes, canonicalize_axis, ensure_array,
                               ensure_arraylike, promote_dtypes, promote_dtypes_inexact)


@inner_jit(static_argnames=("unroll",))
def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    """The polynomial with coefficients ``p`` evaluated at ``x`` (Horner's rule)."""
    p, x = ensure_arraylike("polyval", p, x)
    p_arr, x_arr = promote_dtypes(p, x)
    p_arr = ensure_array("polyval", p_arr)
    shape = broadcast_shapes(np.shape(p_arr)[1:], np.shape(x_arr))
    y = lax.full_like(x_arr, 0, shape=shape, dtype=lax_dtype(x_arr))
    y, _ = lax.scan(lambda y, c: (y * x_arr + c, None), y, p_arr, unroll=unroll)
    return y


def lax_dtype(x: Any) -> Any:
    return core.get_aval(x).dtype


@inner_jit
def polyadd(a1: Any, a2: Any) -> Any:
    """The sum of two polynomials (the shorter one is aligned to the end)."""
    a1, a2 = (ensure_array("polyadd", a) for a in promote_dtypes(
        *ensure_arraylike("polyadd", a1, a2)))
    if a2.shape[0] <= a1.shape[0]:
        return a1.at[-a2.shape[0]:].add(a2)
    return a2.at[-a1.shape[0]:].add(a1)


@inner_jit
def polysub(a1: Any, a2: Any) -> Any:
    """The difference of two polynomials."""
    a1, a2 = promote_dtypes(*ensure_arraylike("polysub", a1, a2))
    return polyadd(a1, -a2)


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    """The product of two polynomials: the convolution of their coefficients."""
    a1, a2 = promote_dtypes_inexact(*ensure_arraylike("polymul", a1, a2))
    a1, a2 = atleast_1d(a1), atleast_1d(a2)
    if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if len(a1) == 0:
        a1 = zeros(1, dtype=a2.dtype)
    if len(a2) == 0:
        a2 = zeros(1, dtype=a1.dtype)
    return convolve(a1, a2, mode="full")


def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """(quotient, remainder) of polynomial long division, one coefficient per step."""
    u, v = promote_dtypes_inexact(*ensure_arraylike("polydiv", u, v))
    m, n = len(u) - 1, len(v) - 1
    scale = 1. / v[0]
    q = zeros(max(m - n + 1, 1), dtype=u.dtype)
    for k in range(0, m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        u = trim_zeros(u, trim="f")
    return q, u


@inner_jit(static_argnames=("m",))
def polyder(p: Any, m: int = 1) -> Any:
    """The ``m``-th derivative: each coefficient times its falling power."""
    p, = ensure_arraylike("polyder", p)
    m = _concrete_int(m, "'m' argument of jnp.polyder")
    p_arr, = promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p_arr
    coeff = reductions.prod(arange(m, len(p_arr), dtype=p_arr.dtype)[np.newaxis]
                            - arange(m, dtype=p_arr.dtype)[:, np.newaxis], 0)
    return p_arr[:-m] * coeff[::-1]


@inner_jit(static_argnames=("m",))
def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """The ``m``-th antiderivative, with integration constants ``k``."""
    m = _concrete_int(m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    p, k = ensure_arraylike("polyint", p, k)
    p_arr, k_arr = promote_dtypes_inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k_arr = atleast_1d(k_arr)
    if len(k_arr) == 1:
        k_arr = full((m,), k_arr[0])
    if k_arr.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p_arr
    grid = (arange(len(p_arr) + m, dtype=p_arr.dtype)[np.newaxis]
            - arange(m, dtype=p_arr.dtype)[:, np.newaxis])
    coeff = reductions.prod(maximum(1, grid), 0)[::-1]
    return concatenate((p_arr, k_arr)) / coeff


def _concrete_int(x: Any, context: str) -> int:
    if isinstance(x, core.Tracer):
        raise ConcretizationTypeError(x, context)
    return operator.index(x)


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """The roots of the polynomial with coefficients ``p``: the eigenvalues of its
    companion matrix, always complex. Leading zeros are stripped (which needs concrete
    coefficients); with ``strip_zeros=False`` they give NaN roots instead (traceable)."""
    p, = ensure_arraylike("roots", p)
    p, = promote_dtypes_inexact(p)
    p_arr = atleast_1d(p)
    del p
    if np.ndim(p_arr) != 1:
        raise ValueError("Input must be a rank-1 array.")
    if np.size(p_arr) < 2:
        return array([], dtype=_complex_of(p_arr.dtype))
    num_leading_zeros = _where(reductions.all(p_arr == 0), len(p_arr),
                               reductions.argmin(p_arr == 0))
    if strip_zeros:
        if isinstance(num_leading_zeros, core.Tracer):
            raise ConcretizationTypeError(
                num_leading_zeros,
                "The error occurred in the jnp.roots() function. To use this within a "
                "JIT-compiled context, pass strip_zeros=False, but be aware that leading "
                "zeros will result in some returned roots being set to NaN.")
        return _roots_no_zeros(p_arr[int(num_leading_zeros):])
    return _roots_with_zeros(p_arr, num_leading_zeros)


def _complex_of(dtype: Any) -> Any:
    wide = np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.complex128 if wide else np.complex64


@inner_jit
def _roots_no_zeros(p: Any) -> Any:
    """The eigenvalues of the companion matrix (ones below the diagonal, -p[1:]/p[0] on top)."""
    if np.size(p) < 2:
        return array([], dtype=_complex_of(p.dtype))
    A = diag(ones((np.size(p) - 2,), p.dtype), -1)
    A = A.at[0, :].set(-p[1:] / p[0])
    return linalg.eigvals(A)


@inner_jit
def _roots_with_zeros(p: Any, num_leading_zeros: Any) -> Any:
    p = _where(len(p) == num_leading_zeros, 1.0, p)    # all zeros: avoid LAPACK errors
    # roll the leading zeros to the end: a dynamic roll, p[k:] then p[:k], read out of [p, p]
    # (JAX's _roll_dynamic; edujax's roll takes static shifts only)
    n = np.size(p)
    r = _roots_no_zeros(lax.dynamic_slice(concatenate([p, p]), (num_leading_zeros,), (n,)))
    r = lax.sort_key_val(r == 0, r)[1]                 # zero roots sorted to the end
    return _where(arange(np.size(r)) < np.size(r) - num_leading_zeros, r,
                  complex(np.nan, np.nan))


@inner_jit
def poly(seq_of_zeros: Any) -> Any:
    """The monic polynomial whose roots are ``seq_of_zeros``: the product of the
    factors ``(x - r)``, one convolution per root."""
    seq_of_zeros, = ensure_arraylike("poly", seq_of_zeros)
    seq_of_zeros, = promote_dtypes_inexact(seq_of_zeros)
    zeros_arr = atleast_1d(seq_of_zeros)
    sh = zeros_arr.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        zeros_arr = linalg.eigvals(zeros_arr)     # the characteristic polynomial
    if zeros_arr.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = zeros_arr.dtype
    if len(zeros_arr) == 0:
        return ones((), dtype=dt)
    a = ones((1,), dtype=dt)
    for k in range(len(zeros_arr)):
        a = convolve(a, array([1, -zeros_arr[k]], dtype=dt), mode="full")
    return a


@inner_jit(static_argnames=("N", "increasing"))
def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """The Vandermonde matrix: column j holds ``x ** (N - 1 - j)`` (or ``x ** j`` if
    ``increasing``)."""
    x = ensure_array("vander", x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else _concrete_int(N, "'N' argument of jnp.vander()")
    if N < 0:
        raise ValueError("N must be nonnegative")
    iota = lax.iota(x.dtype, N)
    if not increasing:
        iota = lax.sub(np.asarray(N - 1, x.dtype)[()], iota)
    return power(x[..., None], expand_dims(iota, tuple(range(x.ndim))))


@inner_jit(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x: Any, y: Any, deg: int, rcond: float | None = None, full: bool = False,
            w: Any = None, cov: bool = False) -> Any:
    """The coefficients of the degree-``deg`` polynomial closest to the points (x, y)
    in least squares. The Vandermonde columns are scaled to unit length first, which
    keeps the problem well conditioned."""
    if w is None:
        x_arr, y_arr = (ensure_array("polyfit", a) for a in ensure_arraylike("polyfit", x, y))
    else:
        x_arr, y_arr, w = ensure_arraylike("polyfit", x, y, w)
        x_arr, y_arr = ensure_array("polyfit", x_arr), ensure_array("polyfit", y_arr)
    deg = int(deg)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x_arr.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x_arr.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y_arr.ndim < 1 or y_arr.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x_arr.shape[0] != y_arr.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x_arr) * float(np.finfo(x_arr.dtype).eps)  # (an int x: NumPy's error)
    lhs, rhs = vander(x_arr, order), y_arr
    if w is not None:
        w_arr, = promote_dtypes_inexact(w)
        if np.ndim(w_arr) != 1:
            raise TypeError("expected a 1-d array for weights")
        if np.shape(w_arr)[0] != y_arr.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w_arr[:, np.newaxis]
        rhs = rhs * (w_arr[:, np.newaxis] if rhs.ndim == 2 else w_arr)
    scale = sqrt(reductions.sum(lhs * lhs, axis=0))
    lhs = lhs / scale[np.newaxis, :]
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[np.newaxis, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, lax.asarray(rcond)
    if cov:
        vbase = linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
        if cov == "unscaled":
            fac = array(1.0)
        else:
            if len(x_arr) <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            fac = resids / (len(x_arr) - order)
        if y_arr.ndim == 1:
            return c, vbase * atleast_1d(fac)[np.newaxis]
        return c, vbase[:, :, np.newaxis] * atleast_1d(fac)[np.newaxis, np.newaxis, :]
    return c


def trim_zeros(filt: Any, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Any:
    """``filt`` without its leading ('f') and/or trailing ('b') zeros (along every axis,
    or those in ``axis``). The result's length depends on the values: they must be
    concrete."""
    filt = ensure_array("trim_zeros", filt)
    # A tracer may still know its value (under grad, not under jit): its value decides
    # where to cut, and the cut itself is an ordinary, differentiable slice.
    concrete = filt.to_concrete_value() if isinstance(filt, core.Tracer) else filt
    if concrete is None:
        raise ConcretizationTypeError(filt, "Error arose in the `filt` argument of trim_zeros()")
    axes = (range(filt.ndim) if axis is None else
            [canonicalize_axis(a, filt.ndim) for a in (axis if isinstance(axis, (list, tuple))
                                                       else (axis,))])
    axis_set = set(axes)
    if not axis_set or ("f" not in trim.lower() and "b" not in trim.lower()):
        return filt
    values = np.asarray(concrete)

    def _get_slice(ax: int) -> slice:
        if ax not in axis_set:
            return slice(None)
        mask = values.any(axis=tuple(i for i in range(values.ndim) if i != ax))
        if not mask.any():
            return slice(0, 0)
        start = int(mask.argmax()) if "f" in trim.lower() else None
        stop = values.shape[ax] - int(mask[::-1].argmax()) if "b" in trim.lower() else None
        return slice(start, stop)
    return filt[tuple(_get_slice(ax) for ax in range(filt.ndim))]
