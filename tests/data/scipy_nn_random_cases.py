"""Programs whose JAX results are recorded in scipy_nn_random_recorded.json (record_from_jax.py).

jax.scipy (special, stats, linalg), the rest of jax.nn and jax.random. Each program sets
``out``. Values of special functions go through ``r(x)``: dtype, shape and the values to 5
significant digits (XLA's approximations and ours agree to float32 accuracy, not always to
the last bit). Random samples are compared through ``repr``, bit for bit: the point of
jax.random is that the same key gives the same numbers.
"""
HELPER = ("jsp = jax.scipy\n"
          "random = jax.random\n"
          "def r(x):\n"
          "    x = jnp.asarray(x)\n"
          "    v = np.asarray(x, np.float64).ravel()\n"
          "    return (str(x.dtype), tuple(x.shape), "
          "[float('%.5g' % e) for e in v])\n")

X64 = ("jax.config.update('jax_enable_x64', True)\ntry:\n    {}\n"
       "finally:\n    jax.config.update('jax_enable_x64', False)")

POS = "jnp.array([0.1, 0.5, 1.0, 2.5, 7.0])"
ANY = "jnp.array([-3.5, -1.2, -0.3, 0.0, 0.4, 1.7, 4.0])"
UNIT = "jnp.array([0.01, 0.2, 0.5, 0.8, 0.99])"

_CASES: dict[str, str] = {}


def case(name: str, code: str) -> None:
    assert name not in _CASES, name
    _CASES[name] = code


# ================================================================ scipy.special
for fn, arg in [("gammaln", POS), ("gammaln", ANY), ("gamma", POS), ("gamma", ANY),
                ("loggamma", ANY), ("gammasgn", ANY), ("digamma", POS), ("digamma", ANY),
                ("erf", ANY), ("erfc", ANY), ("erfinv", "jnp.array([-0.9, -0.2, 0., 0.5, 0.99])"),
                ("expit", ANY), ("logit", UNIT), ("ndtr", ANY), ("ndtri", UNIT),
                ("log_ndtr", "jnp.array([-30., -12., -3., 0., 2., 6., 9.])"), ("entr", ANY),
                ("i0", ANY), ("i0e", ANY), ("i1", ANY), ("i1e", ANY),
                ("i0e", "jnp.array([0., 10., 31., 100., -50.])"),
                ("i1e", "jnp.array([0., 1e-8, 10., 31., 100., -50.])"),
                ("factorial", "jnp.array([0., 1., 3., 5.5, -1.])")]:
    name = f"special_{fn}_{'pos' if arg == POS else 'any' if arg == ANY else len(_CASES)}"
    case(name, f"out = r(jsp.special.{fn}({arg}))")

for fn in ["gammaln", "digamma", "erf", "erfc", "expit", "ndtr", "i0e", "i1e", "gamma",
           "entr", "log_ndtr", "erfinv", "logit", "ndtri"]:
    case(f"special_{fn}_int_dtype", f"out = str(jsp.special.{fn}(jnp.array([1, 2])).dtype)")
    case(f"special_{fn}_python_scalar", f"x = jsp.special.{fn}(0.5)\nout = (r(x), x.weak_type)")

for fn, x in [("gammaln", 2.5), ("digamma", 2.5), ("erf", 0.3), ("erfc", 0.3), ("erfinv", 0.3),
              ("expit", 0.3), ("logit", 0.3), ("ndtr", 0.3), ("ndtri", 0.3), ("log_ndtr", -4.0),
              ("log_ndtr", 7.0), ("i0e", 1.5), ("i1e", 1.5), ("i1e", 0.0), ("i0", 1.5),
              ("i1", 1.5), ("gamma", 3.5), ("entr", 0.4), ("factorial", 3.0),
              ("loggamma", 2.5)]:
    case(f"special_grad_{fn}_{x}", f"out = r(jax.grad(jsp.special.{fn})({x}))")

