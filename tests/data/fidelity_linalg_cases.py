"""jnp.linalg built as JAX builds it: the printed jaxprs, and the values that depend on it.

Recorded in fidelity_linalg_recorded.json; tests/test_fidelity_linalg.py replays them on
edujax. The jaxprs show how each function is put together (solve through
``custom_linear_solve`` and the inner ``_lu_solve`` jit, det by formula for 2x2 and 3x3 and
with its custom JVP beyond, slogdet's custom JVPs, pinv's custom_jvp around a jit...), under
jit, grad and vmap; the values cover the shapes and the corner cases those bodies handle
(singular matrices, batches, broadcasting, vector and matrix right-hand sides).

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/fidelity_linalg_cases.py \\
        tests/data/fidelity_linalg_recorded.json
"""
CASES: dict[str, str] = {}

M2 = "jnp.array([[4.0, 1.0], [0.5, 3.0]])"
M3 = "jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])"
M4 = ("jnp.array([[4.0, 1.0, 0.5, 0.1], [1.0, 3.0, 0.2, -0.3], [0.5, 0.2, 2.0, 0.4], "
      "[0.0, -1.0, 0.3, 5.0]])")
R = "jnp.array([[1.0, 2.0, 0.5], [0.0, 1.0, -1.0], [2.0, 0.5, 1.0], [1.0, 1.0, 1.0]])"
B3 = "jnp.stack([" + M3 + ", 2.0 * " + M3 + " + jnp.eye(3)])"
V3 = "jnp.array([1.0, -2.0, 0.5])"
V4 = "jnp.array([1.0, -2.0, 0.5, 3.0])"
# a singular 3x3 (rank 2) and a 4x4 of rank 2: det's gradient is the adjugate, finite
SING3 = "jnp.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])"
SING4 = ("jnp.array([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [1.0, 1.0, 1.0, 1.0], "
         "[0.0, 1.0, 0.0, 1.0]])")
SING4R2 = ("jnp.array([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [1.0, 1.0, 1.0, 1.0], "
           "[3.0, 3.0, 3.0, 3.0]])")


def jaxpr(name: str, fn: str, *args: str) -> None:
    CASES[f"jaxpr:{name}"] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


# values as (dtype, shape, rounded to 3 decimals in float64): LAPACK inside XLA and NumPy's
# LAPACK agree to float32 accuracy, not bit for bit
HELPER = ("def r(x):\n"
          "    x = jnp.asarray(x)\n"
          "    return (str(x.dtype), tuple(x.shape), "
          "(np.round(np.asarray(x, np.float64), 3) + 0.0).tolist())\n")


def value(name: str, expr: str) -> None:
    CASES[f"value:{name}"] = HELPER + f"out = r({expr})"


# ---------------------------------------------------------------- determinants
jaxpr("det[2x2]", "jnp.linalg.det", M2)
jaxpr("det[4x4]", "jnp.linalg.det", M4)
jaxpr("det[2x2][grad]", "jax.grad(jnp.linalg.det)", M2)
jaxpr("det[4x4][grad]", "jax.grad(jnp.linalg.det)", M4)
jaxpr("det[4x4][jit]", "jax.jit(jnp.linalg.det)", M4)
jaxpr("det[vmap]", "jax.vmap(jnp.linalg.det)", B3)
jaxpr("det[int]", "jnp.linalg.det", "jnp.array([[1, 2], [3, 4]])")
jaxpr("slogdet[2x2]", "jnp.linalg.slogdet", M2)
jaxpr("slogdet[1x1]", "jnp.linalg.slogdet", "jnp.array([[-3.0]])")
jaxpr("slogdet[2x2][grad]", "jax.grad(lambda a: jnp.linalg.slogdet(a)[1])", M2)
for n, m in (("2", M2), ("3", M3), ("4", M4)):
    value(f"det[{n}x{n}]", f"jnp.linalg.det({m})")
    value(f"det[{n}x{n}][grad]", f"jax.grad(jnp.linalg.det)({m})")
    value(f"slogdet[{n}x{n}]", f"jnp.stack(jnp.linalg.slogdet({m}))")
    value(f"slogdet[{n}x{n}][grad]", f"jax.grad(lambda a: jnp.linalg.slogdet(a)[1])({m})")
