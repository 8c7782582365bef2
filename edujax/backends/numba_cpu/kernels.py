"""Kernels for the steps that are not fusion groups: data movement and small matrix products.

A fusion group is one loop over its output, element by element. Some equations do not fit
that mould, but are still simple loops, so each becomes a small ``@njit`` function of its own:

* ``dynamic_slice`` / ``dynamic_update_slice``: a slice whose start is a traced value
  (``x[i]`` inside a loop). XLA clamps the start so the window stays inside the array; so
  do we, then copy the window out (or into a copy of the operand) with a loop.
* ``gather``: what ``x[idx]``, ``x[:, idx]`` and ``x[i, j]`` with arrays of indices stage.
  One loop over the *batch positions* of the indices reads the start of each window (and
  clamps it, or remembers that it is out of bounds), then a loop over the window copies it.
* ``scatter`` (``x.at[idx].set``) and ``scatter-add/sub/mul/min/max`` (``.add``, ...): the
  same loops over the windows, writing into a copy of the operand. An update that lands on
  the same element twice is combined twice, in the order NumPy's ``np.add.at`` uses (window
  after window), so float sums come out bit for bit like the reference rule's.
* ``concatenate`` and ``stack``: one copy loop per operand.
* ``dot_general`` as loops, for matrix products of integers (BLAS has none) and for small
  ones inside compiled loops (see ``loop_dot``).
* in the programs of compiled loops (``loops.py``), where every array is C-ordered, the views
  that move elements (transposes, slices, reversals, broadcasts), stacks and concatenations
  are copied by loops written right into the program (``copy_lines``).

Like the fusion kernels (``codegen.py``), these kernels allocate nothing: the output comes
last among the parameters, allocated by the caller, and the kernel fills it (XLA's buffer
model: the driver allocates, kernels fill). A kernel that allocates nothing needs nothing of
Numba's runtime, which is what lets ``aot.py`` run it without Numba.

Loops, not NumPy's slice assignments (``OUT[2:5] = A``): Numba compiles those in seconds, a
plain loop in a fraction of a second, into machine code as fast.

Why kernels of their own and not reads inside a fusion group? A gather read inside a loop
nest would save writing the gathered array, but the fusion group's loop runs over the
*output* shape and every operand is read at a position computed from the loop indices: a
gather's position depends on the value of another array, and a scatter writes positions the
loop does not visit in order. Separate kernels keep the fused loops simple (and their
vectorization intact); the price is one more array written and read.

The rules here are the reference rules (``edujax/lax/slicing.py``, ``edujax/lax/shape.py``)
as loops: the same window starts, the same clamping, the same out-of-bounds behaviour.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from edujax.backends.passes.lowering import constant, literal_expr, np_name, plain_dtypes
from edujax.jaxpr import JaxprEqn, Literal, Var
from edujax.lax.slicing import GatherScatterMode, _default_fill_value

DECORATOR = '@njit(cache=True, error_model="numpy")'
VIEW_COPIES = {"transpose", "slice", "rev", "broadcast_in_dim"}  # (in compiled programs)
# A float matrix product of at most this many multiply-adds runs as loops inside a compiled
# loop; a bigger one is worth leaving the loop for BLAS (its cost dwarfs a Python call).
LOOP_DOT_LIMIT = 1 << 15


# ====================================================================== what can be lowered
def loop_dot(eqn: JaxprEqn) -> bool:
    """Can this ``dot_general`` run as loops here (integers always, floats when small)?"""
    if eqn.primitive.name != "dot_general" or not plain_dtypes(eqn):
        return False
    kinds = {v.aval.dtype.kind for v in (*eqn.invars, *eqn.outvars)}
    if not kinds <= set("fiu"):
        return False  # (bool products: rare, left to the reference rule)
    if eqn.outvars[0].aval.dtype.kind in "iu":
        return True
    (lc, _), _ = eqn.params["dimension_numbers"]
    macs = math.prod(eqn.outvars[0].aval.shape) * math.prod(
        eqn.invars[0].aval.shape[d] for d in lc)
    return macs <= LOOP_DOT_LIMIT


# ====================================================================== writing a kernel
@dataclass
class Kernel:
    """The source of one ``@njit`` function and the arrays it is called with."""

    name: str
    source: str
    inputs: list  # Vars, in parameter order (literal operands are written into the code)


class _Writer:
    """Shared bookkeeping: parameters (one per distinct variable), imports, the lines.

    A kernel takes its output as its last parameter and fills it (the caller allocated it);
    code written into a compiled program (``inline``) allocates its output itself."""

    def __init__(self, eqn: JaxprEqn, name: str, names, imports: set, inline: bool = False):
        self.eqn, self.name, self.names, self.imports = eqn, name, names, imports
        self.inline = inline
        self.inputs = list(dict.fromkeys(v for v in eqn.invars if type(v) is Var))
        self.lines: list[str] = []
        self.out = names.array(eqn.outvars[0])
        self.out_aval = eqn.outvars[0].aval

    def array(self, atom: Var | Literal) -> str:
        """An operand as a whole array (a literal becomes a 0-d array)."""
        if type(atom) is Literal:
            return f"np.array({literal_expr(atom)})"
        return self.names.array(atom)

    def scalar(self, atom: Var | Literal) -> str:
        """A 0-d operand as a number."""
        return literal_expr(atom) if type(atom) is Literal else f"{self.names.array(atom)}[()]"

    def helper(self, name: str) -> str:
        self.imports.add(("edujax.backends.numba_cpu.scalar", name))
        return name

    def allocate(self) -> None:
        """The output array, uninitialized: a kernel's caller has already allocated it."""
        if self.inline:
            self.lines.append(f"{self.out} = np.empty({self.out_aval.shape}, "
                              f"{np_name(self.out_aval.dtype)})")

    def fill(self, value: str) -> None:
        """Every element of the output set to ``value`` (a kernel's ``np.zeros``)."""
        self.lines += fill_lines(self.out, self.out_aval.shape, value)

    def copy_of(self, x: Var | Literal) -> None:
        """The output starts as a copy of ``x`` (of the same shape)."""
        shape = self.out_aval.shape
        index = [f"{{{d}}}" for d in range(len(shape))]
        source = literal_expr(x) if type(x) is Literal else _element(self.names.array(x), index)
        _copy_loops(self, shape, _element(self.out, index), source)

    def kernel(self, what: str) -> Kernel:
        args = ", ".join([*(self.names.array(v) for v in self.inputs), self.out])
        doc = f'    """{what}:\n        {self.names.eqn_text(self.eqn)}"""'
        source = "\n".join([DECORATOR, f"def {self.name}({args}):", doc,
                            *("    " + line for line in self.lines), ""])
        return Kernel(self.name, source, self.inputs)


