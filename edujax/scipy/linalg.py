"""``jax.scipy.linalg``: SciPy's spelling of the factorizations and solves.

Everything here reuses ``lax.linalg`` (the factorization primitives) and ``jnp.linalg``;
what SciPy adds is the *reuse of a factorization*: factor a matrix once (``cho_factor``,
``lu_factor``), then solve against many right-hand sides (``cho_solve``, ``lu_solve``),
each solve being two triangular solves.
"""
from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.lax import linalg as lax_linalg
from edujax.inner_jit import inner_jit
from edujax.numpy.linalg import _broadcasted_matvec, _lu_solve
from edujax.numpy.util import promote_dtypes_inexact
from edujax.vmap import vmap
from edujax.scipy.linalg_matrices import (circulant, companion, fiedler,  # noqa: F401
                                          fiedler_companion, hadamard, hankel, helmert,
                                          invhilbert, invpascal, leslie, pascal)

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm",
           "hilbert", "inv", "lu", "lu_factor", "lu_solve", "qr", "solve", "solve_triangular",
           "svd", "toeplitz"]

det = jnp.linalg.det
inv = jnp.linalg.inv
svd = jnp.linalg.svd


def _as_inexact(*args: Any) -> list:
    return promote_dtypes_inexact(*(jnp.asarray(a) for a in args))


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Any:
    """The Cholesky factor of a symmetric (Hermitian) positive-definite matrix: upper
    (Uᴴ U = a) by default, as in SciPy (jnp.linalg.cholesky returns the lower one)."""
    return _cholesky(a, lower)


@inner_jit(static_argnames=("lower",))
def _cholesky(a: Any, lower: bool) -> Any:
    a, = promote_dtypes_inexact(jnp.asarray(a))
    # Only the triangle asked for is read (and differentiated): no symmetrization.
    factor = lax_linalg.cholesky(a if lower else jnp.conj(jnp.matrix_transpose(a)),
                                 symmetrize_input=False)
    return factor if lower else jnp.conj(jnp.matrix_transpose(factor))


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
    """``(c, lower)``: the Cholesky factor and which triangle it is, for cho_solve."""
    return (cholesky(a, lower=lower), lower)


def _signature(a: Any, b: Any, name: str) -> str:
    """The gufunc signature of a solve: a vector b, or matrices (JAX's; a batch of vectors
    in a b with a's leading dimensions is the deprecated old meaning, with JAX's warning)."""
    if b.ndim == 1:
        return "(n,n),(n)->(n)"
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are "
                      "deprecated, and in the future will be treated as a batched 2D solve. "
                      f"Use {name}({'c_and_lower' if name == 'cho_solve' else 'a'}, "
                      "b[..., None]).squeeze(-1) to avoid this warning.",
                      category=FutureWarning, stacklevel=2)
        return "(n,n),(n)->(n)"
    return "(n,n),(n,k)->(n,k)"


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
    """x with a x = b, from ``cho_factor(a)``: solve with the factor, then its transpose."""
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


@inner_jit(static_argnames=("lower",))
def _cho_solve(c: Any, b: Any, lower: bool) -> Any:
    c, b = promote_dtypes_inexact(jnp.asarray(c), jnp.asarray(b))
    signature = _signature(c, b, "cho_solve")
    b = jnp.vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                              transpose_a=not lower, conjugate_a=not lower),
                      signature=signature)(c, b)
    return jnp.vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                                 transpose_a=lower, conjugate_a=lower),
                         signature=signature)(c, b)


def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug: Any = None, check_finite: bool = True) -> Any:
    """x with a x = b for a triangular a (``trans=1``: aᵀ x = b), by substitution."""
    return _solve_triangular(a, b, trans, lower, unit_diagonal)


@inner_jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a: Any, b: Any, trans: int | str, lower: bool,
                      unit_diagonal: bool) -> Any:
    if trans == 0 or trans == "N":
        transpose_a, conjugate_a = False, False
    elif trans == 1 or trans == "T":
        transpose_a, conjugate_a = True, False
    elif trans == 2 or trans == "C":
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    return jnp.vectorize(partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                                 transpose_a=transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal),
                         signature=_signature(a, b, "solve_triangular"))(a, b)


