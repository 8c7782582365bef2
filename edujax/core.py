"""The tracing core: abstract values, primitives, traces and tracers.

Every jnp function ends in ``some_primitive.bind(*arrays, **params)``. What bind
*means* is decided by the **current trace**:

* ``EvalTrace`` (the default) runs the primitive's reference rule on NumPy data;
* a staging trace (``interpreters/partial_eval.py``) records an equation into a
  jaxpr instead of computing anything;
* later transformations (JVP, batching) add traces of their own.

Design choice: **one current trace**, as in today's JAX, rather than Autodidax's
stack of levels. A transformation installs its trace with ``set_current_trace``
for the duration of the user's function; each tracer remembers the trace that
made it, and a trace that meets a tracer of another trace treats it as a
constant. docs/architecture.md explains why we chose this.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from edujax import dtypes, nan_checks
# ShapedArray lives in abstract_arrays.py (below array.py, which needs it); JAX's core exports it
# too, and so do we: ``core.ShapedArray`` is how the rest of edujax names it.
from edujax.abstract_arrays import ShapedArray, dtype_name, short_dtype_name  # noqa: F401
from edujax.array import Array, immutable_error, with_sharding
from edujax.sharding.in_types import with_sharding_and_vma
from edujax.errors import (ConcretizationTypeError, TracerArrayConversionError,
                           TracerBoolConversionError, TracerIntegerConversionError,
                           UnexpectedTracerError)

# ------------------------------------------------------------------ abstract values


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of anything array-like: Array, tracer, NumPy value, Python scalar."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    t = type(x)
    if t in dtypes.python_scalar_types:
        return ShapedArray.fast((), dtypes.default_dtype(t), t is not bool)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype))
    raise TypeError(f"Value {x!r} of type {t} is not a valid JAX type")


def is_array_like(x: Any) -> bool:
    return (isinstance(x, (Tracer, np.ndarray, np.generic)) or hasattr(x, "aval")
            or type(x) in dtypes.python_scalar_types)


# ------------------------------------------------------------------ primitives and rule tables

# Rule tables are plain dicts keyed by primitive. The interpreter that reads a
# table owns it; primitive modules (edujax/lax/*) fill them in.
impl_rules: dict[Primitive, Callable] = {}           # NumPy reference implementation
abstract_eval_rules: dict[Primitive, Callable] = {}  # avals in -> aval(s) out


class Primitive:
    """A named operation. ``bind`` hands it to the current trace."""

    multiple_results = False

    def __init__(self, name: str):
        self.name = name

    def bind(self, *args: Any, **params: Any) -> Any:
        return _state.trace.process_primitive(self, args, params)  # i.e. current_trace()

    # How a user-defined primitive gets its rules (JAX's spelling, as in its tutorial "How
    # JAX primitives work"): the tables above, filled through methods.
    def def_impl(self, impl: Callable) -> Callable:
        """The reference implementation: NumPy values in, NumPy value(s) out."""
        impl_rules[self] = impl
        return impl

    def def_abstract_eval(self, rule: Callable) -> Callable:
        """Shapes and dtypes: ``rule(*avals, **params) -> ShapedArray`` (a list if several)."""
        abstract_eval_rules[self] = rule
        return rule

    def __repr__(self) -> str:
        return self.name


def missing_rule(table: str, prim: Primitive) -> NotImplementedError:
    return NotImplementedError(f"no {table} rule for primitive '{prim.name}'")


# The output types of ``prim`` on inputs of types ``avals``. Shardings and varying mesh axes
# in types are asked for only when an input carries either, so a program that never touches
# a mesh is typed exactly as before. (Attributes are read in a try block rather than with
# getattr: this runs on every operation, and a ShapedArray has both.)
def abstract_eval(prim: Primitive, avals: list[ShapedArray], params: dict) -> Any:
    try:
        rule = abstract_eval_rules[prim]
    except KeyError:
        raise missing_rule("abstract evaluation", prim) from None
    out = rule(*avals, **params)
    for a in avals:
        try:
            if a.sharding is not None or a.vma:
                return with_sharding_and_vma(prim, avals, params, out)
        except AttributeError:  # another kind of aval (a token...): none of either
            pass
    return out


# ------------------------------------------------------------------ traces


class Trace:
    """Decides what ``bind`` means while it is the current trace."""

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__


class EvalTrace(Trace):
    """The trace in effect when nothing is being transformed: compute with NumPy.

    The abstract rule runs first, so eager code checks shapes and dtypes exactly
    like traced code does, and the output gets its weak_type from the same rule.
    """

    def process_primitive(self, prim, args, params):
        try:
            avals = [a.aval for a in args]
        except AttributeError:  # a Python scalar or a NumPy value among the args
            avals = [get_aval(a) for a in args]
        out_aval = abstract_eval(prim, avals, params)
        out = self.apply(prim, args, params)
        if prim.multiple_results:
            return [_wrap(o, a) for o, a in zip(out, out_aval)]
        return _wrap(out, out_aval)

    @staticmethod
    def apply(prim: Primitive, args: Any, params: dict) -> Any:
        """Run the primitive's reference rule on NumPy values. (The NaN checks replace
        this while they are on: see the end of this file.)"""
        try:  # Arrays: their NumPy values (the common case, without a call per operand)
            values = [a._value for a in args]
        except AttributeError:  # a Python scalar, a NumPy value, or a leaked tracer
            values = map(_to_numpy, args)
        return impl_rules[prim](*values, **params)


ESCAPED_TRACER = ("Encountered an unexpected tracer: {!r}. A tracer escaped the "
                  "transformation that created it (for example it was stored in a global "
                  "or a closure and used after the function returned).")


def _to_numpy(x: Any) -> Any:
    value = getattr(x, "_value", None)
    if value is not None:
        return value
    if isinstance(x, Tracer):
        raise UnexpectedTracerError(ESCAPED_TRACER.format(x))
    return np.asarray(x, dtype=get_aval(x).dtype)


# An eager result as an Array of the type its rules computed. (NumPy gives a NumPy scalar for
# 0-d operands, and may give another dtype than the type's.)
def _wrap(value: Any, aval: ShapedArray) -> Array:
    if type(value) is not np.ndarray or value.dtype != aval.dtype:
        value = np.asarray(value, dtype=aval.dtype)
    array = Array(value, aval.weak_type)
    if type(aval) is ShapedArray and aval.sharding is None and not aval.vma:
        array._aval = aval  # the type the rules just computed: the next operation's input
        return array
    sharding = getattr(aval, "sharding", None)  # an eager op on a mesh: its output is on it
    return array if sharding is None else with_sharding(array, sharding.concrete())


class _TraceState(threading.local):
    jvp_rules_running = 0  # see running_jvp_rule (``+=`` gives each thread its own count)

    def __init__(self) -> None:
        self.trace: Trace = eval_trace


eval_trace = EvalTrace()
_state = _TraceState()


def current_trace() -> Trace:
    return _state.trace


def at_top_level() -> bool:
    """Is nothing being traced? Then ``bind`` computes at once, on the evaluating trace.

    (Code above the core asks this, never ``_state`` itself: how the current trace is kept
    is this module's business.)"""
    return _state.trace is eval_trace


class set_current_trace:
    """Make ``trace`` interpret every bind inside the ``with`` block.

    (A class rather than a ``contextlib.contextmanager`` generator: a transformation enters
    it around nearly every bind, and a generator costs about four times as much.)"""

    __slots__ = ("trace", "previous")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self) -> None:
        self.previous, _state.trace = _state.trace, self.trace

    def __exit__(self, *exc: Any) -> None:
        _state.trace = self.previous