value("det[batch]", f"jnp.linalg.det({B3})")
value("det[vmap][grad]", f"jax.vmap(jax.grad(jnp.linalg.det))({B3})")
value("det[singular3][grad]", f"jax.grad(jnp.linalg.det)({SING3})")
value("det[singular4][grad]", f"jax.grad(jnp.linalg.det)({SING4})")
value("det[rank2_4x4][grad]", f"jax.grad(jnp.linalg.det)({SING4R2})")
value("det[5x5]", "jnp.linalg.det(jnp.arange(25.0).reshape(5, 5) ** 0.5)")
value("slogdet[singular]", f"jnp.stack(jnp.linalg.slogdet({SING4}))")
value("slogdet[negative]", "jnp.stack(jnp.linalg.slogdet(-jnp.eye(3)))")
value("slogdet[batch]", f"jnp.stack(jnp.linalg.slogdet({B3}))")
value("slogdet[batch][jvp]", f"jax.jvp(lambda a: jnp.linalg.slogdet(a)[1], ({B3},), "
      f"(jnp.ones((2, 3, 3)),))[1]")
CASES["value:slogdet[qr]"] = f"out = jnp.linalg.slogdet({M3}, method='bad')"
CASES["value:det[not_square]"] = "out = jnp.linalg.det(jnp.ones((2, 3)))"

# ---------------------------------------------------------------- solve and inv
jaxpr("solve[matrix]", "lambda a: jnp.linalg.solve(a, a[:, :2])", M3)
jaxpr("solve[jit]", "jax.jit(jnp.linalg.solve)", M3, V3)
jaxpr("solve[grad_b]", f"jax.grad(lambda b: jnp.sum(jnp.linalg.solve({M3}, b)))", V3)
jaxpr("solve[grad_a]", f"jax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, {V3})))", M3)
jaxpr("solve[batch]", "jnp.linalg.solve", B3, V3)
jaxpr("solve[vmap]", "jax.vmap(jnp.linalg.solve)", B3, f"jnp.stack([{V3}, 2 * {V3}])")
jaxpr("solve[vmap_b]", f"jax.vmap(lambda b: jnp.linalg.solve({M3}, b))",
      f"jnp.stack([{V3}, 2 * {V3}])")
jaxpr("solve[jvp]", "lambda a, t: jax.jvp(lambda m: jnp.linalg.solve(m, m[0]), (a,), (t,))",
      M3, "jnp.ones((3, 3))")
jaxpr("inv[vmap]", "jax.vmap(jnp.linalg.inv)", B3)
jaxpr("inv[jit]", "jax.jit(jnp.linalg.inv)", M2)
value("solve[vector]", f"jnp.linalg.solve({M4}, {V4})")
value("solve[matrix]", f"jnp.linalg.solve({M4}, {M4}[:, :2])")
value("solve[batch_a]", f"jnp.linalg.solve({B3}, {V3})")
value("solve[batch_b]", f"jnp.linalg.solve({M3}, jnp.stack([{M3}, {M3}]))")
value("solve[broadcast]", f"jnp.linalg.solve({B3}, {M3}[:, :1])")
value("solve[grad_a]", f"jax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, {V4}) ** 2))({M4})")
value("solve[grad_b]", f"jax.grad(lambda b: jnp.sum(jnp.linalg.solve({M4}, b) ** 2))({V4})")
value("solve[vmap]", f"jax.vmap(jnp.linalg.solve)({B3}, jnp.stack([{V3}, 2 * {V3}]))")
value("solve[jvp]", f"jax.jvp(lambda a: jnp.linalg.solve(a, {V3}), ({M3},), "
      f"(jnp.ones((3, 3)),))[1]")
value("solve[hessian]", f"jax.hessian(lambda b: jnp.sum(jnp.linalg.solve({M2}, b) ** 2))"
      "(jnp.array([1.0, 2.0]))")
value("inv[4x4]", f"jnp.linalg.inv({M4})")
value("inv[batch]", f"jnp.linalg.inv({B3})")
value("inv[grad]", f"jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a) ** 2))({M3})")
value("inv[vmap][grad]", f"jax.vmap(jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a))))({B3})")
value("inv[int]", "jnp.linalg.inv(jnp.array([[2, 1], [1, 3]]))")
CASES["value:solve[old_batched_1d]"] = (
    "out = jnp.linalg.solve(jnp.ones((2, 3, 3)), jnp.ones((2, 3)) + jnp.zeros((4, 1, 1)))")
CASES["value:solve[bad_rank]"] = "out = jnp.linalg.solve(jnp.ones((2, 3, 3)), jnp.ones((2, 3)))"
CASES["value:solve[bad_core]"] = "out = jnp.linalg.solve(jnp.eye(3), jnp.ones((2, 4)))"

