"""reduce_window: reduce every (strided, padded, dilated) window of an array to one value.

This is pooling: ``reduce_window(x, -inf, lax.max, (2, 2), (2, 2), 'VALID')`` is a 2x2 max
pool. The window slides over the operand exactly as a convolution's kernel does (same
``padding``, ``window_strides``, ``base_dilation`` = a convolution's ``lhs_dilation``,
``window_dilation`` = its ``rhs_dilation``), but instead of a dot product it reduces.

As in JAX, the three common monoids get primitives of their own, which know their
derivatives: ``reduce_window_sum`` (linear: its transpose pads the cotangent and sums
windows again), ``reduce_window_max`` and ``reduce_window_min`` (the tangent of each
window is the tangent of the element that won). Any other computation (a Python function
of two scalars) is traced to a jaxpr and carried by the generic ``reduce_window``.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Sequence

import numpy as np

from edujax import core, tree_util
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import eval_jaxpr
from edujax.lax import elementwise as ew
from edujax.lax.base import broadcast_in_dim, full, full_like, reduce_sum
from edujax.lax.convolution import _dilate_shape, _stride_dim, _vjp_lhs_padding, padtype_to_pads
from edujax.lax.reductions import argmax
from edujax.lax.registry import first_input_weak_type_rule, standard_primitive
from edujax.lax.shape import broadcasted_iota, pad, slice as lax_slice, stack


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple[int, ...]:
    """How many windows fit along each dimension."""
    if base_dilation is not None:
        operand_shape = _dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate_shape(window_dimensions, window_dilation)
    padded = tuple(d + lo + hi for d, (lo, hi) in zip(operand_shape, padding))
    return tuple(_stride_dim(p, w, s) for p, w, s in zip(padded, window_dimensions,
                                                        window_strides))


def _check_shapelike(name: str, arg: str, obj, non_zero: bool = False) -> None:
    if any(int(d) < 0 or (non_zero and int(d) == 0) for d in obj):
        kind = "strictly positive" if non_zero else "nonnegative"
        raise TypeError(f"{name} {arg} must have every element be {kind}, got {tuple(obj)}.")


def _window_shape_rule(operand: ShapedArray, *, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation, **_) -> tuple[int, ...]:
    _check_shapelike("reduce_window", "window_dimensions", window_dimensions, True)
    _check_shapelike("reduce_window", "window_strides", window_strides, True)
    if operand.ndim != len(window_dimensions):
        raise TypeError("reduce_window got the wrong number of window_dimensions for operand: "
                        f"got operand shape {operand.shape} with window_dimensions "
                        f"{window_dimensions}.")
    if len(window_strides) != len(window_dimensions):
        raise TypeError("reduce_window got inconsistent window_strides and window_dimensions: "
                        f"got window_strides {window_strides} and window_dimensions "
                        f"{window_dimensions}.")
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides,
                                     padding, base_dilation, window_dilation)


# ---------------------------------------------------------------- NumPy: the windows
def _padded(x: np.ndarray, fill, padding, base_dilation) -> np.ndarray:
    """The operand as the windows see it: ``base_dilation - 1`` fill values between
    elements, then ``(low, high)`` fill values around (negative amounts crop)."""
    x = np.asarray(x)
    for axis, (d, (lo, hi)) in enumerate(zip(base_dilation, padding)):
        n = x.shape[axis]
        if d > 1 and n > 0:
            shape = list(x.shape)
            shape[axis] = (n - 1) * d + 1
            dilated = np.full(shape, fill, x.dtype)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, d)
            dilated[tuple(index)] = x
            x = dilated
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths, constant_values=fill)
        crop = [slice(None)] * x.ndim
        crop[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(crop)]
    return x


def _taps(x: np.ndarray, out_shape, window_dimensions, window_strides, window_dilation):
    """For each position inside the window, the array of the elements it sees in every
    window: a strided slice of the padded operand, of the output's shape."""
    for tap in itertools.product(*(range(w) for w in window_dimensions)):
        yield x[tuple(slice(k * d, k * d + (n - 1) * s + 1 if n else k * d, s)
                      for k, d, s, n in zip(tap, window_dilation, window_strides, out_shape))]


def _monoid_impl(ufunc, identity: Callable, x, *, window_dimensions, window_strides, padding,
                 base_dilation, window_dilation):
    x = np.asarray(x)
    out_shape = reduce_window_shape_tuple(x.shape, window_dimensions, window_strides, padding,
                                          base_dilation, window_dilation)
    fill = identity(x.dtype)
    out = np.full(out_shape, fill, x.dtype)
    for tap in _taps(_padded(x, fill, padding, base_dilation), out_shape, window_dimensions,
                     window_strides, window_dilation):
        out = ufunc(out, tap).astype(x.dtype, copy=False)
    return out