for name, code in {
    "xlogy": "out = r(jsp.special.xlogy(jnp.array([0., 0., 1., 2.]), jnp.array([0., 2., 0., 3.])))",
    "xlog1py": "out = r(jsp.special.xlog1py(jnp.array([0., 0., 1., 2.]), jnp.array([-1., 2., 0., 3.])))",
    "xlogy_grad_x": "out = r(jax.grad(jsp.special.xlogy)(2., 3.))",
    "xlogy_grad_y": "out = r(jax.grad(jsp.special.xlogy, 1)(2., 3.))",
    "xlogy_grad_zero": "out = r(jax.grad(jsp.special.xlogy, 1)(0., 3.))",
    "xlog1py_grad": "out = r(jax.grad(jsp.special.xlog1py, (0, 1))(2., 3.))",
    "xlogy_int": "out = str(jsp.special.xlogy(1, 2).dtype)",
    "betaln": "out = r(jsp.special.betaln(jnp.array([0.5, 1., 2.5, 10.]), jnp.array([1., 2., 3.5, 0.3])))",
    "beta": "out = r(jsp.special.beta(jnp.array([0.5, 1., 2.5, -1.5]), jnp.array([1., 2., 3.5, 0.3])))",
    "betainc": "out = r(jsp.special.betainc(jnp.array([0.5, 1., 2.5, 5.]), jnp.array([1., 2., 3.5, 0.3]), jnp.array([0.1, 0.5, 0.7, 0.99])))",
    "betainc_edges": "out = r(jsp.special.betainc(2., 3., jnp.array([0., 1., 1.5, -0.1])))",
    "betainc_grad_x": "out = r(jax.grad(jsp.special.betainc, 2)(2., 3., 0.4))",
    "betainc_grad_a": "out = jax.grad(jsp.special.betainc, 0)(2., 3., 0.4)",
    "gammainc": "out = r(jsp.special.gammainc(jnp.array([0.5, 1., 2.5, 10., 3.]), jnp.array([0.1, 2., 3., 5., 30.])))",
    "gammaincc": "out = r(jsp.special.gammaincc(jnp.array([0.5, 1., 2.5, 10., 3.]), jnp.array([0.1, 2., 3., 5., 30.])))",
    "gammainc_edges": "out = r(jsp.special.gammainc(jnp.array([0., 1., -1., 2.]), jnp.array([1., 0., 1., jnp.inf])))",
    "gammainc_grad_x": "out = r(jax.grad(jsp.special.gammainc, 1)(2.5, 1.5))",
    "gammainc_grad_a": "out = r(jax.grad(jsp.special.gammainc, 0)(2.5, 1.5))",
    "gammaincc_grad_a": "out = r(jax.grad(jsp.special.gammaincc, 0)(2.5, 1.5))",
    "zeta": "out = r(jsp.special.zeta(jnp.array([2., 3., 4.5, 1.5]), jnp.array([1., 2., 0.5, 3.])))",
    "zeta_no_q": "out = jsp.special.zeta(2.)",
    "polygamma": "out = r(jsp.special.polygamma(jnp.array([0, 1, 2, 3]), jnp.array([0.5, 1., 2.5, 4.])))",
    "polygamma_float_n": "out = jsp.special.polygamma(1., 2.)",
    "polygamma_grad": "out = r(jax.grad(jsp.special.polygamma, 1)(1, 2.5))",
    "multigammaln": "out = r(jsp.special.multigammaln(jnp.array([2.5, 3., 10.]), 3))",
    "multigammaln_d1": "out = r(jsp.special.multigammaln(2.5, 1))",
    "comb": "out = r(jsp.special.comb(jnp.array([5., 10., 3., 4.]), jnp.array([2., 3., 5., -1.])))",
    "comb_repetition": "out = r(jsp.special.comb(5., 2., repetition=True))",
    "poch": "out = r(jsp.special.poch(jnp.array([1., 2.5, 3.]), jnp.array([0., 2., 1.5])))",
    "factorial_exact": "out = jsp.special.factorial(3, exact=True)",
    "rel_entr": "out = r(jsp.special.rel_entr(jnp.array([0., 0.5, 1., 0.3, -1.]), jnp.array([0.2, 0.5, 2., 0., 1.])))",
    "kl_div": "out = r(jsp.special.kl_div(jnp.array([0., 0.5, 1.]), jnp.array([0.2, 0.5, 2.])))",
    "boxcox": "out = r(jsp.special.boxcox(jnp.array([0.5, 1., 2.]), jnp.array([0., 0.5, 2.])))",
    "boxcox1p": "out = r(jsp.special.boxcox1p(jnp.array([0.5, 1., 2.]), jnp.array([0., 0.5, 2.])))",
    "bernoulli_numbers": "out = r(jsp.special.bernoulli(6))",
    "log_ndtr_order": "out = r(jsp.special.log_ndtr(jnp.array([-15., -11.]), series_order=5))",
    "log_ndtr_bad_order": "out = jsp.special.log_ndtr(1., series_order=-1)",
    "log_ndtr_big_order": "out = jsp.special.log_ndtr(1., series_order=31)",
    "log_ndtr_float_order": "out = jsp.special.log_ndtr(1., series_order=2.)",
    "ndtr_int": "out = jsp.special.ndtr(jnp.array([1, 2]))",
    "ndtri_edges": "out = r(jsp.special.ndtri(jnp.array([0., 1., 0.5])))",
    "ndtri_int": "out = jsp.special.ndtri(jnp.array([0, 1]))",
    "gammaln_list": "out = jsp.special.gammaln([1., 2.])",
    "logsumexp": "out = r(jsp.special.logsumexp(jnp.array([1., 2., 3.])))",
    "logsumexp_axis": "out = r(jsp.special.logsumexp(jnp.array([[1., 2., 3.], [4., 5., 1000.]]), axis=1))",
    "logsumexp_keepdims": "out = r(jsp.special.logsumexp(jnp.array([[1., 2.], [3., 4.]]), axis=0, keepdims=True))",
    "logsumexp_b": "out = r(jsp.special.logsumexp(jnp.array([1., 2., 3.]), b=jnp.array([2., 0., 1.])))",
    "logsumexp_b_negative": "out = r(jsp.special.logsumexp(jnp.array([1., 2., 3.]), b=jnp.array([1., -1., -1.])))",
    "logsumexp_return_sign": "a, s = jsp.special.logsumexp(jnp.array([1., 2., 3.]), b=jnp.array([1., -1., -1.]), return_sign=True)\nout = (r(a), r(s))",
    "logsumexp_where": "out = r(jsp.special.logsumexp(jnp.array([1., 2., 30.]), where=jnp.array([True, True, False])))",
    "logsumexp_neg_inf": "out = r(jsp.special.logsumexp(jnp.array([-jnp.inf, -jnp.inf])))",
    "logsumexp_int": "out = r(jsp.special.logsumexp(jnp.array([1, 2, 3])))",
    "logsumexp_axes": "out = r(jsp.special.logsumexp(jnp.ones((2, 3, 4)), axis=(0, 2)))",
    "logsumexp_grad": "out = r(jax.grad(jsp.special.logsumexp)(jnp.array([1., 2., 3.])))",
    "logsumexp_grad_b": "out = r(jax.grad(lambda x: jsp.special.logsumexp(x, b=jnp.array([1., 2., 0.5])))(jnp.array([1., 2., 3.])))",
    "special_softmax": "out = r(jsp.special.softmax(jnp.array([1., 2., 3.])))",
    "special_log_softmax": "out = r(jsp.special.log_softmax(jnp.array([[1., 2., 3.], [1., 1., 1.]]), axis=0))",
    "special_vmap_gammaln": "out = r(jax.vmap(jsp.special.gammaln)(jnp.array([1.5, 2.5])))",
    "special_jit_digamma": "out = r(jax.jit(jsp.special.digamma)(jnp.array([1.5, 2.5])))",
    "special_hessian_gammaln": "out = r(jax.hessian(jsp.special.gammaln)(2.5))",
    "special_x64_gammaln": X64.format("out = r(jsp.special.gammaln(jnp.array([0.5, 10., 100.])))"),
    "special_x64_digamma": X64.format("out = r(jsp.special.digamma(jnp.array([0.5, 10., -2.5])))"),
    "special_x64_ndtri": X64.format("out = r(jsp.special.ndtri(jnp.array([1e-10, 0.3, 0.999])))"),
    "special_x64_log_ndtr": X64.format("out = r(jsp.special.log_ndtr(jnp.array([-25., -5., 10.])))"),
    "special_x64_gammainc": X64.format("out = r(jsp.special.gammainc(jnp.array([0.5, 3., 20.]), jnp.array([0.2, 3., 25.])))"),
    "lax_lgamma_jaxpr": "out = str(jax.make_jaxpr(lax.lgamma)(1.5))",
    "lax_digamma_grad_jaxpr": "out = str(jax.make_jaxpr(jax.grad(lax.digamma))(jnp.float32(1.5)))",
    "lax_igamma_jaxpr": "out = str(jax.make_jaxpr(lax.igamma)(1.5, 2.))",
    "lax_erfc_grad_jaxpr": "out = str(jax.make_jaxpr(jax.grad(lax.erfc))(jnp.float32(1.5)))",
    "lax_bessel_jaxpr": "out = str(jax.make_jaxpr(lambda x: lax.bessel_i0e(x) + lax.bessel_i1e(x))(1.5))",
    "lax_lgamma_int": "out = lax.lgamma(2)",
    "lax_igamma_mixed": "out = lax.igamma(jnp.float32(1.), 2)",
    "lax_betainc": "out = r(lax.betainc(2., 3., 0.5))",
    "lax_random_gamma_grad": "out = r(lax.random_gamma_grad(jnp.array([0.5, 2., 10.]), jnp.array([0.3, 1.5, 9.])))",
    "lax_igamma_grad_a": "out = r(lax.igamma_grad_a(jnp.array([0.5, 2., 10.]), jnp.array([0.3, 1.5, 9.])))",
}.items():
    case(name, code)

