"""More of jax.lax's surface: approximate top-k, reduce_precision, image patches, and
small helpers (dtype, broadcast_like) and enums.

* ``approx_max_k`` / ``approx_min_k``: on a TPU these trade exactness for speed; on a
  CPU XLA computes them exactly, and so do we (the ``approx_top_k`` primitive).
* ``reduce_precision(x, exponent_bits, mantissa_bits)``: round a float to a narrower
  format (e.g. 5 + 10 bits is float16) but keep its dtype: the way to *simulate*
  low-precision arithmetic.
* ``conv_general_dilated_patches``: every window of an image, laid out along the
  feature dimension, computed as a convolution with an identity kernel.
"""
from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Sequence, Union

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax import elementwise as ew
from edujax.lax.base import (asarray, broadcast_in_dim, convert_element_type, full_like,
                             reduce_sum, reshape, transpose)
from edujax.lax.convolution import conv_dimension_numbers, conv_general_dilated
from edujax.lax.dot import dot_general
from edujax.lax.extras import _canonicalize_axis, _top_k_impl, _top_k_jvp
from edujax.lax.precision import DotAlgorithm, DotAlgorithmPreset, Precision
from edujax.lax.reduce_precision import reduce_precision, reduce_precision_p  # noqa: F401
from edujax.lax.reductions import cumsum
from edujax.lax.shape import broadcasted_iota


# ---------------------------------------------------------------- enums
class RandomAlgorithm(enum.IntEnum):
    """The bit generators ``rng_bit_generator`` can use."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:  # as JAX: jaxprs print algorithm=RNG_DEFAULT
        return self.name


class AccuracyMode(enum.Enum):
    """The ``accuracy`` request of transcendental functions (accelerator hint)."""
    HIGHEST = 1
    DEFAULT = 2


# ---------------------------------------------------------------- approx_top_k
def _approx_top_k_abstract_eval(operand: ShapedArray, *, k, reduction_dimension, recall_target,
                                is_max_k, reduction_input_size_override, aggregate_to_topk):
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if len(operand.shape) == 0:
        raise TypeError("approx_top_k operand must have >= 1 dimension, got {}".format(
            operand.shape))
    axis = _canonicalize_axis(reduction_dimension, operand.ndim)
    if k > operand.shape[axis]:
        raise ValueError("k must be smaller than the size of reduction_dim "
                         f"{operand.shape[axis]}, got {k}")
    shape = list(operand.shape)
    shape[axis] = k
    return [ShapedArray(tuple(shape), operand.dtype, operand.weak_type),
            ShapedArray(tuple(shape), np.dtype(np.int32))]


def _approx_top_k_impl(x, *, k, reduction_dimension, is_max_k, **_):
    """Exact, as XLA is on a CPU: top_k of x (or of -x, for the smallest)."""
    x = np.asarray(x)
    axis = _canonicalize_axis(reduction_dimension, x.ndim)
    if is_max_k:
        return _top_k_impl(x, k=k, axis=axis)
    order = np.argsort(x, axis=axis, kind="stable")
    index = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, index, axis=axis), index.astype(np.int32)]


approx_top_k_p = Primitive("approx_top_k")
approx_top_k_p.multiple_results = True
core.abstract_eval_rules[approx_top_k_p] = _approx_top_k_abstract_eval
core.impl_rules[approx_top_k_p] = _approx_top_k_impl


def _approx_top_k_jvp(primals, tangents, **params):
    """Like top_k's: the outputs are copies of inputs, so are their tangents. We reuse
    top_k's rule by asking it for the tangent at the indices we found."""
    (x,), (t,) = primals, tangents
    values, indices = approx_top_k_p.bind(x, **params)
    axis = _canonicalize_axis(params["reduction_dimension"], np.ndim(x))
    # the k smallest of x are the k largest of -x (ties go to the lower index either way)
    chooser = x if params["is_max_k"] else ew.neg(x)
    _, (t_out, _) = _top_k_jvp((chooser,), (t,), k=params["k"], axis=axis)
    return [values, indices], [t_out, ad.Zero.from_value(indices)]


ad.jvp_rules[approx_top_k_p] = _approx_top_k_jvp


def _approx_top_k_batch(args, dims, *, reduction_dimension, **params):
    (x,), (b,) = args, dims
    axis = _canonicalize_axis(reduction_dimension, np.ndim(x) - 1)
    return (approx_top_k_p.bind(x, reduction_dimension=axis + (b <= axis), **params), [b, b])