# ---------------------------------------------------------------- pinv, matrix_power, rank, cond
jaxpr("pinv[rect]", "jnp.linalg.pinv", R)
jaxpr("pinv[grad]", "jax.grad(lambda a: jnp.sum(jnp.linalg.pinv(a)))", R)
jaxpr("pinv[rtol]", "lambda a: jnp.linalg.pinv(a, rtol=0.1)", M3)
value("pinv[rect]", f"jnp.linalg.pinv({R})")
value("pinv[wide]", f"jnp.linalg.pinv({R}.T)")
value("pinv[grad]", f"jax.grad(lambda a: jnp.sum(jnp.linalg.pinv(a) ** 2))({R})")
value("pinv[wide][grad]", f"jax.grad(lambda a: jnp.sum(jnp.linalg.pinv(a) ** 2))({R}.T)")
value("pinv[hermitian]", f"jnp.linalg.pinv({M3}, hermitian=True)")
value("pinv[rcond]", f"jnp.linalg.pinv({R}, rcond=0.5)")
value("pinv[batch]", f"jnp.linalg.pinv({B3})")
CASES["value:pinv[both]"] = f"out = jnp.linalg.pinv({R}, rtol=0.1, rcond=0.1)"
for n in (0, 1, 2, 5, -1, -3):
    jaxpr(f"matrix_power[{n}]", f"lambda a: jnp.linalg.matrix_power(a, {n})", M2)
    value(f"matrix_power[{n}]", f"jnp.linalg.matrix_power({M3}, {n})")
value("matrix_power[batch]", f"jnp.linalg.matrix_power({B3}, 3)")
jaxpr("matrix_rank[tol]", "lambda a: jnp.linalg.matrix_rank(a, tol=0.5)", M3)
jaxpr("matrix_rank[vector]", "jnp.linalg.matrix_rank", V3)
value("matrix_rank[singular]", f"jnp.linalg.matrix_rank({SING4R2})")
value("matrix_rank[rtol]", f"jnp.linalg.matrix_rank({M3}, rtol=2.5)")
value("matrix_rank[batch]", f"jnp.linalg.matrix_rank(jnp.stack([{SING3}, {M3}]))")
CASES["value:matrix_rank[both]"] = f"out = jnp.linalg.matrix_rank({M3}, rtol=0.1, tol=0.1)"
for p in ("-2", "1", "-1", "jnp.inf", "'fro'"):
    jaxpr(f"cond[{p}]", f"lambda a: jnp.linalg.cond(a, {p})", M3)
    value(f"cond[{p}]", f"jnp.linalg.cond({M3}, {p})")
value("cond[nan]", "jnp.linalg.cond(jnp.array([[1.0, jnp.nan], [0.0, 1.0]]), 1)")
value("cond[singular_1]", f"jnp.linalg.cond({SING3}, 1)")
CASES["value:cond[rect_1]"] = f"out = jnp.linalg.cond({R}, 1)"

# ---------------------------------------------------------------- norms
for ord_ in ("jnp.inf", "-jnp.inf", "-1", "2", "-2", "'nuc'"):
    jaxpr(f"norm[{ord_}]", f"lambda a: jnp.linalg.norm(a, {ord_})", M3)
    value(f"norm[{ord_}]", f"jnp.linalg.norm({R}, {ord_})")
    value(f"norm[{ord_}][keepdims]",
          f"jnp.linalg.norm(jnp.stack([{R}, -{R}]), {ord_}, axis=(2, 1), keepdims=True)")
jaxpr("norm[1][keepdims]", "lambda a: jnp.linalg.norm(a, 1, axis=(0, 1), keepdims=True)", M3)
jaxpr("norm[inf][axes10]", "lambda a: jnp.linalg.norm(a, jnp.inf, axis=(1, 0))", M3)
jaxpr("norm[1][grad]", "jax.grad(lambda a: jnp.linalg.norm(a, 1))", M3)

# ---------------------------------------------------------------- lax.linalg.triangular_solve
TRI = "jnp.array([[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [0.5, -1.0, 4.0]])"
jaxpr("triangular_solve[vector]",
      "lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)", TRI, V3)
jaxpr("triangular_solve[grad_a]",
      f"jax.grad(lambda a: jnp.sum(lax.linalg.triangular_solve(a, {M3}, left_side=True, "
      "lower=True)))", TRI)
