"""Programs whose printed jaxprs are recorded in jaxpr_fidelity_recorded.json.

Each case sets ``out`` (mostly ``str(make_jaxpr(...)(...))``); record_from_jax.py runs them
under real JAX 0.10 and tests/test_jaxpr_fidelity.py replays them on edujax, comparing the
text character for character. They cover what JAX's inner ``jit``s change in a jaxpr: the
jnp functions JAX wraps in ``jit`` (``jit[name=_where ...]``), the ``let`` hoisting of
repeated or long sub-jaxprs, and those functions under grad, vmap and jit; then the JAX
documentation's first jaxpr (``selu``), the tutorials' programs, weak types in grad jaxprs of
Python floats, Literal reprs and make_jaxpr's trace cache.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/jaxpr_fidelity_cases.py \\
        tests/data/jaxpr_fidelity_recorded.json
"""
CASES: dict[str, str] = {}

X = "jnp.array([[1.5, -2.0, 3.0], [-4.0, 0.5, -6.0]])"
V = "jnp.array([0.5, -1.5, 2.0, 3.0])"
XI = "jnp.array([[3, -7, 0], [5, 2, -1]])"
VI = "jnp.array([2, -3, 4])"


def jaxpr(name: str, fn: str, *args: str) -> None:
    CASES[name] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


def transformed(name: str, fn: str, arg: str, grad: bool = True) -> None:
    """``fn`` traced as it is, under jit and vmap and, if differentiable, under grad."""
    jaxpr(name, fn, arg)
    jaxpr(f"{name}[jit]", f"jax.jit({fn})", arg)
    jaxpr(f"{name}[vmap]", f"jax.vmap({fn})", f"jnp.stack([{arg}, {arg}])")
    if grad:
        jaxpr(f"{name}[grad]", f"jax.grad(lambda x: jnp.sum(({fn})(x)))", arg)


# ---------------------------------------------------------------- the documentation's selu
SELU = ("def selu(x, alpha=1.67, lambda_=1.05):\n"
        "    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n")
for key, x in {"arange_f": "jnp.arange(5.0)", "arange_i": "jnp.arange(5)",
               "matrix": X, "scalar": "1.5"}.items():
    CASES[f"selu[{key}]"] = SELU + f"out = str(make_jaxpr(selu)({x}))"
    CASES[f"selu[{key},jit]"] = SELU + f"out = str(make_jaxpr(jax.jit(selu))({x}))"
CASES["selu[vmap]"] = SELU + "out = str(make_jaxpr(jax.vmap(selu))(jnp.ones((2, 3))))"
CASES["selu[grad]"] = SELU + "out = str(make_jaxpr(jax.grad(selu))(1.5))"
CASES["selu[grad_sum]"] = SELU + "out = str(make_jaxpr(jax.grad(lambda x: selu(x).sum()))(jnp.arange(3.0)))"
CASES["selu[value_and_grad]"] = SELU + "out = str(make_jaxpr(jax.value_and_grad(selu))(1.5))"
CASES["selu[jacfwd]"] = SELU + "out = str(make_jaxpr(jax.jacfwd(selu))(jnp.arange(3.0)))"
CASES["selu[jacrev]"] = SELU + "out = str(make_jaxpr(jax.jacrev(selu))(jnp.arange(3.0)))"
CASES["selu[jvp]"] = SELU + "out = str(make_jaxpr(lambda x, t: jax.jvp(selu, (x,), (t,)))(jnp.arange(3.0), jnp.ones(3)))"

# ---------------------------------------------------------------- the tutorials' programs
CASES["tutorial[my_function]"] = ("def my_function(x, y):\n    return x * y + 2\n"
                                  "out = str(make_jaxpr(my_function)(3., 4.))")