batching.batching_rules[approx_top_k_p] = _approx_top_k_batch


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The k largest along ``reduction_dimension`` and their indices (exact on CPU)."""
    return approx_top_k_p.bind(operand, k=k, reduction_dimension=reduction_dimension,
                               recall_target=recall_target, is_max_k=True,
                               reduction_input_size_override=reduction_input_size_override,
                               aggregate_to_topk=aggregate_to_topk)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The k smallest along ``reduction_dimension`` and their indices (exact on CPU)."""
    return approx_top_k_p.bind(operand, k=k, reduction_dimension=reduction_dimension,
                               recall_target=recall_target, is_max_k=False,
                               reduction_input_size_override=reduction_input_size_override,
                               aggregate_to_topk=aggregate_to_topk)


# ---------------------------------------------------------------- image patches
def conv_general_dilated_patches(lhs, filter_shape: Sequence[int], window_strides: Sequence[int],
                                 padding, lhs_dilation=None, rhs_dilation=None,
                                 dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """Each output position's receptive field, flattened into the feature dimension
    (channel-major: all of channel 0's window, then channel 1's...).

    A convolution with a one-hot kernel: output feature ``(c, p)`` copies input channel c
    at window position p. ``feature_group_count = channels`` keeps the channels apart.
    """
    lhs = asarray(lhs)
    filter_shape = tuple(filter_shape)
    dn = conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = dn
    spatial_size = math.prod(filter_shape)
    n_channels = lhs.shape[lhs_spec[1]]
    eye = convert_element_type(ew.eq(broadcasted_iota(np.int32, (spatial_size,) * 2, 0),
                                     broadcasted_iota(np.int32, (spatial_size,) * 2, 1)),
                               lhs.dtype)
    rhs = broadcast_in_dim(eye, (n_channels, spatial_size, spatial_size), (1, 2))
    rhs = reshape(rhs, (n_channels * spatial_size, 1, *filter_shape))
    rhs = transpose(rhs, _moveaxis_perm(rhs.ndim, (0, 1), (rhs_spec[0], rhs_spec[1])))
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                dn, precision=precision, feature_group_count=n_channels,
                                preferred_element_type=preferred_element_type)


def _moveaxis_perm(ndim: int, src: Sequence[int], dst: Sequence[int]) -> list[int]:
    """The permutation ``np.moveaxis(x, src, dst)`` applies."""
    perm = [d for d in range(ndim) if d not in src]
    for s, d in sorted(zip(src, dst), key=lambda p: p[1]):
        perm.insert(d, s)
    return perm


# ---------------------------------------------------------------- helpers
def dtype(x: Any) -> np.dtype:
    """The (canonical) dtype of a value, a type or a dtype name: ``lax.dtype(1.0)`` is
    float32 (float64 under x64)."""
    return dtypes.dtype_and_weak(x)[0]


def broadcast_like(arr, like_arr):
    """``arr`` broadcast to the shape of ``like_arr`` (NumPy's rules: trailing dimensions
    line up, size-1 dimensions stretch)."""
    shape, ndim = tuple(np.shape(like_arr)), np.ndim(arr)
    if tuple(np.shape(arr)) == shape:
        return asarray(arr)
    return broadcast_in_dim(arr, shape, tuple(range(len(shape) - ndim, len(shape))))


def conv_general_dilated_local(lhs, rhs, window_strides: Sequence[int], padding,
                               filter_shape: Sequence[int], lhs_dilation=None,
                               rhs_dilation=None, dimension_numbers=None, precision=None):
    """An *unshared* convolution (a locally connected layer): every output position has
    its own kernel. ``rhs`` holds them all: its spatial dimensions are the output's and
    its feature dimension ``I`` is a flattened (channel, window) patch.

    Computed as JAX does: extract the patches, then one dot_general that contracts the
    patch dimension and pairs output positions (batch dimensions of the product).
    """
    lhs = asarray(lhs)
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers)
    _, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, (1, 1) + tuple(filter_shape),
                                                   dimension_numbers)
    lhs_b_dims, rhs_b_dims = list(out_spec[2:]), list(rhs_spec[2:])
    rhs_b_dims = [rhs_b_dims[i] for i in sorted(range(len(rhs_b_dims)),
                                                key=lambda k: lhs_b_dims[k])]
    lhs_b_dims = sorted(lhs_b_dims)
    dn = (([out_spec[1]], [rhs_spec[1]]), (lhs_b_dims, rhs_b_dims))
    out = dot_general(patches, rhs, dn, precision=precision)
    # dot_general puts the (spatial) batch dimensions first, then lhs's N, then rhs's O
    ndim = out.ndim
    return transpose(out, _moveaxis_perm(ndim, (ndim - 2, ndim - 1),
                                         (out_spec[0], out_spec[1])))


# Type aliases JAX exports for annotations.
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]


