"""``jnp.linalg``: NumPy's linear algebra, written on ``lax.linalg``'s factorizations.

Every function promotes integers to the default float first (``jnp.linalg.det`` of an
int matrix is float32), checks that it got matrices (``[..., m, n]``) and treats leading
dimensions as a batch, as NumPy does. The factorizations are primitives
(edujax/lax/linalg.py) with their own JVP rules; everything here is composed of them and
of jnp, so ``grad``, ``vmap`` and ``jit`` work through it unchanged.

Each function is put together the way JAX 0.10 puts it together, so that ``make_jaxpr``
prints the same program: most are wrapped in an inner ``jit`` (``jit[name=solve ...]``);
``solve`` factors once and hands the two triangular solves to ``lax.custom_linear_solve``
(its derivative is then one more solve with the same factors, never a derivative of the
LU); ``det`` is a formula for 2x2 and 3x3 matrices and has a custom JVP beyond (the
adjugate, ``_cofactor_solve``); ``slogdet`` and ``pinv`` have custom JVPs too.
"""
from __future__ import annotations

import builtins
import functools
import math
import operator
from typing import Any, NamedTuple

import numpy as np

from edujax import lax
from edujax.custom_derivatives import custom_jvp
from edujax.interpreters import ad
from edujax.lax import linalg as lax_linalg
from edujax.numpy.complex_numbers import conj, iscomplexobj, real
from edujax.inner_jit import inner_jit
from edujax.numpy.creation import arange, array, asarray, empty, eye, ones, zeros, zeros_like
from edujax.numpy.index_tricks import ix_
from edujax.numpy.diagonals import diagonal as _diagonal
from edujax.numpy.diagonals import trace as _trace
from edujax.numpy.einsum import einsum
from edujax.numpy.functional import vectorize
from edujax.numpy.misc import cross as _cross
from edujax.numpy.products import matmul, vecdot
from edujax.numpy.products import outer as _outer
from edujax.numpy.products import tensordot as _tensordot
from edujax.numpy.reductions import any as _any
from edujax.numpy.reductions import max as _max
from edujax.numpy.reductions import min as _min
from edujax.numpy.reductions import count_nonzero, cumprod, prod, sum
from edujax.numpy.shape_ops import concatenate, expand_dims, swapaxes, tile
from edujax.numpy.sorting import where
from edujax.numpy.ufuncs import (abs, divide, exp, isinf, isnan, log, logical_or, power, sign,
                                  sqrt)
from edujax.numpy.util import (broadcast_to, canonicalize_axis, ensure_arraylike,
                               promote_dtypes_inexact)
from edujax.vmap import vmap


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


def _inexact(name: str, *args: Any) -> list:
    """Arrays, with integers and bools promoted to the default float (float32, or float64
    with x64 enabled)."""
    return promote_dtypes_inexact(*ensure_arraylike(name, *args))


def _check_square(name: str, a: Any) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {a.shape}")


def _T(x: Any) -> Any:
    """The transpose of a (batch of) matrices: JAX's ``x.mT``."""
    return swapaxes(x, -1, -2)


def _H(x: Any) -> Any:
    """The conjugate transpose of a (batch of) matrices; the transpose of a real one."""
    xt = swapaxes(x, -1, -2)
    return conj(xt) if xt.dtype.kind == "c" else xt


def _symmetrize(x: Any) -> Any:
    return (x + _H(x)) / 2


def _abs2(x: Any) -> Any:
    """|x|**2 elementwise: x * x, or real(x * conj(x)) for complex x (a real number)."""
    return real(x * conj(x)) if x.dtype.kind == "c" else x * x