CASES["tutorial[log2_with_print]"] = (
    "def log2_with_print(x):\n    print('printed x:', x)\n    ln_x = jnp.log(x)\n"
    "    ln_2 = jnp.log(2.0)\n    return ln_x / ln_2\n"
    "out = str(make_jaxpr(log2_with_print)(3.))")
CASES["tutorial[square_if_gt_2]"] = (
    "def square_if_gt_2(x):\n    if x.ndim > 2:\n        return x**2\n    else:\n        return x\n"
    "out = str(make_jaxpr(square_if_gt_2)(jax.numpy.array([1, 2, 3])))")
CASES["tutorial[func1]"] = (
    "def func1(first, second):\n    temp = first + jnp.sin(second) * 3.\n    return jnp.sum(temp)\n"
    "out = str(make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8)))")
CASES["tutorial[relu_grad]"] = (
    "def relu(x):\n    return jnp.maximum(0., x)\n"
    "out = str(make_jaxpr(jax.grad(relu))(2.0))")
CASES["tutorial[norm]"] = (
    "def norm(X):\n    X = X - X.mean(0)\n    return X / X.std(0)\n"
    "out = str(make_jaxpr(norm)(jnp.ones((3, 4))))")
CASES["tutorial[norm_jit]"] = (
    "def norm(X):\n    X = X - X.mean(0)\n    return X / X.std(0)\n"
    "out = str(make_jaxpr(jax.jit(norm))(jnp.ones((3, 4))))")
CASES["tutorial[loss_mse]"] = (
    "def loss(w, b, x, y):\n    pred = x @ w + b\n    return jnp.mean((pred - y) ** 2)\n"
    "out = str(make_jaxpr(jax.grad(loss, argnums=(0, 1)))(jnp.ones(3), 0.5, jnp.ones((4, 3)), jnp.ones(4)))")
CASES["tutorial[inner_jit]"] = (
    "@jax.jit\ndef inner(x):\n    return jnp.sin(x) * 2\n"
    "def outer(x):\n    return inner(x) + inner(x + 1)\n"
    "out = str(make_jaxpr(outer)(jnp.ones(3)))")
CASES["tutorial[static_argnums]"] = (
    "def f(x, n):\n    y = x\n    for _ in range(n):\n        y = y * x\n    return y\n"
    "out = str(make_jaxpr(lambda x: jax.jit(f, static_argnums=1)(x, 3))(2.0))")
CASES["tutorial[stop_gradient]"] = (
    "def f(x):\n    return x ** 2 + jax.lax.stop_gradient(x * 3)\n"
    "out = str(make_jaxpr(jax.grad(f))(2.0))")
CASES["tutorial[vmap_dot]"] = (
    "out = str(make_jaxpr(jax.vmap(jnp.dot, in_axes=(None, 0)))(jnp.ones(3), jnp.ones((2, 3))))")

# ---------------------------------------------------------------- where
for name, fn in {
    "where[scalar_else]": "lambda x: jnp.where(x > 0, x, 0.)",
    "where[neg]": "lambda x: jnp.where(x > 0, x, -x)",
    "where[int_consts]": "lambda x: jnp.where(x > 0, 1, 0)",
    "where[nonbool_cond]": "lambda x: jnp.where(x, x, 2.0)",
    "where[nested]": "lambda x: jnp.where(x > 1, x, jnp.where(x < -1, -x, 0.))",
}.items():
    transformed(name, fn, X, grad=name != "where[int_consts]")
