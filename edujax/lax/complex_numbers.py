"""Complex numbers in lax: ``real``, ``imag``, ``complex`` and ``conj``, and ``abs`` of complex.

A complex array is stored as NumPy stores it (complex64 = two float32s side by side), so
most elementwise primitives (add, mul, exp, sin, ...) work on it unchanged. What is new
are the four primitives that cross between real and complex dtypes:

* ``real(z)``, ``imag(z)``: complex64 -> float32 (complex128 -> float64);
* ``complex(x, y)``: two floats of one dtype (float32 or float64) -> ``x + iy``;
* ``conj(z)``: the complex conjugate. It accepts floats too (``conj(x)`` of a float32 is a
  complex64 with zero imaginary part) and remembers the input dtype in a parameter,
  which is what its transpose rule needs.

**Differentiation conventions.** All four are (real-)linear maps, so their JVP applies
the same map to the tangent. Their transposes follow JAX, which transposes *without*
conjugating: the transpose of ``real`` maps a cotangent ``t`` to ``complex(t, 0)``, that of
``imag`` maps it to ``complex(0, -t)``. With these rules ``grad`` of a real-valued function
``f(z)`` returns ``conj(df/dz*)``-style results exactly as JAX does (for ``|z|**2`` at
``1+2j``: ``2-4j``), and ``grad(f, holomorphic=True)`` of a holomorphic ``f`` returns its
complex derivative ``f'(z)``. JAX's FAQ "Complex numbers and differentiation" explains why.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import dtypes
from edujax.core import ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax.base import convert_element_type, full_like
from edujax.lax.elementwise import (_unbroadcast, abs_p, div, eq, ge, mul, neg, select,
                                    _zero)
from edujax.lax.registry import (COMPLEX, FLOATING, Accepted, DtypeFamily, accepted,
                                 broadcasting_shape_rule, check_dtype_families,
                                 check_same_dtypes, standard_primitive,
                                 standard_weak_type_rule)

_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_COMPLEX_ONLY = accepted(COMPLEX)


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The float dtype of a complex dtype's parts (complex64 -> float32); others unchanged."""
    return _REAL_OF.get(np.dtype(dtype), np.dtype(dtype))


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype whose parts are ``dtype`` (float32 -> complex64; float16 too)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return dtype
    return _COMPLEX_OF.get(dtype, np.dtype(np.complex64))


def _same_shape(x: ShapedArray, **params) -> tuple[int, ...]:
    return x.shape


# ---------------------------------------------------------------- real and imag
def _part_dtype_rule(name: str, x: ShapedArray) -> np.dtype:
    check_dtype_families(name, _COMPLEX_ONLY, x)
    return real_dtype(x.dtype)


real_p = standard_primitive("real", _same_shape, lambda x: _part_dtype_rule("real", x),
                            lambda x: np.real(x).copy())
imag_p = standard_primitive("imag", _same_shape, lambda x: _part_dtype_rule("imag", x),
                            lambda x: np.imag(x).copy())


def _strong_zero(t: Any) -> Any:
    """A (strongly typed) NumPy zero of t's dtype: JAX's ``np.zeros((), dtype)``."""
    return np.zeros((), dtypes.dtype_and_weak(t)[0])[()]


# The transposes: real's is t -> t + 0i, imag's is t -> 0 - ti (no conjugation, as in JAX).
ad.deflinear(real_p, lambda t, x: [complex(t, _strong_zero(t))])
ad.deflinear(imag_p, lambda t, x: [complex(_strong_zero(t), neg(t))])
batching.defvectorized(real_p)
batching.defvectorized(imag_p)


def real(x: Any) -> Any:
    """The real part of a complex array (``lax.real``; floats are refused, as in JAX)."""
    return real_p.bind(x)


def imag(x: Any) -> Any:
    """The imaginary part of a complex array (``lax.imag``)."""
    return imag_p.bind(x)


# ---------------------------------------------------------------- complex
# complex(x, y) = x + iy, for float32 or float64 parts (float16 has no complex sibling).
_COMPLEX_PARTS = Accepted(DtypeFamily("float32, float64", "f"))


