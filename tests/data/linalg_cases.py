"""Programs whose JAX results are recorded in linalg_recorded.json (see record_from_jax.py).

Each program sets ``out``. Values go through ``r(x)``: the dtype, the shape and the values
rounded to 3 decimals (LAPACK inside XLA and NumPy's LAPACK agree to float32 accuracy, not
bit for bit). Factors defined only up to sign (eigenvectors, Q, U, V) are compared as
reconstructions or absolute values.
"""
HELPER = ("def r(x):\n"
          "    x = jnp.asarray(x)\n"
          "    return (str(x.dtype), tuple(x.shape), "
          "(np.round(np.asarray(x, np.float64), 3) + 0.0).tolist())\n")

A = "a = jnp.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]])\n"
B = "b = jnp.array([[1., 2.], [3., 4.], [5., 7.]])\n"
N = "n = jnp.array([[0., 2., 1.], [1., 1., 0.], [3., -1., 2.]])\n"  # det < 0, needs pivoting
X64 = ("jax.config.update('jax_enable_x64', True)\ntry:\n    {}\n"
       "finally:\n    jax.config.update('jax_enable_x64', False)")

_CASES = {
    # determinants
    "det": A + "out = r(jnp.linalg.det(a))",
    "det_pivoting_negative": N + "out = r(jnp.linalg.det(n))",
    "det_int_promotes": "out = r(jnp.linalg.det(jnp.array([[2, 1], [1, 3]])))",
    "det_batched": A + N + "out = r(jnp.linalg.det(jnp.stack([a, n, 2 * a])))",
    "det_singular": "out = r(jnp.linalg.det(jnp.array([[1., 2.], [2., 4.]])))",
    "det_x64": X64.format(A.strip() + "\n    out = r(jnp.linalg.det(a))"),
    "det_nonsquare": "out = jnp.linalg.det(jnp.ones((2, 3)))",
    "det_vector": "out = jnp.linalg.det(jnp.ones(3))",
    "slogdet": N + "s, l = jnp.linalg.slogdet(n)\nout = (r(s), r(l))",
    "slogdet_fields": A + "res = jnp.linalg.slogdet(a)\nout = (type(res).__name__, r(res.logabsdet))",
    "slogdet_nonsquare": "out = jnp.linalg.slogdet(jnp.ones((2, 3)))",
    # inverses and solves
    "inv": A + "out = r(jnp.linalg.inv(a))",
    "inv_pivoting": N + "out = r(jnp.linalg.inv(n))",
    "inv_int": "out = r(jnp.linalg.inv(jnp.array([[2, 1], [1, 3]])))",
    "inv_nonsquare": "out = jnp.linalg.inv(jnp.ones((2, 3)))",
    "inv_vector": "out = jnp.linalg.inv(jnp.ones(3))",
    "solve_vector": N + "out = r(jnp.linalg.solve(n, jnp.array([1., 2., 3.])))",
    "solve_matrix": A + B + "out = r(jnp.linalg.solve(a, b))",
    "solve_batched_broadcast": A + N + B + "out = r(jnp.linalg.solve(jnp.stack([a, n]), b))",
    "solve_bad_b": "out = jnp.linalg.solve(jnp.eye(2), jnp.ones(3))",
    "solve_vector_a": "out = jnp.linalg.solve(jnp.ones(3), jnp.ones(3))",
    "inv_singular_is_inf": "out = repr(jnp.linalg.inv(jnp.array([[1., 2.], [2., 4.]])))",
    "solve_singular_is_inf": "out = repr(jnp.linalg.solve(jnp.array([[1., 2.], [2., 4.]]), jnp.ones(2)))",
    "pinv_square": A + "out = r(jnp.linalg.pinv(a))",
    "pinv_tall": B + "out = r(jnp.linalg.pinv(b))",
    "pinv_rank_deficient": "out = r(jnp.linalg.pinv(jnp.array([[1., 2.], [2., 4.]])))",
    "lstsq": B + "x, res, rank, s = jnp.linalg.lstsq(b, jnp.array([1., 0., 2.]))\n"
                 "out = (r(x), r(res), r(rank), r(s))",
    "lstsq_matrix_rhs": B + "x, res, rank, s = jnp.linalg.lstsq(b, jnp.eye(3))\n"
                            "out = (r(x), r(res), r(rank))",
    # factorizations
    "cholesky": A + "out = r(jnp.linalg.cholesky(a))",
    "cholesky_upper": A + "out = r(jnp.linalg.cholesky(a, upper=True))",
    "cholesky_batched": A + "out = r(jnp.linalg.cholesky(jnp.stack([a, 2 * a])))",
    "cholesky_int": "out = r(jnp.linalg.cholesky(jnp.array([[4, 2], [2, 3]])))",
    "cholesky_not_pd_is_nan": "out = repr(jnp.isnan(jnp.linalg.cholesky(jnp.array([[1., 2.], [2., 1.]]))))",
    "qr_r_abs": B + "out = r(jnp.abs(jnp.linalg.qr(b).R))",
    "qr_shapes": B + "q, rr = jnp.linalg.qr(b)\nq2, r2 = jnp.linalg.qr(b, mode='complete')\n"
                     "out = (q.shape, rr.shape, q2.shape, r2.shape, jnp.linalg.qr(b, mode='r').shape)",
    "qr_reconstructs": B + "q, rr = jnp.linalg.qr(b)\nout = (r(q @ rr), r(q.T @ q))",
    "qr_vector": "out = jnp.linalg.qr(jnp.ones(3))",
    "eigh_values": A + "out = r(jnp.linalg.eigh(a).eigenvalues)",
    "eigh_vectors_abs": A + "out = r(jnp.abs(jnp.linalg.eigh(a).eigenvectors))",
    "eigh_fields": A + "res = jnp.linalg.eigh(a)\nout = (type(res).__name__, res._fields)",
    "eigh_upper": "m = jnp.array([[2., 1.], [0., 3.]])\nout = r(jnp.linalg.eigh(m, UPLO='U', symmetrize_input=False).eigenvalues)",
    "eigh_int": "out = r(jnp.linalg.eigh(jnp.array([[2, 1], [1, 2]])).eigenvalues)",
    "eigvalsh": A + "out = r(jnp.linalg.eigvalsh(a))",
    "svd_values": B + "out = r(jnp.linalg.svd(b, compute_uv=False))",
    "svd_shapes_full": B + "u, s, vh = jnp.linalg.svd(b)\nout = (u.shape, s.shape, vh.shape, type(jnp.linalg.svd(b)).__name__)",
    "svd_shapes_reduced": B + "u, s, vh = jnp.linalg.svd(b, full_matrices=False)\nout = (u.shape, s.shape, vh.shape)",
    "svd_reconstructs": B + "u, s, vh = jnp.linalg.svd(b, full_matrices=False)\nout = r((u * s) @ vh)",
    "svd_u_abs": A + "out = r(jnp.abs(jnp.linalg.svd(a).U))",
    "svd_vector": "out = jnp.linalg.svd(jnp.ones(3))",
    "svd_batched": A + "out = r(jnp.linalg.svd(jnp.stack([a, 3 * a]), compute_uv=False))",
    # powers, ranks, norms
    "matrix_power_3": A + "out = r(jnp.linalg.matrix_power(a, 3))",
    "matrix_power_0": A + "out = r(jnp.linalg.matrix_power(a, 0))",
    "matrix_power_neg": N + "out = r(jnp.linalg.matrix_power(n, -2))",
    "matrix_power_int": "out = r(jnp.linalg.matrix_power(jnp.array([[1, 1], [1, 0]]), 10))",
    "matrix_power_nonsquare": "out = jnp.linalg.matrix_power(jnp.ones((2, 3)), 2)",
    "matrix_power_vector": "out = jnp.linalg.matrix_power(jnp.ones(3), 2)",
    "matrix_rank_full": A + "out = r(jnp.linalg.matrix_rank(a))",
    "matrix_rank_deficient": "out = r(jnp.linalg.matrix_rank(jnp.array([[1., 2.], [2., 4.]])))",
    "matrix_rank_vector": "out = r(jnp.linalg.matrix_rank(jnp.array([0., 1.])))",
    "matrix_rank_batched": A + "out = r(jnp.linalg.matrix_rank(jnp.stack([a, jnp.zeros((3, 3))])))",
    "norm_default": B + "out = r(jnp.linalg.norm(b))",
    "norm_int": "out = r(jnp.linalg.norm(jnp.array([3, 4])))",
    "norm_vector_orders": "v = jnp.array([3., -4., 0., 1.])\n"
                          "out = [r(jnp.linalg.norm(v, o)) for o in (None, 1, 2, 3, 0, jnp.inf, -jnp.inf, 0.5)]",
    "norm_matrix_orders": N + "out = [r(jnp.linalg.norm(n, o)) for o in (None, 'fro', 'nuc', 1, -1, 2, -2, jnp.inf, -jnp.inf)]",
    "norm_axis": B + "out = (r(jnp.linalg.norm(b, axis=0)), r(jnp.linalg.norm(b, axis=1, keepdims=True)), r(jnp.linalg.norm(b, ord=1, axis=-1)))",
    "norm_matrix_axes": "x = jnp.arange(24.).reshape(2, 3, 4)\n"
                        "out = (r(jnp.linalg.norm(x, axis=(1, 2))), r(jnp.linalg.norm(x, 2, axis=(0, 2))), r(jnp.linalg.norm(x, 1, axis=(2, 1), keepdims=True)))",
    "norm_3d_default": "out = r(jnp.linalg.norm(jnp.arange(24.).reshape(2, 3, 4)))",
    "norm_bad_ord_matrix": "out = jnp.linalg.norm(jnp.ones((2, 2)), 3)",
    "norm_bad_ord_vector": "out = jnp.linalg.norm(jnp.ones(2), 'fro')",
    # derivatives
    "grad_det": A + "out = r(jax.grad(jnp.linalg.det)(a))",
    "grad_det_pivoting": N + "out = r(jax.grad(jnp.linalg.det)(n))",
    "grad_slogdet": N + "out = r(jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(n))",
    "grad_inv": N + "out = r(jax.grad(lambda m: jnp.linalg.inv(m).sum())(n))",
    "grad_solve": A + B + "out = r(jax.grad(lambda m, c: (jnp.linalg.solve(m, c) ** 2).sum(), argnums=(0, 1))(a, b))",
    "grad_cholesky": A + "out = r(jax.grad(lambda m: (jnp.linalg.cholesky(m) ** 2).sum())(a))",
    "grad_eigh_values": A + "out = r(jax.grad(lambda m: jnp.linalg.eigh(m).eigenvalues[-1])(a))",
    "grad_eigh_vectors": A + "out = r(jax.grad(lambda m: (jnp.linalg.eigh(m).eigenvectors[:, 0] ** 2 * jnp.arange(3.)).sum())(a))",
    "grad_svd_values": B + "out = r(jax.grad(lambda m: jnp.linalg.svd(m, compute_uv=False).sum())(b))",
    "grad_svd_vectors": B + "out = r(jax.grad(lambda m: (jnp.linalg.svd(m, full_matrices=False).U[:, 0] ** 2 * jnp.arange(3.)).sum())(b))",
    "grad_norm_nuc": B + "out = r(jax.grad(lambda m: jnp.linalg.norm(m, 'nuc'))(b))",
    "grad_pinv": B + "out = r(jax.grad(lambda m: jnp.linalg.pinv(m).sum())(b))",
    "grad_qr": B + "out = r(jax.grad(lambda m: jnp.abs(jnp.linalg.qr(m).R).sum())(b))",
    "grad_svd_full_matrices_raises": B + "out = jax.grad(lambda m: jnp.linalg.svd(m)[1].sum())(b)",
    "jit_grad_eigh": A + "out = r(jax.jit(jax.grad(lambda m: jnp.linalg.eigh(m).eigenvalues @ jnp.arange(3.)))(a))",
    "hessian_det": "m = jnp.array([[2., 1.], [0.5, 3.]])\nout = r(jax.jacfwd(jax.grad(jnp.linalg.det))(m))",
    "jvp_det": A + "out = [r(t) for t in jax.jvp(jnp.linalg.det, (a,), (jnp.eye(3),))]",
    "grad_svd_vh_wide": B + "out = r(jax.grad(lambda m: (jnp.linalg.svd(m, full_matrices=False).Vh[0] ** 2 * jnp.arange(3.)).sum())(b.T))",
    "grad_det_x64": X64.format(N.strip() + "\n    out = r(jax.grad(jnp.linalg.det)(n))"),
    # more errors and dtypes
    "cholesky_nonsquare": "out = jnp.linalg.cholesky(jnp.ones((2, 3)))",
    "cholesky_vector": "out = jnp.linalg.cholesky(jnp.ones(3))",
    "eigh_nonsquare": "out = jnp.linalg.eigh(jnp.ones((2, 3)))",
    "lstsq_3d": "out = jnp.linalg.lstsq(jnp.ones((2, 2, 2)), jnp.ones(2))",
    "norm_three_axes": "out = jnp.linalg.norm(jnp.ones((2, 2, 2)), axis=(0, 1, 2))",
    "solve_int": "out = r(jnp.linalg.solve(jnp.array([[2, 1], [1, 3]]), jnp.array([1, 2])))",
    "eigh_svd_x64": X64.format(A.strip() + "\n    out = (r(jnp.linalg.eigh(a).eigenvalues), r(jnp.linalg.svd(a, compute_uv=False)), r(jnp.linalg.inv(a)))"),
    "slogdet_int_x64": X64.format("out = [r(t) for t in jnp.linalg.slogdet(jnp.array([[2, 1], [1, 3]]))]"),
    # the rest of the namespace
    "cond": A + N + "out = [r(jnp.linalg.cond(n, p)) for p in (None, 2, -2, 1, 'fro', jnp.inf)] + [r(jnp.linalg.cond(a))]",
    "cond_singular": "out = r(jnp.linalg.cond(jnp.array([[1., 2.], [2., 4.]]), 1))",
    "multi_dot": A + B + "out = r(jnp.linalg.multi_dot([jnp.ones(3), a, b, jnp.ones(2)]))",
    "multi_dot_matrices": A + B + "out = r(jnp.linalg.multi_dot([a, a, b]))",
    "matrix_transpose": B + "out = r(jnp.linalg.matrix_transpose(jnp.stack([b, b])))",
    "outer": "out = r(jnp.linalg.outer(jnp.arange(3), jnp.arange(2.)))",
    "outer_2d": "out = jnp.linalg.outer(jnp.ones((2, 2)), jnp.ones(2))",
    "trace": "out = r(jnp.linalg.trace(jnp.arange(18).reshape(2, 3, 3), offset=1))",
    "diagonal": "out = r(jnp.linalg.diagonal(jnp.arange(18).reshape(2, 3, 3)))",
    "vecdot": B + "out = r(jnp.linalg.vecdot(b, b))",
    "tensordot": B + "out = r(jnp.linalg.tensordot(b, b.T, axes=1))",
    "tensorinv": "x = jnp.eye(6).reshape(6, 2, 3) * 2\nout = r(jnp.linalg.tensorinv(x, ind=1))",
    "tensorsolve": "a = jnp.eye(6).reshape(2, 3, 6) * 2\nout = r(jnp.linalg.tensorsolve(a, jnp.arange(6.).reshape(2, 3)))",
    "svdvals_vector_norm": B + "out = (r(jnp.linalg.svdvals(b)), r(jnp.linalg.vector_norm(b)), r(jnp.linalg.vector_norm(b, axis=0, ord=1)), r(jnp.linalg.matrix_norm(b)), r(jnp.linalg.matrix_norm(b, ord=2)))",
    # lax.linalg's primitives: their jaxprs print as JAX's do
    "jaxpr_triangular_solve": "a = jnp.eye(2); b = jnp.ones((2, 3))\nout = str(make_jaxpr(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True))(a, b))",
    "jaxpr_cholesky": "out = str(make_jaxpr(lambda a: lax.linalg.cholesky(a, symmetrize_input=False))(jnp.eye(2)))",
    "jaxpr_lu": "out = str(make_jaxpr(lambda a: lax.linalg.lu(a))(jnp.eye(2)))",
    "jaxpr_qr": "out = str(make_jaxpr(lambda a: lax.linalg.qr(a, full_matrices=False))(jnp.ones((3, 2))))",
    "jaxpr_eigh": "out = str(make_jaxpr(lambda a: lax.linalg.eigh(a, symmetrize_input=False))(jnp.eye(2)))",
    "jaxpr_svd": "out = str(make_jaxpr(lambda a: lax.linalg.svd(a, full_matrices=False))(jnp.ones((3, 2))))",
    "jaxpr_svd_values": "out = str(make_jaxpr(lambda a: lax.linalg.svd(a, compute_uv=False))(jnp.ones((3, 2))))",
    "lax_lu_values": N + "lu, piv, perm = lax.linalg.lu(n)\nout = (r(lu), r(piv), r(perm))",
    "vmap_inv": A + N + "out = r(jax.vmap(jnp.linalg.inv)(jnp.stack([a, n])))",
    "vmap_solve_in_axes": A + B + "out = r(jax.vmap(jnp.linalg.solve, in_axes=(None, 1))(a, b))",
    "jit_slogdet": N + "out = [r(t) for t in jax.jit(jnp.linalg.slogdet)(n)]",
}
CASES = {name: HELPER + code for name, code in _CASES.items()}