jaxpr("where[two_args]", "lambda x, y: jnp.where(x > y, x, y)", X, X)
jaxpr("where[broadcast]", "lambda x, y: jnp.where(x > 0, x, y)", X, "jnp.ones(3)")
jaxpr("where[scalar_cond]", "lambda c, x: jnp.where(c, x, 0.)", "True", X)
jaxpr("where[int]", "lambda x: jnp.where(x > 0, x, 0)", XI)
jaxpr("where[int_float]", "lambda x: jnp.where(x > 0, x, 0.5)", XI)
jaxpr("where[pyfloat]", "lambda x: jnp.where(x > 0, x, 0.)", "2.0")
jaxpr("where[twice_same]", "lambda x: jnp.where(x > 0, x, 0.) + jnp.where(x < 0, x, 0.)", X)
jaxpr("where[twice_other_shapes]", "lambda x, v: (jnp.where(x > 0, x, 0.), jnp.where(v > 0, v, 0.))", X, V)
jaxpr("where[grad_scalar]", "jax.grad(lambda x: jnp.where(x > 0, x ** 2, -x))", "1.5")
jaxpr("where[grad_two]", "jax.grad(lambda x, y: jnp.sum(jnp.where(x > y, x * y, y)), argnums=(0, 1))", X, X)
jaxpr("where[jvp]", "lambda x, t: jax.jvp(lambda x: jnp.where(x > 0, x, 0.), (x,), (t,))", X, X)
jaxpr("where[linearize]", "lambda x: jax.linearize(lambda x: jnp.where(x > 0, jnp.sin(x), 0.), x)[1](x)", X)
jaxpr("where[vmap_in_axes]", "jax.vmap(lambda x, y: jnp.where(x > y, x, y), in_axes=(0, None))", X, "jnp.ones(3)")
jaxpr("where[grad_vmap]", "jax.grad(lambda x: jnp.sum(jax.vmap(lambda r: jnp.where(r > 0, r, 0.))(x)))", X)
jaxpr("where[vmap_grad]", "jax.vmap(jax.grad(lambda x: jnp.where(x > 0, x * x, 0.)))", V)
jaxpr("where[hessian]", "jax.hessian(lambda x: jnp.sum(jnp.where(x > 0, x ** 3, 0.)))", V)
jaxpr("where[inside_jit_grad]", "jax.jit(jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x, 0.))))", X)

# ---------------------------------------------------------------- clip
for name, fn in {
    "clip[0_1]": "lambda x: jnp.clip(x, 0, 1)",
    "clip[floats]": "lambda x: jnp.clip(x, -1.5, 2.5)",
    "clip[max_only]": "lambda x: jnp.clip(x, max=1.)",
    "clip[min_only]": "lambda x: jnp.clip(x, min=0)",
    "clip[method]": "lambda x: x.clip(0., 1.)",
}.items():
    transformed(name, fn, X)
jaxpr("clip[int]", "lambda x: jnp.clip(x, 0, 3)", XI)
jaxpr("clip[array_bounds]", "lambda x, lo: jnp.clip(x, lo, 2.)", X, "jnp.zeros(3)")
jaxpr("clip[pyfloat]", "lambda x: jnp.clip(x, 0., 1.)", "2.0")

# ---------------------------------------------------------------- var and std
for name, fn in {
    "var[all]": "jnp.var",
    "var[axis0]": "lambda x: jnp.var(x, axis=0)",
    "var[ddof]": "lambda x: jnp.var(x, ddof=1)",
    "var[keepdims]": "lambda x: jnp.var(x, axis=1, keepdims=True)",
    "var[method]": "lambda x: x.var()",
    "std[all]": "jnp.std",
    "std[axis1]": "lambda x: jnp.std(x, axis=1)",
    "std[ddof]": "lambda x: jnp.std(x, axis=0, ddof=1)",
    "std[method]": "lambda x: x.std(0)",
}.items():
    transformed(name, fn, X)
jaxpr("var[int]", "jnp.var", XI)
jaxpr("std[int]", "jnp.std", XI)
jaxpr("var[twice]", "lambda x: jnp.var(x) + jnp.var(x * 2)", X)
jaxpr("std[vector]", "jnp.std", V)

# ---------------------------------------------------------------- jax.nn
# sigmoid (JAX's jit(inline=True): no inner jit); the others are at the end of the file.
transformed("nn[sigmoid]", "jax.nn.sigmoid", X)


