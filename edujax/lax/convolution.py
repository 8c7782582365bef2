"""conv_general_dilated: every convolution (conv, conv_transpose, depthwise...) in one primitive.

A convolution slides a small kernel ``rhs`` over the input ``lhs`` and, at each position,
takes the dot product of the kernel with the window under it. XLA's version is very general:

* ``dimension_numbers`` says which dimension is which. Internally everything is thought of
  as ``lhs: (N batch, C features, spatial...)``, ``rhs: (O out features, I in features,
  spatial...)``, ``out: (N, C, spatial...)``; a ``ConvDimensionNumbers`` holds, for each of
  the three, the permutation that puts its dimensions in that canonical order.
* ``window_strides``: how far the window moves each step.
* ``padding``: ``(low, high)`` zeros added around each spatial dimension (negative crops).
* ``lhs_dilation``: zeros inserted *between* input elements (a "transposed convolution").
* ``rhs_dilation``: holes inserted between kernel elements (an "atrous convolution").
* ``feature_group_count = G``: the input features split into G groups, each convolved with
  its own slice of output features (G = C is a depthwise convolution).
* ``batch_group_count = B``: the same trick on the batch dimension (JAX uses it for the
  gradient of a grouped convolution with respect to the kernel).

A convolution is linear in ``lhs`` and in ``rhs`` separately, and both transposes are
convolutions again (the "gradient of a conv is a conv", as in JAX's
``_conv_general_dilated_transpose_lhs/rhs``).
"""
from __future__ import annotations

import itertools
import operator
from typing import Any, NamedTuple, Sequence, Union

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax.base import convert_element_type, reshape, transpose
from edujax.lax.precision import canonicalize_precision
from edujax.lax.registry import check_same_dtypes, standard_weak_type_rule
from edujax.lax.shape import rev


class ConvDimensionNumbers(NamedTuple):
    """Where (batch, feature, spatial...) live in lhs and out, (out, in, spatial...) in rhs."""
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


