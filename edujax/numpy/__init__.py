"""``edujax.numpy``: the NumPy API, written entirely in terms of ``edujax.lax``.

Import it as ``jnp``. Every function checks and promotes its arguments the way
JAX does (util.py) and then calls lax, so the same code runs eagerly, under
``make_jaxpr`` and (later) under every transformation.
"""
from __future__ import annotations

import inspect as _inspect
from typing import Any as _Any

import numpy as _np

from edujax import dtypes as _dtypes
from edujax import nan_checks as _nan_checks
from edujax.array import Array
from edujax.numpy import array_methods as _array_methods  # noqa: F401  (attaches operators)
from edujax.numpy.creation import (arange, array, asarray, empty, empty_like, eye, full,
                                   full_like, identity, linspace, meshgrid, ones, ones_like, tri,
                                   zeros, zeros_like)
from edujax.numpy.products import (dot, inner, kron, matmul, outer, tensordot, vdot, vecdot)
from edujax.numpy.reductions import (all, amax, amin, any, argmax, argmin, average, count_nonzero,
                                     cumprod, cumsum, cumulative_prod, cumulative_sum, max, mean,
                                     min, prod, ptp, std, sum, var)
from edujax.numpy.reductions import allclose
from edujax.numpy.jitted_in_jax import INLINE_HELPERS as _INLINE_HELPERS
from edujax.numpy.jitted_in_jax import JITTED_IN_JAX as _JITTED_IN_JAX
from edujax.numpy.jitted_in_jax import jitted_in_jax as _jitted_in_jax
from edujax.numpy.scalar_types import (bool_, complex64, complex128, complex_,
                                       float16, float32, float64, float_, int8, int16, int32,
                                       int64, int_, uint8, uint16, uint32, uint64)
from edujax.numpy.shape_ops import (array_split, atleast_1d, atleast_2d, atleast_3d,
                                    broadcast_arrays, column_stack, concatenate, dstack,
                                    expand_dims, flip, fliplr, flipud, hsplit, hstack, moveaxis,
                                    ndim, permute_dims, ravel, repeat, reshape, roll, rot90, shape,
                                    size, split, squeeze, stack, swapaxes, tile, transpose, vsplit,
                                    vstack)
from edujax.numpy.sorting import (argsort, argwhere, flatnonzero, nonzero, searchsorted, sort,
                                  sort_complex, where)
from edujax.numpy.diagonals import diag, diagonal, trace, tril, triu
from edujax.numpy.einsum import einsum
from edujax.numpy.ufuncs import (abs, absolute, add, arccos, arccosh, arcsin, arcsinh, arctan,
                                 arctan2, arctanh, around, bitwise_and, bitwise_not, bitwise_or,
                                 bitwise_xor, cbrt, ceil, clip, copysign, cos, cosh, deg2rad,
                                 degrees, divide, divmod, equal, exp, exp2, expm1, float_power,
                                 floor, floor_divide, fmod, greater, greater_equal, heaviside,
                                 hypot, invert, isfinite, isinf, isnan, left_shift, less,
                                 less_equal, log, log1p, log2, log10, logaddexp, logical_and,
                                 logical_not, logical_or, logical_xor, maximum, minimum, mod,
                                 multiply, negative, nextafter, not_equal, positive, power,
                                 rad2deg, radians, reciprocal, remainder, right_shift, rint,
                                 round, sign, signbit, sin, sinh, sqrt, square, subtract, tan,
                                 tanh, true_divide, trunc)
from edujax.numpy.ufuncs import isclose
from edujax.numpy.util import broadcast_shapes, broadcast_to
# Complex numbers and the FFT (issue 17, slice cplx).
from edujax.numpy.complex_numbers import (angle, conj, conjugate, imag, iscomplex, iscomplexobj,
                                          isreal, isrealobj, real)
from edujax.numpy import fft
# -- jnp breadth (issue 17): more ufuncs, Array API names, NaN reductions, ...
from edujax.numpy.more_ufuncs import (fabs, fmax, fmin, frexp, gcd, isneginf, isposinf, lcm,
                                      ldexp, logaddexp2, modf, nan_to_num, sinc, spacing)
from edujax.numpy.array_api_names import (ComplexWarning, acos, acosh, asin, asinh, astype, atan,
                                          atan2, atanh, bitwise_invert, bitwise_left_shift,
                                          bitwise_right_shift, can_cast, character, concat,
                                          flexible, get_printoptions, isdtype, iterable,
                                          matrix_transpose, object_, pow, printoptions,
                                          set_printoptions, unstack)
