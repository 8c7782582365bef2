"""Special functions: ``stop_gradient`` (the identity that differentiation treats as a
constant) and ``erf_inv`` (the inverse error function, computed exactly as XLA does)."""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import core, dtypes
from edujax.interpreters import ad, batching
from edujax.core import Primitive
from edujax.custom_derivatives import custom_jvp
from edujax.lax.elementwise import (abs, add, exp, log1p, max, mul, ne, neg, select, square,
                                    sub)
from edujax.lax import complex_numbers
from edujax.lax.base import full_like
from edujax.lax.elementwise import eq, lt, rem
from edujax.lax.registry import FLOATING, accepted, naryop_abstract_eval
from edujax.tree_util import tree_map

stop_gradient_p = Primitive("stop_gradient")
core.abstract_eval_rules[stop_gradient_p] = lambda x: x
core.impl_rules[stop_gradient_p] = lambda x: x


def _stop_gradient_jvp(primals, tangents):
    x, = primals
    out = stop_gradient_p.bind(x)
    return out, ad.Zero.from_value(out)


ad.jvp_rules[stop_gradient_p] = _stop_gradient_jvp
batching.defvectorized(stop_gradient_p)


# ``copy``: what ``jnp.array(x)`` (copy=True, the default) does to an array or tracer. JAX keeps
# it in jaxprs on purpose (a copy is a new buffer), so ``jnp.array(x * 2)`` traces as
# ``mul`` then ``copy``; linear, so its JVP and transpose are copies too.
copy_p = Primitive("copy")
core.abstract_eval_rules[copy_p] = lambda x: x
core.impl_rules[copy_p] = lambda x: np.array(x, copy=True)
ad.deflinear(copy_p, lambda ct, x: [copy_p.bind(ad.instantiate_zeros(ct))])
batching.defvectorized(copy_p)


def _array_copy(x: Any) -> Any:
    return copy_p.bind(x)


def stop_gradient(x: Any) -> Any:
    """Return ``x`` unchanged, but let no gradient flow through it (any pytree works).

    As in JAX, the equation is there for integers and bools too (they carry no gradient
    anyway); only key arrays are returned as they are.
    """
    def stop(leaf):
        if core.get_aval(leaf).dtype.kind == "V":  # a key array (its dtype is opaque)
            return leaf
        return stop_gradient_p.bind(leaf)
    return tree_map(stop, x)


# ================================================================ erf_inv
# ``erf_inv(x)`` is the y with erf(y) = x, for x in (-1, 1). random.normal is
# ``sqrt(2) * erf_inv(u)`` of a uniform u, so every normal sample goes through it,
# and a sample matches JAX's bit for bit only if erf_inv does. JAX hands erf_inv to
# XLA, which evaluates M. Giles' polynomial approximation ("Approximating the erfinv
# function", GPU Computing Gems, 2011). On the CPU, XLA compiles it in a particular
# way, and the NumPy code below reproduces that exactly:
#
# * log1p and log are XLA's own polynomials (Cephes' logf), not the C library's;
# * every ``a * b + c`` of a polynomial is one fused multiply-add: LLVM contracts the
#   pair into a single ``vfmadd`` instruction, which rounds once instead of twice;
# * denormal numbers are flushed to zero (inputs and results), wherever one can occur.
#
# The code was checked against jax 0.10.2 on all 2**23 values random.normal can feed
# to erf_inv, and on 2**24 random float32 bit patterns (NaN, inf, denormals included).
# float16 is computed in float32 and rounded back, as XLA does. float64 uses Giles'
# float64 coefficients with NumPy's log1p and unfused arithmetic:
# NB: XLA's float64 log1p is its own polynomial too, so float64 results may differ
# from JAX's in the last bit or two (float64 needs x64 mode, which is off by default).


def _f32(bits: int) -> np.float32:
    """The float32 whose IEEE bit pattern is ``bits`` (how XLA's IR writes constants)."""
    return np.array(bits, dtype=np.uint32).view(np.float32)[()]


_TINY32 = np.float32(np.finfo(np.float32).tiny)  # the smallest normal float32


def flush_denormals(x: np.ndarray) -> np.ndarray:
    """XLA on the CPU runs with denormals flushed to zero (keeping the sign)."""
    tiny = np.abs(x) < _TINY32
    if not tiny.any():  # the usual case: nothing to flush
        return x
    return np.where(tiny, np.copysign(np.float32(0), x), x)


