"""More collectives: axis_size, psum_scatter, all_to_all, pswapaxes, pshuffle.

They follow parallel.py's pattern: under ``vmap(..., axis_name=)`` every example lives in
one array, so a collective is ordinary reshaping and summing along the batch dimension
(the rules in ``batching.axis_rules``); under ``pmap`` each device is a thread that
swaps values with the others through its ``Communicator``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.interpreters.vma import pvary_p
from edujax.lax.base import expand_dims, reduce_sum, reshape, transpose
from edujax.lax.parallel import _axis_size, _names, all_gather_p, current_axis, ppermute
from edujax.lax.shape import squeeze
from edujax.tree_util import tree_map


def axis_size(axis_name: Any) -> int:
    """The size of the mapped axis ``axis_name`` (a product for a tuple of names).

    A Python int, known while tracing: ``vmap(lambda x: axis_size('i'), axis_name='i')``
    gives the batch size in every example."""
    return math.prod(_axis_size(name) for name in _names(axis_name))


# ------------------------------------------------------------------ psum_scatter
reduce_scatter_p = Primitive("reduce_scatter")


def _scatter_shape(shape, dim, size, tiled):
    shape = list(shape)
    if tiled:
        shape[dim] //= size
    else:
        del shape[dim]
    return tuple(shape)


def _reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_index_groups,
                                  axis_size, tiled):
    return ShapedArray(_scatter_shape(x.shape, scatter_dimension, axis_size, tiled),
                       x.dtype, x.weak_type)


def _reduce_scatter_impl(x, *, axis_name, scatter_dimension, axis_index_groups, axis_size,
                         tiled):
    index, comm = current_axis(axis_name)
    total = np.sum(np.stack(comm.exchange(index, x)), axis=0)
    chunk = total.shape[scatter_dimension] // axis_size
    part = np.take(total, range(index * chunk, (index + 1) * chunk), axis=scatter_dimension)
    return part if tiled else np.squeeze(part, scatter_dimension)


def _reduce_scatter_vmap(trace, args, dims, *, axis_name, scatter_dimension,
                         axis_index_groups, axis_size, tiled):
    """Sum the examples, then example i keeps block i of ``scatter_dimension``."""
    (x,), (d,) = args, dims
    total = reduce_sum(batching.bdim_at_front(x, d, trace.axis_size), (0,))
    shape = list(np.shape(total))
    if tiled:  # split the dimension into (examples, block)
        shape[scatter_dimension:scatter_dimension + 1] = [axis_size, shape[scatter_dimension]
                                                          // axis_size]
        total = reshape(total, shape)
    return batching.moveaxis(total, scatter_dimension, 0), 0


core.abstract_eval_rules[reduce_scatter_p] = _reduce_scatter_abstract_eval
core.impl_rules[reduce_scatter_p] = _reduce_scatter_impl
batching.axis_rules[reduce_scatter_p] = _reduce_scatter_vmap


# all_gather and psum_scatter are each other's transposes: a device's block of the gathered
# array came from one device, so its cotangent goes back there, summed over the devices
# that received a copy (JAX's _all_gather_transpose_rule / _reduce_scatter_transpose_rule).
def _all_gather_transpose(ct, x, *, axis_name, axis_size, all_gather_dimension, tiled):
    return [reduce_scatter_p.bind(ct, axis_name=axis_name, scatter_dimension=all_gather_dimension,
                                  axis_index_groups=None, axis_size=axis_size, tiled=tiled)]


def _reduce_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_index_groups,
                              axis_size, tiled):
    return [all_gather_p.bind(ct, axis_name=axis_name, axis_size=axis_size,
                              all_gather_dimension=scatter_dimension, tiled=tiled)]


ad.deflinear(all_gather_p, _all_gather_transpose)
ad.deflinear(reduce_scatter_p, _reduce_scatter_transpose)


def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0,
                 axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """Sum ``x`` over the mapped axis and give example i only block i of the total.

    ``scatter_dimension`` must have the axis size (``tiled=False``: it is removed) or a
    multiple of it (``tiled=True``: it shrinks by the axis size)."""
    if axis_index_groups is not None:
        raise NotImplementedError("psum_scatter: axis_index_groups is not implemented in edujax")
    size = _axis_size(axis_name)

    def bind(leaf):
        shape = core.get_aval(leaf).shape
        n = shape[scatter_dimension]
        if (n % size if tiled else n != size):
            raise ValueError(f"psum_scatter requires the scatter_dimension ({n}) to be "
                             f"{'a multiple of' if tiled else 'equal to'} the size of axis "
                             f"{axis_name} ({size})")
        return reduce_scatter_p.bind(leaf, axis_name=axis_name,
                                     scatter_dimension=scatter_dimension,
                                     axis_index_groups=None, axis_size=size, tiled=tiled)
    return tree_map(bind, x)


# ------------------------------------------------------------------ all_to_all
all_to_all_p = Primitive("all_to_all")


def _all_to_all_abstract_eval(x, *, split_axis, concat_axis, axis_name, axis_index_groups,
                              tiled):
    size = _axis_size(axis_name)
    shape = list(x.shape)
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _all_to_all_impl(x, *, split_axis, concat_axis, axis_name, axis_index_groups, tiled):
    """Cut x into one block per device along split_axis, send block j to device j, and
    glue the blocks received (in device order) along concat_axis."""
    index, comm = current_axis(axis_name)
    blocks = comm.exchange(index, np.split(x, comm.size, axis=split_axis))
    return np.concatenate([sent[index] for sent in blocks], axis=concat_axis)


def _all_to_all_vmap(trace, args, dims, *, split_axis, concat_axis, axis_name,
                     axis_index_groups, tiled):
    """The batch axis (senders j) and a new blocks axis (receivers i) trade places.

    x: (j, ..., split=(i, c), ...). Example i's result puts the senders j in front of
    concat_axis and merges them into it: one reshape, one transpose, one reshape."""
    (x,), (d,) = args, dims
    x = batching.bdim_at_front(x, d, trace.axis_size)
    n = trace.axis_size
    shape = list(np.shape(x)[1:])
    c = shape[split_axis] // n
    sp = split_axis + 1  # where the receivers' axis sits once split_axis is cut in two
    x = reshape(x, (n, *shape[:split_axis], n, c, *shape[split_axis + 1:]))
    rank = len(shape)
    pos = [k + 1 if k < split_axis else (sp + 1 if k == split_axis else k + 2)
           for k in range(rank)]
    perm = [sp]
    for k in range(rank):
        perm += [0, pos[k]] if k == concat_axis else [pos[k]]
    x = transpose(x, perm)
    out = list(shape)
    out[split_axis] = c
    out[concat_axis] *= n
    return reshape(x, (n, *out)), 0


core.abstract_eval_rules[all_to_all_p] = _all_to_all_abstract_eval
core.impl_rules[all_to_all_p] = _all_to_all_impl
batching.axis_rules[all_to_all_p] = _all_to_all_vmap
# Sending the cotangents back is the same exchange with split and concat swapped.
ad.deflinear(all_to_all_p, lambda ct, x, *, split_axis, concat_axis, **params: [
    all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)])


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *,
               axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """Example i gets block i of every example's ``split_axis``, stacked (or, ``tiled``,
    concatenated) along ``concat_axis``."""
    if axis_index_groups is not None:
        raise NotImplementedError("all_to_all: axis_index_groups is not implemented in edujax")

    def bind(x, split_axis=split_axis, concat_axis=concat_axis):
        size = _axis_size(axis_name)
        shape = core.get_aval(x).shape
        if tiled:
            if shape[split_axis] % size != 0:
                raise ValueError(f"The size of all_to_all split_axis ({shape[split_axis]}) "
                                 f"has to be divisible by the size of the named axis "
                                 f"{axis_name} ({size})")
        else:
            if size != shape[split_axis]:
                raise ValueError("all_to_all requires the size of the mapped axis axis_name "
                                 "to equal x.shape[split_axis], but they are "
                                 f"{size} and {shape[split_axis]} respectively.")
            if split_axis < concat_axis:
                concat_axis += 1  # concat_axis counts positions after split_axis is removed
                x = expand_dims(x, (concat_axis,))
            elif concat_axis < split_axis:
                x = expand_dims(x, (concat_axis,))
                split_axis += 1
        result = all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis,
                                   axis_name=axis_name, axis_index_groups=None, tiled=tiled)
        if not tiled and split_axis != concat_axis:
            result = squeeze(result, (split_axis,))
        return result
    return tree_map(bind, x)


def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    """Swap the mapped axis ``axis_name`` with the array axis ``axis`` (same sizes)."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pshuffle(x: Any, axis_name: Any, perm: Any) -> Any:
    """Example i gets example ``perm[i]``'s value: ppermute with sources listed in order."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ------------------------------------------------------------------ pcast
def pcast(x: Any, axis_name: Any, *, to: str) -> Any:
    """Change how a value's type says it varies over mesh axes, inside shard_map, moving no
    data. ``to='varying'``: a value the same on every device is typed as varying along
    ``axis_name`` (JAX binds ``pvary`` for it, as edujax does), so it may be carried by a
    loop whose carry varies. (edujax has no unreduced or reduced types: the other ``to``
    values JAX has are not here.)"""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axes:
        return x
    if to != "varying":
        raise NotImplementedError(f"pcast(..., to={to!r}): edujax only has to='varying'")

    def bind(leaf: Any) -> Any:
        if any(a in core.get_aval(leaf).vma for a in axes):  # (JAX's words)
            raise ValueError(f"Unsupported pcast from=varying, to={to!r}")
        return pvary_p.bind(leaf, axes=axes)
    return tree_map(bind, x)