jaxpr("triangular_solve[vmap_b]",
      f"jax.vmap(lambda b: lax.linalg.triangular_solve({TRI}, b, lower=True))", M3)
jaxpr("triangular_solve[vmap_both]",
      "jax.vmap(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True))",
      f"jnp.stack([{TRI}, {TRI}])", f"jnp.stack([{M3}, {M3}])")
value("triangular_solve[grad_a]",
      f"jax.grad(lambda a: jnp.sum(lax.linalg.triangular_solve(a, {M3}[:, :2], "
      f"left_side=True, lower=True) ** 2))({TRI})")
value("triangular_solve[right][grad_a]",
      f"jax.grad(lambda a: jnp.sum(lax.linalg.triangular_solve(a, {M3}[:2], "
      f"transpose_a=True) ** 2))({TRI}.T)")
value("triangular_solve[vector_right]",
      f"lax.linalg.triangular_solve({TRI}, {V3}, lower=True)")

# ---------------------------------------------------------------- jnp.vectorize (solve uses it)
jaxpr("vectorize[broadcast]",
      "jnp.vectorize(lambda a, b: a @ b, signature='(m,n),(n)->(m)')",
      "jnp.ones((2, 1, 3, 3))", "jnp.ones((4, 3))")
CASES["value:vectorize[out_core]"] = (
    "out = jnp.vectorize(lambda a: a[0], signature='(n)->(n)')(jnp.ones((2, 3)))")
CASES["value:vectorize[nargs]"] = (
    "out = jnp.vectorize(lambda a: a, signature='(n),(n)->(n)')(jnp.ones(3))")

# ---------------------------------------------------------------- eig's derivative
# (LAPACK's geev both in XLA and in NumPy: the same eigenvalue order and eigenvector
# normalization, unit norm with the largest component real)
HELPER_C = ("def rc(x):\n"
            "    x = jnp.asarray(x)\n"
            "    v = np.asarray(x, np.complex128)\n"
            "    return (str(x.dtype), tuple(x.shape), (np.round(v.real, 3) + 0.0).tolist(),\n"
            "            (np.round(v.imag, 3) + 0.0).tolist())\n")


def cvalue(name: str, expr: str) -> None:
    CASES[f"value:{name}"] = HELPER_C + f"out = rc({expr})"


NS = "jnp.array([[4.0, 1.0, 0.5], [-1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])"  # a complex pair
NR = "jnp.array([[4.0, 1.0, 0.5], [1.5, 3.0, 0.2], [0.5, 0.2, 1.0]])"   # real eigenvalues
EIGV = ("lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False, "
        "enable_eigvec_derivs=True)")
jaxpr("eigvals[grad]", "jax.grad(lambda a: jnp.sum(jnp.linalg.eigvals(a)).real)", NS)
jaxpr("eigvals[jvp]", "lambda a, t: jax.jvp(jnp.linalg.eigvals, (a,), (t,))", NS,
      "jnp.ones((3, 3))")
for key, m in (("complex_pair", NS), ("real", NR)):
    cvalue(f"eigvals[{key}][jvp]",
           f"jax.jvp(jnp.linalg.eigvals, ({m},), (jnp.arange(9.0).reshape(3, 3),))[1]")
    value(f"eigvals[{key}][grad]",
          f"jax.grad(lambda a: jnp.sum(jnp.linalg.eigvals(a) * jnp.array([1.0, 2j, 3.0])).real)"
          f"({m})")
    # (a real eigenvector's sign is LAPACK's choice, which differs between builds: these
    # quantities do not change with it)
    cvalue(f"eig[{key}][vectors_jvp]",
           f"(lambda v, dv: v * dv)(*jax.jvp(lambda a: ({EIGV})(a)[1], ({m},), "
           "(jnp.arange(9.0).reshape(3, 3),)))")
    value(f"eig[{key}][vectors_grad]",
          f"jax.grad(lambda a: jnp.sum(jnp.real(({EIGV})(a)[1]) ** 2 * "
          f"jnp.arange(9.0).reshape(3, 3)))({m})")
value("eigvals[batch][grad]",
      f"jax.grad(lambda a: jnp.sum(jnp.linalg.eigvals(a).real ** 2))(jnp.stack([{NS}, {NR}]))")
value("eigvals[vmap][grad]",
      f"jax.vmap(jax.grad(lambda a: jnp.sum(jnp.linalg.eigvals(a).imag ** 2)))"
      f"(jnp.stack([{NS}, {NR}]))")
