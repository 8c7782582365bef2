"""Steps the driver runs from the host: reference rules, and control flow around GPU programs.

Values in the driver are flat GPU buffers (dtypes the GPU holds) or host NumPy arrays (the
others). These steps take and return the same mix:

* ``HostCall``: a primitive without a CUDA kernel. Its operands are copied to the host, its
  NumPy reference rule runs there, and its results are copied back. Correct, but each copy
  crosses the PCIe bus: ``as_text()`` lists every equation that runs this way.
* ``WhileLoop``, ``CondBranches``, ``ScanLoop``: control flow is driven from the host, as
  in XLA's GPU backend: the body is a compiled program of kernels, and the host decides
  what runs next. A ``while`` predicate or a ``cond`` index is one scalar copied back per
  decision; a ``scan`` slices its inputs and stacks its outputs on the GPU without copies.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax.backends.numba_cpu import steps as cpu
from edujax.backends.numba_cpu.steps import ReferenceCall, _split
from edujax.backends.numba_cuda import runtime
from edujax.jaxpr import ClosedJaxpr, JaxprEqn


def on_host(x: Any) -> bool:
    return isinstance(x, np.ndarray)


def host_value(x: Any, aval: Any) -> np.ndarray:
    """``x`` as a host array of ``aval``'s shape (a copy when it is on the GPU)."""
    return x if on_host(x) else runtime.to_host(x, aval.shape)


def device_value(x: np.ndarray) -> Any:
    """A result of a host computation, put where the driver keeps values of its dtype."""
    return runtime.to_device(x) if runtime.on_device(x.dtype) else x


def scalar(x: Any) -> Any:
    """The one element of a 0-d value (a predicate, a branch index), on the host."""
    return (x if on_host(x) else runtime.to_host(x, (1,))).reshape(-1)[0]


class HostCall:
    """An equation without a CUDA kernel: its NumPy reference rule, on the host."""

    def __init__(self, eqn: JaxprEqn):
        self.reference = ReferenceCall(eqn)
        self.in_avals = [v.aval for v in eqn.invars]

    def __call__(self, *args: Any) -> list:
        host = [host_value(x, aval) for x, aval in zip(args, self.in_avals)]
        return [device_value(out) for out in self.reference(*host)]

    def __repr__(self) -> str:
        return f"<{self.reference.primitive.name}: reference rule on the host>"

    def programs(self) -> list:
        return []


class WhileLoop(cpu.WhileLoop):
    """``while``: the host asks the compiled ``cond`` program, then runs the ``body`` one.
    (The CPU backend's loop; only how a program is run and the predicate read differ.)"""

    def __call__(self, *args: Any) -> list:
        cond_consts, body_consts, carry = _split(args, *self.nconsts)
        while scalar(self.cond.run_buffers(*cond_consts, *carry)[0]):
            carry = self.body.run_buffers(*body_consts, *carry)
        return carry


class CondBranches(cpu.CondBranches):
    """``cond``: run the compiled branch picked by the index (clamped, as XLA does)."""

    def __call__(self, index: Any, *args: Any) -> list:
        i = min(max(int(scalar(index)), 0), len(self.branches) - 1)
        return self.branches[i].run_buffers(*args)


class ScanLoop(cpu.ScanLoop):
    """``scan``: the host loops over the leading axis; slices and stacks stay on the GPU."""

    def __init__(self, eqn: JaxprEqn, compile_jaxpr: Callable[[ClosedJaxpr], Any]):
        super().__init__(eqn, compile_jaxpr)
        p = eqn.params
        self.x_avals = p["jaxpr"].in_avals[p["num_consts"] + p["num_carry"]:]

    def __call__(self, *args: Any) -> list:
        consts, carry, xs = _split(args, *self.sizes)
        ys = [self._stack(a) for a in self.y_avals]
        steps = range(self.length)
        for i in (reversed(steps) if self.reverse else steps):
            outs = self.body.run_buffers(*consts, *carry,
                                         *(_row(x, i, a) for x, a in zip(xs, self.x_avals)))
            carry = outs[:self.sizes[1]]
            for stacked, y, a in zip(ys, outs[self.sizes[1]:], self.y_avals):
                _set_row(stacked, i, y, a)
        return [*carry, *ys]

    def _stack(self, aval: Any) -> Any:
        if runtime.on_device(aval.dtype):
            return runtime.empty(self.length * aval.size, aval.dtype)
        return np.empty((self.length, *aval.shape), aval.dtype)


def _row(x: Any, i: int, aval: Any) -> Any:
    """Row ``i`` of a stacked value: a view, on the GPU a slice of the flat buffer."""
    if on_host(x):
        return x[i, ...]
    return x[i * aval.size:(i + 1) * aval.size]


def _set_row(stacked: Any, i: int, y: Any, aval: Any) -> None:
    if on_host(stacked):
        stacked[i] = y
    elif aval.size:
        stacked[i * aval.size:(i + 1) * aval.size].copy_to_device(y)  # device to device


LOOP_STEPS = {"while": WhileLoop, "cond": CondBranches, "scan": ScanLoop}


def make_step(eqn: JaxprEqn, compile_jaxpr: Callable[[ClosedJaxpr], Any]) -> Any:
    """The Python object that runs ``eqn`` from the driver."""
    loop = LOOP_STEPS.get(eqn.primitive.name)
    return loop(eqn, compile_jaxpr) if loop else HostCall(eqn)