# ---------------------------------------------------------------- factorizations
@inner_jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """The Cholesky factor of a positive-definite ``a``: lower L with a = L Lᵀ
    (``upper``: Lᵀ). A matrix that is not positive definite gives NaNs, not an error."""
    a, = _inexact("jnp.linalg.cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


@inner_jit(static_argnames=("mode",))
def qr(a: Any, mode: str = "reduced") -> Any:
    """``QRResult(Q, R)`` with a = Q R; ``mode="r"`` gives R alone, ``"complete"`` a square Q."""
    a, = _inexact("jnp.linalg.qr", a)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("edujax: qr(mode='raw') (LAPACK's Householder form)")
    q, r = lax_linalg.qr(a, full_matrices=(mode == "complete"))
    return r if mode == "r" else QRResult(q, r)


@inner_jit(static_argnames=("UPLO", "symmetrize_input"))
def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric ``a``."""
    a, = _inexact("jnp.linalg.eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eig(a: Any) -> EigResult:
    """Eigenvalues and right eigenvectors (columns) of a general square ``a``, complex
    (complex64 for 32-bit input, complex128 for 64-bit). Not differentiable in edujax."""
    a, = _inexact("jnp.linalg.eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


# ---------------------------------------------------------------- eig's derivative
# Registered here rather than next to eig_p (edujax/lax/linalg.py): it solves with
# ``_solve`` below, which needs the numpy layer's inner jit.
def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    """A v_j = w_j v_j. With V the eigenvectors, V⁻¹ dA V =: P has the eigenvalue tangents
    on its diagonal (dw_j = P_jj), and gives the eigenvector tangents off it."""
    a, = primals
    da, = tangents
    if compute_left_eigenvectors or compute_right_eigenvectors:
        if not enable_eigvec_derivs:
            raise NotImplementedError(
                "Derivatives of non-symmetric eigenvectors are only valid under assumptions "
                "on the input that JAX cannot check (see the enable_eigvec_derivs argument to "
                "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to "
                "opt in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    outs = lax_linalg.eig(a, compute_left_eigenvectors=compute_left_eigenvectors,
                          compute_right_eigenvectors=True,
                          enable_eigvec_derivs=enable_eigvec_derivs,
                          implementation=implementation)
    w, vr = outs[0], outs[-1]
    dot = functools.partial(lax.dot if a.ndim == 2 else lax.batch_matmul,
                            precision=lax.Precision.HIGHEST)
    da = ad.instantiate_zeros(da).astype(vr.dtype)
    if not (compute_left_eigenvectors or compute_right_eigenvectors):
        return [w], [(_solve(vr, da) * _T(vr)).sum(-1)]   # dw_j = (V⁻¹ dA V)_jj
    dw, dvr = _eig_vec_jvp(dot, w, vr, da)
    return [w, vr], [dw, dvr]


def _eig_vec_jvp(dot: Any, w: Any, v: Any, da: Any) -> tuple:
    """Nondegenerate perturbation theory (Giles 2008, sec. 3.1). A v_j = w_j v_j fixes v_j
    only up to a complex scalar; LAPACK picks unit 2-norm and a real largest component, and
    the tangent keeps those two (real) constraints."""
    n = w.shape[-1]
    eye_n = eye(n, dtype=w.dtype)
    Fmat = lax.reciprocal(eye_n + w[..., None, :] - w[..., None]) - eye_n  # 1/(w_j - w_i)
    P = dot(_solve(v, da), v)
    dw = _diagonal(P, axis1=-2, axis2=-1)
    U = dot(v, Fmat * P)
    # dv_j = u_j + c_j v_j; the constraints give c_j = -Re(v_j* u_j) - i Im(u_kj) / v_kj,
    # with k the row of v_j's largest entry
    k = lax.argmax(lax.abs(v), axis=v.ndim - 2, index_dtype=np.int32)
    mask = (lax.broadcasted_iota(np.int32, v.shape, v.ndim - 2)
            == lax.expand_dims(k, (v.ndim - 2,))).astype(v.dtype)
    c = lax.complex(-(v.conj() * U).sum(-2).real,
                    -(mask * U).sum(-2).imag / (mask * v).sum(-2).real)
    return dw, U + v * lax.expand_dims(c, (v.ndim - 2,))


@inner_jit
def eigvals(a: Any) -> Any:
    """The eigenvalues of a general square ``a``, complex (see ``eig``)."""
    a, = _inexact("jnp.linalg.eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


@inner_jit(static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:
    """The eigenvalues of a symmetric ``a``, ascending."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


@inner_jit(static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """``SVDResult(U, S, Vh)`` with a = U diag(S) Vh, or S alone (``compute_uv=False``).
    NB: ``hermitian=True`` is accepted and ignored (the general SVD gives the same S)."""
    a, = _inexact("jnp.linalg.svd", a)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False)
    u, s, vt = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=True)
    return SVDResult(u, s, vt)


def svdvals(x: Any, /) -> Any:
    return svd(x, compute_uv=False)


# ---------------------------------------------------------------- determinants
# JAX computes small determinants (2x2, 3x3) by their formulas, and larger ones from the
# LU factorization, with a custom JVP rule (the adjugate formula d det = tr(adj(a) da),
# which, unlike det(a) a⁻¹, stays finite for singular matrices).
def _det_2x2(a: Any) -> Any:
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a: Any) -> Any:
    """The rule of Sarrus: three products down the diagonals, minus three up them."""
    return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2] +
            a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0] +
            a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1] -
            a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0] -
            a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1] -
            a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])


@custom_jvp
def _det(a: Any) -> Any:
    sign, logdet = slogdet(a)
    return sign * exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals: tuple, tangents: tuple) -> tuple:
    """d det(a) = tr(adj(a) da), with adj(a) da from ``_cofactor_solve``."""
    x, = primals
    g, = tangents
    y, z = _cofactor_solve(x, g)
    return y, _trace(z, axis1=-1, axis2=-2)


@inner_jit
def det(a: Any) -> Any:
    """The determinant: by formula for 2x2 and 3x3 matrices, else from LU (P a = L U, so
    det a = ±prod(diag U)), as in JAX."""
    a, = _inexact("jnp.linalg.det", a)
    a_shape = np.shape(a)
    if len(a_shape) >= 2 and a_shape[-1] == 2 and a_shape[-2] == 2:
        return _det_2x2(a)
    if len(a_shape) >= 2 and a_shape[-1] == 3 and a_shape[-2] == 3:
        return _det_3x3(a)
    if len(a_shape) >= 2 and a_shape[-1] == a_shape[-2]:
        return _det(a)
    raise ValueError(f"Argument to _det() must have shape [..., n, n], got {a_shape}")