cvalue("eigvals[complex_input][jvp]",
       f"jax.jvp(jnp.linalg.eigvals, ({NS} + 1j * {NR},), (jnp.ones((3, 3)) * (1 - 1j),))[1]")
CASES["value:eig[vectors_not_enabled]"] = (
    f"out = jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eig(a)[1])))({NS})")

# ---------------------------------------------------------------- complex inputs
# gradients of real-valued functions of complex matrices (JAX's convention: the conjugate
# of the Wirtinger derivative d/dz̄ times 2, as jax.grad gives it) and complex JVPs
MC = "(jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]) + 1j * " + NR + ")"
MC2 = "(jnp.array([[2.0, 1.0], [0.5, 3.0]]) + 1j * jnp.array([[0.5, -1.0], [1.0, 0.2]]))"
MC4 = "(" + M4 + " + 1j * jnp.eye(4)[::-1])"
VC = "jnp.array([1.0 + 1j, -2.0, 0.5j])"
TC = "(jnp.ones((3, 3)) + 1j * jnp.arange(9.0).reshape(3, 3))"
for key, m in (("2x2", MC2), ("3x3", MC), ("4x4", MC4)):
    cvalue(f"complex[det][{key}][grad]",
           f"jax.grad(lambda a: jnp.log(jnp.abs(jnp.linalg.det(a))))({m})")
    value(f"complex[slogdet][{key}][grad]",
          f"jax.grad(lambda a: jnp.linalg.slogdet(a)[1])({m}).imag")
    cvalue(f"complex[slogdet][{key}][sign_jvp]",
           f"jax.jvp(lambda a: jnp.linalg.slogdet(a)[0], ({m},), ({m} * 0.1j,))[1]")
cvalue("complex[det][jvp]", f"jax.jvp(jnp.linalg.det, ({MC},), ({TC},))[1]")
cvalue("complex[det][4x4][jvp]", f"jax.jvp(jnp.linalg.det, ({MC4},), (jnp.ones((4, 4)) * 1j,))[1]")
cvalue("complex[solve][jvp]", f"jax.jvp(lambda a: jnp.linalg.solve(a, {VC}), ({MC},), ({TC},))[1]")
cvalue("complex[solve][grad_a]",
       f"jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.solve(a, {VC})) ** 2))({MC})")
cvalue("complex[solve][grad_b]",
       f"jax.grad(lambda b: jnp.sum(jnp.abs(jnp.linalg.solve({MC}, b)) ** 2))({VC})")
cvalue("complex[inv][grad]", f"jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.inv(a)) ** 2))({MC})")
cvalue("complex[pinv][grad]",
       f"jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.pinv(a)) ** 2))({MC}[:, :2])")
cvalue("complex[pinv]", f"jnp.linalg.pinv({MC}[:, :2])")
cvalue("complex[cholesky][grad]",
       f"jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.cholesky(a @ a.conj().T)) ** 2))({MC})")
cvalue("complex[triangular_solve][grad_a]",
       f"jax.grad(lambda a: jnp.sum(jnp.abs(lax.linalg.triangular_solve(a, {MC}, left_side=True, "
       f"lower=True, conjugate_a=True, transpose_a=True)) ** 2))(jnp.tril({MC}))")
cvalue("complex[eigh][eigenvalues_grad]",
       f"jax.grad(lambda a: jnp.sum(jnp.linalg.eigvalsh(a) * jnp.arange(3.0)))({MC} + {MC}.conj().T)")
cvalue("complex[eigh][jvp]",
       f"jax.jvp(jnp.linalg.eigvalsh, ({MC} + {MC}.conj().T,), ({TC} + {TC}.conj().T,))[1]")
cvalue("complex[qr][grad]",
       f"jax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.qr(a)[1]) ** 2 * jnp.arange(9.0).reshape(3, 3)))"
       f"({MC})")
cvalue("complex[svd][s_grad]",
       f"jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False) * jnp.arange(3.0)))({MC})")

# ---------------------------------------------------------------- the rest of jnp.linalg
SPD = M3
jaxpr("cholesky[grad]", "jax.grad(lambda a: jnp.sum(jnp.linalg.cholesky(a)))", SPD)
jaxpr("qr[grad]", "jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[1]))", SPD)
jaxpr("eigh[grad]", "jax.grad(lambda a: jnp.sum(jnp.linalg.eigvalsh(a)))", SPD)
jaxpr("svd[grad]", "jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)))", SPD)
jaxpr("eigvals", "jnp.linalg.eigvals", NS)
jaxpr("eig", "jnp.linalg.eig", NS)
jaxpr("lstsq", "lambda a: jnp.linalg.lstsq(a, a[:, 0])", R)
jaxpr("tensorsolve", "lambda a: jnp.linalg.tensorsolve(a.reshape(2, 2, 4), jnp.ones((2, 2)))",
      "jnp.eye(4) + 0.1")
