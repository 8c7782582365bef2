"""Code generation: each fusion group becomes an ``@njit`` loop nest, the schedule a driver.

Codegen is data: this file only writes Python source text (``backend.py`` has it compiled:
by edujax's own compiler, ``fast_start/direct.py``, when every kernel lies in the corner of
Python it covers, else by Numba). For ``selu`` on f32[1000] the kernel reads::

    @njit(cache=True, error_model="numpy")
    def fused_0(A, G):
        \"\"\"Loop nest over (1000,):
            b:bool[1000] = gt a 0.0:f32[]
            c:f32[1000] = exp a
            ...
            g:f32[1000] = mul 1.0499999523162842:f32[] f\"\"\"
        for i0 in range(1000):
            a = A[i0]
            b = a > np.float32(0.0)
            c = exp_f32(a)
            ...
            g = np.float32(1.0499999523162842) * f
            G[i0] = g

Upper-case names are arrays, lower-case names are one element of them (the names are the
jaxpr's own). A kernel allocates nothing: its outputs come after its inputs, and it fills
them. The ``run`` function at the end of the module (the *driver*) allocates the arrays and
calls the kernels, the matrix products and the reference rules in order, on whole arrays::

    def run(consts, rules, stop, a):
        g = np.empty((1000,), np.float32)
        fused_0(a, g)  # gt exp sub mul select_n mul
        return [g]

That is XLA's buffer model (the driver allocates, kernels fill), and it keeps the kernels
free of Numba's runtime: ``aot.py`` can then run their machine code without Numba.
"""
from __future__ import annotations

import builtins
import keyword
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from edujax.backends.passes.fusion import CallStep, FusionGroup, Step
from edujax.backends.numba_cpu import blas
from edujax.backends.numba_cpu.kernels import (DECORATOR, VIEW_COPIES, copy_lines, fill_lines,
                                               loop_dot, loop_lines, write_kernel)
from edujax.backends.numba_cpu.loops import (ProgramFunction, interruptible, loop_source,
                                             plan_loop, sub_jaxprs)
from edujax.backends.passes.lowering import (constant, literal_array, literal_expr, lower,
                                                np_name, reference_rule_label)
from edujax.abstract_arrays import ShapedArray
from edujax.jaxpr import Jaxpr, JaxprEqn, Literal, Var
from edujax.pretty import PpContext, format_doc, pp_eqn, pp_jaxpr
from edujax.backends.numba_cpu.provenance import origins_by_name

# The type of the ``stop`` flag a compiled loop called from Python takes first.
STOP_AVAL = ShapedArray((1,), np.dtype(np.int32))

# Names a jaxpr variable must not take in generated code (it gets a trailing underscore).
RESERVED = set(dir(builtins)) | {"np", "math", "njit", "prange", "consts", "rules", "stop", "run",
                                 "sign", "buffers", "new_buffers"}
# Loop nests over at least this many elements split their outer loop across the CPU's cores.
PARALLEL_MIN_ELEMENTS = 1 << 17


class Names:
    """Python names for a jaxpr's variables: the same names its printed form uses."""

    def __init__(self, jaxpr: Jaxpr):
        self.ctx = PpContext()
        self.jaxpr_text = format_doc(pp_jaxpr(jaxpr, self.ctx), 90)
        # Each equation's text, printed once: the module shows it three times (the
        # kernel's docstring, the placement table, the statement's provenance comment).
        self._eqn_texts: dict[int, tuple[JaxprEqn, str]] = {}

    def __call__(self, v: Var) -> str:
        name = self.ctx.name(v)
        return name + "_" if keyword.iskeyword(name) or name in RESERVED else name

    def array(self, v: Var) -> str:
        return self(v).upper()

    def eqn_text(self, eqn: JaxprEqn, limit: int = 100) -> str:
        """The equation as the jaxpr prints it, on one line, cut at ``limit`` characters."""
        known = self._eqn_texts.get(id(eqn))
        if known is None:
            text = " ".join(format_doc(pp_eqn(eqn, self.ctx), 200).split())
            known = self._eqn_texts[id(eqn)] = (eqn, text)  # (kept: its id stays its own)
        text = known[1]
        return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass
class KernelSignature:
    """A function of the module that the driver calls from Python: the arrays it reads,
    then those it writes (the outputs and scratch arrays the driver allocates; a compiled
    loop has none, it returns its results)."""

    name: str
    inputs: list  # avals
    outputs: list = field(default_factory=list)  # avals

    def numba_types(self) -> tuple:
        """The Numba signature it is compiled for: C-ordered arrays, read-only for the
        inputs (Numba can pass a writable array where a read-only one is expected but not
        the other way around, and edujax's arrays may be either), writable for the arrays
        the kernel fills."""
        from numba import from_dtype, types

        def array(aval: ShapedArray, readonly: bool) -> types.Array:
            return types.Array(from_dtype(aval.dtype), len(aval.shape), "C", readonly=readonly)
        return (*(array(a, True) for a in self.inputs), *(array(a, False) for a in self.outputs))


