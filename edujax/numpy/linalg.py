"""``jnp.linalg``: NumPy's linear algebra, written on ``lax.linalg``'s factorizations.

Every function promotes integers to the default float first (``jnp.linalg.det`` of an
int matrix is float32), checks that it got matrices (``[..., m, n]``) and treats leading
dimensions as a batch, as NumPy does. The factorizations are primitives
(edujax/lax/linalg.py) with their own JVP rules; everything here (det from LU, solve
from two triangular solves, pinv from the SVD, ...) is composed of them and of jnp, so
``grad``, ``vmap`` and ``jit`` work through it unchanged.

NB: JAX wraps most of these functions in an inner ``jit`` (``jit[name=solve ...]``) and
gives ``det``, ``slogdet``, ``solve`` and ``pinv`` custom JVP rules (``solve`` goes
through ``custom_linear_solve``); edujax inlines them and lets differentiation run
through the factorizations, so the values agree but the jaxprs print differently.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, NamedTuple

import numpy as np

from edujax import lax
from edujax.inner_jit import inner_jit
from edujax.lax import linalg as lax_linalg
from edujax.numpy.complex_numbers import conj, real
from edujax.numpy.creation import eye
from edujax.numpy.diagonals import diagonal as _diagonal
from edujax.numpy.diagonals import trace as _trace
from edujax.numpy.misc import cross as _cross
from edujax.numpy.products import matmul, vecdot
from edujax.numpy.products import outer as _outer
from edujax.numpy.products import tensordot as _tensordot
from edujax.numpy.reductions import any as _any
from edujax.numpy.reductions import max as _max
from edujax.numpy.reductions import min as _min
from edujax.numpy.reductions import prod, sum
from edujax.numpy.shape_ops import expand_dims, swapaxes
from edujax.numpy.sorting import where
from edujax.numpy.ufuncs import abs, isnan, log, sign, sqrt
from edujax.numpy.util import broadcast_to, ensure_arraylike, promote_dtypes_inexact


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


def _H(x: Any) -> Any:
    """The conjugate transpose of a (batch of) matrices; the transpose of a real one."""
    xt = swapaxes(x, -1, -2)
    return conj(xt) if xt.dtype.kind == "c" else xt


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
def _lu_parts(a: Any):
    """LU of ``a``: the diagonal of U, and the parity of the row swaps (+1 or -1)."""
    lu, pivots, _ = lax_linalg.lu(a)
    diag = _diagonal(lu, axis1=-2, axis2=-1)
    swaps = sum(pivots != lax.iota(np.int32, a.shape[-1]), axis=-1)
    parity = 1 - 2 * (swaps % 2)
    return diag, parity.astype(a.dtype)


@inner_jit
def det(a: Any) -> Any:
    """The determinant: the product of U's diagonal from P a = L U, times the sign of P."""
    a, = _inexact("jnp.linalg.det", a)
    _check_square("_det()", a)
    diag, parity = _lu_parts(a)
    return parity * prod(diag, axis=-1)


@inner_jit(static_argnames=("method",))
def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
    """``(sign, log|det|)``: the determinant without overflow for large matrices."""
    a, = _inexact("jnp.linalg.slogdet", a)
    _check_square("slogdet()", a)
    diag, parity = _lu_parts(a)
    logabsdet = sum(log(abs(diag)), axis=-1)
    s = parity * prod(sign(diag), axis=-1)
    return SlogdetResult(s, logabsdet)


# ---------------------------------------------------------------- solving
def _lu_solve(a: Any, b: Any) -> Any:
    """x with a x = b (b a batch of matrices): P a = L U, so L U x = P b."""
    lu, _, perm = lax_linalg.lu(a)
    pb = matmul(lax_linalg.permutation_matrix(perm, a.dtype), b)
    y = lax_linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)


