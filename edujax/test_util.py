"""``check_grads``: test a function's derivatives against finite differences, as JAX's does.

    from edujax.test_util import check_grads
    check_grads(f, (x,), order=2)            # forward and reverse mode, up to 2nd order

Forward mode is checked by comparing ``jvp`` with a central difference
``(f(x + eps*v) - f(x - eps*v)) / (2 eps)`` along a random direction ``v``.
Reverse mode is checked through the identity ``<vjp(u), v> == <u, jvp(v)>``.
Higher orders apply the same checks to the derivative functions themselves.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from edujax import autodiff
from edujax import numpy as jnp
from edujax.tree_util import tree_flatten, tree_map, tree_unflatten


def _default_tolerance(dtype: np.dtype) -> float:
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 2e-2,
            np.dtype(np.complex64): 2e-2}.get(np.dtype(dtype), 1e-5)


def _default_eps(dtype: np.dtype) -> float:
    """The finite-difference step: small in double precision, larger in single."""
    return 1e-4 if np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128)) else 1e-2


def _random_like(tree: Any, rng: np.random.Generator) -> Any:
    """Random values like ``tree``'s leaves; complex ones get a random imaginary part too."""
    def random(x: Any) -> np.ndarray:
        dtype, shape = np.asarray(x).dtype, np.shape(x)
        value = rng.standard_normal(shape)
        if dtype.kind == "c":
            value = value + 1j * rng.standard_normal(shape)
        return value.astype(dtype)
    return tree_map(random, tree)


def _as_numbers(x: Any) -> np.ndarray:
    """float64, or complex128 for complex values (never dropping an imaginary part)."""
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _add(tree: Any, other: Any, scale: float) -> Any:
    """``tree + scale * other``, as edujax Arrays (the function under test may use .at[])."""
    return tree_map(lambda x, y: jnp.asarray(np.asarray(x) + scale * np.asarray(y)), tree, other)


def _vdot(a: Any, b: Any) -> float:
    """The real inner product Re <a, b> = Re sum(conj(a) b), over all leaves."""
    la, _ = tree_flatten(a)
    lb, _ = tree_flatten(b)
    return float(sum(np.real(np.vdot(_as_numbers(x), _as_numbers(y)))
                     for x, y in zip(la, lb)))


def _assert_close(name: str, a: Any, b: Any, atol: float, rtol: float) -> None:
    for x, y in zip(tree_flatten(a)[0], tree_flatten(b)[0]):
        np.testing.assert_allclose(_as_numbers(x), _as_numbers(y),
                                   atol=atol, rtol=rtol, err_msg=f"{name} check failed")


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
    plus = f(*_add(tuple(args), v, eps))
    minus = f(*_add(tuple(args), v, -eps))
    numeric = tree_map(lambda p, m: (np.asarray(p) - np.asarray(m)) / (2 * eps), plus, minus)
    _assert_close("JVP", tangent, numeric, atol, rtol)


def check_vjp(f: Callable, args: Sequence[Any], atol: float | None = None,
              rtol: float | None = None, rng: np.random.Generator | None = None) -> None:
    """The transpose identity ``<u, J v> == <J^T u, v>`` for random u and v (for complex
    values, as in JAX: J^T u is ``conj(vjp(conj(u)))`` and <,> the real inner product)."""
    rng = rng or np.random.default_rng(1)
    dtype = np.asarray(tree_flatten(args)[0][0]).dtype
    tol = _default_tolerance(dtype)
    atol, rtol = atol or tol, rtol or tol
    v = _random_like(tuple(args), rng)
    out, tangent = autodiff.jvp(f, tuple(args), tuple(v))
    u = _random_like(out, rng)
    _, vjp_fn = autodiff.vjp(f, *args)
    cotangent = tree_map(np.conj, vjp_fn(tree_map(np.conj, u)))
    np.testing.assert_allclose(_vdot(u, tangent), _vdot(cotangent, v), atol=atol, rtol=rtol,
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
        check_vjp(f, args, atol, rtol)
    if order > 1:
        # The next order: differentiate the (linear in v) directional derivative.
        rng = np.random.default_rng(order)
        v = _random_like(args, rng)

        def directional(*xs):
            return autodiff.jvp(f, xs, v)[1]
        check_grads(directional, args, order - 1, modes, atol, rtol, eps)


__all__ = ["check_grads", "check_jvp", "check_vjp", "tree_unflatten"]