# ``ad.JVPTrace`` says when a JVP rule runs. Only a fidelity detail reads it: the staging
# trace marks what it records meanwhile, because JAX's partial evaluation treats those
# equations apart (see ``partial_eval.DynamicJaxprTrace.process_primitive``).
class running_jvp_rule:
    """Note, for this thread, that a JVP rule runs inside the ``with`` block (a class for
    the same reason as ``set_current_trace``)."""

    __slots__ = ()

    def __enter__(self) -> None:
        _state.jvp_rules_running += 1

    def __exit__(self, *exc: Any) -> None:
        _state.jvp_rules_running -= 1


# Is a JVP rule running in this thread (``running_jvp_rule``)?
def in_jvp_rule() -> bool:
    return _state.jvp_rules_running > 0


# ------------------------------------------------------------------ tracers


# ``for row in tracer``: row i, as JAX cuts it (ShapedArray._iter: lax.index_in_dim, a slice
# with strides (1, ..., 1) and a squeeze). lax fills this in (edujax/lax/shape.py); the
# core cannot import lax, which sits above it.
tracer_row: Callable[[Any, int], Any] | None = None


class Tracer:
    """A stand-in for an array while a function is being transformed.

    It behaves like an array (operators, ``.shape``, methods: edujax.numpy
    attaches those) but every operation goes through ``bind`` to its trace.
    Python control flow needs a *concrete* value, which a tracer only has when
    its trace knows one (see ``to_concrete_value``).
    """

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def to_concrete_value(self) -> Any:
        """The real value behind the tracer, if this trace knows it (e.g. under grad)."""
        return None

    def _concrete_or(self, error: type) -> Any:
        value = self.to_concrete_value()
        if value is None:
            raise error(self)
        return value

    def __bool__(self) -> bool:
        return bool(self._concrete_or(TracerBoolConversionError))

    def __int__(self) -> int:
        return int(self._concrete_or(TracerIntegerConversionError))

    def __index__(self) -> int:
        return int(self._concrete_or(TracerIntegerConversionError))

    def __float__(self) -> float:
        return float(self._concrete_or(ConcretizationTypeError))

    def __complex__(self) -> complex:
        return complex(self._concrete_or(ConcretizationTypeError))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return np.asarray(self._concrete_or(TracerArrayConversionError), dtype=dtype)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        if tracer_row is not None:  # lax's index_in_dim (filled in by edujax/lax/shape.py)
            return (tracer_row(self, i) for i in range(self.shape[0]))
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def __setitem__(self, idx, value):
        raise immutable_error()

    def _error_repr(self) -> str:
        return f"traced array with shape {self.aval.str_short()}"

    def _origin_msg(self) -> str:
        return getattr(self._trace, "origin_message", lambda tracer: "")(self)

    def __repr__(self) -> str:
        weak = "~" if self.aval.weak_type else ""
        return f"{type(self).__name__}({weak}{self.aval.str_short()})"


