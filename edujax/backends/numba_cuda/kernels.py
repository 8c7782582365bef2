"""Fusion groups as CUDA kernels: grid-stride loops, and reductions with a shared-memory tree.

The fusion groups are the CPU backend's (``passes/fusion.py``); only their loop changes.
A CPU loop nest visits the elements one after the other. A CUDA kernel is one function that
thousands of threads run at once, each on its own elements. For ``selu`` on f32[1000]::

    @cuda.jit(cache=True)
    def fused_0(A, G):
        for flat in range(cuda.grid(1), 1000, cuda.gridsize(1)):
            a = A[flat]
            b = a > np.float32(0.0)
            c = exp(a)
            ...
            G[flat] = g

``cuda.grid(1)`` is this thread's number in the whole launch, ``cuda.gridsize(1)`` how many
threads the launch has. Each thread starts at its own element and jumps ahead by the number
of threads: a *grid-stride loop*. Neighbouring threads read neighbouring elements (the GPU
merges their reads into one memory transaction), and a grid of any size covers any array.

Arrays are flat buffers (``runtime.py``): a kernel turns positions into offsets itself, with
the shapes written into the source as constants. ``flat`` is the position in the loop's
shape; ``i1 = flat // 5 % 4`` its index along axis 1, computed only where an operand needs
it (one that is broadcast, or read through a transpose: ``B[i1 * 3 + i0]``).

Reductions (``reduce_sum``, ``argmax``, ...) cannot be split across threads that way: all the
elements of one output must meet. Here *one block* (a team of ``THREADS`` threads that can
share fast on-chip memory and wait for each other) computes one output element::

    for o in range(cuda.blockIdx.x, 4, cuda.gridDim.x):   # the outputs, one per block
        acc_s = np.float32(0.0)
        for r in range(t, 8, 4):                          # this thread's share of the 8 inputs
            ...
            acc_s = np.float32(acc_s + a)
        TREE_S[t] = acc_s                                 # every thread's partial sum ...
        cuda.syncthreads()
        half = 2
        while half > 0:                                   # ... halved in a tree: 4 -> 2 -> 1
            if t < half:
                TREE_S[t] = np.float32(TREE_S[t] + TREE_S[t + half])
            cuda.syncthreads()
            half //= 2
        if t == 0:
            S[o] = TREE_S[0]

After ``log2(THREADS)`` rounds the first slot of the shared array holds the block's result.
``cuda.syncthreads()`` is the barrier that makes each round see the previous one's writes.
"""
from __future__ import annotations

import re

import numpy as np

from edujax.backends.numba_cpu.codegen import see_through
from edujax.backends.passes.fusion import SEE_THROUGH, FusionGroup
from edujax.backends.passes.lowering import constant, literal_expr, np_name
from edujax.backends.numba_cuda.lowering import DEVICE_MATH, lower
from edujax.backends.numba_cuda.runtime import LaunchSizes, blocks_for
from edujax.jaxpr import JaxprEqn, Literal, Var


def size_of(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))


# ====================================================================== positions and offsets
def unravel(var: str, shape: tuple) -> list[str]:
    """The index along each axis of position ``var`` in a row-major ``shape``.

    ``unravel("flat", (3, 4, 5))`` is ``["flat // 20", "flat // 5 % 4", "flat % 5"]``;
    axes of size 1 are always at index 0.
    """
    parts = []
    leading = True  # no axis before this one has a size above 1: no "% size" needed
    for k, size in enumerate(shape):
        stride = size_of(shape[k + 1:])
        if size == 1:
            parts.append("0")
            continue
        expr = var if stride == 1 else f"{var} // {stride}"
        if not leading:
            expr = f"{expr} % {size}"
        parts.append(expr)
        leading = False
    return parts


def flat_offset(shape: tuple, parts: list[str]) -> str:
    """The offset of element ``parts`` in a flat row-major buffer of ``shape``."""
    terms = []
    for k, part in enumerate(parts):
        stride = size_of(shape[k + 1:])
        if part == "0" or shape[k] == 1:
            continue
        if stride == 1:
            terms.append(part)  # (a sum needs no parentheses: ``i0 * 6 + i1 + 1``)
        else:
            terms.append(f"{part} * {stride}" if re.fullmatch(r"\w+", part)
                         else f"({part}) * {stride}")
    return " + ".join(terms) or "0"


def through(view: JaxprEqn, index: list[str]) -> tuple:
    """Where element ``index`` of a view comes from: ``(operand, index in the operand)``.
    Broadcasts, transposes, slices and reversals as in the CPU backend; a reshape or squeeze
    moves nothing in a flat buffer: the same flat position, unravelled in the operand."""
    if view.primitive.name in SEE_THROUGH:
        return see_through(view, index)
    (x,), out_shape = view.invars, view.outvars[0].aval.shape
    position = flat_offset(out_shape, index)
    parts = unravel(position if re.fullmatch(r"\w+", position) else f"({position})",
                    x.aval.shape)
    return x, parts