@dataclass
class GeneratedModule:
    """The source of one jaxpr's module, and what the driver needs at run time."""

    source: str
    kernels: list = field(default_factory=list)  # KernelSignatures of those run calls
    driver: str = ""  # the source of ``run`` alone (also the end of ``source``)
    calls: list = field(default_factory=list)  # CallSteps run from Python: rules[i]
    placement: list = field(default_factory=list)  # (equation text, where it runs)
    functions: list = field(default_factory=list)  # the source of every @njit function
    imports: set = field(default_factory=set)  # (module, name) of the helpers they call
    consts: list = field(default_factory=list)  # (value, aval): constants of compiled loops
    # Makes ``provenance`` when it is first read (by as_text() or viz.lineage): naming each
    # equation's origin prints every equation, which a plain call never shows.
    origins: Callable[[], dict] | None = None

    @cached_property
    def provenance(self) -> dict:
        """Generated variable name -> Origin (its equation and the user's line):
        provenance.py."""
        return self.origins() if self.origins is not None else {}


# ====================================================================== kernels
def _acc_dtype(prim: str, dtype: np.dtype) -> np.dtype:
    """Sums and products accumulate in 64 bits: float32 sums stay accurate, and integer
    ones wrap around exactly as in 32 bits once the final cast truncates them."""
    if prim not in ("reduce_sum", "reduce_prod") or dtype.kind not in "fiu":
        return dtype
    return np.dtype({"f": np.float64, "i": np.int64, "u": np.uint64}[dtype.kind])


def _extreme(dtype: np.dtype, largest: bool) -> object:
    if dtype == np.bool_:
        return largest
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    info = np.iinfo(dtype)
    return info.max if largest else info.min


def _reduce_init(prim: str, dtype: np.dtype) -> object:
    return {"reduce_sum": 0, "reduce_prod": 1, "reduce_or": 0, "reduce_xor": 0,
            "reduce_and": True if dtype == np.bool_ else -1,
            "reduce_max": _extreme(dtype, False), "argmax": _extreme(dtype, False),
            "reduce_min": _extreme(dtype, True), "argmin": _extreme(dtype, True)}[prim]


def _affine(index: str, offset: int, scale: int) -> str:
    """``offset + index * scale`` as short source text (``i1 + 2``, ``3 - i0``, ``i2``)."""
    if index == "0":
        return str(offset)
    if (offset, scale) == (0, 1):
        return index
    if not re.fullmatch(r"\w+", index):
        index = f"({index})"  # composed views: (1 - i1) * 3 + 2
    if scale == -1:
        return f"{offset} - {index}"
    term = index if scale == 1 else f"{index} * {scale}"
    return f"{term} + {offset}" if offset else term


def see_through(view: JaxprEqn, index: list[str]) -> tuple:
    """Where element ``index`` of a broadcast, transposed, sliced or reversed array comes
    from: ``(operand, index expressions in the operand)``. (The CUDA backend uses it too.)"""
    (x,), out_shape = view.invars, view.outvars[0].aval.shape
    name, params = view.primitive.name, view.params
    if name == "broadcast_in_dim":
        dims = params["broadcast_dimensions"]
        parts = [index[d] if size == out_shape[d] else "0"
                 for size, d in zip(x.aval.shape, dims)]
    elif name == "transpose":  # output dimension k is operand dimension permutation[k]
        perm = list(params["permutation"])
        parts = [index[perm.index(d)] for d in range(len(perm))]
    elif name == "slice":  # element i of the slice is element start + i * stride
        strides = params["strides"] or (1,) * len(index)
        parts = [_affine(i, start, stride)
                 for i, start, stride in zip(index, params["start_indices"], strides)]
    else:  # rev: element i of a reversed dimension of size n is element n - 1 - i
        parts = [_affine(i, n - 1, -1) if d in params["dimensions"] else i
                 for d, (i, n) in enumerate(zip(index, x.aval.shape))]
    return x, parts


