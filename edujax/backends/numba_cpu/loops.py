"""Control flow compiled as loops: ``while``, ``scan`` (and ``fori_loop``) and ``cond`` in Numba.

A ``while`` equation holds two jaxprs, ``cond`` and ``body``. The simple way to run it is a
Python loop that calls the compiled body once per iteration (``steps.WhileLoop``): every
iteration then pays for a few Python calls, about ten microseconds, however small the body.
A 1000-step ``fori_loop`` over a 4-element vector would spend nearly all its time in Python.

So when *everything* a loop runs can run inside Numba, the loop itself becomes an ``@njit``
function of the generated module:

* each jaxpr it holds (cond, body, branch) is flattened and partitioned like the top-level
  one and written as an ``@njit`` *program function*: a driver like ``run`` that calls its
  kernels in order, but compiled (``scan_0_body(a, b)`` below);
* the loop function (``scan_0``) is a plain ``for``/``while`` loop calling those functions.
  Numba compiles it together with everything it calls: no Python between iterations.

::

    @njit(cache=True, error_model="numpy")
    def scan_0(carry0, carry1):
        \"\"\"scan, compiled: ...\"\"\"
        for i in range(100):
            carry0, carry1 = scan_0_body(carry0, carry1)
        return (carry0, carry1)

What can run inside Numba (``plan`` checks it, step by step): fusion groups, views, the
kernels of ``kernels.py`` (gathers, scatters, dynamic slices, concatenations, matrix
products as loops when integer or small) and loops whose own programs can (nested loops
compile too). A primitive that runs its NumPy reference rule cannot: then the loop stays a
Python loop around compiled bodies, and the generated source says why.

Inside a program function every array is C-ordered: views are copied (``x.T.copy()``), so
the kernels it calls are compiled for one memory layout.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from edujax.backends.numba_cpu import kernels
from edujax.backends.passes.fusion import CallStep, partition
from edujax.backends.passes.inline import inline_calls
from edujax.backends.passes.lowering import SUPPORTED_DTYPES, np_name
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn

DECORATOR = kernels.DECORATOR
# A loop called from Python lets go of the GIL while it runs (``nogil``): a loop can take
# minutes, and meanwhile the other threads of the process (Jupyter's output and status
# messages, a tiered compile in the background) must be able to run.
TOP_LEVEL_DECORATOR = DECORATOR[:-1] + ", nogil=True)"


@dataclass
class Program:
    """A jaxpr that can run entirely inside Numba, ready to be written as one function."""

    jaxpr: Jaxpr  # calls inlined (inline.py)
    consts: list  # the values of jaxpr.constvars
    steps: list  # fusion.partition's schedule
    loops: dict = field(default_factory=dict)  # step index -> programs of a compiled loop


def sub_jaxprs(eqn: JaxprEqn) -> list[tuple[str, ClosedJaxpr]]:
    """The jaxprs a control-flow equation runs, with the label of each."""
    p = eqn.params
    if eqn.primitive.name == "while":
        return [("cond", p["cond_jaxpr"]), ("body", p["body_jaxpr"])]
    if eqn.primitive.name == "scan":
        return [("body", p["jaxpr"])]
    return [(f"branch_{i}", b) for i, b in enumerate(p["branches"])]


def plan(closed: ClosedJaxpr) -> tuple[Program | None, str]:
    """``closed`` as a Program if every step of it can run inside Numba, else why not."""
    flat = inline_calls(closed)
    jaxpr = flat.jaxpr
    for v in (*jaxpr.constvars, *jaxpr.invars, *jaxpr.outvars):
        if v.aval.dtype not in SUPPORTED_DTYPES:
            return None, f"{v.aval.str_short()} values"
    program = Program(jaxpr, list(flat.consts), partition(jaxpr))
    for step in program.steps:
        if not isinstance(step, CallStep):
            continue  # a fusion group
        eqn, kind = step.eqn, step.kind
        name = eqn.primitive.name
        if kind == "loop":
            programs, reason = plan_loop(eqn)
            if programs is None:
                return None, reason
            program.loops[step.index] = programs
        elif kind == "dot" and not kernels.loop_dot(eqn):
            return None, "a large matrix product (BLAS)"
        elif kind not in ("view", "index", "dot"):
            return None, f"{name} runs its reference rule"
    return program, ""


def plan_loop(eqn: JaxprEqn) -> tuple[list[Program] | None, str]:
    """The programs of a while/scan/cond equation, if all of them compile (else why not)."""
    programs = []
    for label, closed in sub_jaxprs(eqn):
        program, reason = plan(closed)
        if program is None:
            return None, f"{label}: {reason}"
        programs.append(program)
    return programs, ""


# ====================================================================== the loop functions
@dataclass
class ProgramFunction:
    """A program function already written: its name, how many constants it takes first (its
    jaxpr's and those of the loops inside it), and how many arguments after them."""

    name: str
    nconsts: int
    nargs: int


def _unpack(names: list[str]) -> str:
    """The left-hand side that unpacks a tuple of ``len(names)`` values."""
    return ", ".join(names) + ("," if len(names) == 1 else "")


def _tuple(names: list[str]) -> str:
    return "(" + _unpack(names) + ")"


def _call(fn: ProgramFunction, consts: list[str], args: list[str]) -> str:
    return f"{fn.name}({', '.join([*consts, *args])})"


def _split_consts(functions: list[ProgramFunction]) -> tuple[list[str], list[list[str]]]:
    """Parameter names for the constants of every program, and each program's share."""
    names, shares = [], []
    for fn in functions:
        share = [f"const_{len(names) + k}" for k in range(fn.nconsts)]
        names += share
        shares.append(share)
    return names, shares


def interruptible(eqn: JaxprEqn) -> bool:
    """Can this loop, called from Python, be stopped half-way by Ctrl-C? (while and scan.)"""
    return eqn.primitive.name in ("while", "scan")


def loop_source(name: str, eqn: JaxprEqn, functions: list[ProgramFunction],
                eqn_text: str, top_level: bool = False) -> str:
    """The ``@njit`` function running ``eqn``'s loop (or branch choice) around its programs.

    A while or scan loop called from Python (``top_level``) takes one more argument first,
    ``stop``: a one-element array that ``interrupts.watch_interrupts`` sets to 1 when Ctrl-C
    arrives. The loop looks at it once per iteration and leaves early; the caller then
    raises KeyboardInterrupt (the half-finished carry is never returned to the user)."""
    consts, shares = _split_consts(functions)
    prim, p = eqn.primitive.name, eqn.params
    if prim == "while":
        params, lines, doc = _while(p, functions, shares)
    elif prim == "scan":
        params, lines, doc = _scan(p, functions, shares)
    else:
        params, lines, doc = _cond(functions, shares)
    decorator, stop = DECORATOR, []
    if top_level and interruptible(eqn):
        decorator, stop = TOP_LEVEL_DECORATOR, ["stop"]
        lines = _check_stop(lines)
    docstring = f'    """{doc}\n        {eqn_text}"""'
    return "\n".join([decorator, f"def {name}({', '.join(stop + consts + params)}):",
                      docstring, *("    " + line for line in lines), ""])


def _check_stop(lines: list[str]) -> list[str]:
    """Add the Ctrl-C check at the end of the loop's body (the lines indented once after
    the ``while``/``for`` line)."""
    start = next(i for i, line in enumerate(lines) if line.startswith(("while ", "for ")))
    end = start + 1
    while end < len(lines) and lines[end].startswith("    "):
        end += 1
    check = ["    if stop[0]:  # Ctrl-C was pressed (interrupts.py): stop here",
             "        break"]
    return lines[:end] + check + lines[end:]


def _while(p: dict, functions: list, shares: list) -> tuple:
    (cond, body), (cond_consts, body_consts) = functions, shares
    cc = [f"cc{k}" for k in range(p["cond_nconsts"])]
    bc = [f"bc{k}" for k in range(p["body_nconsts"])]
    ncarry = len(p["body_jaxpr"].out_avals)
    carry = [f"carry{k}" for k in range(ncarry)]
    lines = [f"while {_call(cond, cond_consts, cc + carry)}[0][()]:",
             f"    {_unpack(carry)} = {_call(body, body_consts, bc + carry)}" if carry else
             f"    {_call(body, body_consts, bc)}",
             f"return {_tuple(carry)}"]
    doc = (f"while, compiled: {cond.name} and {body.name} take turns inside Numba, with no "
           "Python\n    call between iterations.")
    return cc + bc + carry, lines, doc


def _scan(p: dict, functions: list, shares: list) -> tuple:
    (body,), (body_consts,) = functions, shares
    length, reverse = p["length"], p["reverse"]
    nconsts, ncarry = p["num_consts"], p["num_carry"]
    closed = p["jaxpr"]
    nxs = len(closed.in_avals) - nconsts - ncarry
    y_avals = closed.out_avals[ncarry:]
    xs_avals = closed.in_avals[nconsts + ncarry:]
    c = [f"c{k}" for k in range(nconsts)]
    carry = [f"carry{k}" for k in range(ncarry)]
    xs = [f"xs{k}" for k in range(nxs)]
    ys, y = [f"ys{k}" for k in range(len(y_avals))], [f"y{k}" for k in range(len(y_avals))]
    lines = [f"{stacked} = np.empty({(length, *a.shape)}, {np_name(a.dtype)})"
             for stacked, a in zip(ys, y_avals)]
    # ys[i] = y as a loop over the elements (Numba compiles a slice assignment slowly): the
    # stacked array seen as one row per iteration, the same memory.
    rows = {}
    for k, (stacked, a) in enumerate(zip(ys, y_avals)):
        if a.ndim > 1:
            rows[k] = f"rows{k}"
            lines.append(f"rows{k} = {stacked}.reshape(({length}, {math.prod(a.shape)}))")
    index = "i"
    if reverse:
        lines.append(f"for step in range({length}):")
        lines.append(f"    i = {length - 1} - step  # reverse=True: from the last element back")
    else:
        lines.append(f"for i in range({length}):")
    # Element i of xs, as an array: x[i] of a vector would be a number (0-d arrays instead).
    slices = [f"{x}[{index}]" if a.shape else f"{x}[{index}:{index} + 1].reshape(())"
              for x, a in zip(xs, xs_avals)]
    outs = carry + y
    call = _call(body, body_consts, c + carry + slices)
    lines.append(f"    {_unpack(outs)} = {call}" if outs else f"    {call}")
    for k, (stacked, value, a) in enumerate(zip(ys, y, y_avals)):
        if not a.shape:
            lines.append(f"    {stacked}[{index}] = {value}[()]")
            continue
        size = math.prod(a.shape)
        target, source = (stacked, value) if k not in rows else (rows[k], f"flat{k}")
        if k in rows:
            lines.append(f"    flat{k} = {value}.reshape(({size},))")
        lines += [f"    for j in range({size}):  # {stacked}[{index}] = {value}",
                  f"        {target}[{index}, j] = {source}[j]"]
    lines.append(f"return {_tuple(carry + ys)}")
    doc = f"scan, compiled: {length} iterations of {body.name} inside Numba."
    if ys:
        doc += "\n    Each iteration's ys go into arrays allocated before the loop."
    return c + carry + xs, lines, doc


def _cond(functions: list, shares: list) -> tuple:
    n = len(functions)
    ops = [f"op{k}" for k in range(functions[0].nargs)]
    lines = [f"i = min(max(np.int64(index[()]), 0), {n - 1})  # clamped, as XLA does"]
    for k, (fn, share) in enumerate(zip(functions, shares)):
        call = f"return {_call(fn, share, ops)}"
        lines += [f"if i == {k}:", f"    {call}"] if k < n - 1 else [call]
    doc = "cond, compiled: run the branch the index picks."
    return ["index", *ops], lines, doc

