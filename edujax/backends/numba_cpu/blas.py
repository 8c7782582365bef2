"""Small matrix products on one BLAS thread.

The driver calls NumPy's ``np.dot`` for matrix products, and NumPy's OpenBLAS splits every
product above a tiny size across all the cores. For the tutorials' products (a batch of 128
through a 64x128 layer: a million multiply-adds, ~50 µs on one core) the split saves little,
and on a busy machine it costs a lot: each thread waits for a core of its own, and the
product waits for the slowest. Measured on 2 shared cores under load, 128x64 @ 64x128:
60-75 µs on one thread, 900-1900 µs on two. So the driver runs products below ``SMALL``
multiply-adds through ``dot_one_thread``, which asks OpenBLAS for one thread during the
product (a switch costs ~0.3 µs) and gives the old count back after; large products keep
every core.

NumPy's OpenBLAS is found among the libraries its wheel ships (``numpy.libs``). A NumPy
built against another BLAS has no such library: then ``dot_one_thread`` is ``np.dot``.
"""
from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any, Callable

import numpy as np

SMALL = 1 << 22  # multiply-adds; 128x128 @ 128x256 is 2^22


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


def _make_dot_one_thread() -> Callable[[Any, Any], np.ndarray]:
    functions = _openblas_thread_functions()
    if functions is None:
        return np.dot
    set_threads, get_threads = functions

    def dot_one_thread(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``np.dot(a, b)`` on one BLAS thread."""
        threads = get_threads()
        if threads == 1:  # (another thread's product may be running on one thread now:
            return np.dot(a, b)  # leave the count alone, it gives the old one back)
        set_threads(1)
        try:
            return np.dot(a, b)
        finally:
            set_threads(threads)
    return dot_one_thread


dot_one_thread = _make_dot_one_thread()