# ================================================================ scipy.stats
ST = "x = jnp.array([-2., -0.5, 0., 0.3, 1.2, 3.])\n"
P = "q = jnp.array([0.05, 0.3, 0.5, 0.9])\n"
K = "k = jnp.array([-1., 0., 1., 2., 5., 2.5])\n"
stats_calls = {
    "norm": ["pdf(x)", "logpdf(x, 1., 2.)", "cdf(x)", "logcdf(x)", "sf(x)", "logsf(x, 0.5)",
             "ppf(q)", "ppf(q, 1., 3.)", "isf(q)"],
    "logistic": ["pdf(x)", "logpdf(x, 1., 2.)", "cdf(x)", "sf(x)", "ppf(q)", "isf(q)"],
    "uniform": ["pdf(x)", "logpdf(x, -1., 2.)", "cdf(x, -1., 2.)", "ppf(q, 1., 2.)"],
    "expon": ["pdf(x)", "logpdf(x, 0., 2.)", "cdf(x)", "logcdf(x)", "sf(x)", "logsf(x)",
              "ppf(q)"],
    "laplace": ["pdf(x)", "logpdf(x, 1., 2.)", "cdf(x)"],
    "cauchy": ["pdf(x)", "logpdf(x, 1., 2.)", "cdf(x)", "logcdf(x)", "sf(x)", "logsf(x)",
               "ppf(q)", "isf(q)"],
    "t": ["pdf(x, 3.)", "logpdf(x, 1.5, 1., 2.)"],
    "gamma": ["pdf(x, 2.)", "logpdf(x, 0.5)", "cdf(x, 2.)", "logcdf(x, 3., 0.5, 2.)",
              "sf(x, 2.)", "logsf(x, 2.)"],
    "beta": ["pdf(q, 2., 3.)", "logpdf(q, 0.5, 0.5)", "cdf(q, 2., 3.)", "logcdf(q, 2., 3.)",
             "sf(q, 2., 3.)", "logsf(q, 2., 3.)", "logpdf(x, 2., 3.)", "pdf(q, -1., 2.)"],
    "chi2": ["pdf(x, 3.)", "logpdf(x, 2.)", "cdf(x, 3.)", "logcdf(x, 3.)", "sf(x, 3.)",
             "logsf(x, 3.)"],
    "pareto": ["pdf(x, 2.)", "logpdf(x + 2, 3.)", "cdf(x + 2, 3.)", "logcdf(x + 2, 3.)",
               "logsf(x + 2, 3.)", "sf(x + 2, 3.)", "ppf(q, 2.)"],
    "gumbel_r": ["pdf(x)", "logpdf(x, 1., 2.)", "cdf(x)", "logcdf(x)", "sf(x)", "logsf(x)",
                 "ppf(q)"],
    "gumbel_l": ["pdf(x)", "logpdf(x, 1., 2.)", "cdf(x)", "logcdf(x)", "sf(x)", "logsf(x)",
                 "ppf(q)"],
    "poisson": ["pmf(k, 3.)", "logpmf(k, 0.5)", "cdf(k, 3.)", "logpmf(k, 2., 1.)"],
    "bernoulli": ["pmf(k, 0.3)", "logpmf(k, 0.3)", "cdf(k, 0.3)", "ppf(q, 0.3)"],
    "geom": ["pmf(k, 0.3)", "logpmf(k, 0.3)"],
}
for dist, calls in stats_calls.items():
    for i, call in enumerate(calls):
        case(f"stats_{dist}_{i}_{call.split('(')[0]}", ST + P + K + f"out = r(jsp.stats.{dist}.{call})")

for name, code in {
    "stats_norm_int": "out = str(jsp.stats.norm.pdf(jnp.array([0, 1])).dtype)",
    "stats_norm_grad": "out = r(jax.grad(jsp.stats.norm.logpdf, (0, 1, 2))(0.5, 1., 2.))",
    "stats_norm_cdf_grad": "out = r(jax.grad(jsp.stats.norm.cdf)(0.5))",
    "stats_norm_logcdf_grad_tail": "out = r(jax.grad(jsp.stats.norm.logcdf)(-20.))",
    "stats_gamma_grad_a": "out = r(jax.grad(jsp.stats.gamma.logpdf, 1)(1.5, 2.))",
    "stats_beta_grad": "out = r(jax.grad(jsp.stats.beta.logpdf, (1, 2))(0.3, 2., 3.))",
    "stats_t_grad_df": "out = r(jax.grad(jsp.stats.t.logpdf, 1)(0.7, 3.))",
    "stats_vmap_norm": "out = r(jax.vmap(jsp.stats.norm.logpdf, (0, None, None))(jnp.array([0., 1.]), 0., 1.))",
    "stats_mvn_logpdf": "out = r(jsp.stats.multivariate_normal.logpdf(jnp.array([0.5, -1.]), jnp.array([0., 1.]), jnp.array([[2., 0.3], [0.3, 1.]])))",
    "stats_mvn_pdf_batch": "out = r(jsp.stats.multivariate_normal.pdf(jnp.array([[0.5, -1.], [0., 0.]]), jnp.array([0., 1.]), jnp.array([[2., 0.3], [0.3, 1.]])))",
    "stats_mvn_scalar_cov": "out = r(jsp.stats.multivariate_normal.logpdf(jnp.array([0.5, -1.]), jnp.array([0., 1.]), 2.))",
    "stats_mvn_scalar_mean": "out = r(jsp.stats.multivariate_normal.logpdf(0.5, 0., 2.))",
    "stats_mvn_bad_cov": "out = jsp.stats.multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(3))",
    "stats_mvn_grad": "out = r(jax.grad(jsp.stats.multivariate_normal.logpdf)(jnp.array([0.5, -1.]), jnp.array([0., 1.]), jnp.array([[2., 0.3], [0.3, 1.]])))",
    "stats_dirichlet": "out = r(jsp.stats.dirichlet.logpdf(jnp.array([0.2, 0.3, 0.5]), jnp.array([1., 2., 3.])))",
    "stats_dirichlet_pdf_short": "out = r(jsp.stats.dirichlet.pdf(jnp.array([0.2, 0.3]), jnp.array([1., 2., 3.])))",
    "stats_dirichlet_batch": "out = r(jsp.stats.dirichlet.logpdf(jnp.array([[0.2, 0.5], [0.3, 0.25], [0.5, 0.25]]), jnp.array([1., 2., 3.])))",
    "stats_dirichlet_off_simplex": "out = r(jsp.stats.dirichlet.logpdf(jnp.array([0.2, 0.3, 0.6]), jnp.array([1., 2., 3.])))",
    "stats_dirichlet_bad_alpha": "out = jsp.stats.dirichlet.logpdf(jnp.array([0.2, 0.8]), jnp.ones((2, 2)))",
    "stats_dirichlet_bad_x": "out = jsp.stats.dirichlet.logpdf(jnp.array([0.2]), jnp.ones(3))",
}.items():
    case(name, code)

