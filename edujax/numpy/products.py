"""Products: dot, matmul (@), vdot, vecdot, inner, outer, tensordot, kron.

All of them become ``lax.dot_general``, told which dimensions to *contract*
(multiply and sum over) and which are *batch* dimensions (matched one to one,
like a loop over matrices). The operands are not converted first: dot_general
takes, say, an int32 and a float32 matrix as they are and is asked for a
float32 result (``preferred_element_type``), so the jaxpr shows one equation.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from edujax.sharding.named_sharding import as_named_sharding
from edujax import core, dtypes, lax
from edujax.inner_jit import inner_jit
from edujax.numpy.shape_ops import expand_dims, moveaxis, ravel, reshape
from edujax.numpy.ufuncs import multiply
from edujax.numpy.util import broadcast_to
from edujax.numpy.util import (asarray, broadcast_shapes, canonicalize_axis, check_arraylike,
                               ensure_arraylike, promote_dtypes)


def _ensure_arrays(name: str, *args: Any) -> list:
    return ensure_arraylike(name, *args)


def _result_type(preferred_element_type: Any, *args: Any) -> tuple[np.dtype, bool]:
    """The dtype asked of dot_general, and whether the result stays weakly typed
    (only when every operand was, e.g. ``jnp.dot(2, 3.5)``)."""
    if preferred_element_type is None:
        return dtypes.result_type(*args, return_weak_type_flag=True)
    return dtypes.canonicalize_dtype(preferred_element_type), False


def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None,
        out_sharding: Any = None) -> Any:
    """NumPy's dot: a scalar operand multiplies; otherwise contract a's last axis with
    b's last axis (1-D b) or second-to-last axis. Integers wrap around on overflow."""
    a, b = _ensure_arrays("dot", a, b)
    dtype, weak = _result_type(preferred_element_type, a, b)
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    if a_ndim == 0 or b_ndim == 0:
        contract = ((), ())
    else:
        contract = ((a_ndim - 1,), (0 if b_ndim == 1 else b_ndim - 2,))
    if out_sharding is not None:  # a NamedSharding, or a PartitionSpec under set_mesh
        out = lax.dot_general(a, b, (contract, ((), ())), precision, dtype,
                              out_sharding=as_named_sharding(out_sharding))
    else:
        out = lax.dot_general(a, b, (contract, ((), ())), precision, dtype)
    return lax._convert_element_type(out, dtype, weak)


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None,
           out_sharding: Any = None) -> Any:
    """``a @ b`` with NumPy's rules: 1-D operands are vectors, and the leading
    dimensions are batch dimensions that broadcast against each other.

    Each leading dimension becomes one of: a batch dimension of dot_general (both
    sizes agree), a free dimension of one operand (the other has no such
    dimension, or has size 1 there and is squeezed), or, when both have size 1,
    it is squeezed from both and put back at the end.
    """
    a, b = _ensure_arrays("matmul", a, b)
    for i, x in enumerate((a, b)):
        if np.ndim(x) < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             f"ndim {np.ndim(x)}")
    dtype, weak = _result_type(preferred_element_type, a, b)
    a_is_mat, b_is_mat = np.ndim(a) > 1, np.ndim(b) > 1
    a_batch = np.shape(a)[:-2] if a_is_mat else ()
    b_batch = np.shape(b)[:-2] if b_is_mat else ()
    n = max(len(a_batch), len(b_batch))
    a_batch = (None,) * (n - len(a_batch)) + a_batch
    b_batch = (None,) * (n - len(b_batch)) + b_batch

    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_bdims, b_bdims = [], []
    # Where each kind of dimension must go in the final output, in dot_general's order.
    idx_batch, idx_a_other, idx_b_other = [], [], []
    for i, (ba, bb) in enumerate(zip(a_batch, b_batch)):
        if ba is None:
            idx_b_other.append(i)
        elif bb is None:
            idx_a_other.append(i)
        elif ba == 1 and bb == 1:
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif ba == 1:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif bb == 1:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif ba == bb:
            a_bdims.append(len(idx_batch) + len(idx_a_other))
            b_bdims.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {_type_str(a)} and "
                             f"{_type_str(b)}")
    if a_is_mat:
        idx_a_other.append(n)
    if b_is_mat:
        idx_b_other.append(n + a_is_mat)
    perm = np.argsort(np.array(idx_batch + idx_a_other + idx_b_other, dtype=int))

    a, b = lax.squeeze(a, a_squeeze), lax.squeeze(b, b_squeeze)
    contract = ((np.ndim(a) - 1,), (np.ndim(b) - 1 - b_is_mat,))
    if out_sharding is not None:  # a NamedSharding, or a PartitionSpec under set_mesh
        out_sharding = as_named_sharding(out_sharding)
    out = lax.dot_general(a, b, (contract, (a_bdims, b_bdims)), precision, dtype,
                          out_sharding=out_sharding)
    out = lax.transpose(out, tuple(int(p) for p in perm))
    if both_squeeze:
        out = lax.expand_dims(out, both_squeeze)
    return lax._convert_element_type(out, dtype, weak)


