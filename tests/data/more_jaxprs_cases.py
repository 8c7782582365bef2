"""Programs whose printed jaxprs are recorded in more_jaxprs_recorded.json (issue 17).

The areas tests/data/jaxpr_fidelity_cases.py leaves out: jax.scipy.special, jax.scipy.stats,
the rest of jax.nn (dot_product_attention, one_hot, standardize, glu...), jax.nn.initializers
and jax.random, each traced with ``make_jaxpr`` as it is and, where it makes sense, under
``jit``, ``vmap`` and ``grad``. Random programs take both kinds of key: a typed
``jax.random.key(0)`` (``key<fry>[]``) and a raw ``jax.random.PRNGKey(0)`` (``u32[2]``).
record_from_jax.py runs them under real JAX 0.10.2; tests/test_more_jaxprs.py replays them
on edujax and compares the text character for character.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/more_jaxprs_cases.py \\
        tests/data/more_jaxprs_recorded.json

The programs reach the submodules by attribute (``jax.scipy.special.logsumexp``): the replay
maps the name ``jax`` to edujax, so an ``import jax.scipy`` inside a program would not.
"""
CASES: dict[str, str] = {}

V = "jnp.array([0.5, -1.5, 2.0, 3.0])"
POS = "jnp.array([0.5, 1.5, 2.0, 3.0])"
UNIT = "jnp.array([0.1, 0.25, 0.5, 0.9])"
M = "jnp.array([[1.5, -2.0, 3.0], [-4.0, 0.5, -6.0]])"
VI = "jnp.array([2, 0, 4])"
SPECIAL = "jax.scipy.special"
STATS = "jax.scipy.stats"
KEYS = {"key": "jax.random.key(0)", "PRNGKey": "jax.random.PRNGKey(0)"}


def jaxpr(name: str, fn: str, *args: str) -> None:
    assert name not in CASES, name
    CASES[name] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


def transformed(name: str, fn: str, arg: str, grad: bool = True, vmap: bool = True) -> None:
    """``fn`` traced as it is, under jit and vmap and, if differentiable, under grad."""
    jaxpr(name, fn, arg)
    jaxpr(f"{name}[jit]", f"jax.jit({fn})", arg)
    if vmap:
        jaxpr(f"{name}[vmap]", f"jax.vmap({fn})", f"jnp.stack([{arg}, {arg}])")
    if grad:
        jaxpr(f"{name}[grad]", f"jax.grad(lambda x: jnp.sum(({fn})(x)))", arg)


# ================================================================ jax.scipy.special
# One argument, as students meet them: the plain call, then jit, vmap and grad.
for fn, arg in [("logsumexp", V), ("erf", V), ("erfc", V), ("erfinv", UNIT),
                ("gammaln", POS), ("digamma", POS), ("expit", V), ("logit", UNIT),
                ("entr", POS), ("softmax", V), ("log_softmax", V), ("i0e", V), ("i0", V),
                ("i1e", V), ("i1", V), ("ndtr", V), ("ndtri", UNIT), ("log_ndtr", V),
                ("gamma", POS), ("loggamma", POS), ("gammasgn", V),
                ("factorial", POS), ("spence", POS), ("exp1", POS), ("expit", UNIT)]:
    name = f"special[{fn}]" if f"special[{fn}]" not in CASES else f"special[{fn}[unit]]"
    transformed(name, f"{SPECIAL}.{fn}", arg,
                grad=fn not in ("gammasgn", "factorial", "spence", "exp1"))
# The scalar and integer inputs: weak types and the casts JAX's promote_args_inexact adds.
for fn in ("logsumexp", "erf", "gammaln", "expit", "logit", "xlogy", "entr", "ndtr", "i0e"):
    args = ("0.5", "0.25") if fn == "xlogy" else ("0.5",)
    jaxpr(f"special[{fn}[scalar]]", f"{SPECIAL}.{fn}", *args)
for fn in ("erf", "gammaln", "expit", "ndtr", "logsumexp"):
    jaxpr(f"special[{fn}[int]]", f"{SPECIAL}.{fn}", VI)
# Two arguments.
for fn, args in [("xlogy", (V, POS)), ("xlog1py", (V, POS)), ("betaln", (POS, POS)),
                 ("gammainc", (POS, POS)), ("gammaincc", (POS, POS)),
                 ("polygamma", ("1", POS)),
                 ("zeta", ("jnp.array([2., 3., 4., 5.])", POS)), ("kl_div", (POS, POS)),
                 ("rel_entr", (POS, POS)), ("betainc", (POS, POS, UNIT)),
                 ("poch", (POS, POS)), ("beta", (POS, POS))]:
    jaxpr(f"special[{fn}]", f"{SPECIAL}.{fn}", *args)
    jaxpr(f"special[{fn}][jit]", f"jax.jit({SPECIAL}.{fn})", *args)
jaxpr("special[multigammaln]", f"lambda a: {SPECIAL}.multigammaln(a, 2)", POS)
jaxpr("special[multigammaln][jit]", f"jax.jit(lambda a: {SPECIAL}.multigammaln(a, 2))", POS)
for fn, args in [("xlogy", (V, POS)), ("xlog1py", (V, POS)), ("betaln", (POS, POS)),
                 ("kl_div", (POS, POS)), ("rel_entr", (POS, POS))]:
    jaxpr(f"special[{fn}][grad]", f"jax.grad(lambda x, y: jnp.sum({SPECIAL}.{fn}(x, y)))", *args)
    jaxpr(f"special[{fn}][grad_y]",
          f"jax.grad(lambda x, y: jnp.sum({SPECIAL}.{fn}(x, y)), argnums=1)", *args)
    jaxpr(f"special[{fn}][vmap]", f"jax.vmap({SPECIAL}.{fn})",
          *(f"jnp.stack([{a}, {a}])" for a in args))