@inner_jit(static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """``(lu, piv)``: L and U packed in one matrix (L's unit diagonal left out), and the
    row swapped with row i at step i of the elimination (LAPACK's ``getrf``)."""
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


@inner_jit(static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv: tuple[Any, Any], b: Any, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:
    """x with a x = b (``trans=1``: aᵀ x = b), from ``lu_factor(a)``: the pivots become a
    permutation, then jnp.linalg's LU solve (two triangular solves)."""
    lu_, pivots = lu_and_piv
    lu_, b = promote_dtypes_inexact(jnp.asarray(lu_), jnp.asarray(b))
    m = lu_.shape[-2]
    perm = lax_linalg.lu_pivots_to_permutation(pivots, m)
    if b.ndim == 1:
        signature = "(n,n),(n),(n)->(n)"
    elif lu_.ndim == b.ndim + 1 and lu_.shape[-1] == b.shape[-1]:
        warnings.warn("jax.scipy.linalg.lu_solve: batched 1D solves with b.ndim > 1 are "
                      "deprecated, and in the future will be treated as a batched 2D solve. "
                      "Use lu_solve(lu_and_piv, b[..., None]).squeeze(-1) to avoid this "
                      "warning.", category=FutureWarning, stacklevel=2)
        signature = "(n,n),(n),(n)->(n)"
    else:
        signature = "(n,n),(n),(n,k)->(n,k)"
    return jnp.vectorize(partial(_lu_solve, trans=trans), signature=signature)(lu_, perm, b)


@inner_jit(static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple:
    """``(p, l, u)`` with a = p @ l @ u (or ``(p @ l, u)`` with ``permute_l=True``)."""
    return _lu(a, permute_l)


@inner_jit(static_argnums=(1,))
def _lu(a: Any, permute_l: bool) -> tuple:
    a, = promote_dtypes_inexact(jnp.asarray(a))
    lu_, _, permutation = lax_linalg.lu(a)
    dtype = a.dtype
    m, n = a.shape[-2:]
    p = jnp.real(jnp.array(permutation[..., None, :]
                           == jnp.arange(m, dtype=permutation.dtype)[:, None], dtype=dtype))
    k = min(m, n)
    l_ = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=dtype)
    u = jnp.triu(lu_)[..., :k, :]
    if permute_l:
        return jnp.matmul(p, l_, precision=lax.Precision.HIGHEST), u
    return p, l_, u


def qr(a: Any, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> Any:
    """``(q, r)`` with a = q r (SciPy's modes: 'full', 'economic', 'r')."""
    if pivoting:
        raise NotImplementedError("qr with pivoting=True")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    a, = _as_inexact(a)
    q, r = lax_linalg.qr(a, full_matrices=mode in ("full", "r"))
    return (r,) if mode == "r" else (q, r)


def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True,
         eigvals: Any = None, type: int = 1, check_finite: bool = True) -> Any:
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    a, = _as_inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def polar(a: Any, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> tuple[Any, Any]:
    """``(u, p)`` with a = u p (side='right') or a = p u: u has orthonormal columns, p is
    symmetric positive semi-definite, like writing a number as sign times magnitude.
    From the SVD a = U S Vᵀ: u = U Vᵀ, p = V S Vᵀ (or U S Uᵀ on the left).
    NB: JAX's default method, QDWH, is an iteration that converges to the same factors;
    edujax always uses the SVD (equal up to rounding)."""
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    arr, = _as_inexact(arr)
    u_svd, s_svd, vh_svd = lax_linalg.svd(arr, full_matrices=False)
    unitary = u_svd @ vh_svd
    if side == "right":
        posdef = (jnp.swapaxes(vh_svd, -1, -2) * s_svd[..., None, :]) @ vh_svd
    else:
        posdef = (u_svd * s_svd[..., None, :]) @ jnp.swapaxes(u_svd, -1, -2)
    return unitary, posdef


def solve(a: Any, b: Any, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: bool = False, check_finite: bool = True,
          assume_a: str = "gen") -> Any:
    """x with a x = b; ``assume_a='pos'`` uses a Cholesky factorization instead of LU."""
    if assume_a not in {"gen", "sym", "her", "pos"}:
        raise ValueError(f"Expected assume_a to be one of ['gen', 'sym', 'her', 'pos']; "
                         f"got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


@inner_jit(static_argnames=("assume_a", "lower"))
def _solve(a: Any, b: Any, assume_a: str, lower: bool) -> Any:
    if assume_a != "pos":
        return jnp.linalg.solve(a, b)
    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    if not (a.ndim >= 2 and b.ndim in [a.ndim, a.ndim - 1]
            and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")
    # As jnp.linalg.solve: factor once, and differentiate through custom_linear_solve
    factors = cho_factor(lax.stop_gradient(a), lower=lower)
    custom_solve = partial(lax.custom_linear_solve,
                           lambda x: _broadcasted_matvec(a, x),
                           solve=lambda _, x: cho_solve(factors, x), symmetric=True)
    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def block_diag(*arrs: Any) -> Any:
    """The matrix with the given matrices (scalars, vectors as rows) along its diagonal."""
    if len(arrs) == 0:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(jnp.atleast_2d(jnp.asarray(a)) for a in arrs)
    bad = [i for i, a in enumerate(arrs) if a.ndim > 2]
    if bad:
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         "dimensions, got {} at argument {}.".format(arrs[bad[0]], bad[0]))
    rows = sum(a.shape[0] for a in arrs)
    cols = sum(a.shape[1] for a in arrs)
    out = jnp.zeros((rows, cols), dtype=jnp.result_type(*arrs))
    r = c = 0
    for a in arrs:  # each block goes just below and right of the previous one
        out = out.at[r:r + a.shape[0], c:c + a.shape[1]].set(a)
        r, c = r + a.shape[0], c + a.shape[1]
    return out


def toeplitz(c: Any, r: Any = None) -> Any:
    """The matrix with first column c and first row r, constant along its diagonals."""
    c = jnp.ravel(jnp.asarray(c))
    r = c if r is None else jnp.ravel(jnp.asarray(r))
    c, r = promote_dtypes_inexact(c, r) if jnp.result_type(c, r).kind in "fc" else (c, r)
    i = jnp.arange(c.shape[0])[:, None]
    j = jnp.arange(r.shape[0])[None, :]
    values = jnp.concatenate([r[:0:-1], c])  # r reversed (without r[0]), then c
    return values[i - j + r.shape[0] - 1]


def hilbert(n: int) -> Any:
    """The Hilbert matrix ``1 / (i + j + 1)``, famously ill-conditioned."""
    a = lax.broadcasted_iota(np.float64, (n, 1), 0).astype(jnp.result_type(float))
    return 1 / (a + a.T + 1)


# ---------------------------------------------------------------- expm
# The matrix exponential by scaling and squaring (Higham 2005, as SciPy and JAX do):
# divide A by 2**s until its norm is small, take a Padé approximant p(A)/q(A) of exp
# there, then square the result s times (exp(A) = exp(A / 2**s) ** (2**s)).
# NB: JAX picks the Padé order (3 to 13) from the norm with a lax.switch; we always use
# the highest order for the dtype, which is as accurate and simpler to read.
_PADE = {
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}


def _pade(A: Any, order: int) -> tuple[Any, Any]:
    """(U, V): the odd and even parts of the Padé numerator, p = U + V, q = V - U."""
    b = _PADE[order]
    ident = jnp.eye(A.shape[0], dtype=A.dtype)
    powers = [ident, A @ A]
    while len(powers) <= order // 2:
        powers.append(powers[-1] @ powers[1])
    U = A @ sum(b[2 * k + 1] * powers[k] for k in range(order // 2 + 1))
    V = sum(b[2 * k] * powers[k] for k in range(order // 2 + 1))
    return U, V


def expm(A: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """The matrix exponential ``sum_k A**k / k!``."""
    A, = _as_inexact(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape}.")
    if A.ndim > 2:
        return jnp.stack([expm(a, max_squarings=max_squarings) for a in A])
    double = A.dtype in (np.float64, np.complex128)
    maxnorm, order = (5.371920351148152, 13) if double else (3.925724783138660, 7)
    A_L1 = jnp.linalg.norm(A, 1)
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
    A = A / (2 ** n_squarings).astype(A.dtype)
    U, V = _pade(A, order)
    R = jnp.linalg.solve(V - U, U + V)
    return lax.fori_loop(0, max_squarings,
                         lambda i, r: jnp.where(i < n_squarings, r @ r, r), R)