def _lowest(dtype: np.dtype):
    if dtype.kind == "b":
        return False
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype: np.dtype):
    if dtype.kind == "b":
        return True
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _window_primitive(name: str, ufunc, identity: Callable) -> Primitive:
    def impl(x, **params):
        return _monoid_impl(ufunc, identity, x, **params)
    return standard_primitive(name, _window_shape_rule, lambda x, **_: x.dtype, impl,
                              weak_type_rule=first_input_weak_type_rule)


reduce_window_sum_p = _window_primitive("reduce_window_sum", np.add,
                                        lambda dtype: np.zeros((), dtype))
reduce_window_max_p = _window_primitive("reduce_window_max", np.maximum, _lowest)
reduce_window_min_p = _window_primitive("reduce_window_min", np.minimum, _highest)


# ---------------------------------------------------------------- derivatives
def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    """Each input element was added into every window covering it, so its cotangent is
    the sum of those windows' cotangents: spread the cotangent out (strides become holes),
    pad it, and take window sums again (JAX's rule)."""
    input_shape = operand.aval.shape
    pads = _vjp_lhs_padding(input_shape, window_dimensions, window_strides, np.shape(ct),
                            padding, base_dilation, window_dilation)
    # NB: JAX's pads here are NumPy integers (it does not convert them, as its conv rules
    # do), so its jaxprs print them as np.int64(1); we keep them so too.
    config = [(np.int64(lo), np.int64(hi), s - 1) for (lo, hi), s in zip(pads, window_strides)]
    padded = pad(ct, np.zeros((), ct.dtype), config)
    result = _reduce_window_sum(padded, window_dimensions, base_dilation,
                                [(0, 0)] * len(input_shape), [1] * len(input_shape),
                                window_dilation)
    return [result]


ad.deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


def _window_slabs(x, fill, out_shape, *, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation) -> list:
    """The lax version of ``_taps``: for each window position, the slice of (padded) ``x``
    it sees. Built from pad and slice, so it has every rule. ``fill`` pads: a number, or
    the (scalar) init value itself."""
    config = [(lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation)]
    if isinstance(fill, (int, float, bool, np.generic)):
        fill = np.array(fill, np.dtype(x.dtype))
    padded = pad(x, fill, config)
    slabs = []
    for tap in itertools.product(*(range(w) for w in window_dimensions)):
        # (an empty output dimension takes an empty slice from 0)
        start = [k * d if n else 0 for k, d, n in zip(tap, window_dilation, out_shape)]
        limit = [st + (n - 1) * s + 1 if n else 0 for st, n, s in zip(start, out_shape,
                                                                      window_strides)]
        slabs.append(lax_slice(padded, start, limit, window_strides))
    return slabs


def _window_taps(x, fill, out_shape, **params):
    """All of ``_window_slabs`` stacked along a new axis 0."""
    return stack(_window_slabs(x, fill, out_shape, **params), 0)


def _chooser_jvp(identity: Callable, primals, tangents, **params):
    """max/min pooling: the output's tangent is the tangent of the element that won its
    window (the first one, if several tie). In one-hot form: stack every window position,
    find the winner's position, keep the tangent there and sum."""
    (x,), (t,) = primals, tangents
    prim = reduce_window_max_p if identity is _lowest else reduce_window_min_p
    out = prim.bind(x, **params)
    if type(t) is ad.Zero:
        return out, ad.Zero.from_value(out)
    out_shape = np.shape(out)
    values = _window_taps(x, identity(np.dtype(x.dtype)), out_shape, **params)
    chooser = ew.neg if identity is _highest else (lambda v: v)
    winner = argmax(chooser(values), 0, np.int32)
    position = broadcasted_iota(np.int32, np.shape(values), 0)
    hit = ew.eq(position, broadcast_in_dim(winner, np.shape(values),
                                           tuple(range(1, len(np.shape(values))))))
    t_values = _window_taps(t, 0, out_shape, **params)
    return out, reduce_sum(ew.select(hit, t_values, full_like(t_values, 0)), (0,))


ad.jvp_rules[reduce_window_max_p] = lambda primals, tangents, **params: _chooser_jvp(
    _lowest, primals, tangents, **params)
