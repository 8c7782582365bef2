"""Programs whose JAX results are recorded in lax_breadth_recorded.json (see record_from_jax.py).

Issue 17's lax slice: convolutions, windowed reductions, top_k, the bit primitives, unstack,
the general reduce, associative_scan, the public gather/scatter API and small conveniences.
Values go through ``r(x)``: dtype, shape and values rounded to 3 decimals (XLA's and NumPy's
float32 sums may differ in the last bits).
"""
HELPER = ("def r(x):\n"
          "    x = jnp.asarray(x)\n"
          "    return (str(x.dtype), tuple(x.shape), "
          "(np.round(np.asarray(x, np.float64), 3) + 0.0).tolist())\n")

# a 1x2x5x5 image (NCHW) and a 3x2x3x3 kernel (OIHW), small integers as floats
IMG = "x = (jnp.arange(50.).reshape(1, 2, 5, 5) % 7) - 3\n"
KER = "w = (jnp.arange(54.).reshape(3, 2, 3, 3) % 5) - 2\n"
XW = IMG + KER
SIG = "s = jnp.array([1., 3., 2., 5., 4., 0., -1., 2.])\n"
M = "m = jnp.array([[1., 5., 2.], [7., 3., 3.], [0., 8., -2.], [4., 4., 6.]])\n"
X64 = ("jax.config.update('jax_enable_x64', True)\ntry:\n    {}\n"
       "finally:\n    jax.config.update('jax_enable_x64', False)")
CONV = "lax.conv_general_dilated"
SOLVE = ("A = jnp.array([[4., 1.], [1., 3.]])\nN = jnp.array([[4., 1.], [2., 3.]])\nb = jnp.array([1., 2.])\n"
         "sym = lambda A, b: lax.custom_linear_solve(lambda x: A @ x, b, "
         "lambda mv, r: jnp.linalg.solve(A, r), symmetric=True)\n"
         "gen = lambda A, b: lax.custom_linear_solve(lambda x: A @ x, b, "
         "lambda mv, r: jnp.linalg.solve(A, r), lambda vm, r: jnp.linalg.solve(A.T, r))\n")
ROOT = ("def sqrt_newton(c):\n"
        "    fn = lambda x: x ** 2 - c\n"
        "    solve = lambda fn, x0: lax.fori_loop(0, 20, lambda i, x: x - fn(x) / (2 * x), x0)\n"
        "    return lax.custom_root(fn, 1.0, solve, lambda g, y: y / g(1.0))\n")

