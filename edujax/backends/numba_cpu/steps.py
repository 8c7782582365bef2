"""The steps the driver runs in Python: reference rules and loops around compiled bodies.

Everything that is not a kernel, a matrix product, a view or a compiled loop is one of these
objects, held in the driver's ``rules`` list and called as ``rules[i](*arrays)``; each
returns a list of arrays, one per output of its equation.

The loops here are the fallback for loops that cannot run inside Numba (``loops.py``
compiles the others): a step of their body runs a reference rule, so each iteration has to
come back to Python anyway.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.jaxpr import ClosedJaxpr, JaxprEqn


def c_order(x: np.ndarray) -> np.ndarray:
    """``x`` itself when it is C-ordered (no copy), else a C-ordered copy.

    (Not ``np.ascontiguousarray``: it turns 0-d arrays into 1-d ones.)"""
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


def _split(xs: tuple, *sizes: int) -> list:
    pieces, start = [], 0
    for size in sizes:
        pieces.append(list(xs[start:start + size]))
        start += size
    return pieces + [list(xs[start:])]


class ReferenceCall:
    """An equation without a Numba lowering: run its primitive's NumPy reference rule."""

    def __init__(self, eqn: JaxprEqn):
        self.primitive = eqn.primitive
        self.rule = core.impl_rules[eqn.primitive]
        self.params = eqn.params
        self.dtypes = [v.aval.dtype for v in eqn.outvars]
        self.shapes = [v.aval.shape for v in eqn.outvars]

    def __call__(self, *args: np.ndarray) -> list:
        result = self.rule(*args, **self.params)
        if not self.primitive.multiple_results:
            result = (result,)
        # A rule may hand back a NumPy scalar or another dtype: pin what the jaxpr promised.
        outs = [r if type(r) is np.ndarray and r.dtype == d else np.asarray(r, dtype=d)
                for r, d in zip(result, self.dtypes)]
        for out, shape in zip(outs, self.shapes):
            if out.shape != shape:  # the kernels after this step trust the jaxpr's shapes
                raise TypeError(
                    f"{self.primitive.name} returned an array of shape {out.shape} where the "
                    f"jaxpr says {shape}: the jaxpr is ill-typed (a bug in the transformation "
                    "that produced it); edujax's reference backend may hide it by broadcasting")
        return outs

    def __repr__(self) -> str:
        return f"<reference rule of {self.primitive.name}>"

    def programs(self) -> list:
        return []


class WhileLoop:
    """``while``: a Python loop calling the compiled ``cond`` and ``body`` programs."""

    def __init__(self, eqn: JaxprEqn, compile_jaxpr: Callable[[ClosedJaxpr], Any]):
        p = eqn.params
        self.cond, self.body = compile_jaxpr(p["cond_jaxpr"]), compile_jaxpr(p["body_jaxpr"])
        self.nconsts = (p["cond_nconsts"], p["body_nconsts"])

    def __call__(self, *args: np.ndarray) -> list:
        cond_consts, body_consts, carry = _split(args, *self.nconsts)
        while self.cond(*cond_consts, *carry)[0]:
            carry = self.body(*body_consts, *carry)
        return carry

    def programs(self) -> list:
        return [("cond", self.cond), ("body", self.body)]


class CondBranches:
    """``cond``: run the compiled branch picked by the index (clamped, as XLA does)."""

    def __init__(self, eqn: JaxprEqn, compile_jaxpr: Callable[[ClosedJaxpr], Any]):
        self.branches = [compile_jaxpr(b) for b in eqn.params["branches"]]

    def __call__(self, index: np.ndarray, *args: np.ndarray) -> list:
        i = min(max(int(index), 0), len(self.branches) - 1)
        return self.branches[i](*args)

    def programs(self) -> list:
        return [(f"branch {i}", b) for i, b in enumerate(self.branches)]


class ScanLoop:
    """``scan``: a Python loop over the leading axis, calling the compiled body each step."""

    def __init__(self, eqn: JaxprEqn, compile_jaxpr: Callable[[ClosedJaxpr], Any]):
        p = eqn.params
        self.body = compile_jaxpr(p["jaxpr"])
        self.sizes = (p["num_consts"], p["num_carry"])
        self.length, self.reverse = p["length"], p["reverse"]
        self.y_avals = p["jaxpr"].out_avals[p["num_carry"]:]

    def __call__(self, *args: np.ndarray) -> list:
        consts, carry, xs = _split(args, *self.sizes)
        ys = [np.empty((self.length, *a.shape), a.dtype) for a in self.y_avals]
        steps = range(self.length)
        for i in (reversed(steps) if self.reverse else steps):
            outs = self.body(*consts, *carry, *(x[i, ...] for x in xs))  # arrays, not scalars
            carry = outs[:self.sizes[1]]
            for stacked, y in zip(ys, outs[self.sizes[1]:]):
                stacked[i] = y
        return [*carry, *ys]

    def programs(self) -> list:
        return [("body", self.body)]


LOOP_STEPS = {"while": WhileLoop, "cond": CondBranches, "scan": ScanLoop}


def make_call(eqn: JaxprEqn, compile_jaxpr: Callable[[ClosedJaxpr], Any]) -> Any:
    """The Python object that runs ``eqn`` from the driver."""
    loop = LOOP_STEPS.get(eqn.primitive.name)
    return loop(eqn, compile_jaxpr) if loop else ReferenceCall(eqn)