# ---------------------------------------------------------------- other jitted jnp functions
FLOAT_FUNCS = {
    "remainder[float]": "lambda x: x % 2.", "mod[float]": "lambda x: jnp.mod(x, 3.)",
    "floor_divide[float]": "lambda x: x // 2.", "fmod[float]": "lambda x: jnp.fmod(x, 2.)",
    "round[0]": "jnp.round", "round[2]": "lambda x: jnp.round(x, 2)", "around": "jnp.around",
    "trunc": "jnp.trunc", "rint": "jnp.rint", "hypot": "lambda x: jnp.hypot(x, 2.)",
    "copysign": "lambda x: jnp.copysign(x, -1.)", "heaviside": "lambda x: jnp.heaviside(x, 0.5)",
    "isinf": "jnp.isinf", "signbit": "jnp.signbit", "arccosh": "lambda x: jnp.arccosh(x * x + 1)",
    "cumsum": "jnp.cumsum", "cumsum[axis]": "lambda x: jnp.cumsum(x, axis=1)",
    "cumprod[axis]": "lambda x: jnp.cumprod(x, axis=0)", "ptp": "jnp.ptp",
    "count_nonzero": "jnp.count_nonzero", "sort": "jnp.sort", "argsort": "jnp.argsort",
    "sort[axis0]": "lambda x: jnp.sort(x, axis=0)",
    "isclose": "lambda x: jnp.isclose(x, 1.)", "allclose": "lambda x: jnp.allclose(x, x)",
    "flip": "jnp.flip", "fliplr": "jnp.fliplr", "flipud": "jnp.flipud",
    "roll": "lambda x: jnp.roll(x, 1)", "roll[axis]": "lambda x: jnp.roll(x, -1, axis=1)",
    "rot90": "jnp.rot90", "tril": "jnp.tril", "triu[k]": "lambda x: jnp.triu(x, 1)",
    "diagonal": "jnp.diagonal", "trace": "jnp.trace", "kron": "lambda x: jnp.kron(x, x)",
    "atleast_2d": "lambda x: jnp.atleast_2d(x[0])", "atleast_3d": "jnp.atleast_3d",
    "searchsorted": "lambda x: jnp.searchsorted(jnp.array([0., 1., 2.]), x)",
}
NO_GRAD = {"isinf", "signbit", "count_nonzero", "argsort", "isclose", "allclose",
           "searchsorted", "floor_divide[float]"}
for name, fn in FLOAT_FUNCS.items():
    transformed(name, fn, X, grad=name not in NO_GRAD)
for name, fn in {
    "remainder[int]": "lambda x: x % 3", "floor_divide[int]": "lambda x: x // 2",
    "divmod[int]": "lambda x: jnp.divmod(x, 3)", "power[int]": "lambda x: jnp.power(x, x)",
    "fmod[int]": "lambda x: jnp.fmod(x, 2)", "round[int]": "jnp.round", "sort[int]": "jnp.sort",
    "cumsum[int]": "jnp.cumsum", "clip[int_float]": "lambda x: jnp.clip(x, 0.5, 2)",
    "isinf[int]": "jnp.isinf", "diag[vector]": "lambda x: jnp.diag(x[0])",
    "linspace": "lambda x: jnp.linspace(0., 1., 5) + x[0, 0]",
}.items():
    jaxpr(name, fn, XI)
    jaxpr(f"{name}[vmap]", f"jax.vmap({fn})", f"jnp.stack([{XI}, {XI}])")