class _KernelWriter:
    """Writes the loop nest of one fusion group.

    The innermost loop body is written first (loads, one line per equation, stores,
    accumulator updates), then wrapped in the loops. Reductions come in two layouts:

    * the reduced axes are the last ones (a row sum): the outer loops run over the kept
      axes and a scalar accumulator (``acc_h``) sums the inner loops, then is stored;
    * otherwise (a column sum): the loops run in memory order and accumulate into an
      array indexed by the kept axes (``ACC_H[i1] += b``), which vectorizes along i1.
    """

    def __init__(self, group: FusionGroup, name: str, names: Names, imports: set):
        self.group, self.name, self.names, self.imports = group, name, names, imports
        rank = len(group.shape)
        self.index = [f"i{k}" for k in range(rank)]
        axes = group.reduce_axes or ()
        self.kept = [k for k in range(rank) if k not in axes]
        self.scalar_acc = bool(axes) and tuple(axes) == tuple(range(rank - len(axes), rank))
        self.prologue: list[str] = []  # allocations and loop-invariant loads
        self.body: list[str] = []  # the innermost loop body
        self.acc_init: list[str] = []  # scalar accumulators, before the reduced loops
        self.acc_store: list[str] = []  # ... and stored after them
        self.epilogue: list[str] = []
        self.loaded: set = set()
        self.stored = set(group.outputs)
        self.scratch: list = []  # (name, shape, dtype): work arrays the caller allocates

    # -- reading operands ------------------------------------------------------
    def _subscript(self, parts: list[str]) -> str:
        return "[" + (", ".join(parts) if parts else "()") + "]"

    def operand(self, v: Var | Literal) -> str:
        """The expression of one element of ``v`` at the current position of the loop."""
        if type(v) is Literal:
            return literal_expr(v)
        name = self.names(v)
        if v in self.group.produced or v in self.loaded:
            return name
        self.loaded.add(v)
        # Same rank as the loop; a dimension of size 1 is broadcast (always index 0).
        index = [self.index[k] if d == self.group.shape[k] else "0"
                 for k, d in enumerate(v.aval.shape)]
        source = v
        if v in self.group.seen_through:  # read the views' operand at a moved index
            for view in self.group.seen_through[v][0]:
                source, index = see_through(view, index)
        if type(source) is Literal:
            self.prologue.append(f"{name} = {literal_expr(source)}")
            return name
        line = f"{name} = {self.names.array(source)}{self._subscript(index)}"
        # What does not depend on the loop indices is read once, before the loops.
        varies = any(re.search(r"\bi\d", part) for part in index)
        (self.body if varies else self.prologue).append(line)
        return name

    # -- equations -------------------------------------------------------------
    def pointwise(self, eqn: JaxprEqn, kind: str) -> None:
        out = eqn.outvars[0]
        if eqn.primitive.name == "iota":
            expr = f"{np_name(out.aval.dtype)}({self.index[eqn.params['dimension']]})"
        elif kind == "copy":
            expr = self.operand(eqn.invars[0])
        else:
            expr = lower(eqn, [self.operand(v) for v in eqn.invars], self.imports)
        self.body.append(f"{self.names(out)} = {expr}")

    def store(self, v: Var) -> None:
        if v in self.stored and v in self.group.produced:
            self.body.append(f"{self.names.array(v)}{self._subscript(self.index)} = "
                             f"{self.names(v)}")

    def reduce(self, eqn: JaxprEqn) -> None:
        prim, out = eqn.primitive.name, eqn.outvars[0]
        dtype = eqn.invars[0].aval.dtype
        value = self.operand(eqn.invars[0])
        acc_dtype = _acc_dtype(prim, dtype)
        init = constant(_reduce_init(prim, dtype), acc_dtype)
        name, array = self.names(out), self.names.array(out)
        out_shape = tuple(self.group.shape[k] for k in self.kept)
        kept = self._subscript([self.index[k] for k in self.kept])
        self.destination(out)
        if self.scalar_acc:
            acc = f"acc_{name}"
            self.acc_init.append(f"{acc} = {init}")
        else:
            acc = array
            if acc_dtype != out.aval.dtype or prim in ("argmax", "argmin"):
                acc = f"ACC_{array}"
                self.scratch.append((acc, out_shape, acc_dtype))
            self.prologue += fill_lines(acc, out_shape, init)
            acc += kept
        if prim in ("argmax", "argmin"):
            self._arg_reduce(eqn, value, acc, kept)
            return
        self.body.append(self._update(prim, dtype, acc, value))
        if self.scalar_acc:
            self.acc_store.append(f"{array}{kept} = {np_name(out.aval.dtype)}({acc})")
        elif acc_dtype != out.aval.dtype:
            self.epilogue += loop_lines(out_shape, f"{array}{{0}} = "
                                        f"{np_name(out.aval.dtype)}(ACC_{array}{{0}})")

    def _update(self, prim: str, dtype: np.dtype, acc: str, value: str) -> str:
        if prim == "reduce_sum":
            return f"{acc} += {value}"
        if prim == "reduce_prod":
            return f"{acc} *= {value}"
        if prim in ("reduce_max", "reduce_min"):
            larger = prim == "reduce_max"
            if dtype == np.bool_:
                return f"{acc} = {acc} {'|' if larger else '&'} {value}"
            if dtype.kind == "f":
                helper = self._helper("fmax_nan" if larger else "fmin_nan")
                return f"{acc} = {helper}({acc}, {value})"
            return f"{acc} = {acc} if {acc} {'>=' if larger else '<='} {value} else {value}"
        op = {"reduce_and": "&", "reduce_or": "|", "reduce_xor": "^"}[prim]
        return f"{acc} = {acc} {op} {value}"

    def _arg_reduce(self, eqn: JaxprEqn, value: str, best: str, kept: str) -> None:
        """argmax: remember the best value and where it was; the first NaN wins, like NumPy."""
        out = eqn.outvars[0]
        name, array = self.names(out), self.names.array(out)
        axis_index = self.index[eqn.params["axes"][0]]
        index_type = np_name(out.aval.dtype)
        better = ">" if eqn.primitive.name == "argmax" else "<"
        test = f"{value} {better} {best}"
        if eqn.invars[0].aval.dtype.kind == "f":  # (& and |, not and/or: no branches)
            test = f"({test}) | (({value} != {value}) & ({best} == {best}))"
        if self.scalar_acc:
            where = f"where_{name}"
            self.acc_init.append(f"{where} = 0")
            self.acc_store.append(f"{array}{kept} = {index_type}({where})")
        else:
            where = f"{array}{kept}"
            self.prologue += fill_lines(array, self._out_shape(), "0")
        self.body += [f"take_{name} = {test}",
                      f"{where} = {axis_index} if take_{name} else {where}",
                      f"{best} = {value} if take_{name} else {best}"]

    def destination(self, v: Var) -> None:
        """A value the kernel writes whole: an output (the caller allocates it and reads
        it afterwards) or, when no later step reads it, a scratch array (allocated too)."""
        if v not in self.group.outputs:
            self.scratch.append((self.names.array(v), self._out_shape(), v.aval.dtype))

    def _out_shape(self) -> tuple:
        return tuple(self.group.shape[k] for k in self.kept)

    def _helper(self, name: str) -> str:
        self.imports.add(("edujax.backends.numba_cpu.scalar", name))
        return name

    # -- putting it together ---------------------------------------------------
    def source(self) -> str:
        group = self.group
        for eqn, kind in zip(group.eqns, group.kinds):
            if kind == "reduce":
                self.reduce(eqn)
            else:
                self.pointwise(eqn, kind)
            self.store(eqn.outvars[0])
        self.imports.add(("edujax.backends.numba_cpu.llvm", "prefer_wide_vectors"))
        lines = (["prefer_wide_vectors()  # 512-bit vectors where the CPU has them"]
                 + self.prologue + self._loops() + self.epilogue)
        args = ", ".join([*(self.names.array(v) for v in (*group.inputs, *group.outputs)),
                          *(name for name, _, _ in self.scratch)])
        equations = "\n".join("        " + self.names.eqn_text(e) for e in group.eqns)
        doc = f'    """Loop nest over {group.shape}:\n{equations}"""'
        parallel = ", parallel=True" if self._parallel_axis() is not None else ""
        return "\n".join(["@njit(cache=True, error_model=\"numpy\"" + self._fastmath()
                           + parallel + ")",
                          f"def {self.name}({args}):", doc,
                          *("    " + line for line in lines), ""])

    def _fastmath(self) -> str:
        """Float sums in a scalar accumulator only vectorize if LLVM may reassociate them."""
        floats = any(e.invars[0].aval.dtype.kind == "f" for e, k in
                     zip(self.group.eqns, self.group.kinds) if k == "reduce")
        return ', fastmath={"reassoc"}' if self.scalar_acc and floats else ""

    def _outer_axes(self) -> list[int]:
        """The loops outside the scalar accumulators: all of them, or the kept axes."""
        return self.kept if self.scalar_acc else list(range(len(self.group.shape)))

    def _parallel_axis(self) -> int | None:
        """The outermost loop, when it is worth splitting across the CPU's cores.

        A loop nest over a large array (PARALLEL_MIN_ELEMENTS or more) runs its outermost
        loop with Numba's ``prange``: each thread takes a range of ``i0`` and the iterations
        must be independent. They are when the outer axis is not reduced: every iteration
        then writes its own elements (a column sum, which adds every ``i0`` into the same
        ``ACC[i1]``, stays serial). Small loops stay serial: starting the threads costs
        microseconds, more than a small loop takes.
        """
        outer = self._outer_axes()
        if not outer or int(np.prod(self.group.shape)) < PARALLEL_MIN_ELEMENTS:
            return None
        axis = outer[0]
        if axis in (self.group.reduce_axes or ()) or self.group.shape[axis] < 2:
            return None
        return axis

    def _loops(self) -> list[str]:
        """Wrap the body in ``for`` loops (and the scalar accumulators around the inner ones)."""
        rank = len(self.group.shape)
        outer = self._outer_axes()
        inner = [k for k in range(rank) if k not in outer]
        parallel = self._parallel_axis()
        lines: list[str] = []
        depth = 0
        for k in outer:
            loop = "prange" if k == parallel else "range"
            lines.append("    " * depth + f"for {self.index[k]} in {loop}({self.group.shape[k]}):")
            depth += 1
            if k == parallel:  # the body of a prange loop is compiled as a function of its own
                self.imports.add(("numba", "prange"))
                lines.append("    " * depth + "prefer_wide_vectors()  # (for that function too)")
        lines += ["    " * depth + line for line in self.acc_init]
        acc_depth = depth
        for k in inner:
            lines.append("    " * depth + f"for {self.index[k]} in range({self.group.shape[k]}):")
            depth += 1
        lines += ["    " * depth + line for line in self.body]
        lines += ["    " * acc_depth + line for line in self.acc_store]
        return lines


