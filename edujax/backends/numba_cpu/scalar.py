"""XLA's scalar semantics where Python's (or C's) differ, as small Numba functions.

The generated kernels call these on one element at a time. They are tiny, so LLVM inlines
them into the loop and can still vectorize it. Each one mirrors a NumPy reference rule in
``edujax/lax/elementwise.py``; the comment says which corner case it exists for.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from edujax.backends.numba_cpu.llvm import inline_into_callers

# Each helper is compiled once (and cached on disk). Its first line, inline_into_callers(),
# marks it for LLVM's inliner, which pastes it into the kernel's loop so that the loop can be
# vectorized whatever the helper's size. (Not Numba's inline="always": that pastes the
# Python-level IR, typed and lowered again at every call site, which made long programs
# slow to compile; see docs/performance.md, "Compile time".)
jit_helper = njit(cache=True, error_model="numpy")


@jit_helper
def fmax_nan(x, y):
    """np.maximum: NaN wins, and on a tie the first operand is kept (max(-0.0, 0.0) = -0.0)."""
    inline_into_callers()
    return x if (x >= y or x != x) else y


@jit_helper
def fmin_nan(x, y):
    """np.minimum: NaN wins, and on a tie the first operand is kept."""
    inline_into_callers()
    return x if (x <= y or x != x) else y


@jit_helper
def sign(x, one):
    """-1, 0 or 1; NaN and the signed zeros come back as they are (sign(-0.0) = -0.0)."""
    inline_into_callers()
    y = one if x > 0 else x
    return -one if x < 0 else y


@jit_helper
def int_div(x, y):
    """Integer division rounds toward zero (C), not down (Python); x / 0 is -1."""
    inline_into_callers()
    if y == 0:
        return -1
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


@jit_helper
def int_rem(x, y):
    """The remainder of truncated division has the dividend's sign; x % 0 is x."""
    inline_into_callers()
    if y == 0:
        return x
    r = abs(x) % abs(y)
    return -r if x < 0 else r


@jit_helper
def round_half_away(x):
    """round(x) with halves away from zero (2.5 -> 3, -2.5 -> -3); keeps -0.0 and NaN."""
    inline_into_callers()
    magnitude = abs(x)
    whole = np.floor(magnitude)
    whole = whole + (magnitude - whole >= 0.5)
    return np.copysign(whole, x)


@jit_helper
def shift_left(x, y, bits):
    """XLA: shifting by a negative amount or by >= the bit width gives 0.

    (``x ^ x`` is a zero of x's own type: a plain ``0`` could make Numba unify uint64 and
    int64 into float64.)"""
    inline_into_callers()
    return x << y if 0 <= y < bits else x ^ x


@jit_helper
def shift_right_arithmetic(x, y, bits):
    """Out-of-range shifts keep only the sign (all ones for negative x, else 0)."""
    inline_into_callers()
    return x >> y if 0 <= y < bits else x >> (bits - 1)


@jit_helper
def shift_right_logical(x, y, bits):
    """``x`` and ``y`` arrive reinterpreted as unsigned, so ``>>`` shifts zeros in (and a
    negative ``y`` becomes a huge one: out of range)."""
    inline_into_callers()
    return x >> y if 0 <= y < bits else x ^ x


@jit_helper
def total_lt(x, y):
    """lt_to on floats: x < y in the total order -NaN < -inf < ... < -0.0 < 0.0 < ... < inf
    < NaN (a NaN's place is set by its sign bit, which copysign reads).
    NB: XLA (and the reference rule) also order NaNs by their payload bits; here two NaNs of
    one sign are equal. Sorting canonicalizes NaNs first, so no program we know of sees it."""
    inline_into_callers()
    x_neg, y_neg = math.copysign(1.0, x) < 0.0, math.copysign(1.0, y) < 0.0
    x_place = 1 if x == x else (0 if x_neg else 2)  # -NaN, a number, +NaN
    y_place = 1 if y == y else (0 if y_neg else 2)
    if x_place != y_place:
        return x_place < y_place
    if x == y:
        return x_neg and not y_neg  # only -0.0 < 0.0 differs from <
    return x < y


@jit_helper
def float_to_int(x, lo, hi):
    """float -> int as XLA casts: truncate toward zero, saturate at [lo, hi], NaN -> 0.

    Written as selects, one after the other: a chain of if/return would stop LLVM from
    vectorizing the loop (the conversion of an out-of-range float is fixed up after)."""
    inline_into_callers()
    t = np.float64(x)
    clamped = t if t > lo else np.float64(lo)
    clamped = clamped if clamped < hi else np.float64(hi)
    i = np.int64(clamped)
    return i if t == t else np.int64(0)


@jit_helper
def float_to_int64(x):
    """Like float_to_int, for int64, whose bounds are not exactly representable as floats."""
    inline_into_callers()
    t = np.float64(x)
    i = np.int64(t if abs(t) < 9.223372036854775808e18 else 0.0)  # |t| < 2^63 converts
    i = np.int64(9223372036854775807) if t >= 9.223372036854775808e18 else i
    i = np.int64(-9223372036854775808) if t <= -9.223372036854775808e18 else i
    return i if t == t else np.int64(0)


@jit_helper
def float_to_uint64(x):
    """Like float_to_int, for uint64."""
    inline_into_callers()
    t = np.float64(x)
    i = np.uint64(t if (t > 0.0) & (t < 1.8446744073709551616e19) else 0.0)  # t < 2^64
    return np.uint64(18446744073709551615) if t >= 1.8446744073709551616e19 else i
