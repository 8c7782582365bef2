"""``pmap``: run one copy of a function per device, in parallel, with collectives.

edujax simulates devices on the CPU: ``EDUJAX_NUM_CPU_DEVICES=4`` (or
``edujax.config.update("edujax_num_cpu_devices", 4)``) gives four. ``pmap(f)``
traces ``f`` once to a jaxpr, splits the mapped axis into one shard per device,
and runs the jaxpr on each shard on its own thread. Collectives inside
(``lax.psum(x, 'i')``) make the threads exchange values (lax/parallel.py).

NB: in JAX, pmap is itself a primitive, so ``jit(pmap(f))`` and ``grad(pmap(f))``
stage one equation. edujax runs pmap eagerly; under another transformation it
behaves like ``vmap`` with the same axis name, which computes the same values.
"""
from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from edujax.api_util import flatten_fun_nokwargs
from edujax import core, devices, dtypes
from edujax.api import shaped_abstractify
from edujax.array import Array
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import run_jaxpr
from edujax.lax.parallel import Communicator, axis_env
from edujax.tree_util import tree_flatten, tree_unflatten
from edujax.vmap import _in_axes_for, _normalize_axis, vmap


def pmap(fun: Callable, axis_name: Any = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: Any = (), devices: Any = None, backend: Any = None,
         axis_size: int | None = None, donate_argnums: Any = ()) -> Callable:
    """Map ``fun`` over the leading axis of its arguments, one slice per device."""
    @functools.wraps(fun, updated=())
    def pmap_f(*args: Any):
        if not core.at_top_level():
            return vmap(fun, in_axes, out_axes, axis_name=axis_name)(*args)
        leaves, in_tree = tree_flatten(args)
        axes = [_normalize_axis(a, x) for a, x in zip(_in_axes_for(in_axes, args), leaves)]
        size = _mapped_size(leaves, axes)
        shards = [[_shard(x, a, i) for x, a in zip(leaves, axes)] for i in range(size)]
        with _bound_axis(axis_name, size):
            closed, out_tree = trace_to_jaxpr(flatten_fun_nokwargs(fun, in_tree),
                                              [shaped_abstractify(x) for x in shards[0]])
        outs = _run_on_devices(closed, shards, axis_name)
        stacked = [np.stack([o[k] for o in outs]) for k in range(len(closed.out_avals))]
        arrays = [Array(v.astype(a.dtype, copy=False), False)
                  for v, a in zip(stacked, closed.out_avals)]
        out = tree_unflatten(out_tree, arrays)
        return out if out_axes == 0 else vmap(lambda x: x, in_axes=0, out_axes=out_axes)(out)
    return pmap_f


def _mapped_size(leaves: list, axes: list) -> int:
    sizes = {np.shape(x)[a] for x, a in zip(leaves, axes) if a is not None}
    if len(sizes) != 1:
        raise ValueError("pmap got inconsistent sizes for array axes to be mapped: "
                         f"{sorted(sizes)}" if sizes else "pmap needs a mapped argument")
    size = sizes.pop()
    available = devices.local_device_count()
    if size > available:
        raise ValueError(f"compiling computation that requires {size} logical devices, but only "
                         f"{available} XLA devices are available (num_replicas={size})\n"
                         "Hint: set EDUJAX_NUM_CPU_DEVICES (or the edujax_num_cpu_devices "
                         "config option) to simulate more CPU devices.")
    return size


def _shard(x: Any, axis: int | None, i: int) -> Any:
    if axis is None:
        return x
    value = x._value if isinstance(x, Array) else np.asarray(x)
    value = value.astype(dtypes.canonicalize_dtype(value.dtype), copy=False)  # float64 -> f32
    return Array(np.take(value, i, axis=axis), getattr(x, "weak_type", False))


class _bound_axis:
    """While tracing, collectives over ``axis_name`` must find the axis (and its size, for
    the shapes of all_gather, all_to_all, axis_size...): bind a communicator nobody uses."""

    def __init__(self, name: Any, size: int = 1):
        self.name, self.size = name, size

    def __enter__(self):
        self.saved = dict(axis_env.frames)
        if self.name is not None:
            axis_env.frames[self.name] = (0, Communicator(self.size))

    def __exit__(self, *exc):
        axis_env.frames = self.saved


def _run_on_devices(closed: Any, shards: list, axis_name: Any) -> list:
    comm = Communicator(len(shards))

    def run(i: int) -> list:
        if axis_name is not None:
            axis_env.frames[axis_name] = (i, comm)
        try:
            args = [x._value if isinstance(x, Array) else np.asarray(x) for x in shards[i]]
            return run_jaxpr(closed.jaxpr, closed.consts, args)
        finally:
            axis_env.frames.pop(axis_name, None)

    if len(shards) == 1:
        return [run(0)]
    with ThreadPoolExecutor(max_workers=len(shards)) as pool:
        return list(pool.map(run, range(len(shards))))
