"""1-D signal processing: convolve, correlate, interp, unwrap and the window functions
(bartlett, blackman, hamming, hanning).

``convolve`` and ``correlate`` slide one sequence along the other. As JAX does, they hand
the work to the convolution primitive (``lax.conv_general_dilated``): the two sequences
become a batch of one, with one channel, and the padding says which part of the full
result to keep.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.numpy import reductions
from edujax.numpy.complex_numbers import conj
from edujax.numpy.differences import diff
from edujax.numpy.shape_ops import concatenate, flip
from edujax.numpy.sorting import searchsorted
from edujax.numpy.ufuncs import _where, absolute, clip, cos, remainder
from edujax.numpy.util import ensure_arraylike, promote_dtypes, promote_dtypes_inexact


@inner_jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x: Any, y: Any, mode: str, op: str, precision: Any,
          preferred_element_type: Any = None) -> Any:
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = promote_dtypes_inexact(x, y)  # NumPy's default for convolutions
    else:
        x, y = promote_dtypes(x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    out_order = slice(None)
    if op == "correlate":
        y = conj(y)
        if x.shape[0] < y.shape[0]:  # correlation is not symmetric: swap, then reverse
            x, y = y, x
            out_order = slice(None, None, -1)
    elif op == "convolve":
        if x.shape[0] < y.shape[0]:
            x, y = y, x
        y = flip(y)  # a convolution is a correlation with the kernel reversed
    m = y.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(m // 2, m - m // 2 - 1)]
    elif mode == "full":
        padding = [(m - 1, m - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = lax.conv_general_dilated(x[None, None, :], y[None, None, :], (1,), padding,
                                      precision=precision,
                                      preferred_element_type=preferred_element_type)
    return result[0, 0, out_order]


@inner_jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a: Any, v: Any, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Any:
    """The discrete convolution of two 1-D sequences, ``sum_j a[j] * v[k - j]``."""
    a, v = ensure_arraylike("convolve", a, v)
    return _conv(a, v, mode=mode, op="convolve", precision=precision,
                 preferred_element_type=preferred_element_type)


@inner_jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a: Any, v: Any, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """The cross-correlation of two 1-D sequences, ``sum_j a[k + j] * conj(v[j])``."""
    a, v = ensure_arraylike("correlate", a, v)
    return _conv(a, v, mode=mode, op="correlate", precision=precision,
                 preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------- interpolation
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:
    """Piecewise-linear interpolation of the points (xp, fp) at ``x``; outside
    [xp[0], xp[-1]] the value is ``left``/``right`` (by default the end values), or
    with ``period`` the points repeat periodically. ``"extrapolate"`` for ``left``/``right``
    continues the end segments' lines instead.

    As in JAX, the work is an inner jit (``_interp``) in which ``left``, ``right`` and
    ``period`` are static when they are None or a string, traced when they are values."""
    static = tuple(name for name, value in (("left", left), ("right", right),
                                             ("period", period))
                   if value is None or (name != "period" and isinstance(value, str)))
    jitted = _interp_jits.get(static)
    if jitted is None:
        jitted = _interp_jits[static] = inner_jit(_interp, static_argnames=static)
    return jitted(x, xp, fp, left, right, period)


_interp_jits: dict[tuple, Any] = {}  # one inner jit per choice of static arguments


def _interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
            period: Any = None) -> Any:
    x, xp, fp = ensure_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x_arr, xp_arr = promote_dtypes_inexact(x, xp)
    fp_arr, = promote_dtypes_inexact(fp)
    extrapolate_left = _is_extrapolate("left", left)
    extrapolate_right = _is_extrapolate("right", right)
    if period is not None:
        x_arr, xp_arr, fp_arr = _periodic(x_arr, xp_arr, fp_arr, period)
    i = clip(searchsorted(xp_arr, x_arr, side="right"), 1, xp_arr.shape[0] - 1)
    df = fp_arr[i] - fp_arr[i - 1]
    dx = xp_arr[i] - xp_arr[i - 1]
    delta = x_arr - xp_arr[i - 1]
    # two equal xp values would divide by zero: take the left value there (and keep the
    # division's NaN out of the gradient with a second where)
    epsilon = np.spacing(np.finfo(xp_arr.dtype).eps)
    dx0 = lax.abs(dx) <= epsilon
    f = _where(dx0, fp_arr[i - 1], fp_arr[i - 1] + (delta / _where(dx0, 1, dx)) * df)
    if not extrapolate_left:
        left_value = fp_arr[0] if left is None else left  # (made first, as in JAX)
        if period is None:
            f = _where(x_arr < xp_arr[0], left_value, f)
    if not extrapolate_right:
        right_value = fp_arr[-1] if right is None else right
        if period is None:
            f = _where(x_arr > xp_arr[-1], right_value, f)
    return f


def _is_extrapolate(side: str, value: Any) -> bool:
    """``left="extrapolate"`` continues the first segment's line beyond the points."""
    if isinstance(value, str):
        if value != "extrapolate":
            raise ValueError(f"the only valid string value of `{side}` is 'extrapolate', but "
                             f"got: {value!r}")
        return True
    return False


