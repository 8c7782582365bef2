"""Code generation for CUDA: the kernels of a jaxpr, and the host-side driver that launches them.

The module for ``selu`` on f32[1000] reads (kernels: ``kernels.py``)::

    @cuda.jit(cache=True)
    def fused_0(A, G):
        for flat in range(cuda.grid(1), 1000, cuda.gridsize(1)):
            ...

    def run(consts, literals, rules, a):
        g = empty(1000, np.float32)
        fused_0[4, 256](a, g)  # gt exp mul sub select_n mul
        return [g]

The driver is plain Python on the host. It allocates each result in GPU memory and
*launches* kernels: ``fused_0[4, 256](a, g)`` asks for 4 blocks of 256 threads. A launch
returns at once and the GPU runs the kernels in order, so a chain of launches costs no
waiting; only copying a result back to the host waits for it.

Kernels cannot return values: every output is a buffer the driver allocated, passed in.
Reshapes cost nothing (buffers are flat); other views that a later step needs as arrays
(a transpose feeding a reference rule, say) get a small copy kernel. Matrix products are
``matmul.py``'s tiled kernel; loops and primitives without a kernel are ``rules[i]``, the
objects of ``steps.py``.
"""
from __future__ import annotations

import keyword
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from edujax.backends.numba_cpu.codegen import Names
from edujax.backends.numba_cpu.provenance import origins_by_name
from edujax.backends.passes.fusion import (REDUCTIONS, SEE_THROUGH, CallStep, FusionGroup,
                                              Step)
from edujax.backends.passes.lowering import literal_array, np_name
from edujax.backends.numba_cuda import device_math, indexing, matmul
from edujax.backends.numba_cuda.kernels import fused_kernel, size_of, view_kernel
from edujax.backends.numba_cuda.lowering import helper_module
from edujax.backends.numba_cuda.runtime import LaunchSizes, on_device
from edujax.jaxpr import Jaxpr, JaxprEqn, Literal, Var

# Names a jaxpr variable must not take here (it gets a trailing underscore): the driver's
# and the kernels' own names, and the functions of device_math.py.
CUDA_RESERVED = {"cuda", "empty", "device_copy", "literals", "flat", "o", "r", "t", "half",
                 "acc"} | {name for name in dir(device_math) if not name.startswith("_")}


INDEXING = {"gather", *indexing.SCATTERS}


class CudaNames(Names):
    """The jaxpr's own names, as in the CPU backend, avoiding the names kernels use."""

    def __call__(self, v: Var) -> str:
        name = super().__call__(v)
        return name + "_" if name in CUDA_RESERVED or keyword.iskeyword(name) else name


@dataclass
class GeneratedModule:
    """The source of one jaxpr's module, and what the driver needs at run time."""

    source: str
    calls: list = field(default_factory=list)  # CallSteps run from Python: rules[i]
    literals: list = field(default_factory=list)  # Literals uploaded once: literals[i]
    placement: list = field(default_factory=list)  # (equation text, where it runs)
    # Makes ``provenance`` when it is first read (by as_text()), as the CPU module does.
    origins: Callable[[], dict] | None = None

    @cached_property
    def provenance(self) -> dict:
        """Generated variable name -> Origin (its equation and the user's line):
        provenance.py."""
        return self.origins() if self.origins is not None else {}


def _keeps_order(eqn: JaxprEqn) -> bool:
    """Does this view list the elements in the same order (so the flat buffer is the view)?"""
    name, params = eqn.primitive.name, eqn.params
    (x,), out = eqn.invars, eqn.outvars[0]
    shape = x.aval.shape
    if name in ("reshape", "squeeze") or name in REDUCTIONS:  # (reductions of unit axes)
        return True
    if name == "broadcast_in_dim":
        return size_of(out.aval.shape) == size_of(shape)
    if name == "transpose":
        moved = [d for d in params["permutation"] if shape[d] != 1]
        return moved == sorted(moved)
    if name == "slice":
        strides = params["strides"] or (1,) * len(shape)
        return all(n <= 1 or (lo, hi, st) == (0, n, 1) for n, lo, hi, st in
                   zip(shape, params["start_indices"], params["limit_indices"], strides))
    if name == "rev":
        return all(shape[d] <= 1 for d in params["dimensions"])
    return False