# ================================================================ scipy.linalg
A = "a = jnp.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]])\n"
N = "n = jnp.array([[0., 2., 1.], [1., 1., 0.], [3., -1., 2.]])\n"
B = "b = jnp.array([[1., 2.], [3., 4.], [5., 7.]])\n"
V = "v = jnp.array([1., -2., 0.5])\n"
for name, code in {
    "cholesky_upper": "out = r(jsp.linalg.cholesky(a))",
    "cholesky_lower": "out = r(jsp.linalg.cholesky(a, lower=True))",
    "cho_factor": "c, low = jsp.linalg.cho_factor(a)\nout = (r(c), low)",
    "cho_solve": "out = r(jsp.linalg.cho_solve(jsp.linalg.cho_factor(a), v))",
    "cho_solve_lower_matrix": "out = r(jsp.linalg.cho_solve(jsp.linalg.cho_factor(a, lower=True), b))",
    "cho_solve_grad": "out = r(jax.grad(lambda a: jsp.linalg.cho_solve(jsp.linalg.cho_factor(a), v).sum())(a))",
    "lu_factor": "lu, piv = jsp.linalg.lu_factor(n)\nout = (r(lu), repr(piv))",
    "lu_solve": "out = r(jsp.linalg.lu_solve(jsp.linalg.lu_factor(n), v))",
    "lu_solve_matrix": "out = r(jsp.linalg.lu_solve(jsp.linalg.lu_factor(n), b))",
    "lu_solve_trans": "out = r(jsp.linalg.lu_solve(jsp.linalg.lu_factor(n), v, trans=1))",
    "lu": "p, l, u = jsp.linalg.lu(n)\nout = (r(p), r(l), r(u))",
    "lu_permute_l": "pl, u = jsp.linalg.lu(n, permute_l=True)\nout = (r(pl), r(u))",
    "solve_triangular_lower": "out = r(jsp.linalg.solve_triangular(jnp.tril(a), v, lower=True))",
    "solve_triangular_upper": "out = r(jsp.linalg.solve_triangular(jnp.triu(a), b))",
    "solve_triangular_trans": "out = r(jsp.linalg.solve_triangular(jnp.tril(a), v, trans=1, lower=True))",
    "solve_triangular_unit": "out = r(jsp.linalg.solve_triangular(jnp.tril(a), v, lower=True, unit_diagonal=True))",
    "solve_triangular_bad_trans": "out = jsp.linalg.solve_triangular(a, v, trans=3)",
    "solve_triangular_grad": "out = r(jax.grad(lambda a: jsp.linalg.solve_triangular(a, v, lower=True).sum())(jnp.tril(a)))",
    "solve_gen": "out = r(jsp.linalg.solve(n, v))",
    "solve_pos": "out = r(jsp.linalg.solve(a, b, assume_a='pos'))",
    "solve_bad_assume": "out = jsp.linalg.solve(a, v, assume_a='banana')",
    "inv": "out = r(jsp.linalg.inv(n))",
    "det": "out = r(jsp.linalg.det(n))",
    "eigh": "w, vv = jsp.linalg.eigh(a)\nout = (r(w), r(jnp.abs(vv)))",
    "eigh_only": "out = r(jsp.linalg.eigh(a, eigvals_only=True))",
    "qr_full": "q, rr = jsp.linalg.qr(b)\nout = (q.shape, r(jnp.abs(rr)))",
    "qr_economic": "q, rr = jsp.linalg.qr(b, mode='economic')\nout = (q.shape, rr.shape)",
    "qr_r": "out = r(jnp.abs(jsp.linalg.qr(b, mode='r')[0]))",
    "svd": "out = r(jsp.linalg.svd(b, compute_uv=False))",
    "expm": "out = r(jsp.linalg.expm(a * 0.3))",
    "expm_large_norm": "out = r(jsp.linalg.expm(n * 1.5))",
    "expm_zero": "out = r(jsp.linalg.expm(jnp.zeros((2, 2))))",
    "expm_int": "out = r(jsp.linalg.expm(jnp.array([[0, 1], [0, 0]])))",
    "expm_nonsquare": "out = jsp.linalg.expm(jnp.ones((2, 3)))",
    "expm_grad": "out = r(jax.grad(lambda a: jsp.linalg.expm(a).sum())(a * 0.3))",
    "expm_x64": X64.format(A.strip() + "\n    out = r(jsp.linalg.expm(a))"),
    "block_diag": "out = r(jsp.linalg.block_diag(jnp.ones((1, 1)), 2 * jnp.ones((2, 2)), jnp.array([1., 2., 3.])))",
    "block_diag_int": "out = repr(jsp.linalg.block_diag(jnp.array([[1, 2]]), 3))",
    "block_diag_empty": "out = repr(jsp.linalg.block_diag())",
    "block_diag_3d": "out = jsp.linalg.block_diag(jnp.ones((1, 1, 1)))",
    "toeplitz": "out = r(jsp.linalg.toeplitz(jnp.array([1., 2., 3.]), jnp.array([1., 4., 5., 6.])))",
    "toeplitz_c": "out = repr(jsp.linalg.toeplitz(jnp.array([1, 2, 3])))",
    "hilbert": "out = r(jsp.linalg.hilbert(3))",
}.items():
    case(f"linalg_{name}", A + N + B + V + code)

# ================================================================ nn
NX = "x = jnp.array([-3., -1., -0.5, 0., 0.5, 1., 2., 7.])\n"
for fn in ["relu", "relu6", "sigmoid", "softplus", "sparse_plus", "soft_sign",
           "sparse_sigmoid", "silu", "swish", "mish", "log_sigmoid", "elu", "leaky_relu",
           "hard_tanh", "celu", "selu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish",
           "squareplus", "identity", "tanh", "log_softmax", "softmax", "standardize"]:
    case(f"nn_{fn}", NX + f"out = r(jax.nn.{fn}(x))")
    case(f"nn_{fn}_grad", NX + f"out = r(jax.vmap(jax.grad(lambda y: jax.nn.{fn}(y).sum()))(x[:, None]))")
