"""``CudaArray``: an edujax Array whose data stays on the GPU.

JAX arrays live on a device. A jitted function on the GPU returns arrays that stay in GPU
memory, and passing them to the next jitted function costs no copy; only looking at the
values (``print``, ``np.asarray``, ``float(x)``, an operation outside ``jit``) brings them
back to the host.

``CudaArray`` is a subclass of ``ArrayImpl`` holding a flat GPU buffer and its shape. The
CPU's ``ArrayImpl`` keeps its NumPy array in the ``_value`` slot, which its methods read;
here ``_value`` is a *property* that copies the buffer to the host the first time it is
read and keeps the copy (arrays are immutable, so it never goes stale). So everything an
Array can do works unchanged, at the price of one copy; ``shape``, ``dtype`` and ``aval``
are answered without one. The CPU path pays nothing for this: its class is untouched.

``jit`` asks a leaf for the value a backend reads with ``_value_for(backend)``: the cuda
backend gets the GPU buffer itself, any other backend the host copy.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core
from edujax.array import ArrayImpl
from edujax.backends.numba_cuda import runtime
from edujax.devices import Device, gpu_device


class CudaArray(ArrayImpl):
    """An immutable array in GPU memory (a flat buffer plus the shape it stands for)."""

    __slots__ = ("_buffer", "_shape", "_dtype", "_host")

    def __init__(self, buffer: Any, shape: tuple, weak_type: bool = False):
        # No ArrayImpl.__init__: it would store a NumPy array in the slot ``_value`` shadows.
        self._buffer = buffer
        self._shape = tuple(shape)
        self._dtype = np.dtype(buffer.dtype)
        self._weak_type = weak_type
        self._aval = None
        self._host = None

    @classmethod
    def from_host(cls, value: np.ndarray, weak_type: bool = False) -> CudaArray:
        """Copy a host array to the GPU."""
        return cls(runtime.to_device(value), value.shape, weak_type)

    # -- the data: on the GPU, copied back on demand -------------------------------
    @property
    def _value(self) -> np.ndarray:
        """The values on the host: copied from the GPU once, then kept."""
        host = self._host
        if host is None:
            host = self._host = runtime.to_host(self._buffer, self._shape)
            host.flags.writeable = False
        return host

    def _value_for(self, backend: str) -> Any:
        """What ``jit`` hands the executable of ``backend``: the GPU buffer for ``cuda``."""
        return self._buffer if backend == "cuda" else self._value

    # -- answered without a copy ------------------------------------------------------
    @property
    def aval(self) -> core.ShapedArray:
        aval = self._aval
        if aval is None:
            aval = self._aval = core.ShapedArray(self._shape, self._dtype, self._weak_type)
        return aval

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ndim = property(lambda self: len(self._shape))
    size = property(lambda self: int(np.prod(self._shape, dtype=np.int64)))
    nbytes = property(lambda self: self.size * self._dtype.itemsize)
    itemsize = property(lambda self: self._dtype.itemsize)

    # -- the device API -----------------------------------------------------------------
    def block_until_ready(self) -> CudaArray:
        """Wait until the kernels computing this array have finished (launches are async)."""
        runtime.synchronize()
        return self

    @property
    def device(self) -> Device:
        return gpu_device

    def devices(self) -> set:
        return {gpu_device}

    committed = True

    def copy(self) -> CudaArray:
        return CudaArray(runtime.device_copy(self._buffer), self._shape, self._weak_type)

    def __reduce__(self):
        # Pickling copies the values to the host: a pickle must not hold a GPU pointer.
        return (ArrayImpl, (np.array(self._value), self._weak_type))


def device_put_gpu(value: Any, weak_type: bool = False) -> Any:
    """``device_put(x, gpu)``: a CudaArray (host arrays of dtypes the GPU does not hold stay
    on the host)."""
    if isinstance(value, CudaArray):
        return value
    value = np.asarray(value)
    if not runtime.on_device(value.dtype):
        return ArrayImpl(value, weak_type)
    return CudaArray.from_host(value, weak_type)