def _contiguous_part(eqn: JaxprEqn) -> tuple | None:
    """``(start, stop)`` when a slice is one contiguous run of its operand's flat buffer:
    ``x[1]`` or ``x[2:4, :]`` of a row-major x, not ``x[:, :2]``."""
    if eqn.primitive.name != "slice" or any(s != 1 for s in eqn.params["strides"] or ()):
        return None
    shape = eqn.invars[0].aval.shape
    starts, limits = eqn.params["start_indices"], eqn.params["limit_indices"]
    sizes = [hi - lo for lo, hi in zip(starts, limits)]
    partial = [k for k, (size, n) in enumerate(zip(sizes, shape)) if size != n]
    last = partial[-1] if partial else 0  # the axes after it are whole
    if any(sizes[k] != 1 for k in range(last)):
        return None  # several rows, a part of each: not contiguous
    start = sum(lo * size_of(shape[k + 1:]) for k, lo in enumerate(starts))
    return start, start + size_of(tuple(sizes))


class _DriverWriter:
    """Writes the kernels and ``run(consts, literals, rules, *args)``: every step in order."""

    def __init__(self, jaxpr: Jaxpr, steps: list[Step], names: CudaNames, out: GeneratedModule,
                 sizes: LaunchSizes, imports: set):
        self.jaxpr, self.steps, self.names, self.out = jaxpr, steps, names, out
        self.sizes, self.imports = sizes, imports
        self.kernels: list[str] = []
        self.lines: list[str] = []

    # -- values ----------------------------------------------------------------
    def arg(self, v: Var | Literal, host: bool = False) -> str:
        """A driver expression for ``v``; a literal is a host array, or uploaded once."""
        if type(v) is Var:
            return self.names(v)
        if host or not on_device(v.aval.dtype):
            return literal_array(v)
        self.out.literals.append(v)
        return f"literals[{len(self.out.literals) - 1}]"

    def allocate(self, v: Var) -> None:
        size = size_of(v.aval.shape)
        self.lines.append(f"{self.names(v)} = empty({size}, {np_name(v.aval.dtype)})")

    def launch(self, name: str, launch: tuple | None, args: list[str], comment: str) -> None:
        if launch is None:
            self.lines.append(f"# {name}: nothing to compute (an empty array)")
            return
        grid, block = launch
        self.lines.append(f"{name}[{grid}, {block}]({', '.join(args)})  # {comment}")

    def place(self, eqn: JaxprEqn, where: str) -> None:
        self.out.placement.append((self.names.eqn_text(eqn), where))

    # -- steps -----------------------------------------------------------------
    def group(self, group: FusionGroup) -> None:
        name = f"fused_{len(self.kernels)}"
        text, launch = fused_kernel(group, name, self.names, self.imports, self.sizes)
        self.kernels.append(text)
        for v in group.outputs:
            self.allocate(v)
        args = [self.names(v) for v in group.inputs + group.outputs]
        self.launch(name, launch, args, " ".join(e.primitive.name for e in group.eqns)[:70])
        for eqn in group.eqns:
            self.place(eqn, f"{name} (CUDA kernel)")

    def call(self, step: CallStep) -> None:
        eqn, kind = step.eqn, step.kind
        device = all(on_device(v.aval.dtype) for v in (*eqn.invars, *eqn.outvars))
        if kind == "dot" and device and matmul.supported(eqn):
            self.matmul(eqn)
        elif kind == "view" and device:
            self.view(eqn)
        elif eqn.primitive.name in INDEXING and device and indexing.supported(eqn):
            self.indexing(eqn)
        elif kind == "loop":
            self.rule(eqn, step, "host loop around GPU programs", host_literals=False)
        else:
            self.rule(eqn, step, "reference rule on the host (copies)", host_literals=True)

    def matmul(self, eqn: JaxprEqn) -> None:
        name = f"dot_{len(self.kernels)}"
        text, launch = matmul.matmul_kernel(eqn, name, self.names, self.sizes)
        self.kernels.append(text)
        out = eqn.outvars[0]
        self.allocate(out)
        args = [self.names(v) for v in (*eqn.invars, out)]
        self.launch(name, launch, args, "dot_general: tiled matmul")
        self.place(eqn, f"{name} (tiled matmul kernel)")

    def indexing(self, eqn: JaxprEqn) -> None:
        """A gather reads into a new buffer; a scatter writes into a copy of its operand."""
        name = f"{eqn.primitive.name.split('-')[0]}_{len(self.kernels)}"
        gather = eqn.primitive.name == "gather"
        write = indexing.gather_kernel if gather else indexing.scatter_kernel
        text, launch = write(eqn, name, self.names, self.sizes)
        self.kernels.append(text)
        out = eqn.outvars[0]
        if gather:
            self.allocate(out)
            args = [self.names(v) for v in (*eqn.invars, out)]
        else:
            operand, idx, updates = eqn.invars
            self.lines.append(f"{self.names(out)} = device_copy({self.names(operand)})")
            args = [self.names(v) for v in (updates, idx, out)]
        self.launch(name, launch, args, eqn.primitive.name)
        self.place(eqn, f"{name} ({'gather' if gather else 'scatter'} kernel)")

    def view(self, eqn: JaxprEqn) -> None:
        (x,), out = eqn.invars, eqn.outvars[0]
        if _keeps_order(eqn):
            self.lines.append(f"{self.names(out)} = {self.arg(x)}  # {eqn.primitive.name}: "
                              "the same flat buffer")
            self.place(eqn, "view (the same buffer)")
            return
        if eqn.primitive.name == "bitcast_convert_type" and type(x) is Var:
            dtype = np_name(out.aval.dtype)
            self.lines.append(f"{self.names(out)} = {self.names(x)}.view({dtype})  # bitcast: "
                              "the same bytes, read as another type")
            self.place(eqn, "view (the same buffer)")
            return
        if eqn.primitive.name not in SEE_THROUGH:  # a view this backend does not know
            self.rule(eqn, CallStep(-1, eqn, "reference"), "reference rule on the host (copies)",
                      host_literals=True)
            return
        part = _contiguous_part(eqn)
        if part is not None and type(x) is Var:
            self.lines.append(f"{self.names(out)} = {self.names(x)}[{part[0]}:{part[1]}]  # "
                              "slice: a contiguous part of the buffer")
            self.place(eqn, "view (part of the buffer)")
            return
        name = f"view_{len(self.kernels)}"
        text, launch = view_kernel(eqn, name, self.names, self.sizes)
        self.kernels.append(text)
        self.allocate(out)
        args = [self.names(v) for v in (x, out) if type(v) is Var]
        self.launch(name, launch, args, eqn.primitive.name)
        self.place(eqn, f"{name} ({'fill' if type(x) is Literal else 'copy'} kernel)")

    def rule(self, eqn: JaxprEqn, step: CallStep, where: str, host_literals: bool) -> None:
        args = ", ".join(self.arg(v, host=host_literals) for v in eqn.invars)
        lhs = ", ".join(self.names(v) for v in eqn.outvars)
        if len(eqn.outvars) == 1:
            lhs += ","
        call = f"rules[{len(self.out.calls)}]({args})  # {eqn.primitive.name}: {where}"
        # An equation without outputs (jax.debug.print, a debug callback) is a bare call.
        self.lines.append(f"{lhs} = {call}" if lhs else call)
        self.out.calls.append(step)
        self.place(eqn, where)

    # -- the whole driver ------------------------------------------------------
    def source(self) -> str:
        for step in self.steps:
            if isinstance(step, FusionGroup):
                self.group(step)
            else:
                self.call(step)
        params = ", ".join(["consts", "literals", "rules",
                            *(self.names(v) for v in self.jaxpr.invars)])
        unpack = []
        if self.jaxpr.constvars:
            names = ", ".join(self.names(v) for v in self.jaxpr.constvars)
            unpack = [f"{names}{',' if len(self.jaxpr.constvars) == 1 else ''} = consts"]
        outs = ", ".join(self.arg(v) for v in self.jaxpr.outvars)
        doc = ('    """The whole jaxpr, from the host: allocations, kernel launches, rules in '
               'order."""')
        body = unpack + self.lines + [f"return [{outs}]"]
        return "\n".join([f"def run({params}):", doc, *("    " + line for line in body), ""])


