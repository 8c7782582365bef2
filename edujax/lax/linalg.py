"""``lax.linalg``: the matrix factorizations, one primitive each.

JAX hands these to LAPACK (on the CPU) through XLA custom calls; here NumPy's
``np.linalg`` (LAPACK underneath) does the work. Every primitive acts on the last
two dimensions and treats any leading dimensions as a batch, exactly like
``np.linalg``, so one batching rule serves them all: move the batch dimension to
the front and bind again.

What makes them interesting is differentiation. A factorization is not built
from elementwise pieces, so its JVP rule is a small piece of matrix calculus:
each rule below differentiates the defining identity (``A = L Lᵀ``, ``A V = V Λ``,
``A = U S Vᵀ``, ...) and solves for the tangents of the factors. The rules are
written with lax operations (and with ``triangular_solve``), so they are
themselves traceable, differentiable again, and transposable for reverse mode.

Primitives: ``cholesky``, ``lu``, ``triangular_solve``, ``qr``, ``eigh``, ``eig``, ``svd``.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax.base import (broadcast_in_dim, convert_element_type, expand_dims, full,
                             reduce_sum, reshape, transpose)
from edujax.lax.complex_numbers import conj, real
from edujax.lax.dot import dot_general
from edujax.lax.elementwise import add, div, eq, ge, mul, neg, select, sub
from edujax.lax.shape import broadcasted_iota, squeeze


# ================================================================ helpers (lax only)
def _aval(x: Any) -> ShapedArray:
    return core.get_aval(x)


def _T(x: Any) -> Any:
    """Swap the last two dimensions (the matrix transpose of a batch of matrices)."""
    n = _aval(x).ndim
    return transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def _H(x: Any) -> Any:
    """The conjugate transpose (the plain transpose of a real matrix)."""
    return conj(_T(x)) if _aval(x).dtype.kind == "c" else _T(x)


def _matmul(a: Any, b: Any) -> Any:
    """``a @ b`` for batches of matrices with the same leading dimensions."""
    nb = _aval(a).ndim - 2
    batch = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)))


def _zeros_like(x: Any) -> Any:
    aval = _aval(x)
    return full(aval.shape, 0, aval.dtype)


def _triangle_mask(shape: tuple, k: int, lower: bool) -> Any:
    """True on and below diagonal ``k`` (``lower``), or on and above it."""
    rows = add(broadcasted_iota(np.int32, shape, len(shape) - 2), np.int32(k))
    cols = broadcasted_iota(np.int32, shape, len(shape) - 1)
    return ge(rows, cols) if lower else ge(cols, rows)


def tril(x: Any, k: int = 0) -> Any:
    """Keep the entries on and below diagonal ``k``; zero the rest."""
    return select(_triangle_mask(_aval(x).shape, k, True), x, _zeros_like(x))


def triu(x: Any, k: int = 0) -> Any:
    """Keep the entries on and above diagonal ``k``; zero the rest."""
    return select(_triangle_mask(_aval(x).shape, k, False), x, _zeros_like(x))


def _eye_like(x: Any) -> Any:
    """Identity matrices with ``x``'s shape and dtype."""
    aval = _aval(x)
    rows = broadcasted_iota(np.int32, aval.shape, aval.ndim - 2)
    cols = broadcasted_iota(np.int32, aval.shape, aval.ndim - 1)
    return convert_element_type(eq(rows, cols), aval.dtype)


def _check_matrix(name: str, x: ShapedArray, square: bool = False) -> None:
    if x.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got shape={x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"Input 0 to {name} must be a batch of square matrices, "
                         f"but got shape={x.shape}")
    if x.dtype.kind not in "fc":
        raise TypeError(f"{name} does not accept dtype {x.dtype.name}. "
                        "Accepted dtypes are subtypes of floating, complexfloating.")


def _batch_at_front(prim: Primitive):
    """The one batching rule: these primitives already treat leading dimensions as a batch."""
    def rule(args, dims, **params):
        size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
        args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
        out = prim.bind(*args, **params)
        if prim.multiple_results:
            return out, [0] * len(out)
        return out, 0
    batching.batching_rules[prim] = rule