# ====================================================================== reductions
def _extreme(dtype: np.dtype, largest: bool) -> object:
    if dtype == np.bool_:
        return largest
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    info = np.iinfo(dtype)
    return info.max if largest else info.min


INITS = {"reduce_sum": 0, "reduce_prod": 1, "reduce_or": 0, "reduce_xor": 0}


def _acc_dtype(prim: str, dtype: np.dtype) -> np.dtype:
    """Integer sums and products accumulate in 64 bits (the final cast wraps them around
    exactly as 32-bit arithmetic would); floats accumulate in their own dtype, as on GPUs."""
    if prim in ("reduce_sum", "reduce_prod") and dtype.kind in "iu":
        return np.dtype(np.int64 if dtype.kind == "i" else np.uint64)
    return dtype


class Reduction:
    """The code of one reduction in a kernel: accumulate per thread, then combine in a tree."""

    def __init__(self, eqn: JaxprEqn, name: str, array: str, imports: set):
        self.eqn, self.name, self.array = eqn, name, array
        self.prim = eqn.primitive.name
        self.dtype = eqn.invars[0].aval.dtype
        self.out_dtype = eqn.outvars[0].aval.dtype
        self.acc_dtype = _acc_dtype(self.prim, self.dtype)
        self.imports = imports
        self.is_arg = self.prim in ("argmax", "argmin")

    def init(self) -> str:
        if self.is_arg:
            return _extreme(self.dtype, self.prim == "argmin")
        if self.prim == "reduce_and":
            return True if self.dtype == np.bool_ else -1
        if self.prim in ("reduce_max", "reduce_min"):
            return _extreme(self.dtype, self.prim == "reduce_min")
        return INITS[self.prim]

    def combine(self, acc: str, value: str) -> str:
        """The expression folding ``value`` into ``acc`` (the same for a thread and the tree)."""
        prim, dtype = self.prim, self.dtype
        cast = np_name(self.acc_dtype)
        if prim == "reduce_sum":
            return f"{cast}({acc} + {value})"
        if prim == "reduce_prod":
            return f"{cast}({acc} * {value})"
        if prim in ("reduce_max", "reduce_min"):
            larger = prim == "reduce_max"
            if dtype == np.bool_:
                return f"{acc} {'|' if larger else '&'} {value}"
            if dtype.kind == "f":
                return f"{self._helper('fmax_nan' if larger else 'fmin_nan')}({acc}, {value})"
            return f"({acc} if {acc} {'>=' if larger else '<='} {value} else {value})"
        op = {"reduce_and": "&", "reduce_or": "|", "reduce_xor": "^"}[prim]
        return f"{acc} {op} {value}"

    def _helper(self, name: str) -> str:
        self.imports.add((DEVICE_MATH, name))
        return name

    # -- the pieces of the kernel ------------------------------------------------
    def shared_arrays(self, threads: int) -> list[str]:
        lines = [f"TREE_{self.array} = cuda.shared.array({threads}, {np_name(self.acc_dtype)})"]
        if self.is_arg:
            lines.append(f"WHERE_{self.array} = cuda.shared.array({threads}, np.int64)")
        return lines

    def start(self) -> list[str]:
        lines = [f"acc_{self.name} = {constant(self.init(), self.acc_dtype)}"]
        if self.is_arg:
            lines.append(f"where_{self.name} = 0")
        return lines

    def update(self, value: str, position: str) -> list[str]:
        """Fold one element in, in this thread's (increasing) order of positions."""
        acc = f"acc_{self.name}"
        if not self.is_arg:
            return [f"{acc} = {self.combine(acc, value)}"]
        better = ">" if self.prim == "argmax" else "<"
        test = f"{value} {better} {acc}"
        if self.dtype.kind == "f":  # the first NaN wins, like NumPy
            test = f"({test}) | (({value} != {value}) & ({acc} == {acc}))"
        take, where = f"take_{self.name}", f"where_{self.name}"
        return [f"{take} = {test}", f"{where} = {position} if {take} else {where}",
                f"{acc} = {value} if {take} else {acc}"]

    def to_tree(self) -> list[str]:
        lines = [f"TREE_{self.array}[t] = acc_{self.name}"]
        if self.is_arg:
            lines.append(f"WHERE_{self.array}[t] = where_{self.name}")
        return lines

    def tree_step(self) -> list[str]:
        """Fold slot ``t + half`` into slot ``t`` (run by the threads ``t < half``)."""
        tree = f"TREE_{self.array}"
        if not self.is_arg:
            return [f"{tree}[t] = {self.combine(f'{tree}[t]', f'{tree}[t + half]')}"]
        where = f"WHERE_{self.array}"
        largest = self.prim == "argmax"
        return [f"if {self._helper('arg_better')}({tree}[t + half], {where}[t + half], "
                f"{tree}[t], {where}[t], {largest}):",
                f"    {tree}[t] = {tree}[t + half]",
                f"    {where}[t] = {where}[t + half]"]

    def store(self) -> str:
        source = f"WHERE_{self.array}[0]" if self.is_arg else f"TREE_{self.array}[0]"
        return f"{self.array}[o] = {np_name(self.out_dtype)}({source})"