for name, code in {
    "gelu_exact": "out = r(jax.nn.gelu(x, approximate=False))",
    "gelu_exact_grad": "out = r(jax.grad(lambda y: jax.nn.gelu(y, approximate=False))(0.7))",
    "gelu_int": "out = r(jax.nn.gelu(jnp.array([1, 2])))",
    "elu_alpha": "out = r(jax.nn.elu(x, alpha=0.5))",
    "celu_alpha": "out = r(jax.nn.celu(x, alpha=2.))",
    "leaky_slope": "out = r(jax.nn.leaky_relu(x, negative_slope=0.2))",
    "squareplus_b": "out = r(jax.nn.squareplus(x, b=1.))",
    "relu_grad_at_0": "out = r(jax.grad(jax.nn.relu)(0.))",
    "relu6_grad_at_6": "out = r(jax.grad(jax.nn.relu6)(6.))",
    "log1mexp": "out = r(jax.nn.log1mexp(jnp.array([0.01, 0.5, 1., 5., 30.])))",
    "log1mexp_grad": "out = r(jax.grad(jax.nn.log1mexp)(0.5))",
    "glu": "out = r(jax.nn.glu(jnp.arange(8.).reshape(2, 4)))",
    "glu_axis0": "out = r(jax.nn.glu(jnp.arange(8.).reshape(2, 4), axis=0))",
    "logsumexp": "out = r(jax.nn.logsumexp(jnp.array([[1., 2.], [3., 4.]]), axis=1))",
    "logsumexp_b": "out = r(jax.nn.logsumexp(jnp.array([1., 2.]), b=jnp.array([0.5, 2.])))",
    "logmeanexp": "out = r(jax.nn.logmeanexp(jnp.array([[1., 2.], [3., 4.]]), axis=1))",
    "logmeanexp_all": "out = r(jax.nn.logmeanexp(jnp.array([[1., 2.], [3., 4.]])))",
    "logmeanexp_where": "out = r(jax.nn.logmeanexp(jnp.array([1., 2., 9.]), where=jnp.array([True, True, False])))",
    "softmax_where": "out = r(jax.nn.softmax(jnp.array([1., 2., 3.]), where=jnp.array([True, False, True])))",
    "log_softmax_where": "out = r(jax.nn.log_softmax(jnp.array([1., 2., 3.]), where=jnp.array([True, False, True])))",
    "softmax_axis0": "out = r(jax.nn.softmax(jnp.array([[1., 2.], [3., 5.]]), axis=0))",
    "softmax_axes": "out = r(jax.nn.softmax(jnp.array([[1., 2.], [3., 5.]]), axis=(0, 1)))",
    "softmax_grad_first": "out = r(jax.grad(lambda v: jax.nn.softmax(v)[0])(jnp.array([1., 2., 3.])))",
    "softmax_large": "out = r(jax.nn.softmax(jnp.array([1000., 1001.])))",
    "log_softmax_grad_second": "out = r(jax.grad(lambda v: jax.nn.log_softmax(v)[1])(jnp.array([1., 2., 3.])))",
    "softmax_int": "out = r(jax.nn.softmax(jnp.array([1, 2])))",
    "standardize_axis": "out = r(jax.nn.standardize(jnp.array([[1., 2., 4.], [0., 0., 3.]]), axis=0))",
    "standardize_stable": "out = r(jax.nn.standardize(jnp.array([1., 2., 4.]), algorithm='stable'))",
    "standardize_mean_var": "out = r(jax.nn.standardize(jnp.array([1., 2., 4.]), mean=1., variance=4.))",
    "standardize_bad": "out = jax.nn.standardize(jnp.array([1., 2., 4.]), algorithm='slow')",
    "standardize_where": "out = r(jax.nn.standardize(jnp.array([1., 2., 4., 100.]), where=jnp.array([True, True, True, False])))",
    "one_hot": "out = repr(jax.nn.one_hot(jnp.array([0, 2, 1, 5, -1]), 3))",
    "one_hot_dtype": "out = repr(jax.nn.one_hot(jnp.array([0, 2]), 3, dtype=jnp.int32))",
    "one_hot_axis0": "out = repr(jax.nn.one_hot(jnp.array([[0, 2], [1, 1]]), 3, axis=0))",
    "one_hot_axis1": "out = repr(jax.nn.one_hot(jnp.array([[0, 2], [1, 1]]), 3, axis=1))",
    "one_hot_bad_axis": "out = jax.nn.one_hot(jnp.array([0, 2]), 3, axis=3)",
    "one_hot_scalar": "out = repr(jax.nn.one_hot(2, 4))",
    "one_hot_positional_dtype": "out = jax.nn.one_hot(jnp.array([0]), 3, jnp.int32)",
    "identity_list": "out = jax.nn.identity([1., 2.])",
    "silu_list": "out = jax.nn.silu([1., 2.])",
    "dpa_basic": "q = jnp.arange(24.).reshape(1, 3, 2, 4) / 10\nk = jnp.cos(jnp.arange(32.)).reshape(1, 4, 2, 4)\nv = jnp.sin(jnp.arange(32.)).reshape(1, 4, 2, 4)\nout = r(jax.nn.dot_product_attention(q, k, v))",
    "dpa_3d": "q = jnp.arange(12.).reshape(3, 1, 4) / 10\nk = jnp.cos(jnp.arange(16.)).reshape(4, 1, 4)\nv = jnp.sin(jnp.arange(16.)).reshape(4, 1, 4)\nout = r(jax.nn.dot_product_attention(q, k, v))",
    "dpa_causal": "q = jnp.arange(24.).reshape(1, 3, 2, 4) / 10\nk = jnp.cos(jnp.arange(24.)).reshape(1, 3, 2, 4)\nv = jnp.sin(jnp.arange(24.)).reshape(1, 3, 2, 4)\nout = r(jax.nn.dot_product_attention(q, k, v, is_causal=True))",
    "dpa_mask_bias_scale": "q = jnp.arange(24.).reshape(1, 3, 2, 4) / 10\nk = jnp.cos(jnp.arange(32.)).reshape(1, 4, 2, 4)\nv = jnp.sin(jnp.arange(32.)).reshape(1, 4, 2, 4)\nm = jnp.array([[True, False, True, True]] * 3)[None, None]\nb = jnp.linspace(-1, 1, 12).reshape(1, 1, 3, 4)\nout = r(jax.nn.dot_product_attention(q, k, v, bias=b, mask=m, scale=0.3))",
    "dpa_gqa": "q = jnp.arange(48.).reshape(1, 3, 4, 4) / 10\nk = jnp.cos(jnp.arange(32.)).reshape(1, 4, 2, 4)\nv = jnp.sin(jnp.arange(32.)).reshape(1, 4, 2, 4)\nout = r(jax.nn.dot_product_attention(q, k, v))",
    "dpa_seqlens": "q = jnp.arange(48.).reshape(2, 3, 2, 4) / 10\nk = jnp.cos(jnp.arange(64.)).reshape(2, 4, 2, 4)\nv = jnp.sin(jnp.arange(64.)).reshape(2, 4, 2, 4)\nout = r(jax.nn.dot_product_attention(q, k, v, query_seq_lengths=jnp.array([2, 3], jnp.int32), key_value_seq_lengths=jnp.array([4, 1], jnp.int32)))",
    "dpa_window": "q = jnp.arange(24.).reshape(1, 3, 2, 4) / 10\nk = jnp.cos(jnp.arange(24.)).reshape(1, 3, 2, 4)\nv = jnp.sin(jnp.arange(24.)).reshape(1, 3, 2, 4)\nout = r(jax.nn.dot_product_attention(q, k, v, local_window_size=1))",
    "dpa_bad_heads": "q = jnp.ones((1, 3, 3, 4))\nk = jnp.ones((1, 4, 2, 4))\nout = jax.nn.dot_product_attention(q, k, k)",
    "dpa_bad_dtype": "q = jnp.ones((1, 3, 2, 4))\nk = jnp.ones((1, 4, 2, 4))\nout = jax.nn.dot_product_attention(q, k, k.astype(jnp.int32))",
    "dpa_grad": "q = jnp.arange(24.).reshape(1, 3, 2, 4) / 10\nk = jnp.cos(jnp.arange(32.)).reshape(1, 4, 2, 4)\nv = jnp.sin(jnp.arange(32.)).reshape(1, 4, 2, 4)\nout = r(jax.grad(lambda q: jax.nn.dot_product_attention(q, k, v).sum())(q))",
}.items():
    case(f"nn_{name}", NX + code)

