"""Programs whose jaxprs (and values) under grad, jvp and vmap are recorded in
fidelity_ad_recorded.json: the rules that decide how a transformed jaxpr reads.

* ``split``, the primitive concatenate's transpose cuts the cotangent with, under jit, vmap
  (batch dimension first or not) and grad (a piece nobody uses gets zeros);
* ``concatenate`` under grad: every operand, or a constant among them;
* ``sort``'s JVP (a uint32 iota sorted along, then a gather with batching dimensions) in one,
  two and three dimensions, on several operands (integer keys) and under jacfwd, and its
  batching rule (the batch dimension stays where it is; an unbatched operand is broadcast);
* the cumulative reductions differentiated through ``lax.associative_scan`` (odd and even
  lengths, reverse), and the values of those gradients (zeros for cumprod, ties for cummax);
* select_n's JVP (one zero array shared by every case without a tangent, made even when no
  case needs it), pad's transpose, and a jit whose linear input no cotangent reaches;
* batching rules that leave the batch dimension in place (slice, pad, rev, tile, unstack,
  clamp, the cumulative ops), transpose's single transpose, dot_general's dimension numbers,
  stack's transpose (unstack) and top_k's JVP (a gather), each under vmap with in_axes 1 or
  2, and under grad.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/fidelity_ad_cases.py \\
        tests/data/fidelity_ad_recorded.json
"""
CASES: dict[str, str] = {}

X = "jnp.array([[1.5, -2.0, 3.0], [-4.0, 0.5, -6.0]])"
V = "jnp.array([0.5, -1.5, 2.0, 3.0, -0.25])"
V4 = "jnp.array([2.0, 0.0, -3.0, 1.5])"
K = "jnp.array([3, 1, 2, 1, 0])"
T3 = "jnp.arange(24.0).reshape(2, 3, 4) * jnp.array([1.0, -1.0, 0.5, 2.0])"


def jaxpr(name: str, fn: str, *args: str) -> None:
    CASES[name] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


def value(name: str, fn: str, *args: str) -> None:
    CASES[name] = f"out = ({fn})({', '.join(args)})"


def both(name: str, fn: str, *args: str) -> None:
    """The jaxpr, and the value it computes."""
    jaxpr(name, fn, *args)
    value(f"{name}[value]", fn, *args)


# ---------------------------------------------------------------- split
SPLIT = "lambda x: lax.split(x, (1, 2), axis=1)"
both("split", SPLIT, X)
jaxpr("split[jit]", f"jax.jit({SPLIT})", X)
both("split[vmap]", f"jax.vmap({SPLIT})", f"jnp.stack([{X}, -{X}])")
both("split[vmap,in_axes1]", f"jax.vmap({SPLIT}, in_axes=1)", f"jnp.stack([{X}, -{X}], 1)")
both("split[vmap,in_axes2]", "jax.vmap(lambda x: lax.split(x, (2, 1), axis=1), in_axes=2)",
     f"jnp.stack([{X}, -{X}], 2)")
both("split[grad]", "jax.grad(lambda x: jnp.sum(lax.split(x, (1, 2), axis=1)[1] ** 2))", X)
both("split[grad,all]", "jax.grad(lambda x: sum(jnp.sum(p * (i + 1)) for i, p in "
     "enumerate(lax.split(x, (2, 0, 3)))))", V)
both("split[jvp]", "lambda x, t: jax.jvp(lambda x: lax.split(x, (3, 2)), (x,), (t,))",
     V, "jnp.ones(5)")
both("split[vmap][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(lax.split(x, (1, 2), "
     "axis=1)[0] * 3.0)))", f"jnp.stack([{X}, -{X}])")

# ---------------------------------------------------------------- concatenate's transpose
both("concatenate[grad]", "jax.grad(lambda x, y: jnp.sum(jnp.concatenate([x, y, x]) ** 2), "
     "argnums=(0, 1))", V, V4)
both("concatenate[grad,const]", "jax.grad(lambda x: jnp.sum(jnp.concatenate([jnp.ones((2, 2)), "
     "x, x * 2], axis=1) ** 2))", X)
both("concatenate[vmap][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.concatenate([x, "
     "x[::-1]]) * jnp.arange(10.0))))", f"jnp.stack([{V}, -{V}])")
