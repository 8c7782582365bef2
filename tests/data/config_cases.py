"""Programs for JAX's debugging and strictness switches, recorded with what they print.

    /tmp/jaxenv/bin/python tests/data/record_toplevel.py tests/data/config_cases.py \\
        tests/data/config_recorded.json

The switches JAX's "Sharp Bits" page teaches: ``jax_debug_nans`` / ``jax_debug_infs``
(which operation made the first NaN or inf), ``jax_numpy_rank_promotion`` (implicit
broadcasting of different ranks: allow, warn or raise) and ``jax_numpy_dtype_promotion``
(standard or strict promotion), each as ``jax.config.update`` and as a context manager
(``with jax.debug_nans(True): ...``). tests/test_config_flags.py replays them on edujax,
comparing values, errors and what the program printed.
"""
CASES: dict[str, str] = {}

# ---------------------------------------------------------------- debug_nans / debug_infs
NANS = "with jax.debug_nans(True):\n    "
INFS = "with jax.debug_infs(True):\n    "
CASES["nans_off"] = "out = jnp.divide(0., 0.)"
CASES["nans_jnp_divide"] = NANS + "out = jnp.divide(0., 0.)"
CASES["nans_operator_divide"] = NANS + "out = jnp.zeros(3) / 0."
CASES["nans_jnp_log"] = NANS + "out = jnp.log(-1.)"
CASES["nans_lax_log"] = NANS + "out = lax.log(-1.)"
CASES["nans_lax_div_arrays"] = NANS + "out = lax.div(jnp.zeros(2), jnp.zeros(2))"
CASES["nans_sqrt_negative"] = NANS + "out = jnp.sqrt(jnp.array([1., -1.]))"
CASES["nans_fine_values"] = NANS + "out = jnp.log(jnp.array([1., 2.]))"
CASES["nans_inf_is_fine"] = NANS + "out = jnp.divide(1., 0.)"
CASES["nans_ints_are_fine"] = NANS + "out = jnp.arange(3) // 1"
CASES["nans_jit"] = NANS + "out = jax.jit(lambda x: jnp.log(x) * 2)(-1.)"
CASES["nans_jit_lax"] = NANS + "out = jax.jit(lambda x: lax.log(x) * 2.)(-1.)"
CASES["nans_jit_def"] = ("def f(x):\n    y = lax.sub(x, x)\n    return lax.div(y, y)\n"
                         + NANS + "out = jax.jit(f)(1.)")
CASES["nans_jit_hidden"] = NANS + "out = jax.jit(lambda x: jnp.where(x > 0, jnp.log(x), 0.))(-1.)"
CASES["nans_eager_hidden"] = NANS + "out = jnp.where(-1. > 0, jnp.log(-1.), 0.)"
CASES["nans_jit_passthrough"] = NANS + "out = jax.jit(lambda x: x * 1.)(jnp.nan)"
CASES["nans_jit_fine"] = NANS + "out = jax.jit(lambda x: jnp.log(x))(2.)"
CASES["nans_grad"] = NANS + "out = jax.grad(lambda x: jnp.log(x))(-1.)"
CASES["nans_sum"] = NANS + "out = jnp.sum(lax.div(jnp.zeros(2), jnp.zeros(2)))"
CASES["nans_config_update"] = ("jax.config.update('jax_debug_nans', True)\n"
                               "try:\n    out = lax.log(-1.)\n"
                               "finally:\n    jax.config.update('jax_debug_nans', False)")
CASES["nans_value"] = "out = (jax.debug_nans.value, jax.config.jax_debug_nans)"
CASES["nans_value_inside"] = NANS + "out = (jax.debug_nans.value, jax.config.jax_debug_nans)"
CASES["nans_nested_off"] = NANS + "with jax.debug_nans(False):\n        out = lax.log(-1.)"
CASES["nans_restored"] = NANS + "pass\nout = lax.log(-1.)"
CASES["nans_float16"] = NANS + "out = lax.log(jnp.float16(-1.))"
CASES["nans_complex"] = NANS + "out = lax.div(jnp.complex64(0), jnp.complex64(0))"
CASES["infs_exp"] = INFS + "out = jnp.exp(1000.)"
CASES["infs_lax_exp"] = INFS + "out = lax.exp(1000.)"
CASES["infs_divide"] = INFS + "out = jnp.divide(1., 0.)"
CASES["infs_nan_is_fine"] = INFS + "out = lax.log(-1.)"
CASES["infs_jit"] = INFS + "out = jax.jit(lambda x: lax.exp(x) + 1.)(1000.)"
CASES["infs_value"] = INFS + "out = (jax.debug_infs.value, jax.debug_nans.value)"
CASES["nans_and_infs"] = NANS + INFS.replace("\n    ", "\n        ") + "out = lax.log(0.)"

