"""``pvary``: making a value's type say it varies along a mesh axis, inside shard_map.

Inside a shard_map body (with ``check_vma``) a value's type records the mesh axes along
which it differs from device to device: ``f32[2]{V:i}``. When an operation mixes a varying
value with one that is the same on every device (``a * 2``: the constant ``2.0`` is), JAX
first marks the invariant one as varying, so that every operand of the equation has the same
type, and the jaxpr says so:

    d:f32[]{V:i} = pvary[axes=('i',)] 2.0:f32[]
    e:f32[2]{V:i} = mul c d

``pvary`` moves no data (each device already holds the same value); it only changes the
type. The staging trace (``partial_eval.py``) calls ``insert_pvary`` before it records an
equation.
"""
from __future__ import annotations


from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.jaxpr import ClosedJaxpr, Jaxpr

pvary_p = Primitive("pvary")


def _pvary_abstract_eval(x: ShapedArray, *, axes: tuple) -> ShapedArray:
    out = x.update()
    out.vma = frozenset(x.vma) | frozenset(axes)
    return out


core.abstract_eval_rules[pvary_p] = _pvary_abstract_eval
core.impl_rules[pvary_p] = lambda x, *, axes: x  # the same value, now typed as varying


def _has_sub_jaxprs(params: dict) -> bool:
    return any(isinstance(v, (Jaxpr, ClosedJaxpr)) or (
        isinstance(v, tuple) and any(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v))
        for v in params.values())


def insert_pvary(prim: Primitive, args: list, avals: list, params: dict) -> list:
    """``args`` where those that vary along fewer mesh axes than the others went through
    ``pvary`` (only for an operation on several operands, as JAX's lax ops do)."""
    if prim is pvary_p or len(args) < 2 or _has_sub_jaxprs(params):
        return args
    vmas = [getattr(a, "vma", frozenset()) for a in avals]
    joined = frozenset().union(*vmas)
    if not joined or all(v == joined for v in vmas):
        return args
    # (sorted: the mesh's own axis order is not known here; JAX's docs name one axis at a time)
    return [a if v == joined else pvary_p.bind(a, axes=tuple(sorted(joined - v)))
            for a, v in zip(args, vmas)]
