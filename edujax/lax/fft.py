"""The ``fft`` primitive: discrete Fourier transforms over the innermost axes.

One primitive covers four transforms, chosen by the static ``fft_type`` (JAX's ``FftType``):

* ``FFT``   complex -> complex, ``X[k] = sum_n x[n] exp(-2 pi i k n / N)``;
* ``IFFT``  complex -> complex, the inverse (with its 1/N);
* ``RFFT``  real -> complex, the FFT of a real signal, keeping only the ``N//2 + 1``
  non-redundant outputs of the last axis (the others are their complex conjugates);
* ``IRFFT`` complex -> real, the inverse of RFFT; ``fft_lengths[-1]`` says how long the
  real output is (N cannot be read off the ``N//2 + 1`` inputs: 8 and 9 both give 5).

``fft_lengths`` names the sizes of the last ``len(fft_lengths)`` axes, which are the ones
transformed (1 to 3 of them; jnp.fft moves other axes there first).

NB: XLA computes the transform itself; here NumPy's pocketfft (``numpy.fft``) does the
numerical work, in double precision, rounded to the input's precision.

Every FFT is linear, so its JVP is the same FFT of the tangent, and its transpose is
another FFT: the FFT matrix F is symmetric (``F[k, n] = w**(k n)``), so the transpose of
FFT is FFT again and that of IFFT is IFFT. RFFT and IRFFT drop or rebuild the redundant
half, which their transposes account for with a mask of weights (1 for the outputs that
have no mirror image, 2 for the others), as JAX does.
"""
from __future__ import annotations

import enum
import math
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.inner_jit import inner_jit
from edujax.interpreters import ad, batching
from edujax.lax.base import convert_element_type, expand_dims, full_like
from edujax.lax.complex_numbers import complex_dtype, conj, real_dtype
from edujax.lax.dynamic_slicing import dynamic_update_slice
from edujax.lax.elementwise import div, mul


class FftType(enum.IntEnum):
    """Which transform ``lax.fft`` computes (an IntEnum: jaxprs print it as a number)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


_NAMES = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT,
          "irfft": FftType.IRFFT}


def _fft_type(fft_type: Any) -> FftType:
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        if fft_type.lower() not in _NAMES:
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        return _NAMES[fft_type.lower()]
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


# ---------------------------------------------------------------- the primitive
def _fft_abstract_eval(x: ShapedArray, *, fft_type: FftType,
                       fft_lengths: tuple[int, ...]) -> ShapedArray:
    k = len(fft_lengths)
    if k > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    minor = x.shape[x.ndim - k:]
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape = x.shape[:x.ndim - k] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        return ShapedArray(shape, complex_dtype(x.dtype), x.weak_type)
    if x.dtype.kind != "c":
        name = "IRFFT" if fft_type == FftType.IRFFT else "FFT"
        raise ValueError(f"{name} input must be complex64 or complex128, got {x.dtype}")
    if fft_type == FftType.IRFFT:
        if minor[:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to "
                             f"all except the last fft_length, got {fft_lengths=}")
        return ShapedArray(x.shape[:x.ndim - k] + fft_lengths, real_dtype(x.dtype),
                           x.weak_type)
    if minor != fft_lengths:
        raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _fft_impl(x: np.ndarray, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> np.ndarray:
    """numpy.fft over the last ``len(fft_lengths)`` axes, rounded to the input's precision."""
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == FftType.FFT:
        out, dtype = np.fft.fftn(x, axes=axes), x.dtype
    elif fft_type == FftType.IFFT:
        out, dtype = np.fft.ifftn(x, axes=axes), x.dtype
    elif fft_type == FftType.RFFT:
        out, dtype = np.fft.rfftn(x, axes=axes), complex_dtype(x.dtype)
    else:
        out, dtype = np.fft.irfftn(x, s=fft_lengths, axes=axes), real_dtype(x.dtype)
    return np.asarray(out).astype(dtype)


fft_p = Primitive("fft")
core.abstract_eval_rules[fft_p] = _fft_abstract_eval
core.impl_rules[fft_p] = _fft_impl


