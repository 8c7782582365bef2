"""The special matrices of ``jax.scipy.linalg``: each is a formula for entry (i, j), written
with index grids ``i = arange(m)[:, None]``, ``j = arange(n)[None, :]``.

NB: JAX also accepts batches of vectors for circulant, hankel, companion and leslie; these
take one vector (a batch can go through vmap).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from edujax import dtypes
from edujax import numpy as jnp
from edujax.numpy.util import check_arraylike
from edujax.scipy.special_functions import _promote, comb


def _grids(m: int, n: int) -> tuple[Any, Any]:
    return jnp.arange(m)[:, None], jnp.arange(n)[None, :]


def circulant(c: Any) -> Any:
    """Each column is the previous one rotated down by one: ``M[i, j] = c[(i - j) % n]``."""
    check_arraylike("circulant", c)
    c = jnp.atleast_1d(jnp.asarray(c))
    n = c.shape[-1]
    i, j = _grids(n, n)
    return c[(i - j) % n]


def hankel(c: Any, r: Any = None) -> Any:
    """Constant along anti-diagonals: first column c, last row r (r[0] is ignored)."""
    c = jnp.asarray(c)
    r = jnp.zeros_like(c) if r is None else jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    m, n = c.shape[-1], r.shape[-1]
    values = jnp.concatenate([c, r[1:]]).astype(jnp.result_type(c, r))
    i, j = _grids(m, n)
    return values[i + j]


def fiedler(a: Any) -> Any:
    """``F[i, j] = |a[i] - a[j]|``."""
    check_arraylike("fiedler", a)
    arr = jnp.atleast_1d(jnp.asarray(a))
    return jnp.abs(arr[..., None] - arr[..., None, :])


def companion(a: Any) -> Any:
    """The matrix whose characteristic polynomial has coefficients a (highest first):
    first row ``-a[1:] / a[0]``, ones below the diagonal."""
    a, = _promote("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError("The length of `a` along the last axis must be at least 2; "
                         f"got shape {a.shape}.")
    n = a.shape[-1] - 1
    i, j = _grids(n, n)
    first_row = -a[1:] / a[0]
    return jnp.where(i == 0, first_row[None, :], jnp.where(i == j + 1, 1, 0)).astype(a.dtype)


def leslie(f: Any, s: Any) -> Any:
    """The Leslie matrix of population models: fecundities f on the first row, survival
    rates s below the diagonal."""
    check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(jnp.asarray(f)), jnp.atleast_1d(jnp.asarray(s))
    if f.shape[-1] < 2:
        raise ValueError("The length of f along the last axis must be at least 2; "
                         f"got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                         f"must be one less than the length of f; got f shape {f.shape} "
                         f"and s shape {s.shape}.")
    n = f.shape[-1]
    i, j = _grids(n, n)
    dtype = jnp.result_type(f, s)
    below = jnp.where(i == j + 1, jnp.concatenate([jnp.zeros(1, dtype), s.astype(dtype)])[i],
                      0)
    return jnp.where(i == 0, f.astype(dtype)[None, :], below).astype(dtype)


def helmert(n: int, full: bool = False) -> Any:
    """Helmert's orthonormal contrasts: row k averages the first k entries against entry k."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = _grids(n - 1, n)
    k_f = (i + 1).astype(dtypes.float_dtype())
    denom = jnp.sqrt(k_f * (k_f + 1))
    H = jnp.where(j <= i, 1.0 / denom, jnp.where(j == i + 1, -k_f / denom,
                                                 jnp.zeros_like(denom)))
    if full:
        H = jnp.concatenate([jnp.full((1, n), 1.0 / np.sqrt(n), dtype=H.dtype), H], axis=0)
    return H


def hadamard(n: int, dtype: Any = int) -> Any:
    """Sylvester's Hadamard matrix of order n (a power of 2): H_2n = [[H, H], [H, -H]]."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    H = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        H = jnp.concatenate([jnp.concatenate([H, H], axis=1),
                             jnp.concatenate([H, -H], axis=1)], axis=0)
    return H


def pascal(n: int, kind: str | None = None) -> Any:
    """Binomial coefficients: ``C(i + j, i)`` (symmetric), or the lower/upper factor
    ``C(i, j)`` of that matrix."""
    kind = "symmetric" if kind is None else kind
    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise ValueError(f"Expected kind to be on of: {valid_kind}; got {kind}")
    a = jnp.arange(n, dtype=np.float32)
    L_n = comb(a[:, None], a[None, :])  # (through gammaln: near-integers, as in JAX)
    if kind == "lower":
        return L_n
    if kind == "upper":
        return L_n.T
    return jnp.dot(L_n, L_n.T)


def invhilbert(n: int) -> Any:
    """The exact inverse of the n x n Hilbert matrix (integer entries that grow fast)."""
    a = jnp.arange(n, dtype=dtypes.float_dtype())
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1)
            * comb(s, i) ** 2)


def invpascal(n: int, kind: str | None = None) -> Any:
    """The inverse of ``pascal(n, kind)``: ``L⁻¹[i, j] = (-1)**(i - j) C(i, j)``."""
    kind = "symmetric" if kind is None else kind
    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise ValueError(f"Expected kind to be one of: {valid_kind}; got {kind}")
    a = jnp.arange(n, dtype=dtypes.float_dtype())
    i, j = a[:, None], a[None, :]
    L_inv = ((-1.0) ** (i - j)) * comb(i, j)
    if kind == "lower":
        return L_inv
    if kind == "upper":
        return L_inv.T
    return jnp.dot(L_inv.T, L_inv)


def fiedler_companion(a: Any) -> Any:
    """Fiedler's pentadiagonal companion matrix: the same characteristic polynomial as
    ``companion(a)``, with its coefficients spread along two bands."""
    a, = _promote("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    n = a.shape[0] - 1
    if n == 0:
        return jnp.zeros((0, 0), a.dtype)
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = _grids(n, n)
    super_val = -a[jnp.minimum(i + 2, n)]
    sub_val = -a[jnp.minimum(i + 1, n)]
    i_even, i_odd = i % 2 == 0, i % 2 == 1
    one, zero = jnp.array(1, dtype=a.dtype), jnp.array(0, dtype=a.dtype)
    # jnp.select, written out: the first condition that holds picks the value.
    choices = [((i == 0) & (j == 0), -a[1]), ((i == 1) & (j == 0), one),
               ((j == i + 1) & i_even, super_val), ((j == i + 2) & i_even, one),
               ((j == i - 1) & i_even & (i >= 2), sub_val), ((j == i - 2) & i_odd & (i >= 3), one)]
    out = jnp.broadcast_to(zero, (n, n))
    for condition, value in reversed(choices):
        out = jnp.where(condition, value, out)
    return out
