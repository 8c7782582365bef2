"""Programs whose jaxprs are printed with their provenance (issue 29), recorded from real
JAX 0.10.2 in source_info_recorded.json: ``pretty_print(source_info=True, name_stack=True)``
notes each equation's Python line (``<string>:3:9 (f)``: the programs run with ``exec``)
and the transformations it went through (``[transpose(jvp())]``), and
``print_saved_residuals`` names the line each residual comes from.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/source_info_cases.py \\
        tests/data/source_info_recorded.json

tests/test_source_info.py replays them on edujax and compares the text.
"""
CASES: dict[str, str] = {}

SELU = """\
def selu(x, alpha=1.67, lmbda=1.05):
  return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""
SINCOS = """\
def f(x):
  y = jnp.cos(x)
  return jnp.sin(y) * 2.0
"""
HELPER = """\
def layer(w, x):
  return jnp.tanh(w * x)

def f(x):
  h = layer(0.5, x)
  return layer(2.0, h).sum()
"""
MATMULS = """\
def g(W, x):
  y = jnp.dot(W, x)
  return jnp.sin(y)

def f(W1, W2, W3, x):
  x = g(W1, x)
  x = g(W2, x)
  x = g(W3, x)
  return x
W = jnp.ones((3, 3)) * 0.1
v = jnp.ones(3)
"""
V = "jnp.array([0.5, -1.5, 2.0])"


def printed(name: str, setup: str, expr: str, options: str = "source_info=True, name_stack=True"):
    """``expr`` is a make_jaxpr(...)(...) call; the case prints its jaxpr with ``options``."""
    assert name not in CASES, name
    CASES[name] = f"{setup}out = ({expr}).jaxpr.pretty_print({options})\n"


def residuals(name: str, setup: str, call: str):
    """What ``print_saved_residuals`` prints for ``call`` (its arguments)."""
    assert name not in CASES, name
    CASES[name] = (f"import contextlib, io\n{setup}buf = io.StringIO()\n"
                   f"with contextlib.redirect_stdout(buf):\n"
                   f"  jax.ad_checkpoint.print_saved_residuals({call})\n"
                   f"out = buf.getvalue()\n")


# -- plain, jit, grad, vmap of the tutorials' selu
printed("selu", SELU, f"make_jaxpr(selu)({V})")
printed("selu_source_only", SELU, f"make_jaxpr(selu)({V})", "source_info=True")
printed("selu_name_stack_only", SELU, f"make_jaxpr(selu)({V})", "name_stack=True")
printed("selu_jit", SELU, f"make_jaxpr(jax.jit(selu))({V})")
printed("selu_grad", SELU, "make_jaxpr(jax.grad(selu))(0.5)")
printed("selu_vmap", SELU, f"make_jaxpr(jax.vmap(selu))({V})")
printed("selu_grad_sum", SELU, f"make_jaxpr(jax.grad(lambda x: selu(x).sum()))({V})")
printed("selu_vmap_grad", SELU, f"make_jaxpr(jax.vmap(jax.grad(selu)))({V})")
printed("selu_jit_grad", SELU, "make_jaxpr(jax.jit(jax.grad(selu)))(0.5)")
# -- two lines, helpers, the innermost user frame
printed("sincos", SINCOS, "make_jaxpr(f)(1.0)")
printed("sincos_grad", SINCOS, "make_jaxpr(jax.grad(f))(1.0)")
printed("sincos_grad_grad", SINCOS, "make_jaxpr(jax.grad(jax.grad(f)))(1.0)")
printed("sincos_jvp", SINCOS, "make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(1.0, 1.0)")
printed("sincos_vjp", SINCOS, "make_jaxpr(lambda x: jax.vjp(f, x)[1](1.0))(1.0)")
printed("sincos_value_and_grad", SINCOS, "make_jaxpr(jax.value_and_grad(f))(1.0)")
printed("sincos_vmap_jit", SINCOS, f"make_jaxpr(jax.vmap(jax.jit(f)))({V})")
printed("sincos_jit_vmap", SINCOS, f"make_jaxpr(jax.jit(jax.vmap(f)))({V})")
printed("helper", HELPER, f"make_jaxpr(f)({V})")
printed("helper_grad", HELPER, f"make_jaxpr(jax.grad(f))({V})")
printed("lambda", "", "make_jaxpr(lambda x: jnp.sin(x) + x ** 2)(1.0)")
printed("methods", "def f(x):\n  return (x @ x.T).sum(axis=0).max()\n",
        "make_jaxpr(f)(jnp.ones((2, 3)))")
printed("multiline", "def f(x):\n  return jnp.sin(\n      x) + jnp.cos(\n      x * 2)\n",
        "make_jaxpr(f)(1.0)")
printed("inner_jit", "def g(x):\n  return jnp.sin(x) * 2\n\ndef f(x):\n"
        "  y = jax.jit(g)(x)\n  return jnp.cos(y)\n", "make_jaxpr(f)(1.0)")
printed("outer_jit", "def f(x):\n  return jnp.cos(jnp.sin(x))\n", "make_jaxpr(jax.jit(f))(1.0)")
printed("vmap_in_axes", "def f(x, y):\n  return x * y + 1.0\n",
        "make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((3, 2)), jnp.ones(2))")
# -- control flow
printed("cond", "def f(x):\n  return jax.lax.cond(x > 0, jnp.sin, jnp.cos, x)\n",
        "make_jaxpr(f)(1.0)")
printed("cond_lambdas", "def f(x):\n  return jax.lax.cond(x > 0, lambda v: v * 2.0,\n"
        "                      lambda v: -v, x)\n", "make_jaxpr(f)(1.0)")
printed("scan", "def f(xs):\n  def step(c, x):\n    c = c + jnp.sin(x)\n    return c, c * 2.0\n"
        "  return jax.lax.scan(step, 0.0, xs)\n", f"make_jaxpr(f)({V})")
printed("fori_loop", "def f(x):\n  return jax.lax.fori_loop(0, 3, lambda i, v: v * 2.0, x)\n",
        "make_jaxpr(f)(1.0)")
printed("named_scope", "def f(x):\n  with jax.named_scope('dense'):\n    y = jnp.sin(x)\n"
        "  return y * 2.0\n", "make_jaxpr(f)(1.0)")
printed("named_scope_grad", "def f(x):\n  with jax.named_scope('dense'):\n    y = jnp.sin(x)\n"
        "  return y * 2.0\n", "make_jaxpr(jax.grad(f))(1.0)")
# -- remat
printed("checkpoint_grad", SINCOS, "make_jaxpr(jax.grad(jax.checkpoint(f)))(1.0)")
printed("checkpoint_policy_grad", MATMULS,
        "make_jaxpr(jax.grad(lambda *a: jax.checkpoint(f, "
        "policy=jax.checkpoint_policies.dots_saveable)(*a).sum()))(W, W, W, v)")
# -- print_saved_residuals
residuals("res_sincos", SINCOS, "f, 1.0")
residuals("res_sincos_vector", "def f(x):\n  return jnp.sin(jnp.cos(x))\n", "f, jnp.ones(4)")
residuals("res_argument", "def f(x, y):\n  return x * y\n", "f, 1.0, 2.0")
residuals("res_helper", HELPER, f"f, {V}")
residuals("res_matmuls", MATMULS, "f, W, W, W, v")
residuals("res_checkpoint", MATMULS, "jax.checkpoint(f), W, W, W, v")
residuals("res_policy_dots", MATMULS,
          "jax.checkpoint(f, policy=jax.checkpoint_policies.dots_saveable), W, W, W, v")
residuals("res_policy_nothing", MATMULS,
          "jax.checkpoint(f, policy=jax.checkpoint_policies.nothing_saveable), W, W, W, v")
residuals("res_names", "def f(x):\n  y = jax.ad_checkpoint.checkpoint_name(jnp.sin(x), 'y')\n"
          "  return jnp.cos(y) * jnp.sin(y)\n",
          "jax.checkpoint(f, policy=jax.checkpoint_policies.save_only_these_names('y')), 1.0")
residuals("res_jit", "def g(x):\n  return jnp.sin(x) * x\n\ndef f(x):\n"
          "  return jnp.cos(jax.jit(g)(x))\n", "f, 1.0")