KEY = "key = random.PRNGKey(0)\n"
for name, code in {
    "zeros": "out = repr(jax.nn.initializers.zeros(key, (2, 3)))",
    "ones": "out = repr(jax.nn.initializers.ones(key, (2,), jnp.int32))",
    "constant": "out = repr(jax.nn.initializers.constant(-0.5)(key, (2, 2)))",
    "uniform": "out = repr(jax.nn.initializers.uniform()(key, (2, 3)))",
    "uniform_scale": "out = repr(jax.nn.initializers.uniform(2.)(key, (3,)))",
    "normal": "out = repr(jax.nn.initializers.normal()(key, (2, 3)))",
    "normal_stddev": "out = repr(jax.nn.initializers.normal(1.)(key, (3,)))",
    "truncated_normal": "out = repr(jax.nn.initializers.truncated_normal(1.)(key, (2, 3)))",
    "glorot_uniform": "out = repr(jax.nn.initializers.glorot_uniform()(key, (3, 4)))",
    "glorot_normal": "out = repr(jax.nn.initializers.glorot_normal()(key, (3, 4)))",
    "xavier_uniform": "out = repr(jax.nn.initializers.xavier_uniform()(key, (2, 2)))",
    "he_uniform": "out = repr(jax.nn.initializers.he_uniform()(key, (3, 4)))",
    "he_normal": "out = repr(jax.nn.initializers.he_normal()(key, (3, 4)))",
    "kaiming_normal": "out = repr(jax.nn.initializers.kaiming_normal()(key, (2, 2)))",
    "lecun_uniform": "out = repr(jax.nn.initializers.lecun_uniform()(key, (3, 4)))",
    "lecun_normal": "out = repr(jax.nn.initializers.lecun_normal()(key, (3, 4)))",
    "lecun_normal_conv": "out = repr(jax.nn.initializers.lecun_normal()(key, (3, 3, 2, 2)))",
    "lecun_normal_axes": "out = repr(jax.nn.initializers.lecun_normal(in_axis=0, out_axis=(1, 2))(key, (2, 2, 2)))",
    "variance_scaling_fan_out": "out = repr(jax.nn.initializers.variance_scaling(2., 'fan_out', 'normal')(key, (3, 4)))",
    "variance_scaling_geo": "out = repr(jax.nn.initializers.variance_scaling(1., 'fan_geo_avg', 'uniform')(key, (3, 4)))",
    "variance_scaling_bad_mode": "out = jax.nn.initializers.variance_scaling(1., 'fan_x', 'uniform')(key, (3, 4))",
    "variance_scaling_bad_dist": "out = jax.nn.initializers.variance_scaling(1., 'fan_in', 'cauchy')(key, (3, 4))",
    "glorot_1d": "out = jax.nn.initializers.glorot_uniform()(key, (3,))",
    "orthogonal": "w = jax.nn.initializers.orthogonal()(key, (3, 3))\nout = r(w)",
    "orthogonal_rect": "w = jax.nn.initializers.orthogonal(scale=2.)(key, (2, 4))\nout = r(w)",
    "orthogonal_col_axis": "w = jax.nn.initializers.orthogonal(column_axis=0)(key, (3, 2, 2))\nout = r(w)",
    "orthogonal_1d": "out = jax.nn.initializers.orthogonal()(key, (3,))",
    "delta_orthogonal": "w = jax.nn.initializers.delta_orthogonal()(key, (3, 2, 2))\nout = r(w)",
    "delta_orthogonal_2d": "out = jax.nn.initializers.delta_orthogonal()(key, (3, 3))",
    "typed_key": "out = repr(jax.nn.initializers.he_normal()(random.key(3), (2, 2)))",
    "x64": X64.format("key = random.PRNGKey(0)\n    out = repr(jax.nn.initializers.glorot_normal()(key, (2, 2), jnp.float64))"),
}.items():
    case(f"nn_init_{name}", KEY + code)

