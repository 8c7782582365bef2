"""``gather`` and ``scatter`` as kernels: one thread per element read (or written).

``x[idx]`` and ``x.at[idx].add(y)`` become XLA's ``gather`` and ``scatter-add``, whose
dimension numbers say, for every element, where its *window* starts (see
``edujax/lax/slicing.py``). On the GPU each thread takes one element of the output (a gather)
or of the updates (a scatter) and works out, from the dimension numbers written into the
source as constants:

1. its position: the *batch* part picks a row of start indices, the *window* part is the
   offset inside the window;
2. the window's start along each operand axis, read from the index array, then clamped
   into the operand (or, in ``mode="fill"``, noted as out of bounds);
3. the operand offset ``start + window offset`` along each axis.

A gather then reads ``X[offset]``. A scatter writes to it, and there threads may collide:
``x.at[[0, 0]].add(y)`` has two threads adding into the same element at once. A plain
``OUT[i] = OUT[i] + u`` would lose one of the two additions (both read the old value),
so scatter-add uses ``cuda.atomic.add``: the GPU's memory system applies the additions one
after the other. ``scatter`` (set) with repeated indices keeps one of the values, unspecified
which, as in XLA. Scatters the atomics cannot do (multiply, ``.at[].apply``, 8/16-bit
integers) run their reference rule on the host.
"""
from __future__ import annotations

import numpy as np

from edujax.backends.passes.lowering import constant
from edujax.backends.numba_cuda.kernels import flat_offset, size_of, unravel
from edujax.backends.numba_cuda.runtime import LaunchSizes, blocks_for
from edujax.jaxpr import JaxprEqn, Literal
from edujax.lax.slicing import GatherScatterMode

ATOMIC_DTYPES = {np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64, np.float32,
                                       np.float64)}
SCATTERS = {"scatter": None, "scatter-add": "add", "scatter-sub": "sub",
            "scatter-min": "min", "scatter-max": "max"}


def supported(eqn: JaxprEqn) -> bool:
    name = eqn.primitive.name
    if any(type(v) is Literal for v in eqn.invars) or eqn.invars[0].aval.ndim == 0:
        return False
    if name == "gather":
        return 0 not in eqn.params["slice_sizes"]
    if name not in SCATTERS:
        return False
    if name == "scatter":
        return eqn.params["update_jaxpr"] is None
    return eqn.invars[0].aval.dtype in ATOMIC_DTYPES


def _window_starts(indices_aval, operand_shape: tuple, batch: list[str], index_map, operand_bdims,
                   indices_bdims, window_shape: list) -> tuple[list[str], list[str], list[str]]:
    """Lines computing ``start_d`` for each operand axis, and the in-bounds tests."""
    lines, tests, starts = [], [], ["0"] * len(operand_shape)
    for k, d in enumerate(index_map):  # read from the index vector at this batch position
        at = flat_offset(indices_aval.shape, [*batch, str(k)])
        last = operand_shape[d] - window_shape[d]
        lines.append(f"s{d} = np.int64(IDX[{at}])")
        tests.append(f"0 <= s{d} <= {last}")
        lines.append(f"s{d} = min(max(s{d}, 0), {last})  # the window must fit: clamp")
        starts[d] = f"s{d}"
    for d, j in zip(operand_bdims, indices_bdims):  # paired batch axes start at the position
        starts[d] = batch[j]
    return lines, tests, starts


