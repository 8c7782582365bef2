"""Collectives: psum, pmean, pmax, pmin, all_gather, axis_index, ppermute.

A collective talks across the examples of a *named* mapped axis: the axis that a
``pmap(..., axis_name='i')`` or ``vmap(..., axis_name='i')`` introduced.

* Under ``vmap`` all examples live in one array, so a collective becomes ordinary
  array work along the batch dimension (psum over the named axis is a sum over
  the batch axis). The rules are in ``batching.axis_rules``.
* Under ``pmap`` each device runs on its own thread. The reference rule of a
  collective finds its device's place in the axis (``current_axis_env``) and
  exchanges values with the other threads through a barrier.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Sequence

import numpy as np

from edujax import api, core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.interpreters.vma import pvary_p
from edujax.lax.base import (broadcast_in_dim, convert_element_type, expand_dims, full,
                              reshape)
from edujax.lax.elementwise import div
from edujax.lax.shape import concatenate, index_in_dim, iota
from edujax.tree_util import tree_map


# ------------------------------------------------------------------ the per-device environment
class Communicator:
    """Lets the threads of one pmap exchange values: everyone posts, everyone reads."""

    def __init__(self, size: int):
        self.size = size
        self.barrier = threading.Barrier(size)
        self.slots: list = [None] * size

    def exchange(self, index: int, value: Any) -> list:
        self.slots[index] = value
        self.barrier.wait()
        values = list(self.slots)
        self.barrier.wait()  # nobody may overwrite a slot before everyone has read them all
        return values


class _AxisEnv(threading.local):
    def __init__(self) -> None:
        self.frames: dict[str, tuple[int, Communicator]] = {}


axis_env = _AxisEnv()


@contextlib.contextmanager
def named_axes(names_and_sizes: Sequence[tuple[Any, int]]) -> Iterator[None]:
    """Bind each named axis while tracing (``make_jaxpr(..., axis_env=...)``), as if inside a
    pmap over it: collectives and ``axis_size`` find their axis; nothing is exchanged."""
    saved = dict(axis_env.frames)
    for name, size in names_and_sizes:
        axis_env.frames[name] = (0, Communicator(size))
    try:
        yield
    finally:
        axis_env.frames = saved


api.bind_named_axes = named_axes  # (api.py is below lax: it cannot import this itself)


def current_axis(name: Any) -> tuple[int, Communicator]:
    """This thread's (index, communicator) for the pmap axis called ``name``."""
    try:
        return axis_env.frames[name]
    except KeyError:
        raise NameError(f"unbound axis name: {name}\nHint: collectives such as psum only work "
                        "inside pmap or vmap with a matching axis_name=...") from None


def _names(axes: Any) -> tuple:
    return tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)


# ------------------------------------------------------------------ psum, pmax, pmin
def _reduce_collective(name: str, np_reduce) -> Primitive:
    """A reduction over named axes (across devices) or positional axes (within an array)."""
    prim = Primitive(name)

    def abstract_eval(x: ShapedArray, *, axes, axis_index_groups):
        positional = [a for a in axes if isinstance(a, int)]
        return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in positional),
                           x.dtype, x.weak_type)

    def impl(x, *, axes, axis_index_groups):
        positional = tuple(a for a in axes if isinstance(a, int))
        if positional:
            x = np_reduce(x, axis=positional)
        for axis_name in (a for a in axes if not isinstance(a, int)):
            index, comm = current_axis(axis_name)
            x = np_reduce(np.stack(comm.exchange(index, x)), axis=0)
        return np.asarray(x)

    def vmap_rule(trace, args, dims, *, axes, axis_index_groups):
        (x,), (d,) = args, dims
        if d is None:  # the same value in every example: sum = size * value, etc.
            x = batching.bdim_at_front(x, d, trace.axis_size)
            d = 0
        rest = _shift_positional(tuple(a for a in axes if a != trace.axis_name), d)
        out = prim.bind(x, axes=(d, *rest), axis_index_groups=axis_index_groups)
        return out, None

    def batch_rule(args, dims, *, axes, axis_index_groups):
        """A collective over some *other* axis: the batch dimension stays, but the
        positional axes (left by an inner vmap) count it now."""
        (x,), (d,) = args, dims
        if not any(isinstance(a, int) for a in axes):  # only named axes: nothing moves
            return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), d
        x = batching.bdim_at_front(x, d, None)
        out = prim.bind(x, axes=_shift_positional(axes, 0), axis_index_groups=axis_index_groups)
        return out, 0

    core.abstract_eval_rules[prim] = abstract_eval
    core.impl_rules[prim] = impl
    batching.axis_rules[prim] = vmap_rule
    batching.batching_rules[prim] = batch_rule
    return prim


