"""The programs of JAX's notebook "Writing custom interpreters in JAX", recorded from real
JAX 0.10.2 in interpreters_recorded.json (issue 29): walking ``make_jaxpr(...).jaxpr``, the
reprs of its Var/Literal/JaxprEqn parts, an ``eval_jaxpr`` written with ``safe_map``, and the
inverse-function interpreter composed with jit, vmap and grad. Object ids are replaced by N
(they differ from run to run) and the printed class of a Var by ``Var``.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/interpreters_cases.py \\
        tests/data/interpreters_recorded.json
"""
CASES: dict[str, str] = {}

PRELUDE = """\
import contextlib, io, re
safe_map = jax._src.util.safe_map
core = jax.extend.core
buf = io.StringIO()
"""
CLEAN = ("out = re.sub(r'id=[0-9]+', 'id=N', buf.getvalue())\n"
         "out = re.sub(r\"<class '[a-z_.]+[.]Var'>\", 'Var', out)\n")


def case(name: str, body: str) -> None:
    indented = "".join("  " + line + "\n" for line in body.strip("\n").splitlines())
    CASES[name] = PRELUDE + "with contextlib.redirect_stdout(buf):\n" + indented + CLEAN


F = """\
def f(x):
  return jnp.exp(jnp.tanh(x))
"""
EXAMINE = """\
def examine_jaxpr(closed_jaxpr):
  jaxpr = closed_jaxpr.jaxpr
  print("invars:", jaxpr.invars)
  print("outvars:", jaxpr.outvars)
  print("constvars:", jaxpr.constvars)
  for eqn in jaxpr.eqns:
    print("equation:", eqn.invars, eqn.primitive, eqn.outvars, eqn.params)
  print()
  print("jaxpr:", jaxpr)
"""
EVAL = """\
def eval_jaxpr(jaxpr, consts, *args):
  env = {}
  def read(var):
    if type(var) is core.Literal:
      return var.val
    return env[var]
  def write(var, val):
    env[var] = val
  safe_map(write, jaxpr.invars, args)
  safe_map(write, jaxpr.constvars, consts)
  for eqn in jaxpr.eqns:
    invals = safe_map(read, eqn.invars)
    outvals = eqn.primitive.bind(*invals, **eqn.params)
    if not eqn.primitive.multiple_results:
      outvals = [outvals]
    safe_map(write, eqn.outvars, outvals)
  return safe_map(read, jaxpr.outvars)
"""
INVERSE = F + """\
from functools import wraps
inverse_registry = {}
inverse_registry[jax.lax.exp_p] = jnp.log
inverse_registry[jax.lax.tanh_p] = jnp.arctanh
def inverse(fun):
  @wraps(fun)
  def wrapped(*args, **kwargs):
    closed_jaxpr = jax.make_jaxpr(fun)(*args, **kwargs)
    out = inverse_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, *args)
    return out[0]
  return wrapped
def inverse_jaxpr(jaxpr, consts, *args):
  env = {}
  def read(var):
    if type(var) is core.Literal:
      return var.val
    return env[var]
  def write(var, val):
    env[var] = val
  safe_map(write, jaxpr.outvars, args)
  safe_map(write, jaxpr.constvars, consts)
  for eqn in jaxpr.eqns[::-1]:
    invals = safe_map(read, eqn.outvars)
    if eqn.primitive not in inverse_registry:
      raise NotImplementedError(f"{eqn.primitive} does not have registered inverse.")
    outval = inverse_registry[eqn.primitive](*invals)
    safe_map(write, eqn.invars, [outval])
  return safe_map(read, jaxpr.invars)
"""

case("make_jaxpr_f", F + """\
closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
print(closed_jaxpr.jaxpr)
print(closed_jaxpr.literals)
""")
case("eqn_parts", F + """\
closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
for eqn in closed_jaxpr.jaxpr.eqns:
  print(eqn.primitive, eqn.invars, eqn.outvars, eqn.params, type(eqn.invars[0]))
print(closed_jaxpr.jaxpr.invars, closed_jaxpr.jaxpr.outvars, closed_jaxpr.jaxpr.constvars)
""")
case("examine_foo", EXAMINE + """\
def foo(x):
  return x + 1
examine_jaxpr(jax.make_jaxpr(foo)(5))
""")
case("examine_bar", EXAMINE + """\
def bar(w, b, x):
  return jnp.dot(w, x) + b + jnp.ones(5), x
examine_jaxpr(jax.make_jaxpr(bar)(jnp.ones((5, 10)), jnp.ones(5), jnp.ones(10)))
""")
case("eval_jaxpr", F + EVAL + """\
closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
print(eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, jnp.ones(5)))
""")
case("eval_jaxpr_under_jit", F + EVAL + """\
closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
print(jax.make_jaxpr(lambda x: eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, x))(
    jnp.ones(5)))
""")
case("inverse_roundtrip", INVERSE + """\
f_inv = inverse(f)
print(jnp.allclose(f_inv(f(1.0)), 1.0))
""")
case("inverse_jaxpr", INVERSE + """\
print(jax.make_jaxpr(inverse(f))(f(1.)))
""")
case("inverse_jit_vmap_grad", INVERSE + """\
jac = jax.jit(jax.vmap(jax.grad(inverse(f))))
print(jac(jnp.ones(5)))
""")
case("inverse_vmap_grad_jaxpr", INVERSE + """\
print(jax.make_jaxpr(jax.vmap(jax.grad(inverse(f))))(jnp.ones(5)))
""")
case("inverse_missing_rule", INVERSE + """\
try:
  inverse(lambda x: jnp.sin(x))(1.0)
except NotImplementedError as e:
  print(e)
""")
case("safe_map_and_zip", """\
try:
  safe_map(lambda a, b: a + b, [1, 2], [1])
except ValueError:
  print("ValueError")
print(safe_map(lambda a, b: a + b, [1, 2], [3, 4]), jax._src.util.safe_zip([1, 2], [3, 4]))
""")
