"""``lax.linalg``: the matrix factorizations, one primitive each.

JAX hands these to LAPACK (on the CPU) through XLA custom calls; here NumPy's
``np.linalg`` (LAPACK underneath) does the work. Every primitive acts on the last
two dimensions and treats any leading dimensions as a batch, exactly like
``np.linalg``, so one batching rule serves them all: move the batch dimension to
the front and bind again.

What makes them interesting is differentiation. A factorization is not built
from elementwise pieces, so its JVP rule is a small piece of matrix calculus:
each rule differentiates the defining identity (``A = L Lᴴ``, ``A V = V Λ``,
``A = U S Vᴴ``, ...) and solves for the tangents of the factors, for real and complex
matrices. The rules are written with traceable operations, so they are differentiable
again and transposable for reverse mode. Those of cholesky, triangular_solve and qr are
below, in lax operations; JAX writes those of lu, eigh, eig and svd with array
operations (indexing, ``@``, a linear solve), so edujax registers them in jnp.linalg
(edujax/numpy/linalg.py), where those exist, and the printed jaxprs match JAX's.

Primitives: ``cholesky``, ``lu``, ``triangular_solve``, ``qr``, ``eigh``, ``eig``, ``svd``.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax.base import (convert_element_type, expand_dims, full,
                             reshape, transpose)
from edujax.lax.complex_numbers import conj, real
from edujax.lax.dot import dot_general
from edujax.lax.elementwise import add, div, eq, ge, mul, neg, select, sub
from edujax.lax.precision import Precision
from edujax.lax.shape import broadcasted_iota, concatenate, squeeze
from edujax.lax.shape import slice as slice_


_HIGHEST = (Precision.HIGHEST, Precision.HIGHEST)


# ================================================================ helpers (lax only)
def _aval(x: Any) -> ShapedArray:
    return core.get_aval(x)


def _T(x: Any) -> Any:
    """Swap the last two dimensions (the matrix transpose of a batch of matrices)."""
    n = _aval(x).ndim
    return transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def _H(x: Any) -> Any:
    """The conjugate transpose (the transpose of a real matrix)."""
    return conj(_T(x)) if _aval(x).dtype.kind == "c" else _T(x)


def _real(x: Any) -> Any:
    """The real part of a complex array, as an array of the same (complex) dtype."""
    if _aval(x).dtype.kind != "c":
        return x
    return convert_element_type(real(x), _aval(x).dtype)


def _mm(a: Any, b: Any) -> Any:
    """``a @ b`` as JAX's rules write it on arrays (jnp.matmul: the result's dtype named)."""
    nb = _aval(a).ndim - 2
    batch = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)),
                       preferred_element_type=_aval(a).dtype)


def _matmul(a: Any, b: Any, precision: Any = None) -> Any:
    """``a @ b`` for batches of matrices with the same leading dimensions."""
    nb = _aval(a).ndim - 2
    batch = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)), precision=precision)


def _zeros_like(x: Any) -> Any:
    aval = _aval(x)
    return full(aval.shape, 0, aval.dtype)


def _lower_mask(shape: tuple, k: int) -> Any:
    """True on and below diagonal ``k`` (JAX's ``lax._tri``)."""
    rows = add(broadcasted_iota(np.int32, shape, len(shape) - 2), np.int32(k))
    cols = broadcasted_iota(np.int32, shape, len(shape) - 1)
    return ge(rows, cols)


def tril(x: Any, k: int = 0) -> Any:
    """Keep the entries on and below diagonal ``k``; zero the rest."""
    return select(_lower_mask(_aval(x).shape, k), x, _zeros_like(x))


def triu(x: Any, k: int = 0) -> Any:
    """Keep the entries on and above diagonal ``k``; zero the rest (zero what is on and
    below diagonal ``k - 1``, as JAX writes it)."""
    return select(_lower_mask(_aval(x).shape, k - 1), _zeros_like(x), x)


def _eye_like(x: Any) -> Any:
    """Identity matrices with ``x``'s shape and dtype (as JAX's ``lax._eye`` prints)."""
    aval = _aval(x)
    rows = add(broadcasted_iota(np.int32, aval.shape, aval.ndim - 2), np.int32(0))
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
    with the diagonal halved: dL = L · φ(L⁻¹ dA L⁻ᴴ) (Murray 2016, as JAX)."""
    (x,), (dx,) = primals, tangents
    L = tril(cholesky_p.bind(x))
    if type(dx) is ad.Zero:
        return L, dx
    tmp = triangular_solve(L, dx, left_side=False, transpose_a=True, conjugate_a=True,
                           lower=True)                                  # dA L⁻ᴴ
    tmp = triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)  # L⁻¹ dA L⁻ᴴ
    dtype = _aval(x).dtype
    phi = div(tril(tmp), add(np.ones((), dtype), _eye_like(x)))         # halve the diagonal
    return L, _matmul(L, phi, precision=_HIGHEST)


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
    """x = op(a)⁻¹ b is linear in b, so db gives op(a)⁻¹ db. In a, d(a⁻¹) = -a⁻¹ da a⁻¹:
    dx = -op(a)⁻¹ op(da) x (left side), taking the cheaper order of the two products."""
    (a, b), (da, db) = primals, tangents
    x = triangular_solve_p.bind(a, b, **params)
    dx = None
    if type(da) is not ad.Zero:
        dx = _triangular_solve_jvp_a(da, x, a, b, **params)
    if type(db) is not ad.Zero:
        term = triangular_solve(a, db, **params)
        dx = term if dx is None else ad.add_tangents(dx, term)
    return x, (ad.Zero.from_value(x) if dx is None else dx)


def _triangular_solve_jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    m, n = _aval(b).shape[-2:]
    k = 1 if unit_diagonal else 0
    g_a = tril(g_a, -k) if lower else triu(g_a, k)   # only the triangle a solve reads
    g_a = neg(g_a)
    g_a = _T(g_a) if transpose_a else g_a
    g_a = conj(g_a) if conjugate_a else g_a
    dot = partial(_matmul, precision=(Precision.HIGHEST, Precision.HIGHEST))

    def a_inverse(rhs):
        return triangular_solve(a, rhs, left_side=left_side, lower=lower,
                                transpose_a=transpose_a, conjugate_a=conjugate_a,
                                unit_diagonal=unit_diagonal)
    # a solve costs about what a product costs: do the cheaper order
    if left_side:
        return a_inverse(dot(g_a, ans)) if m > n else dot(a_inverse(g_a), ans)
    return a_inverse(dot(ans, g_a)) if m < n else dot(ans, a_inverse(g_a))


def _triangular_solve_transpose(ct, a, b, **params):
    """Linear in b: the transpose of ``b -> op(a)⁻¹ b`` is ``ct -> op(a)⁻ᵀ ct``."""
    assert not ad.is_undefined_primal(a) and ad.is_undefined_primal(b)
    if type(ct) is ad.Zero:
        return [None, ad.Zero(b.aval)]
    params = dict(params, transpose_a=not params["transpose_a"])
    return [None, triangular_solve(a, ct, **params)]


def _triangular_solve_batch(args, dims, **params):
    """With a shared ``a`` (the common case: one factorization, many right-hand sides), the
    batch of b's becomes more columns (left side) or rows of one b: a single solve. Otherwise
    both batch dimensions go to the front."""
    (a, b), (ba, bb) = args, dims
    if ba is None:
        shape = _aval(b).shape
        if params["left_side"]:
            b = batching.moveaxis(b, bb, len(shape) - 1)
            shape = _aval(b).shape
            b_flat = reshape(b, shape[:-2] + (shape[-2] * shape[-1],))
            bdim_out = len(shape) - 1
        else:
            b = batching.moveaxis(b, bb, len(shape) - 2)
            shape = _aval(b).shape
            b_flat = reshape(b, shape[:-3] + (shape[-3] * shape[-2], shape[-1]))
            bdim_out = len(shape) - 2
        out_flat = triangular_solve(a, b_flat, **params)
        return reshape(out_flat, shape), bdim_out
    size = np.shape(a)[ba]
    a = batching.bdim_at_front(a, ba, size)
    b = batching.bdim_at_front(b, bb, size)
    return triangular_solve(a, b, **params), 0


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
    ``a`` is one vector."""
    conjugate_a = conjugate_a and _aval(a).dtype.kind == "c"
    singleton = np.ndim(b) == np.ndim(a) - 1
    if singleton:
        b = expand_dims(b, (-1 if left_side else -2,))
    out = triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                  transpose_a=transpose_a, conjugate_a=conjugate_a,
                                  unit_diagonal=unit_diagonal)
    if singleton:
        out = _take0(out, -1 if left_side else -2)
    return out


