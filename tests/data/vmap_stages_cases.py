"""Programs for viz.vmap_stages (issue 29), with the batch dimension real JAX 0.10.2 gives
each variable under ``vmap``: recorded in vmap_stages_recorded.json by running this file
with a Python that has jax:

    /tmp/jaxenv/bin/python tests/data/vmap_stages_cases.py tests/data/vmap_stages_recorded.json

Each case defines ``f``, ``args`` and ``in_axes``. The recording replays ``make_jaxpr(f)``
of one example under ``jax.vmap``, one equation at a time, and reads each output tracer's
``batch_dim`` (None: not batched); tests/test_viz_vmap_stages.py compares edujax's.
"""
CASES: dict[str, str] = {
    "sin_then_dot": """\
def f(x, w):
  y = jnp.sin(x) * 2.0
  z = jnp.dot(w, y)
  return z.sum() + w.sum()
args = (jnp.ones((5, 3)), jnp.ones((4, 3)))
in_axes = (0, None)
""",
    "dot_on_axis_1": """\
def f(x, y):
  return jnp.dot(x, y) + 1.0
args = (jnp.ones((3, 5)), jnp.ones((3, 5)))
in_axes = (1, 1)
""",
    "matvec_mixed_axes": """\
def f(a, b):
  return jnp.tanh(a @ b)
args = (jnp.ones((5, 2, 3)), jnp.ones((3, 5)))
in_axes = (0, 1)
""",
    "transpose_and_reduce": """\
def f(x):
  y = x.T * 2.0
  return y.sum(axis=0), jnp.exp(y)
args = (jnp.ones((6, 2, 3)),)
in_axes = 0
""",
    "where_with_unbatched": """\
def f(x, y):
  return jnp.where(x > 0, x, y)
args = (jnp.ones((4, 3)), jnp.ones(3))
in_axes = (0, None)
""",
    "selu": """\
def f(x, alpha=1.67, lmbda=1.05):
  return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
args = (jnp.ones((5, 3)),)
in_axes = 0
""",
    "batch_on_last_axis_out_moved": """\
def f(x, w):
  return jnp.dot(w, x) * 3.0
args = (jnp.ones((3, 7)), jnp.ones((2, 3)))
in_axes = (1, None)
""",
}


def _record_with_jax(out_path: str) -> None:
    import json

    import jax
    import jax.numpy as jnp
    import numpy as np
    import jax.extend.core
    from jax._src.interpreters import batching

    jax.config.update("jax_platforms", "cpu")
    records = {}
    for name, code in CASES.items():
        ns = {"jax": jax, "jnp": jnp, "np": np}
        exec(code, ns)
        f, args, in_axes = ns["f"], ns["args"], ns["in_axes"]
        leaves, tree = jax.tree_util.tree_flatten(args)
        axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(leaves)
        examples = [x if a is None else np.take(np.asarray(x), 0, axis=a)
                    for x, a in zip(leaves, axes)]
        closed = jax.make_jaxpr(f)(*jax.tree_util.tree_unflatten(tree, examples))
        seen: dict = {}

        def dim(x):
            return x.batch_dim if isinstance(x, batching.BatchTracer) else None

        def replay(*xs, closed=closed, seen=seen):
            env = dict(zip(closed.jaxpr.constvars, closed.consts))
            env.update(zip(closed.jaxpr.invars, xs))
            seen["inputs"] = [dim(x) for x in xs]
            seen["eqns"] = []
            read = (lambda v: v.val if isinstance(v, jax.extend.core.Literal) else env[v])
            for eqn in closed.jaxpr.eqns:
                params = eqn.primitive.get_bind_params(eqn.params)
                outs = eqn.primitive.bind(*map(read, eqn.invars), **params)
                outs = outs if eqn.primitive.multiple_results else [outs]
                env.update(zip(eqn.outvars, outs))
                seen["eqns"].append([eqn.primitive.name, [dim(o) for o in outs]])
            return [read(v) for v in closed.jaxpr.outvars]

        batched = jax.make_jaxpr(jax.vmap(replay, in_axes=tuple(axes)))(*leaves)
        direct = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args)
        records[name] = {"inputs": seen["inputs"], "eqns": seen["eqns"],
                         "batched_eqns": len(batched.eqns), "direct_eqns": len(direct.eqns)}
    with open(out_path, "w") as fh:
        json.dump(records, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    import sys
    _record_with_jax(sys.argv[1])
