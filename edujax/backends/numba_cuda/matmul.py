"""``dot_general`` as a tiled matrix product in shared memory.

Every ``dot_general`` is a batch of matrix products ``C[b, m, n] = sum_k A[b, m, k] B[b, k, n]``
once its dimensions are grouped: batch dimensions -> ``b``, the lhs's free dimensions -> ``m``,
the rhs's free ones -> ``n``, the contracted ones -> ``k``. The kernel reads the operands in
place (their offsets are computed from ``b, m, k`` and ``b, k, n``), so no transpose is made.

The naive kernel (one thread per ``C[b, m, n]``, looping over ``k``) reads every element of A
``N`` times and every element of B ``M`` times from global memory, which is slow. Two classic
fixes, one on top of the other:

* *Tiling in shared memory*: a block of threads computes a ``W x W`` tile of C. It walks along
  ``k`` one slice of ``T`` at a time; at each step the block copies A's ``W x T`` slice and B's
  ``T x W`` slice into *shared memory* (on-chip, ~100x faster than global memory), waits at a
  barrier, and then works from shared memory only. Each element fetched from global memory
  is used ``W`` times.
* *Register blocking*: with one output per thread, every multiply-add needs two loads from
  shared memory, and shared memory, not arithmetic, becomes the limit. So each of the
  ``T x T`` threads computes ``R x R`` outputs (``W = T * R``), whose sums live in registers
  (``acc_0_0``, ``acc_0_1``, ... written out one by one in the source, since a GPU thread
  cannot index its registers): per step of ``k`` it loads ``R`` values of A and ``R`` of B and
  does ``R * R`` multiply-adds with them.

Shared memory is split into 32 *banks*; the threads of a warp that touch different addresses
of one bank wait for each other. So a thread reads rows ``ty + T*i`` and columns ``tx + T*j``
(rather than ``ty*R + i``): neighbours read neighbouring words. And A's tile, stored k-major
so that those reads are rows, gets one unused column: its rows are then ``W + 1`` words
apart, and the copy into it (neighbouring threads write neighbouring ``k``) no longer hits
one bank 16 times. Real libraries (cuBLAS) add
vectorized loads, double buffering and tensor cores on top of the same ideas;
``benchmarks/gpu.py`` measures the gap.
"""
from __future__ import annotations

import numpy as np

from edujax.backends.passes.lowering import np_name
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
    T, R = sizes.tile, sizes.per_thread
    W = T * R  # the block's tile of C is W x W; it steps along k by T
    dtype = out.aval.dtype
    acc_dtype = np.dtype(np.int64 if dtype.kind == "i" else np.uint64) if dtype.kind in "iu" \
        else dtype  # integer products wrap around: sum in 64 bits, cast once at the end
    cast, acc_cast = np_name(dtype), np_name(acc_dtype)
    zero = f"{cast}(0)"
    cells = [(i, j) for i in range(R) for j in range(R)]
    a_at = _operand_offset(lhs.aval, lb, lf, lc, "b", "m", "k")
    b_at = _operand_offset(rhs.aval, rb, rf, rc, "b", "n", "k")

    def plus(var, d):
        return f"{var} + {d}" if d else var

    def update(i, j):  # one multiply-add into a register; integers accumulate in 64 bits
        if dtype.kind == "f":
            return f"acc_{i}_{j} += a_{i} * b_{j}"
        return f"acc_{i}_{j} = {acc_cast}(acc_{i}_{j} + {acc_cast}(a_{i}) * {acc_cast}(b_{j}))"

    body = [
        "tx = cuda.threadIdx.x",
        "ty = cuda.threadIdx.y",
        f"t = ty * {T} + tx  # this thread's number in the block",
        f"m0 = cuda.blockIdx.y * {W}  # the block's tile of C starts at row m0 ...",
        f"n0 = cuda.blockIdx.x * {W}  # ... and column n0",
        f"TILE_A = cuda.shared.array(({T}, {W + 1}), {cast})  # A[m0:m0+{W}, k0:k0+{T}], "
        "k-major (+1 column: see above)",
        f"TILE_B = cuda.shared.array(({T}, {W}), {cast})  # B[k0:k0+{T}, n0:n0+{W}]",
        f"for b in range(cuda.blockIdx.z, {B}, cuda.gridDim.z):",
        f"    # {R * R} sums in registers: rows ty + {T}*i, columns tx + {T}*j of the tile",
        *(f"    acc_{i}_{j} = {acc_cast}(0)" for i, j in cells),
        f"    for k0 in range(0, {K}, {T}):  # one slice of the k axis at a time",
        f"        for e in range(t, {W * T}, {T * T}):  # the block copies both tiles, "
        f"{R} elements per thread",
        f"            row, kk = e // {T}, e % {T}",
        "            m, k = m0 + row, k0 + kk",
        f"            TILE_A[kk, row] = {cast}(X[{a_at}]) "
        f"if m < {M} and k < {K} else {zero}",
        f"            kk, col = e // {W}, e % {W}",
        "            k, n = k0 + kk, n0 + col",
        f"            TILE_B[kk, col] = {cast}(Y[{b_at}]) "
        f"if k < {K} and n < {N} else {zero}",
        "        cuda.syncthreads()  # both tiles are loaded",
        f"        for kk in range({T}):",
        *(f"            a_{i} = TILE_A[kk, {plus('ty', T * i)}]" for i in range(R)),
        *(f"            b_{j} = TILE_B[kk, {plus('tx', T * j)}]" for j in range(R)),
        *(f"            {update(i, j)}" for i, j in cells),
        "        cuda.syncthreads()  # everyone is done with these tiles",
    ]
    for i, j in cells:
        body += [f"    m, n = m0 + {plus('ty', T * i)}, n0 + {plus('tx', T * j)}",
                 f"    if m < {M} and n < {N}:",
                 f"        OUT[(b * {M} + m) * {N} + n] = {cast}(acc_{i}_{j})"]
    doc = (f'    """{names.eqn_text(eqn)}\n    as C[b, m, n] = sum_k A[b, m, k] B[b, k, n] with '
           f'B={B}, M={M}, N={N}, K={K}:\n    a block of {T}x{T} threads computes a {W}x{W} tile '
           f'of C, each thread {R}x{R} of it in registers"""')
    text = "\n".join(["@cuda.jit(cache=True)", f"def {name}(X, Y, OUT):", doc,
                      *("    " + line for line in body), ""])
    if B * M * N == 0:
        return text, None
    grid = (-(-N // W), -(-M // W), min(B, MAX_GRID_Z))
    return text, (grid, (T, T))