# ---------------------------------------------------------------- weak types in grad jaxprs
for name, fn in {
    "mul_const": "lambda x: x * 2.", "square": "lambda x: x ** 2", "sin": "jnp.sin",
    "poly": "lambda x: 3. * x ** 3 - 2. * x + 1.", "exp_log": "lambda x: jnp.log(jnp.exp(x) + 1.)",
    "div": "lambda x: 1. / x", "tanh": "jnp.tanh", "maximum": "lambda x: jnp.maximum(x, 0.)",
    "abs": "jnp.abs", "sqrt": "jnp.sqrt", "where": "lambda x: jnp.where(x > 0, x, 0.)",
    "clip": "lambda x: jnp.clip(x, 0., 1.)", "sum_of": "lambda x: jnp.sum(x * jnp.ones(3))",
    "two_args": "lambda x: x * x + x",
}.items():
    jaxpr(f"weak_grad[{name}]", f"jax.grad({fn})", "1.5")
    jaxpr(f"weak_grad[{name},int_arg_float]", f"jax.grad({fn})", "jnp.float32(1.5)")
    jaxpr(f"weak_value_and_grad[{name}]", f"jax.value_and_grad({fn})", "0.5")
jaxpr("weak_grad[argnums]", "jax.grad(lambda x, y: x * y + y, argnums=1)", "1.5", "2.5")
jaxpr("weak_grad[second]", "jax.grad(jax.grad(lambda x: x ** 3))", "1.5")

# ---------------------------------------------------------------- scalars made while tracing
jaxpr("literal[jnp_array_int]", "lambda x: x + jnp.array(2)", XI)
jaxpr("literal[jnp_array_float]", "lambda x: x + jnp.array(2.0)", X)
jaxpr("literal[jnp_asarray]", "lambda x: x * jnp.asarray(3.0)", X)
jaxpr("literal[jnp_float32]", "lambda x: x * jnp.float32(3.0)", X)
jaxpr("literal[jnp_array_bool]", "lambda x: jnp.logical_and(x > 0, jnp.array(True))", X)
jaxpr("literal[jnp_array_vector]", "lambda x: x + jnp.array([1.0, 2.0, 3.0])", X)
jaxpr("literal[jnp_zeros_scalar]", "lambda x: x + jnp.zeros(())", X)
CASES["literal[repr_float]"] = (
    "lit = make_jaxpr(lambda x: x * 2.0)(1.0).jaxpr.eqns[0].invars[1]\nout = repr(lit)")
CASES["literal[repr_int]"] = (
    "lit = make_jaxpr(lambda x: x + 3)(jnp.arange(3)).jaxpr.eqns[0].invars[1]\nout = repr(lit)")
CASES["literal[repr_bool]"] = (
    "lit = make_jaxpr(lambda x: jnp.logical_and(x, True))(jnp.ones(3, bool)).jaxpr.eqns[0].invars[1]\n"
    "out = repr(lit)")
CASES["literal[str]"] = (
    "lit = make_jaxpr(lambda x: x * 2.0)(1.0).jaxpr.eqns[0].invars[1]\nout = str(lit)")
CASES["literal[repr_neg]"] = (
    "lit = make_jaxpr(lambda x: x - 0.1)(1.0).jaxpr.eqns[0].invars[1]\nout = repr(lit)")

# ---------------------------------------------------------------- make_jaxpr's trace cache
CASES["trace_cache[twice_same_avals]"] = (
    "calls = []\ndef f(x):\n    calls.append(1)\n    return x * 2\n"
    "make_jaxpr(f)(1.0)\nmake_jaxpr(f)(2.0)\nout = len(calls)")
CASES["trace_cache[one_wrapper]"] = (
    "calls = []\ndef f(x):\n    calls.append(1)\n    return x * 2\n"
    "g = make_jaxpr(f)\ng(jnp.ones(3))\ng(jnp.zeros(3))\nout = len(calls)")
CASES["trace_cache[other_shape]"] = (
    "calls = []\ndef f(x):\n    calls.append(1)\n    return x * 2\n"
    "g = make_jaxpr(f)\ng(jnp.ones(3))\ng(jnp.ones(4))\nout = len(calls)")