# ================================================================ random
for name, code in {
    "cauchy": "random.cauchy(key, (4,))",
    "cauchy_f16": "random.cauchy(key, (2,), jnp.float16)",
    "pareto": "random.pareto(key, 3., (4,))",
    "pareto_array_b": "random.pareto(key, jnp.array([1., 2., 5.]))",
    "rademacher": "random.rademacher(key, (8,))",
    "rademacher_float": "random.rademacher(key, (4,), jnp.float32)",
    "maxwell": "random.maxwell(key, (4,))",
    "double_sided_maxwell": "random.double_sided_maxwell(key, 1., 2., (3,))",
    "double_sided_maxwell_params": "random.double_sided_maxwell(key, jnp.array([0., 1.]), 2.)",
    "weibull_min": "random.weibull_min(key, 2., 1.5, (4,))",
    "rayleigh": "random.rayleigh(key, 2., (4,))",
    "rayleigh_array": "random.rayleigh(key, jnp.array([1., 3.]))",
    "wald": "random.wald(key, 1.5, (4,))",
    "geometric": "random.geometric(key, 0.3, (6,))",
    "geometric_array": "random.geometric(key, jnp.array([0.1, 0.9]))",
    "triangular": "random.triangular(key, 0., 1., 3., (5,))",
    "lognormal": "random.lognormal(key, 0.5, (4,))",
    "multivariate_normal": "random.multivariate_normal(key, jnp.array([1., -1.]), jnp.array([[2., 0.3], [0.3, 1.]]))",
    "multivariate_normal_shape": "random.multivariate_normal(key, jnp.zeros(2), jnp.eye(2), (3,))",
    "multivariate_normal_eigh": "random.multivariate_normal(key, jnp.zeros(2), jnp.array([[2., 0.3], [0.3, 1.]]), method='eigh')",
    "orthogonal": "random.orthogonal(key, 3)",
    "orthogonal_rect": "random.orthogonal(key, 2, m=3)",
    "orthogonal_batch": "random.orthogonal(key, 2, (2,))",
    "gamma": "random.gamma(key, 2., (5,))",
    "gamma_small_a": "random.gamma(key, 0.3, (5,))",
    "gamma_array_a": "random.gamma(key, jnp.array([0.5, 1., 5., 50.]))",
    "gamma_typed_key": "random.gamma(random.key(7), 3., (3,))",
    "gamma_2d": "random.gamma(key, jnp.array([[1., 2.], [3., 4.]]))",
    "loggamma": "random.loggamma(key, 0.1, (4,))",
    "beta": "random.beta(key, 2., 3., (4,))",
    "beta_small": "random.beta(key, 0.2, 0.3, (3,))",
    "dirichlet": "random.dirichlet(key, jnp.array([1., 2., 3.]))",
    "dirichlet_shape": "random.dirichlet(key, jnp.array([0.5, 0.5]), (3,))",
    "chisquare": "random.chisquare(key, 3., (4,))",
    "f": "random.f(key, 3., 5., (4,))",
    "t": "random.t(key, 4., (4,))",
    "generalized_normal": "random.generalized_normal(key, 1.5, (4,))",
    "ball": "random.ball(key, 3, shape=(2,))",
    "ball_p1": "random.ball(key, 2, p=1.)",
    "poisson_small": "random.poisson(key, 3., (6,))",
    "poisson_large": "random.poisson(key, 50., (6,))",
    "poisson_array": "random.poisson(key, jnp.array([0., 0.5, 9., 11., 200.]))",
    "poisson_dtype": "random.poisson(key, 2., (3,), jnp.int16)",
    "binomial": "random.binomial(key, 10., 0.3, (5,))",
    "binomial_large": "random.binomial(key, 1000., 0.4, (4,))",
    "binomial_high_p": "random.binomial(key, jnp.array([5., 100.]), 0.9)",
    "binomial_invalid": "random.binomial(key, jnp.array([-1., 3., jnp.inf]), jnp.array([0.5, -0.1, 0.5]))",
    "multinomial": "random.multinomial(key, 10., jnp.array([0.2, 0.3, 0.5]))",
    "multinomial_batch": "random.multinomial(key, jnp.array([5., 20.]), jnp.array([0.5, 0.5]), shape=(2, 2))",
}.items():
    case(f"random_{name}", KEY + f"out = repr({code})")

for name, code in {
    "gamma_grad": "out = r(jax.grad(lambda a: random.gamma(key, a))(2.))",
    "gamma_grad_small": "out = r(jax.grad(lambda a: random.gamma(key, a, (3,)).sum())(0.4))",
    "loggamma_grad": "out = r(jax.grad(lambda a: random.loggamma(key, a))(0.7))",
    "beta_grad": "out = r(jax.grad(lambda a: random.beta(key, a, 2.))(1.5))",
    "gamma_vmap_keys": "out = repr(jax.vmap(lambda k: random.gamma(k, 2.))(random.split(key, 3)))",
    "gamma_vmap_a": "out = repr(jax.vmap(lambda a: random.gamma(key, a))(jnp.array([1., 2., 3.])))",
    "gamma_jit": "out = repr(jax.jit(lambda k: random.gamma(k, 1.5, (3,)))(key))",
    "gamma_jaxpr": "out = str(jax.make_jaxpr(lambda k, a: random.random_gamma_p.bind(k, a, log_space=False))(random.key(0), jnp.ones(2)))",
    "gamma_int_dtype": "out = random.gamma(key, 2., dtype=jnp.int32)",
    "gamma_bad_shape": "out = random.gamma(key, jnp.ones(3), (2,))",
    "cauchy_int_dtype": "out = random.cauchy(key, dtype=jnp.int32)",
    "geometric_float_dtype": "out = random.geometric(key, 0.5, dtype=jnp.float32)",
    "beta_bad_shape": "out = random.beta(key, jnp.ones(2), 1., (3,))",
    "dirichlet_scalar": "out = random.dirichlet(key, 1.)",
    "mvn_bad_method": "out = random.multivariate_normal(key, jnp.zeros(2), jnp.eye(2), method='lu')",
    "mvn_bad_cov": "out = random.multivariate_normal(key, jnp.zeros(2), jnp.eye(3))",
    "mvn_scalar_mean": "out = random.multivariate_normal(key, 0., jnp.eye(2))",
    "pareto_x64_param": X64.format("key = random.PRNGKey(0)\n    out = random.pareto(key, jnp.float64(2.), dtype=jnp.float32)"),
    "x64_gamma": X64.format("key = random.PRNGKey(0)\n    out = repr(random.gamma(key, 2., (3,), jnp.float64))"),
    "x64_cauchy": X64.format("key = random.PRNGKey(0)\n    out = repr(random.cauchy(key, (3,), jnp.float64))"),
    "t_vmap": "out = repr(jax.vmap(lambda k: random.t(k, 3.))(random.split(key, 2)))",
    "poisson_jit": "out = repr(jax.jit(lambda k: random.poisson(k, 4., (3,)))(key))",
    "orthogonal_is_orthogonal": "q = random.orthogonal(key, 4)\nout = r(q @ q.T)",
    "ball_norms": "out = r(jnp.linalg.norm(random.ball(key, 3, shape=(5,)), axis=-1) < 1)",
}.items():
    case(f"random_{name}", KEY + code)