def loop_lines(shape: tuple, statement: str, var: str = "f") -> list[str]:
    """Loops over every index of ``shape`` (``f0``, ``f1``...) around ``statement``, whose
    ``{0}`` is the subscript: ``loop_lines((3,), "ACC{0} = 0.0")`` is two lines."""
    index = [f"{var}{d}" for d in range(len(shape))]
    lines = ["    " * d + f"for {i} in range({n}):" for d, (i, n) in enumerate(zip(index, shape))]
    return lines + ["    " * len(shape) + statement.format(_subscript(index))]


def fill_lines(array: str, shape: tuple, value: str) -> list[str]:
    """Loops setting every element of ``array`` to ``value`` (not ``ARRAY[:] = value``:
    Numba compiles a slice assignment much more slowly than a loop)."""
    return loop_lines(shape, f"{array}{{0}} = {value}")


def _subscript(parts: list[str]) -> str:
    return "[" + (", ".join(parts) if parts else "()") + "]"


def _plus(start: str, offset: str | None) -> str:
    """``start + offset`` as short text (``i1``, ``s0``, ``s0 + i1``)."""
    if offset is None:
        return start
    return offset if start == "0" else f"{start} + {offset}"


def _clamped(raw: str, last: int) -> str:
    return f"min(max({raw}, 0), {last})"