CASES["trace_cache[weak_vs_strong]"] = (
    "calls = []\ndef f(x):\n    calls.append(1)\n    return x * 2\n"
    "g = make_jaxpr(f)\ng(1.0)\ng(jnp.float32(1.0))\nout = len(calls)")
CASES["trace_cache[same_text]"] = (
    "def f(x):\n    return jnp.sin(x) * 2\n"
    "a = make_jaxpr(f)(jnp.ones(3))\nb = make_jaxpr(f)(jnp.ones(3))\nout = (str(a) == str(b), str(b))")
CASES["trace_cache[static_arg]"] = (
    "calls = []\ndef f(x, n):\n    calls.append(n)\n    return x * n\n"
    "g = make_jaxpr(f, static_argnums=1)\ng(1.0, 2)\ng(1.0, 2)\ng(1.0, 3)\nout = calls")
CASES["trace_cache[lambda_each_time]"] = (
    "calls = []\nfor _ in range(2):\n    make_jaxpr(lambda x: calls.append(1) or x)(1.0)\nout = len(calls)")

# ---------------------------------------------------------------- rem's JVP with broadcasting
CASES["rem_grad[broadcast_values]"] = (
    "out = jax.grad(lambda x, y: jnp.sum(x % y), argnums=(0, 1))"
    "(jnp.arange(1., 4.), jnp.array([[2.], [5.]]))")
jaxpr("rem_grad[broadcast]", "jax.grad(lambda x, y: jnp.sum(jnp.fmod(x, y)), argnums=(0, 1))",
      "jnp.arange(1., 4.)", "jnp.array([[2.], [5.]])")

# ---------------------------------------------------------------- jnp_cases that JAX stages
# The cases of tests/jnp_cases.py that tests/data/jnp_jaxprs.json leaves out because real JAX
# prints an inner jit in them (tests/record_jnp_data.py skips those).
CASES['jnp_cases:power[i32,i32]'] = 'out = str(jax.make_jaxpr(jnp.power)(jnp.ones((2, 3), jnp.int32), jnp.ones((2, 3), jnp.int32)))'
CASES['jnp_cases:power[bool,bool]'] = 'out = str(jax.make_jaxpr(jnp.power)(jnp.ones((2, 3), bool), jnp.ones((2, 3), bool)))'
CASES['jnp_cases:operator[pow,i32]'] = 'out = str(jax.make_jaxpr(lambda x, y: x ** y)(jnp.ones((2, 3), jnp.int32), jnp.ones((2, 3), jnp.int32)))'
CASES['jnp_cases:operator[rpow,i32]'] = 'out = str(jax.make_jaxpr(lambda x, y: 2 ** x)(jnp.ones((2, 3), jnp.int32), jnp.ones((2, 3), jnp.int32)))'
CASES['jnp_cases:mlp[int_index_math]'] = 'out = str(jax.make_jaxpr(lambda i: (i * 2 + 1) // 1 + i % 1)(jnp.ones((2, 3), jnp.int32)))'
CASES['jnp_cases:hstack[basic]'] = 'out = str(jax.make_jaxpr(lambda x, y: jnp.hstack([x, y]))(jnp.ones((3,), jnp.float32), jnp.ones((3,), jnp.float32)))'
CASES['jnp_cases:vstack[basic]'] = 'out = str(jax.make_jaxpr(lambda x, y: jnp.vstack([x, y]))(jnp.ones((3,), jnp.float32), jnp.ones((3,), jnp.float32)))'
CASES['jnp_cases:atleast_2d[basic]'] = 'out = str(jax.make_jaxpr(jnp.atleast_2d)(jnp.ones((3,), jnp.float32)))'
CASES['jnp_cases:flip[basic]'] = 'out = str(jax.make_jaxpr(jnp.flip)(jnp.ones((2, 3), jnp.float32)))'
CASES['jnp_cases:linspace[basic]'] = 'out = str(jax.make_jaxpr(lambda x: x + jnp.linspace(0.0, 1.0, 3))(jnp.ones((3,), jnp.float32)))'
CASES['jnp_cases:linspace[no_endpoint]'] = 'out = str(jax.make_jaxpr(lambda x: x + jnp.linspace(0, 1, 3, endpoint=False))(jnp.ones((3,), jnp.float32)))'
CASES['jnp_cases:linspace[traced]'] = 'out = str(jax.make_jaxpr(lambda a, b: jnp.linspace(a, b, 4))(0.0, 1.0))'
CASES['jnp_cases:linspace[num1]'] = 'out = str(jax.make_jaxpr(lambda x: x + jnp.linspace(2.0, 3.0, 1))(jnp.ones(1)))'
CASES['jnp_cases:where[three]'] = 'out = str(jax.make_jaxpr(lambda c, x, y: jnp.where(c, x, y))(jnp.ones((2, 3), bool), jnp.ones((2, 3), jnp.float32), jnp.ones((2, 3), jnp.float32)))'

