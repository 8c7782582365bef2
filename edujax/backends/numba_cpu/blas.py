"""Small matrix products: every core when the machine has cores to spare, one when it is busy.

The driver calls NumPy's ``np.dot`` for matrix products, and NumPy's OpenBLAS splits every
product above a tiny size across all the cores. For the tutorials' products (a batch of 128
through a 64x128 layer: a million multiply-adds, ~20 µs on one core) that split is a gamble:

* on an idle machine it wins: a 128x64 @ 64x128 product took 11 µs on two threads against
  18 µs on one (docs/performance.md), and the MLP step of benchmarks/small_steps.py 77 µs
  against 91 µs (best of 5, both ways in one process, load average 5);
* on a busy machine it loses badly: each thread waits for a core of its own, and the
  product waits for the slowest. On 2 cores under load, 60-75 µs on one thread and
  900-1900 µs on two; in the same A/B as above the *mean* MLP step was 2.0 ms with two
  threads and 0.40 ms with one (a training loop pays the mean).

So the driver runs products from ``ONE_THREAD_ANYWAY`` up to ``SMALL`` multiply-adds through
``dot_on_free_cores``: when the 1-minute load average is below the number of cores this
process may use (read at most once a second), plain ``np.dot``; when it is not, the product
runs on one OpenBLAS thread (three calls into OpenBLAS, about 1.5 µs on a busy machine) and
the old thread count is given back after. Smaller products, which OpenBLAS keeps on one
thread anyway, and large ones, which keep every core either way, are plain ``np.dot``.

NumPy's OpenBLAS is found among the libraries its wheel ships (``numpy.libs``). A NumPy
built against another BLAS has no such library: then ``dot_on_free_cores`` is ``np.dot``.
"""
from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

SMALL = 1 << 22  # multiply-adds; 128x128 @ 128x256 is 2^22
# Below this OpenBLAS keeps a product on one thread by itself (its rule: at most 65536 * 4
# multiply-adds; measured with 2 threads, no worker thread got CPU time in 20,000 products of
# up to 393,216), so the driver calls plain ``np.dot``: switching costs more than they take.
ONE_THREAD_ANYWAY = 1 << 18


def _openblas_thread_functions() -> tuple[Callable, Callable] | None:
    """(set_num_threads, get_num_threads) of the OpenBLAS NumPy uses, or None."""
    site = Path(np.__file__).resolve().parent
    candidates = [*site.parent.glob("numpy.libs/*openblas*"), *site.glob(".dylibs/*openblas*")]
    for path in candidates:
        try:
            library = ctypes.CDLL(str(path))  # already loaded by NumPy: the same handle
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                setter = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                getter = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    return setter, getter
    return None


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # (no sched_getaffinity on macOS)
        return os.cpu_count() or 1


class BusyMachine:
    """Is the machine busy: a 1-minute load average at least the usable cores? Asked of
    the system at most once per ``interval`` seconds (``os.getloadavg`` is a system call;
    the clock is not)."""

    def __init__(self, interval: float = 1.0):
        self.interval, self.cores = interval, usable_cores()
        self.checked_at, self.busy = -interval, True

    def __call__(self) -> bool:
        now = time.monotonic()
        if now - self.checked_at >= self.interval:
            self.checked_at = now
            try:
                self.busy = os.getloadavg()[0] >= self.cores
            except OSError:  # (no load average: assume the worst, as before)
                self.busy = True
        return self.busy


machine_is_busy = BusyMachine()


def _make_dot_on_free_cores() -> Callable[[Any, Any], np.ndarray]:
    functions = _openblas_thread_functions()
    if functions is None:
        return np.dot
    set_threads, get_threads = functions

    def dot_on_free_cores(a: np.ndarray, b: np.ndarray, out: Any = None) -> np.ndarray:
        """``np.dot(a, b, out)``, on one BLAS thread while the machine is busy."""
        if not machine_is_busy():
            return np.dot(a, b, out)
        threads = get_threads()
        if threads == 1:  # (another thread's product may be running on one thread now:
            return np.dot(a, b, out)  # leave the count alone, it gives the old one back)
        set_threads(1)
        try:
            return np.dot(a, b, out)
        finally:
            set_threads(threads)
    return dot_on_free_cores


dot_on_free_cores = _make_dot_on_free_cores()