def _cofactor_solve(a: Any, b: Any) -> tuple:
    """``(det(a), adj(a) @ b)``, well defined even when a is singular.

    With P a = L U, det(a) solve(a, b) = prod(diag U) U⁻¹ L⁻¹ P b. When a has rank n-1
    only U's last diagonal entry is zero; replacing it by 1/prod(the others) makes the last
    row of the solve come out right, and multiplying the other rows by det(a) (zero) makes
    them right too. A matrix of lower rank has adjugate zero: the solves give inf/NaN there,
    and the two ``where`` filters replace them by zeros (JAX's derivation, in its source).
    """
    a, b = ensure_arraylike("jnp.linalg._cofactor_solve", a, b)
    a, = promote_dtypes_inexact(a)
    b, = promote_dtypes_inexact(b)
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not (len(a_shape) >= 2 and a_shape[-1] == a_shape[-2] and b_shape[-2:] == a_shape[-2:]):
        raise ValueError("The arguments to _cofactor_solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, m]; got a={a_shape} and b={b_shape}")
    if a_shape[-1] == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lax_linalg.lu(a)
    dtype = a.dtype
    batch_dims = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    x = broadcast_to(b, batch_dims + b.shape[-2:])
    lu = broadcast_to(lu, batch_dims + lu.shape[-2:])
    # the (partial) determinants: partial_det[..., -1] is det(a), [..., -2] det(a) / u_nn
    diag = _diagonal(lu, axis1=-2, axis2=-1)
    iota = lax.expand_dims(arange(a_shape[-1], dtype=pivots.dtype), range(pivots.ndim - 1))
    parity = count_nonzero(pivots != iota, axis=-1)
    sign = asarray(-2 * (parity % 2) + 1, dtype=dtype)
    partial_det = cumprod(diag, axis=-1) * sign[..., None]
    lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    permutation = broadcast_to(permutation, (*batch_dims, a_shape[-1]))
    iotas = ix_(*(lax.iota(np.int32, n) for n in (*batch_dims, 1)))
    # rank below n-1: the adjugate is zero (found where the solve overflows)
    d = ones(x.shape[:-1], x.dtype)
    d = lax_linalg.triangular_solve(lu, d, left_side=True, lower=False)
    d = _any(logical_or(isnan(d), isinf(d)), axis=-1)
    d = tile(d[..., None, None], d.ndim * (1,) + x.shape[-2:])
    x = where(d, zeros_like(x), x)  # first filter
    x = x[iotas[:-1] + (permutation, slice(None))]
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = concatenate((x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]),
                    axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    x = where(d, zeros_like(x), x)  # second filter
    return partial_det[..., -1], x


def _slogdet_1x1(a: Any) -> tuple:
    det = a[..., 0, 0]
    abs_det = abs(det)
    return sign(det), real(log(abs_det))


def _slogdet_2x2(a: Any) -> tuple:
    a00, a01 = a[..., 0, 0], a[..., 0, 1]
    a10, a11 = a[..., 1, 0], a[..., 1, 1]
    det = (a00 * a11) - (a01 * a10)
    abs_det = abs(det)
    return sign(det), real(log(abs_det))


@custom_jvp
def _slogdet_small(a: Any) -> tuple:
    """slogdet of a 1x1 or 2x2 matrix by formula (no LU, no solve)."""
    return _slogdet_1x1(a) if a.shape[-1] == 1 else _slogdet_2x2(a)


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals: tuple, tangents: tuple) -> tuple:
    x, = primals
    g, = tangents
    sign_, ans = _slogdet_small(x)
    if x.shape[-1] == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:  # d log det = tr(a⁻¹ da), with a⁻¹ = adj(a) / det(a) written out
        x00, x01 = x[..., 0, 0], x[..., 0, 1]
        x10, x11 = x[..., 1, 0], x[..., 1, 1]
        det = (x00 * x11) - (x01 * x10)
        ans_dot = (g[..., 0, 0] * x11 - g[..., 0, 1] * x10
                   - g[..., 1, 0] * x01 + g[..., 1, 1] * x00) / det
    return (sign_, ans), _slogdet_sign_dot(x, sign_, ans_dot)


def _slogdet_sign_dot(x: Any, sign_: Any, ans_dot: Any) -> tuple:
    """The tangents (sign_dot, logabsdet_dot) from d log det = ``ans_dot``: a real sign
    does not move; a complex one turns by the imaginary part."""
    if x.dtype.kind == "c":
        sign_dot = (ans_dot - real(ans_dot).astype(ans_dot.dtype)) * sign_
        return sign_dot, real(ans_dot)
    return zeros_like(sign_), ans_dot


@custom_jvp
def _slogdet_lu(a: Any) -> tuple:
    """sign and log|det| from P a = L U: the product of U's diagonal, the sign of P.
    The JVP is custom: sign(det) jumps at det = 0, and d log|det a| = tr(a⁻¹ da) is
    simpler and better behaved than differentiating through the LU."""
    dtype = a.dtype
    lu, pivot, _ = lax_linalg.lu(a)
    diag = _diagonal(lu, axis1=-2, axis2=-1)
    is_zero = _any(diag == array(0, dtype=dtype), axis=-1)
    iota = lax.expand_dims(arange(a.shape[-1], dtype=pivot.dtype), range(pivot.ndim - 1))
    parity = count_nonzero(pivot != iota, axis=-1)   # each row swap flips the sign
    if iscomplexobj(a):
        sign_ = prod(diag / abs(diag).astype(diag.dtype), axis=-1)
    else:
        sign_ = array(1, dtype=dtype)
        parity = parity + count_nonzero(diag < 0, axis=-1)
    sign_ = where(is_zero, array(0, dtype=dtype),
                  sign_ * array(-2 * (parity % 2) + 1, dtype=dtype))
    logdet = where(is_zero, array(-np.inf, dtype=dtype),
                   sum(log(abs(diag)).astype(dtype), axis=-1))
    return sign_, real(logdet)


@_slogdet_lu.defjvp
def _slogdet_jvp(primals: tuple, tangents: tuple) -> tuple:
    """d log|det a| = tr(a⁻¹ da)."""
    x, = primals
    g, = tangents
    sign_, ans = slogdet(x)
    ans_dot = _trace(solve(x, g), axis1=-1, axis2=-2)
    return (sign_, ans), _slogdet_sign_dot(x, sign_, ans_dot)


@inner_jit(static_argnames=("method",))
def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
    """``(sign, log|det|)``: the determinant without overflow for large matrices."""
    a, = _inexact("jnp.linalg.slogdet", a)
    a_shape = np.shape(a)
    if len(a_shape) < 2 or a_shape[-1] != a_shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {a_shape}")
    if method is None or method == "lu":
        if a_shape[-1] in (1, 2):
            return SlogdetResult(*_slogdet_small(a))
        return SlogdetResult(*_slogdet_lu(a))
    if method == "qr":
        # NB: JAX factors with geqrf (Householder QR) here; edujax has no geqrf primitive.
        raise NotImplementedError("edujax: slogdet(method='qr')")
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                     "(`None`), and 'qr'.")