ad.jvp_rules[reduce_window_min_p] = lambda primals, tangents, **params: _chooser_jvp(
    _highest, primals, tangents, **params)


# ---------------------------------------------------------------- batching
def _window_batch(prim: Primitive, args, dims, *, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation):
    """The batch axis gets a window of size 1, stride 1, no padding: untouched."""
    (x,), (b,) = args, dims
    ins = lambda t, v: t[:b] + (v,) + t[b:]  # noqa: E731
    return prim.bind(x, window_dimensions=ins(tuple(window_dimensions), 1),
                     window_strides=ins(tuple(window_strides), 1),
                     padding=ins(tuple(padding), (0, 0)),
                     base_dilation=ins(tuple(base_dilation), 1),
                     window_dilation=ins(tuple(window_dilation), 1)), b


for _prim in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    batching.batching_rules[_prim] = (
        lambda prim: lambda args, dims, **params: _window_batch(prim, args, dims, **params))(_prim)


# ---------------------------------------------------------------- the generic reduce_window
def _generic_abstract_eval(*avals, jaxpr, consts, window_dimensions, window_strides, padding,
                           base_dilation, window_dilation):
    n = len(avals) // 2
    operands, inits = avals[:n], avals[n:]
    if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[o.dtype for o in operands]} and init_value "
                        f"dtypes {[i.dtype for i in inits]}.")
    if any(i.shape for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    shape = _window_shape_rule(operands[0], window_dimensions=window_dimensions,
                               window_strides=window_strides, padding=padding,
                               base_dilation=base_dilation, window_dilation=window_dilation)
    return [ShapedArray(shape, o.dtype, o.weak_type) for o in operands]


def _generic_impl(*args, jaxpr, consts, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation):
    """Start every window at the init values and fold in its elements one at a time.

    Window positions that fall on padding (or on the holes of a base dilation) are
    *skipped*, as XLA does: the init value is only the starting point, which matters
    when it is not the computation's identity.

    NB: the computation was traced on scalars, so its jaxpr holds elementwise operations
    only; we run it on whole arrays (one element per window) instead of window by window.
    """
    n = len(args) // 2
    operands, inits = [np.asarray(a) for a in args[:n]], args[n:]
    out_shape = reduce_window_shape_tuple(operands[0].shape, window_dimensions, window_strides,
                                          padding, base_dilation, window_dilation)
    accs = [np.full(out_shape, i, o.dtype) for o, i in zip(operands, inits)]
    where = (window_dimensions, window_strides, window_dilation)
    tap_lists = [_taps(_padded(o, i, padding, base_dilation), out_shape, *where)
                 for o, i in zip(operands, inits)]
    real = _taps(_padded(np.ones(operands[0].shape, bool), False, padding, base_dilation),
                 out_shape, *where)
    with core.set_current_trace(core.eval_trace):
        for is_real, *taps in zip(real, *tap_lists):
            outs = eval_jaxpr(jaxpr, list(consts), *accs, *taps)
            accs = [np.where(is_real, np.asarray(new, o.dtype), acc)
                    for new, acc, o in zip(outs, accs, operands)]
    return accs


reduce_window_p = Primitive("reduce_window")
reduce_window_p.multiple_results = True
core.abstract_eval_rules[reduce_window_p] = _generic_abstract_eval
core.impl_rules[reduce_window_p] = _generic_impl


def _generic_batch(args, dims, *, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation, **params):
    n = len(args) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for "
                                  "initial values")
    size = next(np.shape(a)[d] for a, d in zip(args, dims) if d is not None)
    operands = [batching.bdim_at_front(a, d, size) for a, d in zip(args[:n], dims[:n])]
    outs = reduce_window_p.bind(
        *operands, *args[n:], window_dimensions=(1, *window_dimensions),
        window_strides=(1, *window_strides), padding=((0, 0), *padding),
        base_dilation=(1, *base_dilation), window_dilation=(1, *window_dilation), **params)
    return outs, [0] * n


batching.batching_rules[reduce_window_p] = _generic_batch