# ------------------------------------------------------------------ the NaN checks (hook)
# Skip on a first reading. With jax_debug_nans / jax_debug_infs on, every operation run at
# top level checks its outputs (nan_checks.py): the evaluating trace then applies rules
# through ``_apply_checking``. How a primitive's outputs are checked can be set per primitive
# (jit/primitive.py sets jit's: a NaN in a jitted call's outputs reruns its jaxpr op by op
# to find the operation); by default a NaN raises, naming the primitive.
nan_check_rules: dict[Primitive, Callable] = {}  # prim -> rule(args, params, outputs)


def _apply_checking(prim: Primitive, args: Any, params: dict) -> Any:
    with nan_checks.suspended():  # an operation is checked as a whole, like in JAX
        out = EvalTrace.apply(prim, args, params)
    outs = out if prim.multiple_results else [out]
    if prim in nan_check_rules:
        nan_check_rules[prim](args, params, outs)
    else:  # (its insides, the branches of a cond say, are not checked one by one)
        nan_checks.check_operation(prim.name, outs)
    return out


def _use_nan_checks(on: bool) -> None:
    if on:
        eval_trace.apply = _apply_checking
    else:
        eval_trace.__dict__.pop("apply", None)  # back to EvalTrace.apply


nan_checks.on_toggle(_use_nan_checks)
