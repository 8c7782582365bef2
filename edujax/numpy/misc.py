"""The rest of jax.numpy's small functions, grouped by what they do:

* building arrays: block, diagflat, geomspace, logspace, copy, resize, frombuffer,
  fromstring, fromfile/fromiter (refused, as in JAX), load/save/savez;
* rearranging: rollaxis, dsplit, partition, argpartition, lexsort, cross;
* writing into copies: fill_diagonal, place, put (``inplace=False`` is required: JAX
  arrays are immutable);
* matrix-vector products: matvec, vecmat;
* comparing and printing: array_equiv, array_repr, array_str;
* bits: bitwise_count, packbits, unpackbits.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from edujax import dtypes, lax
from edujax.vmap import vmap
from edujax.numpy import reductions
from edujax.numpy.creation import arange, array, asarray, linspace, zeros, zeros_like
from edujax.numpy.functional import vectorize
from edujax.inner_jit import inner_jit
from edujax.numpy.index_tricks import diag_indices, unravel_index
from edujax.numpy.products import matmul
from edujax.numpy.shape_ops import (_split, concatenate, moveaxis, ravel, reshape, swapaxes, tile)
from edujax.numpy.sorting import argsort
from edujax.numpy.ufuncs import (_where, bitwise_and, clip, equal, left_shift, log10, power,
                                 sign)
from edujax.numpy.util import (canonicalize_axis, check_arraylike, ensure_array, ensure_arraylike,
                               promote_args_numeric)


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _to_inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else dtypes.float_dtype()


# ---------------------------------------------------------------- building arrays
@inner_jit
def block(arrays: Any) -> Any:
    """An array assembled from nested lists of blocks: the innermost lists are joined
    along the last axis, the next level along the one before, and so on."""
    out, _ = _block(arrays)
    return out


def _block(xs: Any) -> tuple[Any, int]:
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if isinstance(xs, list):
        if len(xs) == 0:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        blocks, depths = zip(*[_block(x) for x in xs])
        if any(d != depths[0] for d in depths[1:]):
            raise ValueError("Mismatched list depths in jax.numpy.block")
        rank = max(depths[0], max(np.ndim(x) for x in blocks))
        blocks = [_atleast_nd(x, rank) for x in blocks]
        return concatenate(blocks, axis=-depths[0]), depths[0] + 1
    return asarray(xs), 1


def _atleast_nd(x: Any, n: int) -> Any:
    missing = n - np.ndim(x)
    return lax.broadcast(x, (1,) * missing) if missing > 0 else asarray(x)


def diagflat(v: Any, k: int = 0) -> Any:
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal."""
    check_arraylike("diagflat", v)
    v_ravel = ravel(v)
    adj_length = v_ravel.shape[0] + abs(k)
    res = zeros(adj_length * adj_length, dtype=v_ravel.dtype)
    i = arange(0, adj_length - abs(k))
    fi = i + k + i * adj_length if k >= 0 else i + (i - k) * adj_length
    return res.at[fi].set(v_ravel).reshape(adj_length, adj_length)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:
    """``base ** linspace(start, stop, num)``: evenly spaced on a log scale."""
    num = operator.index(num)
    axis = operator.index(axis)
    dtype = (_to_inexact(dtypes.result_type(start, stop)) if dtype is None
             else dtypes.canonicalize_dtype(dtype))
    computation_dtype = _to_inexact(dtype)
    start, stop = ensure_arraylike("logspace", start, stop)
    start = lax.convert_element_type(start, computation_dtype)
    stop = lax.convert_element_type(stop, computation_dtype)
    lin = linspace(start, stop, num, endpoint=endpoint, retstep=False, dtype=None, axis=axis)
    return lax.convert_element_type(power(base, lin), dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:
    """Evenly spaced on a log scale between ``start`` and ``stop`` themselves (a
    geometric progression); both must have the same sign."""
    num = operator.index(num)
    dtype = (_to_inexact(dtypes.result_type(start, stop)) if dtype is None
             else dtypes.canonicalize_dtype(dtype))
    computation_dtype = _to_inexact(dtype)
    start, stop = ensure_arraylike("geomspace", start, stop)
    start = lax.convert_element_type(start, computation_dtype)
    stop = lax.convert_element_type(stop, computation_dtype)
    s = sign(start)
    res = s * logspace(log10(start / s), log10(stop / s), num, endpoint=endpoint, base=10.0,
                       dtype=computation_dtype, axis=0)
    axis = canonicalize_axis(axis, np.ndim(res))
    if axis != 0:
        res = moveaxis(res, 0, axis)
    return lax.convert_element_type(res, dtype)


def copy(a: Any, order: str | None = None) -> Any:
    """A copy of ``a`` (JAX arrays are immutable, so this is rarely needed)."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order)


@inner_jit(static_argnames=("new_shape",))
def resize(a: Any, new_shape: Any) -> Any:
    """``a`` flattened, repeated as often as needed, cut and reshaped to ``new_shape``."""
    check_arraylike("resize", a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(
        operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(a)
    new_size = math.prod(new_shape)
    if arr.size == 0 or new_size == 0:
        return zeros_like(arr, shape=new_shape)
    repeats = -(-new_size // arr.size)
    return reshape(tile(arr, repeats)[:new_size], new_shape)


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """An array from the bytes of ``buffer`` (NumPy reads them, then they are copied)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """An array from numbers written in ``string``, separated by ``sep``."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


_IMPURE = ("jnp.{0}() is not implemented because it may be non-pure and thus unsafe for use "
           "with JIT and other JAX transformations. Consider using jnp.asarray(np.{0}(...)) "
           "instead, although care should be taken if np.{0} is used within a jax "
           "transformations because of its potential side-effect of consuming the {1}; for more "
           "information see https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
           "#pure-functions")


def fromiter(*args: Any, **kwargs: Any) -> Any:
    """Refused, as in JAX: consuming an iterator is a side effect (see the message)."""
    raise NotImplementedError(_IMPURE.format("fromiter", "iterable object"))


def fromfile(*args: Any, **kwargs: Any) -> Any:
    """Refused, as in JAX: reading a file is a side effect (see the message)."""
    raise NotImplementedError(_IMPURE.format("fromfile", "file object"))


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """NumPy's ``load``, giving an edujax Array for a single array."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        try:
            out = asarray(out)
        except (TypeError, AssertionError):
            pass
    return out


save, savez = np.save, np.savez


# ---------------------------------------------------------------- rearranging
@inner_jit(static_argnames=("axis", "start"))
def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """Move ``axis`` to the position before ``start`` (``moveaxis`` is clearer)."""
    a = ensure_array("rollaxis", a)
    start = operator.index(start)
    a_ndim = np.ndim(a)
    axis = canonicalize_axis(axis, a_ndim)
    if not -a_ndim <= start <= a_ndim:
        raise ValueError(f"{start=} must satisfy {-a_ndim}<=start<={a_ndim}")
    if start < 0:
        start += a_ndim
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
    """``split`` along the third axis (depth)."""
    return _split("dsplit", ary, indices_or_sections, axis=2)


@inner_jit(static_argnames=("kth", "axis"))
def partition(a: Any, kth: int, axis: int = -1) -> Any:
    """``a`` rearranged so that position ``kth`` holds the value it would have sorted,
    smaller values before it and larger after.

    As JAX does it, with two ``lax.top_k``: the ``kth + 1`` smallest (the largest of the
    negated values, ascending once negated back), then the others, largest first."""
    arr, = ensure_arraylike("partition", a)
    if _dtype(arr).kind == "c":
        raise NotImplementedError("jnp.partition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, np.ndim(arr))
    kth = canonicalize_axis(kth, arr.shape[axis])
    arr = arr.swapaxes(axis, -1)
    if _dtype(arr).kind == "u":  # shifted by one, so that negating 0 does not wrap around
        bottom = -lax.top_k(-(arr + 1), kth + 1)[0] - 1
    else:
        bottom = -lax.top_k(-arr, kth + 1)[0]
    top = lax.top_k(arr, arr.shape[-1] - kth - 1)[0]
    out = lax.concatenate([bottom, top], dimension=arr.ndim - 1)
    return out.swapaxes(-1, axis)


@inner_jit(static_argnames=("kth", "axis"))
def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
    """The indices that would ``partition`` ``a``: those of the ``kth + 1`` smallest first
    (in sorted order), then the others.

    As JAX does it: ``top_k`` of the negated values finds the bottom indices; the others
    are found as the top of a proxy array, ones with zeros written at the bottom indices
    (so that equal values cannot be picked twice)."""
    arr, = ensure_arraylike("partition", a)
    if _dtype(arr).kind == "c":
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, np.ndim(arr))
    kth = canonicalize_axis(kth, arr.shape[axis])
    arr = arr.swapaxes(axis, -1)
    if _dtype(arr).kind == "u":
        bottom_ind = lax.top_k(-(arr + 1), kth + 1)[1]
    else:
        bottom_ind = lax.top_k(-arr, kth + 1)[1]

    def set_to_zero(a, i):
        return a.at[i].set(0)
    for _ in range(arr.ndim - 1):
        set_to_zero = vmap(set_to_zero)
    proxy = set_to_zero(lax.full(arr.shape, 1.0), bottom_ind)
    top_ind = lax.top_k(proxy, arr.shape[-1] - kth - 1)[1]
    out = lax.concatenate([bottom_ind, top_ind], dimension=arr.ndim - 1)
    return out.swapaxes(-1, axis)


@inner_jit(static_argnames=("axis",))
def lexsort(keys: Sequence[Any], axis: int = -1) -> Any:
    """Indices that sort by several keys: by the *last* key, ties broken by the one
    before, and so on (one multi-key ``lax.sort``)."""
    key_arrays = [ensure_array("lexsort", k) for k in ensure_arraylike("lexsort", *keys)]
    if len(key_arrays) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({np.shape(key) for key in key_arrays}) > 1:
        raise ValueError("all keys need to be the same shape")
    if np.ndim(key_arrays[0]) == 0:
        return lax.full((), 0, dtypes.int_dtype())
    axis = canonicalize_axis(axis, np.ndim(key_arrays[0]))
    iota = lax.broadcasted_iota(dtypes.int_dtype(), np.shape(key_arrays[0]), axis)
    return lax.sort((*key_arrays[::-1], iota), dimension=axis, num_keys=len(key_arrays))[-1]


@inner_jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    """The cross product of (stacks of) 2- or 3-vectors; 2-vectors get a zero third
    component, and two 2-vectors give the scalar z-component."""
    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else zeros_like(b0)
    c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return moveaxis(c, 0, axisc)


# ---------------------------------------------------------------- writing into copies
def _tile_to_size(arr: Any, size: int) -> Any:
    """``arr`` repeated and cut to exactly ``size`` elements."""
    n = arr.shape[0]
    if n < size:
        arr = tile(arr, -(-size // n))
    return arr[:size] if arr.shape[0] > size else arr


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """A copy of ``a`` with ``val`` on its main diagonal."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = (ensure_array("fill_diagonal", x) for x in ensure_arraylike("fill_diagonal", a, val))
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    idx = diag_indices(n, a.ndim)
    return a.at[idx].set(val if val.ndim == 0 else _tile_to_size(ravel(val), n))


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """A copy of ``arr`` with the positions where ``mask`` holds filled, in order, with
    ``vals`` (repeated if too short)."""
    data, mask_arr, vals_arr = (ensure_array("place", x)
                                for x in ensure_arraylike("place", arr, mask, vals))
    vals_arr = ravel(vals_arr)
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    if data.size != mask_arr.size:
        raise ValueError("place: arr and mask must be the same size")
    if not vals_arr.size:
        raise ValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    # positions of the True entries first, in order (a stable sort), the others dropped
    flat_mask = ravel(mask_arr) != 0
    order = argsort(lax.bitwise_not(flat_mask))
    indices = _where(flat_mask[order], order, flat_mask.size)
    vals_arr = _tile_to_size(vals_arr, indices.shape[0])
    return ravel(data).at[indices].set(vals_arr, mode="drop").reshape(data.shape)


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
    """A copy of ``a`` with the flat positions ``ind`` set to ``v`` (repeated if too
    short); out-of-range indices are dropped, clipped or wrapped according to ``mode``."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    arr, ind_arr, _ = (ensure_array("put", x) for x in ensure_arraylike("put", a, ind, v))
    ind_arr = ravel(ind_arr)
    v_arr = ravel(v)
    if not arr.size or not ind_arr.size or not v_arr.size:
        return arr
    v_arr = _tile_to_size(v_arr, ind_arr.shape[0])
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind_arr = clip(ind_arr, 0, arr.size - 1)
        scatter_mode = "promise_in_bounds"
    elif mode == "wrap":
        ind_arr = ind_arr % arr.size
        scatter_mode = "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return arr.at[unravel_index(ind_arr, arr.shape)].set(v_arr, mode=scatter_mode)


# ---------------------------------------------------------------- products, comparisons
@inner_jit
def matvec(x1: Any, x2: Any, /) -> Any:
    """Matrix times vector, batched over leading axes (``(..., n, m) @ (..., m)``)."""
    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


@inner_jit
def vecmat(x1: Any, x2: Any, /) -> Any:
    """Vector times matrix, batched over leading axes (``(..., n) @ (..., n, m)``)."""
    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(x1, x2)


def array_equiv(a1: Any, a2: Any) -> Any:
    """True if the arrays broadcast together and are equal everywhere."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = equal(a1, a2)
    except ValueError:
        return array(False)
    return reductions.all(eq)


def array_repr(arr: Any, max_line_width: int | None = None, precision: int | None = None,
               suppress_small: bool | None = None) -> str:
    """NumPy's ``array_repr`` (JAX re-exports NumPy's: it names the array's class)."""
    return np.array_repr(asarray(arr), max_line_width, precision, suppress_small)


def array_str(a: Any, max_line_width: int | None = None, precision: int | None = None,
              suppress_small: bool | None = None) -> str:
    """NumPy's ``array_str`` of the array's values."""
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)




# ---------------------------------------------------------------- bits
@inner_jit
def bitwise_count(x: Any, /) -> Any:
    """The number of 1 bits in ``|x|``, as uint8 (as NumPy: the absolute value's bits)."""
    x, = promote_args_numeric("bitwise_count", x)
    return lax.population_count(abs(x)).astype("uint8")


@inner_jit(static_argnames=("axis", "bitorder"))
def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """Pack the truth values of ``a`` into bytes, 8 per uint8 (padding with 0 bits)."""
    arr = ensure_array("packbits", a)
    if _dtype(arr).kind not in "iub":
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ["little", "big"]:
        raise ValueError("'order' must be either 'little' or 'big'")
    arr = lax.convert_element_type(lax.ne(arr, np.zeros((), _dtype(arr))[()]), np.uint8)
    bits = arange(8, dtype=np.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    remainder = arr.shape[-1] % 8
    if remainder:
        arr = lax.pad(arr, np.uint8(0), (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - remainder, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    bits = lax.expand_dims(bits, tuple(range(arr.ndim - 1)))
    # (the sum of uint8s is a uint32, as in NumPy; then cast back)
    packed = reductions.sum(left_shift(arr, bits), axis=-1).astype(np.uint8)
    return swapaxes(packed, axis, -1)


@inner_jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:
    """Unpack each uint8 of ``a`` into its 8 bits (0 or 1), most significant first
    unless ``bitorder="little"``."""
    arr = ensure_array("unpackbits", a)
    if _dtype(arr) != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ["little", "big"]:
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = left_shift(np.uint8(1), arange(8, dtype=np.uint8))
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    unpacked = lax.convert_element_type(bitwise_and(arr[..., None], bits) > 0, np.uint8)
    unpacked = unpacked.reshape(unpacked.shape[:-2] + (-1,))
    if count is not None:
        if count > unpacked.shape[-1]:
            unpacked = lax.pad(unpacked, np.uint8(0), (unpacked.ndim - 1) * [(0, 0, 0)]
                               + [(0, count - unpacked.shape[-1], 0)])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)