def generate_module(jaxpr: Jaxpr, steps: list[Step], header: str,
                    sizes: LaunchSizes) -> GeneratedModule:
    """The full source for ``jaxpr``: imports, one kernel per GPU step, the driver."""
    names = CudaNames(jaxpr)
    out = GeneratedModule("")
    imports: set = set()
    writer = _DriverWriter(jaxpr, steps, names, out, sizes, imports)
    driver = writer.source()
    out.origins = lambda: origins_by_name(jaxpr, names)
    import_lines = ["import math", "", "import numpy as np", "from numba import cuda", "",
                    "from edujax.backends.numba_cuda.runtime import device_copy, empty"]
    helpers = sorted((helper_module(m), n) for m, n in imports)
    for module in sorted({m for m, _ in helpers}):
        names_from = ", ".join(sorted({n for m, n in helpers if m == module}))
        import_lines.append(f"from {module} import {names_from}")
    comment = [*header.splitlines(),
               f"Launch sizes: {sizes.threads} threads per block, at most {sizes.max_blocks} "
               f"blocks, {sizes.tile}x{sizes.tile} matmul tiles.", "",
               "The jaxpr (after inlining nested calls):", *names.jaxpr_text.splitlines(), "",
               "Where each equation runs:",
               *(f"  {where:36s} {text}" for text, where in out.placement)]
    out.source = "\n".join(["# " + line if line else "#" for line in comment]
                           + ["", *import_lines, "", "", *(k + "\n" for k in writer.kernels),
                              driver])
    return out