def kernel_source(group: FusionGroup, name: str, names: Names, imports: set) -> tuple:
    """The ``@njit`` function computing one fusion group (see ``_KernelWriter``), and the
    scratch arrays it takes after its inputs and outputs: ``(name, shape, dtype)`` each."""
    writer = _KernelWriter(group, name, names, imports)
    return writer.source(), writer.scratch


# ====================================================================== the driver
def _dot_expr(eqn: JaxprEqn, x: str, y: str) -> str | None:
    """A matrix product as one NumPy call (BLAS), or None when it needs the general rule.

    NB: Numba can call BLAS from inside ``@njit`` code, but only through SciPy, which
    edujax does not depend on; NumPy's own ``np.dot`` calls the same kind of BLAS routine
    (sgemm/dgemm) from the driver, with transposes passed as flags, not copies.
    """
    lhs, rhs = eqn.invars
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lc, rc, lb, rb = map(tuple, (lc, rc, lb, rb))
    dtype = lhs.aval.dtype
    if (rhs.aval.dtype != dtype or dtype.kind != "f" or dtype.itemsize < 4
            or eqn.outvars[0].aval.dtype != dtype):
        return None
    nl, nr = lhs.aval.ndim, rhs.aval.ndim
    if lb or rb:
        if lb == rb == (0,) and nl == nr == 3 and lc in ((1,), (2,)) and rc in ((1,), (2,)):
            a = x if lc == (2,) else f"{x}.transpose(0, 2, 1)"
            b = y if rc == (1,) else f"{y}.transpose(0, 2, 1)"
            return f"np.matmul({a}, {b})"
        return None
    if len(lc) != 1 or nl > 2 or nr > 2:
        return None
    a = x if nl == 1 or lc == (1,) else f"{x}.T"
    b = y if nr == 1 or rc == (0,) else f"{y}.T"
    if nl == nr == 1:
        return f"np.array(np.dot({a}, {b}))"
    multiply_adds = math.prod(eqn.outvars[0].aval.shape) * lhs.aval.shape[lc[0]]
    mid_size = blas.ONE_THREAD_ANYWAY <= multiply_adds < blas.SMALL  # (see blas.py)
    dot = "dot_on_free_cores" if mid_size else "np.dot"
    return f"{dot}({a}, {b})"