# ---------------------------------------------------------------- jnp.linalg (inner jits in JAX)
M = "jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])"
for name, fn in {
    "det": "jnp.linalg.det", "inv": "jnp.linalg.inv", "slogdet": "jnp.linalg.slogdet",
    "solve": "lambda a: jnp.linalg.solve(a, a[0])", "cholesky": "jnp.linalg.cholesky",
    "qr": "jnp.linalg.qr", "eigh": "jnp.linalg.eigh", "eigvalsh": "jnp.linalg.eigvalsh",
    "matrix_power": "lambda a: jnp.linalg.matrix_power(a, 3)", "norm": "jnp.linalg.norm",
    "norm[vector]": "lambda a: jnp.linalg.norm(a[0])",
    "norm[axis]": "lambda a: jnp.linalg.norm(a, axis=1)", "norm[ord1]": "lambda a: jnp.linalg.norm(a, 1)",
    "pinv": "jnp.linalg.pinv", "matrix_rank": "jnp.linalg.matrix_rank", "cond": "jnp.linalg.cond",
    "svd": "jnp.linalg.svd",
}.items():
    jaxpr(f"linalg[{name}]", fn, M)
for name, fn in {"det": "jnp.linalg.det", "norm": "jnp.linalg.norm",
                 "inv": "lambda a: jnp.sum(jnp.linalg.inv(a))"}.items():
    jaxpr(f"linalg[{name}][grad]", f"jax.grad({fn})", M)


# The inner jits added last for issue 17 (diff, append, fmax/fmin, sinc, nan_to_num, cov,
# vander and the polynomial helpers JAX jits), each checked against JAX's printed text.
VA = "jnp.array([0.5, -1.5, 2.0, 3.0])"
MA = "jnp.array([[1.5, -2.0, 3.0], [-4.0, 0.5, -6.0]])"
jaxpr("inner_jit[diff]", "jnp.diff", VA)
jaxpr("inner_jit[diff[n2axis0]]", "lambda x: jnp.diff(x, n=2, axis=0)", "jnp.ones((4, 2))")
jaxpr("inner_jit[diff[prepend]]", "lambda x: jnp.diff(x, prepend=0.)", VA)
jaxpr("inner_jit[append]", "lambda x: jnp.append(x, 1.)", VA)
jaxpr("inner_jit[append[axis]]", "lambda x: jnp.append(x, x, axis=0)", MA)
jaxpr("inner_jit[fmax]", "jnp.fmax", VA, VA)
jaxpr("inner_jit[fmin]", "lambda x: jnp.fmin(x, 1.)", VA)
jaxpr("inner_jit[sinc]", "jnp.sinc", VA)
jaxpr("inner_jit[nan_to_num]", "jnp.nan_to_num", VA)
jaxpr("inner_jit[cov]", "jnp.cov", MA)
jaxpr("inner_jit[cov[1d]]", "jnp.cov", VA)
jaxpr("inner_jit[vander]", "jnp.vander", VA)
jaxpr("inner_jit[vander[N]]", "lambda x: jnp.vander(x, 2, increasing=True)", VA)
jaxpr("inner_jit[polyval]", "jnp.polyval", VA, "2.0")
jaxpr("inner_jit[polyadd]", "jnp.polyadd", VA, "jnp.ones(2)")
jaxpr("inner_jit[polysub]", "jnp.polysub", VA, "jnp.ones(2)")
jaxpr("inner_jit[polyder]", "jnp.polyder", VA)
jaxpr("inner_jit[polyder[m2]]", "lambda p: jnp.polyder(p, 2)", VA)
jaxpr("inner_jit[polyint]", "jnp.polyint", VA)
jaxpr("inner_jit[polyint[k]]", "lambda p: jnp.polyint(p, 2, k=1.)", VA)


