"""threefry2x32 for the generated kernels: the hash of ``prng.py``, one counter pair at a time.

The rounds are those of ``prng.threefry2x32_ints`` (its docstring explains them), written
out in full so that LLVM sees straight-line integer code it can vectorize across elements.
Numba computes ``uint32 + uint32`` in 64 bits; each ``np.uint32(...)`` keeps the low 32 bits,
which is the wraparound the hash relies on.
"""
from __future__ import annotations

import numpy as np
from numba import njit

# Not Numba's inline="always": pasting 20 rounds into every kernel at Numba's level costs
# seconds of compile time per kernel. Compiled once (and cached on disk), the function is
# still inlined by LLVM, which then vectorizes the kernel's loop as well. (The helpers of
# scalar.py and math.py work the same way, marked with inline_into_callers() so that LLVM
# inlines them whatever their size.)
jit_helper = njit(cache=True, error_model="numpy")


@jit_helper
def rotate_left(x, r):
    """The 32-bit word ``x`` rotated left by ``r`` bits."""
    return np.uint32((x << np.uint32(r)) | (x >> np.uint32(32 - r)))


@jit_helper
def four_rounds(x0, x1, r0, r1, r2, r3):
    """Four add-rotate-xor rounds: ``x0 += x1; x1 = rotate_left(x1, r) ^ x0``."""
    x0 = np.uint32(x0 + x1)
    x1 = np.uint32(rotate_left(x1, r0) ^ x0)
    x0 = np.uint32(x0 + x1)
    x1 = np.uint32(rotate_left(x1, r1) ^ x0)
    x0 = np.uint32(x0 + x1)
    x1 = np.uint32(rotate_left(x1, r2) ^ x0)
    x0 = np.uint32(x0 + x1)
    x1 = np.uint32(rotate_left(x1, r3) ^ x0)
    return x0, x1


@jit_helper
def threefry2x32(k0, k1, x0, x1):
    """The two words of threefry2x32 of the counters (x0, x1) under the key (k0, k1)."""
    k0, k1 = np.uint32(k0), np.uint32(k1)
    k2 = np.uint32(k0 ^ k1 ^ np.uint32(0x1BD11BDA))  # the third word of the key schedule
    x0, x1 = np.uint32(x0 + k0), np.uint32(x1 + k1)
    x0, x1 = four_rounds(x0, x1, 13, 15, 26, 6)
    x0, x1 = np.uint32(x0 + k1), np.uint32(x1 + k2 + np.uint32(1))  # key injection 1
    x0, x1 = four_rounds(x0, x1, 17, 29, 16, 24)
    x0, x1 = np.uint32(x0 + k2), np.uint32(x1 + k0 + np.uint32(2))
    x0, x1 = four_rounds(x0, x1, 13, 15, 26, 6)
    x0, x1 = np.uint32(x0 + k0), np.uint32(x1 + k1 + np.uint32(3))
    x0, x1 = four_rounds(x0, x1, 17, 29, 16, 24)
    x0, x1 = np.uint32(x0 + k1), np.uint32(x1 + k2 + np.uint32(4))
    x0, x1 = four_rounds(x0, x1, 13, 15, 26, 6)
    x0, x1 = np.uint32(x0 + k2), np.uint32(x1 + k0 + np.uint32(5))
    return x0, x1