def _runs_compiled(step: Step) -> bool:
    """Does the driver run this step as a kernel or a BLAS call (which only read their
    operands while they run), not as a reference rule or a loop (which may keep them)?"""
    if isinstance(step, FusionGroup):
        return True
    eqn = step.eqn
    if step.kind == "index":
        return True
    return step.kind == "dot" and (_dot_expr(eqn, "x", "y") is not None or loop_dot(eqn))


def private_arrays(jaxpr: Jaxpr, steps: list[Step]) -> set:
    """The values that kernels and matrix products write and that nothing else ever sees:
    no result of the program is one of them or a view of one, and no reference rule or
    loop is handed one (a rule may give back its argument, a callback may keep it). The
    driver fills the same arrays for them call after call (``BUFFERS``)."""
    escaping = {v for v in jaxpr.outvars if type(v) is Var}
    for step in reversed(steps):  # (a view's output is judged before its operand)
        if _runs_compiled(step):
            continue
        if step.kind != "view" or any(o in escaping for o in step.eqn.outvars):
            escaping.update(v for v in step.eqn.invars if type(v) is Var)
    written = set()
    for step in steps:
        if _runs_compiled(step):
            written.update(step.outputs if isinstance(step, FusionGroup) else step.eqn.outvars)
    return written - escaping