def _generic_jvp(primals, tangents, *, jaxpr, consts, **params):
    """Unroll the fold over window positions, one ``jvp`` of the computation each, on
    whole arrays (one element per window), as ``lax.reduce``'s JVP does over elements.

    NB: JAX has this forward mode but cannot transpose it (its grad raises); this one
    is built from primitives that transpose, so reverse mode works too.
    """
    n = len(primals) // 2
    operands, inits = list(primals[:n]), list(primals[n:])
    if any(type(t) is not ad.Zero for t in tangents[n:]):
        raise NotImplementedError("reduce_window JVP with non-zero tangents for the initial "
                                  "values is not implemented")
    t_operands = [ad.instantiate_zeros(t) for t in tangents[:n]]
    out_shape = reduce_window_shape_tuple(np.shape(operands[0]), **params)
    slabs = [_window_slabs(o, i, out_shape, **params) for o, i in zip(operands, inits)]
    t_slabs = [_window_slabs(t, 0, out_shape, **params) for t in t_operands]
    accs = [broadcast_in_dim(i, out_shape, ()) for i in inits]
    t_accs = [ad.zeros_like_aval(ShapedArray(out_shape, np.dtype(o.dtype))) for o in operands]

    real = _window_slabs(full(np.shape(operands[0]), True, np.bool_), False, out_shape,
                         **params)

    def step(*args):
        return eval_jaxpr(jaxpr, list(consts), *args)

    for k in range(len(slabs[0])):
        new, t_new = ad.jvp_flat(step, [*accs, *[s[k] for s in slabs]],
                                 [*t_accs, *[t[k] for t in t_slabs]])
        accs = [ew.select(real[k], a, b) for a, b in zip(new, accs)]   # skip the padding
        t_accs = [ew.select(real[k], a, b) for a, b in zip(t_new, t_accs)]
    return accs, t_accs


ad.jvp_rules[reduce_window_p] = _generic_jvp


# ---------------------------------------------------------------- the lax functions
def _reduce_window_sum(operand, window_dimensions, window_strides, padding, base_dilation,
                       window_dilation):
    return reduce_window_sum_p.bind(
        operand, window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides), padding=tuple(tuple(p) for p in padding),
        base_dilation=tuple(base_dilation), window_dilation=tuple(window_dilation))


def _monoid_reducer(computation: Callable, inits: list) -> Primitive | None:
    """``lax.add`` from 0, ``lax.max`` from -inf, ``lax.min`` from +inf: a known monoid."""
    if len(inits) != 1 or isinstance(inits[0], core.Tracer) or np.shape(inits[0]) != ():
        return None
    value = np.asarray(inits[0])
    if computation is ew.add and value == 0:
        return reduce_window_sum_p
    if computation is ew.max and value == _lowest(value.dtype):
        return reduce_window_max_p
    if computation is ew.min and value == _highest(value.dtype):
        return reduce_window_min_p
    return None


def reduce_window(operand: Any, init_value: Any, computation: Callable,
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  padding: str | Sequence[tuple[int, int]] = "VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """Reduce each window with ``computation``, starting from ``init_value`` (which, like
    the operand, may be a pytree of arrays reduced together)."""
    flat_operands, operand_tree = tree_util.tree_flatten(operand)
    flat_inits, init_tree = tree_util.tree_flatten(init_value)
    if operand_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{operand_tree} vs. {init_tree}")
    if not flat_operands:
        raise ValueError("reduce_window must have at least one operand.")
    if isinstance(padding, str):
        window = (window_dimensions if window_dilation is None
                  else _dilate_shape(window_dimensions, window_dilation))
        padding = tuple(padtype_to_pads(np.shape(flat_operands[0]), window,
                                        window_strides or [], padding))
    else:
        padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    ones = (1,) * len(window_dimensions)
    params = dict(window_dimensions=tuple(window_dimensions),
                  window_strides=tuple(window_strides or ones), padding=padding,
                  base_dilation=tuple(base_dilation or ones),
                  window_dilation=tuple(window_dilation or ones))
    prim = _monoid_reducer(computation, flat_inits)
    if prim is not None:
        return prim.bind(flat_operands[0], **params)
    avals = [core.get_aval(i) for i in flat_inits]

    def traced(*args):
        accs = tree_util.tree_unflatten(init_tree, list(args[:len(avals)]))
        xs = tree_util.tree_unflatten(init_tree, list(args[len(avals):]))
        out, out_tree = tree_util.tree_flatten(computation(accs, xs))
        return out, out_tree

    closed, out_tree = trace_to_jaxpr(traced, avals + avals)
    if operand_tree != out_tree:
        raise ValueError("reduce_window output must have the same tree structure as the "
                         f"operands {operand_tree} vs. {out_tree}")
    outs = reduce_window_p.bind(*flat_operands, *flat_inits, jaxpr=closed.jaxpr,
                                consts=tuple(closed.consts), **params)
    return tree_util.tree_unflatten(operand_tree, outs)
