"""Batching: the interpreter behind ``vmap``.

``vmap(f)(xs)`` runs ``f`` once, on ``BatchTracer``s. A batch tracer holds a
real array with one extra dimension, the *batch dimension* (``batch_dim``),
and pretends, to ``f``, to be one example. Every primitive has a *batching
rule* (``batching_rules``) that applies it to the whole batch at once and
says where the batch dimension ended up. An elementwise op just runs on the
bigger arrays; ``reduce_sum`` over axis 0 of one example becomes a
reduction over axis 1 of the batch; ``dot_general`` gains a batch dimension.

No loop over examples ever happens: the batch becomes part of the array
shapes, which is why ``make_jaxpr(vmap(f))`` looks like ``f`` on bigger arrays.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray, Tracer
from edujax.interpreters.ad_util import add_any_p
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import eval_jaxpr

not_mapped = None  # the batch dimension of a value that is the same for every example

# batching_rules[p](args, dims, **params) -> (out, out_dim)  (lists for multiple results).
# A rule gets the batched values and each one's batch dimension (an int or not_mapped).
batching_rules: dict[Primitive, Callable] = {}
primitive_batchers = batching_rules  # JAX's name for the same table
# Collectives over a named axis (psum & co) need the axis: rule(trace, args, dims, **params).
axis_rules: dict[Primitive, Callable] = {}


class BatchTracer(Tracer):
    """One example's view of a batched value."""

    __slots__ = ("val", "batch_dim")

    def __init__(self, trace: BatchTrace, val: Any, batch_dim: int | None):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> ShapedArray:
        aval = core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = aval.shape[:self.batch_dim] + aval.shape[self.batch_dim + 1:]
        return ShapedArray(shape, aval.dtype, aval.weak_type)

    def __repr__(self) -> str:
        return (f"VmapTracer(aval={self.aval.str_short()}, "
                f"batched={core.get_aval(self.val).str_short()})")


class _RuleContext(threading.local):
    """The BatchTrace whose rule is running: a rule that re-traces a body (cond, scan,
    jit...) batches it over the same named axis, so collectives inside still resolve."""
    trace: BatchTrace | None = None


_rule_context = _RuleContext()


class BatchTrace(core.Trace):
    """Applies batching rules; the rules themselves compute in the parent trace."""

    def __init__(self, parent: core.Trace, axis_size: int, axis_name: Any = None):
        self.parent = parent
        self.axis_size = axis_size
        self.axis_name = axis_name

    def to_batch_info(self, x: Any) -> tuple[Any, int | None]:
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, prim, args, params):
        vals, dims = zip(*map(self.to_batch_info, args)) if args else ((), ())
        axis_rule = axis_rules.get(prim)
        names = params.get("axes", params.get("axis_name"))
        if axis_rule is not None and self.axis_name is not None and \
                self.axis_name in _as_tuple(names):
            with core.set_current_trace(self.parent):
                out, out_dim = axis_rule(self, list(vals), list(dims), **params)
        elif all(d is not_mapped for d in dims):
            with core.set_current_trace(self.parent):
                return prim.bind(*vals, **params)
        else:
            rule = batching_rules.get(prim)
            if rule is None:
                raise NotImplementedError(f"no batching rule for primitive '{prim.name}' "
                                          "(edujax.interpreters.batching.batching_rules)")
            outer, _rule_context.trace = _rule_context.trace, self
            try:
                with core.set_current_trace(self.parent):
                    out, out_dim = rule(list(vals), list(dims), **params)
            finally:
                _rule_context.trace = outer
        if prim.multiple_results:
            return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
        return BatchTracer(self, out, out_dim)

    def origin_message(self, tracer: Tracer) -> str:
        return getattr(self.parent, "origin_message", lambda t: "")(tracer)


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def batch_flat(fun: Callable, args: list, in_dims: list, axis_size: int,
               axis_name: Any = None) -> tuple[list, list]:
    """Run ``fun`` (flat in, flat out) on batch tracers; return values and batch dims."""
    trace = BatchTrace(core.current_trace(), axis_size, axis_name)
    tracers = [BatchTracer(trace, x, d) if d is not not_mapped else x
               for x, d in zip(args, in_dims)]
    with core.set_current_trace(trace):
        outs = fun(*tracers)
    pairs = [trace.to_batch_info(o) for o in outs]
    return [v for v, _ in pairs], [d for _, d in pairs]


# ------------------------------------------------------------------ helpers for rules
# Moving a batch dimension takes lax's ``transpose``, creating one its ``broadcast_in_dim``, and
# lining ranks up its ``expand_dims``. lax sits above the interpreters (its primitive blocks fill
# ``batching_rules``), so instead of being imported it puts those functions in this table when
# it defines them (edujax/lax/base.py). NB: JAX's batching.py reaches them through ``jax.lax``.
lax_ops: dict[str, Callable] = {}


def moveaxis(x: Any, src: int | None, dst: int) -> Any:
    ndim = np.ndim(x)
    src, dst = src % ndim, dst % ndim  # (negative axes count from the end, as in JAX)
    if src == dst:
        return x
    perm = [i for i in range(np.ndim(x)) if i != src]
    perm.insert(dst, src)
    return lax_ops["transpose"](x, perm)