class _DriverWriter:
    """Writes one program's driver: every step of a jaxpr in order, on whole arrays.

    * The top-level jaxpr gets ``run(consts, rules, stop, *args)``, plain Python: it may call
      anything (kernels, BLAS, NumPy views, and the reference rules and Python loops held in
      ``rules``); ``stop`` is the Ctrl-C flag its compiled loops watch (``interrupts.py``).
    * Each jaxpr of a compiled loop (``loops.py``) gets an ``@njit`` *program function*,
      ``def scan_0_body(*consts, *args)``, which may only do what Numba can (``loops.plan``
      checked that). Every array in it is C-ordered: views are copied at once, so the kernels
      it calls see one memory layout.

    The functions a program calls (kernels, loop functions and the programs of those loops)
    go to ``out.functions`` before the program's own function: each function comes after
    the functions it calls.
    """

    def __init__(self, jaxpr: Jaxpr, steps: list[Step], names: Names, out: GeneratedModule,
                 name: str = "run", compiled: bool = False, programs: dict | None = None):
        self.jaxpr, self.steps, self.names, self.out = jaxpr, steps, names, out
        self.name, self.compiled = name, compiled
        self.prefix = "" if name == "run" else name + "_"  # of the functions it calls
        self.programs = programs or {}  # compiled: step index -> programs of its loop
        # Consts are made contiguous up front; so are a compiled program's arguments.
        self.contiguous: set = set(jaxpr.constvars) | (set(jaxpr.invars) if compiled else set())
        self.lines: list[str] = []
        self.placement: list = []  # (equation text, where it runs)
        self.counters: dict = {}  # kind of function -> how many so far
        self.consts: list = []  # (name, value, aval): the constants of its loops' programs
        self.unused = 0
        # Arrays the driver reuses from call to call (private_arrays): (name, shape, dtype).
        self.private = set() if compiled else private_arrays(jaxpr, steps)
        self.buffers: list = []

    # -- names and arguments -----------------------------------------------------
    def new_name(self, kind: str) -> str:
        number = self.counters.get(kind, 0)
        self.counters[kind] = number + 1
        return f"{self.prefix}{kind.replace('-', '_')}_{number}"

    def new_const(self, value: object, aval: object) -> str:
        name = f"const_{len(self.consts)}"
        self.consts.append((name, value, aval))
        return name

    def arg(self, v: Var | Literal) -> str:
        return literal_array(v) if type(v) is Literal else self.names(v)

    def c_ordered(self, v: Var | Literal) -> str:
        """``v`` as an argument of a compiled function, which expects a C-ordered array."""
        if type(v) is not Literal and v not in self.contiguous:  # (only in Python drivers)
            self.lines.append(f"{self.names(v)} = c_order({self.names(v)})")
            self.contiguous.add(v)
        return self.arg(v)

    def assign(self, outvars: list, expr: str, comment: str, returns_list: bool = False) -> None:
        lhs = []
        for v in outvars:
            name = self.names(v)
            if name == "_" and self.compiled:  # (Numba wants one type per variable name)
                name, self.unused = f"_{self.unused}", self.unused + 1
            lhs.append(name)
        text = ", ".join(lhs) + ("," if returns_list and len(lhs) == 1 else "")
        # An equation without outputs (jax.debug.print, a debug callback) is a bare call.
        self.lines.append(f"{text} = {expr}  # {comment}" if lhs else f"{expr}  # {comment}")

    def place(self, eqn: JaxprEqn, where: str) -> None:
        self.placement.append((self.names.eqn_text(eqn), where))

    # -- steps -------------------------------------------------------------------
    def call_kernel(self, name: str, inputs: list, outvars: list, comment: str,
                    scratch: tuple = ()) -> None:
        """Allocate a kernel's outputs, then call it: it fills them (and its scratch arrays,
        allocated in the call)."""
        args = [self.c_ordered(v) for v in inputs]
        outs = []
        for v in outvars:
            out = self.names(v)
            if out == "_":  # (a value nobody reads still needs an array to go to)
                out, self.unused = f"_{self.unused}", self.unused + 1
            if v in self.private:
                self.buffers.append((out, v.aval.shape, v.aval.dtype))
            else:
                self.lines.append(f"{out} = np.empty({v.aval.shape}, {np_name(v.aval.dtype)})")
            outs.append(out)
        work = [f"np.empty({shape}, {np_name(dtype)})" for _, shape, dtype in scratch]
        if not self.compiled:  # scratch arrays never leave the kernel: reused too
            work = []
            for _, shape, dtype in scratch:
                work.append(f"work_{len(self.buffers)}")
                self.buffers.append((work[-1], shape, np.dtype(dtype)))
        self.lines.append(f"{name}({', '.join(args + outs + work)})  # {comment}")
        self.contiguous.update(outvars)
        if not self.compiled:  # called from Python: compiled ahead, for these argument types
            self.out.kernels.append(KernelSignature(
                name, [v.aval for v in inputs],
                [v.aval for v in outvars] + [ShapedArray(s, np.dtype(d)) for _, s, d in scratch]))

    def kernel_call(self, group: FusionGroup) -> None:
        name = self.new_name("fused")
        source, scratch = kernel_source(group, name, self.names, self.out.imports)
        self.out.functions.append(source)
        ops = " ".join(e.primitive.name for e in group.eqns)
        self.call_kernel(name, group.inputs, group.outputs, ops[:70], scratch)
        for eqn in group.eqns:
            self.place(eqn, f"{name} (Numba loop)")

    def other_kernel(self, eqn: JaxprEqn) -> None:
        """A gather, scatter, dynamic slice, concatenate or matrix product (``kernels.py``)."""
        prim = eqn.primitive.name
        kernel = write_kernel(eqn, self.new_name("dot" if prim == "dot_general" else prim),
                              self.names, self.out.imports)
        self.out.functions.append(kernel.source)
        self.call_kernel(kernel.name, kernel.inputs, eqn.outvars, prim)
        self.place(eqn, f"{kernel.name} (Numba)")

    def copy_loop(self, eqn: JaxprEqn) -> None:
        """A view that moves elements, a stack or a concatenate in a compiled program: a
        loop copying into a new C-ordered array, written right here (``kernels.copy_lines``)."""
        lines = copy_lines(eqn, self.names)
        lines[0] += f"  # {eqn.primitive.name}: copied by a loop"
        self.lines += lines
        self.contiguous.update(eqn.outvars)
        self.place(eqn, "loop in this function (copy)")

    def call(self, step: CallStep) -> None:
        eqn, kind = step.eqn, step.kind
        prim = eqn.primitive.name
        if kind == "dot" and not self.compiled:
            expr = _dot_expr(eqn, *(self.arg(v) for v in eqn.invars))
            out = eqn.outvars[0]
            if expr is not None and out in self.private and not expr.startswith("np.array"):
                self.buffers.append((self.names(out), out.aval.shape, out.aval.dtype))
                expr = f"{expr[:-1]}, out={self.names(out)})"  # (BLAS writes into it)
                self.assign(eqn.outvars, expr, f"{prim}: NumPy (BLAS), into a reused array")
                self.contiguous.add(out)
                self.place(eqn, "NumPy (BLAS)")
                return
            if expr is not None:
                self.assign(eqn.outvars, expr, f"{prim}: NumPy (BLAS)")
                self.contiguous.update(eqn.outvars)
                self.place(eqn, "NumPy (BLAS)")
                return
        if self.compiled and (prim in ("stack", "concatenate") or
                              (kind == "view" and _moves(eqn))):
            return self.copy_loop(eqn)
        if kind == "index" or (kind == "dot" and loop_dot(eqn)):
            return self.other_kernel(eqn)
        if kind == "view":
            where = "Numba (view)" if self.compiled else "NumPy (view)"
            self.assign(eqn.outvars, self.view(eqn, self.arg(eqn.invars[0])), f"{prim}: {where}")
            self.place(eqn, where)
            return
        reason = ""
        if kind == "loop":
            programs = self.programs.get(step.index)
            if programs is None:
                programs, reason = plan_loop(eqn)
            if programs is not None:
                return self.compiled_loop(eqn, programs)
        assert not self.compiled, f"{prim} cannot run inside Numba"  # (loops.plan said so)
        where = (f"Python loop around compiled bodies ({reason})" if kind == "loop"
                 else reference_rule_label(eqn))
        args = ", ".join(self.arg(v) for v in eqn.invars)
        self.assign(eqn.outvars, f"rules[{len(self.out.calls)}]({args})", f"{prim}: {where}",
                    returns_list=True)
        self.out.calls.append(step)
        self.place(eqn, where)

    def compiled_loop(self, eqn: JaxprEqn, programs: list) -> None:
        """A while/scan/cond as an @njit function, after the program functions it calls."""
        name = self.new_name(eqn.primitive.name)
        functions, const_values = [], []
        for (label, _), program in zip(sub_jaxprs(eqn), programs):
            writer = _DriverWriter(program.jaxpr, program.steps, Names(program.jaxpr),
                                   self.out, f"{name}_{label}", True, program.loops)
            self.out.functions.append(writer.source())
            values = [*zip(program.consts, (v.aval for v in program.jaxpr.constvars)),
                      *((value, aval) for _, value, aval in writer.consts)]
            functions.append(ProgramFunction(writer.name, len(values), len(program.jaxpr.invars)))
            const_values += values
        top_level = not self.compiled  # called from Python: it can be stopped by Ctrl-C
        self.out.functions.append(loop_source(name, eqn, functions, self.names.eqn_text(eqn),
                                              top_level))
        stop = ["stop"] if top_level and interruptible(eqn) else []
        args = [self.new_const(value, aval) for value, aval in const_values]
        operands = [self.c_ordered(v) for v in eqn.invars]
        self.assign(eqn.outvars, f"{name}({', '.join(stop + args + operands)})",
                    f"{eqn.primitive.name}: compiled (Numba)", returns_list=True)
        self.contiguous.update(eqn.outvars)
        if top_level:
            self.out.kernels.append(KernelSignature(name, [STOP_AVAL] * len(stop)
                                                    + [aval for _, aval in const_values]
                                                    + [v.aval for v in eqn.invars]))
        self.place(eqn, f"{name} (compiled loop)" if eqn.primitive.name != "cond"
                   else f"{name} (compiled)")

    def view(self, eqn: JaxprEqn, x: str) -> str:
        """reshape, squeeze, broadcast_in_dim, transpose, slice, rev and bitcasts as NumPy views.

        (A compiled program copies the views that move elements: ``other_kernel``.)"""
        name, shape = eqn.primitive.name, eqn.outvars[0].aval.shape
        (operand,) = eqn.invars
        expr, moved = f"{x}.reshape({shape})", False  # a reshaped C-ordered array stays so
        if name == "transpose" and shape:
            expr, moved = f"{x}.transpose({tuple(eqn.params['permutation'])})", True
        elif name == "slice":
            strides = eqn.params["strides"] or (1,) * len(shape)
            parts = [f"{lo}:{hi}" + (f":{st}" if st != 1 else "") for lo, hi, st in
                     zip(eqn.params["start_indices"], eqn.params["limit_indices"], strides)]
            expr, moved = (f"{x}[{', '.join(parts)}]", True) if parts else (x, False)
        elif name == "rev":
            parts = ["::-1" if d in eqn.params["dimensions"] else ":" for d in range(len(shape))]
            expr, moved = (f"{x}[{', '.join(parts)}]", True) if parts else (x, False)
        elif name == "bitcast_convert_type":
            expr = f"{x}.view({np_name(eqn.outvars[0].aval.dtype)})"
        elif name == "broadcast_in_dim":
            expanded = [1] * len(shape)
            for size, d in zip(operand.aval.shape, eqn.params["broadcast_dimensions"]):
                expanded[d] = size
            if tuple(expanded) != shape:
                expr = f"np.broadcast_to({x}.reshape({tuple(expanded)}), {shape})"
                moved = True
        if not moved and operand in self.contiguous:
            self.contiguous.add(eqn.outvars[0])
        return expr

    # -- putting it together -----------------------------------------------------
    def source(self) -> str:
        for step in self.steps:
            if isinstance(step, FusionGroup):
                self.kernel_call(step)
            else:
                self.call(step)
        outs = [self.arg(v) for v in self.jaxpr.outvars]
        const_names = [self.names(v) for v in self.jaxpr.constvars] + [c[0] for c in self.consts]
        invars = [self.names(v) for v in self.jaxpr.invars]
        if self.compiled:
            return self._program_function(const_names + invars, outs)
        self.out.consts = [(value, aval) for _, value, aval in self.consts]
        self.out.placement = self.placement
        params = ", ".join(["consts", "rules", "stop", *invars])
        unpack = []
        if const_names:
            unpack = [f"{', '.join(const_names)}{',' if len(const_names) == 1 else ''} = consts"]
        doc = ('    """The whole jaxpr on whole arrays: kernels, NumPy calls and reference '
               'rules in order."""')
        take, give_back, buffers = [], [], []
        if self.buffers:
            take, give_back, buffers = self._buffers()
        body = unpack + take + self.lines + give_back + [f"return [{', '.join(outs)}]"]
        return "\n".join([*buffers, f"def run({params}):", doc,
                          *("    " + line for line in body), ""])

    def _buffers(self) -> tuple[list, list, list]:
        """The lines that take a set of reusable arrays, give it back, and make a new one.

        A set is used by one call at a time: a call takes one from ``BUFFERS`` (or makes
        one, the first time and when calls overlap in threads) and puts it back when it is
        done; a call that fails never puts its set back. (``list.pop`` and ``append`` are
        atomic under the GIL.)"""
        names = [name for name, _, _ in self.buffers]
        arrays = [f"np.empty({shape}, {np_name(dtype)})" for _, shape, dtype in self.buffers]
        listed = [f"            {array},  # {name}" for name, array in zip(names, arrays)]
        listed[0] = "    return (" + listed[0].lstrip()
        make = ["# Arrays no result of run() shares (private_arrays): the same ones, call after",
                "# call, instead of new ones each time.",
                "BUFFERS = []", "", "",
                "def new_buffers():", *listed[:-1], listed[-1].replace(",  #", ",)  #"), "", ""]
        take = ["try:", "    buffers = BUFFERS.pop()", "except IndexError:",
                "    buffers = new_buffers()",
                f"{', '.join(names)}, = buffers"]
        return take, ["BUFFERS.append(buffers)"], make

    def _program_function(self, params: list[str], outs: list[str]) -> str:
        jaxpr_lines = self.names.jaxpr_text.splitlines()
        where = [f"      {w:36s} {text}" for text, w in self.placement]
        doc = ['    """The jaxpr below on whole arrays, compiled: the loop function calls it '
               "without Python.", "", *("    " + line for line in jaxpr_lines), "",
               "    Where each equation runs:", *where, '    """']
        body = self.lines + [f"return ({', '.join(outs)}{',' if len(outs) == 1 else ''})"]
        return "\n".join([DECORATOR, f"def {self.name}({', '.join(params)}):", *doc,
                          *("    " + line for line in body), ""])