# ---------------------------------------------------------------- padding and shapes
def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """Turn 'VALID' / 'SAME' / 'SAME_LOWER' into explicit ``(low, high)`` pairs.

    'SAME' pads so that the output has ``ceil(in / stride)`` positions; an odd total goes
    to the high side ('SAME') or the low side ('SAME_LOWER').
    """
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("VALID", "SAME", "SAME_LOWER"):
            raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                               f"'SAME_LOWER', got {padding}.")
        if mode == "VALID":
            return [(0, 0)] * len(in_shape)
        out_shape = [-(-int(i) // int(s)) for i, s in zip(in_shape, window_strides)]
        totals = [max((o - 1) * s + w - i, 0) for o, s, w, i
                  in zip(out_shape, window_strides, window_shape, in_shape)]
        if mode == "SAME":
            return [(t // 2, t - t // 2) for t in totals]
        return [(t - t // 2, t // 2) for t in totals]
    raise TypeError(f"Unknown padding type: {padding}.")


def _dilate_shape(shape, dilation) -> tuple[int, ...]:
    """``d`` holes between elements: n elements take ``(n - 1) * d + 1`` places (0 stays 0)."""
    return tuple(0 if n == 0 else 1 + d * (n - 1) for n, d in zip(shape, dilation))


def _stride_dim(size: int, window: int, stride: int) -> int:
    """How many windows of ``window`` fit in ``size`` when stepping by ``stride``."""
    return max(0, (size - window) // stride + 1)


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution whose shapes are in canonical (N, C, spatial) order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    lhs_padded = np.add(lhs_shape[2:], np.sum(np.array(pads).reshape(-1, 2), axis=1))
    if np.any(lhs_padded < 0):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    # NB: NumPy integers, as JAX returns them (the padded sizes come from NumPy arithmetic)
    out_space = tuple(np.int64(_stride_dim(int(p), int(k), int(s)))
                      for p, k, s in zip(lhs_padded, rhs_shape[2:], strides))
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (int(batch), int(rhs_shape[0])) + out_space


def conv_general_permutations(dimension_numbers):
    """From ('NCHW', 'OIHW', 'NCHW')-style strings to the three permutations.

    The spatial dimensions are ordered as they appear in the rhs string, so that
    ``window_strides[0]`` goes with the first spatial letter of the kernel.
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = ("N", "C"), ("O", "I"), ("N", "C")
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - set(charpairs[0]) == set(rhs_spec) - set(charpairs[1])
            == set(out_spec) - set(charpairs[2])):
        raise TypeError("convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {dimension_numbers}.")

    def getperm(spec, charpair):
        spatial = [i for i, c in enumerate(spec) if c not in charpair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(charpair[0]), spec.index(charpair[1])) + tuple(spatial)

    return tuple(map(getperm, dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """None, three strings, or a ConvDimensionNumbers -> a ConvDimensionNumbers."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, (list, tuple)):
        if len(dimension_numbers) != 3:
            raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                            f"{len(dimension_numbers)}.")
        if not all(isinstance(elt, str) for elt in dimension_numbers):
            raise TypeError("convolution dimension_numbers elements must be strings, got "
                            f"{tuple(map(type, dimension_numbers))}.")
        for i, elt in enumerate(dimension_numbers):
            if len(elt) != len(lhs_shape):
                raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to "
                                f"the ndim of lhs and rhs, got {len(elt)} for lhs and rhs "
                                f"shapes {lhs_shape} and {rhs_shape}.")
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                    f"{type(dimension_numbers)}.")


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out_trans = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                                 window_strides, padding)
    return tuple(np.take(out_trans, np.argsort(out_perm)))


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """The padding of a transposed convolution, from the forward convolution's padding."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_trans, rhs_trans = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_trans[2:], window_strides)]
    padding = list(map(np.sum, padding))
    unpad = [(i - 1) * s - k + 2 for i, k, s in zip(lhs_trans[2:], rhs_trans[2:], window_strides)]
    out_space = np.sum([unpad, padding], axis=0).tolist()
    out_trans = tuple((lhs_trans[0], rhs_trans[0]) + tuple(out_space))
    return tuple(np.take(out_trans, np.argsort(out_perm)))


# ---------------------------------------------------------------- the primitive
def _conv_sdims(spec) -> tuple:
    return tuple(spec[2:])


def _check_groups(lhs: ShapedArray, rhs: ShapedArray, dn: ConvDimensionNumbers,
                  feature_group_count: int, batch_group_count: int) -> None:
    """JAX's checks on the group counts, with its messages."""
    if not feature_group_count > 0:
        raise ValueError("conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {feature_group_count}.")
    lhs_features, rhs_in = lhs.shape[dn.lhs_spec[1]], rhs.shape[dn.rhs_spec[1]]
    rhs_out = rhs.shape[dn.rhs_spec[0]]
    quot, rem = divmod(lhs_features, feature_group_count)
    if rem:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {feature_group_count} does not divide "
                         f"{lhs_features}.")
    if quot != rhs_in:
        raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                         "feature_group_count must equal the rhs input feature dimension "
                         f"size, but {lhs_features} // {feature_group_count} != {rhs_in}.")
    if rhs_out % feature_group_count:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {rhs_out} is not a multiple "
                         f"of {feature_group_count}.")
    if not batch_group_count > 0:
        raise ValueError("conv_general_dilated batch_group_count must be a positive "
                         f"integer, got {batch_group_count}.")
    lhs_batch = lhs.shape[dn.lhs_spec[0]]
    if batch_group_count > 1 and lhs_batch % batch_group_count:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {batch_group_count} does not divide "
                         f"{lhs_batch}.")
    if rhs_out % batch_group_count:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {rhs_out} is not a multiple "
                         f"of {batch_group_count}.")
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be > "
                         f"1, got batch_group_count={batch_group_count} and "
                         f"feature_group_count={feature_group_count}")


def _conv_shape_rule(lhs: ShapedArray, rhs: ShapedArray, *, window_strides, padding,
                     lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count,
                     batch_group_count, **_) -> tuple[int, ...]:
    dn = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    _check_groups(lhs, rhs, dn, feature_group_count, batch_group_count)
    if len(_conv_sdims(dn.rhs_spec)) != len(window_strides):
        raise ValueError("conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {len(_conv_sdims(dn.rhs_spec))} and "
                         f"{len(window_strides)}")
    lhs_trans = np.take(lhs.shape, dn.lhs_spec)
    rhs_trans = np.take(rhs.shape, dn.rhs_spec)
    lhs_trans = tuple(lhs_trans[:2]) + _dilate_shape(lhs_trans[2:], lhs_dilation)
    rhs_trans = tuple(rhs_trans[:2]) + _dilate_shape(rhs_trans[2:], rhs_dilation)
    out_trans = conv_shape_tuple(lhs_trans, rhs_trans, window_strides, padding,
                                 batch_group_count)
    return tuple(int(d) for d in np.take(out_trans, np.argsort(dn.out_spec)))


