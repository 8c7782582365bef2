"""jnp.linalg built as JAX builds it: printed jaxprs and values, recorded from JAX 0.10.2.

tests/data/fidelity_linalg_cases.py holds the programs: the jaxprs of det, slogdet, solve,
inv, pinv, matrix_power, matrix_rank, cond, norm and triangular_solve under jit, grad, jvp and
vmap (``jaxpr:`` cases, compared character for character), and values that exercise their
bodies' corners (``value:`` cases: singular matrices, batches, broadcasting, errors).
KNOWN_DIFFERENCES are strict xfails: they fail the suite the day they start to pass.
"""
from __future__ import annotations

import numpy as np
import pytest
from recorded import check, load, params
from x64_mode import x64

import edujax as jax
import edujax.numpy as jnp
from edujax import lax
from edujax.test_util import check_grads

CASES = load("fidelity_linalg_recorded.json")
KNOWN_DIFFERENCES: dict[str, str] = {
}


@pytest.mark.parametrize("case", params(CASES, KNOWN_DIFFERENCES))
def test_matches_recorded_jax(case):
    check(case)


# ---------------------------------------------------------------- finite differences
# The derivatives added with these bodies (eig's, and every factorization's for complex
# matrices), checked against finite differences in float64 in both modes.
_RNG = np.random.default_rng(7)
_A = _RNG.normal(size=(3, 3)) + 3 * np.eye(3)
_B = _RNG.normal(size=(3, 3))
_C = _A + 1j * _B                     # a complex matrix, well conditioned
_HPD = _C @ _C.conj().T + np.eye(3)   # Hermitian positive definite


def _eigvecs(a):
    return lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)


@pytest.mark.parametrize("name, fn, arg", [
    ("eigvals", lambda a: jnp.linalg.eigvals(a), _A),
    ("eigvals[complex]", lambda a: jnp.linalg.eigvals(a), _C),
    ("eig[vectors]", lambda a: _eigvecs(a)[1], _A),
    ("eig[vectors][complex]", lambda a: _eigvecs(a)[1], _C),
    ("det[complex]", jnp.linalg.det, _C),
    ("det[complex][4x4]", jnp.linalg.det, _RNG.normal(size=(4, 4)) * (1 + 0.5j)),
    ("slogdet[complex]", lambda a: jnp.linalg.slogdet(a)[1], _C),
    ("slogdet[complex][sign]", lambda a: jnp.linalg.slogdet(a)[0], _C),
    ("solve[complex]", lambda a: jnp.linalg.solve(a, jnp.arange(3.0) * 1j), _C),
    ("inv[complex]", jnp.linalg.inv, _C),
    ("pinv[complex]", jnp.linalg.pinv, _C[:, :2]),
    ("cholesky[complex]", lambda a: jnp.linalg.cholesky(a @ a.conj().T + jnp.eye(3)), _C),
    ("eigvalsh[complex]", lambda a: jnp.linalg.eigvalsh(a + a.conj().T), _C),
    ("eigh[complex][vectors]",
     lambda a: jnp.abs(jnp.linalg.eigh(a + a.conj().T)[1]) ** 2, _C),
    ("qr[complex]", lambda a: jnp.abs(jnp.linalg.qr(a)[1]), _C),
    ("qr[complex][wide]", lambda a: jnp.abs(jnp.linalg.qr(a)[1]), _C[:2]),
    ("svd[complex][s]", lambda a: jnp.linalg.svd(a, compute_uv=False), _C),
    ("svd[complex][u]", lambda a: jnp.abs(jnp.linalg.svd(a, full_matrices=False)[0]) ** 2,
     _C[:, :2]),
    ("lu[complex]", lambda a: lax.linalg.lu(a)[0], _C),
    ("lu[batch]", lambda a: lax.linalg.lu(a)[0], np.stack([_A, _A.T])),
    ("triangular_solve[complex]", lambda a: lax.linalg.triangular_solve(
        a, jnp.ones((3, 2)) * (1 + 1j), left_side=True, lower=True, conjugate_a=True,
        transpose_a=True), np.tril(_C)),
])
def test_derivatives_match_finite_differences(name, fn, arg):
    with x64():
        check_grads(fn, (jnp.asarray(arg),), order=1, atol=1e-4, rtol=1e-4)


def test_eigenvector_derivatives_are_opt_in():
    """As in JAX: the eigenvalues differentiate; the eigenvectors only when asked."""
    a = jnp.asarray(_A, jnp.float32)
    jax.grad(lambda a: jnp.sum(jnp.linalg.eigvals(a)).real)(a)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eig(a)[1])))(a)


def test_solve_runs_through_custom_linear_solve_under_every_transformation():
    """One LU, reused by the tangent and cotangent solves: values agree with NumPy's."""
    a = jnp.asarray(_A, jnp.float32)
    b = jnp.asarray(_B, jnp.float32)
    expected = np.linalg.solve(_A, _B)
    for f in (jnp.linalg.solve, jax.jit(jnp.linalg.solve)):
        np.testing.assert_allclose(f(a, b), expected, rtol=1e-4, atol=1e-5)
    batched = jax.vmap(jnp.linalg.solve, in_axes=(None, 1), out_axes=1)(a, b)
    np.testing.assert_allclose(batched, expected, rtol=1e-4, atol=1e-5)
    g = jax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, b)))(a)
    lam = np.linalg.solve(_A.T, np.ones((3, 3)))
    np.testing.assert_allclose(g, -lam @ expected.T, rtol=1e-3, atol=1e-4)
