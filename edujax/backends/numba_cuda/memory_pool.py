"""A caching allocator for GPU memory: freed buffers are kept and handed out again.

Every jitted call allocates its outputs and its intermediates (``empty(...)`` in the
generated ``run``). On a GPU, ``cudaMalloc``/``cuMemAlloc`` is slow: it synchronizes with
the device and asks the driver for pages, about 100 µs for 64 MB on an H100, as long as
the selu kernel itself. Frameworks therefore never give memory back to the driver while
they run: JAX (XLA's BFC allocator), PyTorch and CuPy all keep freed blocks in a pool and
reuse them. Measured on an H100 (``benchmarks/gpu.py``, selu on 2^24 float32): 337 µs a call
with Numba's default allocator, most of it allocation and the host side of the call.

This pool is the simplest one that works for jitted programs, which ask for the same sizes
call after call: freed blocks wait in a list per size (rounded up to ``GRANULE`` bytes),
and the next request of that size takes one. Nothing is ever split or merged.

Why reusing a freed block is safe: every kernel and copy of the backend runs on one CUDA
stream (the default one), which executes its work in order. A buffer is freed when its
last Python reference goes away, possibly while a kernel that reads it is still queued;
the next kernel that writes into the reused block is queued *after* it on the same stream,
so it cannot overtake the reader. (A program with several streams would need to record
events; this backend has none.)

The pool plugs into Numba through its External Memory Management (EMM) interface: Numba's
device arrays call ``memalloc``, and the finalizer of the pointer returned decides what
"free" means. ``install()`` must run before Numba creates its CUDA context; the runtime
calls it right after importing numba.cuda. ``EDUJAX_CUDA_POOL=0`` keeps Numba's allocator.
"""
from __future__ import annotations

import os
import weakref
from collections import defaultdict
from typing import Any

GRANULE = 512  # bytes: sizes are rounded up to a multiple, so near sizes share blocks


def rounded(size: int) -> int:
    return -(-size // GRANULE) * GRANULE


def install(cuda: Any) -> bool:
    """Make Numba allocate device memory through the pool (a real GPU only: the simulator
    has no driver). Returns whether the pool is in use."""
    if cuda.config.ENABLE_CUDASIM or os.environ.get("EDUJAX_CUDA_POOL", "1") == "0":
        return False
    cuda.set_memory_manager(_manager_class(cuda))
    return True


def _manager_class(cuda: Any) -> type:
    """The EMM plugin class. It is built here, not at import, because its base class lives
    in numba.cuda, which edujax imports only when a GPU is first asked for."""
    from numba.cuda.cudadrv import driver as drv

    class CachingMemoryManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        """Numba's memory manager, with a pool in front of ``cuMemAlloc``/``cuMemFree``."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.free_blocks: dict[int, list] = defaultdict(list)  # size -> device pointers
            self.cached_bytes = 0

        def initialize(self) -> None:
            pass

        def memalloc(self, size: int) -> Any:
            size = rounded(max(size, 1))
            blocks = self.free_blocks[size]
            if blocks:
                ptr = blocks.pop()
                self.cached_bytes -= size
            else:
                ptr = self._allocate(size)
            # As in Numba's own manager: ``allocations`` holds the pointer object, device
            # arrays hold counted references to it (``own()``), and when the last goes
            # the finalizer runs, here putting the block back into the pool.
            ctx = weakref.proxy(self.context)
            mem = drv.AutoFreePointer(ctx, ptr, size, finalizer=_give_back(self, ptr, size))
            self.allocations[ptr] = mem
            return mem.own()

        def _allocate(self, size: int) -> Any:
            try:
                return drv.driver.cuMemAlloc(size)
            except drv.CudaAPIError:
                # Out of memory (or close to it): return what the pool holds to the
                # driver, then try once more; a second failure is a real one.
                self.release_cached()
                return drv.driver.cuMemAlloc(size)

        def release_cached(self) -> None:
            """Give every cached block back to the driver."""
            for blocks in self.free_blocks.values():
                while blocks:
                    drv.driver.cuMemFree(blocks.pop())
            self.cached_bytes = 0

        def get_memory_info(self) -> Any:
            free, total = drv.driver.cuMemGetInfo()
            return drv.MemoryInfo(free=free, total=total)

        def reset(self) -> None:
            super().reset()
            self.release_cached()

        @property
        def interface_version(self) -> int:
            return 1

    return CachingMemoryManager


def _give_back(manager: Any, ptr: Any, size: int):
    """The finalizer of one block: back into the pool, not to the driver."""
    def finalize() -> None:
        manager.allocations.pop(ptr, None)
        manager.free_blocks[size].append(ptr)
        manager.cached_bytes += size
    return finalize