# ---------------------------------------------------------------- solving
# As in JAX, ``solve(a, b)`` factors ``a`` once (P a = L U) and hands the two triangular
# solves to ``lax.custom_linear_solve``: differentiating then never goes through the LU
# (its tangent is one more solve with the same factors, its transpose a solve with aᵀ).
# NB: JAX keeps ``_solve`` and ``_lu_solve`` in lax.linalg; in edujax the inner ``jit``
# that ``_lu_solve`` needs lives in the numpy layer, so they are here.
def _lu_solve_core(lu: Any, permutation: Any, b: Any, trans: int) -> Any:
    """Solve with one factorization: ``trans=0`` a x = b, ``1`` aᵀ x = b, ``2`` aᴴ x = b."""
    m = lu.shape[0]
    x = lax.reshape(b, (m, math.prod(b.shape[1:])))
    if trans == 0:                   # L U x = P b
        x = x[permutation, :]
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    elif trans == 1 or trans == 2:   # Uᵀ Lᵀ (P x) = b, then undo the permutation
        conj = trans == 2
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False, transpose_a=True,
                                        conjugate_a=conj)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                                        transpose_a=True, conjugate_a=conj)
        _, ind = lax.sort_key_val(permutation, lax.iota("int32", permutation.shape[0]))
        x = x[ind, :]
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return lax.reshape(x, b.shape)


@inner_jit(static_argnums=(3,))
def _lu_solve(lu: Any, permutation: Any, b: Any, trans: int) -> Any:
    """``_lu_solve_core`` for batches: b a vector (one dimension less than lu) or matrices."""
    if len(lu.shape) < 2 or lu.shape[-1] != lu.shape[-2]:
        raise ValueError("last two dimensions of LU decomposition must be equal, "
                         f"got shape {lu.shape}")
    if len(b.shape) < 1:
        raise ValueError(f"b matrix must have rank >= 1, got shape {b.shape}")
    rhs_vector = lu.ndim == b.ndim + 1
    if rhs_vector:
        if b.shape[-1] != lu.shape[-1]:
            raise ValueError("When LU decomposition matrix and b have the same number of "
                             f"dimensions, last axis of LU decomposition matrix (shape "
                             f"{lu.shape}) and b array (shape {b.shape}) must match")
        b = b[..., None]
    elif b.shape[-2] != lu.shape[-1]:
        raise ValueError("When LU decomposition matrix and b different numbers of dimensions, "
                         f"last axis of LU decomposition matrix (shape {lu.shape}) and second "
                         f"to last axis of b array (shape {b.shape}) must match")
    batch_shape = np.broadcast_shapes(lu.shape[:-2], permutation.shape[:-1], b.shape[:-2])
    lu = _broadcast_to(lu, (*batch_shape, *lu.shape[-2:]))
    permutation = _broadcast_to(permutation, (*batch_shape, permutation.shape[-1]))
    b = _broadcast_to(b, (*batch_shape, *b.shape[-2:]))
    fn = _lu_solve_core
    for _ in batch_shape:
        fn = vmap(fn, in_axes=(0, 0, 0, None))
    x = fn(lu, permutation, b, trans)
    return x[..., 0] if rhs_vector else x


def _broadcast_to(x: Any, shape: tuple) -> Any:
    """lax.linalg's broadcast: new leading dimensions. (To the same shape it is still bound,
    and staging drops it; only a linearization keeps it, as in JAX.)"""
    return lax.broadcast_in_dim(x, shape, range(len(shape) - x.ndim, len(shape)))


def _broadcasted_matvec(a: Any, b: Any) -> Any:
    """(..., n, m) @ (..., m) -> (..., n), as one dot_general with batch dimensions."""
    batch_shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-1])
    n_batch = len(batch_shape)
    a = _broadcast_to(a, (*batch_shape, *a.shape[-2:]))
    b = _broadcast_to(b, (*batch_shape, b.shape[-1]))
    dimension_numbers = (([a.ndim - 1], [b.ndim - 1]), (list(range(n_batch)),
                                                         list(range(n_batch))))
    return lax.dot_general(a, b, dimension_numbers, precision=lax.Precision.HIGHEST)


def _solve(a: Any, b: Any) -> Any:
    """x with a x = b for one a (m x m) and b (m) or (m, k): LU once, then
    ``custom_linear_solve`` with the LU solves as ``solve`` and ``transpose_solve``."""
    if not (a.ndim >= 2 and b.ndim in [a.ndim, a.ndim - 1]
            and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")
    # custom_linear_solve wants b with a's leading dimensions
    out_shape = tuple(d_a if d_b == 1 else d_b
                      for d_a, d_b in zip(a.shape[:-1] + (1,), b.shape))
    b = lax.broadcast_in_dim(b, out_shape, range(b.ndim))
    lu_, _, permutation = lax_linalg.lu(lax.stop_gradient(a))
    custom_solve = functools.partial(
        lax.custom_linear_solve,
        lambda x: _broadcasted_matvec(a, x),
        solve=lambda _, x: _lu_solve(lu_, permutation, x, 0),
        transpose_solve=lambda _, x: _lu_solve(lu_, permutation, x, 1))
    if a.ndim == b.ndim + 1:   # b a vector
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)   # column by column


