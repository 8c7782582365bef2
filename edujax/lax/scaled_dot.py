"""``scaled_dot``: a dot product of block-scaled operands (the fp8 / MX formats).

``scaled_dot(lhs, rhs, lhs_scale=s, rhs_scale=t)`` is ``(lhs * s) @ (rhs * t)`` where each
scale is *smaller* along the contracting dimension: one scale per block ("subchannel") of
consecutive elements, repeated over its block.

NB: JAX's default output dtype is bfloat16 (and its default scales are float8_e8m0fnu);
edujax has neither dtype, so it asks for an explicit ``preferred_element_type``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import batching
from edujax.lax.base import asarray, full
from edujax.lax.dot import _dot_general_abstract_eval, _dot_general_impl

scaled_dot_p = Primitive("scaled_dot")


def _check_blocks(operand, scale, contracting):
    """Each scale covers a whole block of the contracting dimensions."""
    for d in contracting:
        if operand.shape[d] % scale.shape[d]:
            raise TypeError(f"scaled_dot: the operand's contracting dimension "
                            f"({operand.shape[d]}) must be a multiple of the scale's "
                            f"({scale.shape[d]}).")


def _scaled_dot_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                              preferred_element_type):
    (lc, rc), _ = dimension_numbers
    _check_blocks(lhs, lhs_scale, lc)
    _check_blocks(rhs, rhs_scale, rc)
    out = _dot_general_abstract_eval(lhs, rhs, dimension_numbers=dimension_numbers,
                                     precision=None, preferred_element_type=None,
                                     out_sharding=None)
    return ShapedArray(out.shape, preferred_element_type)


def _scaled_dot_impl(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                     preferred_element_type):
    (lc, rc), _ = dimension_numbers

    def scaled(x, s, contracting):
        x, s = np.asarray(x, np.float32), np.asarray(s, np.float32)
        for d in contracting:
            s = np.repeat(s, x.shape[d] // s.shape[d], axis=d)
        return x * s
    out = _dot_general_impl(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc),
                            dimension_numbers=dimension_numbers, precision=None,
                            preferred_element_type=np.dtype(np.float32), out_sharding=None)
    return np.asarray(out).astype(preferred_element_type)


core.abstract_eval_rules[scaled_dot_p] = _scaled_dot_abstract_eval
core.impl_rules[scaled_dot_p] = _scaled_dot_impl


def _scaled_dot_batch(args, dims, *, dimension_numbers, preferred_element_type):
    """Every operand (scales too) gets the batch dimension in front, which becomes one more
    batch dimension of the dot: the others shift by one."""
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    (lc, rc), (lb, rb) = dimension_numbers

    def shift(ds):
        return tuple(d + 1 for d in ds)
    dimension_numbers = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
    return scaled_dot_p.bind(*args, dimension_numbers=dimension_numbers,
                             preferred_element_type=preferred_element_type), 0


batching.batching_rules[scaled_dot_p] = _scaled_dot_batch


def scaled_dot(lhs: Any, rhs: Any, *, lhs_scale: Any = None, rhs_scale: Any = None,
               dimension_numbers: Any = None, preferred_element_type: Any = None) -> Any:
    """``(lhs * lhs_scale) @ (rhs * rhs_scale)`` with block scales, accumulated in float32.

    Default dimension numbers: contract lhs's last with rhs's second-to-last, batch the
    leading ones. Not differentiable (as in JAX)."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    if dimension_numbers is None:
        if lhs.ndim in (0, 1):
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        n = lhs.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    dimension_numbers = tuple(tuple(map(tuple, t)) for t in dimension_numbers)
    (lc, rc), _ = dimension_numbers

    def dummy(x, contracting):  # one scale of 1 for the whole contracting dimension
        return full(tuple(1 if d in contracting else s for d, s in enumerate(x.shape)), 1.0,
                    np.float32)
    lhs_scale = dummy(lhs, lc) if lhs_scale is None else asarray(lhs_scale)
    rhs_scale = dummy(rhs, rc) if rhs_scale is None else asarray(rhs_scale)
    if preferred_element_type is None:
        raise NotImplementedError("scaled_dot: JAX's default output dtype is bfloat16, which "
                                  "edujax lacks; pass preferred_element_type=jnp.float32")
    dtype = np.dtype(dtypes.canonicalize_dtype(preferred_element_type))
    return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale,
                             dimension_numbers=dimension_numbers,
                             preferred_element_type=dtype)