def _complex_dtype_rule(x: ShapedArray, y: ShapedArray) -> np.dtype:
    for i, aval in enumerate((x, y)):
        if aval.dtype not in _COMPLEX_OF:
            raise TypeError(f"complex does not accept dtype {aval.dtype.name} at position {i}. "
                            f"Accepted dtypes at position {i} are subtypes of "
                            f"{_COMPLEX_PARTS.names}.")
    check_same_dtypes("complex", x, y)
    return _COMPLEX_OF[x.dtype]


def _complex_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), _COMPLEX_OF[x.dtype])
    out.real, out.imag = x, y
    return out


complex_p = standard_primitive("complex", lambda x, y: broadcasting_shape_rule("complex", x, y),
                               _complex_dtype_rule, _complex_impl,
                               weak_type_rule=standard_weak_type_rule)


def _complex_jvp(primals, tangents):
    """Linear in (x, y) together: the tangent is complex(x_dot, y_dot)."""
    out = complex(*primals)
    if all(type(t) is ad.Zero for t in tangents):
        return out, ad.Zero.from_value(out)
    return out, complex(*map(ad.instantiate_zeros, tangents))


def _complex_transpose(t, x, y):
    """x receives real(t), y receives imag(-t): the transposes of x -> x and y -> iy."""
    x_ct = _unbroadcast(ad.aval_of(x), real(t)) if ad.is_undefined_primal(x) else None
    y_ct = _unbroadcast(ad.aval_of(y), imag(neg(t))) if ad.is_undefined_primal(y) else None
    return [x_ct, y_ct]


ad.jvp_rules[complex_p] = _complex_jvp
ad.transpose_rules[complex_p] = _complex_transpose
batching.defbroadcasting(complex_p)


def complex(x: Any, y: Any) -> Any:
    """``x + i y`` from two float arrays of one dtype (``lax.complex``)."""
    return complex_p.bind(x, y)


# ---------------------------------------------------------------- conj
def _conj_dtype_rule(x: ShapedArray, *, input_dtype: np.dtype) -> np.dtype:
    check_dtype_families("conj", accepted(FLOATING, COMPLEX), x)
    return complex_dtype(x.dtype)


def _conj_impl(x: np.ndarray, *, input_dtype: np.dtype) -> np.ndarray:
    if x.dtype.kind != "c":  # x + 0i: XLA's zero imaginary part is +0.0, not -0.0
        return x.astype(complex_dtype(x.dtype))
    return np.conj(x)


def _conj_transpose(t, x, *, input_dtype):
    """conj is its own transpose on complex inputs; from a float input, only real(t) flows
    back (the imaginary part of conj(x) does not depend on x)."""
    if type(t) is ad.Zero:
        return [ad.Zero(x.aval)]
    return [conj(t) if np.dtype(input_dtype).kind == "c" else real(t)]


conj_p = standard_primitive("conj", _same_shape, _conj_dtype_rule, _conj_impl)
ad.deflinear(conj_p, _conj_transpose)
batching.defvectorized(conj_p)


def conj(x: Any) -> Any:
    """The complex conjugate (``lax.conj``); a float input gives a complex output."""
    return conj_p.bind(x, input_dtype=dtypes.dtype_and_weak(x)[0])


# ---------------------------------------------------------------- abs of complex
# elementwise.py defines abs; a complex input gives its float modulus (abs_p's dtype rule
# there), and the derivative needs conj and real, so the full JVP rule is registered here.
def _replace_zero(x: Any) -> Any:
    """x with its zeros replaced by ones (so that dividing by it is safe)."""
    return select(eq(x, _zero(x)), full_like(x, 1), x)


def _abs_jvp(g, ans, x):
    """d|x| = real(conj(x)/|x| * dx) for complex x (0 at x = 0); sign(x) * dx for real x."""
    if dtypes.dtype_and_weak(x)[0].kind == "c":
        x_dtype = dtypes.dtype_and_weak(x)[0]
        return real(mul(g, div(conj(x), _replace_zero(convert_element_type(ans, x_dtype)))))
    return select(ge(x, _zero(x)), g, neg(g))


ad.defjvp2(abs_p, _abs_jvp)
