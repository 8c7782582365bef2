"""jnp.linalg and lax.linalg: recorded from JAX, against NumPy, and through the transformations.

* Programs recorded from real JAX 0.10.2 (tests/data/linalg_cases.py -> linalg_recorded.json):
  values (rounded to 3 decimals), dtypes, shapes, errors, gradients.
* Property tests on random well-conditioned matrices: identities (inv(a) @ a = I, a = L Lᵀ,
  a = Q R, ...) and agreement with NumPy.
* Derivatives against finite differences (float64), vmap against a Python loop, jit against
  eager evaluation.
"""
from __future__ import annotations


import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from x64_mode import x64
from hypothesis import given, settings
from hypothesis import strategies as st
from recorded import check, load

import edujax as jax
import edujax.numpy as jnp
from edujax import lax
from edujax.test_util import check_grads

CASES = load("linalg_recorded.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_recorded_jax(case):
    check(case)


def test_namespaces():
    import edujax.numpy.linalg as linalg_module
    assert jnp.linalg is linalg_module
    assert lax.linalg.cholesky is not None and lax.linalg.triangular_solve is not None


# ---------------------------------------------------------------- random matrices
def _well_conditioned(m: np.ndarray) -> np.ndarray:
    """Make the rows strictly diagonally dominant: nonsingular, condition number modest."""
    n = m.shape[-1]
    dominance = np.abs(m).sum(-1) + 1.0
    return m + np.eye(n) * (np.sign(np.diagonal(m, axis1=-2, axis2=-1)) + (np.diagonal(
        m, axis1=-2, axis2=-1) == 0))[..., None, :] * dominance[..., :, None]


def _spd(m: np.ndarray) -> np.ndarray:
    """A symmetric positive-definite matrix from any square one."""
    return m @ np.swapaxes(m, -1, -2) + np.eye(m.shape[-1])


def matrices(batch=False, square=True):
    @st.composite
    def matrix(draw):
        n = draw(st.integers(1, 4))
        k = n if square else draw(st.integers(1, 4))
        shape = ((draw(st.integers(1, 3)),) if batch else ()) + (n, k)
        return draw(hnp.arrays(np.float64, shape, elements=st.floats(-3, 3, width=32)))
    return matrix()


PROPS = settings(max_examples=15, deadline=None)


@PROPS
@given(matrices(batch=True))
def test_inv_times_a_is_identity(m):
    a = _well_conditioned(m).astype(np.float32)
    eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
    np.testing.assert_allclose(np.asarray(jnp.linalg.inv(a) @ a), eye, atol=1e-5)


@PROPS
@given(matrices(batch=True), st.integers(1, 3))
def test_solve_and_det_match_numpy(m, k):
    a = _well_conditioned(m)
    b = np.linspace(-1, 1, a.shape[-1] * k).reshape(a.shape[-1], k)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, b)), np.linalg.solve(a, b),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.det(a)), np.linalg.det(a), rtol=1e-4)
    sign, logdet = jnp.linalg.slogdet(a)
    np.testing.assert_allclose(np.asarray(sign), np.linalg.slogdet(a)[0])
    np.testing.assert_allclose(np.asarray(logdet), np.linalg.slogdet(a)[1], rtol=1e-4,
                               atol=1e-5)


@PROPS
@given(matrices(batch=True))
def test_lu_reconstructs(m):
    a = m.astype(np.float32)
    lu, pivots, perm = lax.linalg.lu(a)
    lu = np.asarray(lu)
    n = a.shape[-1]
    L = np.tril(lu, -1) + np.eye(n)
    U = np.triu(lu)
    a_perm = np.take_along_axis(a, np.asarray(perm)[..., None], axis=-2)
    np.testing.assert_allclose(L @ U, a_perm, atol=1e-4)


@PROPS
@given(matrices(batch=True))
def test_factorizations_reconstruct(m):
    spd = _spd(m).astype(np.float32)
    L = np.asarray(jnp.linalg.cholesky(spd))
    np.testing.assert_allclose(L @ np.swapaxes(L, -1, -2), spd, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(L, np.linalg.cholesky(spd), rtol=1e-3, atol=1e-4)
    w, v = jnp.linalg.eigh(spd)
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(spd), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray((v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2)),
                               spd, rtol=1e-4, atol=1e-3)