class _OwnNames:
    """For code written inside a program function: arrays keep the driver's names."""

    def __init__(self, names):
        self.names = names

    def array(self, v: Var) -> str:
        return self.names(v)

    def eqn_text(self, eqn: JaxprEqn) -> str:
        return self.names.eqn_text(eqn)


def copy_lines(eqn: JaxprEqn, names) -> list[str]:
    """The loops of a view copy, ``stack`` or ``concatenate``, to be written inside a
    compiled program function rather than as a kernel of their own: such copies are small
    and many (a key's two words are sliced apart, and stacked back), and every ``@njit``
    function costs Numba a fixed share of compile time, a plain loop next to nothing."""
    writer = _Writer(eqn, "", _OwnNames(names), set(), inline=True)
    {"stack": _stack, "concatenate": _concatenate}.get(eqn.primitive.name, _view_copy)(writer)
    return writer.lines


def write_kernel(eqn: JaxprEqn, name: str, names, imports: set) -> Kernel:
    """The ``@njit`` function computing ``eqn`` (see ``index_lowerable`` and ``loop_dot``)."""
    writer = _Writer(eqn, name, names, imports)
    prim = eqn.primitive.name
    if prim == "dot_general":
        return _dot(writer)
    if prim == "dynamic_slice":
        return _dynamic_slice(writer)
    if prim == "dynamic_update_slice":
        return _dynamic_update_slice(writer)
    if prim == "concatenate":
        return _concatenate(writer)
    if prim == "stack":
        return _stack(writer)
    if prim in VIEW_COPIES:
        return _view_copy(writer)
    if prim == "gather":
        return _gather(writer)
    return _scatter(writer)


class _Loops:
    """Nested ``for`` loops, written one level at a time."""

    def __init__(self, lines: list[str]):
        self.lines, self.depth = lines, 0

    def open(self, var: str, size: int) -> None:
        self.add(f"for {var} in range({size}):")
        self.depth += 1

    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)


# ---------------------------------------------------------------- matrix products
def _dot(w: _Writer) -> Kernel:
    """Loops over batch, lhs-free, contracting, then rhs-free dims (the innermost, so the
    update ``OUT[i, j] += x * Y[k, j]`` runs along rows of Y and OUT and vectorizes)."""
    lhs, rhs = w.eqn.invars
    (lc, rc), (lb, rb) = w.eqn.params["dimension_numbers"]
    lf = [d for d in range(lhs.aval.ndim) if d not in lc and d not in lb]
    rf = [d for d in range(rhs.aval.ndim) if d not in rc and d not in rb]
    dtype = w.out_aval.dtype
    batch, free_l, contract, free_r = ([f"{c}{k}" for k in range(len(dims))] for c, dims in
                                       (("b", lb), ("i", lf), ("k", lc), ("j", rf)))

    def index(dims_b, dims_c, dims_f, free):
        return {**dict(zip(dims_b, batch)), **dict(zip(dims_c, contract)),
                **dict(zip(dims_f, free))}

    li, ri = index(lb, lc, lf, free_l), index(rb, rc, rf, free_r)

    def read(atom, where: dict) -> str:
        text = (literal_expr(atom) if type(atom) is Literal else
                f"{w.names.array(atom)}{_subscript([where[d] for d in range(atom.aval.ndim)])}")
        return text if atom.aval.dtype == dtype else f"{np_name(dtype)}({text})"

    w.fill(constant(0, dtype))
    loops = _Loops(w.lines)
    for var, d in [*zip(batch, lb), *zip(free_l, lf), *zip(contract, lc)]:
        loops.open(var, lhs.aval.shape[d])
    loops.add(f"x = {read(lhs, li)}")
    for var, d in zip(free_r, rf):
        loops.open(var, rhs.aval.shape[d])
    target = f"{w.out}{_subscript(batch + free_l + free_r)}"
    product = f"{target} + x * {read(rhs, ri)}"
    loops.add(f"{target} = {product if dtype.kind == 'f' else f'{np_name(dtype)}({product})'}")
    return w.kernel("Matrix product as loops (integers, or small enough that a loop beats a "
                    "call to BLAS)")


