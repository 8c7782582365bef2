"""``jnp.fft``: NumPy's discrete Fourier transforms, on the ``fft`` primitive (lax/fft.py).

Every transform goes through one function, ``_fft_core``, as in JAX:

1. the axes to transform are moved to the end (the primitive transforms the innermost
   axes only);
2. with ``s`` (or ``n``) given, each of those axes is cropped or zero-padded to its length;
3. ``lax.fft`` transforms them;
4. ``norm`` scales the result: "backward" (the default: no scaling forward, 1/N on the
   way back), "ortho" (1/sqrt(N) both ways) or "forward" (1/N forward);
5. the axes go back where they came from.

The ``2`` and ``n`` variants only choose the axes; ``hfft``/``ihfft`` are ``irfft``/``rfft``
of a conjugated signal. The frequency helpers (``fftfreq``, ``fftshift``...) are array
arithmetic and rolls.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from edujax import dtypes, lax
from edujax.lax.fft import FftType
from edujax.numpy.complex_numbers import conj
from edujax.numpy.creation import arange, array
from edujax.numpy.reductions import prod
from edujax.numpy.shape_ops import moveaxis, roll
from edujax.numpy.ufuncs import sqrt
from edujax.numpy.util import asarray, ensure_arraylike, promote_dtypes_inexact

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _fft_norm(s: Any, func_name: str, norm: str) -> Any:
    """The factor ``norm`` asks for; inverse transforms (names starting with i) invert it."""
    if norm == "backward":
        return array(1)
    s, = promote_dtypes_inexact(s)
    inverse = func_name.startswith("i")
    if norm == "ortho":
        return sqrt(prod(s)) if inverse else 1 / sqrt(prod(s))
    if norm == "forward":
        return prod(s) if inverse else 1 / prod(s)
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _crop_and_pad(arr: Any, shape: list[int]) -> Any:
    """``arr`` cut down or zero-padded (at the end of each axis) to ``shape``."""
    arr = arr[tuple(slice(n) for n in shape)]
    widths = [(0, n - d, 0) for n, d in zip(shape, np.shape(arr))]
    if all(w == (0, 0, 0) for w in widths):
        return arr
    return lax.pad(arr, np.zeros((), dtypes.dtype_and_weak(arr)[0])[()], widths)


def _fft_core(func_name: str, fft_type: FftType, a: Any, s: Sequence[int] | None,
              axes: Sequence[int] | None, norm: str | None) -> Any:
    full_name = f"jax.numpy.fft.{func_name}"
    arr, = ensure_arraylike(full_name, a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if np.any(np.less_equal(s, 0)):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:  # the primitive transforms the innermost axes: move them there
        axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = moveaxis(arr, orig_axes, axes)
    if s is not None:
        in_s = list(arr.shape)
        for axis, n in zip(axes, s):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:  # n real outputs come from n//2 + 1 complex inputs
            in_s[-1] = in_s[-1] // 2 + 1
        arr = _crop_and_pad(arr, in_s)
    elif fft_type == FftType.IRFFT:
        s = [arr.shape[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
    else:
        s = [arr.shape[axis] for axis in axes]
    transformed = lax.fft(arr, fft_type, tuple(s))
    if norm is not None:
        factor = _fft_norm(array(s, dtype=dtypes.dtype_and_weak(transformed)[0]), func_name,
                           norm)
        transformed = transformed * factor
    if orig_axes is not None:
        transformed = moveaxis(transformed, axes, orig_axes)
    return transformed


def _fft_core_1d(func_name: str, fft_type: FftType, a: Any, n: int | None, axis: int | None,
                 norm: str | None) -> Any:
    if isinstance(axis, (list, tuple)):
        full_name = f"jax.numpy.fft.{func_name}"
        raise ValueError(f"{full_name} does not support multiple axes. Please use "
                         f"{full_name}n. Got axis = {axis!r}.")
    axes = None if axis is None else [axis]
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def _fft_core_2d(func_name: str, fft_type: FftType, a: Any, s: Sequence[int] | None,
                 axes: Sequence[int], norm: str | None) -> Any:
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


# ---------------------------------------------------------------- one axis
def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The discrete Fourier transform along ``axis`` (cropped or padded to ``n``)."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``fft``: ``ifft(fft(x)) == x``."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The FFT of a real signal: the ``n//2 + 1`` non-negative frequencies only."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The FFT of a signal with Hermitian symmetry, given by its first half: real output."""
    conj_a = conj(a)
    if isinstance(axis, (list, tuple)):
        return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm)  # raises
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``hfft``: the first half of a Hermitian signal from a real one."""
    arr = asarray(a)
    nn = arr.shape[axis] if n is None else n
    output = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return conj(output) * (1 / nn)


# ---------------------------------------------------------------- two and n axes
def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Any:
    """The 2-D FFT over ``axes`` (the last two by default)."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """The inverse of ``fft2``."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """The 2-D FFT of a real array (the last axis halved, as in ``rfft``)."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Any:
    """The inverse of ``rfft2``."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def fftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Any:
    """The N-D FFT over ``axes`` (all axes by default)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """The inverse of ``fftn``."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """The N-D FFT of a real array (the last transformed axis halved)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Any:
    """The inverse of ``rfftn``."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


# ---------------------------------------------------------------- frequencies and shifts
def _check_freq_args(name: str, n: Any, d: Any) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The frequency of each output of ``fft(x, n)`` for samples ``d`` apart:
    ``[0, 1, ..., n//2 - 1 (or (n-1)//2), -n//2, ..., -1] / (d * n)``."""
    dtype = dtype or dtypes.float_dtype()
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dtypes.canonicalize_dtype(dtype)
    dtype = np.finfo(dtype if dtype.kind in "fc" else dtypes.float_dtype()).dtype
    i = arange(n, dtype=dtype)
    k = (i + n // 2) % n - n // 2
    result = k.astype(dtype) / array(d * n, dtype=dtype)
    return result.astype(out_dtype)


def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The frequency of each output of ``rfft(x, n)``: ``[0, 1, ..., n//2] / (d * n)``."""
    dtype = dtype or dtypes.float_dtype()
    _check_freq_args("rfftfreq", n, d)
    k = arange(0, n // 2 + 1, dtype=dtype)
    return k / array(d * n, dtype=dtype)


def fftshift(x: Any, axes: None | int | Sequence[int] = None) -> Any:
    """Roll the zero frequency to the centre (along ``axes``, all by default)."""
    x, = ensure_arraylike("fftshift", x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift: Any = [dim // 2 for dim in x.shape]
    elif isinstance(axes, int):
        shift = x.shape[axes] // 2
    else:
        shift = [x.shape[ax] // 2 for ax in axes]
    return roll(x, shift, axes)


def ifftshift(x: Any, axes: None | int | Sequence[int] = None) -> Any:
    """The inverse of ``fftshift`` (they differ for odd lengths)."""
    x, = ensure_arraylike("ifftshift", x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift: Any = [-(dim // 2) for dim in x.shape]
    elif isinstance(axes, int):
        shift = -(x.shape[axes] // 2)
    else:
        shift = [-(x.shape[ax] // 2) for ax in axes]
    return roll(x, shift, axes)