@PROPS
@given(matrices(square=False))
def test_qr_svd_reconstruct(m):
    a = m.astype(np.float32)
    q, r = jnp.linalg.qr(a)
    np.testing.assert_allclose(np.asarray(q @ r), a, atol=1e-4)
    assert np.allclose(np.tril(np.asarray(r), -1), 0)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(np.asarray((u * s) @ vh), a, atol=1e-4)
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), atol=1e-4)
    sv = np.linalg.svd(a, compute_uv=False)
    # away from pinv's cutoff (JAX's rtol is not NumPy's), and from subnormal singular
    # values, whose reciprocal overflows (NumPy then gives inf * 0 = nan where edujax gives 0)
    if sv.min() > 1e-2 * sv.max() and sv.min() > 1e-30:
        np.testing.assert_allclose(np.asarray(jnp.linalg.pinv(a)), np.linalg.pinv(a),
                                   atol=2e-3, rtol=1e-3)


# ---------------------------------------------------------------- derivatives (float64)
def _distinct_spectrum(n: int, seed: int) -> np.ndarray:
    """A symmetric matrix whose eigenvalues (and singular values) are well separated."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (q * np.arange(1.0, n + 1) * 1.5) @ q.T


GRAD_CASES = {
    "det": (lambda a: jnp.linalg.det(a), "general"),
    "slogdet": (lambda a: jnp.linalg.slogdet(a).logabsdet, "general"),
    "inv": (lambda a: jnp.linalg.inv(a), "general"),
    "solve": (lambda a: jnp.linalg.solve(a, jnp.arange(1.0, a.shape[-1] + 1)), "general"),
    "cholesky": (lambda a: jnp.linalg.cholesky(a), "spd"),
    "eigh_values": (lambda a: jnp.linalg.eigh(a).eigenvalues, "distinct"),
    "eigh_vectors_squared": (lambda a: jnp.linalg.eigh(a).eigenvectors ** 2, "distinct"),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), "general"),
    "svd_u_squared": (lambda a: jnp.linalg.svd(a, full_matrices=False).U ** 2, "distinct"),
    "qr_r_abs": (lambda a: jnp.abs(jnp.linalg.qr(a).R), "general"),
    "pinv": (lambda a: jnp.linalg.pinv(a), "general"),
    "norm_2": (lambda a: jnp.linalg.norm(a, 2), "distinct"),
    "matrix_power_neg": (lambda a: jnp.linalg.matrix_power(a, -2), "general"),
}


def _operand(kind: str, n: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "spd":
        return _spd(rng.standard_normal((n, n)))
    if kind == "distinct":
        return _distinct_spectrum(n, seed)
    return _well_conditioned(rng.standard_normal((n, n)))


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grads_match_finite_differences(name):
    fn, kind = GRAD_CASES[name]
    with x64():
        a = jnp.asarray(_operand(kind))
        order = 2 if name in ("det", "inv", "cholesky", "eigh_values") else 1
        check_grads(fn, (a,), order=order, atol=1e-4, rtol=1e-4)


def test_grads_rectangular_svd_and_qr():
    rng = np.random.default_rng(3)
    with x64():
        for shape in [(4, 2), (2, 4)]:
            a = jnp.asarray(rng.standard_normal(shape))
            check_grads(lambda a: jnp.linalg.svd(a, compute_uv=False), (a,), order=1)
            check_grads(lambda a: (lambda u, s, vh: (u ** 2, vh ** 2))(
                *jnp.linalg.svd(a, full_matrices=False)), (a,), order=1, atol=1e-4, rtol=1e-4)
        tall = jnp.asarray(rng.standard_normal((4, 3)))
        check_grads(lambda a: jnp.abs(jnp.linalg.qr(a).R), (tall,), order=1)
        check_grads(lambda a: jnp.linalg.lstsq(a, jnp.ones(4))[0], (tall,), order=1,
                    atol=1e-4, rtol=1e-4)


def test_triangular_solve_grads():
    rng = np.random.default_rng(4)
    with x64():
        a = jnp.asarray(np.tril(_well_conditioned(rng.standard_normal((3, 3)))))
        b = jnp.asarray(rng.standard_normal((3, 2)))
        for left_side, transpose_a in [(True, False), (True, True)]:
            def f(a, b, left_side=left_side, transpose_a=transpose_a):
                return lax.linalg.triangular_solve(a, b, left_side=left_side, lower=True,
                                                   transpose_a=transpose_a)
            check_grads(f, (a, b), order=2)
        check_grads(lambda a, b: lax.linalg.triangular_solve(a, b.T, lower=True,
                                                              unit_diagonal=True), (a, b),
                    order=1)


# ---------------------------------------------------------------- vmap and jit
BATCHED = {
    "det": jnp.linalg.det,
    "inv": jnp.linalg.inv,
    "solve": lambda a: jnp.linalg.solve(a, jnp.ones(a.shape[-1])),
    "cholesky": lambda a: jnp.linalg.cholesky(a @ a.T + jnp.eye(a.shape[-1])),
    "eigh_values": lambda a: jnp.linalg.eigh(a + a.T).eigenvalues,
    "svd_values": lambda a: jnp.linalg.svd(a, compute_uv=False),
    "qr_r_abs": lambda a: jnp.abs(jnp.linalg.qr(a).R),
    "slogdet": lambda a: jnp.linalg.slogdet(a),
    "norm_nuc": lambda a: jnp.linalg.norm(a, "nuc"),
    "grad_det": jax.grad(jnp.linalg.det),
}


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_vmap_matches_loop(name):
    fn = BATCHED[name]
    rng = np.random.default_rng(5)
    xs = _well_conditioned(rng.standard_normal((4, 3, 3))).astype(np.float32)
    for in_axes, batch in [(0, xs), (2, np.moveaxis(xs, 0, 2))]:
        got = jax.vmap(fn, in_axes=in_axes)(batch)
        want = [fn(jnp.asarray(x)) for x in xs]
        for g, w in zip(jax.tree_util.tree_leaves(got),
                        zip(*[jax.tree_util.tree_leaves(w) for w in want])):
            np.testing.assert_allclose(np.asarray(g), np.stack([np.asarray(v) for v in w]),
                                       rtol=1e-4, atol=1e-4)


def test_vmap_of_grad_through_solve_and_unbatched_operand():
    rng = np.random.default_rng(6)
    a = _well_conditioned(rng.standard_normal((3, 3))).astype(np.float32)
    bs = rng.standard_normal((5, 3)).astype(np.float32)
    got = jax.vmap(jnp.linalg.solve, in_axes=(None, 0))(a, bs)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(a, bs.T).T, rtol=1e-4,
                               atol=1e-5)
    g = jax.vmap(jax.grad(lambda a, b: jnp.linalg.solve(a, b).sum()), in_axes=(None, 0))(a, bs)
    want = [jax.grad(lambda a, b: jnp.linalg.solve(a, b).sum())(a, b) for b in bs]
    np.testing.assert_allclose(np.asarray(g), np.stack(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["det", "inv", "solve", "eigh_values", "svd_values",
                                  "grad_det"])
def test_jit_matches_eager(name, backend):
    fn = BATCHED[name]
    a = jnp.asarray(_well_conditioned(np.random.default_rng(7).standard_normal((3, 3))),
                    dtype=jnp.float32)
    np.testing.assert_allclose(np.asarray(jax.jit(fn)(a)), np.asarray(fn(a)), rtol=1e-5,
                               atol=1e-6)


def test_cholesky_of_indefinite_matrix_is_nan_not_an_error():
    out = jnp.linalg.cholesky(jnp.stack([jnp.eye(2), jnp.array([[1.0, 2.0], [2.0, 1.0]])]))
    assert not np.isnan(np.asarray(out[0])).any()
    assert np.isnan(np.asarray(out[1])).any()