@inner_jit
def solve(a: Any, b: Any) -> Any:
    """x with a @ x = b. ``b`` is a vector (shape [..., n]) or matrices ([..., n, k])."""
    a, b = _inexact("jnp.linalg.solve", a, b)
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a.shape}")
    # inputs that before JAX 0.5 meant a batch of vectors
    if (b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]
            and a.shape[-1] != b.shape[-2]):
        raise ValueError(
            f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0,"
            " this would have been treated as a batched 1-dimensional solve."
            " To recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    signature = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,n)->(m,n)"
    return vectorize(_solve, signature=signature)(a, b)


@inner_jit
def inv(a: Any) -> Any:
    """The inverse: ``solve(a, I)``."""
    arr, = ensure_arraylike("jnp.linalg.inv", a)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {arr.shape}.")
    return solve(arr, lax.broadcast(eye(arr.shape[-1], dtype=arr.dtype), arr.shape[:-2]))


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """The Moore-Penrose pseudo-inverse from the SVD: V diag(1/s) Uᴴ, dropping the
    singular values at or below ``rtol * max(s)``. Differentiated by Golub and Pereyra's
    formula (``_pinv_jvp``), not through the SVD."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, hermitian)


@inner_jit(static_argnames=("hermitian",))
def _pinv(a: Any, rtol: Any = None, hermitian: bool = False) -> Any:
    a, = ensure_arraylike("jnp.linalg.pinv", a)
    arr, = promote_dtypes_inexact(a)
    m, n = arr.shape[-2:]
    if m == 0 or n == 0:
        return empty(arr.shape[:-2] + (n, m), arr.dtype)
    arr = conj(arr)
    if rtol is None:   # NB: NumPy's default is 1e-15; JAX's (and ours) depends on the dtype
        rtol = 10. * builtins.max(arr.shape[-2:]) * array(np.finfo(arr.dtype).eps)
    rtol = asarray(rtol)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = lax.expand_dims(rtol[..., None], range(s.ndim - rtol.ndim - 1))
    cutoff = rtol * s[..., 0:1]
    s = where(s > cutoff, s, np.inf).astype(u.dtype)   # 1/inf = 0: the dropped values
    res = matmul(_T(vh), divide(_T(u), s[..., None]), precision=lax.Precision.HIGHEST)
    return lax.convert_element_type(res, arr.dtype)


# custom_jvp outside the jit, as in JAX: the jaxpr shows custom_jvp_call around jit[_pinv]
_pinv = custom_jvp(_pinv, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol: Any, hermitian: bool, primals: tuple, tangents: tuple) -> tuple:
    """Golub and Pereyra (1973): the derivative of the pseudo-inverse p of a, in terms of
    p and a alone (no SVD tangents, which are undefined for repeated singular values)."""
    a, = primals  # m x n
    a_dot, = tangents
    p = pinv(a, rtol=rtol, hermitian=hermitian)  # n x m
    if hermitian:   # svd(..., hermitian=True) symmetrizes its input; the JVP must match
        a, a_dot = _symmetrize(a), _symmetrize(a_dot)
    m, n = a.shape[-2:]
    # JAX computes these products under config.default_matmul_precision("float32"), which
    # makes every matmul of the rule a HIGHEST-precision one (edujax has no such setting)
    mm = functools.partial(matmul, precision=lax.Precision.HIGHEST)
    if m >= n:
        s = mm(mm(p, _H(p)), _H(a_dot))  # n x m
        t = mm(mm(_H(a_dot), _H(p)), p)  # n x m
        p_dot = mm(-mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
    else:
        s = mm(p, mm(_H(p), _H(a_dot)))
        t = mm(_H(a_dot), mm(_H(p), p))
        p_dot = mm(-p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
    return p, p_dot


def _lstsq(a: Any, b: Any, rcond: Any, *, numpy_resid: bool = False) -> tuple:
    """The least-squares solution of a x ≈ b from the SVD: ``(x, residuals, rank, s)``."""
    a, b = promote_dtypes_inexact(a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = b.ndim
    if b_orig_ndim == 1:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")
    m, n = a.shape
    dtype = a.dtype
    if a.size == 0:
        s = empty(0, dtype=a.dtype)
        rank = array(0, dtype=int)
        x = zeros((n, *b.shape[1:]), dtype=a.dtype)
    else:
        if rcond is None:
            rcond = float(np.finfo(dtype).eps) * builtins.max(n, m)
        else:
            rcond = where(rcond < 0, np.finfo(dtype).eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= array(rcond, dtype=s.dtype) * s[0])   # the values kept
        rank = mask.sum()
        safe_s = where(mask, s, 1).astype(a.dtype)
        s_inv = where(mask, 1 / safe_s, 0)[:, None]
        uTb = matmul(u.conj().T, b, precision=lax.Precision.HIGHEST)
        x = matmul(vt.conj().T, s_inv * uTb, precision=lax.Precision.HIGHEST)
    # NB: as JAX, the residuals are always computed (NumPy's are empty when rank < n or
    # m <= n); ``numpy_resid=True`` asks for NumPy's convention.
    if numpy_resid and (rank < n or m <= n):
        resid = asarray([])
    else:
        b_estimate = matmul(a, x, precision=lax.Precision.HIGHEST)
        resid = norm(b - b_estimate, axis=0) ** 2
    if b_orig_ndim == 1:
        x = x.ravel()
    return x, resid, rank, s


_jit_lstsq = inner_jit(_lstsq)   # JAX jits it (numpy_resid=False) under the name _lstsq


def lstsq(a: Any, b: Any, rcond: Any = None, *, numpy_resid: bool = False) -> tuple:
    """The least-squares solution of a x ≈ b: ``(x, residuals, rank, s)``, from the SVD."""
    a, b = ensure_arraylike("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq(a, b, rcond, numpy_resid=True)
    return _jit_lstsq(a, b, rcond)


ad.jvp_rules[lax_linalg.eig_p] = _eig_jvp


# ---------------------------------------------------------------- eigh's derivative
# JAX writes this rule with array operations (broadcast by indexing, a gather for the
# diagonal), so edujax registers it here, where those exist.
def _lax_eye(dtype: Any, n: int) -> Any:
    """The identity as ``lax._eye`` builds it: iota + 0 == iota, cast."""
    rows = lax.add(lax.broadcasted_iota(np.int32, (n, n), 0), np.int32(0))
    return lax.convert_element_type(lax.eq(rows, lax.broadcasted_iota(np.int32, (n, n), 1)),
                                    dtype)


def _extract_diagonal(s: Any) -> Any:
    """The diagonal of a batch of matrices, ``s[..., i, i]`` (a gather, as JAX's)."""
    i = lax.iota("int32", builtins.min(s.shape[-2], s.shape[-1]))
    return s[..., i, i]


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    """Nondegenerate perturbation theory: with M = Vᴴ dA V, dw = Re diag(M) and
    dV = V (F ∘ M), F[i, j] = 1 / (w[j] - w[i]) off the diagonal.
    NB: like JAX's, the eigenvector tangent is undefined for repeated eigenvalues."""
    a, = primals
    a_dot, = tangents
    n = a.shape[-1]
    if not (subset_by_index is None or subset_by_index == (0, n)):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    v, w_real = lax_linalg.eigh_p.bind(lax_linalg.symmetrize(a), lower=lower,
                                       sort_eigenvalues=sort_eigenvalues,
                                       subset_by_index=subset_by_index, algorithm=algorithm)
    w = w_real.astype(a.dtype)   # complex for a complex a
    eye_n = _lax_eye(a.dtype, n)
    Fmat = lax.integer_pow(eye_n + w[..., None, :] - w[..., None], -1) - eye_n
    dot = functools.partial(lax.dot if a.ndim == 2 else lax.batch_matmul,
                            precision=lax.Precision.HIGHEST)
    vdag_adot_v = dot(dot(_H(v), ad.instantiate_zeros(a_dot)), v)
    dv = dot(v, Fmat * vdag_adot_v)
    dw = _extract_diagonal(vdag_adot_v.real)
    return (v, w_real), (dv, dw)


ad.jvp_rules[lax_linalg.eigh_p] = _eigh_jvp


# ---------------------------------------------------------------- svd's derivative
def _construct_diagonal(s: Any) -> Any:
    """A batch of diagonal matrices with ``s`` on their diagonals (a scatter, as JAX's)."""
    i = lax.iota("int32", s.shape[-1])
    return lax.full((*s.shape, s.shape[-1]), 0, s.dtype).at[..., i, i].set(s)


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index,
             algorithm=None):
    """JAX's rule: with dS := Uᴴ dA V, ds = Re diag(dS); the tangents of U and V come from
    dS's off-diagonal part divided by s[j]² - s[i]² (and, for complex A, from the imaginary
    part of its diagonal), plus, for a non-square A, the part of dA outside U's (or V's) span."""
    A, = primals
    dA, = tangents
    s, U, Vt = lax_linalg.svd_p.bind(A, full_matrices=False, compute_uv=True,
                                     subset_by_index=subset_by_index, algorithm=algorithm)
    if compute_uv and full_matrices and A.shape[-2] != A.shape[-1]:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    dA = ad.instantiate_zeros(dA)
    # JAX computes under default_matmul_precision("float32"): every product at HIGHEST
    mm = functools.partial(matmul, precision=lax.Precision.HIGHEST)
    Ut, V = _H(U), _H(Vt)
    s_dim = s[..., None, :]
    dS = mm(mm(Ut, dA), V)
    ds = _extract_diagonal(dS.real)
    if not compute_uv:
        return (s,), (ds,)
    s_diffs = (s_dim + _T(s_dim)) * (s_dim - _T(s_dim))   # s[j]² - s[i]²
    s_diffs_zeros = lax.expand_dims(_lax_eye(s.dtype, s.shape[-1]), range(s_diffs.ndim - 2))
    F = 1 / (s_diffs + s_diffs_zeros) - s_diffs_zeros
    dSS = s_dim.astype(A.dtype) * dS        # dS diag(s)
    SdS = _T(s_dim.astype(A.dtype)) * dS    # diag(s) dS
    s_zeros = (s == 0).astype(s.dtype)
    s_inv = 1 / (s + s_zeros) - s_zeros
    s_inv_mat = _construct_diagonal(s_inv)
    dUdV_diag = .5 * (dS - _H(dS)) * s_inv_mat.astype(A.dtype)
    dU = mm(U, F.astype(A.dtype) * (dSS + _H(dSS)) + dUdV_diag)
    dV = mm(V, F.astype(A.dtype) * (SdS + _H(SdS)))
    m, n = A.shape[-2:]
    if m > n:
        dAV = mm(dA, V)
        dU = dU + (dAV - mm(U, mm(Ut, dAV))) / s_dim.astype(A.dtype)
    if n > m:
        dAHU = mm(_H(dA), U)
        dV = dV + (dAHU - mm(V, mm(Vt, dAHU))) / s_dim.astype(A.dtype)
    return (s, U, Vt), (ds, dU, _H(dV))


ad.jvp_rules[lax_linalg.svd_p] = _svd_jvp


# ---------------------------------------------------------------- lu's derivative
def _lu_jvp_inner(lu: Any, a_dot: Any, permutation: Any) -> Any:
    """One matrix: P A = L U gives P dA = dL U + L dU, so L⁻¹ P dA U⁻¹ = L⁻¹dL + dU U⁻¹;
    dL = L tril(L⁻¹ P dA U⁻¹, -1) and dU = triu(L⁻¹ P dA U⁻¹) U. (Written for an m x n
    ``a`` as JAX's is, L and U padded to squares; edujax's lu factors square ones.)"""
    m, n = np.shape(a_dot)
    dtype = a_dot.dtype
    k = builtins.min(m, n)
    zero = np.zeros((), lu.dtype)
    l_padding = [(0, 0, 0), (0, m - k, 0)]
    l = lax.pad(lax_linalg.tril(lu[:, :k], -1), zero, l_padding)
    l = l + _lax_eye(dtype, m)
    u_eye = lax.pad(_lax_eye(dtype, n - k), zero, ((k, 0, 0), (k, 0, 0)))
    u_padding = [(0, n - k, 0), (0, 0, 0)]
    u = lax.pad(lax_linalg.triu(lu[:k, :]), zero, u_padding) + u_eye
    la = lax_linalg.triangular_solve(l, a_dot[permutation], left_side=True, transpose_a=False,
                                     lower=True, unit_diagonal=True)
    lau = lax_linalg.triangular_solve(u, la, left_side=False, transpose_a=False, lower=False)
    # (JAX multiplies under default_matmul_precision("highest"))
    l_dot = matmul(l, lax_linalg.tril(lau, -1), precision=lax.Precision.HIGHEST)
    u_dot = matmul(lax_linalg.triu(lau), u, precision=lax.Precision.HIGHEST)
    return l_dot + u_dot


def _lu_jvp(primals, tangents):
    a, = primals
    a_dot, = tangents
    lu, pivots, permutation = lax_linalg.lu_p.bind(a)
    zeros = [ad.Zero.from_value(pivots), ad.Zero.from_value(permutation)]
    if type(a_dot) is ad.Zero:
        return [lu, pivots, permutation], [ad.Zero.from_value(lu)] + zeros
    lu_dot_fun = _lu_jvp_inner
    for _ in np.shape(a)[:-2]:
        lu_dot_fun = vmap(lu_dot_fun)
    return [lu, pivots, permutation], [lu_dot_fun(lu, a_dot, permutation)] + zeros


ad.jvp_rules[lax_linalg.lu_p] = _lu_jvp


# ---------------------------------------------------------------- powers and ranks
@inner_jit(static_argnames=("n",))
def matrix_power(a: Any, n: int) -> Any:
    """a @ a @ ... @ a (n times) by repeated squaring; a negative n inverts first."""
    a, = ensure_arraylike("jnp.linalg.matrix_power", a)
    if a.ndim < 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if a.shape[-2] != a.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return broadcast_to(eye(a.shape[-2], dtype=a.dtype), a.shape)
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:               # binary exponentiation: a**13 = a**8 @ a**4 @ a
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


@inner_jit(static_argnames=("hermitian",))
def matrix_rank(M: Any, rtol: Any = None, *, hermitian: bool = False, tol: Any = None) -> Any:
    """The number of singular values above ``rtol * max(s)`` (an int32)."""
    M, = ensure_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M, = promote_dtypes_inexact(M)
    if M.ndim < 2:
        return _any(M != 0).astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:   # NumPy's default: the largest s, times max(m, n) times eps
        rtol = S.max(-1) * np.max(M.shape[-2:]).astype(S.dtype) * np.finfo(S.dtype).eps
    rtol = expand_dims(rtol, np.ndim(rtol))
    return sum(S > rtol, axis=-1)


# ---------------------------------------------------------------- norms
@inner_jit(static_argnames=("ord", "axis", "keepdims"))
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Vector norms (``axis`` an int, or a 1-D x) and matrix norms (``axis`` a pair, or a
    2-D x): the orders NumPy has, None meaning 2 for vectors and 'fro' for matrices."""
    x, = _inexact("jnp.linalg.norm", x)
    if axis is None:
        if ord is None:  # the 2-norm of the flattened array, whatever its rank
            return sqrt(sum(_abs2(x), keepdims=keepdims))
        axis = tuple(range(x.ndim))
    elif isinstance(axis, tuple):
        axis = tuple(canonicalize_axis(a, x.ndim) for a in axis)
    else:
        axis = (canonicalize_axis(axis, x.ndim),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) == 2:
        row, col = axis
        if row == col:
            raise ValueError(f"Duplicate axes given: {axis}")
        if ord is None or ord in ("fro", "f"):
            return sqrt(sum(_abs2(x), axis=axis, keepdims=keepdims))
        if ord in (1, -1):         # the largest (smallest) column sum
            if not keepdims and col > row:
                col -= 1
            sums = sum(abs(x), axis=row, keepdims=keepdims)
            if ord == 1:
                return _max(sums, axis=col, keepdims=keepdims, initial=0)
            return _min(sums, axis=col, keepdims=keepdims)
        if ord in (np.inf, -np.inf):   # the largest (smallest) row sum
            if not keepdims and row > col:
                row -= 1
            sums = sum(abs(x), axis=col, keepdims=keepdims)
            if ord == np.inf:
                return _max(sums, axis=row, keepdims=keepdims, initial=0)
            return _min(sums, axis=row, keepdims=keepdims)
        if ord in ("nuc", 2, -2):
            perm = tuple(i for i in range(x.ndim) if i not in axis) + axis
            s = svd(x.transpose(perm), compute_uv=False)
            out = (_max(s, axis=-1, initial=0) if ord == 2 else
                   _min(s, axis=-1) if ord == -2 else sum(s, axis=-1))
            return expand_dims(out, axis) if keepdims else out
        raise ValueError(f"Invalid order '{ord}' for matrix norm.")
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                     "compute a vector-norm, or two axes to compute a matrix-norm.")


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """The vector ``ord``-norm along ``axis`` (all axes by default, as one flat vector)."""
    x, = ensure_arraylike("jnp.linalg.vector_norm", x)
    if ord is None or ord == 2:
        return sqrt(sum(_abs2(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _max(abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return _min(abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(x != 0, dtype=np.finfo(x.dtype).dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return sum(abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            msg += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            msg += "Use '-jax.numpy.inf' instead."
        raise ValueError(msg)
    abs_x = abs(x)
    ord_arr = np.asarray(ord, abs_x.dtype)[()]          # JAX's lax._const(abs_x, ord)
    ord_inv = np.asarray(1. / ord_arr, abs_x.dtype)[()]
    return power(sum(abs_x ** ord_arr, axis=axis, keepdims=keepdims), ord_inv)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# ---------------------------------------------------------------- the rest of the namespace
@inner_jit(static_argnames=("p",))
def cond(x: Any, p: Any = None) -> Any:
    """The condition number: s_max / s_min for p in (None, 2, -2), else
    ``norm(x, p) * norm(inv(x), p)``. A singular matrix gives inf."""
    arr, = ensure_arraylike("cond", x)
    if arr.ndim < 2:
        raise ValueError("jnp.linalg.cond: input array must be at least 2D; "
                         f"got arr.shape={arr.shape}")
    if arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise ValueError("jnp.linalg.cond: input array must not be empty; "
                         f"got arr.shape={arr.shape}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]   # NB: like JAX, no NaN-to-inf fix here
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        if arr.shape[-2] != arr.shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p!r}, array must be square; "
                             f"got arr.shape={arr.shape}")
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # a NaN from a singular matrix means an infinite condition number (not so when x had NaNs)
    return where(isnan(r) & ~isnan(x).any(axis=(-2, -1)), np.inf, r)


def multi_dot(arrays: Any, *, precision: Any = None) -> Any:
    """``arrays[0] @ arrays[1] @ ...``; a 1-D first (last) array is a row (column) vector.
    As in JAX, one ``einsum`` that chooses the cheapest order of the products."""
    arrs = list(ensure_arraylike("jnp.linalg.multi_dot", *arrays))
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2)
            and all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the "
                         "first and last array which may be 1 or 2 dimensional. Got array "
                         f"shapes {[a.shape for a in arrs]}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first dimension "
                         f"of following array. Got array shapes {[a.shape for a in arrs]}")
    einsum_axes: list[tuple[int, ...]] = [(i, i + 1) for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        einsum_axes[0] = einsum_axes[0][1:]
    if arrs[-1].ndim == 1:
        einsum_axes[-1] = einsum_axes[-1][:1]
    operands = [x for pair in zip(arrs, einsum_axes) for x in pair]
    return einsum(*operands, optimize="auto", precision=precision)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """The cross product of (stacks of) 3-vectors along ``axis`` (the array API's
    version of ``jnp.cross``: 3-vectors only)."""
    x1, x2 = ensure_arraylike("jnp.linalg.outer", x1, x2)   # (sic: JAX's message)
    if np.shape(x1)[axis] != 3 or np.shape(x2)[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they have x1.shape[axis]={np.shape(x1)[axis]} and "
            f"x2.shape[axis]={np.shape(x2)[axis]}")
    return _cross(x1, x2, axis=axis)


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two axes."""
    x, = ensure_arraylike("jnp.linalg.matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={x.ndim}")
    return swapaxes(x, -1, -2)  # no conjugation


def outer(x1: Any, x2: Any, /) -> Any:
    """The outer product of two vectors."""
    x1, x2 = ensure_arraylike("jnp.linalg.outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim="
                         f"{x1.ndim} x2.ndim={x2.ndim}")
    return _outer(x1, x2)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """The sum of each matrix's diagonal (over the last two axes)."""
    x, = ensure_arraylike("jnp.linalg.trace", x)
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """Each matrix's diagonal (over the last two axes)."""
    x, = ensure_arraylike("jnp.linalg.diagonal", x)
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    return _tensordot(x1, x2, axes=axes, precision=precision,
                      preferred_element_type=preferred_element_type)


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """x with ``tensordot(a, x, x.ndim) == b``: a reshaped into one square matrix."""
    a, b = _inexact("jnp.linalg.tensorsolve", a, b)
    if axes is not None:  # move these axes of a to the end
        axes = tuple(ax % a.ndim for ax in ((axes,) if isinstance(axes, int) else axes))
        a = a.transpose(tuple(i for i in range(a.ndim) if i not in axes) + axes)
    out_shape = a.shape[b.ndim:]
    size = int(np.prod(out_shape))
    if int(np.prod(a.shape[:b.ndim])) != size:
        raise ValueError("tensorsolve requires a.shape[:b.ndim] to have the same number of "
                         f"elements as a.shape[b.ndim:]; got a.shape={a.shape}, b.ndim={b.ndim}")
    return solve(a.reshape(size, size), b.ravel()).reshape(out_shape)


def tensorinv(a: Any, ind: int = 2) -> Any:
    """The inverse of a seen as a matrix from its last dimensions to its first ``ind``."""
    a, = _inexact("jnp.linalg.tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    contracting, batch = a.shape[:ind], a.shape[ind:]
    rows, cols = int(np.prod(contracting)), int(np.prod(batch))
    if rows != cols:
        raise ValueError(f"tensorinv is only possible when the product of the first "
                         f"ind={ind} dimensions equals that of the remaining dimensions. "
                         f"got a.shape={a.shape}")
    return inv(a.reshape(rows, cols)).reshape(*batch, *contracting)


__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "lstsq", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot",
           "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
           "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm", "EigResult", "EighResult",
           "QRResult", "SlogdetResult", "SVDResult"]