both("roll[jit][grad]", "jax.jit(jax.grad(lambda x: jnp.sum(jnp.roll(x, 2) * jnp.arange(5.0))))",
     V)

# ---------------------------------------------------------------- sort's JVP
both("sort[grad,1d]", "jax.grad(lambda x: jnp.sum(jnp.sort(x) * jnp.arange(5.0)))", V)
both("sort[grad,3d]", "jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=1) * jnp.arange(3.0)[:, None]))",
     T3)
both("sort[grad,3d,last]", "jax.grad(lambda x: jnp.sum(jnp.sort(x) ** 2))", T3)
both("sort[jvp]", "lambda x, t: jax.jvp(jnp.sort, (x,), (t,))", X, X + " * 10")
both("sort[jacfwd]", "jax.jacfwd(jnp.sort)", V4)
both("sort[jacrev]", "jax.jacrev(jnp.sort)", V4)
both("sort_key_val[grad,int_keys]", "jax.grad(lambda v: jnp.sum(lax.sort_key_val(" + K +
     ", v)[1] * jnp.arange(5.0)))", V)
both("sort[multi][grad]", "jax.grad(lambda a, b: jnp.sum(lax.sort((a, b), num_keys=1)[1] * "
     "jnp.arange(5.0)), argnums=(0, 1))", V, "-" + V)
both("sort[vmap][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sort(x) * jnp.arange(5.0))))",
     f"jnp.stack([{V}, -{V}])")
both("sort[grad][jit]", "jax.jit(jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=0) ** 3)))", X)

# ---------------------------------------------------------------- sort's batching rule
both("sort[vmap,in_axes1]", "jax.vmap(jnp.sort, in_axes=1)", X)
both("argsort[vmap,in_axes1]", "jax.vmap(jnp.argsort, in_axes=1)", X)
both("sort_key_val[vmap,keys]", "jax.vmap(lambda k: lax.sort_key_val(k, jnp.arange(3.0)))", X)
both("sort_key_val[vmap,vals,in_axes1]", "jax.vmap(lambda v: lax.sort_key_val("
     "jnp.array([2.0, 0.0, 1.0]), v), in_axes=1)", "jnp.arange(6.0).reshape(3, 2)")
both("sort[vmap,vmap]", "jax.vmap(jax.vmap(jnp.sort), in_axes=2)", T3)

# ---------------------------------------------------------------- cumulative reductions
for fn in ("cumprod", "cummax", "cummin", "cumsum"):
    both(f"{fn}[grad]", f"jax.grad(lambda x: jnp.sum(lax.{fn}(x) * jnp.arange(5.0)))", V)
for n in (1, 2, 3, 8):  # quarters: the products are exact, whatever their order
    both(f"cumprod[grad,n{n}]", "jax.grad(lambda x: jnp.sum(jnp.cumprod(x)))",
         f"jnp.arange({n}.0) * 0.5 - 1.25")
both("cumprod[grad,zeros]", "jax.grad(lambda x: jnp.sum(jnp.cumprod(x)))", V4)
both("cummax[grad,ties]", "jax.grad(lambda x: jnp.sum(lax.cumsum(lax.cummax(x)) ** 2))",
     "jnp.array([1.0, 3.0, 3.0, 2.0, 5.0])")
both("cumprod[reverse][grad]", "jax.grad(lambda x: jnp.sum(lax.cumprod(x, reverse=True) ** 2))",
     V)
both("cumlogsumexp[grad]", "jax.grad(lambda x: jnp.sum(lax.cumlogsumexp(x, axis=1)))", X)
both("cummin[jvp]", "lambda x, t: jax.jvp(lambda x: lax.cummin(x, axis=0), (x,), (t,))", X,
     "jnp.ones((2, 3))")
both("cumprod[vmap][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.cumprod(x))))",
     f"jnp.stack([{V}, -{V}])")
both("associative_scan[grad]", "jax.grad(lambda x: jnp.sum(lax.associative_scan(jnp.multiply, "
     "x, axis=1) * 2.0))", X)

# ---------------------------------------------------------------- select_n, pad, jit
both("select[jvp,both]", "lambda x, t: jax.jvp(lambda x: lax.select(x > 0, x, x * 3.0), (x,), "
     "(t,))", V, "jnp.ones(5)")