@inner_jit
def solve(a: Any, b: Any) -> Any:
    """x with a @ x = b. ``b`` is a vector (shape [..., n]) or matrices ([..., n, k])."""
    a, b = _inexact("jnp.linalg.solve", a, b)
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a.shape}")
    _check_square("solve", a)
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if b.shape[-2] != a.shape[-1]:
        sig = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
        raise ValueError(f"inconsistent size for core dimension 'm': {b.shape[-2]} vs "
                         f"{a.shape[-1]} on vectorized function with excluded=frozenset() and "
                         f"signature='{sig}'")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = broadcast_to(a, batch + a.shape[-2:])
    b = broadcast_to(b, batch + b.shape[-2:])
    x = _lu_solve(a, b)
    return x[..., 0] if vector else x


@inner_jit
def inv(a: Any) -> Any:
    """The inverse: ``solve(a, I)``."""
    a, = _inexact("jnp.linalg.inv", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
    return solve(a, broadcast_to(eye(a.shape[-1], dtype=a.dtype), a.shape))


def pinv(a: Any, rtol: Any = None, hermitian: bool = False) -> Any:
    """The Moore-Penrose pseudo-inverse from the SVD: V diag(1/s) Uᴴ, dropping the
    singular values below ``rtol * max(s)``. As JAX, take the SVD of conj(a) = conj(U) S
    Vᵀ: then Uᴴ and V are plain transposes."""
    a, = _inexact("jnp.linalg.pinv", a)
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = 10 * builtins.max(m, n) * np.finfo(a.dtype).eps
    u, s, vh = svd(conj(a), full_matrices=False)
    cutoff = rtol * s[..., 0:1]
    s = where(s > cutoff, s, np.inf).astype(u.dtype)
    return matmul(vh.swapaxes(-1, -2), u.swapaxes(-1, -2) / s[..., None])


def lstsq(a: Any, b: Any, rcond: Any = None, *, numpy_resid: bool = False) -> tuple:
    """The least-squares solution of a x ≈ b: ``(x, residuals, rank, s)``, from the SVD."""
    a, b = _inexact("jnp.linalg.lstsq", a, b)
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 1 and b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")
    m, n = a.shape
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * builtins.max(n, m)
    elif rcond < 0:
        rcond = np.finfo(a.dtype).eps
    u, s, vt = svd(a, full_matrices=False)
    mask = (s >= rcond * s[0]) & (s > 0)
    rank = mask.sum()
    safe_s = where(mask, s, 1).astype(a.dtype)
    s_inv = where(mask, 1 / safe_s, 0)[:, None]
    uTb = matmul(_H(u), b)
    x = matmul(_H(vt), s_inv * uTb)
    # NB: JAX's residuals are always computed (NumPy's are empty when rank < n or m <= n);
    # ``numpy_resid=True`` asks for NumPy's convention.
    if numpy_resid:
        if rank == n and m > n:
            resid = norm(b - matmul(a, x), axis=0) ** 2
        else:
            resid = np.empty(0, a.dtype)
    else:
        resid = norm(b - matmul(a, x), axis=0) ** 2
    if vector:
        x = x.ravel()
        resid = resid.ravel()
    return x, resid, rank, s


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
    result = None
    z = a
    while n > 0:               # binary exponentiation: a**13 = a**8 @ a**4 @ a
        if n % 2:
            result = z if result is None else matmul(result, z)
        n //= 2
        if n:
            z = matmul(z, z)
    return result


def matrix_rank(M: Any, rtol: Any = None, *, tol: Any = None) -> Any:
    """The number of singular values above ``rtol * max(s)`` (an int32)."""
    M, = _inexact("jnp.linalg.matrix_rank", M)
    if M.ndim < 2:
        return _any(M != 0).astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False)
    if tol is None:
        if rtol is None:
            rtol = S.max(-1, keepdims=True) * builtins.max(M.shape[-2:]) \
                * np.finfo(S.dtype).eps
        else:
            rtol = expand_dims(rtol, -1) * S.max(-1, keepdims=True) \
                if np.ndim(rtol) else rtol * S.max(-1, keepdims=True)
        tol = rtol
    return sum(S > tol, axis=-1).astype(np.int32)