# jax.nn (issue 17): the functions JAX wraps in a jit (relu and relu6 a custom_jvp around
# one), traced as they are, under jit, vmap and grad; softmax as JAX 0.10's default computes
# it (no custom JVP, the max behind a stop_gradient); gelu, which JAX does not jit (the exact
# one ends with jnp.array(..., dtype): a ``copy`` equation, as jnp.array of any array).
for fn in ("relu", "relu6", "softplus", "silu", "swish", "elu", "leaky_relu",
           "log_sigmoid", "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish", "celu", "selu",
           "softmax", "log_softmax", "logsumexp", "standardize", "identity", "soft_sign",
           "squareplus", "mish", "sparse_plus", "sparse_sigmoid", "log1mexp", "glu",
           "logmeanexp", "gelu"):
    transformed(f"nn[{fn}]", f"jax.nn.{fn}", VA)
jaxpr("nn[softmax[matrix]]", "jax.nn.softmax", MA)
jaxpr("nn[softmax[axis0]]", "lambda x: jax.nn.softmax(x, axis=0)", MA)
jaxpr("nn[log_softmax[matrix]]", "jax.nn.log_softmax", MA)
jaxpr("nn[logsumexp[axis1]]", "lambda x: jax.nn.logsumexp(x, axis=1)", MA)
jaxpr("nn[standardize[matrix]]", "jax.nn.standardize", MA)
jaxpr("nn[standardize[stable]]", "lambda x: jax.nn.standardize(x, algorithm='stable')", MA)
jaxpr("nn[one_hot]", "lambda x: jax.nn.one_hot(x, 5)", VI)
jaxpr("nn[one_hot[axis0]]", "lambda x: jax.nn.one_hot(x, 5, axis=0, dtype=jnp.int32)", VI)
jaxpr("nn[elu[alpha]]", "lambda x: jax.nn.elu(x, 0.5)", VA)
jaxpr("nn[leaky_relu[slope]]", "lambda x: jax.nn.leaky_relu(x, 0.2)", VA)
jaxpr("nn[relu[int]]", "jax.nn.relu", VI)
jaxpr("nn[relu[scalar]]", "jax.nn.relu", "1.5")
jaxpr("nn[relu[twice]]", "lambda x: jax.nn.relu(x) + jax.nn.relu(x * 2)", VA)
transformed("nn[gelu[exact]]", "lambda x: jax.nn.gelu(x, approximate=False)", VA)
jaxpr("array[copy]", "jnp.array", VA)
jaxpr("array[copy][dtype]", "lambda x: jnp.array(x, dtype=jnp.int32)", VA)
jaxpr("array[no_copy]", "lambda x: jnp.array(x, copy=False)", VA)
jaxpr("array[list_of_tracers]", "lambda x: jnp.array([x, x])", VA)
jaxpr("array[copy][grad]", "jax.grad(lambda x: jnp.array(x * 2))", "1.0")
jaxpr("astype[copy]", "lambda x: x.astype(jnp.int32, copy=True)", VA)
