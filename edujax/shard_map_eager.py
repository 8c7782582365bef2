"""``shard_map`` called outside ``jit``: the body run op by op on every device's block.

Under ``jit`` or ``make_jaxpr`` the body of a shard_map is traced once, on one block's type,
and staged as one equation (shard_map.py). Called eagerly, JAX 0.10 does not trace it: each
operation of the body runs at once on all the devices' blocks together. edujax does the
same with a trace whose tracers hold **one block per device**:

* an operation runs once per device, on that device's block (one thread per device, so a
  collective such as ``psum`` can exchange blocks: see ``lax/parallel.py``'s Communicator);
* ``print(x)`` inside the body shows every device's block, as JAX prints it
  (``On cpu:0 at mesh coordinates (i,) = (0,):``...);
* the type of a tracer is the block's type with its varying mesh axes (``{V:i}``), computed
  by the same abstract evaluation as when tracing, so the out_specs check is the same.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.array import Array
from edujax.lax.parallel import Communicator, axis_env, named_axes


class ShardMapTracer(core.Tracer):
    """A value inside an eager shard_map body: one block per device of the mesh, in the
    mesh's device order, and the type every block has."""

    __slots__ = ("blocks", "_aval")

    def __init__(self, trace: ShardMapTrace, blocks: list, aval: core.ShapedArray):
        self._trace, self.blocks, self._aval = trace, blocks, aval

    @property
    def aval(self) -> core.ShapedArray:
        return self._aval

    def to_concrete_value(self) -> Any:
        # A value the same on every device (it varies along no mesh axis) is known: Python
        # control flow may use it. A varying one has no single value.
        return None if self._aval.vma else self.blocks[0]._value

    def __str__(self) -> str:
        mesh = self._trace.mesh
        axis_names = f"({', '.join(map(str, mesh.axis_names))},)"
        places = [idx for idx, _ in np.ndenumerate(mesh.devices)]
        return "\n".join(f"On {device} at mesh coordinates {axis_names} = {idx}:\n{block}\n"
                         for idx, device, block in zip(places, mesh.devices.flat, self.blocks))

    __repr__ = __str__


class ShardMapTrace(core.Trace):
    """Runs each bind on every device's blocks, each device on its own thread with its
    place on the mesh axes set (what ``axis_index`` and the collectives read)."""

    def __init__(self, mesh: Any, pool: ThreadPoolExecutor):
        self.mesh, self.pool = mesh, pool
        self.places = [dict(zip(mesh.axis_names, idx)) for idx, _ in np.ndenumerate(mesh.devices)]
        self.comms: dict = {}
        for where in self.places:
            for a in mesh.axis_names:
                self.comms.setdefault(self._group(a, where), Communicator(mesh.shape[a]))

    @staticmethod
    def _group(axis: str, where: dict) -> tuple:
        """The devices a collective over ``axis`` joins: those that differ only along it."""
        return axis, tuple(v for k, v in where.items() if k != axis)

    def process_primitive(self, prim: core.Primitive, args: tuple, params: dict) -> Any:
        avals = [a.aval if isinstance(a, core.Tracer) else core.get_aval(a) for a in args]
        out_aval = core.abstract_eval(prim, avals, params)
        per_device = self.on_every_device(
            lambda i: prim.bind(*[a.blocks[i] if isinstance(a, ShardMapTracer) else a
                                  for a in args], **params))
        if prim.multiple_results:
            return [ShardMapTracer(self, list(blocks), a)
                    for blocks, a in zip(zip(*per_device), out_aval)]
        return ShardMapTracer(self, per_device, out_aval)

    def on_every_device(self, run: Callable[[int], Any]) -> list:
        def on_device(i: int) -> Any:
            where = self.places[i]
            for a in self.mesh.axis_names:
                axis_env.frames[a] = (where[a], self.comms[self._group(a, where)])
            try:
                return run(i)
            finally:
                for a in self.mesh.axis_names:
                    axis_env.frames.pop(a, None)
        return list(self.pool.map(on_device, range(len(self.places))))


def run_eagerly(flat_fun: Callable, leaves: list, block_avals: list, index: Callable,
                mesh: Any) -> tuple[list, list, Any]:
    """Run ``flat_fun`` (flat blocks in, ``(flat outputs, tree)`` out) on every device's
    blocks: ``(per-device outputs, output avals, output tree)``. ``index(device, k)`` is the
    index of argument ``k``'s block on ``device``."""
    devices = list(mesh.devices.flat)
    with ThreadPoolExecutor(max_workers=len(devices)) as pool:
        trace = ShardMapTrace(mesh, pool)
        ins = [ShardMapTracer(trace, [Array(np.asarray(x)[index(d, k)], aval.weak_type)
                                      for d in devices], aval)
               for k, (x, aval) in enumerate(zip(leaves, block_avals))]
        with named_axes(mesh.shape.items()), core.set_current_trace(trace):
            outs, out_tree = flat_fun(*ins)
        outs = [o if isinstance(o, ShardMapTracer) else _everywhere(trace, o) for o in outs]
    per_device = [[o.blocks[i] for o in outs] for i in range(len(devices))]
    return per_device, [o.aval for o in outs], out_tree


def _everywhere(trace: ShardMapTrace, x: Any) -> ShardMapTracer:
    """An output that is not a tracer (a constant): the same on every device."""
    aval = core.get_aval(x)
    return ShardMapTracer(trace, [x] * len(trace.places), aval)