both("select[jvp,one]", "lambda x, t: jax.jvp(lambda x: lax.select(x > 0, x, jnp.zeros(5)), "
     "(x,), (t,))", V, "jnp.ones(5)")
both("select[grad,both]", "jax.grad(lambda x: jnp.sum(lax.select(x > 0, x, x * 3.0)))", V)
both("select_n[jvp,three]", "lambda x, t: jax.jvp(lambda x: lax.select_n(jnp.array([0, 2, 1, 0, "
     "2]), x, jnp.ones(5), x ** 2), (x,), (t,))", V, "jnp.ones(5)")
both("pad[grad]", "jax.grad(lambda x: jnp.sum(lax.pad(x, 0.0, ((1, -1, 1), (-1, 2, 0))) ** 2))",
     X)
both("pad[grad,value]", "jax.grad(lambda x, p: jnp.sum(lax.pad(x, p, ((2, 1, 0),))), "
     "argnums=(0, 1))", V, "1.5")
both("where[cond_and_branch][grad,jit]", "jax.jit(jax.grad(lambda x: jnp.sum(jnp.where(x, x * 2.0, "
     "x))))", X)
both("jit[unreached][grad]", "jax.grad(lambda x, y: jnp.sum(jax.jit(lambda a, b: "
     "jnp.where(b > 0, a, 1.0))(x, y)), argnums=(0, 1))", V, V)
both("jit[dead_primal][grad]", "jax.grad(lambda x: jax.jit(lambda a: (jnp.sin(a), "
     "jnp.sum(a * 2.0))[1])(x))", V)

# ---------------------------------------------------------------- NumPy integers in params
# JAX keeps a slice's numbers as given (pad's transpose passes NumPy ones), shapes are ints.
jaxpr("slice[numpy_ints]", "lambda x: lax.slice(x, (np.int64(1), 0), (5, 4), (np.int64(2), 1))",
      "jnp.ones((5, 4))")
both("slice[numpy_ints][grad]", "jax.grad(lambda x: jnp.sum(lax.slice(x, (np.int64(1), 0), "
     "(5, 4), (np.int64(2), 1)) ** 2))", "jnp.arange(20.0).reshape(5, 4)")

# ---------------------------------------------------------------- the rules composed
both("sort[vmap,in_axes1][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sort(x) * "
     "jnp.arange(2.0))), in_axes=1)", X)
both("sort[hessian]", "jax.hessian(lambda x: jnp.sum(jnp.sort(x) ** 3 * jnp.arange(4.0)))", V4)
both("sort[num_keys2][grad]", "jax.grad(lambda a, b: jnp.sum(lax.sort((jnp.array([1, 0, 1, 0]), "
     "a, b), num_keys=2)[2] * jnp.arange(4.0)), argnums=(0, 1))", V4, "-" + V4)
both("cumprod[vmap,in_axes1][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.cumprod(x))), "
     "in_axes=1)", X)
both("split[vmap,in_axes1][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(lax.split(x, (1, 1))[1] "
     "* 5.0)), in_axes=1)", X)
both("argsort[jit][vmap,in_axes1]", "jax.jit(jax.vmap(jnp.argsort, in_axes=1))", X)
both("sort[vmap][jvp]", "jax.vmap(lambda x, t: jax.jvp(jnp.sort, (x,), (t,)))", X, X + " * 2")

# ---------------------------------------------------------------- slice and pad batch in place
both("slice[vmap,in_axes1]", "jax.vmap(lambda x: lax.slice(x, (1,), (3,)), in_axes=1)", X + ".T")
both("slice[vmap,in_axes1,strided]", "jax.vmap(lambda x: x[::2, 1:], in_axes=1)", T3)
both("pad[vmap,in_axes1]", "jax.vmap(lambda x: lax.pad(x, 0.0, ((1, 2, 1),)), in_axes=1)", X)
both("pad[vmap,batched_value]", "jax.vmap(lambda x, p: lax.pad(x, p, ((1, 1, 0),)))",
     "jnp.ones((2, 3))", "jnp.array([5.0, 6.0])")
both("pad[vmap,value_only]", "jax.vmap(lambda x, p: lax.pad(x, p, ((1, 1, 0),)), "
     "in_axes=(None, 0))", "jnp.ones((3,))", "jnp.array([5.0, 6.0])")