jaxpr("tensorinv", "lambda a: jnp.linalg.tensorinv(a.reshape(2, 2, 4), ind=2)",
      "jnp.eye(4) + 0.1")
jaxpr("multi_dot", "lambda a: jnp.linalg.multi_dot([a, a, a])", M3)
jaxpr("svdvals", "jnp.linalg.svdvals", M3)
jaxpr("vector_norm", "lambda a: jnp.linalg.vector_norm(a, ord=1)", M3)
jaxpr("matrix_norm", "lambda a: jnp.linalg.matrix_norm(a, ord=jnp.inf)", M3)
jaxpr("lax.lu", "lax.linalg.lu", M3)
jaxpr("lax.lu[grad]", "jax.grad(lambda a: jnp.sum(lax.linalg.lu(a)[0]))", M3)
jaxpr("lax.cholesky", "lax.linalg.cholesky", SPD)
jaxpr("lax.qr", "lax.linalg.qr", M3)
jaxpr("lax.eigh", "lax.linalg.eigh", SPD)
jaxpr("lax.svd", "lax.linalg.svd", M3)
jaxpr("lax.triangular_solve[grad_b]",
      "jax.grad(lambda b: jnp.sum(lax.linalg.triangular_solve(" + TRI + ", b, lower=True)))", M3)

# ---------------------------------------------------------------- jax.scipy.linalg
CASES["jaxpr:scipy.solve"] = ("jsl = jax.scipy.linalg\n"
                              f"out = str(make_jaxpr(lambda a: jsl.solve(a, a[0]))({M3}))")
CASES["jaxpr:scipy.lu_solve"] = ("jsl = jax.scipy.linalg\n"
                                 f"out = str(make_jaxpr(lambda a: jsl.lu_solve(jsl.lu_factor(a), "
                                 f"a[0]))({M3}))")
CASES["jaxpr:scipy.cho_solve"] = ("jsl = jax.scipy.linalg\n"
                                  f"out = str(make_jaxpr(lambda a: jsl.cho_solve(jsl.cho_factor(a), "
                                  f"a[0]))({M3}))")
CASES["jaxpr:scipy.solve_triangular"] = (
    "jsl = jax.scipy.linalg\n"
    f"out = str(make_jaxpr(lambda a: jsl.solve_triangular(a, a[0], lower=True))({TRI}))")
CASES["jaxpr:scipy.inv"] = ("jsl = jax.scipy.linalg\n"
                            f"out = str(make_jaxpr(jsl.inv)({M3}))")
CASES["jaxpr:scipy.det"] = ("jsl = jax.scipy.linalg\n"
                            f"out = str(make_jaxpr(jsl.det)({M3}))")
CASES["jaxpr:scipy.lu"] = ("jsl = jax.scipy.linalg\n"
                           f"out = str(make_jaxpr(jsl.lu)({M3}))")
CASES["value:lax.lu_pivots_to_permutation"] = (
    "out = lax.linalg.lu_pivots_to_permutation(jnp.array([[2, 2, 2], [1, 2, 2]], jnp.int32), 4)")
CASES["jaxpr:lax.lu_pivots_to_permutation[vmap]"] = (
    "out = str(make_jaxpr(jax.vmap(lambda p: lax.linalg.lu_pivots_to_permutation(p, 3)))"
    "(jnp.array([[2, 2, 2], [1, 2, 2]], jnp.int32)))")
value("scipy.lu_solve[matrix]", f"jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor({M4}), "
      f"{M4}[:, :2], trans=1)")
value("scipy.lu_solve[batch]", f"jax.vmap(lambda a: jax.scipy.linalg.lu_solve("
      f"jax.scipy.linalg.lu_factor(a), a[0]))({B3})")
value("scipy.solve[pos][grad]", f"jax.grad(lambda a: jnp.sum(jax.scipy.linalg.solve(a, {V3}, "
      f"assume_a='pos')))({M3})")
value("scipy.cho_solve[matrix]", f"jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor({M3}, "
      f"lower=True), {M3})")