def _per_matrix(fn, x: np.ndarray, fill_nan: bool = True):
    """Run ``fn`` on the whole batch; if LAPACK refuses one matrix, run it matrix by matrix
    and give the refused ones NaN (JAX returns NaNs instead of raising: no exceptions on
    an accelerator)."""
    try:
        return fn(x)
    except np.linalg.LinAlgError:
        flat = x.reshape((-1,) + x.shape[-2:])
        outs = []
        for m in flat:
            try:
                outs.append(fn(m))
            except np.linalg.LinAlgError:
                outs.append(np.full_like(m, np.nan))
        return np.stack(outs).reshape(x.shape)


# ================================================================ cholesky
# ``cholesky(A)`` is the lower-triangular L with A = L Lᴴ, for a symmetric (Hermitian)
# positive-definite A. The primitive reads only the lower triangle, like LAPACK's potrf.
def _cholesky_abstract_eval(x: ShapedArray) -> ShapedArray:
    _check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype)


def _cholesky_impl(x: np.ndarray) -> np.ndarray:
    return _per_matrix(np.linalg.cholesky, x).astype(x.dtype)


cholesky_p = Primitive("cholesky")
core.abstract_eval_rules[cholesky_p] = _cholesky_abstract_eval
core.impl_rules[cholesky_p] = _cholesky_impl


def _cholesky_jvp(primals, tangents):
    """Differentiate A = L Lᴴ: dA = dL Lᴴ + L dLᴴ, so L⁻¹ dA L⁻ᴴ = L⁻¹dL + (L⁻¹dL)ᴴ.
    L⁻¹dL is lower triangular, so it is the lower half of the Hermitian left side,
    with the diagonal halved: dL = L · φ(L⁻¹ dA L⁻ᴴ). (ᴴ is ᵀ for a real matrix.)"""
    (x,), (dx,) = primals, tangents
    L = cholesky_p.bind(x)
    if type(dx) is ad.Zero:
        return L, dx
    solve = partial(triangular_solve, L, lower=True, transpose_a=False, conjugate_a=False,
                    unit_diagonal=False)
    complex_ = _aval(x).dtype.kind == "c"  # (JAX's triangular_solve drops it for reals)
    tmp = solve(dx, left_side=False, transpose_a=True, conjugate_a=complex_)  # dA L⁻ᴴ
    tmp = solve(tmp, left_side=True)                                          # L⁻¹ dA L⁻ᴴ
    eye = _eye_like(x)
    phi = mul(tril(tmp), sub(np.ones((), _aval(x).dtype), mul(eye, np.array(0.5, _aval(x).dtype))))
    return L, _matmul(L, phi)


ad.jvp_rules[cholesky_p] = _cholesky_jvp
_batch_at_front(cholesky_p)


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor L of a positive-definite x (x = L Lᵀ); NaNs if there is none.

    ``symmetrize_input`` replaces x by (x + xᵀ)/2 first, so that the gradient is symmetric
    (the primitive reads only the lower triangle)."""
    if symmetrize_input:
        x = symmetrize(x)
    return tril(cholesky_p.bind(x))


def symmetrize(x: Any) -> Any:
    """(x + xᴴ) / 2 (xᴴ the conjugate transpose: the Hermitian part of a complex matrix)."""
    xt = _T(x)
    if _aval(x).dtype.kind == "c":
        xt = conj(xt)
    return div(add(x, xt), np.array(2, _aval(x).dtype))


# ================================================================ triangular_solve
# Solve ``op(a) x = b`` (left_side) or ``x op(a) = b`` for a triangular a, where op is the
# transpose when ``transpose_a``. Only a's triangle named by ``lower`` is read; with
# ``unit_diagonal`` its diagonal is taken to be ones.
def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check_matrix("triangular_solve", a, square=True)
    if b.ndim < 2:
        raise TypeError(f"triangular_solve requires b to have rank at least 2, got {b.shape}")
    common = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[-1] != common or a.shape[:-2] != b.shape[:-2]:
        raise TypeError(f"Incompatible shapes for arguments to triangular_solve: "
                        f"{a.shape} and {b.shape}.")
    return ShapedArray(b.shape, b.dtype)


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    """Substitution, one row of x at a time (forward for a lower triangle, backward for an
    upper one), for the whole batch and all right-hand sides at once. A zero on the
    diagonal gives inf/NaN, as in LAPACK's trsm: no error is raised."""
    n = a.shape[-1]
    a = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        a = a.copy()
        a[..., np.arange(n), np.arange(n)] = 1
    if conjugate_a:
        a = np.conj(a)
    if transpose_a:
        a, lower = np.swapaxes(a, -1, -2), not lower
    if not left_side:  # x a = b  <=>  aᵀ xᵀ = bᵀ
        a, b, lower = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not lower
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:],
                 np.result_type(a, b))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in (range(n) if lower else reversed(range(n))):
            # the rows of x not solved yet are still zero, so the whole row of a can be used
            known = np.matmul(a[..., i:i + 1, :], x)[..., 0, :]
            x[..., i, :] = (b[..., i, :] - known) / a[..., i, i, None]
    if not left_side:
        x = np.swapaxes(x, -1, -2)
    return x.astype(b.dtype)


