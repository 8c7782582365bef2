"""``jax.scipy.linalg``: SciPy's spelling of the factorizations and solves.

Everything here reuses ``lax.linalg`` (the factorization primitives) and ``jnp.linalg``;
what SciPy adds is the *reuse of a factorization*: factor a matrix once (``cho_factor``,
``lu_factor``), then solve against many right-hand sides (``cho_solve``, ``lu_solve``),
each solve being two triangular solves.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.lax import linalg as lax_linalg
from edujax.numpy.util import promote_dtypes_inexact
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
    """The Cholesky factor of a symmetric positive-definite matrix: upper (Uᵀ U = a) by
    default, as in SciPy (jnp.linalg.cholesky returns the lower one)."""
    a, = _as_inexact(a)
    # Only the triangle asked for is read (and differentiated): no symmetrization.
    # NB: real matrices only (edujax has no complex numbers yet), so no conjugates.
    factor = lax_linalg.cholesky(a if lower else jnp.swapaxes(a, -1, -2),
                                 symmetrize_input=False)
    return factor if lower else jnp.swapaxes(factor, -1, -2)


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
    """``(c, lower)``: the Cholesky factor and which triangle it is, for cho_solve."""
    return (cholesky(a, lower=lower), lower)


def _solve_vector_or_matrix(solve: Any, b: Any) -> Any:
    """Run ``solve`` (for matrices b) on a vector b too, as a one-column matrix."""
    if b.ndim == 1:
        return solve(b[:, None])[..., 0]
    return solve(b)


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
    """x with a x = b, from ``cho_factor(a)``: solve with the factor, then its transpose."""
    c, lower = c_and_lower
    c, b = _as_inexact(c, b)

    def solve(b):
        y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower,
                                        transpose_a=not lower, conjugate_a=not lower)
        return lax_linalg.triangular_solve(c, y, left_side=True, lower=lower,
                                           transpose_a=lower, conjugate_a=lower)
    return _solve_vector_or_matrix(solve, b)


def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug: Any = None, check_finite: bool = True) -> Any:
    """x with a x = b for a triangular a (``trans=1``: aᵀ x = b), by substitution."""
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _as_inexact(a, b)
    return _solve_vector_or_matrix(
        lambda b: lax_linalg.triangular_solve(a, b, left_side=True, lower=lower,
                                              transpose_a=transpose_a,
                                              conjugate_a=conjugate_a,
                                              unit_diagonal=unit_diagonal), b)


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Any, Any]:
    """``(lu, piv)``: L and U packed in one matrix (L's unit diagonal left out), and the
    row swapped with row i at step i of the elimination (LAPACK's ``getrf``)."""
    a, = _as_inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def lu_solve(lu_and_piv: tuple[Any, Any], b: Any, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> Any:
    """x with a x = b (``trans=1``: aᵀ x = b), from ``lu_factor(a)``."""
    lu_, pivots = lu_and_piv
    m = lu_.shape[0]
    perm = _pivots_to_permutation(pivots, m)
    lu_, b = _as_inexact(lu_, b)

    def solve(b):
        if trans == 0:  # P a = L U, so x = U⁻¹ L⁻¹ P b
            x = b[perm, :]
            x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True,
                                            unit_diagonal=True)
            return lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
        if trans in (1, 2):  # aᵀ = Uᵀ Lᵀ P, so x = Pᵀ L⁻ᵀ U⁻ᵀ b
            conj = trans == 2
            x = lax_linalg.triangular_solve(lu_, b, left_side=True, lower=False,
                                            transpose_a=True, conjugate_a=conj)
            x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True,
                                            unit_diagonal=True, transpose_a=True,
                                            conjugate_a=conj)
            return x[jnp.argsort(perm), :]
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return _solve_vector_or_matrix(solve, b)


def _pivots_to_permutation(pivots: Any, m: int) -> Any:
    """Replay the row swaps on ``arange(m)``: the row order of P a."""
    perm = jnp.arange(m)
    for i in range(pivots.shape[-1]):
        j = pivots[i]
        pi, pj = perm[i], perm[j]
        perm = perm.at[i].set(pj).at[j].set(pi)
    return perm


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple:
    """``(p, l, u)`` with a = p @ l @ u (or ``(p @ l, u)`` with ``permute_l=True``)."""
    a, = _as_inexact(a)
    lu_, _, permutation = lax_linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    p = jnp.array(permutation[..., None] == jnp.arange(m), dtype=a.dtype)
    p = jnp.swapaxes(p, -1, -2)
    l_ = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=a.dtype)
    u = jnp.triu(lu_)[..., :k, :]
    if permute_l:
        return jnp.matmul(p, l_), u
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
    if assume_a != "pos":
        return jnp.linalg.solve(a, b)
    return cho_solve(cho_factor(a, lower=lower), b)


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