# ---------------------------------------------------------------- dynamic slices
def _starts(w: _Writer, starts: list, shape: tuple, sizes: tuple) -> list[str]:
    """One clamped start per dimension: ``s0 = min(max(np.int64(B[()]), 0), 7)``."""
    names = []
    for d, (start, dim, size) in enumerate(zip(starts, shape, sizes)):
        if type(start) is Literal:  # clamped now, once
            names.append(str(min(max(int(start.val), 0), dim - size)))
        else:
            w.lines.append(f"s{d} = {_clamped(f'np.int64({w.scalar(start)})', dim - size)}")
            names.append(f"s{d}")
    return names


def _dynamic_slice(w: _Writer) -> Kernel:
    x, *starts = w.eqn.invars
    sizes = tuple(w.eqn.params["slice_sizes"])
    begin = _starts(w, starts, x.aval.shape, sizes)
    loop_index = [f"{{{d}}}" for d in range(len(sizes))]
    source = literal_expr(x) if type(x) is Literal else \
        _element(w.names.array(x), [_plus(s, i) for s, i in zip(begin, loop_index)])
    _copy_loops(w, sizes, _element(w.out, loop_index), source)
    return w.kernel("A slice at a traced start, clamped so that it stays inside the array "
                    "(XLA never reads out of bounds)")


def _copy_loops(w: _Writer, shape: tuple, target: str, source: str) -> None:
    """Loops copying ``source`` to ``target`` element by element, over ``shape``. The two
    texts are formats of the loop indices: ``{0}`` is ``i0``, ``{1}`` is ``i1``...

    (Not ``OUT[2:5] = A``: Numba takes seconds to compile a slice assignment, and a
    plain loop compiles in a fraction of that into the same machine code.)"""
    loops = _Loops(w.lines)
    index = [f"i{d}" for d in range(len(shape))]
    for var, size in zip(index, shape):
        loops.open(var, size)
    loops.add(f"{target.format(*index)} = {source.format(*index)}")


def _element(array: str, parts: list[str]) -> str:
    """``A[{0}, {1} + 3]``-style text: ``parts`` may use the loop indices ``{k}``."""
    return array + _subscript(parts)


def _dynamic_update_slice(w: _Writer) -> Kernel:
    x, update, *starts = w.eqn.invars
    sizes = update.aval.shape
    begin = _starts(w, starts, x.aval.shape, sizes)
    w.copy_of(x)
    loop_index = [f"{{{d}}}" for d in range(len(sizes))]
    if type(update) is Literal:
        _copy_loops(w, sizes, _element(w.out, begin), literal_expr(update))
    else:
        target = _element(w.out, [_plus(s, i) for s, i in zip(begin, loop_index)])
        _copy_loops(w, sizes, target, _element(w.names.array(update), loop_index))
    return w.kernel("A copy of the operand with the update written at a traced start, "
                    "clamped so that the update fits")


def _concatenate(w: _Writer) -> Kernel:
    axis = w.eqn.params["dimension"]
    shape = w.out_aval.shape
    w.allocate()
    start = 0
    for operand in w.eqn.invars:
        index = [f"{{{d}}}" for d in range(len(shape))]
        source = _element(w.names.array(operand), index)
        if start:
            index[axis] = f"{{{axis}}} + {start}"
        _copy_loops(w, operand.aval.shape, _element(w.out, index), source)
        start += operand.aval.shape[axis]
    return w.kernel("Operands side by side along axis " + str(axis))


def _stack(w: _Writer) -> Kernel:
    axis = w.eqn.params["axis"]
    w.allocate()
    for k, operand in enumerate(w.eqn.invars):
        index = [f"{{{d}}}" for d in range(operand.aval.ndim)]
        source = w.scalar(operand) if type(operand) is Literal else \
            _element(w.names.array(operand), index)
        _copy_loops(w, operand.aval.shape, _element(w.out, [*index[:axis], str(k),
                                                             *index[axis:]]), source)
    return w.kernel(f"Operands stacked along a new axis {axis}")


