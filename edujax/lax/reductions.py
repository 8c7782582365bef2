"""Reductions (sum, max, argmax...), cumulative reductions and sort.

A reduction removes the dimensions listed in ``axes``. Integer sums wrap around
on overflow exactly like XLA (NumPy would promote to int64, so we pass dtype=).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.lax.registry import checked_dtype_rule, first_input_weak_type_rule, standard_primitive

ANY, NUMBER = "biufc", "iufc"


def _reduce_shape_rule(x: ShapedArray, *, axes, **params) -> tuple[int, ...]:
    if any(not 0 <= a < x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} out of range for operand of rank {x.ndim}")
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def reduction(name: str, np_fn, kinds: str) -> Primitive:
    def impl(x, *, axes, **params):
        return np_fn(x, axis=tuple(axes), dtype=x.dtype) if axes else x
    return standard_primitive(name, _reduce_shape_rule, partial(checked_dtype_rule, name, kinds),
                              impl, weak_type_rule=first_input_weak_type_rule)


def _np_reduce(ufunc):
    """np.max & co. take no dtype= argument; the result keeps the input dtype anyway."""
    return lambda x, axis, dtype: ufunc.reduce(x, axis=axis) if x.size or ufunc.identity \
        is not None else ufunc.reduce(x, axis=axis, initial=_lowest(ufunc, x.dtype))


def _lowest(ufunc, dtype):
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    if ufunc is np.maximum:
        return -np.inf if dtype.kind == "f" else info.min
    return np.inf if dtype.kind == "f" else info.max


reduce_sum_p = reduction("reduce_sum", np.sum, NUMBER)  # params: axes, out_sharding
reduce_prod_p = reduction("reduce_prod", np.prod, NUMBER)
reduce_max_p = reduction("reduce_max", _np_reduce(np.maximum), ANY)
reduce_min_p = reduction("reduce_min", _np_reduce(np.minimum), ANY)
reduce_and_p = reduction("reduce_and", lambda x, axis, dtype: np.logical_and.reduce(x, axis),
                         "b")
reduce_or_p = reduction("reduce_or", lambda x, axis, dtype: np.logical_or.reduce(x, axis), "b")
reduce_xor_p = reduction("reduce_xor", lambda x, axis, dtype: np.logical_xor.reduce(x, axis),
                         "b")


# ---------------------------------------------------------------- argmax / argmin
# NaN counts as the largest (argmax) and smallest (argmin) value, as in NumPy.
def _arg_shape_rule(x: ShapedArray, *, axes, index_dtype) -> tuple[int, ...]:
    if x.shape[axes[0]] == 0:
        raise ValueError("argmin and argmax require non-empty reduced dimension. "
                         f"operand.shape={x.shape} axes={axes}")
    return _reduce_shape_rule(x, axes=axes)


def arg_reduction(name: str, np_fn) -> Primitive:
    return standard_primitive(
        name, _arg_shape_rule, lambda x, *, axes, index_dtype: np.dtype(index_dtype),
        lambda x, *, axes, index_dtype: np_fn(x, axis=axes[0]).astype(index_dtype),
        weak_type_rule=lambda x, **p: False)


argmax_p = arg_reduction("argmax", np.argmax)
argmin_p = arg_reduction("argmin", np.argmin)


# ---------------------------------------------------------------- cumulative reductions
def cumulative(name: str, np_fn) -> Primitive:
    def impl(x, *, axis, reverse):
        if reverse:
            return np.flip(np_fn(np.flip(x, axis), axis), axis).astype(x.dtype)
        return np_fn(x, axis).astype(x.dtype)
    return standard_primitive(name, lambda x, **p: x.shape,
                              partial(checked_dtype_rule, name, NUMBER), impl,
                              weak_type_rule=first_input_weak_type_rule)


cumsum_p = cumulative("cumsum", lambda x, axis: np.cumsum(x, axis, dtype=x.dtype))
cumprod_p = cumulative("cumprod", lambda x, axis: np.cumprod(x, axis, dtype=x.dtype))
cummax_p = cumulative("cummax", lambda x, axis: np.maximum.accumulate(x, axis))
cummin_p = cumulative("cummin", lambda x, axis: np.minimum.accumulate(x, axis))
cumlogsumexp_p = cumulative("cumlogsumexp", lambda x, axis: np.logaddexp.accumulate(x, axis))


# ---------------------------------------------------------------- sort
# sort takes several operands and sorts them all by the first ``num_keys`` of
# them (lexicographically); jnp.argsort sorts (x, iota) and keeps the second.
def _sort_abstract_eval(*xs: ShapedArray, dimension, is_stable, num_keys):
    if any(x.shape != xs[0].shape for x in xs):
        raise TypeError("sort operands must all have the same shape, got "
                        f"{', '.join(str(x.shape) for x in xs)}")
    return list(xs)


def _sort_impl(*xs, dimension, is_stable, num_keys):
    keys = [np.moveaxis(k, dimension, -1) for k in xs[:num_keys]]
    order = np.lexsort(keys[::-1], axis=-1) if num_keys > 1 else \
        np.argsort(keys[0], axis=-1, kind="stable")
    return [np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), order, -1), -1,
                        dimension) for x in xs]


sort_p = Primitive("sort")
sort_p.multiple_results = True
core.abstract_eval_rules[sort_p] = _sort_abstract_eval
core.impl_rules[sort_p] = _sort_impl