def gather_kernel(eqn: JaxprEqn, name: str, names, sizes: LaunchSizes) -> tuple[str, tuple | None]:
    """The source of a gather kernel for ``eqn`` and its launch ``(blocks, threads)``."""
    operand, indices = eqn.invars
    out = eqn.outvars[0]
    dn, slice_sizes = eqn.params["dimension_numbers"], eqn.params["slice_sizes"]
    shape = out.aval.shape
    n = size_of(shape)
    position = unravel("flat", shape)
    batch = [p for k, p in enumerate(position) if k not in dn.offset_dims]
    window = iter(p for k, p in enumerate(position) if k in dn.offset_dims)
    lines, tests, starts = _window_starts(
        indices.aval, operand.aval.shape, batch, dn.start_index_map, dn.operand_batching_dims,
        dn.start_indices_batching_dims, list(slice_sizes))
    removed = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    parts = []
    for d, start in enumerate(starts):
        inside = "0" if d in removed else next(window)
        parts.append(start if inside == "0" else inside if start == "0" else f"{start} + {inside}")
    read = f"X[{flat_offset(operand.aval.shape, parts)}]"
    if eqn.params["mode"] == GatherScatterMode.FILL_OR_DROP and tests:
        fill = constant(eqn.params["fill_value"], operand.aval.dtype)
        lines = ["inside = True", *_with_tests(lines, tests)]
        read = f"{read} if inside else {fill}"
    body = [*lines, f"OUT[flat] = {read}"]
    text = "\n".join(["@cuda.jit(cache=True)", f"def {name}(X, IDX, OUT):",
                      f'    """{names.eqn_text(eqn)}\n    one thread per element of the output, '
                      'grid-stride"""',
                      f"    for flat in range(cuda.grid(1), {n}, cuda.gridsize(1)):",
                      *("        " + line for line in body), ""])
    launch = (blocks_for(n, sizes.threads, sizes.max_blocks), sizes.threads) if n else None
    return text, launch


def _with_tests(lines: list[str], tests: list[str]) -> list[str]:
    """Insert each in-bounds test between reading a start and clamping it."""
    out = []
    for k, test in enumerate(tests):
        out += [lines[2 * k], f"inside = inside and {test}", lines[2 * k + 1]]
    return out


def scatter_kernel(eqn: JaxprEqn, name: str, names,
                   sizes: LaunchSizes) -> tuple[str, tuple | None]:
    """The source of a scatter kernel; the driver first copies the operand into OUT."""
    operand, indices, updates = eqn.invars
    dn = eqn.params["dimension_numbers"]
    shape = updates.aval.shape
    n = size_of(shape)
    position = unravel("flat", shape)
    batch = [p for k, p in enumerate(position) if k not in dn.update_window_dims]
    window_of = [p for k, p in enumerate(position) if k in dn.update_window_dims]
    removed = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    kept = [d for d in range(operand.aval.ndim) if d not in removed]
    window_shape = [1] * operand.aval.ndim
    for d, k in zip(kept, dn.update_window_dims):
        window_shape[d] = shape[k]
    lines, tests, starts = _window_starts(
        indices.aval, operand.aval.shape, batch, dn.scatter_dims_to_operand_dims,
        dn.operand_batching_dims, dn.scatter_indices_batching_dims, window_shape)
    window = dict(zip(kept, window_of))
    parts = []
    for d, start in enumerate(starts):
        inside = window.get(d, "0")
        parts.append(start if inside == "0" else inside if start == "0" else f"{start} + {inside}")
    at = flat_offset(operand.aval.shape, parts)
    write = _combine(SCATTERS[eqn.primitive.name], at, operand.aval.dtype)
    if eqn.params["mode"] == GatherScatterMode.CLIP or not tests:
        body = [*lines, write]
    else:  # out-of-bounds windows are dropped
        body = ["inside = True", *_with_tests(lines, tests), "if inside:", "    " + write]
    text = "\n".join(["@cuda.jit(cache=True)", f"def {name}(U, IDX, OUT):",
                      f'    """{names.eqn_text(eqn)}\n    one thread per element of the updates, '
                      'grid-stride (OUT starts as a copy of the operand)"""',
                      f"    for flat in range(cuda.grid(1), {n}, cuda.gridsize(1)):",
                      *("        " + line for line in body), ""])
    launch = (blocks_for(n, sizes.threads, sizes.max_blocks), sizes.threads) if n else None
    return text, launch


def _combine(how: str | None, at: str, dtype: np.dtype) -> str:
    if how is None:
        return f"OUT[{at}] = U[flat]"
    if how == "sub" and dtype.kind != "u":
        return f"cuda.atomic.add(OUT, {at}, -U[flat])"
    return f"cuda.atomic.{how}(OUT, {at}, U[flat])"
