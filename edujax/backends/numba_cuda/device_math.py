"""The scalar functions the CUDA kernels call: math, and XLA's semantics where C's differ.

Generated kernels call these by name, one element at a time (``c = exp(a)``,
``d = int_div(a, b)``). The names are the same for a real GPU and for Numba's CUDA
simulator, but what stands behind them differs, on purpose:

* On a GPU, ``exp`` *is* ``math.exp``: Numba compiles it to CUDA's libdevice (``__nv_expf``
  for a float32, within 2 ulp), and the helpers below are ``@cuda.jit(device=True)``
  functions, inlined into the kernel.
* The simulator runs kernels as plain Python on NumPy scalars. There ``math.exp(1000.0)``
  raises OverflowError and ``math.log(-1.0)`` ValueError, where a GPU returns ``inf`` and
  ``nan``; so the same names are NumPy's ufuncs, which follow IEEE arithmetic as the GPU
  does (quietly: a NaN is an answer here, not a warning).

The XLA helpers (``int_div``, ``fmax_nan``, ``float_to_int``, ...) mirror the NumPy
reference rules of ``edujax/lax/elementwise.py`` and the CPU backend's ``scalar.py``; each
docstring says which corner case it is for.
"""
from __future__ import annotations

import math

import numpy as np

from edujax.backends.numba_cpu import scalar
from edujax.backends.numba_cuda.runtime import cuda, simulator

SIMULATOR = simulator()
device = cuda().jit(device=True)


def _quiet(ufunc: np.ufunc):
    """``ufunc`` without NumPy's warnings (simulator threads start with the default errstate)."""
    def call(*args):
        with np.errstate(all="ignore"):
            return ufunc(*args)
    call.__name__ = ufunc.__name__
    return call


def _pick(gpu, sim: np.ufunc):
    """What a name means: ``gpu`` in a kernel compiled for a GPU, ``sim`` in the simulator."""
    return _quiet(sim) if SIMULATOR else gpu


# ---------------------------------------------------------------- math
exp, log, log1p = _pick(math.exp, np.exp), _pick(math.log, np.log), _pick(math.log1p, np.log1p)
expm1, exp2 = _pick(math.expm1, np.expm1), _pick(math.exp2, np.exp2)
sin, cos, tan = _pick(math.sin, np.sin), _pick(math.cos, np.cos), _pick(math.tan, np.tan)
asin, acos, atan = _pick(math.asin, np.arcsin), _pick(math.acos, np.arccos), \
    _pick(math.atan, np.arctan)
sinh, cosh, tanh = _pick(math.sinh, np.sinh), _pick(math.cosh, np.cosh), \
    _pick(math.tanh, np.tanh)
asinh, acosh, atanh = _pick(math.asinh, np.arcsinh), _pick(math.acosh, np.arccosh), \
    _pick(math.atanh, np.arctanh)
sqrt, fabs = _pick(math.sqrt, np.sqrt), _pick(math.fabs, np.fabs)
floor, ceil = _pick(math.floor, np.floor), _pick(math.ceil, np.ceil)
isfinite, copysign = _pick(math.isfinite, np.isfinite), _pick(math.copysign, np.copysign)
atan2, fmod = _pick(math.atan2, np.arctan2), _pick(math.fmod, np.fmod)
nextafter = _pick(math.nextafter, np.nextafter)


@device
def _rint_gpu(x):
    """Round half to even: x - remainder(x, 1) (IEEE's remainder rounds the quotient to
    even), keeping the sign of a zero result (rint(-0.3) = -0.0)."""
    return math.copysign(x - math.remainder(x, 1.0), x) if math.isfinite(x) else x


@device
def _cbrt_gpu(x):
    """Cube root of any sign (x ** (1/3) would be NaN for x < 0)."""
    return math.copysign(math.pow(math.fabs(x), 1.0 / 3.0), x)


rint, cbrt = _pick(_rint_gpu, np.rint), _pick(_cbrt_gpu, np.cbrt)


@device
def erf(x):
    """The reference computes erf in float64 and rounds once: so do we (x is a float64)."""
    return math.erf(x)


@device
def logistic(x):
    """1 / (1 + e^-x)."""
    return 1.0 / (1.0 + exp(-x))


# ---------------------------------------------------------------- XLA's semantics
# fmax_nan, fmin_nan, sign, int_div, int_rem, total_lt: the CPU helpers' very Python functions
# (edujax/backends/numba_cpu/scalar.py, where each corner case is explained), compiled for
# the GPU.
fmax_nan = device(scalar.fmax_nan.py_func)
fmin_nan = device(scalar.fmin_nan.py_func)
sign = device(scalar.sign.py_func)
int_div = device(scalar.int_div.py_func)
int_rem = device(scalar.int_rem.py_func)
total_lt = device(scalar.total_lt.py_func)


@device
def round_half_away(x):
    """round(x) with halves away from zero (2.5 -> 3, -2.5 -> -3); keeps -0.0 and NaN."""
    magnitude = fabs(x)
    whole = floor(magnitude)
    whole = whole + 1.0 if magnitude - whole >= 0.5 else whole
    return copysign(whole, x)


@device
def shift_left(x, y, bits):
    """XLA: shifting by a negative amount or by >= the bit width gives 0."""
    return x << y if 0 <= y < bits else x ^ x


@device
def shift_right_arithmetic(x, y, bits):
    """Out-of-range shifts keep only the sign (all ones for negative x, else 0)."""
    return x >> y if 0 <= y < bits else x >> (bits - 1)


@device
def shift_right_logical(x, y, bits):
    """``x`` and ``y`` arrive reinterpreted as unsigned, so ``>>`` shifts zeros in."""
    return x >> y if 0 <= y < bits else x ^ x


@device
def float_to_int(x, lo, hi):
    """float -> int as XLA casts: truncate toward zero, saturate at [lo, hi], NaN -> 0."""
    t = np.float64(x)
    clamped = t if t > lo else np.float64(lo)
    clamped = clamped if clamped < hi else np.float64(hi)
    return np.int64(clamped) if t == t else np.int64(0)


@device
def float_to_int64(x):
    """Like float_to_int, for int64, whose bounds are not exactly representable as floats."""
    t = np.float64(x)
    if t != t:
        return np.int64(0)
    if t >= 9.223372036854775808e18:
        return np.int64(9223372036854775807)
    if t <= -9.223372036854775808e18:
        return np.int64(-9223372036854775808)
    return np.int64(t)


@device
def float_to_uint64(x):
    """Like float_to_int, for uint64."""
    t = np.float64(x)
    if t >= 1.8446744073709551616e19:
        return np.uint64(18446744073709551615)
    return np.uint64(t) if t > 0.0 else np.uint64(0)


# ---------------------------------------------------------------- reductions: the tree's steps
@device
def arg_better(value, index, best, best_index, largest):
    """Does (value, index) beat (best, best_index) in an argmax (largest) or argmin?

    The first NaN wins, then the largest (smallest) value, then the smaller index: the
    order in which the threads' partial results meet does not change the answer."""
    if value != value or best != best:
        return value != value and (best == best or index < best_index)
    if value == best:
        return index < best_index
    return value > best if largest else value < best
