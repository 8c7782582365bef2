"""Branch-free math for float32 kernels: exp, log, log1p, expm1, tanh, logistic, sin, cos, pow.

Why not just call ``np.exp`` inside the loop? Numba turns it into a call to the C library's
``expf``, one element at a time: LLVM cannot vectorize a loop around an opaque call, so the
loop runs 3-8 times slower than it could. The functions below are written with operations
LLVM knows (``+ - * /``, fused multiply-add, ``floor``, comparisons, bit casts between floats
and integers) and without branches (``a if c else b`` on values becomes a vector *select*),
so that a loop calling them processes 8 or 16 floats per instruction.

Each one takes and returns a float32 and is within 2 ulp of the correctly rounded result
over the whole float32 range, including 0, -0.0, ±inf, NaN, subnormals and the overflow
bounds (``tests/test_numba_math.py`` checks this on dense grids). Two strategies:

* ``exp`` and ``log``, the hot ones, compute in float32 with the classic recipe: split the
  argument into an integer part handled with exponent bits and a small remainder handled
  with a polynomial (Cody & Waite's reduction; Cephes' coefficients for ``log``, a
  fitted degree-6 polynomial for ``exp``), using fused
  multiply-add so that rounding errors stay below one ulp.
* the others compute in float64 and round once at the end: a float64 polynomial carries
  ~50 correct bits, so the float32 result is within one ulp almost for free. Vectors of
  float64 are half as wide, which these functions can afford.

``sin``/``cos`` need one more idea for huge arguments (``sin(1e30)``): the remainder of x
modulo pi/2 must be exact even though x is 2^100 times larger than pi. For |x| >= 1e5 the
multiplication by 2/pi is done in 64-bit integer arithmetic with the bits of 2/pi that
matter for x's exponent (Payne and Hanek's method; the table is computed at import from
Machin's formula, so no magic constants are typed in).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from edujax.backends.numba_cpu.llvm import (f32_bits, f32_from_bits, f64_bits, f64_from_bits, fma,
                                            inline_into_callers, scale_by_pow2)

# Compiled once each, then pasted into the kernels by LLVM (see inline_into_callers).
jit_helper = njit(cache=True, error_model="numpy")


# ---------------------------------------------------------------- constants
F32 = np.float32
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # fdlibm's split


def _pi_times(bits: int) -> int:
    """floor(pi * 2**bits), from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239)."""
    one = 1 << (bits + 32)

    def arctan_inv(k: int) -> int:  # atan(1/k) * one, by its Taylor series
        total, term, n, sign = 0, one // k, 1, 1
        while term:
            total += sign * (term // n)
            term //= k * k
            n, sign = n + 2, -sign
        return total
    return (16 * arctan_inv(5) - 4 * arctan_inv(239)) >> 32


_PI_BITS = 400
_PI = _pi_times(_PI_BITS)  # pi * 2**400
_TWO_OVER_PI = (2 << (2 * _PI_BITS)) // _PI  # (2/pi) * 2**400


def _two_over_pi_table() -> np.ndarray:
    """Row e: (2^(e-150) * 2/pi) mod 4 as a fixed-point number with 94 fractional bits,
    in three 32-bit words. A float32 with exponent field e is m * 2^(e-150) (m: 24-bit
    integer mantissa), so m times row e is x * 2/pi mod 4, the quadrant and the remainder."""
    rows = []
    for e in range(256):
        shift = _PI_BITS - (e - 150 + 94)
        h = (_TWO_OVER_PI >> shift) & ((1 << 96) - 1)
        rows.append([(h >> 64) & 0xFFFFFFFF, (h >> 32) & 0xFFFFFFFF, h & 0xFFFFFFFF])
    return np.array(rows, dtype=np.uint64)


TWO_OVER_PI_TABLE = _two_over_pi_table()
TWO_OVER_PI = float(_TWO_OVER_PI) / 2.0 ** _PI_BITS
# pi/2 in two parts: the first has 33 significant bits, so k * PIO2_HI is exact for k < 2^20.
PIO2_HI = float((_PI >> (_PI_BITS - 32)) << (_PI_BITS - 32) >> 1) / 2.0 ** _PI_BITS
PIO2_LO = float((_PI >> 1) - ((_PI >> (_PI_BITS - 32)) << (_PI_BITS - 32) >> 1)) / 2.0 ** _PI_BITS
PIO2_TIMES_2M62 = float(_PI >> 1) / 2.0 ** (_PI_BITS + 62)  # (pi/2) * 2^-62


# ---------------------------------------------------------------- exp and log in float32
@jit_helper
def exp_f32(x):
    """e^x: x = n*ln2 + r with |r| <= ln2/2, e^x = 2^n * e^r, e^r = 1 + r + r^2 q(r)."""
    inline_into_callers()
    # Clamp with max/min (one vmaxps/vminps each; NaN comes out as a bound, fixed at the end).
    xc = min(max(x, F32(-104.0)), F32(89.0))
    n = np.floor(fma(xc, F32(LOG2E), F32(0.5)))
    r = fma(n, F32(-0.693359375), xc)  # ln2 in two parts: n * 0.693359375 is exact
    r = fma(n, F32(2.12194440e-4), r)
    # q of degree 4, fitted to (e^r - 1 - r) / r^2 on [-ln2/2, ln2/2] for the smallest
    # relative error in e^r (3.8e-9 with its float32 coefficients, a sixteenth of float32's
    # half ulp): one multiply fewer than Cephes' (degree 5), and the loop is bound by the
    # multiply units (selu: 6% faster).
    p = fma(F32(1.3751493534e-3), r, F32(8.3689512685e-3))
    p = fma(p, r, F32(4.1669536382e-2))
    p = fma(p, r, F32(1.6666518152e-1))
    p = fma(p, r, F32(4.9999988079e-1))
    p = fma(p, r * r, r) + F32(1.0)
    # p * 2^n rounded once, so that results that overflow to inf or underflow to
    # subnormals are rounded correctly: one instruction where the CPU has one (llvm.py).
    y = scale_by_pow2(p, np.int32(n))
    return y if x == x else x


@jit_helper
def _log_parts(x):
    """x = 2^e * m with m in [sqrt(1/2), sqrt(2)): returns (e as float32, m - 1)."""
    inline_into_callers()
    subnormal = x < F32(1.17549435e-38)
    xs = x * F32(8388608.0) if subnormal else x  # 2^23 makes a subnormal normal
    bits = f32_bits(xs)
    e = ((bits >> 23) & 0xFF) - 127 - (23 if subnormal else 0)
    m = f32_from_bits((bits & 0x7FFFFF) | 0x3F800000)  # the mantissa, in [1, 2)
    big = m > F32(1.41421356)
    m = m * F32(0.5) if big else m
    e = e + 1 if big else e
    return F32(e), m - F32(1.0)  # m - 1 is exact


@jit_helper
def log_f32(x):
    """log(x) = e*ln2 + log(1 + f), log(1 + f) = f - f^2/2 + f^3 * P(f) (Cephes' logf)."""
    inline_into_callers()
    e, f = _log_parts(x)
    z = f * f
    p = fma(F32(7.0376836292e-2), f, F32(-1.1514610310e-1))
    p = fma(p, f, F32(1.1676998740e-1))
    p = fma(p, f, F32(-1.2420140846e-1))
    p = fma(p, f, F32(1.4249322787e-1))
    p = fma(p, f, F32(-1.6668057665e-1))
    p = fma(p, f, F32(2.0000714765e-1))
    p = fma(p, f, F32(-2.4999993993e-1))
    p = fma(p, f, F32(3.3333331174e-1))
    y = p * f * z
    y = fma(e, F32(-2.12194440e-4), y)
    y = fma(z, F32(-0.5), y)
    y = fma(e, F32(0.693359375), f + y)
    y = y if x > F32(0.0) else (F32(-np.inf) if x == F32(0.0) else F32(np.nan))
    return y if x != F32(np.inf) else x


# ---------------------------------------------------------------- float64 cores
@jit_helper
def _exp64(t):
    """e^t in float64 for |t| < 700, to about 1e-15 relative."""
    inline_into_callers()
    t = t if t > -700.0 else -700.0
    t = t if t < 700.0 else 700.0
    n = np.floor(t * LOG2E + 0.5)
    r = (t - n * LN2_HI) - n * LN2_LO  # |r| <= ln2/2: the Taylor series below is enough
    p = (((((((((r * (1 / 39916800) + 1 / 3628800) * r + 1 / 362880) * r + 1 / 40320) * r
               + 1 / 5040) * r + 1 / 720) * r + 1 / 120) * r + 1 / 24) * r + 1 / 6) * r
         + 0.5) * r * r + r + 1.0
    return p * f64_from_bits((np.int64(n) + 1023) << 52)


@jit_helper
def _expm1_64(t):
    """e^t - 1 in float64: a Taylor series near 0 (no cancellation), else _exp64(t) - 1."""
    inline_into_callers()
    small = ((((((((((t * (1 / 479001600) + 1 / 39916800) * t + 1 / 3628800) * t
                     + 1 / 362880) * t + 1 / 40320) * t + 1 / 5040) * t + 1 / 720) * t
                  + 1 / 120) * t + 1 / 24) * t + 1 / 6) * t + 0.5) * t * t + t
    large = _exp64(t) - 1.0  # computed for every t: a call inside a branch stops vectorizing
    return small if abs(t) < 0.35 else large


@jit_helper
def _log64(t):
    """log(t) in float64 for a positive, finite, normal t: 2*atanh((m-1)/(m+1)) + e*ln2."""
    inline_into_callers()
    bits = f64_bits(t)
    e = ((bits >> 52) & 0x7FF) - 1023
    m = f64_from_bits((bits & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000)
    big = m > 1.4142135623730951
    m = m * 0.5 if big else m
    e = e + 1 if big else e
    s = (m - 1.0) / (m + 1.0)  # |s| <= 0.172: the odd series below converges fast
    s2 = s * s
    p = (((((((s2 * (1 / 17) + 1 / 15) * s2 + 1 / 13) * s2 + 1 / 11) * s2 + 1 / 9) * s2
           + 1 / 7) * s2 + 1 / 5) * s2 + 1 / 3) * s2
    return e * LN2_HI + (2.0 * s + (2.0 * s * p + e * LN2_LO))


# ---------------------------------------------------------------- float32 via float64
@jit_helper
def log1p_f32(x):
    """log(1 + x): with u = 1 + x (rounded), log(u) + (x - (u - 1)) / u restores the lost
    low bits of x, so tiny x keep full relative accuracy."""
    inline_into_callers()
    t = np.float64(x)
    u = 1.0 + t
    uc = u if u > 1e-300 else 1.0
    uc = uc if uc < 1e300 else 1.0
    y = np.float32(_log64(uc) + (t - (uc - 1.0)) / uc)
    y = y if x > F32(-1.0) else (F32(-np.inf) if x == F32(-1.0) else F32(np.nan))
    y = y if x != F32(np.inf) else x
    return y if x != F32(0.0) else x  # keeps -0.0


@jit_helper
def expm1_f32(x):
    inline_into_callers()
    t = np.float64(x)
    t = t if t > -110.0 else -110.0
    t = t if t < 100.0 else 100.0
    y = np.float32(_expm1_64(t))
    y = y if x == x else x
    return y if x != F32(0.0) else x  # keeps -0.0


@jit_helper
def tanh_f32(x):
    """tanh(|x|) = e / (e + 2) with e = expm1(2|x|): no cancellation anywhere."""
    inline_into_callers()
    t = abs(np.float64(x))
    t = t if t < 20.0 else 20.0  # tanh(20) is 1.0 in float32 (and in float64)
    e = _expm1_64(2.0 * t)
    y = np.float32(np.copysign(e / (e + 2.0), np.float64(x)))
    return y if x == x else x


@jit_helper
def logistic_f32(x):
    """1 / (1 + e^-x)."""
    inline_into_callers()
    t = np.float64(x)
    y = np.float32(1.0 / (1.0 + _exp64(-t)))
    return y if x == x else x


# ---------------------------------------------------------------- sin and cos
@jit_helper
def _reduce_pio2(x):
    """x = q * pi/2 + r with |r| <= pi/4: returns (q mod 4, r in float64)."""
    inline_into_callers()
    t = np.float64(x)
    # |x| < 1e5: Cody-Waite in float64 (k * PIO2_HI is exact).
    k = np.floor(t * TWO_OVER_PI + 0.5)
    r_small = (t - k * PIO2_HI) - k * PIO2_LO
    # Larger |x|: m * (2^(e-150) * 2/pi mod 4) in 64-bit fixed point, 2 integer bits.
    bits = np.int64(f32_bits(x)) & 0xFFFFFFFF
    e = (bits >> 23) & 0xFF
    m = np.uint64((bits & 0x7FFFFF) | 0x800000)
    w0, w1, w2 = TWO_OVER_PI_TABLE[e, 0], TWO_OVER_PI_TABLE[e, 1], TWO_OVER_PI_TABLE[e, 2]
    res = ((m * w0) << np.uint64(32)) + m * w1 + ((m * w2) >> np.uint64(32))
    n = (res + np.uint64(1 << 61)) >> np.uint64(62)
    frac = np.int64(res - (n << np.uint64(62)))  # the remainder, in [-2^61, 2^61)
    r_large = np.float64(frac) * PIO2_TIMES_2M62
    negative = x < F32(0.0)
    n_signed = -np.int64(n) if negative else np.int64(n)
    r_large = -r_large if negative else r_large
    large = abs(t) >= 1e5
    q = (n_signed if large else np.int64(k)) & 3
    return q, (r_large if large else r_small)


@jit_helper
def _sin_poly(r):
    """sin(r) for |r| <= pi/4: Taylor to r^11 (the first term left out is below 1e-9)."""
    inline_into_callers()
    r2 = r * r
    p = (((r2 * (-1 / 39916800) + 1 / 362880) * r2 - 1 / 5040) * r2 + 1 / 120) * r2 - 1 / 6
    return r + r * r2 * p


@jit_helper
def _cos_poly(r):
    """cos(r) for |r| <= pi/4: Taylor to r^12."""
    inline_into_callers()
    r2 = r * r
    p = ((((r2 * (1 / 479001600) - 1 / 3628800) * r2 + 1 / 40320) * r2 - 1 / 720) * r2
         + 1 / 24) * r2 - 0.5
    return 1.0 + r2 * p


@jit_helper
def sin_f32(x):
    """sin(q*pi/2 + r) is sin r, cos r, -sin r, -cos r for q = 0, 1, 2, 3."""
    inline_into_callers()
    q, r = _reduce_pio2(x)
    s, c = _sin_poly(r), _cos_poly(r)
    # Two plain selects, not a chain of if/else: a chain stops LLVM from vectorizing.
    y = c if (q & 1) == 1 else s
    y = -y if (q & 2) == 2 else y
    y = np.float32(y) if x != F32(0.0) else x  # sin(-0.0) is -0.0
    return y if abs(x) < F32(np.inf) else F32(np.nan)


@jit_helper
def cos_f32(x):
    """cos(q*pi/2 + r) is cos r, -sin r, -cos r, sin r for q = 0, 1, 2, 3."""
    inline_into_callers()
    q, r = _reduce_pio2(x)
    s, c = _sin_poly(r), _cos_poly(r)
    y = s if (q & 1) == 1 else c
    y = -y if ((q + 1) & 2) == 2 else y
    return np.float32(y) if abs(x) < F32(np.inf) else F32(np.nan)


# ---------------------------------------------------------------- pow
@jit_helper
def pow_f32(x, y):
    """x^y = 2^(y * log2|x|) in float64, then the sign and the special cases of C's powf."""
    inline_into_callers()
    ax = abs(np.float64(x))
    yd = np.float64(y)
    finite = ax < np.inf
    lg = _log64(ax if (ax > 0.0 and finite) else 1.0) * LOG2E
    lg = lg if ax > 0.0 else -np.inf
    lg = lg if finite else np.inf
    z = yd * lg
    z = 0.0 if z != z else z  # 0 * inf: settled by the special cases below
    z = z if z > -1100.0 else -1100.0
    z = z if z < 1100.0 else 1100.0
    n = np.floor(z + 0.5)
    k = np.int64(n)
    half = k >> 1  # 2^n in two halves, each a normal float64
    magnitude = (_exp64((z - n) * LN2) * f64_from_bits((half + 1023) << 52)
                 * f64_from_bits((k - half + 1023) << 52))
    integer = np.floor(yd) == yd
    odd = integer & (abs(yd) < 9007199254740992.0) & (np.floor(yd * 0.5) * 2.0 != yd)
    negative = f32_bits(x) < 0  # also -0.0
    result = -magnitude if negative & odd else magnitude
    result = np.nan if (x < F32(0.0)) & finite & (np.floor(yd) != yd) else result
    result = np.nan if (x != x) | (y != y) else result
    result = 1.0 if (ax == 1.0) & (abs(yd) == np.inf) else result
    result = 1.0 if (y == F32(0.0)) | (x == F32(1.0)) else result
    return np.float32(result)
