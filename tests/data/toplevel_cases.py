"""Programs for the top level of the API (issue 17): recorded from real JAX by
record_toplevel.py into toplevel_recorded.json, replayed by tests/test_toplevel.py.

Each program sets ``out``; what it prints is recorded too (``jax.debug.print``, callbacks,
the calls of a custom rule), so the tests check how many times, and when, things print.
"""

_SIN2 = "def f(x):\n    return jnp.sin(jnp.sin(x))\n"
_PRINTS = ("@jax.custom_jvp\ndef f(x):\n    print('primal')\n    return jnp.sin(x)\n"
           "@f.defjvp\ndef f_jvp(primals, tangents):\n    (x,), (t,) = primals, tangents\n"
           "    print('rule')\n    if x > 0:\n        return f(x), 2. * t\n"
           "    return f(x), 3. * t\n")
_VJP_PRINTS = ("@jax.custom_vjp\ndef g(x):\n    print('primal')\n    return jnp.sin(x)\n"
               "def g_fwd(x):\n    print('fwd')\n    return g(x), jnp.cos(x)\n"
               "def g_bwd(c, ct):\n    print('bwd')\n    return (c * ct,)\n"
               "g.defvjp(g_fwd, g_bwd)\n")

CASES = {
    # ---------------------------------------------------------------- checkpoint / remat
    "checkpoint_jaxpr": _SIN2 + "out = str(make_jaxpr(jax.checkpoint(f))(1.0))",
    "checkpoint_grad_jaxpr": _SIN2 + "out = str(make_jaxpr(jax.grad(jax.checkpoint(f)))(1.0))",
    "remat_is_checkpoint": _SIN2 + "out = str(make_jaxpr(jax.remat(f))(1.0))",
    "checkpoint_grad_value": _SIN2 + "out = (jax.grad(jax.checkpoint(f))(1.0), jax.grad(f)(1.0))",
    "checkpoint_jit_grad": _SIN2 + "out = jax.jit(jax.grad(jax.checkpoint(f)))(0.5)",
    "checkpoint_vmap_grad": _SIN2 + "out = jax.vmap(jax.grad(jax.checkpoint(f)))(jnp.arange(3.))",
    "checkpoint_hessian": _SIN2 + "out = jax.hessian(jax.checkpoint(f))(1.0)",
    "checkpoint_policy_jaxpr": _SIN2 + (
        "out = str(make_jaxpr(jax.checkpoint(f, "
        "policy=jax.checkpoint_policies.dots_saveable))(1.0))"),
    "checkpoint_policy_names": (
        "from jax.ad_checkpoint import checkpoint_name\n"
        "def g(x):\n    return jnp.sin(checkpoint_name(jnp.sin(x), 'y'))\n"
        "out = str(make_jaxpr(jax.checkpoint(g, "
        "policy=jax.checkpoint_policies.save_only_these_names('y')))(1.0))"),
    "checkpoint_name_jaxpr": (
        "from jax.ad_checkpoint import checkpoint_name\n"
        "def g(x):\n    return jnp.sin(checkpoint_name(jnp.sin(x), 'y'))\n"
        "out = str(make_jaxpr(g)(1.0))"),
    "checkpoint_prevent_cse": "out = str(make_jaxpr(jax.checkpoint(jnp.sin, prevent_cse=False))(1.0))",
    "checkpoint_closure": (
        "c = jnp.arange(3.)\n"
        "out = str(make_jaxpr(jax.checkpoint(lambda x: x * c))(jnp.ones(3)))"),
    "checkpoint_grad_two_args": (
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(lambda x, y: jnp.sum(jnp.sin(x) * y))))"
        "(1., 2.))"),
    "checkpoint_grad_inner": (
        "out = str(make_jaxpr(jax.grad(lambda x: jax.checkpoint(lambda x: jnp.sin(x) * 3)(x)"
        " * 2))(1.))"),
    "checkpoint_jvp_jaxpr": (
        "out = str(make_jaxpr(lambda x: jax.jvp(jax.checkpoint(jnp.sin), (x,), (x,)))(1.))"),
    "checkpoint_vmap_jaxpr": "out = str(make_jaxpr(jax.vmap(jax.checkpoint(jnp.sin)))(jnp.ones(3)))",
    "checkpoint_pytree": (
        "def loss(p, x):\n    return jnp.sum(jnp.tanh(x @ p['w'] + p['b']) ** 2)\n"
        "p = {'w': jnp.ones((3, 2)) * 0.1, 'b': jnp.arange(2.)}\n"
        "x = jnp.arange(6.).reshape(2, 3)\n"
        "g1 = jax.grad(jax.checkpoint(loss))(p, x)\ng2 = jax.grad(loss)(p, x)\n"
        "out = (jax.tree.map(lambda a, b: bool(jnp.allclose(a, b)), g1, g2), g1['b'].round(4))"),
    "checkpoint_static_argnums": (
        "def g(x, n):\n    for _ in range(n):\n        x = jnp.sin(x)\n    return x\n"
        "out = jax.grad(jax.checkpoint(g, static_argnums=(1,)))(1.0, 3)"),
    "print_saved_residuals_checkpoint": (
        "from jax.ad_checkpoint import print_saved_residuals\n"
        "def g(x):\n    return jnp.sin(jnp.sin(x))\n"
        "print_saved_residuals(jax.checkpoint(g), 1.)\nout = None"),
    "policy_save_names_grad": (
        "from jax.ad_checkpoint import checkpoint_name\n"
        "def g(x):\n    return jnp.sin(checkpoint_name(jnp.sin(x), 'y'))\n"
        "cp = jax.checkpoint_policies\n"
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(g, "
        "policy=cp.save_only_these_names('y'), prevent_cse=False)))(1.))"),
    "policy_save_names_but_these_grad": (
        "from jax.ad_checkpoint import checkpoint_name\n"
        "def g(x):\n    return jnp.sin(checkpoint_name(jnp.sin(x), 'y'))\n"
        "cp = jax.checkpoint_policies\n"
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(g, "
        "policy=cp.save_any_names_but_these('y'))))(1.))"),
    "policy_dots_grad": (
        "def h(w, x):\n    return jnp.sum(jnp.sin(jnp.tanh(x @ w)))\n"
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(h, policy=jax.checkpoint_policies."
        "dots_saveable)))(jnp.ones((2, 2)), jnp.ones((2, 2))))"),
    "policy_dots_no_batch_grad": (
        "def h(w, x):\n    return jnp.sum(jnp.sin(jnp.tanh(x @ w)))\n"
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(h, policy=jax.checkpoint_policies."
        "dots_with_no_batch_dims_saveable)))(jnp.ones((2, 2)), jnp.ones((2, 2))))"),
    "policy_everything_grad": (
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), "
        "policy=jax.checkpoint_policies.everything_saveable)))(1.))"),
    "policy_nothing_grad": (
        "out = str(make_jaxpr(jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), "
        "policy=jax.checkpoint_policies.nothing_saveable)))(1.))"),
    "reduce_precision": (
        "out = (lax.reduce_precision(jnp.array([1e6, 1e-9, np.nan, -7e4, 65504., 0.1]), 5, 10),"
        " str(make_jaxpr(jax.grad(lambda x: lax.reduce_precision(x, 8, 23) * x))(1.)))"),
    "checkpoint_debug_print_grad": (
        "def f(x):\n    jax.debug.print('x={}', x)\n    return jnp.sin(jnp.sin(x))\n"
        "a = jax.grad(jax.checkpoint(f))(1.)\nb = jax.jit(jax.grad(jax.checkpoint(f)))(1.)\n"
        "out = (a, b, str(make_jaxpr(jax.grad(jax.checkpoint(f)))(1.)))"),
    "checkpoint_name_linear_transpose": (
        "from jax.ad_checkpoint import checkpoint_name\n"
        "out = jax.linear_transpose(lambda x: checkpoint_name(x * 3., 'y'), 1.)(2.)"),
    "policy_reprs": (
        "cp = jax.checkpoint_policies\n"
        "out = (repr(cp.dots_with_no_batch_dims_saveable), repr(cp.save_only_these_names('a')))"),
    # ---------------------------------------------------------------- jax.debug
    "debug_print_jaxpr": (
        "def g(x):\n    jax.debug.print('x={x}', x=x)\n    return x * 2\n"
        "out = str(make_jaxpr(g)(1.0))"),
    "debug_print_jit_runs_each_call": (
        "@jax.jit\ndef g(x):\n    jax.debug.print('x={x} y={}', x * 2, x=x)\n    return x * 2\n"
        "g(1.0)\ng(2.0)\nout = g(jnp.arange(3.))"),
    "debug_print_eager": "jax.debug.print('eager {} {a}', 1, a=jnp.arange(3))\nout = None",
    "debug_print_format_spec": "jax.debug.print('x: {:.2f}', 1.234)\nout = None",
    "debug_print_grad_jaxpr": (
        "def g(x):\n    jax.debug.print('x={x} y={}', x * 2, x=x)\n    return jnp.sum(x * 2)\n"
        "out = str(make_jaxpr(jax.grad(g))(jnp.ones(2)))"),
    "debug_print_grad_prints_primal": (
        "def g(x):\n    jax.debug.print('x={x}', x=x)\n    return jnp.sum(x * 2)\n"
        "out = jax.grad(g)(jnp.ones(2))"),
    "debug_print_vmap": (
        "def g(x):\n    jax.debug.print('x={x} y={}', x * 2, x=x)\n    return jnp.sum(x * 2)\n"
        "out = jax.vmap(g)(jnp.arange(4.).reshape(2, 2))"),
    "debug_print_vmap_jaxpr": (
        "def g(x):\n    jax.debug.print('x={x}', x=x)\n    return x\n"
        "out = str(make_jaxpr(jax.vmap(g))(jnp.arange(4.).reshape(2, 2)))"),
    "debug_print_ordered_jaxpr": (
        "out = str(make_jaxpr(lambda x: jax.debug.print('hi', ordered=True))(1.))"),
    "debug_print_inside_scan": (
        "def body(c, x):\n    jax.debug.print('c={c} x={x}', c=c, x=x)\n    return c + x, c\n"
        "out = jax.jit(lambda xs: lax.scan(body, 0., xs))(jnp.arange(3.))"),
    "debug_callback_jit": (
        "def h(x):\n    jax.debug.callback(lambda v: print('cb', v, type(v).__name__ == 'ArrayImpl'"
        " or type(v).__name__ == 'Array'), x)\n    return x\n"
        "out = (jax.jit(h)(1.), jax.jit(h)(2.))"),
    "debug_callback_vmap": (
        "def h(x):\n    jax.debug.callback(lambda v: print('cb', v), x)\n    return x\n"
        "out = jax.vmap(h)(jnp.arange(2.))"),
    "debug_callback_jaxpr": (
        "def h(x):\n    jax.debug.callback(print, x)\n    return x\n"
        "out = str(make_jaxpr(h)(1.))"),
    "debug_callback_grad": (
        "def h(x):\n    jax.debug.callback(lambda v: print('cb', v), x)\n    return jnp.sin(x)\n"
        "out = jax.grad(h)(1.)"),
    # ---------------------------------------------------------------- pure_callback
    "pure_callback_jaxpr": (
        "def p(x):\n    return jax.pure_callback(lambda x: x * 2, "
        "jax.ShapeDtypeStruct((), jnp.float32), x)\n"
        "out = str(make_jaxpr(p)(1.0))"),
    "pure_callback_jit": (
        "def p(x):\n    return jax.pure_callback(lambda x: np.sin(x), "
        "jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n"
        "out = jax.jit(p)(jnp.arange(3.))"),
    "pure_callback_vmap_sequential": (
        "def p(x):\n    return jax.pure_callback(lambda x: (print('call', x.shape), np.sin(x))[1],"
        " jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method='sequential')\n"
        "out = jax.vmap(p)(jnp.arange(2.))"),
    "pure_callback_vmap_expand_dims": (
        "def p(x):\n    return jax.pure_callback(lambda x: (print('call', x.shape), np.sin(x))[1],"
        " jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method='expand_dims')\n"
        "out = (jax.vmap(p)(jnp.arange(2.)), str(make_jaxpr(jax.vmap(p))(jnp.arange(2.))))"),
    "pure_callback_vmap_broadcast_all": (
        "def p(x, y):\n    return jax.pure_callback(lambda x, y: (print('call', x.shape, y.shape),"
        " x + y)[1], jax.ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method='broadcast_all')\n"
        "out = jax.vmap(p, in_axes=(0, None))(jnp.arange(2.), 1.)"),
    "pure_callback_vmap_no_method": (
        "def p(x):\n    return jax.pure_callback(lambda x: np.sin(x), "
        "jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n"
        "out = jax.vmap(p)(jnp.arange(2.))"),
    "pure_callback_grad": (
        "def p(x):\n    return jax.pure_callback(lambda x: np.sin(x), "
        "jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n"
        "out = jax.grad(p)(1.)"),
    "pure_callback_pytree": (
        "out = jax.pure_callback(lambda d: {'s': d['a'] + d['b']}, "
        "{'s': jax.ShapeDtypeStruct((2,), jnp.float32)}, {'a': jnp.ones(2), 'b': jnp.ones(2)})"),
    # ---------------------------------------------------------------- shapes and types
    "eval_shape_scalar": _SIN2 + "out = jax.eval_shape(f, 1.0)",
    "eval_shape_matmul": "out = jax.eval_shape(lambda x: x @ x, jnp.ones((3, 3)))",
    "eval_shape_struct": (
        "out = jax.eval_shape(lambda x, y: {'a': x + y}, "
        "jax.ShapeDtypeStruct((2,), jnp.float32), 1)"),
    "eval_shape_int": "out = jax.eval_shape(jnp.argmax, jax.ShapeDtypeStruct((5, 4), jnp.float32))",
    "typeof": "out = (jax.typeof(1.0), jax.typeof(jnp.ones(3)), jax.typeof(jnp.arange(2)))",
    "sharding": "out = (jnp.ones(3).sharding, jnp.ones(3).sharding.is_fully_replicated)",
    "sharding_device_set": "out = jnp.ones(3).sharding.device_set == {jax.devices()[0]}",
    # ---------------------------------------------------------------- small transformations
    "disable_jit": (
        "f = jax.jit(lambda x: (print(type(x).__name__), x * 2)[1])\n"
        "with jax.disable_jit():\n    a = f(1.)\nout = a"),
    "disable_jit_config": (
        "f = jax.jit(lambda x: (print(isinstance(x, float)), x * 2)[1])\n"
        "jax.config.update('jax_disable_jit', True)\n"
        "try:\n    a = f(1.)\nfinally:\n    jax.config.update('jax_disable_jit', False)\nout = a"),
    "jacobian": "out = jax.jacobian(lambda x: jnp.sin(x) * x)(jnp.arange(3.))",
    "linear_transpose": (
        "f_t = jax.linear_transpose(lambda x, y: (x * 2. + y, x), 1., 2.)\nout = f_t((3., 4.))"),
    "linear_transpose_struct": (
        "out = jax.linear_transpose(lambda x: jnp.sum(x), "
        "jax.ShapeDtypeStruct((3,), jnp.float32))(1.)"),
    "linear_transpose_matmul": (
        "m = jnp.arange(6.).reshape(2, 3)\n"
        "out = jax.linear_transpose(lambda x: m @ x, jnp.ones(3))(jnp.array([1., 2.]))"),
    "linear_transpose_not_linear": "out = jax.linear_transpose(jnp.sin, 1.)(1.)",
    "linear_transpose_affine": "out = jax.linear_transpose(lambda x: x + 1., 1.)(1.)",
    "linear_transpose_bad_tree": (
        "f_t = jax.linear_transpose(lambda x, y: (x * 2. + y, x), 1., 2.)\nout = f_t(3.)"),
    "custom_gradient": (
        "@jax.custom_gradient\ndef f(x):\n    return x ** 2, lambda g: (g * x,)\n"
        "out = (jax.grad(f)(3.), f(3.), str(make_jaxpr(jax.grad(f))(3.)))"),
    "custom_gradient_vmap": (
        "@jax.custom_gradient\ndef f(x):\n    return x ** 2, lambda g: (g * x,)\n"
        "out = jax.vmap(jax.grad(f))(jnp.arange(3.))"),
    "custom_gradient_jit": (
        "@jax.custom_gradient\ndef clip_gradient(x):\n"
        "    return x, lambda g: (jnp.clip(g, -1., 1.),)\n"
        "out = jax.jit(jax.grad(lambda x: 5. * clip_gradient(x)))(2.)"),
    "closure_convert_concrete": (
        "def g(x, y):\n    def h(z):\n        return z * x + y\n"
        "    c, consts = jax.closure_convert(h, 1.)\n    return consts, c(2., *consts)\n"
        "out = g(jnp.float32(3.), 4.)"),
    "closure_convert_traced": (
        "def g(x, y):\n    def h(z):\n        return z * x + y\n"
        "    c, consts = jax.closure_convert(h, 1.)\n    return len(consts), c(2., *consts)\n"
        "out = jax.jit(g)(3., 4.)"),
    "named_call": "out = str(make_jaxpr(jax.named_call(jnp.sin, name='s'))(1.))",
    "named_call_value": "out = jax.named_call(jnp.sin, name='s')(1.)",
    "named_scope": (
        "def k(x):\n    with jax.named_scope('s'):\n        return jnp.sin(x)\n"
        "out = str(make_jaxpr(k)(1.))"),
    "named_scope_not_str": "out = jax.named_scope(3)",
    "ensure_compile_time_eval": (
        "def g(x):\n    with jax.ensure_compile_time_eval():\n        y = jnp.sin(3.)\n"
        "        print(y)\n    return x * y\n"
        "out = float(jax.jit(g)(2.))"),
    "ensure_compile_time_eval_traced": (
        "def g(x):\n    with jax.ensure_compile_time_eval():\n        return x * 2\n"
        "out = str(make_jaxpr(g)(1.))"),
    # ---------------------------------------------------------------- behaviours
    "vjp_is_partial": (
        "y, vf = jax.vjp(jnp.sin, 1.0)\n"
        "out = (type(vf).__name__, jax.tree_util.tree_leaves(vf))"),
    "vjp_through_jit": (
        "y, vf = jax.vjp(jnp.sin, 1.0)\nout = jax.jit(lambda vf, c: vf(c))(vf, 1.0)"),
    "vjp_returned_from_jit": (
        "def fwd(x):\n    return jax.vjp(lambda x: x * jnp.cos(x), x)\n"
        "y, vf = jax.jit(fwd)(2.0)\nout = (y, vf(1.0))"),
    "vjp_tree_map": (
        "y, vf = jax.vjp(lambda x: jnp.sin(x) * 2, jnp.arange(3.))\n"
        "vf2 = jax.tree.map(lambda r: r, vf)\nout = vf2(jnp.ones(3))"),
    "vjp_bad_cotangent_tree": (
        "y, vf = jax.vjp(lambda x: (x, x), 1.0)\nout = vf(1.0)"),
    "linearize_is_partial": (
        "y, f_jvp = jax.linearize(jnp.sin, 1.)\n"
        "out = (type(f_jvp).__name__, jax.tree.leaves(f_jvp), jax.jit(lambda f, t: f(t))(f_jvp, 2.))"),
    "linearize_pytree": (
        "y, f_jvp = jax.linearize(lambda p: p['a'] * jnp.sin(p['b']), {'a': 2., 'b': 1.})\n"
        "out = f_jvp({'a': 1., 'b': 1.})"),
    "custom_jvp_calls_under_jvp": _PRINTS + "out = jax.jvp(f, (1.,), (1.,))",
    "custom_jvp_calls_under_grad": _PRINTS + "out = jax.grad(f)(1.)",
    "custom_jvp_control_flow_grad": _PRINTS + "out = (jax.grad(f)(1.), jax.grad(f)(-1.))",
    "custom_jvp_calls_eager": _PRINTS + "out = f(1.)",
    "custom_jvp_calls_under_jit_grad": _PRINTS.replace("    if x > 0:\n        return f(x), 2. * t\n", "") + "out = jax.jit(jax.grad(f))(1.)",
    "custom_jvp_calls_under_grad_of_vmap": (
        _PRINTS + "out = jax.grad(lambda x: jnp.sum(jax.vmap(f)(x)))(jnp.ones(2))"),
    "custom_jvp_calls_under_vmap_of_grad": _PRINTS + "out = jax.vmap(jax.grad(f))(jnp.ones(2))",
    # (float(): edujax's zero Jacobian here is not weak-typed, JAX's is: a known difference.)
    "custom_jvp_calls_under_hessian": _PRINTS.replace(
        "    if x > 0:\n        return f(x), 2. * t\n", "") + "out = float(jax.hessian(f)(1.))",
    "custom_vjp_calls_under_vmap_of_grad": _VJP_PRINTS + "out = jax.vmap(jax.grad(g))(jnp.ones(2))",
    "custom_vjp_calls_under_grad_of_jit": _VJP_PRINTS + "out = jax.grad(jax.jit(g))(1.)",
    "custom_vjp_calls_under_grad": _VJP_PRINTS + "out = jax.grad(g)(1.)",
    "custom_vjp_calls_under_vjp": _VJP_PRINTS + "y, vf = jax.vjp(g, 1.)\nout = (y, vf(1.))",
    "custom_vjp_calls_under_jit_grad": _VJP_PRINTS + "out = jax.jit(jax.grad(g))(1.)",
    "ones_traced_shape": "out = jax.jit(lambda n: jnp.ones((n,)))(3)",
    "ones_traced_int": "out = jax.jit(lambda n: jnp.ones(n))(3)",
    "zeros_traced_shape": "out = jax.jit(lambda n: jnp.zeros((2, n)))(3)",
    "full_traced_shape": "out = jax.jit(lambda n: jnp.full((n,), 1.))(3)",
    "reshape_traced_shape": "out = jax.jit(lambda x, n: jnp.reshape(x, (n,)))(jnp.ones(3), 3)",
    "broadcast_to_traced_shape": (
        "out = jax.jit(lambda x, n: jnp.broadcast_to(x, (n,)))(jnp.ones(3), 3)"),
    "zeros_float_shape": "out = jnp.zeros((2.5,))",
    "ones_grad_concrete_shape": (
        "out = jax.grad(lambda x: jnp.sum(jnp.ones((3,)) * x))(2.)"),
    "rem_grad_broadcast": (
        "out = jax.grad(lambda x, y: jnp.sum(x % y), argnums=(0, 1))"
        "(jnp.array([1., 2., 3.5]), jnp.array([[1.5], [2.]]))"),
    "rem_grad_broadcast_fmod": (
        "out = jax.grad(lambda x, y: jnp.sum(jnp.fmod(x, y)), argnums=(0, 1))"
        "(jnp.array([1., 2., 3.5]), jnp.array([[1.5], [2.]]))"),
    "rem_grad_scalar": "out = jax.grad(lambda x: jnp.sum(jnp.arange(4.) % x))(1.5)",
    "reduction_accuracy": (
        "x = jnp.asarray(np.random.RandomState(0).rand(10000, 10).astype(np.float32) * 100)\n"
        "out = [bool(jnp.allclose(fn(x, axis=0), jax.jit(lambda x: fn(x, axis=0))(x), rtol=0,"
        " atol=1e-6 * float(jnp.max(jnp.abs(fn(x, axis=0))))))"
        " for fn in (jnp.mean, jnp.sum, jnp.var, jnp.std)]"),
    # ---------------------------------------------------------------- jax.tree and extend
    "tree_static": (
        "import dataclasses\n@jax.tree_util.register_dataclass\n@dataclasses.dataclass\n"
        "class A:\n    x: float\n    n: int = jax.tree.static(default=3)\n"
        "out = (jax.tree.leaves(A(1.0)), jax.tree.structure(A(1.0)))"),
    "tree_broadcast": "out = jax.tree.broadcast([1, 2], [(3, 4), {'a': 5}])",
    "tree_reduce_associative": "out = jax.tree.reduce_associative(lambda a, b: a + b, [1, (2, 3)])",
    "extend_core_interpreter": (
        "from jax.extend import core as jcore\n"
        "cj = make_jaxpr(lambda x: x * 2. + 1.)(3.)\n"
        "eqn = cj.jaxpr.eqns[0]\n"
        "out = (eqn.primitive.name, [type(v).__name__ for v in eqn.invars],"
        " [float(v.val) for v in eqn.invars if isinstance(v, jcore.Literal)],"
        " isinstance(cj, jcore.ClosedJaxpr), isinstance(cj.jaxpr, jcore.Jaxpr),"
        " isinstance(eqn, jcore.JaxprEqn), isinstance(eqn.outvars[0], jcore.Var),"
        " jcore.jaxpr_as_fun(cj)(3.))"),
    "extend_core_eqn_repr": (
        "cj = make_jaxpr(lambda x: x * 2. + jnp.arange(3.))(jnp.ones(3))\n"
        "out = (repr(cj.eqns[0]), repr(cj.eqns[0].invars[1]), cj.literals)"),
    "extend_core_primitive": (
        "from jax.extend import core as jcore\n"
        "p = jcore.Primitive('foo')\n"
        "out = (str(p), jcore.primitives.sin_p is make_jaxpr(jnp.sin)(1.).eqns[0].primitive)"),
    "closed_jaxpr_literals": (
        "c = jnp.arange(3.)\nout = make_jaxpr(lambda x: x + c)(jnp.ones(3)).literals"),
    "block_until_ready": "out = jax.block_until_ready({'a': jnp.ones(2)})",
    # ---------------------------------------------------------------- where it runs
    "processes": "out = (jax.process_index(), jax.process_count(), jax.effects_barrier())",
    "enable_x64": (
        "with jax.enable_x64(True):\n    a = jnp.ones(2).dtype\nout = (a, jnp.ones(2).dtype)"),
    "default_device": (
        "with jax.default_device(jax.devices()[0]):\n    out = jnp.ones(2).device"),
    "device_class": "out = isinstance(jax.devices()[0], jax.Device)",
}
