"""Fusion: cut a jaxpr into steps, merging elementwise work into loop nests.

Running ``d = exp(a); e = mul(d, 2); f = add(e, b)`` one NumPy call at a time writes two
temporary arrays and reads each of them back. One loop that does all three on each
element keeps the intermediates in registers: that is *fusion*, the main reason XLA is
fast on the CPU, and what this file decides.

The algorithm (greedy, in program order)
----------------------------------------
Each equation is classified (``classify``):

* ``pointwise``: an elementwise primitive with a lowering rule (add, exp, select_n,
  convert_element_type, integer_pow, comparisons, iota, ...). Its *iteration shape* is its
  output shape.
* ``reduce``: ``reduce_sum``/``max``/``argmax``/...; its iteration shape is its operand's
  shape. Its result is only complete after the loop.
* anything else is a step of its own (``CallStep``): a matrix product (BLAS), a *view*, a
  control flow primitive (``loops.py``), a gather/scatter/dynamic slice/concatenate (a
  kernel of its own, ``kernels.py``), or a primitive without a lowering (its NumPy
  reference rule).

Views (``reshape``, ``squeeze``, ``broadcast_in_dim``, ``transpose``, ``slice``, ``rev``)
move no data in NumPy:
the driver makes them for free. Better still, a loop that reads a broadcast or a transposed
array reads the *original* array at a moved index (``b = B[i1]`` for a bias broadcast to
``(batch, 6)``): we say the group *looks through* the view. A view that every reader looks
through is never made at all.

A *fusion group* is a loop nest over one iteration shape. Walking the equations in order,
a fusible equation joins the most recent group of its shape that it can join, or opens a
new one. It can join a group when every operand is

* computed inside the group at the same element (a full-shape value of the group), or
* already available when the group runs: computed by an earlier step, or an input (or a
  view of such a value, which the group looks through).

Reduction results are never read inside their own group (they are not ready during the
loop), and all reductions of a group reduce the same axes, so that one loop nest fits all.

Example: ``selu`` (``gt, exp, mul, sub, select_n, mul`` on f32[1000]) is one group, one
loop. A softmax over the last axis is three: ``reduce_max``; ``sub, exp, reduce_sum``
(the exponentials are kept for the third); ``div``. A 2-layer MLP alternates: a matrix
product, then a group for the bias add and the activation, and so on.

The output of this file is plain data (``FusionGroup`` and ``CallStep``); ``codegen.py``
turns it into source.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from edujax.backends.passes.lowering import index_lowerable, lowerable, supported
from edujax.jaxpr import Jaxpr, JaxprEqn, Literal, Var

REDUCTIONS = {"reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
              "reduce_or", "reduce_xor", "argmax", "argmin"}
VIEWS = {"reshape", "squeeze", "broadcast_in_dim", "transpose", "slice", "rev"}
SEE_THROUGH = {"broadcast_in_dim", "transpose", "slice", "rev"}  # read at a moved index
LOOPS = {"while", "cond", "scan"}


@dataclass
class FusionGroup:
    """One loop nest over ``shape``: its equations in order and what flows in and out."""

    index: int  # position in the schedule
    shape: tuple
    eqns: list = field(default_factory=list)
    kinds: list = field(default_factory=list)  # "pointwise" | "reduce" | "copy"
    reduce_axes: tuple | None = None
    produced: set = field(default_factory=set)  # full-shape values computed in the loop
    reduced: set = field(default_factory=set)  # reduction results (ready after the loop)
    seen_through: dict = field(default_factory=dict)  # view output -> (views, array read)
    inputs: list = field(default_factory=list)  # arrays read (filled by ``finalize``)
    outputs: list = field(default_factory=list)  # values stored for later steps

    def add(self, eqn: JaxprEqn, kind: str, views: dict, producer: dict) -> None:
        self.eqns.append(eqn)
        self.kinds.append(kind)
        for v in eqn.invars:
            if type(v) is Var and v not in self.produced and v not in self.seen_through:
                through = look_through(v, self, producer, views)
                if through is not None:
                    self.seen_through[v] = through
        out = eqn.outvars[0]
        if kind == "reduce":
            self.reduce_axes = _reduce_axes(eqn)
            self.reduced.add(out)
        else:
            self.produced.add(out)


@dataclass
class CallStep:
    """An equation that is not fused: ``kind`` says how it runs (dot, view, loop, reference)."""

    index: int
    eqn: JaxprEqn
    kind: str


Step = FusionGroup | CallStep


# ---------------------------------------------------------------- classification
def _reduce_axes(eqn: JaxprEqn) -> tuple:
    return tuple(sorted(eqn.params["axes"]))


def _supported(eqn: JaxprEqn) -> bool:
    return supported(eqn)  # lowering.py: the real dtypes, and complex ones for a few primitives


def classify(eqn: JaxprEqn) -> tuple[str, tuple] | None:
    """``(kind, iteration shape)`` if the equation can be fused, else None."""
    name = eqn.primitive.name
    if len(eqn.outvars) != 1 or not _supported(eqn):
        return None
    out_shape = eqn.outvars[0].aval.shape
    if name in REDUCTIONS:
        if not eqn.params["axes"]:
            return "copy", out_shape  # reducing no axis: the operand itself
        if _reduces_unit_dims(eqn):
            return None  # a reshape, done as a view
        return "reduce", eqn.invars[0].aval.shape
    if name == "iota" or (lowerable(eqn) and _operands_fit(eqn)):
        return "pointwise", out_shape
    return None


def _operands_fit(eqn: JaxprEqn) -> bool:
    """Every operand is a scalar or has the output's shape (a dimension may be 1).

    The loop indexes each operand by the output's position, so an operand that does not
    fit would be read out of bounds. A well-typed jaxpr always fits; if one does not, its
    equation runs on NumPy, which broadcasts (and the jaxpr's producer has a bug).
    """
    out = eqn.outvars[0].aval.shape
    return all(not v.aval.shape or (len(v.aval.shape) == len(out) and all(
        d in (1, o) for d, o in zip(v.aval.shape, out))) for v in eqn.invars)


def _reduces_unit_dims(eqn: JaxprEqn) -> bool:
    """Summing (or max-ing...) over axes of size 1 only reshapes: f32[1,6] -> f32[6]."""
    if eqn.primitive.name not in REDUCTIONS - {"argmax", "argmin"}:
        return False  # (and an equation with no operand, platform_index, is none)
    shape = eqn.invars[0].aval.shape
    return all(shape[a] == 1 for a in eqn.params["axes"])


def call_kind(eqn: JaxprEqn) -> str:
    name = eqn.primitive.name
    if name == "dot_general":
        return "dot"
    if _reduces_unit_dims(eqn) and _supported(eqn):
        return "view"
    if name in VIEWS and _supported(eqn) and (name != "reshape" or
                                              eqn.params.get("dimensions") is None):
        return "view"
    if name == "bitcast_convert_type" and _supported(eqn) and \
            eqn.invars[0].aval.dtype.itemsize == eqn.outvars[0].aval.dtype.itemsize:
        return "view"  # the same bytes read as another type: x.view(np.float32)
    if name in LOOPS:
        return "loop"
    if index_lowerable(eqn):
        return "index"  # a gather, scatter, dynamic slice or concatenate: kernels.py
    return "reference"


# ---------------------------------------------------------------- the greedy partition
def partition(jaxpr: Jaxpr) -> list[Step]:
    """The steps of ``jaxpr`` in execution order (see the module docstring)."""
    steps: list[Step] = []
    producer: dict[Var, int] = {}  # var -> index of the step computing it (inputs: absent)
    views: dict[Var, JaxprEqn] = {}  # outputs of broadcasts/transposes -> their equation
    groups_by_shape: dict[tuple, list[FusionGroup]] = {}
    for eqn in jaxpr.eqns:
        fusible = classify(eqn)
        if fusible is None:
            step: Step = CallStep(len(steps), eqn, call_kind(eqn))
            steps.append(step)
            if step.kind == "view" and eqn.primitive.name in SEE_THROUGH:
                views[eqn.outvars[0]] = eqn
        else:
            kind, shape = fusible
            candidates = groups_by_shape.setdefault(shape, [])
            step = next((g for g in reversed(candidates)
                         if _can_join(g, eqn, kind, producer, views)), None)
            if step is None:
                step = FusionGroup(len(steps), shape)
                steps.append(step)
                candidates.append(step)
            step.add(eqn, kind, views, producer)
        for v in eqn.outvars:
            producer[v] = step.index
    return finalize(steps, jaxpr)


def _available(atom: Var | Literal, group: FusionGroup, producer: dict) -> bool:
    """Is ``atom`` ready before ``group`` runs (computed by an earlier step, or an input)?"""
    return type(atom) is Literal or producer.get(atom, -1) < group.index


def look_through(v: Var, group: FusionGroup, producer: dict, views: dict) -> tuple | None:
    """How ``group`` can read ``v`` without the view that makes it: the chain of views from
    ``v`` down to the deepest operand that is ready before the group runs (or None)."""
    chain: list = []
    found = None
    while v in views:
        eqn = views[v]
        chain.append(eqn)
        x = eqn.invars[0]
        if _available(x, group, producer):
            found = (list(chain), x)
        if type(x) is not Var:
            break
        v = x
    return found


def _can_join(group: FusionGroup, eqn: JaxprEqn, kind: str, producer: dict,
              views: dict) -> bool:
    if kind == "reduce" and group.reduce_axes not in (None, _reduce_axes(eqn)):
        return False
    for v in eqn.invars:
        if type(v) is not Var or v in group.produced:
            continue  # a constant, or a value of this very loop
        if v in group.reduced:
            return False  # not ready while the loop runs
        if look_through(v, group, producer, views) is not None:
            continue  # read through the view
        if not _available(v, group, producer):
            return False  # computed after this group runs
    return True


def finalize(steps: list[Step], jaxpr: Jaxpr) -> list[Step]:
    """Fill each group's ``inputs`` (arrays it reads) and ``outputs`` (values it stores),
    and drop the views that every reader looked through."""
    readers: dict[Var, set] = {v: {-1} for v in jaxpr.outvars if type(v) is Var}
    for step in steps:
        for v in _reads(step):
            readers.setdefault(v, set()).add(step.index)
    for step in reversed(steps):  # backwards: a dropped view may leave its operand unread
        if isinstance(step, CallStep) and step.kind == "view" and \
                not readers.get(step.eqn.outvars[0]):
            step.kind = "dead"
            for v in _reads(step):
                readers[v].discard(step.index)
    for step in steps:
        if isinstance(step, FusionGroup):
            step.inputs = list(dict.fromkeys(_reads(step)))
            step.outputs = [eqn.outvars[0] for eqn in step.eqns
                            if readers.get(eqn.outvars[0], set()) - {step.index}]
    return [s for s in steps if not (isinstance(s, CallStep) and s.kind == "dead")]


def _reads(step: Step) -> list[Var]:
    """The variables a step reads from other steps (through the views it looks through)."""
    if isinstance(step, CallStep):
        return [v for v in step.eqn.invars if type(v) is Var]
    internal = step.produced | step.reduced
    out = []
    for eqn in step.eqns:
        for v in eqn.invars:
            if type(v) is Var and v not in internal:
                source = step.seen_through[v][1] if v in step.seen_through else v
                if type(source) is Var:
                    out.append(source)
    return out
