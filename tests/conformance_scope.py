"""Which issue delivers which golden case, and which issues have landed.

edujax grows issue by issue: foundation (arrays, jax.numpy, make_jaxpr, pytrees, the reference
interpreter), then jit, autodiff, vmap, and the PRNG. Every case of jax_golden.json belongs to
exactly one of those issues: the one that completes what the case needs. A case that needs
several (vmap of jit of grad, say) belongs to the last of them to land, in the order of
ISSUE_ORDER. tests/test_conformance.py runs the cases of the issues in ENABLED, and checks that
no case is missing from, or listed twice in, ISSUE_CASES.

When an issue lands, add its name to ENABLED (and never edit the golden file).
"""

ISSUE_ORDER = ("foundation", "jit", "autodiff", "vmap", "prng")

ENABLED = {"foundation", "jit", "autodiff", "vmap", "prng"}

ISSUE_CASES = {
    # Arrays and dtypes, jax.numpy, indexing and .at[], jnp's error messages, pytrees,
    # make_jaxpr of functions that use no transformation, devices, config.
    "foundation": {
        # arrays, dtypes, reprs
        "arange_repr", "arange_values", "float_array_repr", "default_float_dtype",
        "default_int_dtype", "weak_type_promotion", "int_times_float_scalar", "bool_array",
        "zeros_ones_eye", "linspace", "array_shape_ndim_size", "numpy_input_to_jnp", "to_numpy",
        "scalar_item", "astype",
        # jax.numpy functions
        "dot_vec", "dot_int_1e4", "matmul", "matmul_batched", "transpose_T", "transpose_axes",
        "reshape_neg1", "sum_axes", "mean_var_std", "max_min_argmax", "prod_cumsum",
        "elementwise_unary", "elementwise_more", "power_ops", "where", "clip", "stack_concat",
        "broadcasting", "outer", "floor_div_mod", "comparisons_logical", "selu_values",
        "logistic",
        # indexing and functional updates
        "index_basic", "index_newaxis", "index_int_array", "index_bool_mask_concrete",
        "at_set", "at_add_mul", "at_min_max_get", "at_repeated_index_add",
        # errors raised by jnp itself
        "inplace_assign_error", "sum_of_list_error",
        # make_jaxpr of plain functions (stop_gradient here is just a primitive, no grad)
        "jaxpr_my_function", "jaxpr_log2_with_print", "jaxpr_static_branch_3",
        "jaxpr_static_branch_5", "jaxpr_unary_chain", "jaxpr_sum_of_squares",
        "jaxpr_int_float_mix", "jaxpr_matmul", "jaxpr_broadcast", "jaxpr_reshape_transpose",
        "jaxpr_stop_gradient", "jaxpr_object_api",
        # pytrees
        "tree_leaves_examples", "tree_map_list_of_lists", "tree_map_multi",
        "tree_structure_repr", "tree_flatten_unflatten", "tree_dict_key_order",
        "register_pytree_node", "tree_flatten_with_path", "tree_reduce",
        # devices and config
        "device_put", "local_device_count", "devices_platform", "enable_x64_off_by_default",
    },
    # jax.jit, lax control flow, nested jit in a jaxpr, tracer errors under jit.
    "jit": {
        "jaxpr_cond", "jaxpr_fori", "jaxpr_nested_jit", "tracer_print_in_jit",
        "jit_selu", "jit_bool_conversion_error", "jit_while_bool_error", "jit_static_argnums",
        "jit_partial_static_decorator", "jit_inner_loop_body", "jit_impure_global",
        "jit_side_effect_once", "jit_pytree_args", "jit_concretization_arange",
        "jit_kwargs_default", "jit_int_and_bool_outputs", "jit_matmul_tanh_mlp",
        "jit_block_until_ready", "jit_with_cond",
        "fori_loop_sum", "fori_loop_iterator_gotcha", "while_loop", "scan_cumsum",
        "cond_and_switch",
    },
    # grad and friends, custom rules, stop_gradient under grad, gradients through control flow.
    "autodiff": {
        "jaxpr_grad_square", "jaxpr_grad_sin",
        "grad_sum_of_squares", "grad_sse_argnums", "value_and_grad", "grad_has_aux",
        "grad_nonscalar_error", "grad_int_input_error", "grad_logistic",
        "grad_third_order_jit", "grad_pytree_params", "grad_list_params", "grad_custom_pytree",
        "grad_through_max_relu", "grad_where", "grad_indexing", "grad_at_set", "grad_dot",
        "grad_mean_var", "grad_logsumexp_like", "grad_sqrt_div", "grad_python_control_flow",
        "grad_python_loop",
        "jvp_basic", "vjp_basic", "jacfwd_jacrev", "hessian", "jax_hessian_api",
        "stop_gradient_td", "custom_jvp", "custom_vjp_clip_gradient", "linear_regression_loop",
        "grad_through_cond", "grad_through_fori", "grad_through_scan", "jvp_through_while",
    },
    # vmap and pmap.
    "vmap": {
        "jaxpr_vmap_add", "vmap_apply_matrix", "vmap_convolve", "vmap_in_axes_none",
        "vmap_nested", "vmap_per_example_grad", "vmap_pytree_in_out", "vmap_out_axes",
        "vmap_reductions", "vmap_matmul_batch", "vmap_inconsistent_sizes", "vmap_cond_select",
        "vmap_of_jit_of_grad", "pmap_single_device", "pmap_psum",
    },
    # jax.random (including keys split under jit and vmap, and the MLP init of the tutorials).
    "prng": {
        "prngkey_42", "normal_same_key", "split_and_normal", "normal_vector_key0", "split_num",
        "fold_in", "uniform", "randint", "bernoulli", "permutation", "choice", "random_bits",
        "categorical", "normal_float_shape", "key_typed_data", "split_under_jit_vmap",
        "mlp_init_shapes", "mlp_init_values",
    },
}


def issue_of(case_name: str) -> str:
    """The issue that delivers a case (KeyError if the case is in no group)."""
    for issue, names in ISSUE_CASES.items():
        if case_name in names:
            return issue
    raise KeyError(f"golden case {case_name!r} is in no group of ISSUE_CASES")