def _shift_positional(axes: tuple, d: int) -> tuple:
    """Positional axes after a batch dimension is inserted at ``d`` (names stay)."""
    return tuple(a + (a >= d) if isinstance(a, int) else a for a in axes)


psum_p = _reduce_collective("psum", np.sum)
pmax_p = _reduce_collective("pmax", np.max)
pmin_p = _reduce_collective("pmin", np.min)


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    """The derivative of a sum across devices is the sum of the derivatives.

    Positional axes (vmap turns a named axis into one) were summed away within the array:
    their transpose broadcasts the cotangent back, as reduce_sum's does. Named axes are
    summed again, as JAX does (it treats psum as psum + pbroadcast)."""
    positional = [a for a in axes if isinstance(a, int)]
    if positional:
        kept = tuple(np.delete(np.arange(x.aval.ndim), positional))
        ct = broadcast_in_dim(ct, x.aval.shape, kept)
    named = tuple(a for a in axes if not isinstance(a, int))
    return [psum_p.bind(ct, axes=named, axis_index_groups=axis_index_groups)]


ad.deflinear(psum_p, _psum_transpose)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum ``x`` over the mapped axis ``axis_name``: every example gets the total."""
    return tree_map(lambda leaf: _psum_leaf(leaf, _names(axis_name), axis_index_groups), x)


def _psum_leaf(x: Any, axes: tuple, axis_index_groups: Any) -> Any:
    """Inside shard_map, the sum of a value whose type says it varies along every summed
    axis is JAX's ``psum_invariant``: its result is the same on every device of those axes,
    and its type says so (``f32[2]{V:i}`` in, ``f32[2]`` out)."""
    vma = getattr(core.get_aval(x), "vma", frozenset())
    if vma and axis_index_groups is None and all(a in vma for a in axes):
        return psum_invariant_p.bind(x, axes=axes)
    return psum_p.bind(x, axes=axes, axis_index_groups=axis_index_groups)


psum_invariant_p = Primitive("psum_invariant")
core.abstract_eval_rules[psum_invariant_p] = lambda x, *, axes: ShapedArray(
    x.shape, x.dtype, x.weak_type)
core.impl_rules[psum_invariant_p] = lambda x, *, axes: core.impl_rules[psum_p](
    x, axes=axes, axis_index_groups=None)
# psum_invariant and pvary are each other's transposes (JAX's): the sum of values that vary
# from device to device gives every device the same total, so each device's cotangent is
# that total's, now typed as varying again (pvary); and a value made varying by pvary was the
# same on every device, so its cotangents from all devices are added up (psum_invariant).
ad.deflinear(psum_invariant_p, lambda ct, x, *, axes: [pvary_p.bind(ct, axes=axes)])
ad.deflinear(pvary_p, lambda ct, x, *, axes: [psum_invariant_p.bind(ct, axes=axes)])


def pmax(x: Any, axis_name: Any) -> Any:
    return tree_map(lambda leaf: pmax_p.bind(leaf, axes=_names(axis_name),
                                             axis_index_groups=None), x)


def pmin(x: Any, axis_name: Any) -> Any:
    return tree_map(lambda leaf: pmin_p.bind(leaf, axes=_names(axis_name),
                                             axis_index_groups=None), x)


def pmean(x: Any, axis_name: Any) -> Any:
    """The mean over the mapped axis: psum divided by the axis size."""
    n = psum(1, axis_name)
    return tree_map(lambda leaf: div(leaf, convert_element_type(
        n, core.get_aval(leaf).dtype)), psum(x, axis_name))


# ------------------------------------------------------------------ axis_index
axis_index_p = Primitive("axis_index")
core.abstract_eval_rules[axis_index_p] = lambda *, axis_name: ShapedArray((), np.int32)
core.impl_rules[axis_index_p] = lambda *, axis_name: np.asarray(current_axis(axis_name)[0],
                                                                np.int32)


def _axis_index_vmap(trace, args, dims, *, axis_name):
    return iota(np.int32, trace.axis_size), 0


batching.axis_rules[axis_index_p] = _axis_index_vmap


def axis_index(axis_name: Any) -> Any:
    """This example's position along the mapped axis ``axis_name``."""
    return axis_index_p.bind(axis_name=axis_name)