triangular_solve_p = Primitive("triangular_solve")
core.abstract_eval_rules[triangular_solve_p] = _triangular_solve_abstract_eval
core.impl_rules[triangular_solve_p] = _triangular_solve_impl


def _triangular_solve_jvp(primals, tangents, **params):
    """x = op(a)⁻¹ b is linear in b; in a, d(a⁻¹) = -a⁻¹ da a⁻¹, so
    dx = op(a)⁻¹ (db - op(da) x)   (left side), and similarly on the right."""
    (a, b), (da, db) = primals, tangents
    x = triangular_solve_p.bind(a, b, **params)
    dx = None
    if type(db) is not ad.Zero:
        dx = triangular_solve_p.bind(a, db, **params)
    if type(da) is not ad.Zero:
        k = (-1 if params["lower"] else 1) if params["unit_diagonal"] else 0
        da = tril(da, k) if params["lower"] else triu(da, k)
        if params["transpose_a"]:
            da = _T(da)
        rhs = _matmul(da, x) if params["left_side"] else _matmul(x, da)
        term = neg(triangular_solve_p.bind(a, rhs, **params))
        dx = term if dx is None else add(dx, term)
    return x, (ad.Zero.from_value(x) if dx is None else dx)


def _triangular_solve_transpose(ct, a, b, **params):
    """Linear in b: the transpose of ``b -> op(a)⁻¹ b`` is ``ct -> op(a)⁻ᵀ ct``."""
    assert not ad.is_undefined_primal(a)
    if type(ct) is ad.Zero:
        return [None, ct]
    params = dict(params, transpose_a=not params["transpose_a"])
    return [None, triangular_solve_p.bind(a, ct, **params)]