both("pad[vmap,in_axes1,batched_value]", "jax.vmap(lambda x, p: lax.pad(x, p, ((0, 1, 1),)), "
     "in_axes=(1, 0))", X, "jnp.array([5.0, 6.0, 7.0])")

# ---------------------------------------------------------------- cumulative ops batch in place
both("cumsum[vmap,in_axes1]", "jax.vmap(lambda x: lax.cumsum(x, axis=0), in_axes=1)", T3)
both("cummax[vmap,in_axes2,reverse]", "jax.vmap(lambda x: lax.cummax(x, axis=1, reverse=True), "
     "in_axes=2)", T3)
both("cumprod[vmap,in_axes1,after]", "jax.vmap(lambda x: lax.cumprod(x, axis=1), in_axes=1)", T3)
both("cumsum[vmap,in_axes1][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.cumsum(x) ** 2)), "
     "in_axes=1)", X)

# ---------------------------------------------------------------- more batching rules, as JAX's
# (transpose: one transpose; rev, tile, unstack, clamp: the batch dimension stays put;
# dot_general: both batch dimensions join the dimension numbers, nothing is transposed;
# stack's transpose is unstack; top_k's JVP a gather; unbatched operands of concatenate and
# stack are broadcast with lax.broadcast)
BATCHED = {
    "transpose": "lambda x: x.T",
    "rev": "lambda x: lax.rev(x, (0,))",
    "tile": "lambda x: jnp.tile(x, (2, 1))",
    "matmul": "lambda x: x @ x.T",
    "einsum": "lambda x: jnp.einsum('ij,kj->ik', x, x)",
    "stack": "lambda x: jnp.stack([x, x])",
    "unstack": "lambda x: lax.stack(lax.unstack(x, axis=1), axis=0)",
    "top_k": "lambda x: lax.top_k(x, 2)[0]",
    "clamp": "lambda x: lax.clamp(-1.0, x, 1.0)",
    "concatenate[unbatched]": "lambda x: jnp.concatenate([x, jnp.ones(x.shape)])",
    "stack[unbatched]": "lambda x: jnp.stack([x, jnp.ones(x.shape)], axis=1)",
    "split[jnp]": "lambda x: jnp.split(x, [1], axis=1)[0]",
}
for name, fn in BATCHED.items():
    both(f"{name}[vmap,in_axes1]", f"jax.vmap({fn}, in_axes=1)", T3)
    jaxpr(f"{name}[vmap,in_axes2][grad]", f"jax.vmap(jax.grad(lambda x: jnp.sum(({fn})(x) ** 2)), "
          "in_axes=2)", T3)
    both(f"{name}[grad]", f"jax.grad(lambda x: jnp.sum(({fn})(x) ** 2))", "jnp.ones((3, 4)) * 0.5")
both("clamp[vmap,bounds]", "jax.vmap(lambda lo, x: lax.clamp(lo, x, 2.0), in_axes=(0, None))",
     "jnp.array([0.0, 1.0])", X)
both("clamp[vmap,arrays]", "jax.vmap(lambda lo, x, hi: lax.clamp(lo, x, hi), in_axes=(1, 1, 1))",
     X + " - 1.0", X, X + " + 1.0")
jaxpr("clamp[vmap,x_scalar]", "jax.vmap(lambda lo, x: lax.clamp(lo, x, lo + 1.0), "
      "in_axes=(0, None))", "jnp.array([0.0, 1.0])", "jnp.float32(0.5)")
both("dot_general[vmap,both,in_axes(1,2)]", "jax.vmap(lambda a, b: a @ b, in_axes=(1, 2))", T3,
     "jnp.ones((4, 2, 3))")
both("top_k[jacfwd]", "jax.jacfwd(lambda x: lax.top_k(x, 2)[0])", V)