# ------------------------------------------------------------------ all_gather
all_gather_p = Primitive("all_gather")


def _all_gather_abstract_eval(x, *, axis_name, axis_size, all_gather_dimension, tiled):
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _all_gather_impl(x, *, axis_name, axis_size, all_gather_dimension, tiled):
    index, comm = current_axis(axis_name)
    values = comm.exchange(index, x)
    if tiled:
        return np.concatenate(values, axis=all_gather_dimension)
    return np.stack(values, axis=all_gather_dimension)


def _all_gather_vmap(trace, args, dims, *, axis_name, axis_size, all_gather_dimension, tiled):
    (x,), (d,) = args, dims
    x = batching.moveaxis(batching.bdim_at_front(x, d, trace.axis_size), 0,
                          all_gather_dimension)
    if tiled:
        shape = list(np.shape(x))
        n = shape.pop(all_gather_dimension)
        shape[all_gather_dimension] *= n
        x = reshape(x, shape)
    return x, None


core.abstract_eval_rules[all_gather_p] = _all_gather_abstract_eval
core.impl_rules[all_gather_p] = _all_gather_impl
batching.axis_rules[all_gather_p] = _all_gather_vmap


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False) -> Any:
    """Every example gets all examples' values, stacked along ``axis``."""
    size = _axis_size(axis_name)
    return tree_map(lambda leaf: all_gather_p.bind(
        leaf, axis_name=axis_name, axis_size=size, all_gather_dimension=axis, tiled=tiled), x)


def _axis_size(axis_name: Any) -> int:
    """The size of a named axis: from the enclosing vmap trace or pmap thread."""
    trace = core.current_trace()
    while trace is not None:
        if isinstance(trace, batching.BatchTrace) and trace.axis_name == axis_name:
            return trace.axis_size
        trace = getattr(trace, "parent", None)
    return current_axis(axis_name)[1].size


# ------------------------------------------------------------------ ppermute
ppermute_p = Primitive("ppermute")
core.abstract_eval_rules[ppermute_p] = lambda x, *, axis_name, perm: x


def _ppermute_impl(x, *, axis_name, perm):
    index, comm = current_axis(axis_name)
    values = comm.exchange(index, x)
    for src, dst in perm:
        if dst == index:
            return values[src]
    return np.zeros_like(x)


def _ppermute_vmap(trace, args, dims, *, axis_name, perm):
    """Example ``dst`` receives example ``src``'s value; examples nobody sends to get zeros."""
    (x,), (d,) = args, dims
    x = batching.bdim_at_front(x, d, trace.axis_size)
    sources = {dst: src for src, dst in perm}
    zeros = full(np.shape(x)[1:], 0, core.get_aval(x).dtype)
    rows = [index_in_dim(x, sources[i], 0, keepdims=False) if i in sources else zeros
            for i in range(trace.axis_size)]
    return concatenate([expand_dims(r, (0,)) for r in rows], 0), 0


core.impl_rules[ppermute_p] = _ppermute_impl
batching.axis_rules[ppermute_p] = _ppermute_vmap
ad.deflinear(ppermute_p, lambda ct, x, *, axis_name, perm: [
    ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))])


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Send each example's value to another: ``perm`` lists (source, destination) pairs."""
    perm = tuple((int(s), int(d)) for s, d in perm)
    return tree_map(lambda leaf: ppermute_p.bind(leaf, axis_name=axis_name, perm=perm), x)