def _moves(view: JaxprEqn) -> bool:
    """Does this view put elements elsewhere (not only reshape a C-ordered array)?"""
    name, (operand,) = view.primitive.name, view.invars
    if name == "broadcast_in_dim":
        shape = view.outvars[0].aval.shape
        return math.prod(operand.aval.shape) != math.prod(shape)
    return name in VIEW_COPIES and operand.aval.ndim > 0


# ====================================================================== the module
def generate_module(jaxpr: Jaxpr, steps: list[Step], header: str) -> GeneratedModule:
    """The full source for ``jaxpr``: imports, the @njit functions (kernels, compiled loops
    and their programs), then the driver."""
    names = Names(jaxpr)
    out = GeneratedModule("")
    driver = _DriverWriter(jaxpr, steps, names, out).source()
    helper_imports = sorted(out.imports)
    import_lines = ["import math", "", "import numpy as np", "from numba import njit", "",
                    "from edujax.backends.numba_cpu.blas import dot_on_free_cores",
                    "from edujax.backends.numba_cpu.steps import c_order"]
    for module in sorted({m for m, _ in helper_imports}):
        names_from = ", ".join(n for m, n in helper_imports if m == module)
        import_lines.append(f"from {module} import {names_from}")
    comment = [*header.splitlines(), "", "The jaxpr (after inlining nested calls):",
               *names.jaxpr_text.splitlines(), "", "Where each equation runs:",
               *(f"  {where:36s} {text}" for text, where in out.placement)]
    out.driver = driver
    out.origins = lambda: origins_by_name(jaxpr, names)
    out.source = "\n".join(["# " + line if line else "#" for line in comment]
                           + ["", *import_lines, "", "", *(f + "\n" for f in out.functions),
                              driver])
    return out