def bdim_at_front(x: Any, bdim: int | None, size: int) -> Any:
    """Put the batch dimension first; an unbatched value gets a new leading one of ``size``."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def broadcast(x: Any, size: int, axis: int) -> Any:
    """Give an unbatched ``x`` a batch dimension of ``size`` at ``axis`` (one broadcast_in_dim)."""
    shape = list(np.shape(x))
    shape.insert(axis, size)
    # Bound directly, as JAX does: its dimensions are NumPy integers, and jaxprs show them so.
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return lax_ops["broadcast_in_dim"](x, shape=tuple(shape), broadcast_dimensions=dims,
                                       sharding=None)


def matchaxis(x: Any, src: int | None, dst: int | None, size: int) -> Any:
    """Move (or create, by broadcasting) the batch dimension at ``dst``."""
    if dst is not_mapped:
        return x
    if src is not_mapped:
        return broadcast(x, size, dst)
    return moveaxis(x, src, dst)


# ------------------------------------------------------------------ registrars
def defvectorized(prim: Primitive) -> None:
    """A one-operand elementwise primitive works on the batch as it is."""
    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        return prim.bind(x, **params), d
    batching_rules[prim] = rule


def defbroadcasting(prim: Primitive) -> None:
    """An n-ary elementwise primitive: line the batch dimensions up, then apply it.

    Operands that agree (same shape, same batch dimension, or scalars) go in
    unchanged. Otherwise every batched operand gets its batch dimension in front,
    every unbatched one a leading dimension of size 1, and lax's own broadcasting
    of size-1 dimensions does the rest (JAX's ``broadcast_batcher``).
    """
    def rule(args, dims, **params):
        shape, dim = next((np.shape(x), d) for x, d in zip(args, dims) if d is not not_mapped)
        if all(np.shape(x) == shape and d == dim for x, d in zip(args, dims) if np.ndim(x)):
            out = prim.bind(*args, **params)
            return out, ([dim] * len(out) if prim.multiple_results else dim)
        args = [bdim_at_front(x, d, 1) if np.ndim(x) else x for x, d in zip(args, dims)]
        ndim = max(np.ndim(x) for x in args)
        args = [_scalar_broadcast(ndim, x, d) for x, d in zip(args, dims)]
        out = prim.bind(*args, **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    batching_rules[prim] = rule


def _scalar_broadcast(ndim: int, x: Any, d: int | None) -> Any:
    if d is not_mapped or ndim == np.ndim(x):
        return x
    return lax_ops["expand_dims"](x, tuple(range(np.ndim(x), ndim)))


# ------------------------------------------------------------------ add_any (ad_util.py)
def _add_any_batched(args, dims):
    """Both operands of ``add_any`` must have the same shape (it has no size-1 broadcasting,
    unlike ``add``): an unbatched operand is broadcast to the full batch size."""
    (x, y), (dx, dy) = args, dims
    if dx == dy:
        return add_any_p.bind(x, y), dx
    if dx is not_mapped:
        return add_any_p.bind(broadcast(x, y.shape[dy], dy), y), dy
    if dy is not_mapped:
        return add_any_p.bind(x, broadcast(y, x.shape[dx], dx)), dx
    return add_any_p.bind(moveaxis(x, dx, dy), y), dy


batching_rules[add_any_p] = _add_any_batched


# ------------------------------------------------------------------ jaxpr-level helper
def batch_jaxpr(closed: Any, axis_size: int, in_dims: list,
                out_dims_wanted: list | None = None, axis_name: Any = None,
                keep_out_dims: bool = False,
                instantiate: list[bool] | None = None) -> tuple[Any, list]:
    """A jaxpr computing the batched outputs of ``closed`` from batched inputs.

    Used by the batching rules of primitives that carry jaxprs (jit, cond...).
    Outputs are moved to dimension 0 (or left unbatched when they are the same for
    every example, unless ``out_dims_wanted`` forces a batch dimension, or
    ``instantiate`` says which outputs must be batched, JAX's flags). With
    ``keep_out_dims`` each output keeps the batch dimension its rules gave it (jit does
    this, as JAX's batch_jaxpr2: whoever reads the result moves it, outside the call).
    """
    running = _rule_context.trace
    if axis_name is None and running is not None and running.axis_size == axis_size:
        axis_name = running.axis_name
    avals = closed.in_avals
    batched_avals = [a if d is not_mapped else ShapedArray(
        a.shape[:d] + (axis_size,) + a.shape[d:], a.dtype, a.weak_type)
        for a, d in zip(avals, in_dims)]
    out_dims: list = []

    def fun(*args):
        outs, dims = batch_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                                list(args), list(in_dims), axis_size, axis_name)
        wanted = out_dims_wanted or (list(dims) if keep_out_dims else [
            0 if d is not not_mapped or (instantiate and instantiate[i]) else not_mapped
            for i, d in enumerate(dims)])
        outs = [matchaxis(o, d, w, axis_size) for o, d, w in zip(outs, dims, wanted)]
        out_dims[:] = wanted
        return outs, None

    jaxpr, _ = trace_to_jaxpr(fun, batched_avals)
    return jaxpr, out_dims