# ====================================================================== the kernel writer
class FusedKernel:
    """Writes the CUDA kernel of one fusion group, and says how to launch it.

    The body (loads, one line per equation, stores) is written first, into the innermost
    loop; ``source()`` then wraps it in the grid-stride loop, or in the reduction's loops
    and tree.
    """

    def __init__(self, group: FusionGroup, name: str, names, imports: set, sizes: LaunchSizes):
        self.group, self.name, self.names, self.imports = group, name, names, imports
        self.sizes = sizes
        shape = group.shape
        axes = tuple(group.reduce_axes or ())
        self.kept = [k for k in range(len(shape)) if k not in axes]
        self.reduced = list(axes)
        self.kept_shape = tuple(shape[k] for k in self.kept)
        self.reduced_shape = tuple(shape[k] for k in self.reduced)
        self.axis_index: dict[int, str] = {}
        self.prologue: list[str] = []  # loads that do not depend on the position
        self.body: list[str] = []
        self.loaded: set = set()
        self.reductions: list[Reduction] = []

    # -- positions -------------------------------------------------------------
    def index(self, k: int) -> str:
        """The loop's index along axis ``k`` (defined in the body the first time it is used)."""
        if k not in self.axis_index:
            if self.reduced:
                axes, var = ((self.kept, "o") if k in self.kept else (self.reduced, "r"))
                shape = tuple(self.group.shape[a] for a in axes)
                expr = unravel(var, shape)[axes.index(k)]
            else:
                expr = unravel("flat", self.group.shape)[k]
            if re.fullmatch(r"\w+", expr):
                self.axis_index[k] = expr
            else:
                self.axis_index[k] = f"i{k}"
                self.body.append(f"i{k} = {expr}")
        return self.axis_index[k]

    def full_offset(self) -> str:
        """The offset of the current element in an array of the loop's shape."""
        if not self.reduced:
            return "flat"
        if self.reduced == list(range(len(self.kept), len(self.group.shape))):
            n = size_of(self.reduced_shape)  # reducing the last axes: rows of n elements
            return "r" if not self.kept_shape else f"o * {n} + r" if n != 1 else "o"
        return flat_offset(self.group.shape, [self.index(k) for k in range(len(self.group.shape))])

    # -- reading operands ------------------------------------------------------
    def operand(self, v: Var | Literal) -> str:
        """The expression of one element of ``v`` at the current position."""
        if type(v) is Literal:
            return literal_expr(v)
        name = self.names(v)
        if v in self.group.produced or v in self.loaded:
            return name
        self.loaded.add(v)
        shape = v.aval.shape
        if v not in self.group.seen_through and shape == self.group.shape:
            self.body.append(f"{name} = {self.names.array(v)}[{self.full_offset()}]")
            return name
        # Same rank as the loop; a dimension of size 1 is broadcast (always index 0).
        parts = [self.index(k) if d == self.group.shape[k] else "0" for k, d in enumerate(shape)]
        source = v
        if v in self.group.seen_through:  # read the views' operand at a moved index
            for view in self.group.seen_through[v][0]:
                source, parts = through(view, parts)
        if type(source) is Literal:
            self.prologue.append(f"{name} = {literal_expr(source)}")
            return name
        offset = flat_offset(source.aval.shape, parts)
        line = f"{name} = {self.names.array(source)}[{offset}]"
        (self.prologue if offset == "0" else self.body).append(line)
        return name

    # -- equations -------------------------------------------------------------
    def pointwise(self, eqn: JaxprEqn, kind: str) -> None:
        out = eqn.outvars[0]
        if eqn.primitive.name == "iota":
            expr = f"{np_name(out.aval.dtype)}({self.index(eqn.params['dimension'])})"
        elif kind == "copy":
            expr = self.operand(eqn.invars[0])
        else:
            operands = [self.operand(v) for v in eqn.invars]
            expr = lower(eqn, operands, self.imports)
        self.body.append(f"{self.names(out)} = {expr}")
        if out in self.group.outputs:
            self.body.append(f"{self.names.array(out)}[{self.full_offset()}] = {self.names(out)}")

    def reduce(self, eqn: JaxprEqn) -> None:
        out = eqn.outvars[0]
        red = Reduction(eqn, self.names(out), self.names.array(out), self.imports)
        self.reductions.append(red)
        value = self.operand(eqn.invars[0])
        position = self.index(eqn.params["axes"][0]) if red.is_arg else ""
        self.body += red.update(value, position)

    # -- the launch ------------------------------------------------------------
    def launch(self) -> tuple | None:
        """``(blocks, threads)``, or None when there is nothing to compute."""
        threads, max_blocks = self.sizes.threads, self.sizes.max_blocks
        if self.reduced:
            outputs = size_of(self.kept_shape)
            return (min(outputs, max_blocks), threads) if outputs else None
        n = size_of(self.group.shape)
        return (blocks_for(n, threads, max_blocks), threads) if n else None

    # -- putting it together ---------------------------------------------------
    def source(self) -> str:
        for eqn, kind in zip(self.group.eqns, self.group.kinds):
            if kind == "reduce":
                self.reduce(eqn)
            else:
                self.pointwise(eqn, kind)
        lines = self._reduction_loops() if self.reduced else self._grid_stride_loop()
        outs = [self.names.array(v) for v in self.group.outputs]
        args = ", ".join([self.names.array(v) for v in self.group.inputs] + outs)
        equations = "\n".join("        " + self.names.eqn_text(e) for e in self.group.eqns)
        doc = f'    """{self._summary()}:\n{equations}"""'
        return "\n".join(["@cuda.jit(cache=True)", f"def {self.name}({args}):", doc,
                          *("    " + line for line in lines), ""])

    def _summary(self) -> str:
        shape = self.group.shape
        if not self.reduced:
            return f"Grid-stride loop over {shape} ({size_of(shape)} elements)"
        return (f"Reduction of axes {tuple(self.reduced)} of {shape}: one block per output "
                f"element, a tree in shared memory")

    def _grid_stride_loop(self) -> list[str]:
        n = size_of(self.group.shape)
        return self.prologue + [f"for flat in range(cuda.grid(1), {n}, cuda.gridsize(1)):",
                                *("    " + line for line in self.body)]

    def _reduction_loops(self) -> list[str]:
        threads = self.sizes.threads
        n_out, n_red = size_of(self.kept_shape), size_of(self.reduced_shape)
        lines = ["t = cuda.threadIdx.x"]
        for red in self.reductions:
            lines += red.shared_arrays(threads)
        lines += self.prologue
        lines.append(f"for o in range(cuda.blockIdx.x, {n_out}, cuda.gridDim.x):")
        inner = [line for red in self.reductions for line in red.start()]
        inner.append(f"for r in range(t, {n_red}, {threads}):")
        inner += ["    " + line for line in self.body]
        inner += [line for red in self.reductions for line in red.to_tree()]
        inner += ["cuda.syncthreads()", f"half = {threads // 2}", "while half > 0:",
                  "    if t < half:"]
        inner += ["        " + line for red in self.reductions for line in red.tree_step()]
        inner += ["    cuda.syncthreads()", "    half //= 2", "if t == 0:"]
        inner += ["    " + red.store() for red in self.reductions]
        inner.append("cuda.syncthreads()  # the tree is reused by this block's next output")
        return lines + ["    " + line for line in inner]