# logsumexp's options: an axis, keepdims, weights b, return_sign, where.
LSE = f"{SPECIAL}.logsumexp"
jaxpr("special[logsumexp[axis0]]", f"lambda x: {LSE}(x, axis=0)", M)
jaxpr("special[logsumexp[axis1]]", f"lambda x: {LSE}(x, axis=1)", M)
jaxpr("special[logsumexp[keepdims]]", f"lambda x: {LSE}(x, axis=1, keepdims=True)", M)
jaxpr("special[logsumexp[matrix]]", LSE, M)
jaxpr("special[logsumexp[b]]", f"lambda x, b: {LSE}(x, b=b)", V, POS)
jaxpr("special[logsumexp[b_scalar]]", f"lambda x: {LSE}(x, b=2.0)", V)
jaxpr("special[logsumexp[return_sign]]", f"lambda x, b: {LSE}(x, b=b, return_sign=True)", V, V)
jaxpr("special[logsumexp[where]]", f"lambda x: {LSE}(x, where=x > 0)", V)
jaxpr("special[logsumexp[b][grad]]", f"jax.grad(lambda x, b: {LSE}(x, b=b))", V, POS)
jaxpr("special[logsumexp[axis1][grad]]", f"jax.grad(lambda x: {LSE}(x, axis=1).sum())", M)
jaxpr("special[logsumexp[axis1][vmap]]", f"jax.vmap(lambda x: {LSE}(x, axis=1))",
      f"jnp.stack([{M}, {M}])")
jaxpr("special[logsumexp][value_and_grad]", f"jax.value_and_grad({LSE})", V)
jaxpr("special[softmax[axis0]]", f"lambda x: {SPECIAL}.softmax(x, axis=0)", M)
jaxpr("special[log_softmax[axis0]]", f"lambda x: {SPECIAL}.log_softmax(x, axis=0)", M)
jaxpr("special[softmax[matrix]][grad]",
      f"jax.grad(lambda x: ({SPECIAL}.softmax(x) ** 2).sum())", M)
jaxpr("special[log_softmax[matrix]][grad]",
      f"jax.grad(lambda x: {SPECIAL}.log_softmax(x)[:, 0].sum())", M)
# The special functions inside a typical loss.
jaxpr("special[cross_entropy]",
      f"lambda logits, y: -jnp.mean(jnp.sum({SPECIAL}.log_softmax(logits) * y, axis=-1))",
      M, "jnp.array([[0., 1., 0.], [1., 0., 0.]])")
jaxpr("special[cross_entropy][grad]",
      f"jax.grad(lambda logits, y: -jnp.mean(jnp.sum({SPECIAL}.log_softmax(logits) * y, "
      "axis=-1)))", M, "jnp.array([[0., 1., 0.], [1., 0., 0.]])")
jaxpr("special[bce][grad]",
      f"jax.grad(lambda z, y: -jnp.mean(y * jnp.log({SPECIAL}.expit(z)) + "
      f"(1 - y) * jnp.log1p(-{SPECIAL}.expit(z))))", V, "jnp.array([0., 1., 1., 0.])")