def _periodic(x: Any, xp: Any, fp: Any, period: Any) -> tuple[Any, Any, Any]:
    """Fold everything into one period and extend the points by one on each side."""
    if np.ndim(period) != 0:
        raise ValueError(f"period must be a scalar; got {period}")
    period = absolute(period)
    x, xp = remainder(x, period), remainder(xp, period)
    xp, fp = lax.sort_key_val(xp, fp)
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
    return x, xp, fp


@inner_jit(static_argnames=("axis",))
def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
    """Undo jumps larger than ``discont`` (by default half a period) between neighbours
    by adding multiples of ``period``: phase angles become a continuous curve."""
    p, = ensure_arraylike("unwrap", p)
    p, period = promote_dtypes(p, period)
    if not isinstance(period, core.Tracer):
        period = lax.stage(period)  # the default period: JAX's promotion stages it (lax.stage)
    if p.dtype.kind == "c":
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if p.dtype.kind in "iu" else period / 2
    dd = diff(p, axis=axis)
    ddmod = remainder(dd + interval, period) - interval
    ddmod = _where((ddmod == -interval) & (dd > 0), interval, ddmod)
    ph_correct = _where(lax.abs(dd) < discont, 0, ddmod - dd)
    return concatenate((lax.slice_in_dim(p, 0, 1, axis=axis),
                        lax.slice_in_dim(p, 1, None, axis=axis)
                        + reductions.cumsum(ph_correct, axis=axis)), axis=axis)


# ---------------------------------------------------------------- windows
def _window_points(M: Any, name: str) -> Any:
    """(M, n): the window length as an int, and 0, 1, ..., M-1 as floats; or (M, None)
    for a window of length 0 or 1 (all ones)."""
    if isinstance(M, core.Tracer):
        raise ConcretizationTypeError(M, f"M argument of jnp.{name}")
    M = int(M)
    if M <= 1:
        return M, None
    return M, lax.iota(dtypes.float_dtype(), M)


def _ones(M: int) -> Any:
    return lax.full((M,), 1, dtypes.float_dtype())


def bartlett(M: int) -> Any:
    """The triangular window: rising linearly from 0 to 1 and back."""
    M, n = _window_points(M, "bartlett")
    return _ones(M) if n is None else 1 - lax.abs(2 * n + 1 - M) / (M - 1)


def hamming(M: int) -> Any:
    """The Hamming window, ``0.54 - 0.46 cos(2 pi n / (M-1))``."""
    M, n = _window_points(M, "hamming")
    return _ones(M) if n is None else 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1))


def hanning(M: int) -> Any:
    """The Hann window, ``0.5 (1 - cos(2 pi n / (M-1)))``."""
    M, n = _window_points(M, "hanning")
    return _ones(M) if n is None else 0.5 * (1 - cos(2 * np.pi * n / (M - 1)))


def blackman(M: int) -> Any:
    """The Blackman window: three cosine terms, smaller side lobes than Hann's."""
    M, n = _window_points(M, "blackman")
    if n is None:
        return _ones(M)
    return (0.42 - 0.5 * cos(2 * np.pi * n / (M - 1))
            + 0.08 * cos(4 * np.pi * n / (M - 1)))
