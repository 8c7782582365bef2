"""The jaxpr: edujax's intermediate representation, as plain immutable data.

A jaxpr is a tiny functional program::

    { lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b; d:f32[] = add c 2.0:f32[] in (d,) }

* ``Var``: a named value with an abstract value (``a:f32[]``);
* ``Literal``: a scalar constant written inline (``2.0:f32[]``);
* ``JaxprEqn``: ``outvars = primitive[params] invars``;
* ``Jaxpr``: constvars, invars, equations and outvars;
* ``ClosedJaxpr``: a Jaxpr together with the values of its constvars.

``eval_jaxpr`` is the interpreter: it binds each equation's primitive in turn,
so under no transformation it computes with the NumPy reference rules, and
under a transformation it replays the program through that transformation.
``run_jaxpr`` is the same walk without tracing: each primitive's NumPy rule on NumPy
values, the reference backend's interpreter and the rule of call primitives.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from edujax import core, source_info
from edujax.core import Primitive, ShapedArray


class Var:
    """A variable. Compared by identity; its printed name is chosen when printing."""

    __slots__ = ("aval", "__weakref__")

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class DropVar(Var):
    """An equation's output that nothing reads, printed ``_`` (JAX's DropVar). JAX's
    partial evaluation builds a jaxpr from a graph of tracers, where an output no tracer
    kept alive is such a variable."""

    __slots__ = ()


class Literal:
    """A scalar constant that appears inline in an equation, e.g. ``2.0:f32[]``."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        # As JAX's ``f"Literal({val})"``: a weak-typed Python scalar is the TypedInt or
        # TypedComplex JAX keeps, whose str() is its repr (the "Writing custom interpreters"
        # notebook prints equations' inputs this way); a TypedFloat's str() is the plain float.
        val = self.val.item() if isinstance(self.val, np.generic) else self.val
        kind = {int: "Int", complex: "Complex"}.get(type(val))
        if kind is not None and self.aval.weak_type:
            return f"Literal(Typed{kind}({val!r}, dtype={self.aval.dtype.name}))"
        return f"Literal({val!r})"


class JaxprEqn(NamedTuple):
    invars: list  # of Var | Literal
    outvars: list  # of Var
    primitive: Primitive
    params: dict
    # Where the equation came from: the user's line and the name stack (source_info.py).
    source_info: source_info.SourceInfo = source_info.NO_SOURCE

    def replace(self, **changes: Any) -> JaxprEqn:
        return self._replace(**changes)


class Jaxpr:
    """A closed-over-nothing program: constvars and invars in, outvars out."""

    __slots__ = ("constvars", "invars", "outvars", "eqns", "debug_info")

    def __init__(self, constvars, invars, outvars, eqns, debug_info=None):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self.debug_info = debug_info

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])
    effects = frozenset()

    # How a jaxpr prints. The printer (pretty.py) reads the classes of this module, so it sits
    # above it and puts itself here when imported: the lower layer owns the slot, the upper one
    # fills it (``import edujax`` imports pretty.py, so the slot is always filled).
    printer: Callable[..., str]

    def pretty_print(self, width: int = 80, *, source_info: bool = False,
                     name_stack: bool = False, **_: Any) -> str:
        """The jaxpr's text; ``source_info=True`` notes each equation's Python line and
        ``name_stack=True`` its transformations, at the right, as JAX does."""
        return Jaxpr.printer(self, width, source_info=source_info, name_stack=name_stack)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__


class ClosedJaxpr:
    """A Jaxpr plus the values of its constvars (``consts``), ready to run."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: list):
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    literals = property(lambda self: self.consts)  # JAX 0.10's name for the same list
    effects = frozenset()

    def pretty_print(self, width: int = 80, **options: Any) -> str:
        return self.jaxpr.pretty_print(width, **options)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__

    def call(self, *args: Any) -> list:
        """Run the program op by op, each equation bound in the current trace (``core``,
        below this module, reruns a jitted body this way to find where a NaN came from)."""
        return eval_jaxpr(self.jaxpr, self.consts, *args)


def eval_jaxpr(jaxpr: Jaxpr, consts: list, *args: Any) -> list:
    """Run ``jaxpr`` on ``args``: the reference interpreter, the spec for every backend.

    Each equation is ``bind``-ed, so the current trace decides what running means:
    NumPy evaluation normally, or re-tracing when a transformation is active.
    """
    env: dict[Var, Any] = {}

    def read(atom: Var | Literal) -> Any:
        return atom.val if type(atom) is Literal else env[atom]

    for var, value in zip(jaxpr.constvars, consts):
        env[var] = value
    for var, value in zip(jaxpr.invars, args, strict=True):
        env[var] = value
    for eqn in jaxpr.eqns:
        # (what the replayed equation makes comes from where the equation came from)
        saved = source_info.swap_replay(eqn.source_info)
        try:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        finally:
            source_info.swap_replay(saved)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for var, value in zip(eqn.outvars, outs):
            env[var] = value
    return [read(v) for v in jaxpr.outvars]


def to_numpy(x: Any, aval: ShapedArray) -> np.ndarray:
    value = getattr(x, "_value", None)
    return value if value is not None else np.asarray(x, dtype=aval.dtype)


def run_jaxpr(jaxpr: Jaxpr, consts: list, args: list) -> list:
    """Evaluate ``jaxpr`` on NumPy values with the primitives' reference rules."""
    env: dict = {}
    for var, value in zip(jaxpr.constvars, consts):
        env[var] = to_numpy(value, var.aval)
    for var, value in zip(jaxpr.invars, args):
        env[var] = value
    impl_rules = core.impl_rules
    for eqn in jaxpr.eqns:
        invals = [np.asarray(v.val, v.aval.dtype) if type(v) is Literal else env[v]
                  for v in eqn.invars]
        outs = impl_rules[eqn.primitive](*invals, **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = (outs,)
        for var, value in zip(eqn.outvars, outs):
            # A rule may hand back a NumPy scalar or a view: pin the dtype the aval promised.
            env[var] = np.asarray(value, dtype=var.aval.dtype)
    return [np.asarray(v.val, v.aval.dtype) if type(v) is Literal else env[v]
            for v in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr):
    """A Python function that runs ``closed`` (JAX's ``core.jaxpr_as_fun``)."""
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


def literal_value_str(lit: Literal) -> str:
    """How JAX prints a literal's value: the Python scalar it holds."""
    return str(np.asarray(lit.val).item()) if not np.shape(lit.val) else "[...]"