# ================================================================ more special and stats
for name, code in {
    "erfcx": "out = r(jsp.special.erfcx(jnp.array([-2., -0.5, 0., 0.7, 3., 8., 30., 1e4])))",
    "erfcx_grad": "out = r(jax.grad(jsp.special.erfcx)(0.5))",
    "erfcx_x64": X64.format("out = r(jsp.special.erfcx(jnp.array([-1., 0.5, 20., 30.])))"),
    "dawsn": "out = r(jsp.special.dawsn(jnp.array([-7., -2., -0.5, 0., 0.7, 3.3, 5., 8., 100.])))",
    "dawsn_grad": "out = r(jax.vmap(jax.grad(jsp.special.dawsn))(jnp.array([0.5, 4., 7.])))",
    "dawsn_int": "out = r(jsp.special.dawsn(jnp.array([1, 2])))",
    "spence": "out = r(jsp.special.spence(jnp.array([0., 0.3, 0.5, 1., 1.7, 3., -1.])))",
    "spence_grad": "out = r(jax.grad(jsp.special.spence)(0.5))",
    "spence_int": "out = jsp.special.spence(jnp.array([1, 2]))",
    "bessel_jn": "out = r(jsp.special.bessel_jn(jnp.array([0.5, 2., 7.]), v=3, n_iter=20))",
    "bessel_jn_scalar": "out = r(jsp.special.bessel_jn(1.5, v=1, n_iter=15))",
    "stats_binom": "out = r(jsp.stats.binom.pmf(jnp.array([-1., 0., 2., 5., 11.]), 10., 0.3))",
    "stats_binom_log": "out = r(jsp.stats.binom.logpmf(jnp.array([0., 3.]), jnp.array([0., 5.]), 0.5))",
    "stats_nbinom": "out = r(jsp.stats.nbinom.pmf(jnp.array([-1., 0., 2., 5.]), 3., 0.4))",
    "stats_betabinom": "out = r(jsp.stats.betabinom.pmf(jnp.array([-1., 0., 2., 5., 6.]), 5., 2., 3.))",
    "stats_betabinom_bad": "out = r(jsp.stats.betabinom.logpmf(2., 5., -1., 3.))",
    "stats_gennorm": "out = r(jsp.stats.gennorm.pdf(jnp.array([-2., -0.5, 0., 1.5]), 1.5))",
    "stats_gennorm_cdf": "out = r(jsp.stats.gennorm.cdf(jnp.array([-2., -0.5, 0., 1.5]), 1.5))",
    "stats_wrapcauchy": "out = r(jsp.stats.wrapcauchy.pdf(jnp.array([-1., 0., 1., 3., 7.]), 0.5))",
    "stats_wrapcauchy_bad_c": "out = r(jsp.stats.wrapcauchy.logpdf(1., 1.5))",
    "stats_multinomial": "out = r(jsp.stats.multinomial.pmf(jnp.array([1, 2, 3]), 6, jnp.array([0.2, 0.3, 0.5])))",
    "stats_multinomial_wrong_n": "out = r(jsp.stats.multinomial.logpmf(jnp.array([1, 2, 3]), 5, jnp.array([0.2, 0.3, 0.5])))",
    "stats_multinomial_float": "out = jsp.stats.multinomial.logpmf(jnp.array([1., 2.]), 3., jnp.array([0.5, 0.5]))",
    "stats_vonmises": "out = r(jsp.stats.vonmises.pdf(jnp.array([-1., 0., 1., 3.]), 2.))",
    "stats_vonmises_bad_kappa": "out = r(jsp.stats.vonmises.logpdf(1., -1.))",
    "stats_vonmises_grad": "out = r(jax.grad(jsp.stats.vonmises.logpdf, 1)(0.5, 2.))",
    "stats_sem": "out = r(jsp.stats.sem(jnp.array([[1., 2., 4.], [3., 5., 9.]])))",
    "stats_sem_axis_none": "out = r(jsp.stats.sem(jnp.array([[1., 2., 4.], [3., 5., 9.]]), axis=None))",
    "stats_sem_keepdims": "out = r(jsp.stats.sem(jnp.array([[1., 2., 4.], [3., 5., 9.]]), axis=1, keepdims=True))",
    "expi": "out = r(jsp.special.expi(jnp.array([-3., -0.5, 0., 0.3, 1.5, 3., 10., 50., 100.])))",
    "expi_grad": "out = r(jax.grad(jsp.special.expi)(1.5))",
    "exp1": "out = r(jsp.special.exp1(jnp.array([0., 0.3, 1., 1.5, 3., 10., -1.])))",
    "exp1_grad": "out = r(jax.grad(jsp.special.exp1)(1.5))",
    "expn": "out = r(jsp.special.expn(jnp.array([0, 1, 2, 3, 5, -1]), jnp.array([0.5, 0.5, 2., 0., 1.5, 1.])))",
    "expn_broadcast": "out = r(jsp.special.expn(2, jnp.array([[0.5, 2.], [0., 8.]])))",
    "expn_grad": "out = r(jax.grad(jsp.special.expn, 1)(2, 1.5))",
    "expn_big_n": "out = r(jsp.special.expn(6000., 2.))",
    "expi_x64": X64.format("out = r(jsp.special.expi(jnp.array([-2., 0.5, 5., 40.])))"),
    "sici": "si, ci = jsp.special.sici(jnp.array([-5., -0.5, 0., 0.3, 3., 10., 2e9, jnp.inf]))\nout = (r(si), r(ci))",
    "sici_grad": "out = r(jax.grad(lambda x: jsp.special.sici(x)[0] + jsp.special.sici(x)[1])(1.5))",
    "sici_int": "out = r(jsp.special.sici(2)[0])",
    "owens_t": "out = r(jsp.special.owens_t(jnp.array([0., 0.5, 1., 2., 0.3]), jnp.array([0.5, 1., 2., -3., 0.])))",
    "owens_t_grad": "out = r(jax.grad(jsp.special.owens_t, (0, 1))(0.5, 0.7))",
    "owens_t_vmap": "out = r(jax.vmap(jsp.special.owens_t, (0, None))(jnp.array([0.1, 1.]), 0.4))",
    "linalg_circulant": "out = repr(jsp.linalg.circulant(jnp.array([1, 2, 3])))",
    "linalg_hankel": "out = repr(jsp.linalg.hankel(jnp.array([1, 2, 3]), jnp.array([3, 4, 5, 6])))",
    "linalg_hankel_c_only": "out = repr(jsp.linalg.hankel(jnp.array([1., 2., 3.])))",
    "linalg_hankel_scalar": "out = jsp.linalg.hankel(1.)",
    "linalg_companion": "out = r(jsp.linalg.companion(jnp.array([2., 2., 3., 4.])))",
    "linalg_companion_short": "out = jsp.linalg.companion(jnp.array([1.]))",
    "linalg_leslie": "out = r(jsp.linalg.leslie(jnp.array([0.1, 2., 1.]), jnp.array([0.2, 0.8])))",
    "linalg_leslie_bad": "out = jsp.linalg.leslie(jnp.array([0.1, 2., 1.]), jnp.array([0.2]))",
    "linalg_fiedler": "out = repr(jsp.linalg.fiedler(jnp.array([1, 4, 2])))",
    "linalg_helmert": "out = r(jsp.linalg.helmert(4))",
    "linalg_helmert_full": "out = r(jsp.linalg.helmert(3, full=True))",
    "linalg_hadamard": "out = repr(jsp.linalg.hadamard(4))",
    "linalg_hadamard_float": "out = repr(jsp.linalg.hadamard(2, jnp.float32))",
    "linalg_hadamard_bad": "out = jsp.linalg.hadamard(3)",
    "linalg_pascal": "out = r(jsp.linalg.pascal(4))",
    "linalg_pascal_lower": "out = r(jsp.linalg.pascal(3, kind='lower'))",
    "linalg_pascal_bad": "out = jsp.linalg.pascal(3, kind='middle')",
    "linalg_invhilbert": "out = r(jsp.linalg.invhilbert(3))",
    "stats_binom_grad_p": "out = r(jax.grad(jsp.stats.binom.logpmf, 2)(3., 10., 0.4))",
}.items():
    case(f"more_{name}", code)

CASES = {name: HELPER + code for name, code in _CASES.items()}