# ---------------------------------------------------------------- views, copied
def _view_copy(w: _Writer) -> Kernel:
    """A transpose, slice, reversal or broadcast, copied into a new C-ordered array.

    Compiled programs (``loops.py``) keep every array C-ordered; where a Python driver makes
    a NumPy view for free, they copy. (A fused loop reading the view reads through it
    instead, with no copy at all: only views read by other steps get here.)"""
    (x,), eqn = w.eqn.invars, w.eqn
    shape, p = w.out_aval.shape, eqn.params
    index = [f"{{{d}}}" for d in range(len(shape))]
    name = eqn.primitive.name
    if name == "transpose":  # output dim k is operand dim permutation[k]
        perm = list(p["permutation"])
        parts = [index[perm.index(d)] for d in range(len(perm))]
    elif name == "slice":
        strides = p["strides"] or (1,) * len(shape)
        parts = [i if (start, stride) == (0, 1) else
                 f"{start} + {i}" if stride == 1 else f"{start} + {i} * {stride}"
                 for i, start, stride in zip(index, p["start_indices"], strides)]
    elif name == "rev":
        parts = [f"{n - 1} - {i}" if d in p["dimensions"] else i
                 for d, (i, n) in enumerate(zip(index, x.aval.shape))]
    else:  # broadcast_in_dim: operand dim j is output dim broadcast_dimensions[j]
        parts = [index[d] if size == shape[d] else "0"
                 for size, d in zip(x.aval.shape, p["broadcast_dimensions"])]
    w.allocate()
    source = w.scalar(x) if type(x) is Literal else _element(w.names.array(x), parts)
    _copy_loops(w, shape, _element(w.out, index), source)
    return w.kernel(f"{name}, copied into a C-ordered array")


# ---------------------------------------------------------------- gather and scatter
def _window_starts(w: _Writer, indices: Var, batch: list[str], operand_shape: tuple,
                   window: list[int], index_map, operand_batching, indices_batching,
                   clamp: bool) -> tuple[list[str], list[str]]:
    """The start of the window at one batch position of ``indices``, per operand dim, and
    the in-bounds tests of the unclamped starts (for the modes that fill or drop)."""
    starts, tests = [], []
    for d, dim in enumerate(operand_shape):
        last = dim - window[d]
        if d in index_map:
            position = _subscript(batch + [str(index_map.index(d))])
            raw = f"np.int64({w.names.array(indices)}{position})"
            if clamp:
                w.lines.append(f"s{d} = {_clamped(raw, last)}")
            else:
                w.lines.append(f"s{d} = {raw}")
                tests.append(f"(s{d} >= 0) & (s{d} <= {last})")
            starts.append(f"s{d}")
        elif d in operand_batching:  # the window starts at the batch position itself
            starts.append(batch[indices_batching[list(operand_batching).index(d)]])
        else:
            starts.append("0")
    return starts, tests