def _redundancy_mask(like: Any, n: int, fft_length: int, dtype: np.dtype) -> Any:
    """Weights of the ``n`` kept outputs of a real FFT of length ``fft_length``: 1 for the
    zero frequency (and for the Nyquist frequency when the length is even), 2 for the
    others, which stand for themselves and their mirror image. Built as JAX builds it: a
    row of 2s with 1s written in by dynamic_update_slice."""
    mask = full_like(like, 2.0, shape=(n,), dtype=dtype)
    mask = dynamic_update_slice(mask, full_like(like, 1.0, shape=(1,), dtype=dtype), (0,))
    if fft_length % 2 == 0:
        mask = dynamic_update_slice(mask, full_like(like, 1.0, shape=(1,), dtype=dtype),
                                    (n - 1,))
    return mask


@inner_jit(static_argnums=(1,))
def _rfft_transpose(t: Any, fft_lengths: tuple[int, ...]) -> Any:
    t_aval = core.get_aval(t)
    mask = _redundancy_mask(t, t_aval.shape[-1], fft_lengths[-1], t_aval.dtype)
    mask = expand_dims(mask, range(t_aval.ndim - 1))  # the mask is along the last axis
    out = fft(div(conj(t), mask), FftType.IRFFT, fft_lengths)
    return mul(np.asarray(math.prod(fft_lengths), real_dtype(t_aval.dtype))[()], out)


def _irfft_transpose(t: Any, fft_lengths: tuple[int, ...]) -> Any:
    x = fft(t, FftType.RFFT, fft_lengths)
    x_aval = core.get_aval(x)
    mask = _redundancy_mask(t, x_aval.shape[-1], fft_lengths[-1], x_aval.dtype)
    scale = np.asarray(1 / math.prod(fft_lengths), x_aval.dtype)[()]
    # Conjugated: JAX's convention for complex gradients.
    return conj(mul(mul(scale, expand_dims(mask, range(x_aval.ndim - 1))), x))


def _fft_transpose(t: Any, x: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> list:
    if type(t) is ad.Zero:
        return [ad.Zero(x.aval)]
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(t, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(t, fft_lengths)]
    return [fft(t, fft_type, fft_lengths)]  # F is symmetric: FFT and IFFT are their own


def _fft_batch(args, dims, *, fft_type, fft_lengths):
    """The transformed axes are the innermost ones, so the batch goes in front. (Through the
    jitted ``fft``, as in JAX: a batched FFT shows as one more ``jit[name=fft]``.)"""
    (x,), (bdim,) = args, dims
    x = batching.bdim_at_front(x, bdim, np.shape(x)[bdim])
    return fft(x, fft_type, fft_lengths), 0


ad.deflinear(fft_p, _fft_transpose)
batching.batching_rules[fft_p] = _fft_batch


# ---------------------------------------------------------------- the lax function
@inner_jit(static_argnums=(1, 2))
def fft(x: Any, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Any:
    """The FFT of ``x`` over its last ``len(fft_lengths)`` axes (``lax.fft``).

    ``fft_type`` is an ``FftType`` or its name ("fft", "ifft", "rfft", "irfft"). The input
    is first converted as JAX does: to a complex dtype for FFT, IFFT and IRFFT (a float32
    array becomes complex64), to an inexact one for RFFT, which refuses complex input.
    As in JAX it is jitted (``jit[name=fft]`` in a jaxpr), with both parameters static.
    """
    typ = _fft_type(fft_type)
    dtype = dtypes.dtype_and_weak(x)[0]
    if typ == FftType.RFFT:
        if dtype.kind == "c":
            raise ValueError("only real valued inputs supported for rfft")
        x = convert_element_type(x, dtype if dtype.kind == "f" else dtypes.float_dtype())
    else:
        inexact = dtype if dtype.kind in "fc" else dtypes.float_dtype()
        x = convert_element_type(x, complex_dtype(inexact))
    if len(fft_lengths) == 0:
        return x
    return fft_p.bind(x, fft_type=typ, fft_lengths=tuple(int(n) for n in fft_lengths))