# ---------------------------------------------------------------- reduce_prod's JVP: JAX's tree
# of multiplications (the reduced axes flattened in front by a reshape that permutes, whose
# transpose is a transpose), and reshape's dimensions as Python ints.
PRODS = {
    "all": ("lambda x: jnp.prod(x)", "jnp.arange(1.0, 6.0)"),
    "axis0": ("lambda x: jnp.prod(x, axis=0).sum()", "jnp.arange(12.0).reshape(3, 4) - 5"),
    "axis1": ("lambda x: jnp.prod(x, axis=1).sum()", "jnp.arange(12.0).reshape(3, 4) - 5"),
    "axes02": ("lambda x: jnp.prod(x, axis=(0, 2)).sum()", "jnp.arange(24.0).reshape(2, 3, 4) * 0.5"),
    "n1": ("lambda x: jnp.prod(x)", "jnp.array([3.0])"),
    "zeros": ("lambda x: jnp.prod(x)", "jnp.array([3.0, 0.0, 2.0, 0.0])"),
    "empty": ("lambda x: jnp.prod(x, axis=0).sum()", "jnp.ones((0, 3))"),
}
for name, (fn, arg) in PRODS.items():
    both(f"prod[{name}][grad]", f"jax.grad({fn})", arg)
    jaxpr(f"prod[{name}][vmap,last][grad]", f"jax.vmap(jax.grad({fn}), in_axes=-1)",
          f"jnp.stack([{arg}, {arg}], -1)")
    value(f"prod[{name}][jvp]", f"lambda x: jax.jvp({fn}, (x,), (jnp.ones_like(x),))", arg)
both("reshape[dimensions][grad]", "jax.grad(lambda x: jnp.sum(lax.reshape(x, (4, 3), (1, 0)) * "
     "jnp.arange(12.0).reshape(4, 3)))", "jnp.ones((3, 4))")

# ---------------------------------------------------------------- select_n's transpose, custom_jvp
both("select_n[int_which][grad]", "jax.grad(lambda x: jnp.sum(lax.select_n(jnp.array([[0, 1, 2, 1]]) "
     "* jnp.ones((3, 1), jnp.int32), x, -x, x * 2) ** 2))", "jnp.arange(12.0).reshape(3, 4) - 5")
both("select[bool][grad,both]", "jax.grad(lambda x, y: jnp.sum(lax.select(x > 0, x * y, y) ** 2), "
     "argnums=(0, 1))", V, V4 + "[:1] + " + V)
jaxpr("softplus[vmap,in_axes1]", "jax.vmap(jax.nn.softplus, in_axes=1)", T3)
jaxpr("softplus[vmap,in_axes2][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jax.nn.softplus(x))), "
      "in_axes=2)", T3)
jaxpr("softplus[jit][vmap,in_axes1]", "jax.vmap(jax.jit(jax.nn.softplus), in_axes=1)", T3)

# ---------------------------------------------------------------- dynamic_slice's JVP, window sums
both("dynamic_slice[jacfwd]", "jax.jacfwd(lambda x: lax.dynamic_slice(x, (1, 1), (2, 2)))",
     "jnp.arange(12.0).reshape(3, 4)")
both("sumpool[grad]", "jax.grad(lambda x: jnp.sum(lax.reduce_window(x, 0.0, lax.add, (2, 2), "
     "(1, 1), 'VALID') ** 2))", "jnp.arange(12.0).reshape(3, 4) * 0.25 - 1")
both("sumpool[strided][grad]", "jax.grad(lambda x: jnp.sum(lax.reduce_window(x, 0.0, lax.add, "
     "(2, 2), (2, 1), 'SAME') ** 2))", "jnp.arange(20.0).reshape(5, 4) * 0.25 - 1")

# ---------------------------------------------------------------- custom_jvp under vmap: the
# body's (or the rule's) batch dimensions are kept, as in JAX
jaxpr("relu[vmap,in_axes1]", "jax.vmap(jax.nn.relu, in_axes=1)", T3)
jaxpr("relu[vmap,in_axes2][grad]", "jax.vmap(jax.grad(lambda x: jnp.sum(jax.nn.relu(x) ** 2)), "
      "in_axes=2)", T3)
value("relu[vmap,in_axes1][value]", "jax.vmap(jax.nn.relu, in_axes=1)", T3)
both("relu[jvp][vmap,in_axes1]", "jax.vmap(lambda x, t: jax.jvp(jax.nn.relu, (x,), (t,)), "
     "in_axes=1)", T3, T3 + " * 0.0 + 1.0")
both("relu[vmap,in_axes1][jacrev]", "jax.jacrev(jax.vmap(jax.nn.relu, in_axes=1))",
     "jnp.arange(6.0).reshape(2, 3) - 2.5")