# ---------------------------------------------------------------- norms
@inner_jit(static_argnames=("ord", "axis", "keepdims"))
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Vector norms (``axis`` an int, or a 1-D x) and matrix norms (``axis`` a pair, or a
    2-D x): the orders NumPy has, None meaning 2 for vectors and 'fro' for matrices."""
    x, = _inexact("jnp.linalg.norm", x)
    if axis is None:
        if ord is None:  # the 2-norm of the flattened array, whatever its rank
            out = sqrt(sum(_abs2(x)))
            return out.reshape((1,) * x.ndim) if keepdims else out
        axis = tuple(range(x.ndim))
    elif isinstance(axis, int):
        axis = (axis,)
    else:
        axis = tuple(axis)
    axis = tuple(a % x.ndim for a in axis)
    if len(axis) == 1:
        if ord is None or ord == 2:
            return sqrt(sum(_abs2(x), axis=axis, keepdims=keepdims))
        if ord == np.inf:
            return _max(abs(x), axis=axis, keepdims=keepdims)
        if ord == -np.inf:
            return _min(abs(x), axis=axis, keepdims=keepdims)
        if ord == 0:
            return sum(x != 0, dtype=x.dtype, axis=axis, keepdims=keepdims)
        if ord == 1:
            return sum(abs(x), axis=axis, keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError(f"Invalid order '{ord}' for vector norm.")
        p = np.asarray(ord, x.dtype)[()]
        return sum(abs(x) ** p, axis=axis, keepdims=keepdims) ** (1 / p)
    if len(axis) == 2:
        row, col = axis
        if row == col:
            raise ValueError(f"Duplicate axes given: {axis}")
        if ord is None or ord in ("fro", "f"):
            return sqrt(sum(_abs2(x), axis=axis, keepdims=keepdims))
        if ord == 1:
            out = _max(sum(abs(x), axis=row, keepdims=True), axis=col, keepdims=True)
        elif ord == -1:
            out = _min(sum(abs(x), axis=row, keepdims=True), axis=col, keepdims=True)
        elif ord == np.inf:
            out = _max(sum(abs(x), axis=col, keepdims=True), axis=row, keepdims=True)
        elif ord == -np.inf:
            out = _min(sum(abs(x), axis=col, keepdims=True), axis=row, keepdims=True)
        elif ord in (2, -2, "nuc"):
            perm = tuple(i for i in range(x.ndim) if i not in axis) + axis
            s = svd(x.transpose(perm), compute_uv=False)
            out = (_max(s, axis=-1) if ord == 2 else
                   _min(s, axis=-1) if ord == -2 else sum(s, axis=-1))
            if keepdims:
                for a in sorted(axis):
                    out = expand_dims(out, a)
            return out
        else:
            raise ValueError(f"Invalid order '{ord}' for matrix norm.")
        return out if keepdims else out.squeeze(axis)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                     "compute a vector-norm, or two axes to compute a matrix-norm.")


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    x, = _inexact("jnp.linalg.vector_norm", x)
    if axis is None:
        out = norm(x.ravel(), ord=ord)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# ---------------------------------------------------------------- the rest of the namespace
@inner_jit(static_argnames=("p",))
def cond(x: Any, p: Any = None) -> Any:
    """The condition number: s_max / s_min for p in (None, 2, -2), else
    ``norm(x, p) * norm(inv(x), p)``. A singular matrix gives inf."""
    x, = _inexact("jnp.linalg.cond", x)
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got x.shape={x.shape}")
    if p in (None, 2, -2):
        s = svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        if x.shape[-1] != x.shape[-2]:
            raise ValueError(f"jnp.linalg.cond: for p={p}, array must be square; "
                             f"got x.shape={x.shape}")
        r = norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))
    return where(isnan(r) & ~_any(isnan(x), axis=(-2, -1)), np.inf, r)


def multi_dot(arrays: Any, *, precision: Any = None) -> Any:
    """``arrays[0] @ arrays[1] @ ...``; a 1-D first (last) array is a row (column) vector.
    NB: JAX chooses the cheapest order of the products (opt_einsum); edujax multiplies
    left to right, which gives the same values up to rounding."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrays)}")
    out = arrays[0]
    for x in arrays[1:]:
        out = matmul(out, x, precision=precision)
    return out


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
