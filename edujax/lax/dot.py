"""dot_general: every matrix product (dot, matmul, einsum, tensordot) in one primitive.

``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.
The output dimensions are: batch dims, then lhs free dims, then rhs free dims.
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from edujax import core, dtypes
from edujax.interpreters import ad, batching
from edujax.core import Primitive, ShapedArray
from edujax.lax.base import convert_element_type, transpose
from edujax.lax.precision import canonicalize_precision
from edujax.lax.registry import standard_weak_type_rule
from edujax.pretty import pp_eqn_default, pp_eqn_rules
from edujax.sharding.partition_spec import PartitionSpec


def _free_dims(ndim: int, *used) -> list[int]:
    taken = set().union(*map(set, used))
    return [d for d in range(ndim) if d not in taken]


def _check_dims_agree(kind: str, lhs: ShapedArray, rhs: ShapedArray, ldims, rdims) -> None:
    lsizes = tuple(lhs.shape[d] for d in ldims)
    rsizes = tuple(rhs.shape[d] for d in rdims)
    if lsizes != rsizes:
        raise TypeError(f"dot_general requires {kind} to have the same shape, got "
                        f"{lsizes} and {rsizes}.")


def _type_rank(dtype: np.dtype) -> tuple:
    """How "wide" a dtype is, to pick the result of mixed-dtype products (XLA's rule):
    complex over real, then exponent range, mantissa, bit width, signed over unsigned."""
    real = np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype
    fi = np.finfo(real) if real.kind == "f" else None
    return (dtype.kind == "c", fi.maxexp if fi else -1, fi.nmant if fi else -1,
            real.itemsize * 8 if real.kind != "b" else 1, real.kind != "u")


def _dot_general_dtype(lhs: ShapedArray, rhs: ShapedArray, preferred) -> np.dtype:
    """The wider operand dtype, or ``preferred_element_type`` when given.

    NB: operands of different dtypes are allowed (jnp.dot passes an int32 and a
    float32 array as they are, asking for a float32 result); the product is then
    computed in the result dtype.
    """
    lhs_rank, rhs_rank = _type_rank(lhs.dtype), _type_rank(rhs.dtype)
    if lhs_rank == rhs_rank and lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.dot_general argument type error: {lhs.dtype}, {rhs.dtype}")
    dtype = lhs.dtype if lhs_rank >= rhs_rank else rhs.dtype
    if preferred is None or np.dtype(preferred) == dtype:
        return dtype
    preferred = np.dtype(preferred)
    if dtype.kind != "f" and _type_rank(preferred)[3] < _type_rank(dtype)[3]:
        raise TypeError("`preferred_element_type` must not be narrower than the original type, "
                        f"got preferred_element_type of {preferred} for result type of "
                        f"{dtype}.")
    return preferred


def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers,
                               precision, preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {tuple(lb)} and rhs_batch {tuple(rb)}.")
    _check_dims_agree("lhs batch dimensions and rhs batch dimensions", lhs, rhs, lb, rb)
    _check_dims_agree("contracting dimensions", lhs, rhs, lc, rc)
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb))
             + tuple(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
    dtype = _dot_general_dtype(lhs, rhs, preferred_element_type)
    return ShapedArray(shape, dtype, standard_weak_type_rule(lhs, rhs))


def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding):
    """Move dims to (batch, free, contract) / (batch, contract, free), then one matmul."""
    (lc, rc), (lb, rb) = dimension_numbers
    lf, rf = _free_dims(lhs.ndim, lc, lb), _free_dims(rhs.ndim, rc, rb)
    out_dtype = _dot_general_dtype(core.get_aval(lhs), core.get_aval(rhs), preferred_element_type)
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


# ---------------------------------------------------------------- autodiff
# dot_general is bilinear. Its transposes are dot_generals too: contract the
# cotangent with the other operand over the free dimensions, then put the
# result's dimensions back in the operand's order (JAX's _dot_general_transpose_*).
def _ranges_like(*xs):
    start = 0
    for x in xs:
        x_len = len(x)
        yield range(start, start + x_len)
        start += x_len


def _remaining(original, *removed_lists):
    removed = set().union(*map(set, removed_lists))
    return [i for i in original if i not in removed]


def _dot_transpose_lhs(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding, swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_ndim = x.aval.ndim
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(np.ndim(y) if not ad.is_undefined_primal(y) else y.aval.ndim),
                        y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((list(ans_y), list(y_kept)), (list(ans_batch), list(y_batch)))
    x_contract_sorted_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    unsorted_axes = list(x_batch) + x_kept + x_contract_sorted_by_y
    out_axes = np.argsort(unsorted_axes)
    # NB: as in JAX, the product keeps the primal's preferred_element_type (None prints
    # nothing in the jaxpr) and is converted to x's dtype afterwards if it differs.
    x_bar = transpose(dot_general(ct, y, dims, precision, preferred_element_type,
                                  out_sharding=_laid_out_as(x.aval, unsorted_axes)),
                      tuple(int(i) for i in out_axes))
    if x_bar.dtype != x.aval.dtype:
        x_bar = convert_element_type(x_bar, x.aval.dtype)
    return x_bar


def _laid_out_as(aval: Any, axes: list) -> Any:
    """On a mesh, the cotangent of ``x`` is laid out as ``x`` is (JAX's transpose rule says
    so, where the product's own sharding rule could find the layout ambiguous: the
    contraction then runs over the dimension the batch was split along)."""
    sharding = getattr(aval, "sharding", None)
    if sharding is None:
        return None
    spec = sharding.spec.padded(aval.ndim)
    return sharding.with_spec(PartitionSpec(*[spec[a] for a in axes]))


def _dot_transpose_rhs(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return _dot_transpose_lhs(ct, y, x, dimension_numbers=swapped, precision=precision,
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding, swap_ans=True)


ad.defbilinear(dot_general_p, _dot_transpose_lhs, _dot_transpose_rhs)


def _dot_general_batch(args, dims, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding):
    """Both operands batched: the batch joins the batch dimensions, first, wherever it sits
    in each operand (as in JAX: nothing is transposed). One batched: the batch is a free
    dimension of that operand, and we work out where it lands."""
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    params = dict(precision=precision, preferred_element_type=preferred_element_type,
                  out_sharding=out_sharding)
    if ld is not None and rd is not None:
        l_up = lambda ds: tuple(d + (d >= ld) for d in ds)  # noqa: E731
        r_up = lambda ds: tuple(d + (d >= rd) for d in ds)  # noqa: E731
        new_dims = ((l_up(lc), r_up(rc)), ((ld, *l_up(lb)), (rd, *r_up(rb))))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=new_dims, **params), 0
    if ld is not None:
        up = lambda ds: tuple(d + (d >= ld) for d in ds)  # noqa: E731
        new_dims = ((up(lc), rc), (up(lb), rb))
        free = _free_dims(np.ndim(lhs), up(lc), up(lb))
        out_dim = len(lb) + free.index(ld)
    else:
        up = lambda ds: tuple(d + (d >= rd) for d in ds)  # noqa: E731
        new_dims = ((lc, up(rc)), (lb, up(rb)))
        lhs_free = _free_dims(np.ndim(lhs), lc, lb)
        free = _free_dims(np.ndim(rhs), up(rc), up(rb))
        out_dim = len(lb) + len(lhs_free) + free.index(rd)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=new_dims, **params), out_dim


batching.batching_rules[dot_general_p] = _dot_general_batch


# ---------------------------------------------------------------- the lax functions
def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((tuple(builtins.map(int, lc)), tuple(builtins.map(int, rc))),
            (tuple(builtins.map(int, lb)), tuple(builtins.map(int, rb))))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dims,
                              precision=canonicalize_precision(precision),
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix products of rank <= 2 operands."""
    lhs_ndim, rhs_ndim = np.ndim(lhs), np.ndim(rhs)
    if lhs_ndim in (1, 2) and rhs_ndim in (1, 2):
        dims = (([lhs_ndim - 1], [0]), ([], []))
        return dot_general(lhs, rhs, dims, precision, preferred_element_type)
    raise TypeError(f"Incompatible shapes for dot: got {np.shape(lhs)} and {np.shape(rhs)}.")