# ---------------------------------------------------------------- rank promotion
RAISE = "with jax.numpy_rank_promotion('raise'):\n    "
WARN = ("import warnings\nwith warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    with jax.numpy_rank_promotion('warn'):\n        ")
WARNED = "\nout = (out, [(w.category.__name__, str(w.message)) for w in caught])"
CASES["rank_allow"] = "out = jnp.ones(3) + jnp.ones((2, 3))"
CASES["rank_raise_add"] = RAISE + "out = jnp.ones(3) + jnp.ones((2, 3))"
CASES["rank_raise_jnp_add"] = RAISE + "out = jnp.add(jnp.ones(3), jnp.ones((2, 3)))"
CASES["rank_raise_multiply"] = RAISE + "out = jnp.multiply(jnp.ones((4, 1, 2)), jnp.ones(2))"
CASES["rank_raise_where"] = RAISE + "out = jnp.where(jnp.ones((2, 3)) > 0, jnp.ones(3), 0.)"
CASES["rank_raise_scalar_ok"] = RAISE + "out = jnp.ones(3) + 1.0"
CASES["rank_raise_zero_d_ok"] = RAISE + "out = jnp.ones(3) * jnp.float32(2)"
CASES["rank_raise_same_rank_ok"] = RAISE + "out = jnp.ones((2, 1)) + jnp.ones((1, 3))"
CASES["rank_raise_maximum"] = RAISE + "out = jnp.maximum(jnp.ones(3), jnp.zeros((1, 3)))"
CASES["rank_raise_jit"] = RAISE + "out = jax.jit(lambda a, b: a - b)(jnp.ones(3), jnp.ones((2, 3)))"
CASES["rank_raise_matmul_ok"] = RAISE + "out = jnp.ones((2, 3)) @ jnp.ones(3)"
CASES["rank_warn_add"] = WARN + "out = jnp.ones(3) + jnp.ones((2, 3))" + WARNED
CASES["rank_warn_subtract"] = WARN + "out = jnp.subtract(jnp.ones((2, 2)), jnp.ones(2))" + WARNED
CASES["rank_warn_scalar_quiet"] = WARN + "out = jnp.ones(3) + 2" + WARNED
CASES["rank_config_update"] = ("jax.config.update('jax_numpy_rank_promotion', 'raise')\n"
                               "try:\n    out = jnp.ones(3) + jnp.ones((2, 3))\n"
                               "finally:\n    jax.config.update('jax_numpy_rank_promotion', "
                               "'allow')")
CASES["rank_bad_value_cm"] = "out = jax.numpy_rank_promotion('bogus')"
CASES["rank_bad_value_update"] = "out = jax.config.update('jax_numpy_rank_promotion', 'bogus')"
CASES["rank_value"] = "out = (jax.numpy_rank_promotion.value, jax.config.jax_numpy_rank_promotion)"
CASES["rank_value_inside"] = RAISE + "out = jax.numpy_rank_promotion.value"

# ---------------------------------------------------------------- dtype promotion
STRICT = "with jax.numpy_dtype_promotion('strict'):\n    "
CASES["dtype_standard"] = "out = jnp.ones(3, jnp.float32) + jnp.ones(3, jnp.int32)"
CASES["dtype_strict_float_int"] = STRICT + "out = jnp.ones(3, jnp.float32) + jnp.ones(3, jnp.int32)"
CASES["dtype_strict_int_widths"] = STRICT + "out = jnp.ones(3, jnp.int32) + jnp.ones(3, jnp.int8)"
CASES["dtype_strict_float_widths"] = STRICT + "out = jnp.ones(3, jnp.float16) + jnp.ones(3, jnp.float32)"
CASES["dtype_strict_same_ok"] = STRICT + "out = jnp.ones(3, jnp.int8) + jnp.ones(3, jnp.int8)"
CASES["dtype_strict_weak_float_ok"] = STRICT + "out = jnp.ones(3) + 2.0"
CASES["dtype_strict_weak_int_ok"] = STRICT + "out = jnp.ones(3) + 2"
CASES["dtype_strict_weak_int_on_int_ok"] = STRICT + "out = jnp.arange(3) * 2"
CASES["dtype_strict_bool_int"] = STRICT + "out = jnp.arange(3) + jnp.array([True, False, True])"
CASES["dtype_strict_result_type"] = STRICT + "out = jnp.result_type(jnp.int16, jnp.int32)"
CASES["dtype_strict_promote_types"] = STRICT + "out = jnp.promote_types(jnp.uint8, jnp.int8)"
CASES["dtype_strict_python_scalars"] = STRICT + "out = jnp.result_type(2.0, 3.0)"
CASES["dtype_strict_jit"] = STRICT + ("out = jax.jit(lambda a, b: a * b)(jnp.ones(2, jnp.float32), "
                                      "jnp.ones(2, jnp.float16))")