def _triangular_solve_batch(args, dims, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    """JAX's rule. With one matrix ``a`` for the whole batch, the batch of ``b`` becomes
    more columns (left side) or more rows (right side) of one solve: no copies of ``a``."""
    (a, b), (a_dim, b_dim) = args, dims
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    if a_dim is None:
        if left_side:
            b = batching.moveaxis(b, b_dim, -1)
            shape = np.shape(b)
            b_flat = reshape(b, shape[:-2] + (shape[-2] * shape[-1],))
            out_dim = len(shape) - 1
        else:
            b = batching.moveaxis(b, b_dim, -2)
            shape = np.shape(b)
            b_flat = reshape(b, shape[:-3] + (shape[-3] * shape[-2], shape[-1]))
            out_dim = len(shape) - 2
        return reshape(triangular_solve(a, b_flat, **params), shape), out_dim
    size = np.shape(a)[a_dim]
    a, b = batching.bdim_at_front(a, a_dim, size), batching.bdim_at_front(b, b_dim, size)
    return triangular_solve(a, b, **params), 0


ad.jvp_rules[triangular_solve_p] = _triangular_solve_jvp
ad.transpose_rules[triangular_solve_p] = _triangular_solve_transpose
batching.batching_rules[triangular_solve_p] = _triangular_solve_batch


def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Any:
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``
    (JAX's defaults: right side, upper triangle). A ``b`` with one dimension less than
    ``a`` is one vector: a column (left side) or a row (right side) for the primitive."""
    singleton = np.ndim(b) == np.ndim(a) - 1
    if singleton:
        b = expand_dims(b, (np.ndim(b) if left_side else np.ndim(b) - 1,))
    out = triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                  transpose_a=transpose_a, conjugate_a=conjugate_a,
                                  unit_diagonal=unit_diagonal)
    if singleton:
        out = squeeze(out, (np.ndim(out) - 1 if left_side else np.ndim(out) - 2,))
    return out


# ================================================================ lu
# ``lu(A)`` = (lu, pivots, permutation): P A = L U with L unit lower triangular and U upper
# triangular, packed together in one matrix (L's ones are not stored). ``pivots`` says which
# row was swapped into row i at step i (LAPACK's getrf); ``permutation`` is the resulting
# order of the rows, so that A[permutation] = L @ U.
def _lu_abstract_eval(x: ShapedArray):
    _check_matrix("lu", x, square=True)  # NB: JAX also factors rectangular matrices
    batch, n = x.shape[:-2], x.shape[-1]
    return [ShapedArray(x.shape, x.dtype), ShapedArray(batch + (n,), np.dtype(np.int32)),
            ShapedArray(batch + (n,), np.dtype(np.int32))]


def _lu_impl(x: np.ndarray):
    """Gaussian elimination with partial pivoting, one column at a time, for the whole batch
    at once (a readable getrf; NumPy has no LU of its own)."""
    n = x.shape[-1]
    lu = np.array(x, copy=True).reshape((-1, n, n))
    batch = np.arange(lu.shape[0])
    pivots = np.zeros((lu.shape[0], n), np.int32)
    perm = np.tile(np.arange(n, dtype=np.int32), (lu.shape[0], 1))
    for k in range(n):
        p = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)   # the largest entry below the diagonal
        pivots[:, k] = p
        lu[batch, [k], :], lu[batch, p, :] = lu[batch, p, :], lu[batch, [k], :].copy()
        perm[batch, k], perm[batch, p] = perm[batch, p], perm[batch, k].copy()
        # The multipliers: column k of L. A zero pivot means the whole column below it is
        # zero (the matrix is singular): like LAPACK's getrf, leave those zeros as they are.
        pivot = lu[:, k, k]
        lu[:, k + 1:, k] /= np.where(pivot == 0, 1, pivot)[:, None]
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    batch_shape = x.shape[:-2]
    return [lu.reshape(x.shape), pivots.reshape(batch_shape + (n,)),
            perm.reshape(batch_shape + (n,))]


lu_p = Primitive("lu")
lu_p.multiple_results = True
core.abstract_eval_rules[lu_p] = _lu_abstract_eval
core.impl_rules[lu_p] = _lu_impl


def permutation_matrix(perm: Any, dtype) -> Any:
    """The matrix P with (P @ A) = A[perm]: P[i, j] = 1 where perm[i] == j."""
    shape = _aval(perm).shape
    full = shape + (shape[-1],)
    cols = broadcasted_iota(np.int32, full, len(full) - 1)
    rows = broadcast_in_dim(perm, full, tuple(range(len(shape))))
    return convert_element_type(eq(rows, cols), dtype)


def _lu_jvp(primals, tangents):
    """Differentiate P A = L U: P dA = dL U + L dU, so L⁻¹ P dA U⁻¹ = L⁻¹dL + dU U⁻¹:
    the strictly lower part of the left side gives L⁻¹dL, the upper part dU U⁻¹."""
    (a,), (da,) = primals, tangents
    lu, pivots, perm = lu_p.bind(a)
    zeros = [ad.Zero.from_value(pivots), ad.Zero.from_value(perm)]
    if type(da) is ad.Zero:
        return [lu, pivots, perm], [ad.Zero.from_value(lu)] + zeros
    dtype = _aval(a).dtype
    L = add(tril(lu, -1), _eye_like(lu))
    U = triu(lu)
    pda = _matmul(permutation_matrix(perm, dtype), da)
    la = triangular_solve(L, pda, left_side=True, lower=True, unit_diagonal=True)
    la = triangular_solve(U, la, left_side=False, lower=False)
    dlu = add(_matmul(L, tril(la, -1)), _matmul(triu(la), U))
    return [lu, pivots, perm], [dlu] + zeros


ad.jvp_rules[lu_p] = _lu_jvp
_batch_at_front(lu_p)


def lu(x: Any):
    """(lu, pivots, permutation) with x[permutation] = L @ U (see above)."""
    return tuple(lu_p.bind(x))


# ================================================================ qr
def _qr_abstract_eval(x: ShapedArray, *, pivoting, full_matrices, use_magma):
    _check_matrix("qr", x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    return [ShapedArray(x.shape[:-2] + (m, k), x.dtype),
            ShapedArray(x.shape[:-2] + (k, n), x.dtype)]


def _qr_impl(x, *, pivoting, full_matrices, use_magma):
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return [q.astype(x.dtype), r.astype(x.dtype)]


qr_p = Primitive("qr")
qr_p.multiple_results = True
core.abstract_eval_rules[qr_p] = _qr_abstract_eval
core.impl_rules[qr_p] = _qr_impl


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    """Differentiate A = Q R (A tall, reduced QR): Qᴴ dA R⁻¹ = Qᴴ dQ + dR R⁻¹, the sum of
    a skew-Hermitian and an upper-triangular matrix; split it by its strictly lower part.
    (For complex A the diagonal's imaginary part belongs to Qᴴ dQ too, as in JAX.)"""
    (x,), (dx,) = primals, tangents
    q, r = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    m, n = _aval(x).shape[-2:]
    if type(dx) is ad.Zero:
        return [q, r], [ad.Zero.from_value(q), ad.Zero.from_value(r)]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError(
            "Unimplemented case of QR decomposition derivative")
    dx_rinv = triangular_solve(r, dx)                     # dA R⁻¹
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    lower = tril(qt_dx_rinv, -1)
    domega = sub(lower, _H(lower))                        # Qᴴ dQ, skew-Hermitian
    if _aval(x).dtype.kind == "c":
        imag_diagonal = sub(qt_dx_rinv, convert_element_type(real(qt_dx_rinv),
                                                             _aval(x).dtype))
        domega = add(domega, mul(_eye_like(qt_dx_rinv), imag_diagonal))
    dq = add(_matmul(q, sub(domega, qt_dx_rinv)), dx_rinv)
    dr = _matmul(sub(qt_dx_rinv, domega), r)
    return [q, r], [dq, dr]


ad.jvp_rules[qr_p] = _qr_jvp
_batch_at_front(qr_p)


def qr(x: Any, *, full_matrices: bool = True) -> tuple:
    """(q, r) with x = q @ r, q orthonormal columns, r upper triangular."""
    return tuple(qr_p.bind(x, pivoting=False, full_matrices=full_matrices, use_magma=None))


# ================================================================ eigh
# The eigendecomposition of a symmetric (Hermitian) matrix: A = V diag(w) Vᴴ, eigenvalues
# ``w`` in ascending order. The primitive returns (v, w), in that order, like JAX's.
def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.finfo(dtype).dtype)


def _eigh_abstract_eval(x: ShapedArray, *, lower, sort_eigenvalues, subset_by_index,
                        algorithm):
    _check_matrix("eigh", x, square=True)
    n = x.shape[-1]
    return [ShapedArray(x.shape, x.dtype),
            ShapedArray(x.shape[:-2] + (n,), _real_dtype(x.dtype))]


def _eigh_impl(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    w, v = np.linalg.eigh(x, UPLO="L" if lower else "U")   # ascending already
    return [v.astype(x.dtype), w.astype(_real_dtype(x.dtype))]


eigh_p = Primitive("eigh")
eigh_p.multiple_results = True
core.abstract_eval_rules[eigh_p] = _eigh_abstract_eval
core.impl_rules[eigh_p] = _eigh_impl


def _eigh_jvp(primals, tangents, **params):
    """First-order perturbation theory: with Vᴴ dA V =: M,
    dw = Re diag(M), and dV = V (F ∘ M) with F[i, j] = 1 / (w[j] - w[i]) off the diagonal.
    NB: like JAX's, the eigenvector tangent is undefined (inf/NaN) for repeated eigenvalues."""
    (a,), (da,) = primals, tangents
    v, w = eigh_p.bind(a, **params)
    if type(da) is ad.Zero:
        return [v, w], [ad.Zero.from_value(v), ad.Zero.from_value(w)]
    shape = _aval(v).shape
    nd = len(shape)
    batch = tuple(range(nd - 2))
    eye = _eye_like(v)
    w_full = convert_element_type(w, _aval(v).dtype)       # complex, for a complex v
    w_row = broadcast_in_dim(w_full, shape, batch + (nd - 1,))   # w[j] in every row
    w_col = broadcast_in_dim(w_full, shape, batch + (nd - 2,))   # w[i] in every column
    F = sub(div(np.ones((), _aval(v).dtype), add(eye, sub(w_row, w_col))), eye)
    vt_da_v = _matmul(_H(v), _matmul(da, v))
    dv = _matmul(v, mul(F, vt_da_v))
    dw = reduce_sum(mul(eye, vt_da_v), (nd - 1,))
    if _aval(v).dtype.kind == "c":
        dw = real(dw)
    return [v, w], [dv, dw]


ad.jvp_rules[eigh_p] = _eigh_jvp
_batch_at_front(eigh_p)


def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True) -> tuple:
    """(v, w): the eigenvectors (columns of v) and ascending eigenvalues of symmetric x."""
    if symmetrize_input:
        x = symmetrize(x)
    v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                       subset_by_index=None, algorithm=None)
    return v, w


# ================================================================ eig
# The eigendecomposition of a general square matrix: A V = V diag(w), complex results
# (a real matrix can have complex eigenvalues). Computed by NumPy's ``np.linalg.eig``
# (LAPACK's geev, as JAX on the CPU, so the eigenvalues come in the same order).
# Only the eigenvalues are differentiated (as JAX does unless asked to opt in); left
# eigenvectors are not supported.
def _complex_dtype(dtype: np.dtype) -> np.dtype:
    wide = np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.dtype(np.complex128 if wide else np.complex64)


def _eig_abstract_eval(x: ShapedArray, *, compute_left_eigenvectors,
                       compute_right_eigenvectors, enable_eigvec_derivs, implementation):
    _check_matrix("eig", x, square=True)
    if compute_left_eigenvectors:
        raise NotImplementedError("edujax's eig does not compute left eigenvectors")
    dtype = _complex_dtype(x.dtype)
    out = [ShapedArray(x.shape[:-1], dtype)]
    if compute_right_eigenvectors:
        out.append(ShapedArray(x.shape, dtype))
    return out


def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
    dtype = _complex_dtype(x.dtype)
    if not compute_right_eigenvectors:
        return [np.asarray(np.linalg.eigvals(x)).astype(dtype)]
    w, v = np.linalg.eig(x)
    return [np.asarray(w).astype(dtype), np.asarray(v).astype(dtype)]


eig_p = Primitive("eig")
eig_p.multiple_results = True
core.abstract_eval_rules[eig_p] = _eig_abstract_eval
core.impl_rules[eig_p] = _eig_impl
_batch_at_front(eig_p)


def _lu_solve(a: Any, b: Any) -> Any:
    """``a⁻¹ b`` for square a (batches too) by P a = L U: two triangular solves."""
    lu_, _, perm = lu_p.bind(a)
    pb = _matmul(permutation_matrix(perm, _aval(a).dtype), b)
    y = triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, y, left_side=True, lower=False)


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    """The eigenvalues of A = V diag(w) V⁻¹ move by dw = diag(V⁻¹ dA V) (first-order
    perturbation theory, for distinct eigenvalues). The eigenvectors' derivatives are
    refused, as in JAX: they are only defined under a normalization JAX cannot check."""
    (a,), (da,) = primals, tangents
    if compute_left_eigenvectors or compute_right_eigenvectors:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on "
            "the input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to "
            "opt in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    w, vr = eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
    if type(da) is ad.Zero:
        return [w], [ad.Zero.from_value(w)]
    da = convert_element_type(da, _aval(vr).dtype)
    # diag(V⁻¹ dA V)[i] = sum_k (V⁻¹ dA)[i, k] V[k, i]
    return [w], [reduce_sum(mul(_lu_solve(vr, da), _T(vr)), (_aval(a).ndim - 1,))]


