"""dot_general: every matrix product (dot, matmul, einsum, tensordot) in one primitive.

``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
The output dimensions are: batch dims, then lhs free dims, then rhs free dims.
"""
from __future__ import annotations

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.lax.registry import standard_weak_type_rule
from edujax.pretty import pp_eqn_default, pp_eqn_rules


def _free_dims(ndim: int, *used) -> list[int]:
    taken = set().union(*map(set, used))
    return [d for d in range(ndim) if d not in taken]


def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers,
                               precision, preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    for a, b in zip(lc, rc):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError("dot_general requires contracting dimensions to have the same "
                            f"shape, got {tuple(lhs.shape[i] for i in lc)} and "
                            f"{tuple(rhs.shape[i] for i in rc)}.")
    for a, b in zip(lb, rb):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions "
                            f"to have the same shape, got {tuple(lhs.shape[i] for i in lb)} and "
                            f"{tuple(rhs.shape[i] for i in rb)}.")
    if lhs.dtype != rhs.dtype and preferred_element_type is None:
        raise TypeError("dot_general requires operands of the same dtype, got "
                        f"{lhs.dtype.name} and {rhs.dtype.name}.")
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb))
             + tuple(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
    dtype = np.dtype(preferred_element_type or lhs.dtype)
    return ShapedArray(shape, dtype, standard_weak_type_rule(lhs, rhs))


def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding):
    """Move dims to (batch, free, contract) / (batch, contract, free), then one matmul."""
    (lc, rc), (lb, rb) = dimension_numbers
    lf, rf = _free_dims(lhs.ndim, lc, lb), _free_dims(rhs.ndim, rc, rb)
    out_dtype = np.dtype(preferred_element_type or lhs.dtype)
    lhs = np.transpose(lhs, [*lb, *lf, *lc]).astype(out_dtype, copy=False)
    rhs = np.transpose(rhs, [*rb, *rc, *rf]).astype(out_dtype, copy=False)
    batch = lhs.shape[:len(lb)]
    m = int(np.prod(lhs.shape[len(lb):len(lb) + len(lf)], dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in range(len(lb) + len(lf), lhs.ndim)], dtype=np.int64))
    n = int(np.prod(rhs.shape[len(rb) + len(rc):], dtype=np.int64))
    out = np.matmul(lhs.reshape((*batch, m, k)), rhs.reshape((*batch, k, n)))
    return out.reshape((*batch, *lhs.shape[len(lb):len(lb) + len(lf)],
                        *rhs.shape[len(rb) + len(rc):]))


dot_general_p = Primitive("dot_general")
core.abstract_eval_rules[dot_general_p] = _dot_general_abstract_eval
core.impl_rules[dot_general_p] = _dot_general_impl


def _dot_general_pp_rule(eqn, ctx):
    """Like JAX: hide params that are None, and print dimension numbers as lists."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    params = {k: v for k, v in eqn.params.items() if v is not None and k != "out_sharding"}
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return pp_eqn_default(eqn.replace(params=params), ctx)


pp_eqn_rules[dot_general_p] = _dot_general_pp_rule