_CASES = {
    # ------------------------------------------------------------ convolutions: values
    "conv_valid": XW + "out = r(lax.conv(x, w, (1, 1), 'VALID'))",
    "conv_same": XW + "out = r(lax.conv(x, w, (1, 1), 'SAME'))",
    "conv_strided": XW + "out = r(lax.conv(x, w, (2, 2), 'SAME'))",
    "conv_strided_valid": XW + "out = r(lax.conv(x, w, (2, 1), 'VALID'))",
    "conv_explicit_pad": XW + f"out = r({CONV}(x, w, (1, 1), ((2, 0), (1, 1))))",
    "conv_negative_pad": XW + f"out = r({CONV}(x, w, (1, 1), ((-1, 0), (0, -1))))",
    "conv_same_lower": XW + f"out = r({CONV}(x, w, (2, 2), 'SAME_LOWER'))",
    "conv_lhs_dilation": XW + f"out = r({CONV}(x, w, (1, 1), ((1, 1), (0, 0)), lhs_dilation=(2, 1)))",
    "conv_rhs_dilation": XW + f"out = r({CONV}(x, w, (1, 1), 'SAME', rhs_dilation=(2, 2)))",
    "conv_with_general_padding": XW + "out = r(lax.conv_with_general_padding(x, w, (1, 2), ((1, 0), (2, 1)), (1, 2), (2, 1)))",
    "conv_feature_groups": IMG + "w = jnp.arange(36.).reshape(4, 1, 3, 3) % 3 - 1\n"
    f"out = r({CONV}(x, w, (1, 1), 'VALID', feature_group_count=2))",
    "conv_depthwise": IMG + "w = jnp.arange(18.).reshape(2, 1, 3, 3) % 4 - 1\n"
    f"out = r({CONV}(x, w, (1, 1), 'SAME', feature_group_count=2))",
    "conv_batch_groups": "x = jnp.arange(40.).reshape(2, 1, 4, 5) % 5 - 2\n"
    "w = jnp.arange(36.).reshape(4, 1, 3, 3) % 3 - 1\n"
    f"out = r({CONV}(x, w, (1, 1), 'VALID', batch_group_count=2))",
    "conv_nhwc": XW + f"out = r({CONV}(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC')))",
    "conv_mixed_layouts": XW + f"out = r({CONV}(x, w.transpose(2, 3, 1, 0), (1, 2), 'VALID', dimension_numbers=('NCHW', 'HWIO', 'NHWC')))",
    "conv_1d": "x = jnp.arange(10.).reshape(1, 1, 10)\nw = jnp.array([[[1., 0., -1.]]])\n"
    "out = r(lax.conv(x, w, (1,), 'VALID'))",
    "conv_3d": "x = jnp.ones((1, 1, 3, 4, 4))\nw = jnp.ones((2, 1, 2, 2, 2))\n"
    "out = r(lax.conv(x, w, (1, 2, 1), 'SAME'))",
    "conv_int32": "x = jnp.arange(16, dtype=jnp.int32).reshape(1, 1, 4, 4)\n"
    "w = jnp.ones((1, 1, 2, 2), jnp.int32)\nout = r(lax.conv(x, w, (1, 1), 'VALID'))",
    "conv_preferred_f32_from_int": "x = jnp.arange(16, dtype=jnp.int8).reshape(1, 1, 4, 4)\n"
    "w = jnp.ones((1, 1, 2, 2), jnp.int8)\nout = r(lax.conv(x, w, (1, 1), 'VALID', preferred_element_type=jnp.int32))",
    "conv_f16": "x = jnp.ones((1, 1, 3, 3), jnp.float16)\nw = jnp.ones((1, 1, 2, 2), jnp.float16)\n"
    "out = r(lax.conv(x, w, (1, 1), 'VALID'))",
    "conv_weak_type": "out = lax.conv(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2, 2)), (1, 1), 'VALID').weak_type",
    "conv_empty_output": XW + f"out = r({CONV}(x, w, (1, 1), ((0, 0), (-3, 0))))",
    "conv_transpose_same": "x = jnp.arange(2. * 3 * 3 * 2).reshape(2, 3, 3, 2) % 5\n"
    "w = jnp.arange(3. * 3 * 2 * 4).reshape(3, 3, 2, 4) % 3 - 1\n"
    "out = r(lax.conv_transpose(x, w, (2, 2), 'SAME'))",
    "conv_transpose_valid": "x = jnp.arange(2. * 3 * 3 * 2).reshape(2, 3, 3, 2) % 5\n"
    "w = jnp.arange(3. * 3 * 2 * 4).reshape(3, 3, 2, 4) % 3 - 1\n"
    "out = r(lax.conv_transpose(x, w, (2, 1), 'VALID'))",
    "conv_transpose_kernel": "x = jnp.arange(1. * 3 * 3 * 2).reshape(1, 3, 3, 2) % 5\n"
    "w = jnp.arange(3. * 3 * 4 * 2).reshape(3, 3, 4, 2) % 3 - 1\n"
    "out = r(lax.conv_transpose(x, w, (2, 2), 'SAME', transpose_kernel=True))",
    "conv_transpose_pairs": "x = jnp.ones((1, 4, 1))\nw = jnp.array([1., 2., 3.]).reshape(3, 1, 1)\n"
    "out = r(lax.conv_transpose(x, w, (2,), ((1, 1),)))",
    "conv_transpose_consistent": "x = jnp.ones((1, 4, 1))\nw = jnp.array([1., 2., 3.]).reshape(3, 1, 1)\n"
    "out = r(lax.conv_transpose(x, w, (2,), ((1, 1),), use_consistent_padding=True))",
    # ------------------------------------------------------------ convolutions: helpers
    "conv_dimension_numbers_none": "out = lax.conv_dimension_numbers((1, 2, 5, 5), (3, 2, 3, 3), None)",
    "conv_dimension_numbers_strings": "out = lax.conv_dimension_numbers((1, 5, 5, 2), (3, 3, 2, 4), ('NHWC', 'HWIO', 'NHWC'))",
    "conv_dimension_numbers_passthrough": "dn = lax.ConvDimensionNumbers((0, 1, 2), (1, 0, 2), (0, 1, 2))\n"
    "out = lax.conv_dimension_numbers((1, 2, 3), (2, 2, 1), dn) is dn",
    "conv_general_permutations": "out = lax.conv_general_permutations(('NWHC', 'HWOI', 'CNHW'))",
    "conv_shape_tuple": "out = lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), 'SAME')",
    "conv_shape_tuple_pairs": "out = lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (1, 3), ((1, 0), (2, 2)))",
    "conv_general_shape_tuple": "out = lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (1, 1), 'VALID', ('NHWC', 'HWIO', 'NHWC'))",
    "conv_transpose_shape_tuple": "out = lax.conv_transpose_shape_tuple((2, 4, 4, 3), (3, 3, 3, 5), (2, 2), 'SAME', ('NHWC', 'HWIO', 'NHWC'))",
    "padtype_to_pads_same": "out = lax.padtype_to_pads((5, 6), (3, 2), (2, 2), 'SAME')",
    "padtype_to_pads_same_lower": "out = lax.padtype_to_pads((5, 6), (4, 2), (1, 3), 'SAME_LOWER')",
    "padtype_to_pads_valid": "out = lax.padtype_to_pads((5, 6), (3, 2), (2, 2), 'VALID')",
    "padtype_to_pads_lowercase": "out = lax.padtype_to_pads((7,), (3,), (2,), 'same')",
    "padtype_to_pads_bad": "out = lax.padtype_to_pads((7,), (3,), (2,), 'FULL')",
    # ------------------------------------------------------------ convolutions: errors
    "conv_err_dtypes": "out = lax.conv(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2, 2), jnp.int32), (1, 1), 'VALID')",
    "conv_err_features": "out = lax.conv(jnp.ones((1, 2, 3, 3)), jnp.ones((1, 3, 2, 2)), (1, 1), 'VALID')",
    "conv_err_group_divides": f"out = {CONV}(jnp.ones((1, 3, 3, 3)), jnp.ones((2, 1, 2, 2)), (1, 1), 'VALID', feature_group_count=2)",
    "conv_err_out_groups": f"out = {CONV}(jnp.ones((1, 4, 3, 3)), jnp.ones((3, 2, 2, 2)), (1, 1), 'VALID', feature_group_count=2)",
    "conv_err_both_groups": f"out = {CONV}(jnp.ones((2, 2, 3, 3)), jnp.ones((4, 1, 2, 2)), (1, 1), 'VALID', feature_group_count=2, batch_group_count=2)",
    "conv_err_batch_group": f"out = {CONV}(jnp.ones((3, 1, 3, 3)), jnp.ones((2, 1, 2, 2)), (1, 1), 'VALID', batch_group_count=2)",
    "conv_err_ndim": "out = lax.conv(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2)), (1, 1), 'VALID')",
    "conv_err_strides": "out = lax.conv(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2, 2)), (1,), 'VALID')",
    "conv_err_string_pad_lhs_dilation": f"out = {CONV}(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2, 2)), (1, 1), 'SAME', lhs_dilation=(2, 2))",
    "conv_err_bad_padding": f"out = {CONV}(jnp.ones((1, 1, 3, 3)), jnp.ones((1, 1, 2, 2)), (1, 1), (1, 2))",
    "conv_err_dn_chars": "out = lax.conv_dimension_numbers((1, 2, 3, 3), (1, 2, 2, 2), ('NCHW', 'OIHW', 'NXHW'))",
    "conv_err_dn_len": "out = lax.conv_dimension_numbers((1, 2, 3, 3), (1, 2, 2, 2), ('NCH', 'OIHW', 'NCHW'))",
    "conv_err_dn_type": "out = lax.conv_dimension_numbers((1, 2, 3, 3), (1, 2, 2, 2), 'NCHW')",
    "conv_err_negative_pad_too_big": XW + f"out = {CONV}(x, w, (1, 1), ((-6, 0), (0, 0)))",
    # ------------------------------------------------------------ convolutions: transformations
    "conv_jaxpr": "out = str(make_jaxpr(lambda x, w: lax.conv(x, w, (1, 1), 'SAME'))(jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3))))",
    "conv_jaxpr_nhwc": "out = str(make_jaxpr(lambda x, w: lax.conv_general_dilated(x, w, (2, 1), 'VALID', rhs_dilation=(1, 2), dimension_numbers=('NHWC', 'HWIO', 'NHWC'), feature_group_count=2))(jnp.ones((1, 7, 7, 4)), jnp.ones((3, 2, 2, 6))))",
    "conv_grad_lhs": XW + "out = r(jax.grad(lambda x: (lax.conv(x, w, (2, 1), 'SAME') ** 2).sum())(x))",
    "conv_grad_rhs": XW + "out = r(jax.grad(lambda w: (lax.conv(x, w, (1, 2), 'VALID') ** 2).sum())(w))",
    "conv_grad_dilated_groups": IMG + "w = jnp.arange(36.).reshape(4, 1, 3, 3) % 3 - 1\n"
    f"f = lambda x, w: ({CONV}(x, w, (2, 1), ((1, 0), (2, 1)), lhs_dilation=(1, 2), rhs_dilation=(2, 1), feature_group_count=2) ** 2).sum()\n"
    "gx, gw = jax.grad(f, (0, 1))(x, w)\nout = (r(gx), r(gw))",
    "conv_grad_batch_groups": "x = jnp.arange(40.).reshape(2, 1, 4, 5) % 5 - 2\n"
    "w = jnp.arange(36.).reshape(4, 1, 3, 3) % 3 - 1\n"
    f"f = lambda x, w: ({CONV}(x, w, (1, 1), 'SAME', batch_group_count=2) ** 2).sum()\n"
    "gx, gw = jax.grad(f, (0, 1))(x, w)\nout = (r(gx), r(gw))",
    "conv_jvp": XW + "p, t = jax.jvp(lambda x, w: lax.conv(x, w, (1, 1), 'VALID'), (x, w), (jnp.ones_like(x), w))\nout = (r(p), r(t))",
    "conv_vmap_lhs": XW + "out = r(jax.vmap(lambda x: lax.conv(x[None], w, (1, 1), 'SAME'))(jnp.concatenate([x, 2 * x])))",
    "conv_vmap_rhs": XW + "out = r(jax.vmap(lambda w: lax.conv(x, w, (1, 1), 'VALID'))(jnp.stack([w, -w])))",
    "conv_vmap_both": XW + "out = r(jax.vmap(lambda x, w: lax.conv(x, w, (2, 1), 'SAME'))(jnp.stack([x, x + 1]), jnp.stack([w, w * 2])))",
    "conv_jit": XW + "out = r(jax.jit(lambda x, w: lax.conv(x, w, (1, 1), 'SAME'))(x, w))",
    # ------------------------------------------------------------ reduce_window
    "rw_sum": SIG + "out = r(lax.reduce_window(s, 0., lax.add, (3,), (1,), 'VALID'))",
    "rw_max_pool": M + "out = r(lax.reduce_window(m, -jnp.inf, lax.max, (2, 2), (2, 1), 'VALID'))",
    "rw_min_same": M + "out = r(lax.reduce_window(m, jnp.inf, lax.min, (3, 2), (1, 1), 'SAME'))",
    "rw_sum_padding": M + "out = r(lax.reduce_window(m, 0., lax.add, (2, 2), (1, 1), ((1, 0), (0, 2))))",
    "rw_sum_dilations": M + "out = r(lax.reduce_window(m, 0., lax.add, (2, 2), (1, 1), 'VALID', base_dilation=(2, 1), window_dilation=(1, 2)))",
    "rw_default_strides": SIG + "out = r(lax.reduce_window(s, 0., lax.add, (2,)))",
    "rw_prod_generic": "x = jnp.arange(10, dtype='float32')\nout = lax.reduce_window(x, jnp.float32(1), lax.mul, window_dimensions=(2,))",
    "rw_generic_lambda": SIG + "out = r(lax.reduce_window(s, 0., lambda a, b: a + 2 * b, (2,), (2,), 'VALID'))",
    "rw_int_max": "x = jnp.array([3, -1, 4, 1, -5, 9, 2], jnp.int32)\n"
    "out = r(lax.reduce_window(x, jnp.iinfo(jnp.int32).min, lax.max, (3,), (2,), 'SAME'))",
    "rw_max_nonidentity_init": SIG + "out = r(lax.reduce_window(s, 2., lax.max, (2,), (2,), 'VALID'))",
    "rw_tuple_operands": SIG + "out = lax.reduce_window((s, 2 * s), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (2,), (1,), 'VALID')\nout = (r(out[0]), r(out[1]))",
    "rw_shape_tuple": "out = lax.reduce_window_shape_tuple((7, 5), (3, 2), (2, 1), ((1, 1), (0, 0)))",
    "rw_shape_tuple_dilated": "out = lax.reduce_window_shape_tuple((7, 5), (3, 2), (2, 1), ((1, 1), (0, 0)), (2, 1), (1, 2))",
    "rw_jaxpr_sum": "out = str(make_jaxpr(lambda x: lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), 'VALID'))(jnp.ones((4, 4))))",
    "rw_jaxpr_max": "out = str(make_jaxpr(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), 'SAME'))(jnp.ones((5, 5))))",
    "rw_jaxpr_generic": "out = str(make_jaxpr(lambda x: lax.reduce_window(x, 1., lax.mul, (2,), (1,), 'VALID'))(jnp.ones(4)))",
    "rw_grad_sum": M + "out = r(jax.grad(lambda m: (lax.reduce_window(m, 0., lax.add, (2, 2), (2, 1), ((1, 0), (0, 1))) ** 2).sum())(m))",
    "rw_grad_sum_dilated": M + "out = r(jax.grad(lambda m: (lax.reduce_window(m, 0., lax.add, (2, 2), (1, 1), 'VALID', base_dilation=(1, 2), window_dilation=(2, 1)) ** 2).sum())(m))",
    "rw_grad_max": M + "out = r(jax.grad(lambda m: (lax.reduce_window(m, -jnp.inf, lax.max, (2, 2), (2, 1), 'SAME') ** 2).sum())(m))",
    "rw_grad_min": SIG + "out = r(jax.grad(lambda s: lax.reduce_window(s, jnp.inf, lax.min, (3,), (2,), 'VALID').sum())(s))",
    "rw_jvp_max": SIG + "p, t = jax.jvp(lambda s: lax.reduce_window(s, -jnp.inf, lax.max, (3,), (1,), 'VALID'), (s,), (jnp.arange(8.),))\nout = (r(p), r(t))",
    "rw_vmap_sum": M + "out = r(jax.vmap(lambda v: lax.reduce_window(v, 0., lax.add, (2,), (1,), 'SAME'))(m))",
    "rw_vmap_max_axis1": M + "out = r(jax.vmap(lambda v: lax.reduce_window(v, -jnp.inf, lax.max, (2,), (1,), 'VALID'), in_axes=1)(m))",
    "rw_vmap_generic": M + "out = r(jax.vmap(lambda v: lax.reduce_window(v, 1., lax.mul, (2,), (1,), 'VALID'))(m))",
    "rw_jit_max": M + "out = r(jax.jit(lambda m: lax.reduce_window(m, -jnp.inf, lax.max, (2, 2), (1, 1), 'VALID'))(m))",
    "rw_err_rank": M + "out = lax.reduce_window(m, 0., lax.add, (2,), (1,), 'VALID')",
    "rw_err_strides": M + "out = lax.reduce_window(m, 0., lax.add, (2, 2), (1,), ((0, 0), (0, 0)))",
    "rw_err_zero_window": M + "out = lax.reduce_window(m, 0., lax.add, (0, 2), (1, 1), 'VALID')",
    "rw_err_generic_dtype": "out = lax.reduce_window(jnp.arange(4), 1., lax.mul, (2,), (1,), 'VALID')",
    # ------------------------------------------------------------ top_k
    "top_k": M + "out = lax.top_k(m, 2)",
    "top_k_axis0": M + "out = lax.top_k(m, 3, axis=0)",
    "top_k_ties": "out = lax.top_k(jnp.array([2., 1., 2., 3., 1.]), 4)",
    "top_k_int": "out = lax.top_k(jnp.array([5, -3, 7, 0], jnp.int32), 2)",
    "top_k_uint": "out = lax.top_k(jnp.array([5, 300, 7, 0], jnp.uint32), 3)",
    "top_k_jaxpr": "out = str(make_jaxpr(lambda x: lax.top_k(x, 2))(jnp.ones((4, 4))))",
    "top_k_grad": M + "out = r(jax.grad(lambda m: (lax.top_k(m, 2)[0] ** 2).sum())(m))",
    "top_k_grad_axis0": M + "out = r(jax.grad(lambda m: (lax.top_k(m, 2, axis=0)[0] * jnp.array([[1.], [2.]])).sum())(m))",
    "top_k_vmap": M + "out = jax.vmap(lambda v: lax.top_k(v, 2))(m)",
    "top_k_vmap_axis1": M + "out = jax.vmap(lambda v: lax.top_k(v, 2), in_axes=1)(m)",
    "top_k_err_k": "out = lax.top_k(jnp.ones(3), 4)",
    "top_k_err_scalar": "out = lax.top_k(jnp.float32(1), 1)",
    # ------------------------------------------------------------ bit primitives
    "clz_int32": "out = lax.clz(jnp.array([0, 1, 2, 7, 255, -1, 2 ** 31 - 1], jnp.int32))",
    "clz_uint8": "out = lax.clz(jnp.array([0, 1, 16, 255], jnp.uint8))",
    "clz_float_err": "out = lax.clz(jnp.ones(2))",
    "population_count": "out = lax.population_count(jnp.array([0, 1, 3, 7, 255, -1, -2], jnp.int32))",
    "population_count_uint16": "out = lax.population_count(jnp.array([0, 65535, 4096], jnp.uint16))",
    "mulhi_int32": "x = jnp.array([2 ** 30, -2 ** 30, 123456789, -1], jnp.int32)\nout = lax.mulhi(x, jnp.array([8, 8, 987654321, -1], jnp.int32))",
    "mulhi_uint32": "x = jnp.array([2 ** 31, 4000000000], jnp.uint32)\nout = lax.mulhi(x, x)",
    "bits_jaxpr": "out = str(make_jaxpr(lambda x: (lax.clz(x), lax.population_count(x), lax.mulhi(x, x)))(jnp.ones((2, 3), jnp.int32)))",
    "mulhi_int64": X64.format("x = jnp.array([2 ** 62, -3, 123456789123], jnp.int64)\n    out = lax.mulhi(x, jnp.array([16, 5, 987654321987], jnp.int64))"),
    "clz_vmap": "out = jax.vmap(lax.clz)(jnp.array([[1, 2], [4, 8]], jnp.int32))",
    # ------------------------------------------------------------ unstack, barrier, reduce, scan
    "unstack": M + "out = lax.unstack(m)",
    "unstack_axis": M + "out = lax.unstack(m, axis=-1)",
    "unstack_jaxpr": "out = str(make_jaxpr(lambda x: lax.unstack(x, 1))(jnp.ones((2, 3))))",
    "unstack_grad": M + "out = r(jax.grad(lambda m: lax.unstack(m, 1)[2].sum() * 3)(m))",
    "unstack_vmap": M + "out = jax.vmap(lambda v: lax.unstack(v)[1])(m)",
    "unstack_scalar_err": "out = lax.unstack(jnp.float32(1))",
    "optimization_barrier": M + "out = lax.optimization_barrier((m, 2 * m))[1]",
    "optimization_barrier_jaxpr": "out = str(make_jaxpr(lambda x: lax.optimization_barrier((x, x + 1)))(jnp.ones((2, 3))))",
    "optimization_barrier_grad": "out = jax.grad(lambda x: lax.optimization_barrier(x * x) * 3)(2.)",
    "reduce_sum_monoid": M + "out = lax.reduce(m, 0., lax.add, (0,))",
    "reduce_max_monoid": M + "out = lax.reduce(m, -jnp.inf, lax.max, (1,))",
    "reduce_prod_monoid": M + "out = lax.reduce(m, 1., lax.mul, (0, 1))",
    "reduce_generic": M + "out = lax.reduce(m, 0., lambda a, b: a * 0.5 + b, (0,))",
    "reduce_tuple": M + "out = lax.reduce((m, m > 2), (0., False), lambda a, b: (a[0] + b[0], a[1] | b[1]), (1,))",
    "reduce_monoid_jaxpr": "out = str(make_jaxpr(lambda x: lax.reduce(x, 0., lax.add, (1,)))(jnp.ones((2, 3))))",
    "reduce_generic_vmap": M + "out = jax.vmap(lambda v: lax.reduce(v, 0., lambda a, b: a * 0.5 + b, (0,)))(m)",
    "reduce_int_or": "out = lax.reduce(jnp.array([1, 2, 8], jnp.int32), 0, lax.bitwise_or, (0,))",
    "associative_scan_add": "out = lax.associative_scan(lax.add, jnp.arange(7.))",
    "associative_scan_reverse": "out = lax.associative_scan(lax.add, jnp.arange(6.), reverse=True)",
    "associative_scan_max_axis": M + "out = lax.associative_scan(lax.max, m, axis=1)",
    "associative_scan_mul_axis0": M + "out = lax.associative_scan(lax.mul, m)",
    "associative_scan_pytree": "a = jnp.array([1., 2., 3., 4., 5.])\nb = jnp.array([0., 1., 0., 2., 1.])\n"
    "fn = lambda x, y: (x[0] * y[0], y[0] * x[1] + y[1])\nout = lax.associative_scan(fn, (a, b))",
    "associative_scan_grad": "out = r(jax.grad(lambda x: lax.associative_scan(lax.mul, x).sum())(jnp.array([1., 2., 3., 4.])))",
    "associative_scan_err": "out = lax.associative_scan(lambda a, b: (a[0] + b[0], a[1] + b[1]), (jnp.ones(3), jnp.ones(4)))",
    "cumsum_exists": "out = (lax.cumsum(jnp.arange(4.)), lax.cummax(jnp.array([1., 3., 2.])), lax.cumlogsumexp(jnp.zeros(2)))",
    # ------------------------------------------------------------ gather / scatter API
    "gather_rows": M + "dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))\n"
    "out = lax.gather(m, jnp.array([[2], [0]]), dn, slice_sizes=(1, 3))",
    "gather_windows": M + "dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))\n"
    "out = lax.gather(m, jnp.array([[0, 1], [2, 0]]), dn, slice_sizes=(2, 2))",
    "gather_clip_mode": M + "dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))\n"
    "out = lax.gather(m, jnp.array([[7]]), dn, (1, 3), mode=lax.GatherScatterMode.CLIP)",
    "gather_fill_mode": M + "dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))\n"
    "out = lax.gather(m, jnp.array([[7], [1]]), dn, (1, 3), mode='fill', fill_value=-1.)",
    "scatter_add": "dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
    "out = lax.scatter_add(jnp.zeros(5), jnp.array([[1], [3], [1]]), jnp.array([1., 2., 3.]), dn)",
    "scatter_set": "dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
    "out = lax.scatter(jnp.zeros(5), jnp.array([[4], [0]]), jnp.array([7., 8.]), dn)",
    "scatter_mul_min_max_sub": "dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
    "o, i, u = jnp.arange(1., 5.), jnp.array([[0], [2]]), jnp.array([3., 0.5])\n"
    "out = (lax.scatter_mul(o, i, u, dn), lax.scatter_min(o, i, u, dn), lax.scatter_max(o, i, u, dn), lax.scatter_sub(o, i, u, dn))",
    "scatter_rows": "dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
    "out = lax.scatter_add(jnp.zeros((3, 2)), jnp.array([[2], [0]]), jnp.array([[1., 2.], [3., 4.]]), dn)",
    "scatter_apply": "dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
    "out = lax.scatter_apply(jnp.arange(4.), jnp.array([[1], [3]]), lambda v: v * 10, dn, update_shape=(2,))",
    "scatter_add_grad": "dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))\n"
    "f = lambda o, u: (lax.scatter_add(o, jnp.array([[1], [3]]), u, dn) ** 2).sum()\n"
    "out = jax.grad(f, (0, 1))(jnp.arange(4.), jnp.array([1., 2.]))",
    "gather_scatter_mode_enum": "out = (lax.GatherScatterMode.from_any('clip'), lax.GatherScatterMode.from_any(None))",
    # ------------------------------------------------------------ conveniences
    "reciprocal": "out = lax.reciprocal(jnp.array([2., 4., -0.5]))",
    "reciprocal_jaxpr": "out = str(make_jaxpr(lax.reciprocal)(jnp.ones(3)))",
    "collapse": "out = lax.collapse(jnp.ones((2, 3, 4, 5)), 1, 3).shape",
    "collapse_to_end": "out = lax.collapse(jnp.arange(24).reshape(2, 3, 4), 1)",
    "collapse_negative": "out = lax.collapse(jnp.ones((2, 3, 4, 5)), -3, -1).shape",
    "collapse_err": "out = lax.collapse(jnp.ones((2, 3, 4)), 2, 1)",
    "batch_matmul": "a = jnp.arange(12.).reshape(2, 2, 3)\nb = jnp.arange(12.).reshape(2, 3, 2)\nout = lax.batch_matmul(a, b)",
    "batch_matmul_err_1d": "out = lax.batch_matmul(jnp.ones(3), jnp.ones((3, 3)))",
    "batch_matmul_err_ndim": "out = lax.batch_matmul(jnp.ones((2, 3, 3)), jnp.ones((3, 3)))",
    "broadcast_shapes": "out = (lax.broadcast_shapes((2, 1), (3,)), lax.broadcast_shapes((5, 1, 4), (1, 3, 1)), lax.broadcast_shapes((2,)))",
    "broadcast_shapes_err": "out = lax.broadcast_shapes((2,), (3,))",
    "empty": "out = lax.empty((2, 3), jnp.int32)",
    "empty_float": "out = lax.empty((2,), jnp.float32)",
    "index_take": "out = lax.index_take(jnp.arange(12).reshape(3, 4), (jnp.array([0, -1, 1]), jnp.array([1, 2, -1])), (0, 1))",
    "index_take_one_axis": "out = lax.index_take(jnp.arange(12.).reshape(3, 4), (jnp.array([2, 0]),), (0,))",
    "dynamic_update_index_in_dim": "out = lax.dynamic_update_index_in_dim(jnp.zeros((4, 4)), jnp.ones(4), 1, axis=0)",
    "dynamic_update_index_in_dim_scalar": "out = lax.dynamic_update_index_in_dim(jnp.zeros(6), 1.0, 2, axis=0)",
    "dynamic_update_index_in_dim_clamped": "out = lax.dynamic_update_index_in_dim(jnp.zeros(6), jnp.array([1.0]), 10, axis=0)",
    "dynamic_update_index_in_dim_partial": "out = lax.dynamic_update_index_in_dim(jnp.zeros((4, 4)), jnp.ones((1, 3)), 1, 0)",
    "precision_enum": "out = (lax.Precision.HIGHEST, str(lax.Precision.HIGH), list(lax.Precision))",
    "rounding_method": "out = (list(lax.RoundingMethod), lax.round(jnp.array([2.5, -1.5]), lax.RoundingMethod.TO_NEAREST_EVEN))",
    "dot_algorithm_preset": "out = (lax.DotAlgorithmPreset.DEFAULT, lax.DotAlgorithmPreset.F32_F32_F32)",
    "primitives_exported": "out = [str(p) for p in (lax.cond_p, lax.while_p, lax.scan_p, lax.gather_p, lax.scatter_add_p, lax.conv_general_dilated_p, lax.reduce_window_sum_p, lax.top_k_p, lax.clz_p, lax.unstack_p, lax.reduce_p, lax.linear_solve_p)]",
    # ------------------------------------------------------------ custom_linear_solve / custom_root
    "linear_solve_symmetric": SOLVE + "out = r(sym(A, b))",
    "linear_solve_grad_symmetric": SOLVE + "ga, gb = jax.grad(lambda A, b: (sym(A, b) ** 2).sum(), (0, 1))(A, b)\nout = (r(ga), r(gb))",
    "linear_solve_grad_transpose_solve": SOLVE + "ga, gb = jax.grad(lambda A, b: (gen(N, b) ** 2).sum() + (gen(A, b) * b).sum(), (0, 1))(N, b)\nout = (r(ga), r(gb))",
    "linear_solve_jacfwd": SOLVE + "out = r(jax.jacfwd(lambda A: gen(A, b))(N))",
    "linear_solve_vmap": SOLVE + "out = r(jax.vmap(lambda b: gen(N, b))(jnp.stack([b, 2 * b])))",
    "linear_solve_jit": SOLVE + "out = r(jax.jit(gen)(N, b))",
    "linear_solve_pytree": "m = lambda x: {'a': 2 * x['a'], 'b': x['b'] * 3}\n"
    "s = lambda mv, r: {'a': r['a'] / 2, 'b': r['b'] / 3}\n"
    "out = lax.custom_linear_solve(m, {'a': jnp.ones(2), 'b': jnp.float32(6.)}, s, symmetric=True)",
    "linear_solve_no_transpose_grad_err": SOLVE + "f = lambda b: lax.custom_linear_solve(lambda x: N @ x, b, lambda mv, r: jnp.linalg.solve(N, r))\n"
    "out = jax.grad(lambda b: f(b).sum())(b)",
    "linear_solve_no_transpose_jvp_ok": SOLVE + "f = lambda b: lax.custom_linear_solve(lambda x: N @ x, b, lambda mv, r: jnp.linalg.solve(N, r))\n"
    "out = r(jax.jvp(f, (b,), (jnp.ones(2),))[1])",
    "custom_root_sqrt": ROOT + "out = r(sqrt_newton(2.))",
    "custom_root_grad": ROOT + "out = (r(jax.grad(sqrt_newton)(2.)), r(jax.grad(jax.grad(sqrt_newton))(2.)))",
    "custom_root_vmap_jit": ROOT + "out = (r(jax.vmap(sqrt_newton)(jnp.array([4., 9.]))), r(jax.jit(jax.grad(sqrt_newton))(9.)))",
    "custom_root_vector": "def f(c):\n"
    "    fn = lambda x: x ** 3 - c\n"
    "    solve = lambda fn, x0: lax.fori_loop(0, 30, lambda i, x: x - fn(x) / (3 * x ** 2), x0)\n"
    "    return lax.custom_root(fn, jnp.ones_like(c), solve, lambda g, y: y / g(jnp.ones_like(c)))\n"
    "out = (r(f(jnp.array([8., 27.]))), r(jax.jacrev(f)(jnp.array([8., 27.]))))",
    # ------------------------------------------------------------ approx_top_k, reduce_precision, patches
    "approx_max_k": M + "out = lax.approx_max_k(m, 2)",
    "approx_min_k_axis0": M + "out = lax.approx_min_k(m, 2, reduction_dimension=0)",
    "approx_max_k_jaxpr": "out = str(make_jaxpr(lambda x: lax.approx_max_k(x, 2))(jnp.ones((2, 4))))",
    "approx_min_k_grad": M + "out = r(jax.grad(lambda m: (lax.approx_min_k(m, 2)[0] ** 2).sum())(m))",
    "approx_max_k_vmap": M + "out = jax.vmap(lambda v: lax.approx_max_k(v, 2), in_axes=1)(m)",
    "approx_max_k_err": "out = lax.approx_max_k(jnp.ones(3), 4)",
    "reduce_precision_f16": "v = jnp.array([1.0001, 3.14159, 65504., 65519., 65520., 1e5, 1e-8, -1e-5, 6.2e-5, jnp.nan, -jnp.inf, 0.1])\n"
    "out = lax.reduce_precision(v, 5, 10)",
    "reduce_precision_bf16": "v = jnp.array([1.0001, 3.14159, 65504., 1e5, 1e-8, -1e-5, 0.1])\nout = lax.reduce_precision(v, 8, 7)",
    "reduce_precision_tiny": "v = jnp.array([1.0001, 3.14159, 15., 16., 0.1, -0.3])\nout = lax.reduce_precision(v, 4, 3)",
    "reduce_precision_jaxpr": "out = str(make_jaxpr(lambda x: lax.reduce_precision(x, 5, 10))(jnp.ones(3)))",
    "reduce_precision_grad": "out = jax.grad(lambda x: lax.reduce_precision(x * 1.3, 5, 2).sum())(jnp.ones(3))",
    "reduce_precision_int_err": "out = lax.reduce_precision(jnp.arange(3), 5, 10)",
    "patches_same": "img = jnp.arange(2 * 3 * 4 * 5.).reshape(2, 3, 4, 5)\nout = r(lax.conv_general_dilated_patches(img, (2, 3), (1, 2), 'SAME'))",
    "patches_nhwc": "img = jnp.arange(1 * 4 * 5 * 2.).reshape(1, 4, 5, 2)\n"
    "out = r(lax.conv_general_dilated_patches(img, (3, 2), (2, 1), 'VALID', dimension_numbers=('NHWC', 'OIHW', 'NHWC')))",
    "patches_dilated": "img = jnp.arange(1 * 2 * 4 * 4.).reshape(1, 2, 4, 4)\n"
    "out = r(lax.conv_general_dilated_patches(img, (2, 2), (1, 1), ((1, 0), (0, 1)), rhs_dilation=(2, 1)))",
    "platform_dependent_cpu": "out = lax.platform_dependent(jnp.ones(2), cpu=lambda x: x * 2, default=lambda x: x * 3)",
    "platform_dependent_default": "out = lax.platform_dependent(jnp.ones(2), tpu=lambda x: x * 2, default=lambda x: x * 3)",
    "platform_dependent_gpu_err": "out = lax.platform_dependent(1., gpu=lambda x: x, default=lambda x: x)",
    "lax_dtype": "out = (lax.dtype(1.0), lax.dtype(2), lax.dtype(jnp.int8(1)), lax.dtype('float32'), lax.dtype(np.float64), lax.dtype(jnp.ones(2, jnp.int16)))",
    "broadcast_like": "out = lax.broadcast_like(jnp.array([1, 2, 3]), jnp.zeros((2, 3)))",
    "random_algorithm_accuracy_mode": "out = (list(lax.RandomAlgorithm), list(lax.AccuracyMode))",
    "parallel_primitives_exported": "out = [str(p) for p in (lax.psum_p, lax.pmax_p, lax.pmin_p, lax.ppermute_p, lax.all_gather_p, lax.axis_index_p, lax.approx_top_k_p, lax.reduce_precision_p)]",
    # ------------------------------------------------------------ unshared convolution, DotAlgorithm
    "conv_local": "x = jnp.arange(2 * 2 * 3 * 3.).reshape(2, 2, 3, 3) % 5 - 2\n"
    "w = jnp.arange(3 * 8 * 3 * 3.).reshape(3, 8, 3, 3) % 7 - 3\n"
    "out = r(lax.conv_general_dilated_local(x, w, (1, 1), 'SAME', (2, 2)))",
    "conv_local_nhwc": "x = jnp.arange(1 * 4 * 4 * 2.).reshape(1, 4, 4, 2) % 5 - 2\n"
    "w = jnp.arange(2 * 2 * 8 * 3.).reshape(2, 2, 8, 3) % 7 - 3\n"
    "out = r(lax.conv_general_dilated_local(x, w, (2, 2), 'VALID', (2, 2), dimension_numbers=('NHWC', 'HWIO', 'NHWC')))",
    "conv_local_grad": "x = jnp.arange(1 * 2 * 3 * 3.).reshape(1, 2, 3, 3) % 5 - 2\n"
    "w = jnp.arange(2 * 8 * 2 * 2.).reshape(2, 8, 2, 2) % 7 - 3\n"
    "out = r(jax.grad(lambda x: (lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2)) ** 2).sum())(x))",
    "dot_algorithm": "a = lax.DotAlgorithm(jnp.float32, jnp.float32, jnp.float32)\n"
    "out = (a.lhs_component_count, a.num_primitive_operations, a.allow_imprecise_accumulation)",
    # ------------------------------------------------------------ ragged_dot
    "ragged_dot": "l = jnp.arange(12.).reshape(6, 2)\nr = jnp.arange(12.).reshape(3, 2, 2)\nout = lax.ragged_dot(l, r, jnp.array([2, 1, 2]))",
    "ragged_dot_full": "l = jnp.arange(12.).reshape(6, 2)\nr = jnp.arange(12.).reshape(3, 2, 2)\nout = lax.ragged_dot(l, r, jnp.array([2, 3, 1]))",
    "ragged_dot_int": "l = jnp.arange(12).reshape(6, 2)\nr = jnp.arange(12).reshape(3, 2, 2)\nout = lax.ragged_dot(l, r, jnp.array([2, 1, 3]))",
    "ragged_dot_grad": "l = jnp.arange(12.).reshape(6, 2)\nr = jnp.arange(12.).reshape(3, 2, 2)\n"
    "out = jax.grad(lambda l, r: (lax.ragged_dot(l, r, jnp.array([2, 1, 2])) ** 2).sum(), (0, 1))(l, r)",
    "ragged_dot_err_groups": "out = lax.ragged_dot(jnp.ones((6, 2)), jnp.ones((3, 2, 2)), jnp.array([2, 1]))",
    # ------------------------------------------------------------ precision, canonicalized
    "precision_dot_jaxpr": "out = str(make_jaxpr(lambda a: lax.dot(a, a, precision=lax.Precision.HIGHEST))(jnp.ones((2, 2))))",
    "precision_string_jaxpr": "out = str(make_jaxpr(lambda a: jnp.dot(a, a, precision='highest'))(jnp.ones((2, 2))))",
    "precision_pair_jaxpr": "out = str(make_jaxpr(lambda a: jnp.matmul(a, a, precision=('high', 'fastest')))(jnp.ones((2, 2))))",
    "precision_conv_jaxpr": "out = str(make_jaxpr(lambda a: lax.conv(a, a, (1, 1), 'VALID', precision=lax.Precision.HIGH))(jnp.ones((1, 1, 2, 2))))",
    "precision_bad": "out = lax.dot(jnp.ones(2), jnp.ones(2), precision='bogus')",
    "precision_mixed_pair_bad": "out = lax.dot(jnp.ones(2), jnp.ones(2), precision=(lax.Precision.HIGH, 'fastest'))",
    "precision_from_string": "out = (lax.Precision('highest'), lax.Precision('bfloat16'), str(lax.Precision('float32')))",
    "precision_bad_string": "out = lax.Precision('bogus')",
    "precision_grad_keeps": "out = str(make_jaxpr(jax.grad(lambda a: lax.dot(a, a, precision='highest').sum()))(jnp.ones((2, 2))))",
    "reduce_generic_jaxpr": "def f(x):\n    return lax.reduce(x, 0., lambda a, b: a * b + 1, (0,))\nout = str(make_jaxpr(f)(jnp.ones((4, 3))))",
    "reduce_tuple_jaxpr": "out = str(make_jaxpr(lambda x: lax.reduce((x, x), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,)))(jnp.ones((2, 3))))",
    "rw_generic_skips_padding": "x = jnp.arange(1., 6.)\nout = lax.reduce_window(x, 0., lambda a, b: a * 0.5 + b, (3,), (1,), 'SAME')",
    "rw_generic_skips_holes": "x = jnp.arange(1., 6.)\nout = (lax.reduce_window(x, 0., lambda a, b: a * 0.5 + b, (3,), (2,), 'SAME', base_dilation=(2,)), "
    "lax.reduce_window(x, 1., lax.mul, (2,), (1,), ((1, 1),), base_dilation=(2,)))",
    "rw_generic_nonidentity_init_add": "out = lax.reduce_window(jnp.arange(1., 6.), 10., lambda a, b: a + b, (2,), (1,), ((1, 1),))",
    "rw_generic_jvp": "x = jnp.arange(1., 6.)\n"
    "out = jax.jvp(lambda x: lax.reduce_window(x, 0., lambda a, b: a * 0.5 + b, (3,), (1,), 'SAME'), (x,), (jnp.arange(5.),))",
    "rw_generic_jvp_mul": "x = jnp.arange(1., 6.)\nout = jax.jvp(lambda x: lax.reduce_window(x, 1., lax.mul, (2,), (1,), 'VALID'), (x,), (jnp.ones(5),))",
    "rw_generic_tuple_jvp": SIG + "f = lambda s: lax.reduce_window((s, s * s), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (2,), (2,), 'SAME')\n"
    "p, t = jax.jvp(f, (s,), (jnp.ones(8),))\nout = (r(p[0]), r(p[1]), r(t[0]), r(t[1]))",
}

CASES = {name: (HELPER + code if "r(" in code else code) for name, code in _CASES.items()}
