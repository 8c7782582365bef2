"""``check_grads``: test a function's derivatives against finite differences, as JAX's does.

    from edujax.test_util import check_grads
    check_grads(f, (x,), order=2)            # forward and reverse mode, up to 2nd order

Forward mode is checked by comparing ``jvp`` with a central difference
``(f(x + eps*v) - f(x - eps*v)) / (2 eps)`` along a random direction ``v``.
Reverse mode is checked through the identity ``<u, J v> == <J^T u, v>``, with ``J v``
taken from that same finite difference, so each mode is checked on its own.
Higher orders apply the same checks to the derivative functions themselves.

Complex inputs get complex random directions (``randn() + 1j * randn()``), and the inner
product is ``Re(vdot(a, b))``: a complex number is a pair of reals here, so the checks hold
for holomorphic and non-holomorphic functions alike. The reverse check conjugates the
cotangent on the way in and out, as JAX's does, because JAX's vjp of a complex function
returns the conjugate of the "pair of reals" gradient.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from edujax import autodiff
from edujax import numpy as jnp
from edujax.tree_util import tree_flatten, tree_map, tree_unflatten


def _default_tolerance(dtype: np.dtype) -> float:
    low = {np.float16: 1e-1, np.float32: 2e-2, np.complex64: 2e-2}
    return {np.dtype(k): v for k, v in low.items()}.get(np.dtype(dtype), 1e-5)


def _random_one(x: Any, rng: np.random.Generator) -> np.ndarray:
    dtype = np.asarray(x).dtype
    value = rng.standard_normal(np.shape(x))
    if np.issubdtype(dtype, np.complexfloating):  # a complex direction moves both parts
        value = value + 1j * rng.standard_normal(np.shape(x))
    return np.asarray(value).astype(dtype)


def _random_like(tree: Any, rng: np.random.Generator) -> Any:
    return tree_map(lambda x: _random_one(x, rng), tree)


def _conj(tree: Any) -> Any:
    return tree_map(lambda x: np.conj(np.asarray(x)), tree)


def _add(tree: Any, other: Any, scale: float) -> Any:
    """``tree + scale * other``, as edujax Arrays (the function under test may use .at[])."""
    return tree_map(lambda x, y: jnp.asarray(np.asarray(x) + scale * np.asarray(y)), tree, other)


def _vdot(a: Any, b: Any) -> float:
    """The real inner product ``sum Re(conj(a) * b)``: complex numbers as pairs of reals."""
    la, _ = tree_flatten(a)
    lb, _ = tree_flatten(b)
    return float(sum(np.real(np.vdot(_wide(x), _wide(y))) for x, y in zip(la, lb)))


def _wide(x: Any) -> np.ndarray:
    """x in float64, or complex128 when complex (so no imaginary part is dropped)."""
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64).reshape(-1)


def _numerical_jvp(f: Callable, args: tuple, v: tuple, eps: float) -> Any:
    """The central difference ``(f(x + eps v) - f(x - eps v)) / (2 eps)``."""
    plus = f(*_add(args, v, eps))
    minus = f(*_add(args, v, -eps))
    return tree_map(lambda p, m: (np.asarray(p) - np.asarray(m)) / (2 * eps), plus, minus)


def _default_eps(dtype: np.dtype) -> float:
    return 1e-4 if dtype in (np.float64, np.complex128) else 1e-2


def _assert_close(name: str, a: Any, b: Any, atol: float, rtol: float) -> None:
    for x, y in zip(tree_flatten(a)[0], tree_flatten(b)[0]):
        np.testing.assert_allclose(_wide(x), _wide(y), atol=atol, rtol=rtol,
                                   err_msg=f"{name} check failed")


def check_jvp(f: Callable, args: Sequence[Any], atol: float | None = None,
              rtol: float | None = None, eps: float | None = None,
              rng: np.random.Generator | None = None) -> None:
    """jvp(f) against a central finite difference along a random direction."""
    rng = rng or np.random.default_rng(0)
    dtype = np.asarray(tree_flatten(args)[0][0]).dtype
    tol = _default_tolerance(dtype)
    atol, rtol = atol or tol, rtol or tol
    eps = eps or _default_eps(dtype)
    v = _random_like(tuple(args), rng)
    _, tangent = autodiff.jvp(f, tuple(args), tuple(v))
    _assert_close("JVP", tangent, _numerical_jvp(f, tuple(args), v, eps), atol, rtol)


def check_vjp(f: Callable, args: Sequence[Any], atol: float | None = None,
              rtol: float | None = None, rng: np.random.Generator | None = None,
              eps: float | None = None) -> None:
    """The transpose identity ``<u, J v> == <J^T u, v>`` for random u and v, with ``J v``
    a finite difference (so reverse mode is checked without trusting forward mode)."""
    rng = rng or np.random.default_rng(1)
    dtype = np.asarray(tree_flatten(args)[0][0]).dtype
    tol = _default_tolerance(dtype)
    atol, rtol = atol or tol, rtol or tol
    eps = eps or _default_eps(dtype)
    v = _random_like(tuple(args), rng)
    out, vjp_fn = autodiff.vjp(f, *args)
    u = _random_like(out, rng)
    # JAX's convention: the vjp of a complex map hands back conj of the real-pair gradient
    cotangent = _conj(vjp_fn(_conj(u)))
    np.testing.assert_allclose(_vdot(u, _numerical_jvp(f, tuple(args), v, eps)),
                               _vdot(v, cotangent), atol=atol, rtol=rtol,
                               err_msg="VJP check failed: <u, J v> != <J^T u, v>")


def check_grads(f: Callable, args: Sequence[Any], order: int, modes: Sequence[str] = ("fwd", "rev"),
                atol: float | None = None, rtol: float | None = None,
                eps: float | None = None) -> None:
    """Check derivatives of ``f`` at ``args`` up to ``order``, in the given modes."""
    args = tuple(args)
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"Unknown mode {mode!r}; expected 'fwd' or 'rev'.")
    if "fwd" in modes:
        check_jvp(f, args, atol, rtol, eps)
    if "rev" in modes:
        check_vjp(f, args, atol, rtol, eps=eps)
    if order > 1:
        # The next order: differentiate the (linear in v) directional derivative.
        rng = np.random.default_rng(order)
        v = _random_like(args, rng)

        def directional(*xs):
            return autodiff.jvp(f, xs, v)[1]
        check_grads(directional, args, order - 1, modes, atol, rtol, eps)


__all__ = ["check_grads", "check_jvp", "check_vjp", "tree_unflatten"]
