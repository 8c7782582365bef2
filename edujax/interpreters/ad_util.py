"""``add_any``: the primitive that sums tangents and cotangents.

It is an ordinary add, but it gets its own name so that a reader of a jaxpr (and
the transpose rules) can tell "two contributions to one derivative" apart from
an ``add`` the user wrote.
"""
from __future__ import annotations

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching

add_any_p = Primitive("add_any")
core.abstract_eval_rules[add_any_p] = lambda x, y: ShapedArray(x.shape, x.dtype, x.weak_type)
core.impl_rules[add_any_p] = lambda x, y: x + y
ad.jvp_rules[add_any_p] = lambda primals, tangents: (
    add_any_p.bind(*primals), ad.add_tangents(*tangents))
ad.transpose_rules[add_any_p] = lambda ct, x, y: [ct, ct]


def _add_any_batched(args, dims):
    """Both operands of ``add_any`` must have the same shape (it has no size-1 broadcasting,
    unlike ``add``): an unbatched operand is broadcast to the full batch size."""
    (x, y), (dx, dy) = args, dims
    if dx == dy:
        return add_any_p.bind(x, y), dx
    if dx is batching.not_mapped:
        return add_any_p.bind(batching.broadcast(x, y.shape[dy], dy), y), dy
    if dy is batching.not_mapped:
        return add_any_p.bind(x, batching.broadcast(y, x.shape[dx], dx)), dx
    return add_any_p.bind(batching.moveaxis(x, dx, dy), y), dy


batching.batching_rules[add_any_p] = _add_any_batched