def fused_kernel(group: FusionGroup, name: str, names, imports: set,
                 sizes: LaunchSizes) -> tuple[str, tuple | None]:
    """The source of the kernel computing ``group``, and its launch ``(blocks, threads)``."""
    writer = FusedKernel(group, name, names, imports, sizes)
    return writer.source(), writer.launch()


# ====================================================================== materialized views
def view_kernel(eqn: JaxprEqn, name: str, names, sizes: LaunchSizes) -> tuple[str, tuple | None]:
    """A copy kernel for a broadcast, transpose, slice or rev that a later step needs as an
    array of its own (a matrix product, a reference rule, an output)."""
    out = eqn.outvars[0]
    shape = out.aval.shape
    n = size_of(shape)
    x, parts = through(eqn, unravel("flat", shape))
    if type(x) is Literal:  # a broadcast constant: fill the array with it
        source, params, what = literal_expr(x), names.array(out), "a fill"
    else:
        source = f"{names.array(x)}[{flat_offset(x.aval.shape, parts)}]"
        params, what = f"{names.array(x)}, {names.array(out)}", "a copy"
    text = "\n".join([
        "@cuda.jit(cache=True)",
        f"def {name}({params}):",
        f'    """{names.eqn_text(eqn)}, as {what} (grid-stride loop over {n} elements)"""',
        f"    for flat in range(cuda.grid(1), {n}, cuda.gridsize(1)):",
        f"        {names.array(out)}[flat] = {source}", ""])
    launch = (blocks_for(n, sizes.threads, sizes.max_blocks), sizes.threads) if n else None
    return text, launch