from edujax.numpy.nan_reductions import (nanargmax, nanargmin, nancumprod, nancumsum, nanmax,
                                         nanmean, nanmin, nanprod, nanstd, nansum, nanvar)
from edujax.numpy.scalar_types import bool_ as bool, float32 as single, float64 as double
from edujax.numpy.scalar_types import uint64 as uint
from edujax.numpy.scalar_types import complex64 as csingle, complex128 as cdouble
from edujax.numpy.differences import diff, ediff1d, gradient, trapezoid
from edujax.numpy.statistics import (corrcoef, cov, median, nanmedian, nanpercentile,
                                     nanquantile, percentile, quantile)
from edujax.numpy.functional import (apply_along_axis, apply_over_axes, fromfunction, piecewise,
                                     vectorize)
from edujax.numpy.padding import pad
from edujax.numpy.editing import (append, choose, compress, delete, extract, insert,
                                  put_along_axis, select, take, take_along_axis)
from edujax.numpy.index_tricks import (c_, diag_indices, diag_indices_from, index_exp, indices, ix_,
                                       mask_indices, mgrid, ogrid, r_, ravel_multi_index, s_,
                                       tril_indices, tril_indices_from, triu_indices,
                                       triu_indices_from, unravel_index)
from edujax.numpy.set_ops import (intersect1d, isin, setdiff1d, setxor1d, union1d, unique,
                                  unique_all, unique_counts, unique_inverse, unique_values)
from edujax.numpy.histograms import (bincount, digitize, histogram, histogram2d,
                                     histogram_bin_edges, histogramdd)
from edujax.numpy.signal import (bartlett, blackman, convolve, correlate, hamming, hanning, interp,
                                 unwrap)
from edujax.numpy.polynomials import (poly, polyadd, polyder, polydiv, polyfit, polyint, polymul,
                                      polysub, polyval, roots, trim_zeros, vander)
from edujax.numpy.misc import (argpartition, array_equiv, array_repr, array_str, block, copy,
                               cross, diagflat, dsplit, fill_diagonal, frombuffer, fromfile,
                               fromiter, fromstring, geomspace, lexsort, load, logspace, matvec,
                               partition, place, put, resize, rollaxis, save, savez, vecmat)
from edujax.numpy.misc import bitwise_count, packbits, unpackbits
from edujax.numpy.ufunc_class import frompyfunc, ufunc
from edujax.numpy.einsum_path import einsum_path
from edujax.numpy.bessel import i0, kaiser

ndarray = Array
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None
dtype = _np.dtype
iinfo, finfo = _np.iinfo, _np.finfo
promote_types = _dtypes.promote_types
issubdtype = _np.issubdtype
integer, signedinteger, unsignedinteger = _np.integer, _np.signedinteger, _np.unsignedinteger
floating, complexfloating, inexact, number = (_np.floating, _np.complexfloating, _np.inexact,
                                              _np.number)
generic = _np.generic


def result_type(*args: _Any) -> _np.dtype:
    """The dtype that ``args`` promote to (JAX's lattice, weak Python scalars included)."""
    return _dtypes.result_type(*args)


def isscalar(element: _Any) -> bool:
    return _np.ndim(element) == 0 and isinstance(element, (Array, _np.generic, int, float,
                                                           complex, bool))


def array_equal(a1: _Any, a2: _Any, equal_nan: bool = False) -> Array:
    """True if the arrays have the same shape and the same elements."""
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return array(False, dtype=bool)
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all(eq)
from edujax.numpy import linalg  # noqa: E402  (jnp.linalg; built on the names above)


def _register_jax_jits() -> None:
    """The functions JAX runs as jitted programs behave so under jax_debug_nans
    (jitted_in_jax.py, nan_checks.py); with the switch off, they only forward the call."""
    namespace = globals()
    wrapped: dict = {}  # one wrapper per function: aliases (divide, true_divide) stay equal
    for name in sorted(_JITTED_IN_JAX | _INLINE_HELPERS):
        fun = namespace.get(name)
        if fun is None or hasattr(fun, "_inner_jit"):  # (inner jits check themselves)
            continue
        _nan_checks.add_jit_bodies([_inspect.unwrap(fun).__code__])
        if id(fun) not in wrapped:
            wrapped[id(fun)] = _jitted_in_jax(fun)
        namespace[name] = wrapped[id(fun)]


_register_jax_jits()
