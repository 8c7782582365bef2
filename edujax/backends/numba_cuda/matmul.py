"""``dot_general`` as a tiled matrix product in shared memory.

Every ``dot_general`` is a batch of matrix products ``C[b, m, n] = sum_k A[b, m, k] B[b, k, n]``
once its dimensions are grouped: batch dimensions -> ``b``, the lhs's free dimensions -> ``m``,
the rhs's free ones -> ``n``, the contracted ones -> ``k``. The kernel reads the operands in
place (their offsets are computed from ``b, m, k`` and ``b, k, n``), so no transpose is made.

The naive kernel (one thread per ``C[b, m, n]``, looping over ``k``) reads every element of A
``N`` times and every element of B ``M`` times from global memory, which is slow. The
classic fix is *tiling*: a block of ``TILE x TILE`` threads computes a ``TILE x TILE`` tile of C.
It walks along ``k`` one tile at a time; at each step every thread copies one element of A's
tile and one of B's into *shared memory* (on-chip, ~100x faster), the block waits at a
barrier, and then each thread does ``TILE`` multiply-adds from shared memory. Each element
fetched from global memory is used ``TILE`` times.

Real libraries (cuBLAS) add register blocking, vectorized loads, double buffering and tensor
cores on top of the same idea; ``benchmarks/gpu.py`` measures the gap.
"""
from __future__ import annotations

import numpy as np

from edujax.backends.numba_cpu.lowering import np_name
from edujax.backends.numba_cuda.kernels import flat_offset, size_of, unravel
from edujax.backends.numba_cuda.runtime import LaunchSizes
from edujax.jaxpr import JaxprEqn, Literal

MAX_GRID_Z = 65535  # CUDA's limit on the grid's third dimension (the batch loops past it)


def supported(eqn: JaxprEqn) -> bool:
    """Numbers only (no bools), operands that are arrays (not literals)."""
    out = eqn.outvars[0].aval.dtype
    return (all(type(v) is not Literal for v in eqn.invars) and out.kind in "iuf"
            and all(v.aval.dtype.kind in "iuf" for v in eqn.invars))


def _operand_offset(aval, batch: tuple, free: tuple, contract: tuple,
                    b: str, mn: str, k: str) -> str:
    """The offset of element (b, m-or-n, k) of an operand, given which of its dimensions are
    batch, free and contracted (each group unravelled in order)."""
    shape = aval.shape
    parts = ["0"] * len(shape)
    for dims, var in ((batch, b), (free, mn), (contract, k)):
        for d, expr in zip(dims, unravel(var, tuple(shape[d] for d in dims))):
            parts[d] = expr
    return flat_offset(shape, parts)


def matmul_kernel(eqn: JaxprEqn, name: str, names, sizes: LaunchSizes) -> tuple[str, tuple | None]:
    """The source of the tiled kernel for ``eqn``, and its launch ``(grid, block)``."""
    lhs, rhs = eqn.invars
    out = eqn.outvars[0]
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lc, rc, lb, rb = map(tuple, (lc, rc, lb, rb))
    lf = tuple(d for d in range(lhs.aval.ndim) if d not in lc and d not in lb)
    rf = tuple(d for d in range(rhs.aval.ndim) if d not in rc and d not in rb)
    B = size_of(tuple(lhs.aval.shape[d] for d in lb))
    M = size_of(tuple(lhs.aval.shape[d] for d in lf))
    N = size_of(tuple(rhs.aval.shape[d] for d in rf))
    K = size_of(tuple(lhs.aval.shape[d] for d in lc))
    tile = sizes.tile
    dtype = out.aval.dtype
    acc_dtype = np.dtype(np.int64 if dtype.kind == "i" else np.uint64) if dtype.kind in "iu" \
        else dtype  # integer products wrap around: sum in 64 bits, cast once at the end
    cast, acc_cast = np_name(dtype), np_name(acc_dtype)
    zero = f"{cast}(0)"
    x, y, c = "X", "Y", "OUT"
    a_at = _operand_offset(lhs.aval, lb, lf, lc, "b", "m", "k")
    b_at = _operand_offset(rhs.aval, rb, rf, rc, "b", "n", "k")
    body = [
        "tx = cuda.threadIdx.x",
        "ty = cuda.threadIdx.y",
        f"n = cuda.blockIdx.x * {tile} + tx  # this thread's column of C",
        f"m = cuda.blockIdx.y * {tile} + ty  # ... and row",
        f"TILE_A = cuda.shared.array(({tile}, {tile}), {cast})",
        f"TILE_B = cuda.shared.array(({tile}, {tile}), {cast})",
        f"for b in range(cuda.blockIdx.z, {B}, cuda.gridDim.z):",
        f"    acc = {acc_cast}(0)",
        f"    for k0 in range(0, {K}, {tile}):  # one tile of the k axis at a time",
        "        k = k0 + tx",
        f"        TILE_A[ty, tx] = {cast}({x}[{a_at}]) if m < {M} and k < {K} else {zero}",
        "        k = k0 + ty",
        f"        TILE_B[ty, tx] = {cast}({y}[{b_at}]) if k < {K} and n < {N} else {zero}",
        "        cuda.syncthreads()  # both tiles are loaded",
        f"        for kk in range({tile}):",
        f"            acc = {acc_cast}(acc + TILE_A[ty, kk] * TILE_B[kk, tx])",
        "        cuda.syncthreads()  # everyone is done with these tiles",
        f"    if m < {M} and n < {N}:",
        f"        {c}[(b * {M} + m) * {N} + n] = {cast}(acc)",
    ]
    doc = (f'    """{names.eqn_text(eqn)}\n    as C[b, m, n] = sum_k A[b, m, k] B[b, k, n] with '
           f'B={B}, M={M}, N={N}, K={K}: {tile}x{tile} tiles in shared memory"""')
    text = "\n".join(["@cuda.jit(cache=True)", f"def {name}({x}, {y}, {c}):", doc,
                      *("    " + line for line in body), ""])
    if B * M * N == 0:
        return text, None
    grid = (-(-N // tile), -(-M // tile), min(B, MAX_GRID_Z))
    return text, (grid, (tile, tile))
