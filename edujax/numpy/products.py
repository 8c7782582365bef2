"""Products: dot, matmul (@), vdot, inner, outer, tensordot. All become lax.dot_general.

dot_general is told which dimensions to *contract* (multiply and sum over) and
which are *batch* dimensions (matched one to one, like a loop over matrices).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax.numpy.util import asarray, check_arraylike, promote_dtypes


def _promote(name: str, a: Any, b: Any) -> tuple[Any, Any, np.dtype]:
    check_arraylike(name, a, b)
    a, b = (asarray(x) for x in promote_dtypes(a, b))
    return a, b, a.dtype


def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """NumPy's dot: scalars multiply; otherwise contract a's last axis with b's
    last (1-D b) or second-to-last axis."""
    a, b, dtype = _promote("dot", a, b)
    out_type = preferred_element_type or dtype
    if a.ndim == 0 or b.ndim == 0:
        return lax.mul(a, b)
    contract_b = 0 if b.ndim == 1 else b.ndim - 2
    return lax.dot_general(a, b, (([a.ndim - 1], [contract_b]), ([], [])), precision, out_type)


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``a @ b`` with NumPy's rules: 1-D operands are vectors, leading dimensions are
    batch dimensions that broadcast (a batch size of 1 stretches)."""
    a, b, dtype = _promote("matmul", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: a and b must have rank >= 1, got a.ndim={a.ndim} and "
                         f"b.ndim={b.ndim}")
    a_is_mat, b_is_mat = a.ndim > 1, b.ndim > 1
    a_batch = a.shape[:-2] if a_is_mat else ()
    b_batch = b.shape[:-2] if b_is_mat else ()
    n = max(len(a_batch), len(b_batch))
    a_batch = (None,) * (n - len(a_batch)) + a_batch
    b_batch = (None,) * (n - len(b_batch)) + b_batch
    a_squeeze, b_squeeze, a_bdims, b_bdims = [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i, (ba, bb) in enumerate(zip(a_batch, b_batch)):
        if ba is None:
            idx_b.append(i)
        elif bb is None:
            idx_a.append(i)
        elif ba == 1 and bb != 1:  # a's size-1 batch dim stretches: drop it from a
            idx_b.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a) + len(a_squeeze))
        elif bb == 1 and ba != 1:
            idx_a.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b) + len(b_squeeze))
        elif ba == bb:
            a_bdims.append(len(idx_batch) + len(idx_a))
            b_bdims.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible shapes for matmul arguments: {a.shape} and "
                             f"{b.shape}")
    if a_is_mat:
        idx_a.append(n)
    if b_is_mat:
        idx_b.append(n + a_is_mat)
    perm = np.argsort(np.array(idx_batch + idx_a + idx_b, dtype=int))
    a, b = lax.squeeze(a, a_squeeze), lax.squeeze(b, b_squeeze)
    if a.shape[-1] != b.shape[-1 - b_is_mat]:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got ({a.shape[-1]},) and ({b.shape[-1 - b_is_mat]},).")
    out = lax.dot_general(a, b, (([a.ndim - 1], [b.ndim - 1 - b_is_mat]), (a_bdims, b_bdims)),
                          precision, preferred_element_type or dtype)
    return lax.transpose(out, tuple(int(p) for p in perm))


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Dot product of the flattened arrays."""
    from edujax.numpy.shape_ops import ravel
    return dot(ravel(asarray(a)), ravel(asarray(b)), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    from edujax.numpy.reductions import sum
    from edujax.numpy.ufuncs import multiply
    return sum(multiply(x1, x2), axis=axis)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Contract the last axes of a and b."""
    a, b, dtype = _promote("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return lax.mul(a, b)
    return lax.dot_general(a, b, (([a.ndim - 1], [b.ndim - 1]), ([], [])), precision,
                           preferred_element_type or dtype)


def outer(a: Any, b: Any, out: None = None) -> Any:
    """``outer(a, b)[i, j] = a[i] * b[j]`` for the flattened inputs."""
    from edujax.numpy.shape_ops import ravel
    a, b, _ = _promote("outer", a, b)
    a, b = ravel(a), ravel(b)
    shape = (a.shape[0], b.shape[0])
    return lax.mul(lax.broadcast_in_dim(a, shape, (0,)), lax.broadcast_in_dim(b, shape, (1,)))


def tensordot(a: Any, b: Any, axes: Any = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """Contract ``axes`` (an int: a's last n with b's first n; or two lists of axes)."""
    a, b, dtype = _promote("tensordot", a, b)
    if np.ndim(axes) == 0:
        n = int(axes)
        ca, cb = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        ca, cb = axes
        ca = [int(i) % a.ndim for i in np.atleast_1d(ca)]
        cb = [int(i) % b.ndim for i in np.atleast_1d(cb)]
    return lax.dot_general(a, b, ((ca, cb), ([], [])), precision,
                           preferred_element_type or dtype)


def kron(a: Any, b: Any) -> Any:
    from edujax.numpy.shape_ops import reshape
    a, b, _ = _promote("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a, b = lax.broadcast_to_rank(a, nd), lax.broadcast_to_rank(b, nd)
    a_exp = lax.expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b_exp = lax.expand_dims(b, tuple(range(0, 2 * nd, 2)))
    prod = lax.mul(*lax_broadcast_pair(a_exp, b_exp))
    return reshape(prod, tuple(x * y for x, y in zip(a.shape, b.shape)))


def lax_broadcast_pair(x: Any, y: Any) -> tuple[Any, Any]:
    from edujax.numpy.shape_ops import broadcast_arrays
    return tuple(broadcast_arrays(x, y))


__all__ = ["dot", "matmul", "vdot", "vecdot", "inner", "outer", "tensordot", "kron"]