# ---------------------------------------------------------------- ragged_dot
def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """A grouped matrix product (mixture-of-experts layers): the rows of ``lhs`` (m, k)
    come in consecutive groups of ``group_sizes`` rows, and group g is multiplied by
    ``rhs[g]`` (k, n). Rows after the last group give zeros.

    NB: written with other lax functions (JAX has a ``ragged_dot_general`` primitive):
    every row is multiplied by every group's matrix and a mask keeps its own group's
    product. Simple, differentiable, and g times the work of the real thing.
    """
    if group_offset is not None:
        raise NotImplementedError("ragged_dot: group_offset is not implemented in edujax")
    lhs, rhs, group_sizes = asarray(lhs), asarray(rhs), asarray(group_sizes)
    (m, _), g = lhs.shape, rhs.shape[0]
    if group_sizes.shape != (g,):
        raise TypeError(f"expected rhs group dimension size to be {group_sizes.shape[0]}, "
                        f"got {g}.")
    # every row times every group's matrix: (m, g, n)
    products = dot_general(lhs, rhs, (([1], [1]), ([], [])), precision=precision,
                           preferred_element_type=preferred_element_type)
    ends = cumsum(convert_element_type(group_sizes, np.int32))
    starts = ew.sub(ends, convert_element_type(group_sizes, np.int32))
    row = broadcasted_iota(np.int32, (m, g), 0)
    mine = ew.bitwise_and(ew.ge(row, broadcast_in_dim(starts, (m, g), (1,))),
                          ew.lt(row, broadcast_in_dim(ends, (m, g), (1,))))
    mine = broadcast_in_dim(mine, products.shape, (0, 1))
    kept = ew.select(mine, products, full_like(products, 0))
    return reduce_sum(kept, (1,))


class Tolerance:
    """The accuracy asked of a unary function (``lax.exp(x, accuracy=...)``): at most two of
    atol, rtol, ulps. An accelerator hint; edujax computes the same values either way."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError('Tolerances must be non-negative.')
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError('At least one of atol, rtol, or ulps must be set.')
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


@dataclasses.dataclass(frozen=True, init=False)
class RaggedDotDimensionNumbers:
    """Which dimensions of a ``ragged_dot_general`` are contracted/batched
    (``dot_dimension_numbers``), which lhs dimension is cut into groups
    (``lhs_ragged_dimensions``) and which rhs dimension indexes the groups
    (``rhs_group_dimensions``)."""
    dot_dimension_numbers: Any
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, 'dot_dimension_numbers',
                           tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, 'lhs_ragged_dimensions', tuple(lhs_ragged_dimensions))
        object.__setattr__(self, 'rhs_group_dimensions', tuple(rhs_group_dimensions))


_BASIC_RAGGED = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
_CONTRACTING_RAGGED = RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """``ragged_dot`` with its dimensions named. edujax knows JAX's two 2-D modes:

    * ragged non-contracting (``ragged_dot``'s): lhs (m, k), rhs (g, k, n) -> (m, n);
    * ragged contracting: lhs (m, k), rhs (k, n), the k rows in groups -> (g, m, n),
      group g's product uses only its own slice of k.

    NB: other dimension numbers (batch dimensions, other positions) raise
    NotImplementedError here; JAX handles them."""
    dn = ragged_dot_dimension_numbers
    if dn == _BASIC_RAGGED:
        return ragged_dot(lhs, rhs, group_sizes, precision, preferred_element_type,
                          group_offset)
    if dn != _CONTRACTING_RAGGED or group_offset is not None:
        raise NotImplementedError(f"ragged_dot_general: edujax only knows {_BASIC_RAGGED} and "
                                  f"{_CONTRACTING_RAGGED} (without group_offset)")
    lhs, rhs, group_sizes = asarray(lhs), asarray(rhs), asarray(group_sizes)
    (m, k), g = lhs.shape, group_sizes.shape[0]
    ends = cumsum(convert_element_type(group_sizes, np.int32))
    starts = ew.sub(ends, convert_element_type(group_sizes, np.int32))
    col = broadcasted_iota(np.int32, (g, k), 1)
    mine = ew.bitwise_and(ew.ge(col, broadcast_in_dim(starts, (g, k), (0,))),
                          ew.lt(col, broadcast_in_dim(ends, (g, k), (0,))))
    stacked = broadcast_in_dim(lhs, (g, m, k), (1, 2))  # one copy of lhs per group
    masked = ew.select(broadcast_in_dim(mine, (g, m, k), (0, 2)), stacked,
                       full_like(stacked, 0))
    return dot_general(masked, rhs, (([2], [0]), ([], [])), precision=precision,
                       preferred_element_type=preferred_element_type)