def _gather(w: _Writer) -> Kernel:
    x, indices = w.eqn.invars
    p = w.eqn.params
    dn, sizes, shape = p["dimension_numbers"], tuple(p["slice_sizes"]), w.out_aval.shape
    what = "Gather: one window of the operand per position of the indices"
    if 0 in sizes:  # (empty windows: the reference rule returns zeros)
        w.fill(constant(0, w.out_aval.dtype))
        return w.kernel(what)
    fill = p["mode"] == GatherScatterMode.FILL_OR_DROP
    batch_dims = [j for j in range(len(shape)) if j not in dn.offset_dims]
    kept = [d for d in range(x.aval.ndim)
            if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    window_var = {d: f"i{j}" for d, j in zip(kept, dn.offset_dims)}
    loops = _Loops(w.lines)
    for j in batch_dims:
        loops.open(f"i{j}", shape[j])
    before = len(w.lines)
    starts, tests = _window_starts(
        w, indices, [f"i{j}" for j in batch_dims], x.aval.shape, list(sizes),
        list(dn.start_index_map), dn.operand_batching_dims, dn.start_indices_batching_dims,
        clamp=not fill)
    _indent_new_lines(w.lines, loops.depth, before)
    if fill and tests:  # read at the clamped start, keep the value only if it was inside
        loops.add(f"inside = {' & '.join(tests)}")
        for d, s in enumerate(starts):
            if s == f"s{d}":
                loops.add(f"s{d} = {_clamped(s, x.aval.shape[d] - sizes[d])}")
    read = f"{w.array(x)}{_subscript([_plus(s, window_var.get(d)) for d, s in enumerate(starts)])}"
    if fill and tests:
        value = _default_fill_value(w.out_aval.dtype) if p["fill_value"] is None \
            else p["fill_value"]
        read = f"{read} if inside else {constant(value, w.out_aval.dtype)}"
    for j in dn.offset_dims:
        loops.open(f"i{j}", shape[j])
    loops.add(f"{w.out}{_subscript([f'i{j}' for j in range(len(shape))])} = {read}")
    mode = "out-of-bounds windows are filled" if fill else "starts clamped into bounds"
    return w.kernel(f"{what} ({mode})")


def _indent_new_lines(lines: list[str], depth: int, before: int) -> None:
    """Indent the lines appended since ``before`` to the current loop depth."""
    for k in range(before, len(lines)):
        lines[k] = "    " * depth + lines[k]


def _combine(w: _Writer, target: str, update: str) -> str:
    """``target = combine(target, update)`` for each scatter (NumPy's ufunc.at semantics)."""
    prim, dtype = w.eqn.primitive.name, w.out_aval.dtype
    if prim == "scatter":
        return f"{target} = {update}"
    if dtype == np.bool_:  # NumPy's add/mul/max/min on booleans are or/and/or/and
        op = {"scatter-add": "|", "scatter-max": "|", "scatter-mul": "&", "scatter-min": "&"}
        return f"{target} = {target} {op[prim]} {update}"
    if prim in ("scatter-min", "scatter-max"):
        if dtype.kind == "f":  # NaN wins, as in np.minimum / np.maximum
            helper = w.helper("fmin_nan" if prim == "scatter-min" else "fmax_nan")
            return f"{target} = {helper}({target}, {update})"
        return f"{target} = {'min' if prim == 'scatter-min' else 'max'}({target}, {update})"
    op = {"scatter-add": "+", "scatter-sub": "-", "scatter-mul": "*"}[prim]
    value = f"{target} {op} {update}"
    return f"{target} = {value if dtype.kind == 'f' else f'{np_name(dtype)}({value})'}"


def _scatter(w: _Writer) -> Kernel:
    x, indices, updates = w.eqn.invars
    p = w.eqn.params
    dn = p["dimension_numbers"]
    clip = p["mode"] == GatherScatterMode.CLIP
    window_dims = list(dn.update_window_dims)
    scatter_dims = [j for j in range(updates.aval.ndim) if j not in window_dims]
    kept = [d for d in range(x.aval.ndim)
            if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    window = [1] * x.aval.ndim
    window_var = {}
    for d, j in zip(kept, window_dims):
        window[d] = updates.aval.shape[j]
        window_var[d] = f"u{j}"
    w.copy_of(x)
    loops = _Loops(w.lines)
    for j in scatter_dims:  # window after window: the order np.add.at combines them in
        loops.open(f"u{j}", updates.aval.shape[j])
    before = len(w.lines)
    starts, tests = _window_starts(
        w, indices, [f"u{j}" for j in scatter_dims], x.aval.shape, window,
        list(dn.scatter_dims_to_operand_dims), dn.operand_batching_dims,
        dn.scatter_indices_batching_dims, clamp=clip)
    _indent_new_lines(w.lines, loops.depth, before)
    if tests:  # a window that does not fit is dropped whole
        loops.add(f"if {' & '.join(tests)}:")
        loops.depth += 1
    for j in window_dims:
        loops.open(f"u{j}", updates.aval.shape[j])
    target = f"{w.out}{_subscript([_plus(s, window_var.get(d)) for d, s in enumerate(starts)])}"
    update = (literal_expr(updates) if type(updates) is Literal else
              f"{w.names.array(updates)}{_subscript([f'u{j}' for j in range(updates.aval.ndim)])}")
    loops.add(_combine(w, target, update))
    mode = "starts clamped into bounds" if clip else "windows out of bounds are dropped"
    name = w.eqn.primitive.name
    return w.kernel(f"{name.capitalize()}: a copy of the operand, one window of updates per "
                    f"position of the indices ({mode})")