def _conv_dtype_rule(lhs: ShapedArray, rhs: ShapedArray, *, preferred_element_type,
                     **_) -> np.dtype:
    check_same_dtypes("conv_general_dilated", lhs, rhs)
    if preferred_element_type is None:
        return lhs.dtype
    return np.dtype(preferred_element_type)


def _conv_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, **params) -> ShapedArray:
    return ShapedArray(_conv_shape_rule(lhs, rhs, **params), _conv_dtype_rule(lhs, rhs, **params),
                       standard_weak_type_rule(lhs, rhs))


def _dilate_and_pad(x: np.ndarray, dilation, padding) -> np.ndarray:
    """Insert ``d - 1`` zeros between elements of each spatial axis (axes 2...), then pad
    with ``(low, high)`` zeros; a negative amount crops instead."""
    for axis, (d, (lo, hi)) in enumerate(zip(dilation, padding), start=2):
        n = x.shape[axis]
        if d > 1 and n > 0:
            shape = list(x.shape)
            shape[axis] = (n - 1) * d + 1
            dilated = np.zeros(shape, x.dtype)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, d)
            dilated[tuple(index)] = x
            x = dilated
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        crop = [slice(None)] * x.ndim
        crop[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(crop)]
    return x


def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count,
               preferred_element_type, **_):
    """The reference convolution: canonical layouts, then one small product per kernel tap.

    For each kernel position k (a tuple over the spatial dimensions) the input slab that
    tap touches, at every output position, is a strided slice of the padded input; the
    output is the sum over k of (slab . kernel[..., k]) contracted over input features.
    """
    dn = dimension_numbers
    out_aval = _conv_abstract_eval(core.get_aval(lhs), core.get_aval(rhs),
                                   window_strides=window_strides, padding=padding,
                                   lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                                   dimension_numbers=dn, feature_group_count=feature_group_count,
                                   batch_group_count=batch_group_count,
                                   preferred_element_type=preferred_element_type)
    x = np.transpose(np.asarray(lhs), dn.lhs_spec).astype(out_aval.dtype)  # N, C, spatial
    w = np.transpose(np.asarray(rhs), dn.rhs_spec).astype(out_aval.dtype)  # O, I, spatial
    x = _dilate_and_pad(x, lhs_dilation, padding)
    out_spatial = [out_aval.shape[d] for d in dn.out_spec[2:]]
    groups_b, groups_f = batch_group_count, feature_group_count
    n, c = x.shape[:2]
    o, i = w.shape[:2]
    # Split batch and features into their groups: x[(b, n), (g, c)], w[(b, g, o), c].
    xg = x.reshape((groups_b, n // groups_b, groups_f, c // groups_f, *x.shape[2:]))
    wg = w.reshape((groups_b, groups_f, o // (groups_b * groups_f), i, *w.shape[2:]))
    out = np.zeros((n // groups_b, groups_b, groups_f, o // (groups_b * groups_f),
                    *out_spatial), out_aval.dtype)
    for tap in itertools.product(*(range(k) for k in w.shape[2:])):
        index = [slice(None)] * 4
        for k, d, s, size in zip(tap, rhs_dilation, window_strides, out_spatial):
            start = k * d
            index.append(slice(start, start + (size - 1) * s + 1 if size else start, s))
        slab = xg[tuple(index)]
        out += np.einsum("bngc...,bgoc->nbgo...", slab, wg[(Ellipsis, *tap)])
    out = out.reshape((n // groups_b, o, *out_spatial))
    return np.transpose(out, np.argsort(dn.out_spec)).astype(out_aval.dtype, copy=False)


conv_general_dilated_p = Primitive("conv_general_dilated")
core.abstract_eval_rules[conv_general_dilated_p] = _conv_abstract_eval
core.impl_rules[conv_general_dilated_p] = _conv_impl


# ---------------------------------------------------------------- autodiff
# Moving a group axis between dimensions is a reshape (JAX's helpers of the same names).
def _reshape_axis_into(src: int, dst: int, x):
    """Merge axis ``src`` into axis ``dst`` (numbered after ``src`` is removed), major."""
    shape = np.shape(x)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = list(np.delete(shape, src))
    new_shape[dst] *= shape[src]
    return reshape(x, new_shape, perm)


def _reshape_axis_out_of(src: int, size1: int, x):
    """Split axis ``src`` into ``(size1, rest)``."""
    shape = list(np.shape(x))
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src:src + 1] = [size1, size2]
    return reshape(x, shape)


def _vjp_lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation,
                     rhs_dilation) -> list[tuple[int, int]]:
    lhs_d = _dilate_shape(in_shape, lhs_dilation)
    rhs_d = _dilate_shape(window, rhs_dilation)
    out_d = _dilate_shape(out_shape, strides)
    before = np.subtract(rhs_d, [lo for lo, _ in padding]) - 1
    after = np.add(lhs_d, rhs_d) - 1 - np.array(out_d) - before
    return [(int(b), int(a)) for b, a in zip(before, after)]


def _vjp_rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation,
                     rhs_dilation) -> list[tuple[int, int]]:
    if len(in_shape) == 0:
        return []
    lhs_d = _dilate_shape(in_shape, lhs_dilation)
    rhs_d = _dilate_shape(window, rhs_dilation)
    out_d = _dilate_shape(out_shape, strides)
    lows = [lo for lo, _ in padding]
    from_lhs = map(operator.sub, out_d, lhs_d)
    from_rhs = (rd - pd - 1 for rd, pd in zip(rhs_d, lows))
    return [(int(lo), int(a + b)) for lo, a, b in zip(lows, from_lhs, from_rhs)]


def _spec_transpose(spec) -> tuple:
    return (spec[1], spec[0]) + tuple(spec[2:])


def _conv_transpose_lhs(g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
    """d(lhs): convolve the cotangent with the spatially reversed kernel, in/out swapped.

    Strides become input dilation (each output position came from ``stride`` inputs
    apart) and input dilation becomes stride.
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_shape, lhs_shape = np.shape(rhs), lhs.aval.shape
    if feature_group_count > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], feature_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    elif batch_group_count > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], batch_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_group_count = batch_group_count
    trans_dn = ConvDimensionNumbers(out_spec, _spec_transpose(rhs_spec), lhs_spec)
    pads = _vjp_lhs_padding(np.take(lhs_shape, lhs_spec[2:]), np.take(rhs_shape, rhs_spec[2:]),
                            window_strides, np.take(np.shape(g), out_spec[2:]), padding,
                            lhs_dilation, rhs_dilation)
    revd = rev(rhs, rhs_spec[2:])
    out = conv_general_dilated(g, revd, window_strides=lhs_dilation, padding=pads,
                               lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
                               dimension_numbers=trans_dn,
                               feature_group_count=feature_group_count, batch_group_count=1,
                               precision=precision,
                               preferred_element_type=preferred_element_type)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    if out.dtype != lhs.aval.dtype:
        out = convert_element_type(out, lhs.aval.dtype)
    return out


def _conv_transpose_rhs(g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
    """d(rhs): convolve the input with the cotangent, treating batch as the contracted
    "feature" dimension (feature groups become batch groups and vice versa)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape = np.shape(lhs), rhs.aval.shape
    if batch_group_count > 1:
        feature_group_count, batch_group_count = batch_group_count, 1
    elif feature_group_count > 1:
        feature_group_count, batch_group_count = 1, feature_group_count
    trans_dn = ConvDimensionNumbers(_spec_transpose(lhs_spec), _spec_transpose(out_spec),
                                    _spec_transpose(rhs_spec))
    pads = _vjp_rhs_padding(np.take(lhs_shape, lhs_spec[2:]), np.take(rhs_shape, rhs_spec[2:]),
                            window_strides, np.take(np.shape(g), out_spec[2:]), padding,
                            lhs_dilation, rhs_dilation)
    out = conv_general_dilated(lhs, g, window_strides=rhs_dilation, padding=pads,
                               lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
                               dimension_numbers=trans_dn,
                               feature_group_count=feature_group_count,
                               batch_group_count=batch_group_count, precision=precision,
                               preferred_element_type=preferred_element_type)
    if out.dtype != rhs.aval.dtype:
        out = convert_element_type(out, rhs.aval.dtype)
    return out


ad.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)


# ---------------------------------------------------------------- batching
def _conv_batch(args, dims, *, dimension_numbers, feature_group_count, batch_group_count,
                **params):
    """vmap folds the new axis into an existing one (JAX's rule, minus sharding):

    * only lhs batched: into lhs's batch dimension N (more images, same kernel);
    * only rhs batched: into rhs's output features O (more kernels);
    * both batched: lhs's into its features C, as extra feature groups, and rhs's into O,
      so that each example's images meet only that example's kernels.
    """
    (lhs, rhs), (lb, rb) = args, dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    conv = lambda x, y, fg, bg: conv_general_dilated_p.bind(  # noqa: E731
        x, y, dimension_numbers=dimension_numbers, feature_group_count=fg,
        batch_group_count=bg, **params)
    if lb is not None and rb is not None:
        size = np.shape(lhs)[lb]
        if batch_group_count > 1:
            new_lhs = _reshape_axis_into(lb, lhs_spec[0], lhs)
            batch_group_count *= size
        else:
            new_lhs = _reshape_axis_into(lb, lhs_spec[1], lhs)
            feature_group_count *= size
        new_rhs = _reshape_axis_into(rb, rhs_spec[0], rhs)
        out = conv(new_lhs, new_rhs, feature_group_count, batch_group_count)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    if lb is not None:
        size = np.shape(lhs)[lb]
        if batch_group_count == 1:
            new_lhs = _reshape_axis_into(lb, lhs_spec[0], lhs)
        else:
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(lb <= lhs_spec[0]),
                                           batch_group_count, lhs)
            new_lhs = _reshape_axis_into(lb + int(lhs_spec[0] < lb), lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = conv(new_lhs, rhs, feature_group_count, batch_group_count)
        return _reshape_axis_out_of(out_spec[0], size, out), out_spec[0]
    size = np.shape(rhs)[rb]
    if feature_group_count == 1 and batch_group_count == 1:
        new_rhs = _reshape_axis_into(rb, rhs_spec[0], rhs)
        out = conv(lhs, new_rhs, 1, 1)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    groups = feature_group_count if feature_group_count > 1 else batch_group_count
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(rb <= rhs_spec[0]), groups, rhs)
    new_rhs = _reshape_axis_into(rb + int(rhs_spec[0] < rb), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = conv(lhs, new_rhs, feature_group_count, batch_group_count)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


batching.batching_rules[conv_general_dilated_p] = _conv_batch


# ---------------------------------------------------------------- the lax functions
def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int],
                         padding: str | Sequence[tuple[int, int]],
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision=None, preferred_element_type=None, out_sharding=None):
    """General n-dimensional convolution with optional dilations (see the module docstring)."""
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    if lhs_dilation is None:
        lhs_dilation = (1,) * (len(lhs_shape) - 2)
    elif isinstance(padding, str) and not len(lhs_dilation) == list(lhs_dilation).count(1):
        raise ValueError("String padding is not implemented for transposed convolution using "
                         "this op. Please either exactly specify the required padding or use "
                         "conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (len(rhs_shape) - 2)
    if isinstance(padding, str):
        kernel = np.take(rhs_shape, dn.rhs_spec)[2:]
        padding = padtype_to_pads(np.take(lhs_shape, dn.lhs_spec)[2:],
                                  _dilate_shape(kernel, rhs_dilation), window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError("padding argument to conv_general_dilated should be a string or a "
                             f"sequence of (low, high) pairs, got {padding}") from e
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=dn, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count, out_sharding=out_sharding,
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type)


def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision=None,
         preferred_element_type=None):
    """A plain NCHW/OIHW convolution: ``conv_general_dilated`` with the defaults."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_transpose(lhs, rhs, strides: Sequence[int], padding,
                   rhs_dilation: Sequence[int] | None = None,
                   dimension_numbers: ConvGeneralDilatedDimensionNumbers = None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):
    """The "transposed" (fractionally strided) convolution: the strides become input
    dilation. Defaults to TensorFlow's layouts (NHWC, HWIO)."""
    ndims = len(np.shape(lhs))
    assert ndims == len(np.shape(rhs)) and ndims >= 2
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}
        if ndims not in defaults:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndims]
    dn = conv_dimension_numbers(np.shape(lhs), np.shape(rhs), dimension_numbers)
    k_sdims = np.take(np.shape(rhs), dn.rhs_spec)[2:]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndims - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        effective = _dilate_shape(k_sdims, rhs_dilation)
        per_dim = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(int(k), s, p)
                     for k, s, p in zip(effective, strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ndims))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = transpose(rhs, perm)
    one = (1,) * (ndims - 2)
    return conv_general_dilated(lhs, rhs, one, pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)