def _take0(x: Any, axis: int) -> Any:
    """``x[..., 0]`` (axis -1) or ``x[..., 0, :]`` (axis -2), as JAX's indexing prints it:
    a slice, then a squeeze."""
    shape = _aval(x).shape
    axis %= len(shape)
    limit = tuple(1 if i == axis else d for i, d in enumerate(shape))
    if limit != shape:
        x = slice_(x, (0,) * len(shape), limit)
    return squeeze(x, (axis,))


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


# lu's JVP rule is written, as JAX writes it, with array operations (a gather to permute
# the rows): it is registered in jnp.linalg.
_batch_at_front(lu_p)


# ``lu_pivots_to_permutation``: LAPACK's pivots (row i was swapped with row pivots[i] at
# step i) replayed on 0, 1, ..., n-1: the row order of P A. (JAX computes this inside
# its LU's lowering too, which is how ``lu`` returns both.)
def _pivots_abstract_eval(pivots: ShapedArray, *, permutation_size: int) -> ShapedArray:
    if pivots.dtype != np.dtype(np.int32):
        raise TypeError(f"lu_pivots_to_permutation requires pivots of type int32, "
                        f"got {pivots.dtype}")
    return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.dtype(np.int32))


def _pivots_impl(pivots: np.ndarray, *, permutation_size: int) -> np.ndarray:
    flat = pivots.reshape((-1, pivots.shape[-1]))
    perm = np.tile(np.arange(permutation_size, dtype=np.int32), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for i in range(flat.shape[-1]):   # swap entries i and pivots[i], in every matrix at once
        j = flat[:, i]
        perm[rows, i], perm[rows, j] = perm[rows, j], perm[rows, i].copy()
    return perm.reshape(pivots.shape[:-1] + (permutation_size,))


lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")
core.abstract_eval_rules[lu_pivots_to_permutation_p] = _pivots_abstract_eval
core.impl_rules[lu_pivots_to_permutation_p] = _pivots_impl


def _pivots_jvp(primals, tangents, **params):
    """Integers: the tangent is zero."""
    out = lu_pivots_to_permutation_p.bind(*primals, **params)
    return out, ad.Zero.from_value(out)


ad.jvp_rules[lu_pivots_to_permutation_p] = _pivots_jvp


def _pivots_batch(args, dims, *, permutation_size):
    (pivots,), (d,) = args, dims
    return lu_pivots_to_permutation_p.bind(batching.moveaxis(pivots, d, 0),
                                           permutation_size=permutation_size), 0


batching.batching_rules[lu_pivots_to_permutation_p] = _pivots_batch


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation (row order) that the LU pivots ``pivots`` describe."""
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


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
    """Differentiate A = Q R (see ``_thin_qr_jvp``). A wide A = [A1 A2] is factored as
    A1 = Q R1 (square) and R2 = Qᴴ A2, so dR2 = dQᴴ A2 + Qᴴ dA2."""
    (x,), (dx,) = primals, tangents
    q, r = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    if type(dx) is ad.Zero:
        return [q, r], [ad.Zero.from_value(q), ad.Zero.from_value(r)]
    shape = _aval(x).shape
    m, n = shape[-2:]
    if m < n:
        cols = partial(_columns, shape=shape)
        dq, dr1 = _thin_qr_jvp(q, cols(r, 0, m), cols(dx, 0, m))
        dr2 = add(_matmul(_H(dq), cols(x, m, n)), _matmul(_H(q), cols(dx, m, n)))
        return [q, r], [dq, concatenate([dr1, dr2], len(shape) - 1)]
    if full_matrices and m != n:
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    return [q, r], list(_thin_qr_jvp(q, r, dx))


def _columns(x: Any, start: int, stop: int, *, shape: tuple) -> Any:
    """``x[..., :, start:stop]``."""
    return slice_(x, (0,) * len(shape), shape[:-1] + (stop,)) if start == 0 else \
        slice_(x, (0,) * (len(shape) - 1) + (start,), _aval(x).shape[:-1] + (stop,))


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple:
    """A = Q R with A tall: Qᴴ dA R⁻¹ = Qᴴ dQ + dR R⁻¹, the sum of a skew-Hermitian and an
    upper-triangular matrix; split it by its strictly lower part. For complex A the
    diagonal's imaginary part belongs to the skew-Hermitian one (R's diagonal is real);
    JAX writes that correction for real A too (where it is zero), and so do we."""
    dx_rinv = triangular_solve(r, dx)                     # dA R⁻¹
    qt_dx_rinv = _mm(_H(q), dx_rinv)
    lower = tril(qt_dx_rinv, -1)
    domega = sub(lower, _H(lower))                        # Qᴴ dQ, skew-Hermitian
    domega = add(domega, mul(_eye_like(qt_dx_rinv), sub(qt_dx_rinv, _real(qt_dx_rinv))))
    dq = add(_mm(q, sub(domega, qt_dx_rinv)), dx_rinv)
    dr = _mm(sub(qt_dx_rinv, domega), r)
    return dq, dr


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


# eigh's JVP rule (perturbation theory) is written, as JAX writes it, with array operations
# (broadcasting by indexing, a gather for the diagonal): it is registered in jnp.linalg.
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
# Its JVP rule (first-order perturbation theory, as JAX's) needs a linear solve, which
# edujax builds in the numpy layer (``jnp.linalg``'s ``_solve``, an inner jit), so the rule
# is registered there. NB: left eigenvectors are not supported.
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


def eig(x: Any, *, compute_left_eigenvectors: bool = True,
        compute_right_eigenvectors: bool = True, enable_eigvec_derivs: bool = False,
        implementation: Any = None) -> list:
    """[w, (vl,) (vr,)]: the eigenvalues of a general square x, and the eigenvectors asked for.

    The eigenvalues can always be differentiated; the eigenvectors only with
    ``enable_eigvec_derivs=True``, an opt-in as in JAX: their derivative assumes distinct
    eigenvalues and LAPACK's normalization (unit norm, largest component real)."""
    return eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)


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


# svd's JVP rule is written, as JAX writes it, with array operations (matmuls at HIGHEST
# precision, a gather for the diagonal, a scatter for diag(1/s)): it is registered in
# jnp.linalg.
_batch_at_front(svd_p)


def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True):
    """``s`` (descending), or ``(u, s, vt)`` with x = u @ diag(s) @ vt when ``compute_uv``."""
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=None, algorithm=None)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt
