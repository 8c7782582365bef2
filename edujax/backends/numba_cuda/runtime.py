"""The GPU runtime as the generated code sees it: import, memory, copies, launch sizes.

Everything that touches ``numba.cuda`` at run time goes through this file, for three reasons:

* numba-cuda is optional. ``cuda()`` imports it the first time a GPU is needed and, when it
  is missing, raises one clear error that says how to install it.
* Every copy between the host and the GPU goes through ``to_device`` / ``to_host``, which
  count them in ``TRANSFERS``: the tests use the counter to check that a jitted result fed
  to the next jitted function never visits the host.
* The launch sizes (threads per block, the most blocks of a grid, the matmul tile) depend
  on the target. A real GPU wants hundreds of threads per block; Numba's *CUDA simulator*
  (``NUMBA_ENABLE_CUDASIM=1``, how CI runs these kernels without a GPU) runs every thread
  as a Python thread, so there a handful is plenty and keeps the tests fast.

On the GPU every array is a *flat* (1-D, C-ordered) buffer: shapes live in the generated
code as constants, so a reshape costs nothing and a kernel computes its own offsets.
"""
from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections import Counter
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from edujax.backends.numba_cuda import memory_pool

INSTALL_HINT = ('The \'cuda\' backend needs numba-cuda: pip install "edujax[cuda]" '
                "(or pip install numba-cuda).")

# Host <-> GPU copies made so far, by direction ("to_device", "to_host").
TRANSFERS: Counter = Counter()

# dtypes that live on the GPU. Others (float16, bfloat16, complex, PRNG keys) stay on the
# host, and the equations that use them run their NumPy reference rule there.
DEVICE_DTYPES = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64,
                                       np.uint8, np.uint16, np.uint32, np.uint64,
                                       np.float32, np.float64)}


def cuda() -> ModuleType:
    """``numba.cuda``, imported on first use; a clear RuntimeError when it is not installed.
    The first call also puts edujax's memory pool in front of Numba's allocator."""
    try:
        from numba import cuda as numba_cuda
    except ImportError as e:
        raise RuntimeError(INSTALL_HINT) from e
    if not _POOL:
        _POOL.append(memory_pool.install(numba_cuda))
    return numba_cuda


_POOL: list[bool] = []  # [whether memory_pool is in use], once numba.cuda is imported


def simulator() -> bool:
    """Are kernels run by Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1`` when numba.cuda
    was first imported)?"""
    return bool(cuda().config.ENABLE_CUDASIM)


@functools.lru_cache(maxsize=None)
def gpu_available() -> bool:
    """A GPU (or the simulator) to run on. False, never an error, without numba-cuda."""
    try:
        return bool(cuda().is_available())
    except RuntimeError:
        return False


def on_device(dtype: Any) -> bool:
    return np.dtype(dtype) in DEVICE_DTYPES


# ---------------------------------------------------------------- memory and copies
def empty(size: int, dtype: Any) -> Any:
    """An uninitialized flat GPU buffer of ``size`` elements."""
    return cuda().device_array(size, dtype)


def to_device(x: np.ndarray) -> Any:
    """Copy a host array to a new flat GPU buffer (counted in ``TRANSFERS``)."""
    TRANSFERS["to_device"] += 1
    return cuda().to_device(np.ascontiguousarray(x).reshape(-1))


def to_host(buffer: Any, shape: tuple) -> np.ndarray:
    """Copy a flat GPU buffer back to a host array of ``shape`` (counted in ``TRANSFERS``)."""
    TRANSFERS["to_host"] += 1
    return buffer.copy_to_host().reshape(shape)


def device_copy(buffer: Any) -> Any:
    """A new GPU buffer with the same elements (a device-to-device copy, no host involved)."""
    out = empty(buffer.shape[0], buffer.dtype)
    if buffer.shape[0]:
        out.copy_to_device(buffer)
    return out


@contextlib.contextmanager
def quiet_simulator():
    """In the simulator, kernels compute on NumPy scalars, which warn about what a GPU does
    silently (1.0 / 0.0 is inf, int32 arithmetic wraps around): silence those warnings."""
    if not simulator():
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def synchronize() -> None:
    """Wait until every kernel launched so far has finished."""
    cuda().synchronize()


# ---------------------------------------------------------------- launch sizes
@dataclass(frozen=True)
class LaunchSizes:
    """How generated kernels are launched: they become constants in the source text."""

    threads: int  # threads per block (a power of two: the reduction tree halves it)
    max_blocks: int  # grid-stride loops cover any size with at most this many blocks
    tile: int  # the matmul's block is tile x tile threads ...
    per_thread: int  # ... each computing per_thread x per_thread outputs


GPU_SIZES = LaunchSizes(threads=256, max_blocks=1024, tile=16, per_thread=4)
SIMULATOR_SIZES = LaunchSizes(threads=4, max_blocks=2, tile=2, per_thread=2)


def launch_sizes() -> LaunchSizes:
    """``EDUJAX_CUDA_THREADS``, ``EDUJAX_CUDA_TILE`` and ``EDUJAX_CUDA_PER_THREAD`` override
    the defaults of the target."""
    base = SIMULATOR_SIZES if simulator() else GPU_SIZES
    threads = int(os.environ.get("EDUJAX_CUDA_THREADS", base.threads))
    if threads < 1 or threads & (threads - 1):
        raise ValueError(f"EDUJAX_CUDA_THREADS must be a power of two, got {threads}")
    tile = int(os.environ.get("EDUJAX_CUDA_TILE", base.tile))
    per_thread = int(os.environ.get("EDUJAX_CUDA_PER_THREAD", base.per_thread))
    return LaunchSizes(threads, base.max_blocks, tile, per_thread)


def blocks_for(work: int, threads: int, max_blocks: int) -> int:
    """Enough blocks for one element per thread, capped (the grid-stride loop does the rest)."""
    return max(1, min(-(-work // threads), max_blocks))