def fma_f32(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` on float32 values with ONE rounding, like the CPU's fma instruction.

    In float64 the product of two float32 values is exact (24 + 24 bits fit in 53), so
    only the sum rounds before the final rounding to float32. Two roundings in a row
    can differ from one when the first lands exactly halfway between two float32
    values; those rare ties are settled with the exact error of the float64 sum.
    """
    total = np.multiply(a, b, dtype=np.float64)
    total += c
    tie = (total.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
    if tie.any():
        _settle_ties(total, a, b, c, tie)
    return total.astype(np.float32)


def _settle_ties(total: np.ndarray, a: Any, b: Any, c: Any, tie: np.ndarray) -> None:
    """Move float64 sums that sit on a float32 tie toward their exact value (Knuth's TwoSum
    gives the rounding error of ``a*b + c``), so the float32 rounding goes the right way.
    Most ties are exact sums, whose error is 0: those stay where they are."""
    def at_ties(v: Any) -> Any:
        if np.ndim(v) == 0:
            return np.float64(v)
        return np.broadcast_to(v, total.shape)[tie].astype(np.float64)
    t, p, q = total[tie], at_ties(a) * at_ties(b), at_ties(c)
    virtual = t - p
    error = (p - (t - virtual)) + (q - virtual)
    total[tie] = np.where(error > 0, np.nextafter(t, np.inf),
                          np.where(error < 0, np.nextafter(t, -np.inf), t))


def xla_log_f32(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float32 ``log``: split x = m * 2**e with m in [sqrt(1/2), sqrt(2)),
    then log(x) = e*ln(2) + log(m), with log(m) from a degree-9 polynomial in m - 1
    and ln(2) split into a high and a low part so that e*ln(2) loses nothing.

    (No intermediate here can be a denormal once x is not one: |m - 1| is 0 or at
    least 2**-24, so only the input needs flushing.)
    """
    x = flush_denormals(np.asarray(x, np.float32))
    with np.errstate(all="ignore"):
        bits = np.maximum(x, _TINY32).view(np.uint32)
        exponent = (bits >> np.uint32(23)).astype(np.int32) - np.int32(127)
        m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
        e = exponent.astype(np.float32) + np.float32(1)  # now x = m * 2**e, m in [0.5, 1)
        below = m < _f32(0x3F3504F3)                      # m < sqrt(1/2): use 2m, e - 1
        m = (m - np.float32(1)) + np.where(below, m, np.float32(0))
        e = e - below.astype(np.float32)
        m2 = m * m
        m3 = m2 * m
        y1 = fma_f32(m, fma_f32(m, _f32(0x3D9021BB), _f32(0xBDEBD1B8)), _f32(0x3DEF251A))
        y2 = fma_f32(m, fma_f32(m, _f32(0xBDFE5D4F), _f32(0x3E11E9BF)), _f32(0xBE2AAE50))
        y3 = fma_f32(m, fma_f32(m, _f32(0x3E4CCEAC), _f32(0xBE7FFFFC)), _f32(0x3EAAAAAA))
        y = fma_f32(m3, fma_f32(m3, y1, y2), y3)
        y = fma_f32(m3, y, e * _f32(0xB95E8083))                # + e * ln2_lo
        r = fma_f32(np.float32(-0.5), m2, m) + y                # m - m**2/2 + ...
        r = fma_f32(_f32(0x3F318000), e, r)                     # + e * ln2_hi
        r[x == 0] = -np.inf
        r[x == np.inf] = np.inf
        r[(x < 0) | np.isnan(x)] = np.nan
        return r


# log1p(x) for small |x| is x - x**2/2 + x**3 * P(x)/Q(x) (a Cephes rational function).
_LOG1P_P = (4.527e-05, 0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD, 0x41A05101)
_LOG1P_Q = (1.0, 0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982)


def _horner_f32(x: np.ndarray, coefficients: tuple) -> np.ndarray:
    """c0*x**n + ... + cn by Horner's rule, one fma per step (XLA starts from x*0 + c0)."""
    as_f32 = [np.float32(c) if isinstance(c, float) else _f32(c) for c in coefficients]
    with np.errstate(invalid="ignore"):
        p = x * np.float32(0) + as_f32[0]
    for c in as_f32[1:]:
        p = fma_f32(x, p, c)
    return p


def _log1p_small_f32(x: np.ndarray) -> np.ndarray:
    """log1p for |x| < sqrt(2) - 1: x - x**2/2 + x**3 * P(x)/Q(x)."""
    x2 = flush_denormals(x * x)
    ratio = _horner_f32(x, _LOG1P_P) / _horner_f32(x, _LOG1P_Q)
    tail = flush_denormals(flush_denormals(x * x2) * ratio)
    return flush_denormals(x + flush_denormals(fma_f32(np.float32(-0.5), x2, tail)))


def xla_log1p_f32(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float32 ``log1p``: the rational approximation near 0, ``log(1 + x)``
    elsewhere. (XLA computes both and selects; we compute each where it is used.)"""
    x = flush_denormals(np.asarray(x, np.float32))
    out = np.empty_like(x)
    small = np.abs(x) < _f32(0x3ED413CD)
    with np.errstate(all="ignore"):
        out[small] = _log1p_small_f32(x[small])
        out[~small] = xla_log_f32(x[~small] + np.float32(1))
    return out


# Giles' float32 coefficients: one polynomial in w - 2.5 for w = -log(1 - x**2) < 5
# (the central part), another in sqrt(w) - 3 for the tails.
_ERF_INV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                    0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERF_INV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _erf_inv_poly(w: np.ndarray, coefficients: tuple) -> np.ndarray:
    p = np.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = fma_f32(w, p, np.float32(c))
    return p


def _erf_inv_f32(x: np.ndarray) -> np.ndarray:
    x = flush_denormals(np.asarray(x, np.float32))
    with np.errstate(all="ignore"):
        log1p = xla_log1p_f32(flush_denormals(x * -x))    # log(1 - x**2) = -w
        central = log1p > np.float32(-5)                   # w < 5
        p = np.empty_like(x)
        p[central] = _erf_inv_poly(np.float32(-2.5) - log1p[central], _ERF_INV_CENTRAL)
        tail = ~central
        p[tail] = _erf_inv_poly(np.sqrt(-log1p[tail]) + np.float32(-3), _ERF_INV_TAIL)
        p[np.abs(x) == np.float32(1)] = np.inf             # erf_inv(+-1) = +-inf
        return flush_denormals(x * p)


# Giles' float64 version: three polynomials, for w < 6.25, w < 16 and beyond.
_ERF_INV64 = (
    (6.25, -3.125, (-3.64441206401782e-21, -1.6850591381820166e-19, 1.28584807152564e-18,
                    1.1157877678025181e-17, -1.3331716628546209e-16, 2.0972767875968562e-17,
                    6.6376381343583238e-15, -4.0545662729752069e-14, -8.1519341976054722e-14,
                    2.6335093153082323e-12, -1.2975133253453532e-11, -5.4154120542946279e-11,
                    1.0512122733215323e-09, -4.1126339803469837e-09, -2.9070369957882005e-08,
                    4.2347877827932404e-07, -1.3654692000834679e-06, -1.3882523362786469e-05,
                    0.00018673420803405714, -0.000740702534166267, -0.0060336708714301491,
                    0.24015818242558962, 1.6536545626831027)),
    (16.0, -3.25, (2.2137376921775787e-09, 9.0756561938885391e-08, -2.7517406297064545e-07,
                   1.8239629214389228e-08, 1.5027403968909828e-06, -4.013867526981546e-06,
                   2.9234449089955446e-06, 1.2475304481671779e-05, -4.7318229009055734e-05,
                   6.8284851459573175e-05, 2.4031110387097894e-05, -0.00035503752036284748,
                   0.0009532893797373805, -0.0016882755560235047, 0.0024914420961078508,
                   -0.0037512085075692412, 0.0053709145535900636, 1.0052589676941592,
                   3.0838856104922208)),
    (np.inf, -5.0, (-2.7109920616438573e-11, -2.5556418169965252e-10, 1.5076572693500548e-09,
                    -3.789465440126737e-09, 7.61570120807834e-09, -1.496002662714924e-08,
                    2.9147953450901081e-08, -6.7711997758452339e-08, 2.2900482228026655e-07,
                    -9.9298272942317e-07, 4.5260625972231537e-06, -1.9681778105531671e-05,
                    7.5995277030017761e-05, -0.00021503011930044477, -0.00013871931833623122,
                    1.0103004648645344, 4.8499064014085844)),
)


def _erf_inv_f64(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        w = -np.log1p(-x * x)
        out = np.full_like(x, np.nan)
        done = np.zeros(x.shape, bool)
        for limit, shift, coefficients in _ERF_INV64:
            part = ~done & (w < limit)
            t = (w[part] if limit == 6.25 else np.sqrt(w[part])) + shift
            p = np.full_like(t, coefficients[0])
            for c in coefficients[1:]:
                p = c + p * t
            out[part] = p * x[part]
            done |= part
        return np.where(np.abs(x) == 1, x * np.inf, out)


_CHUNK = 1 << 14  # elements per block: the float64 temporaries of a block stay in cache


def _erf_inv_impl(x: np.ndarray, **params: Any) -> np.ndarray:
    if x.dtype == np.float64:
        return _erf_inv_f64(x)
    flat = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    out = np.empty_like(flat)
    for start in range(0, flat.size, _CHUNK):
        out[start:start + _CHUNK] = _erf_inv_f32(flat[start:start + _CHUNK])
    return out.reshape(x.shape).astype(x.dtype)  # float16 rounds back, as in XLA


erf_inv_p = Primitive("erf_inv")
core.abstract_eval_rules[erf_inv_p] = partial(naryop_abstract_eval, "erf_inv", accepted(FLOATING))
core.impl_rules[erf_inv_p] = _erf_inv_impl
ad.defjvp2(erf_inv_p, lambda g, ans, x: mul(
    np.asarray(np.sqrt(np.pi) / 2, dtype=core.get_aval(x).dtype)[()],
    mul(g, exp(square(ans)))))
batching.defvectorized(erf_inv_p)


def erf_inv(x: Any) -> Any:
    """The inverse error function, elementwise: ``erf(erf_inv(x)) == x`` for x in (-1, 1)."""
    return erf_inv_p.bind(x)


# ---------------------------------------------------------------- logaddexp
# ``log(exp(x1) + exp(x2))`` on operands of one dtype, with a custom JVP: jnp.logaddexp promotes
# its arguments and calls it, and cumlogsumexp's JVP (reductions.py) combines with it.
@custom_jvp
def logaddexp(x1: Any, x2: Any) -> Any:
    amax = max(x1, x2)
    if dtypes.dtype_and_weak(x1)[0].kind == "c":
        return _complex_logaddexp(x1, x2, amax)
    delta = sub(x1, x2)
    return select(ne(delta, delta), add(x1, x2),  # NaN in, NaN out
                      add(amax, log1p(exp(neg(abs(delta))))))


def _complex_logaddexp(x1: Any, x2: Any, amax: Any) -> Any:
    """For complex numbers (``max`` orders them lexicographically), as JAX computes it: the
    imaginary part of the result is wrapped into [-pi, pi]."""
    delta = sub(add(x1, x2), mul(amax, np.asarray(2, dtypes.dtype_and_weak(amax)[0])[()]))
    out = add(amax, log1p(exp(delta)))
    return complex_numbers.complex(complex_numbers.real(out),
                                   _wrap_between(complex_numbers.imag(out), np.pi))


def _wrap_between(x: Any, a: float) -> Any:
    """x wrapped into [-a, a]."""
    dtype = dtypes.dtype_and_weak(x)[0]
    a, two_a, zero = (np.asarray(v, dtype)[()] for v in (a, 2 * a, 0))
    rem_ = rem(add(x, a), two_a)
    rem_ = select(lt(rem_, zero), add(rem_, two_a), rem_)
    return sub(rem_, a)


def _replace_inf(x: Any) -> Any:
    """x with +inf entries (of the real part) replaced by 0: at x1 = out = inf, the rule's
    ``exp(x1 - out)`` would be ``exp(nan)``; JAX gives exp(0) = 1 there."""
    re_x = complex_numbers.real(x) if dtypes.dtype_and_weak(x)[0].kind == "c" else x
    inf = np.asarray(np.inf, dtypes.dtype_and_weak(re_x)[0])[()]
    return select(eq(re_x, inf), full_like(x, 0), x)


def _logaddexp_jvp(primals, tangents):
    """The derivative as softmax weights, smooth even where x1 == x2 (JAX's rule too)."""
    (x1, x2), (t1, t2) = primals, tangents
    out = logaddexp(x1, x2)
    return out, add(mul(t1, exp(sub(_replace_inf(x1), _replace_inf(out)))),
                    mul(t2, exp(sub(_replace_inf(x2), _replace_inf(out)))))


logaddexp.defjvp(_logaddexp_jvp)