CASES["dtype_strict_complex_float"] = STRICT + ("out = jnp.ones(2, jnp.complex64) + "
                                                "jnp.ones(2, jnp.float32)")
CASES["dtype_strict_astype_ok"] = STRICT + ("out = jnp.ones(3, jnp.float32) + "
                                            "jnp.ones(3, jnp.int32).astype(jnp.float32)")
CASES["dtype_value"] = "out = (jax.numpy_dtype_promotion.value, jax.config.jax_numpy_dtype_promotion)"
CASES["dtype_bad_value"] = "out = jax.numpy_dtype_promotion('loose')"
CASES["dtype_config_update"] = ("jax.config.update('jax_numpy_dtype_promotion', 'strict')\n"
                                "try:\n    out = jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.uint8)\n"
                                "finally:\n    jax.config.update('jax_numpy_dtype_promotion', "
                                "'standard')")
CASES["dtype_error_type"] = (STRICT + "try:\n        jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)\n"
                             "    except jax.dtypes.TypePromotionError as e:\n"
                             "        out = (type(e).__name__, isinstance(e, ValueError))")

# ---------------------------------------------------------------- the other switches
CASES["unknown_option"] = "out = jax.config.update('jax_debug_nanz', True)"
CASES["softmax_custom_jvp"] = ("with jax.softmax_custom_jvp(True):\n"
                               "    out = (jax.softmax_custom_jvp.value, "
                               "str(jax.make_jaxpr(jax.nn.softmax)(jnp.ones(3))))")
CASES["default_matmul_precision"] = ("with jax.default_matmul_precision('highest'):\n"
                                     "    out = (jax.default_matmul_precision.value, "
                                     "jnp.ones((2, 2)) @ jnp.ones(2))")
CASES["log_compiles_value"] = ("with jax.log_compiles(True):\n"
                               "    out = (jax.log_compiles.value, jax.jit(lambda x: x + 1)(1.))")

# ---------------------------------------------------------------- NaNs under transformations
CASES["nans_grad_backward"] = NANS + "out = jax.grad(lambda x: jnp.sqrt(x) * 0.)(0.)"
CASES["nans_grad_backward_lax"] = NANS + "out = jax.grad(lambda x: lax.sqrt(x) * 0.)(0.)"
CASES["nans_grad_of_jit_backward"] = NANS + "out = jax.grad(jax.jit(lambda x: lax.sqrt(x) * 0.))(0.)"
CASES["nans_grad_of_jit_forward"] = NANS + "out = jax.grad(jax.jit(lambda x: lax.log(x)))(-1.)"
CASES["nans_jit_of_grad"] = NANS + "out = jax.jit(jax.grad(lambda x: lax.log(x)))(-1.)"
CASES["nans_vmap"] = NANS + "out = jax.vmap(lax.log)(jnp.array([1., -1.]))"
CASES["nans_vmap_jnp"] = NANS + "out = jax.vmap(jnp.log)(jnp.array([1., -1.]))"
CASES["nans_vmap_of_jit"] = NANS + "out = jax.vmap(jax.jit(lax.log))(jnp.array([1., -1.]))"
CASES["nans_value_and_grad"] = NANS + "out = jax.value_and_grad(lambda x: lax.log(x) ** 2)(-1.)"
CASES["nans_jvp"] = NANS + "out = jax.jvp(lax.log, (-1.,), (1.,))"
CASES["nans_where_jnp"] = NANS + "out = jnp.where(jnp.array([True, False]), 1., jnp.nan)"
CASES["nans_mean_of_empty"] = NANS + "out = jnp.mean(jnp.zeros(0))"
CASES["nans_fori_loop"] = NANS + ("out = lax.fori_loop(0, 3, lambda i, x: x - 1., 1.5)\n"
                                  "    out = lax.fori_loop(0, 3, lambda i, x: lax.log(x) , 0.5)")
CASES["nans_cond"] = NANS + "out = lax.cond(True, lax.log, lax.exp, -1.)"
CASES["nans_nn_relu_fine"] = NANS + "out = jax.nn.relu(jnp.array([-1., 2.]))"
CASES["nans_softmax"] = NANS + "out = jax.nn.softmax(jnp.array([1., jnp.inf]))"
CASES["nans_scalar_input"] = NANS + "out = jnp.float32(jnp.nan) + 1"