# ================================================================ jax.scipy.stats
# Each distribution's functions with their location/scale arguments, plain then jit, vmap
# and grad (with respect to x).
for dist, fns, extra in [
        ("norm", ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"), ""),
        ("norm", ("ppf", "isf"), "UNIT"),
        ("logistic", ("pdf", "logpdf", "cdf", "sf", "isf", "ppf"), ""),
        ("laplace", ("pdf", "logpdf", "cdf"), ""),
        ("cauchy", ("pdf", "logpdf", "cdf"), ""),
        ("expon", ("pdf", "logpdf"), "POS"),
        ("uniform", ("pdf", "logpdf", "cdf"), "UNIT"),
        ("t", ("pdf", "logpdf"), "DF"),
        ("gamma", ("pdf", "logpdf", "cdf"), "SHAPE"),
        ("beta", ("pdf", "logpdf"), "AB"),
        ("chi2", ("pdf", "logpdf"), "DF"),
        ("pareto", ("pdf", "logpdf"), "SHAPE"),
        ("gennorm", ("pdf", "logpdf"), "SHAPE"),
        ("vonmises", ("pdf", "logpdf"), "SHAPE"),
        ("gumbel_r", ("pdf", "logpdf", "cdf"), ""),
]:
    for fn in fns:
        full = f"{STATS}.{dist}.{fn}"
        if extra == "DF" or extra == "SHAPE":
            call, arg = f"lambda x: {full}(x, 3.0)", POS
        elif extra == "AB":
            call, arg = f"lambda x: {full}(x, 2.0, 3.0)", UNIT
        elif extra == "UNIT":
            call, arg = full, UNIT
        elif extra == "POS":
            call, arg = full, POS
        else:
            call, arg = full, V
        transformed(f"stats[{dist}.{fn}]", call, arg,
                    grad=fn not in ("ppf", "isf", "cdf", "sf") or dist in ("norm", "logistic"))
# Location and scale, Python and array ones.
jaxpr("stats[norm.pdf[loc_scale]]", f"lambda x: {STATS}.norm.pdf(x, 1.0, 2.0)", V)
jaxpr("stats[norm.logpdf[loc_scale]]", f"lambda x, m, s: {STATS}.norm.logpdf(x, m, s)",
      V, V, POS)
jaxpr("stats[norm.cdf[loc_scale]]", f"lambda x: {STATS}.norm.cdf(x, loc=1.0, scale=0.5)", V)
jaxpr("stats[norm.logpdf[loc_scale]][grad]",
      f"jax.grad(lambda m, s, x: {STATS}.norm.logpdf(x, m, s).sum(), argnums=(0, 1))",
      "0.5", "2.0", V)
jaxpr("stats[norm.logpdf[scalar]]", f"{STATS}.norm.logpdf", "0.5")
jaxpr("stats[norm.pdf[int]]", f"{STATS}.norm.pdf", VI)
jaxpr("stats[logistic.logpdf[loc_scale]]",
      f"lambda x: {STATS}.logistic.logpdf(x, 1.0, 2.0)", V)
jaxpr("stats[t.logpdf[loc_scale]]", f"lambda x: {STATS}.t.logpdf(x, 3.0, 1.0, 2.0)", V)
jaxpr("stats[gamma.logpdf[loc_scale]]", f"lambda x: {STATS}.gamma.logpdf(x, 3.0, 0.5, 2.0)",
      POS)
jaxpr("stats[beta.logpdf[loc_scale]]",
      f"lambda x: {STATS}.beta.logpdf(x, 2.0, 3.0, 0.0, 2.0)", UNIT)
# Discrete distributions.
K = "jnp.array([0., 1., 2., 5.])"
B = "jnp.array([0., 1., 1., 0.])"
for name, call, arg in [
        ("poisson.logpmf", f"lambda k: {STATS}.poisson.logpmf(k, 3.0)", K),
        ("poisson.pmf", f"lambda k: {STATS}.poisson.pmf(k, 3.0)", K),
        ("poisson.cdf", f"lambda k: {STATS}.poisson.cdf(k, 3.0)", K),
        ("bernoulli.logpmf", f"lambda k: {STATS}.bernoulli.logpmf(k, 0.3)", B),
        ("bernoulli.pmf", f"lambda k: {STATS}.bernoulli.pmf(k, 0.3)", B),
        ("bernoulli.cdf", f"lambda k: {STATS}.bernoulli.cdf(k, 0.3)", B),
        ("geom.logpmf", f"lambda k: {STATS}.geom.logpmf(k, 0.3)", K),
        ("binom.logpmf", f"lambda k: {STATS}.binom.logpmf(k, 5, 0.3)", K),
        ("nbinom.logpmf", f"lambda k: {STATS}.nbinom.logpmf(k, 5, 0.3)", K)]:
    transformed(f"stats[{name}]", call, arg, grad=False)
jaxpr("stats[poisson.logpmf[grad_mu]]",
      f"jax.grad(lambda mu: {STATS}.poisson.logpmf({K}, mu).sum())", "3.0")
jaxpr("stats[bernoulli.logpmf[grad_p]]",
      f"jax.grad(lambda p: {STATS}.bernoulli.logpmf({B}, p).sum())", "0.3")
jaxpr("stats[bernoulli.logpmf[int]]", f"lambda k: {STATS}.bernoulli.logpmf(k, 0.3)",
      "jnp.array([0, 1, 1])")
jaxpr("stats[poisson.logpmf[int]]", f"lambda k: {STATS}.poisson.logpmf(k, 3.0)", VI)
# Multivariate distributions.
MEAN = "jnp.array([0.5, -1.0])"
COV = "jnp.array([[2.0, 0.3], [0.3, 1.0]])"
XS = "jnp.array([[0.1, 0.2], [1.0, -1.0], [0.0, 0.5]])"
MVN = f"{STATS}.multivariate_normal"
jaxpr("stats[multivariate_normal.logpdf]", f"{MVN}.logpdf", XS, MEAN, COV)
jaxpr("stats[multivariate_normal.logpdf[vector]]", f"{MVN}.logpdf", MEAN, MEAN, COV)
jaxpr("stats[multivariate_normal.pdf]", f"{MVN}.pdf", XS, MEAN, COV)
jaxpr("stats[multivariate_normal.logpdf][jit]", f"jax.jit({MVN}.logpdf)", XS, MEAN, COV)
jaxpr("stats[multivariate_normal.logpdf][grad]",
      f"jax.grad(lambda x, m, c: {MVN}.logpdf(x, m, c).sum())", XS, MEAN, COV)
jaxpr("stats[multivariate_normal.logpdf][grad_mean]",
      f"jax.grad(lambda m, x, c: {MVN}.logpdf(x, m, c).sum())", MEAN, XS, COV)
jaxpr("stats[multivariate_normal.logpdf][vmap]",
      f"jax.vmap({MVN}.logpdf, in_axes=(0, None, None))", XS, MEAN, COV)
jaxpr("stats[dirichlet.logpdf]", f"{STATS}.dirichlet.logpdf",
      "jnp.array([0.2, 0.3, 0.5])", "jnp.array([1.0, 2.0, 3.0])")
jaxpr("stats[multinomial.logpmf]", f"{STATS}.multinomial.logpmf",
      "jnp.array([1, 2, 3])", "6", "jnp.array([0.2, 0.3, 0.5])")
# A Gaussian negative log likelihood, the program a student writes first.
jaxpr("stats[gaussian_nll][grad]",
      f"jax.grad(lambda mu, x: -{STATS}.norm.logpdf(x, mu, 1.0).sum())", "0.5", V)
jaxpr("stats[gaussian_nll][value_and_grad]",
      f"jax.value_and_grad(lambda p, x: -{STATS}.norm.logpdf(x, p[0], jnp.exp(p[1])).sum())",
      "jnp.array([0.5, 0.1])", V)

# ================================================================ jax.nn
# (the activations one by one are in jaxpr_fidelity_cases.py.)
Q = "jnp.ones((2, 3, 2, 4))"  # batch, sequence, heads, head dim
KV = "jnp.ones((2, 5, 2, 4))"
DPA = "jax.nn.dot_product_attention"
jaxpr("nn[dot_product_attention]", DPA, Q, KV, KV)
jaxpr("nn[dot_product_attention[3d]]", DPA, "jnp.ones((3, 2, 4))", "jnp.ones((5, 2, 4))",
      "jnp.ones((5, 2, 4))")
jaxpr("nn[dot_product_attention[causal]]", f"lambda q, k, v: {DPA}(q, k, v, is_causal=True)",
      Q, Q, Q)
jaxpr("nn[dot_product_attention[scale]]", f"lambda q, k, v: {DPA}(q, k, v, scale=0.5)",
      Q, KV, KV)
jaxpr("nn[dot_product_attention[bias]]", f"lambda q, k, v, b: {DPA}(q, k, v, bias=b)",
      Q, KV, KV, "jnp.zeros((2, 2, 3, 5))")
jaxpr("nn[dot_product_attention[mask]]", f"lambda q, k, v, m: {DPA}(q, k, v, mask=m)",
      Q, KV, KV, "jnp.ones((2, 2, 3, 5), bool)")
jaxpr("nn[dot_product_attention[gqa]]", DPA, "jnp.ones((2, 3, 4, 4))", KV, KV)
jaxpr("nn[dot_product_attention][jit]", f"jax.jit({DPA})", Q, KV, KV)
jaxpr("nn[dot_product_attention][grad]",
      f"jax.grad(lambda q, k, v: {DPA}(q, k, v).sum(), argnums=(0, 1, 2))", Q, KV, KV)
jaxpr("nn[dot_product_attention][vmap]", f"jax.vmap({DPA})", Q, KV, KV)
# one_hot: classes, dtypes, axes, under jit and vmap.
jaxpr("nn[one_hot[2d]]", "lambda x: jax.nn.one_hot(x, 3)", "jnp.array([[0, 1], [2, 1]])")
jaxpr("nn[one_hot[scalar]]", "lambda x: jax.nn.one_hot(x, 4)", "2")
jaxpr("nn[one_hot[float_labels]]", "lambda x: jax.nn.one_hot(x, 3)", "jnp.array([0., 2.])")
jaxpr("nn[one_hot[bool]]", "lambda x: jax.nn.one_hot(x, 3, dtype=bool)", VI)
jaxpr("nn[one_hot][jit]", "jax.jit(lambda x: jax.nn.one_hot(x, 5))", VI)
jaxpr("nn[one_hot][vmap]", "jax.vmap(lambda x: jax.nn.one_hot(x, 5))",
      "jnp.array([[0, 1], [2, 1]])")
jaxpr("nn[one_hot[cross_entropy]][grad]",
      "jax.grad(lambda z, y: -(jax.nn.log_softmax(z) * jax.nn.one_hot(y, 3)).sum())",
      M, "jnp.array([1, 0])")
# standardize, glu, celu, the hard_* functions with their options.
jaxpr("nn[standardize[axis0]]", "lambda x: jax.nn.standardize(x, axis=0)", M)
jaxpr("nn[standardize[eps]]", "lambda x: jax.nn.standardize(x, epsilon=1e-3)", M)
jaxpr("nn[standardize[mean_var]]",
      "lambda x: jax.nn.standardize(x, mean=jnp.zeros((2, 1)), variance=jnp.ones((2, 1)))", M)
jaxpr("nn[standardize][grad]", "jax.grad(lambda x: (jax.nn.standardize(x) ** 3).sum())", M)
jaxpr("nn[standardize][vmap]", "jax.vmap(jax.nn.standardize)", M)
jaxpr("nn[glu[axis0]]", "lambda x: jax.nn.glu(x, axis=0)", "jnp.ones((4, 3))")
jaxpr("nn[glu[wide]]", "jax.nn.glu", "jnp.ones((2, 6))")
jaxpr("nn[celu[alpha]]", "lambda x: jax.nn.celu(x, alpha=0.5)", V)
jaxpr("nn[celu[matrix]][grad]", "jax.grad(lambda x: jax.nn.celu(x).sum())", M)
for fn in ("hard_tanh", "hard_sigmoid", "hard_silu", "relu6", "celu", "glu", "elu", "selu",
           "gelu", "silu", "softplus", "sigmoid", "leaky_relu"):
    jaxpr(f"nn[{fn}[matrix]]", f"jax.nn.{fn}", M if fn != "glu" else "jnp.ones((3, 4))")
jaxpr("nn[gelu[approx_false]][grad]",
      "jax.grad(lambda x: jax.nn.gelu(x, approximate=False).sum())", M)
# A two-layer MLP with a softmax cross-entropy, the program of every first tutorial.
MLP = ("def mlp(params, x):\n"
       "    (w1, b1), (w2, b2) = params\n"
       "    h = jax.nn.relu(x @ w1 + b1)\n"
       "    return h @ w2 + b2\n"
       "def loss(params, x, y):\n"
       "    logits = mlp(params, x)\n"
       "    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 3), -1))\n"
       "params = ((jnp.ones((4, 5)), jnp.zeros(5)), (jnp.ones((5, 3)), jnp.zeros(3)))\n"
       "x, y = jnp.ones((2, 4)), jnp.array([0, 2])\n")
CASES["nn[mlp_loss]"] = MLP + "out = str(make_jaxpr(loss)(params, x, y))"
CASES["nn[mlp_loss][grad]"] = MLP + "out = str(make_jaxpr(jax.grad(loss))(params, x, y))"
CASES["nn[mlp_loss][jit_grad]"] = (MLP
                                   + "out = str(make_jaxpr(jax.jit(jax.grad(loss)))(params, x, y))")

# ================================================================ jax.nn.initializers
INIT = "jax.nn.initializers"
for init in ("glorot_normal()", "glorot_uniform()", "he_normal()", "he_uniform()",
             "lecun_normal()", "lecun_uniform()", "xavier_normal()", "kaiming_uniform()",
             "normal()", "normal(0.1)", "uniform()", "truncated_normal()", "orthogonal()",
             "zeros", "ones", "constant(0.5)", "variance_scaling(2.0, 'fan_in', 'normal')",
             "variance_scaling(1.0, 'fan_avg', 'uniform')",
             "variance_scaling(1.0, 'fan_out', 'truncated_normal')", "delta_orthogonal()"):
    short = init.replace("()", "").replace("'", "").replace(" ", "")
    shape = "(3, 3, 4, 4)" if init.startswith("delta") else "(3, 4)"
    for kind, key in KEYS.items():
        jaxpr(f"init[{short}][{kind}]", f"lambda k: {INIT}.{init}(k, {shape})", key)
    jaxpr(f"init[{short}][jit]", f"jax.jit(lambda k: {INIT}.{init}(k, {shape}))",
          KEYS["key"])
jaxpr("init[glorot_normal[f16]]", f"lambda k: {INIT}.glorot_normal()(k, (3, 4), jnp.float16)",
      KEYS["key"])
jaxpr("init[he_normal[conv]]", f"lambda k: {INIT}.he_normal()(k, (3, 3, 2, 8))", KEYS["key"])
jaxpr("init[he_uniform[conv]]", f"lambda k: {INIT}.he_uniform()(k, (3, 3, 2, 8))",
      KEYS["PRNGKey"])
jaxpr("init[lecun_normal[vector]]", f"lambda k: {INIT}.lecun_normal()(k, (5,))", KEYS["key"])
jaxpr("init[orthogonal[wide]]", f"lambda k: {INIT}.orthogonal()(k, (3, 5))", KEYS["key"])
jaxpr("init[glorot_normal][vmap]",
      f"jax.vmap(lambda k: {INIT}.glorot_normal()(k, (3, 4)))", "jax.random.split(jax.random.key(0), 2)")
jaxpr("init[mlp_params]",
      "lambda k: [jax.nn.initializers.glorot_normal()(kk, s) for kk, s in "
      "zip(jax.random.split(k), [(4, 5), (5, 3)])]", KEYS["key"])

# ================================================================ jax.random
R = "jax.random"
jaxpr("random[key]", f"{R}.key", "0")
jaxpr("random[PRNGKey]", f"{R}.PRNGKey", "0")
jaxpr("random[key][jit]", f"jax.jit({R}.key)", "0")
jaxpr("random[PRNGKey][jit]", f"jax.jit({R}.PRNGKey)", "0")
jaxpr("random[key[vmap]]", f"jax.vmap({R}.key)", "jnp.arange(3)")
jaxpr("random[PRNGKey[vmap]]", f"jax.vmap({R}.PRNGKey)", "jnp.arange(3)")
jaxpr("random[key[impl_rbg]]", f"lambda s: {R}.key(s, impl='rbg')", "0")
jaxpr("random[key_data]", f"{R}.key_data", KEYS["key"])
jaxpr("random[wrap_key_data]", f"{R}.wrap_key_data", KEYS["PRNGKey"])
jaxpr("random[key_data][vmap]", f"jax.vmap({R}.key_data)", f"{R}.split({KEYS['key']}, 3)")
jaxpr("random[clone]", f"{R}.clone", KEYS["key"])
# Sampling functions, with each kind of key, plain and under jit; then vmap over keys.
SAMPLERS = {
    "split": f"lambda k: {R}.split(k)",
    "split[3]": f"lambda k: {R}.split(k, 3)",
    "split[shape]": f"lambda k: {R}.split(k, (2, 3))",
    "fold_in": f"lambda k: {R}.fold_in(k, 7)",
    "bits": f"lambda k: {R}.bits(k, (3,))",
    "bits[u8]": f"lambda k: {R}.bits(k, (3,), jnp.uint8)",
    "uniform": f"lambda k: {R}.uniform(k, (3,))",
    "uniform[scalar]": f"lambda k: {R}.uniform(k)",
    "uniform[minmax]": f"lambda k: {R}.uniform(k, (2, 3), minval=-1.0, maxval=2.0)",
    "uniform[f16]": f"lambda k: {R}.uniform(k, (3,), jnp.float16)",
    "normal": f"lambda k: {R}.normal(k, (3,))",
    "normal[scalar]": f"lambda k: {R}.normal(k)",
    "normal[matrix]": f"lambda k: {R}.normal(k, (2, 3))",
    "normal[f16]": f"lambda k: {R}.normal(k, (3,), jnp.float16)",
    "normal[complex]": f"lambda k: {R}.normal(k, (2,), jnp.complex64)",
    "bernoulli": f"lambda k: {R}.bernoulli(k, 0.3, (4,))",
    "bernoulli[default]": f"lambda k: {R}.bernoulli(k)",
    "randint": f"lambda k: {R}.randint(k, (4,), 0, 10)",
    "randint[u8]": f"lambda k: {R}.randint(k, (4,), 0, 10, jnp.uint8)",
    "categorical": f"lambda k: {R}.categorical(k, jnp.array([0.1, 0.5, -1.0]))",
    "categorical[shape]": f"lambda k: {R}.categorical(k, jnp.zeros((2, 3)), shape=(4, 2))",
    "categorical[axis0]": f"lambda k: {R}.categorical(k, jnp.zeros((2, 3)), axis=0)",
    "choice": f"lambda k: {R}.choice(k, 5, (3,))",
    "choice[no_replace]": f"lambda k: {R}.choice(k, 5, (3,), replace=False)",
    "choice[p]": f"lambda k: {R}.choice(k, jnp.arange(4.0), (2,), p=jnp.array([0.1, 0.2, 0.3, 0.4]))",
    "choice[array]": f"lambda k: {R}.choice(k, jnp.arange(6.0), (2,))",
    "permutation": f"lambda k: {R}.permutation(k, 5)",
    "permutation[array]": f"lambda k: {R}.permutation(k, jnp.arange(5.0))",
    "permutation[independent]": f"lambda k: {R}.permutation(k, jnp.ones((2, 3)), axis=1, independent=True)",
    "shuffle_rows": f"lambda k: {R}.permutation(k, jnp.ones((4, 2)))",
    "gamma": f"lambda k: {R}.gamma(k, 2.0, (3,))",
    "gamma[array]": f"lambda k: {R}.gamma(k, jnp.array([0.5, 1.0, 3.0]))",
    "beta": f"lambda k: {R}.beta(k, 2.0, 3.0, (3,))",
    "dirichlet": f"lambda k: {R}.dirichlet(k, jnp.array([1.0, 2.0, 3.0]))",
    "exponential": f"lambda k: {R}.exponential(k, (3,))",
    "laplace": f"lambda k: {R}.laplace(k, (3,))",
    "logistic": f"lambda k: {R}.logistic(k, (3,))",
    "cauchy": f"lambda k: {R}.cauchy(k, (3,))",
    "gumbel": f"lambda k: {R}.gumbel(k, (3,))",
    "truncated_normal": f"lambda k: {R}.truncated_normal(k, -1.0, 2.0, (3,))",
    "rademacher": f"lambda k: {R}.rademacher(k, (3,))",
    "poisson": f"lambda k: {R}.poisson(k, 3.0, (3,))",
    "multivariate_normal": f"lambda k: {R}.multivariate_normal(k, jnp.zeros(2), jnp.eye(2))",
    "multivariate_normal[svd]": f"lambda k: {R}.multivariate_normal(k, jnp.zeros(2), jnp.eye(2), method='svd')",
    "orthogonal": f"lambda k: {R}.orthogonal(k, 3)",
    "ball": f"lambda k: {R}.ball(k, 3)",
    "t": f"lambda k: {R}.t(k, 3.0, (3,))",
    "chisquare": f"lambda k: {R}.chisquare(k, 3.0, (3,))",
    "pareto": f"lambda k: {R}.pareto(k, 3.0, (3,))",
    "weibull_min": f"lambda k: {R}.weibull_min(k, 1.0, 2.0, (3,))",
    "maxwell": f"lambda k: {R}.maxwell(k, (3,))",
    "double_sided_maxwell": f"lambda k: {R}.double_sided_maxwell(k, 0.0, 1.0, (3,))",
    "lognormal": f"lambda k: {R}.lognormal(k, 0.5, (3,))",
    "geometric": f"lambda k: {R}.geometric(k, 0.3, (3,))",
    "binomial": f"lambda k: {R}.binomial(k, 5.0, 0.3, (3,))",
    "triangular": f"lambda k: {R}.triangular(k, 0.0, 0.5, 1.0, (3,))",
    "loggamma": f"lambda k: {R}.loggamma(k, 2.0, (3,))",
    "generalized_normal": f"lambda k: {R}.generalized_normal(k, 2.0, (3,))",
    "rayleigh": f"lambda k: {R}.rayleigh(k, 1.0, (3,))",
    "wald": f"lambda k: {R}.wald(k, 1.0, (3,))",
}
for name, fn in SAMPLERS.items():
    for kind, key in KEYS.items():
        jaxpr(f"random[{name}][{kind}]", fn, key)
for name in ("split", "fold_in", "uniform", "normal", "normal[matrix]", "bernoulli", "randint",
             "categorical", "choice", "permutation", "gamma", "truncated_normal", "exponential"):
    fn = SAMPLERS[name]
    jaxpr(f"random[{name}][jit]", f"jax.jit({fn})", KEYS["key"])
    jaxpr(f"random[{name}][jit][PRNGKey]", f"jax.jit({fn})", KEYS["PRNGKey"])
    jaxpr(f"random[{name}][vmap]", f"jax.vmap({fn})", f"{R}.split({KEYS['key']}, 2)")
    jaxpr(f"random[{name}][vmap][PRNGKey]", f"jax.vmap({fn})", f"{R}.split({KEYS['PRNGKey']}, 2)")
# Traced parameters and gradients through samples (the reparameterization trick).
jaxpr("random[normal[reparam]][grad]",
      f"jax.grad(lambda mu, k: (mu + {R}.normal(k, (3,))).sum())", "0.5", KEYS["key"])
jaxpr("random[uniform[traced_bounds]]",
      f"lambda k, lo, hi: {R}.uniform(k, (3,), minval=lo, maxval=hi)", KEYS["key"], "0.0", "2.0")
jaxpr("random[bernoulli[traced_p]]", f"lambda k, p: {R}.bernoulli(k, p, (3,))",
      KEYS["key"], "0.3")
jaxpr("random[gamma[traced_a]][grad]", f"jax.grad(lambda a, k: {R}.gamma(k, a))",
      "2.0", KEYS["key"])
jaxpr("random[categorical[traced_logits]]", f"lambda k, l: {R}.categorical(k, l)",
      KEYS["key"], "jnp.array([0.1, 0.5, -1.0])")
jaxpr("random[fold_in[traced]]", f"lambda k, i: {R}.fold_in(k, i)", KEYS["key"], "3")
jaxpr("random[fold_in[traced]][vmap]", f"jax.vmap(lambda i, k: {R}.fold_in(k, i), (0, None))",
      "jnp.arange(3)", KEYS["key"])
jaxpr("random[dropout]",
      f"lambda k, x: jnp.where({R}.bernoulli(k, 0.9, x.shape), x / 0.9, 0.0)", KEYS["key"], M)
jaxpr("random[split_then_normal]",
      f"lambda k: [{R}.normal(kk, (2,)) for kk in {R}.split(k)]", KEYS["key"])
jaxpr("random[split_unpack]", f"lambda k: {R}.split(k)[0]", KEYS["key"])
jaxpr("random[split_unpack][PRNGKey]", f"lambda k: {R}.split(k)[1]", KEYS["PRNGKey"])
jaxpr("random[scan_keys]",
      f"lambda k: jax.lax.scan(lambda k, _: tuple({R}.split(k)), k, None, length=3)",
      KEYS["key"])
jaxpr("random[scan_keys][PRNGKey]",
      f"lambda k: jax.lax.scan(lambda k, _: tuple({R}.split(k)), k, None, length=3)",
      KEYS["PRNGKey"])

# ================================================================ more transformations
# Higher-order and forward-mode derivatives of the functions students differentiate most.
for name, fn, arg in [
        ("logsumexp", f"{SPECIAL}.logsumexp", V), ("softmax", "jax.nn.softmax", V),
        ("log_softmax", "jax.nn.log_softmax", V), ("erf", f"{SPECIAL}.erf", V),
        ("expit", f"{SPECIAL}.expit", V), ("gammaln", f"{SPECIAL}.gammaln", POS),
        ("xlogy", f"lambda x: {SPECIAL}.xlogy(x, x + 1.0)", POS),
        ("norm.logpdf", f"{STATS}.norm.logpdf", V), ("norm.cdf", f"{STATS}.norm.cdf", V),
        ("logistic.logpdf", f"{STATS}.logistic.logpdf", V)]:
    jaxpr(f"more[{name}][jvp]", f"lambda x, t: jax.jvp({fn}, (x,), (t,))", arg, "jnp.ones(4)")
    jaxpr(f"more[{name}][jacfwd]", f"jax.jacfwd({fn})", arg)
    jaxpr(f"more[{name}][jacrev]", f"jax.jacrev({fn})", arg)
    jaxpr(f"more[{name}][hessian]", f"jax.hessian(lambda x: jnp.sum(({fn})(x)))", arg)
    jaxpr(f"more[{name}][vmap_grad]", f"jax.vmap(jax.grad(lambda x: jnp.sum(({fn})(x))))",
          f"jnp.stack([{arg}, {arg}])")
    jaxpr(f"more[{name}][jit_grad]", f"jax.jit(jax.grad(lambda x: jnp.sum(({fn})(x))))", arg)

# Random numbers inside loops, vmapped models and training steps.
KEY = KEYS["key"]
CASES["more[random_in_fori]"] = (
    "def f(k):\n"
    "    def body(i, carry):\n"
    "        k, acc = carry\n"
    "        k, sub = jax.random.split(k)\n"
    "        return k, acc + jax.random.normal(sub, (3,))\n"
    "    return jax.lax.fori_loop(0, 4, body, (k, jnp.zeros(3)))\n"
    f"out = str(make_jaxpr(f)({KEY}))")
CASES["more[random_in_scan]"] = (
    "def f(k, xs):\n"
    "    def step(k, x):\n"
    "        k, sub = jax.random.split(k)\n"
    "        return k, x + jax.random.uniform(sub, x.shape)\n"
    "    return jax.lax.scan(step, k, xs)\n"
    f"out = str(make_jaxpr(f)({KEY}, jnp.ones((5, 2))))")
CASES["more[random_in_scan][PRNGKey]"] = CASES["more[random_in_scan]"].replace(
    KEY, KEYS["PRNGKey"])
CASES["more[dropout_train_step]"] = (
    "def loss(w, x, k):\n"
    "    h = jnp.tanh(x @ w)\n"
    "    keep = jax.random.bernoulli(k, 0.8, h.shape)\n"
    "    h = jnp.where(keep, h / 0.8, 0.0)\n"
    "    return jnp.mean(h ** 2)\n"
    f"out = str(make_jaxpr(jax.value_and_grad(loss))(jnp.ones((3, 2)), jnp.ones((4, 3)), {KEY}))")
CASES["more[vae_reparam]"] = (
    "def sample(mu, logvar, k):\n"
    "    eps = jax.random.normal(k, mu.shape)\n"
    "    return mu + jnp.exp(0.5 * logvar) * eps\n"
    "def kl(mu, logvar):\n"
    "    return -0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar))\n"
    "def loss(mu, logvar, k):\n"
    "    z = sample(mu, logvar, k)\n"
    "    return jnp.sum(z ** 2) + kl(mu, logvar)\n"
    f"out = str(make_jaxpr(jax.grad(loss, argnums=(0, 1)))(jnp.zeros(3), jnp.zeros(3), {KEY}))")
CASES["more[init_mlp_vmap]"] = (
    "def init(k):\n"
    "    k1, k2 = jax.random.split(k)\n"
    "    return (jax.nn.initializers.he_normal()(k1, (4, 8)),\n"
    "            jax.nn.initializers.zeros(k2, (8,)))\n"
    f"out = str(make_jaxpr(jax.vmap(init))(jax.random.split({KEY}, 3)))")
CASES["more[ensemble_predict]"] = (
    "def predict(w, x):\n"
    "    return jax.nn.softmax(x @ w)\n"
    "ws = jax.random.normal(jax.random.key(1), (5, 3, 2))\n"
    "out = str(make_jaxpr(jax.vmap(predict, in_axes=(0, None)))(ws, jnp.ones((4, 3))))")
CASES["more[gumbel_softmax]"] = (
    "def f(logits, k):\n"
    "    g = jax.random.gumbel(k, logits.shape)\n"
    "    return jax.nn.softmax((logits + g) / 0.5)\n"
    f"out = str(make_jaxpr(jax.grad(lambda l, k: f(l, k)[0]))(jnp.zeros(4), {KEY}))")
CASES["more[categorical_policy_grad]"] = (
    "def logp(logits, a):\n"
    "    return jax.nn.log_softmax(logits)[a]\n"
    f"out = str(make_jaxpr(jax.grad(logp))(jnp.zeros(4), jax.random.categorical({KEY}, jnp.zeros(4))))")
CASES["more[gaussian_mixture_loglik]"] = (
    "def loglik(x, means, logw):\n"
    "    comp = jax.scipy.stats.norm.logpdf(x[:, None], means[None, :], 1.0)\n"
    "    return jnp.sum(jax.scipy.special.logsumexp(comp + jax.nn.log_softmax(logw), axis=1))\n"
    "out = str(make_jaxpr(jax.grad(loglik, argnums=(1, 2)))(jnp.ones(5), jnp.zeros(3), jnp.zeros(3)))")
CASES["more[bayes_logistic]"] = (
    "def logpost(w, X, y):\n"
    "    logits = X @ w\n"
    "    ll = jnp.sum(jax.scipy.stats.bernoulli.logpmf(y, jax.nn.sigmoid(logits)))\n"
    "    return ll + jnp.sum(jax.scipy.stats.norm.logpdf(w))\n"
    "out = str(make_jaxpr(jax.grad(logpost))(jnp.zeros(3), jnp.ones((4, 3)), jnp.array([0., 1., 1., 0.])))")
CASES["more[poisson_regression]"] = (
    "def nll(w, X, y):\n"
    "    return -jnp.sum(jax.scipy.stats.poisson.logpmf(y, jnp.exp(X @ w)))\n"
    "out = str(make_jaxpr(jax.grad(nll))(jnp.zeros(3), jnp.ones((4, 3)), jnp.array([0., 1., 2., 0.])))")
CASES["more[mvn_sample_logpdf]"] = (
    "def f(k, m, c):\n"
    "    x = jax.random.multivariate_normal(k, m, c, (4,))\n"
    "    return jax.scipy.stats.multivariate_normal.logpdf(x, m, c)\n"
    f"out = str(make_jaxpr(f)({KEY}, jnp.zeros(2), jnp.eye(2)))")
CASES["more[attention_block]"] = (
    "def block(x, wq, wk, wv):\n"
    "    q, k, v = (jnp.einsum('btd,dnh->btnh', x, w) for w in (wq, wk, wv))\n"
    "    return jax.nn.dot_product_attention(q, k, v, is_causal=True).sum()\n"
    "w = jnp.ones((4, 2, 3))\n"
    "out = str(make_jaxpr(jax.grad(block, argnums=(1, 2, 3)))(jnp.ones((2, 5, 4)), w, w, w))")
CASES["more[layernorm_mlp]"] = (
    "def f(x, w):\n"
    "    return jax.nn.gelu(jax.nn.standardize(x, axis=-1) @ w).mean()\n"
    "out = str(make_jaxpr(jax.value_and_grad(f, argnums=1))(jnp.ones((2, 4)), jnp.ones((4, 3))))")
CASES["more[one_hot_argmax]"] = (
    "out = str(make_jaxpr(lambda x: jax.nn.one_hot(jnp.argmax(x, -1), x.shape[-1]))(jnp.ones((2, 4))))")
CASES["more[permutation_batch]"] = (
    "def shuffle(k, x):\n"
    "    return x[jax.random.permutation(k, x.shape[0])]\n"
    f"out = str(make_jaxpr(shuffle)({KEY}, jnp.ones((6, 2))))")
CASES["more[random_traced_shape_param]"] = (
    f"out = str(make_jaxpr(lambda k, s: jax.random.normal(k, (3,)) * s)({KEY}, 2.0))")
CASES["more[truncated_normal_init_jit]"] = (
    f"out = str(make_jaxpr(jax.jit(lambda k: jax.nn.initializers.truncated_normal(0.02)(k, (3, 4))))({KEY}))")
CASES["more[key_data_roundtrip]"] = (
    f"out = str(make_jaxpr(lambda k: jax.random.wrap_key_data(jax.random.key_data(k)))({KEY}))")
CASES["more[split_fold_in_vmap]"] = (
    f"out = str(make_jaxpr(jax.vmap(lambda i, k: jax.random.normal(jax.random.fold_in(k, i)), in_axes=(0, None)))(jnp.arange(4), {KEY}))")

# ================================================================ more distributions
for dist, fns, arg, extra in [
        ("expon", ("cdf", "sf", "logcdf", "logsf", "ppf"), POS, ""),
        ("cauchy", ("sf", "logcdf", "logsf", "ppf", "isf"), V, ""),
        ("gamma", ("sf", "logcdf", "logsf"), POS, ", 3.0"),
        ("beta", ("cdf", "sf", "logcdf"), UNIT, ", 2.0, 3.0"),
        ("chi2", ("cdf", "sf", "logcdf"), POS, ", 3.0"),
        ("gumbel_l", ("pdf", "logpdf", "cdf", "sf"), V, ""),
        ("gumbel_r", ("sf", "ppf"), UNIT, ""),
        ("uniform", ("ppf",), UNIT, ""),
        ("norm", ("logcdf", "logsf"), "jnp.array([-8.0, -1.0, 0.5, 9.0])", ""),
        ("poisson", ("pmf", "cdf"), "jnp.array([0., 1., 3.])", ", 2.5"),
        ("geom", ("pmf",), "jnp.array([1., 2., 3.])", ", 0.4"),
        ("binom", ("pmf",), "jnp.array([0., 1., 3.])", ", 5, 0.4"),
        ("betabinom", ("logpmf", "pmf"), "jnp.array([0., 1., 3.])", ", 5, 2.0, 3.0"),
        ("pareto", ("cdf", "sf"), "jnp.array([1.5, 2.0, 4.0])", ", 3.0")]:
    for fn in fns:
        call = f"lambda x: {STATS}.{dist}.{fn}(x{extra})"
        jaxpr(f"more_stats[{dist}.{fn}]", call, arg)
        jaxpr(f"more_stats[{dist}.{fn}][vmap]", f"jax.vmap({call})", f"jnp.stack([{arg}, {arg}])")
