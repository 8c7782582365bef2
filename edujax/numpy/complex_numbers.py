"""Complex numbers in jax.numpy: real, imag, conj, angle and the "is it complex?" predicates.

These sit below ``ufuncs`` (which uses ``real`` and ``imag`` to compare complex numbers and
to test them for inf and NaN). Like NumPy, each accepts real inputs too: ``jnp.real`` of a
float array is the array itself and ``jnp.imag`` of it is zeros, so generic code can call
them without checking the dtype first; lax's ``real``/``imag`` are strict and refuse floats.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import dtypes, lax
from edujax.inner_jit import inner_jit
from edujax.numpy.util import asarray, ensure_arraylike


def _is_complex(x: Any) -> bool:
    return dtypes.dtype_and_weak(x)[0].kind == "c"


def iscomplexobj(x: Any) -> bool:
    """True if ``x``'s dtype is complex (whatever its values: ``1+0j`` counts)."""
    if x is None:
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = dtypes.dtype_and_weak(np.asarray(x) if isinstance(x, (list, tuple)) else x)[0]
    return np.issubdtype(dtype, np.complexfloating)


def isrealobj(x: Any) -> bool:
    """True if ``x``'s dtype is not complex."""
    return not iscomplexobj(x)


def real(val: Any, /) -> Any:
    """The real part; a real array is returned as it is (``jnp.real(x)`` of a float is ``x``)."""
    val, = ensure_arraylike("real", val)
    return lax.real(val) if _is_complex(val) else asarray(val)


def imag(val: Any, /) -> Any:
    """The imaginary part; zeros of the input's dtype for a real array."""
    val, = ensure_arraylike("imag", val)
    return lax.imag(val) if _is_complex(val) else lax.full_like(val, 0)


def conjugate(x: Any, /) -> Any:
    """The complex conjugate ``a - ib``; a real array is returned as it is."""
    x, = ensure_arraylike("conjugate", x)
    return lax.conj(x) if _is_complex(x) else asarray(x)


conj = conjugate


def iscomplex(x: Any) -> Any:
    """Elementwise: True where the imaginary part is not zero (a real array: all False)."""
    i = imag(x)
    return lax.ne(i, np.zeros((), dtypes.dtype_and_weak(i)[0])[()])


@inner_jit
def isreal(x: Any) -> Any:
    """Elementwise: True where the imaginary part is zero (a real array: all True)."""
    i = imag(x)
    return lax.eq(i, np.zeros((), dtypes.dtype_and_weak(i)[0])[()])


@inner_jit(static_argnames=("deg",))
def angle(z: Any, deg: bool = False) -> Any:
    """The argument of each complex number, ``atan2(imag, real)``, in radians or degrees.

    Integers (and a float scalar) are measured in the default float dtype, as in JAX.
    """
    z, = ensure_arraylike("angle", z)
    re, im = real(z), imag(z)
    dtype = dtypes.dtype_and_weak(re)[0]
    if dtype.kind not in "fc" or (dtypes.dtype_and_weak(z)[0].kind == "f" and np.ndim(z) == 0):
        dtype = dtypes.float_dtype()
        re = lax.convert_element_type(re, dtype)
        im = lax.convert_element_type(im, dtype)
    result = lax.atan2(im, re)
    if deg:
        result = lax.mul(result, np.asarray(180 / np.pi, dtypes.dtype_and_weak(result)[0])[()])
    return result