def _type_str(x: Any) -> str:
    """``float32[2,3]``: how JAX names an array's type in error messages."""
    return core.get_aval(x).str_short()


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """The dot product of the flattened arrays."""
    a, b = _ensure_arrays("vdot", a, b)
    if dtypes.dtype_and_weak(a)[0].kind == "c":  # vdot conjugates its first argument
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
    """Dot products of vectors along ``axis``, broadcasting over the other axes."""
    x1, x2 = _ensure_arrays("jnp.vecdot", x1, x2)
    if np.shape(x1)[axis] != np.shape(x2)[axis]:
        raise ValueError(f"axes must match; got shapes {np.shape(x1)} and {np.shape(x2)} with "
                         f"axis={axis}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    batch = broadcast_shapes(np.shape(x1)[:-1], np.shape(x2)[:-1])
    x1 = broadcast_to(x1, batch + np.shape(x1)[-1:])
    x2 = broadcast_to(x2, batch + np.shape(x2)[-1:])
    dtype, weak = _result_type(preferred_element_type, x1, x2)
    batch_dims = tuple(range(len(batch)))
    out = lax.dot_general(x1, x2, (((len(batch),), (len(batch),)), (batch_dims, batch_dims)),
                          precision, dtype)
    return lax._convert_element_type(out, dtype, weak)


def tensordot(a: Any, b: Any, axes: Any = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """Contract ``axes``: an int n (a's last n axes with b's first n), or a pair
    ``(a_axes, b_axes)`` of ints or of sequences of ints."""
    a, b = _ensure_arrays("tensordot", a, b)
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    dtype, weak = _result_type(preferred_element_type, a, b)
    if type(axes) is int:
        if axes > min(a_ndim, b_ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({np.shape(a)} and {np.shape(b)})")
        contract = (tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        contract = _tensordot_axes_pair(axes, a_ndim, b_ndim)
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                        "lists/tuples of ints.")
    out = lax.dot_general(a, b, (contract, ((), ())), precision, dtype)
    return lax._convert_element_type(out, dtype, weak)


def _tensordot_axes_pair(axes: Any, a_ndim: int, b_ndim: int) -> tuple:
    ax1, ax2 = axes
    if isinstance(ax1, int) and isinstance(ax2, int):
        return (canonicalize_axis(ax1, a_ndim),), (canonicalize_axis(ax2, b_ndim),)
    if isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
        if len(ax1) != len(ax2):
            raise TypeError(f"tensordot requires axes lists to have equal length, got {ax1} "
                            f"and {ax2}.")
        return (tuple(canonicalize_axis(i, a_ndim) for i in ax1),
                tuple(canonicalize_axis(i, b_ndim) for i in ax2))
    raise TypeError("tensordot requires both axes lists to be either ints, tuples or lists, "
                    f"got {ax1} and {ax2}")


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Contract the last axes of a and b (a scalar operand multiplies)."""
    a, b = _ensure_arrays("inner", a, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        if preferred_element_type is not None:
            a = lax.convert_element_type(a, preferred_element_type)
            b = lax.convert_element_type(b, preferred_element_type)
        return multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


def outer(a: Any, b: Any, out: None = None) -> Any:
    """``outer(a, b)[i, j] = a[i] * b[j]`` for the flattened inputs: a column times a row."""
    a, b = _ensure_arrays("outer", a, b)
    a, b = promote_dtypes(a, b)
    a, b = ravel(a), ravel(b)
    column = lax.broadcast_in_dim(a, (np.shape(a)[0], 1), (0,))
    row = lax.broadcast_in_dim(b, (1, np.shape(b)[0]), (1,))
    return multiply(column, row)


@inner_jit
def kron(a: Any, b: Any) -> Any:
    """The Kronecker product: every element of ``a`` times the whole of ``b``.

    Interleave size-1 axes (a gets them at odd positions, b at even ones), multiply
    with broadcasting, and merge each pair of axes.
    """
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(asarray(a), asarray(b))
    if np.ndim(a) < np.ndim(b):
        a = expand_dims(a, tuple(range(np.ndim(b) - np.ndim(a))))
    elif np.ndim(b) < np.ndim(a):
        b = expand_dims(b, tuple(range(np.ndim(a) - np.ndim(b))))
    a_spread = expand_dims(a, tuple(range(1, 2 * np.ndim(a), 2)))
    b_spread = expand_dims(b, tuple(range(0, 2 * np.ndim(b), 2)))
    out_shape = tuple(operator.mul(x, y) for x, y in zip(np.shape(a), np.shape(b)))
    return reshape(lax.mul(a_spread, b_spread), out_shape)


__all__ = ["dot", "matmul", "vdot", "vecdot", "inner", "outer", "tensordot", "kron"]