ad.jvp_rules[eig_p] = _eig_jvp


def eig(x: Any, *, compute_left_eigenvectors: bool = True,
        compute_right_eigenvectors: bool = True) -> list:
    """[w, (vl,) (vr,)]: the eigenvalues of a general square x, and the eigenvectors asked for."""
    return eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=False, implementation=None)


# ================================================================ svd
# A = U diag(s) Vᵀ, singular values ``s`` descending. The primitive returns [s] when
# ``compute_uv`` is False, else [s, u, vt] (JAX's order).
def _svd_abstract_eval(x: ShapedArray, *, full_matrices, compute_uv, subset_by_index,
                       algorithm):
    _check_matrix("svd", x)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    s = ShapedArray(batch + (k,), _real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray(batch + (m, um), x.dtype), ShapedArray(batch + (vn, n), x.dtype)]


def _svd_impl(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    if not compute_uv:
        return [np.linalg.svd(x, compute_uv=False).astype(_real_dtype(x.dtype))]
    u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)
    return [s.astype(_real_dtype(x.dtype)), u.astype(x.dtype), vt.astype(x.dtype)]


svd_p = Primitive("svd")
svd_p.multiple_results = True
core.abstract_eval_rules[svd_p] = _svd_abstract_eval
core.impl_rules[svd_p] = _svd_impl


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    """JAX's rule: with dS := Uᴴ dA V, ds = Re diag(dS); the tangents of U and V come from
    the off-diagonal part of dS, divided by s[j]² - s[i]², plus, for a non-square A, the
    part of dA outside the span of U (or V). A complex A adds a term for the phases of U's
    columns: the diagonal of (dS - dSᴴ) / 2s (zero for a real A, so left out there)."""
    (A,), (dA,) = primals, tangents
    if full_matrices and compute_uv:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    s, U, Vt = svd_p.bind(A, full_matrices=False, compute_uv=True, subset_by_index=None,
                          algorithm=algorithm)
    outs = [s, U, Vt] if compute_uv else [s]
    if type(dA) is ad.Zero:
        return outs, [ad.Zero.from_value(o) for o in outs]
    dtype = _aval(A).dtype
    is_complex = dtype.kind == "c"
    V = _H(Vt)
    dS = _matmul(_H(U), _matmul(dA, V))
    shape = _aval(dS).shape                           # (..., k, k)
    nd = len(shape)
    batch = tuple(range(nd - 2))
    eye = _eye_like(dS)
    ds = reduce_sum(mul(eye, dS), (nd - 1,))
    if is_complex:
        ds = real(ds)
    if not compute_uv:
        return outs, [ds]
    s_full = convert_element_type(s, dtype) if is_complex else s
    s_row = broadcast_in_dim(s_full, shape, batch + (nd - 1,))   # s[j]
    s_col = broadcast_in_dim(s_full, shape, batch + (nd - 2,))   # s[i]
    one = np.ones((), dtype)
    s_diffs = mul(add(s_row, s_col), sub(s_row, s_col))      # s[j]² - s[i]²
    F = sub(div(one, add(s_diffs, eye)), eye)
    dSS = mul(s_row, dS)
    SdS = mul(s_col, dS)
    dU_inner = mul(F, add(dSS, _H(dSS)))
    if is_complex:  # the phases: (dS - dSᴴ) / 2s on the diagonal
        phases = mul(mul(sub(dS, _H(dS)), np.array(0.5, dtype)), div(eye, add(s_row, sub(
            one, eye))))
        dU_inner = add(dU_inner, phases)
    dU = _matmul(U, dU_inner)
    dV = _matmul(V, mul(F, add(SdS, _H(SdS))))
    m, n = _aval(A).shape[-2:]
    if m > n:
        dAV = _matmul(dA, V)
        dU = add(dU, div(sub(dAV, _matmul(U, _matmul(_H(U), dAV))),
                         broadcast_in_dim(s_full, _aval(dAV).shape, batch + (nd - 1,))))
    if n > m:
        dAHU = _matmul(_H(dA), U)
        dV = add(dV, div(sub(dAHU, _matmul(V, _matmul(Vt, dAHU))),
                         broadcast_in_dim(s_full, _aval(dAHU).shape, batch + (nd - 1,))))
    return outs, [ds, dU, _H(dV)]


ad.jvp_rules[svd_p] = _svd_jvp
_batch_at_front(svd_p)


def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True):
    """``s`` (descending), or ``(u, s, vt)`` with x = u @ diag(s) @ vt when ``compute_uv``."""
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=None, algorithm=None)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt
