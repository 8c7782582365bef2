"""Programs whose JAX results are recorded in lax_finish_recorded.json (see record_from_jax.py).

Issue 17's last lax names: axis_size, psum_scatter, all_to_all, pswapaxes, pshuffle (under
vmap with axis_name, and pmap over the one CPU device the recording had), the rng primitives
(shapes and dtypes only: edujax's bits differ from XLA's), Tolerance, RaggedDotDimensionNumbers
ragged_dot_general and scaled_dot (with float32 output: edujax has no bfloat16).
"""
HELPER = ("def r(x):\n"
          "    x = jnp.asarray(x)\n"
          "    return (str(x.dtype), tuple(x.shape), "
          "(np.round(np.asarray(x, np.float64), 3) + 0.0).tolist())\n")
V = "jax.vmap(lambda v: {}, axis_name='i')"
P = "jax.pmap(lambda v: {}, axis_name='i')"
SQ = "x = jnp.arange(16.).reshape(4, 4)\n"
X3 = "x = jnp.arange(32.).reshape(4, 2, 4)\n"
KEY = "k = jnp.zeros(4, jnp.uint32)\n"
RAG = ("L = jnp.arange(12.).reshape(4, 3)\nR = jnp.arange(12.).reshape(2, 3, 2)\n"
       "gs = jnp.array([1, 3], jnp.int32)\n")
RAGC = ("L = jnp.arange(12.).reshape(3, 4)\nR = jnp.arange(8.).reshape(4, 2)\n"
        "gs = jnp.array([1, 3], jnp.int32)\n")
SD = "a = jnp.arange(8.).reshape(2, 4)\nb = jnp.arange(12.).reshape(4, 3) - 5\n"
DN0 = "lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])"
DNC = "lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])"

_CASES = {
    # ------------------------------------------------------------ axis_size
    "axis_size_vmap": SQ + "out = r(" + V.format("lax.axis_size('i')") + "(x))",
    "axis_size_nested": SQ + "out = r(jax.vmap(jax.vmap(lambda v: lax.axis_size(('i', 'j')), "
    "axis_name='j'), axis_name='i')(x))",
    "axis_size_jaxpr": "out = str(jax.make_jaxpr(lambda v: lax.axis_size('i'), "
    "axis_env=[('i', 3)])(1.))",
    "axis_size_pmap": "out = r(" + P.format("lax.axis_size('i')") + "(jnp.ones((1, 2))))",
    "axis_size_unbound": "out = lax.axis_size('j')",
    # ------------------------------------------------------------ psum_scatter
    "psum_scatter_vmap": SQ + "out = r(" + V.format("lax.psum_scatter(v, 'i')") + "(x))",
    "psum_scatter_tiled": "x = jnp.arange(24.).reshape(4, 6)[:, :4]\n"
    "out = r(" + V.format("lax.psum_scatter(v, 'i', tiled=True)") + "(x))",
    "psum_scatter_tiled_wide": "x = jnp.arange(32.).reshape(4, 8)\n"
    "out = r(" + V.format("lax.psum_scatter(v, 'i', tiled=True)") + "(x))",
    "psum_scatter_dim1_tiled": X3 + "out = r(" + V.format(
        "lax.psum_scatter(v, 'i', scatter_dimension=1, tiled=True)") + "(x))",
    "psum_scatter_dim1": "x = jnp.arange(48.).reshape(4, 3, 4)\nout = r(" + V.format(
        "lax.psum_scatter(v, 'i', scatter_dimension=1)") + "(x))",
    "psum_scatter_int": "x = jnp.arange(16).reshape(4, 4)\nout = r(" + V.format(
        "lax.psum_scatter(v, 'i')") + "(x))",
    "psum_scatter_jaxpr": SQ + "out = str(jax.make_jaxpr(" + V.format(
        "lax.psum_scatter(v, 'i')") + ")(x))",
    "psum_scatter_pmap": "out = r(" + P.format("lax.psum_scatter(v, 'i')") + "(jnp.ones((1, 1))))",
    "psum_scatter_unbound": "out = lax.psum_scatter(jnp.ones(4), 'j')",
    # ------------------------------------------------------------ all_to_all, pswapaxes
    "all_to_all_vmap": SQ + "out = r(" + V.format("lax.all_to_all(v, 'i', 0, 0)") + "(x))",
    "all_to_all_tiled": "x = jnp.arange(32.).reshape(4, 8)\nout = r(" + V.format(
        "lax.all_to_all(v, 'i', 0, 0, tiled=True)") + "(x))",
    "all_to_all_split0_concat1": "x = jnp.arange(48.).reshape(4, 4, 3)\nout = r(" + V.format(
        "lax.all_to_all(v, 'i', 0, 1)") + "(x))",
    "all_to_all_split1_concat0": "x = jnp.arange(48.).reshape(4, 3, 4)\nout = r(" + V.format(
        "lax.all_to_all(v, 'i', 1, 0)") + "(x))",
    "all_to_all_tiled_split1": "x = jnp.arange(64.).reshape(4, 2, 8)\nout = r(" + V.format(
        "lax.all_to_all(v, 'i', 1, 0, tiled=True)") + "(x))",
    "all_to_all_wrong_size": "x = jnp.arange(12.).reshape(4, 3)\nout = r(" + V.format(
        "lax.all_to_all(v, 'i', 0, 0)") + "(x))",
    "all_to_all_tiled_indivisible": "x = jnp.arange(12.).reshape(4, 3)\nout = r(" + V.format(
        "lax.all_to_all(v, 'i', 0, 0, tiled=True)") + "(x))",
    "all_to_all_pmap": "out = r(" + P.format("lax.all_to_all(v, 'i', 0, 0)") + "(jnp.ones((1, 1))))",
    "all_to_all_unbound": "out = lax.all_to_all(jnp.ones(4), 'j', 0, 0)",
    "all_to_all_grad": SQ + "out = r(jax.grad(lambda a: jnp.sum(" + V.format(
        "lax.all_to_all(v, 'i', 0, 0)") + "(a) * x))(jnp.ones((4, 4))))",
    "all_to_all_p_name": "out = str(lax.all_to_all_p)",
    "pswapaxes_vmap": SQ + "out = r(" + V.format("lax.pswapaxes(v, 'i', 0)") + "(x))",
    "pswapaxes_3d": "x = jnp.arange(48.).reshape(4, 3, 4)\nout = r(" + V.format(
        "lax.pswapaxes(v, 'i', 1)") + "(x))",
    # ------------------------------------------------------------ pshuffle
    "pshuffle_vmap": "out = r(" + V.format("lax.pshuffle(v, 'i', [1, 2, 3, 0])") + "(jnp.arange(4.)))",
    "pshuffle_rows": SQ + "out = r(" + V.format("lax.pshuffle(v, 'i', [3, 0, 2, 1])") + "(x))",
    "pshuffle_not_permutation": "out = r(" + V.format("lax.pshuffle(v, 'i', [0, 0, 1, 2])")
    + "(jnp.arange(4.)))",
    # ------------------------------------------------------------ rng primitives (no bits)
    "rng_bit_generator_structure": KEY + "nk, b = lax.rng_bit_generator(k, (2, 3))\n"
    "out = (nk.shape, str(nk.dtype), b.shape, str(b.dtype))",
    "rng_bit_generator_uint8": KEY + "nk, b = lax.rng_bit_generator(k, (5,), dtype=jnp.uint8)\n"
    "out = (nk.shape, str(nk.dtype), b.shape, str(b.dtype))",
    "rng_bit_generator_jaxpr": KEY + "out = str(jax.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2, 3)))(k))",
    "rng_bit_generator_jit": KEY + "nk, b = jax.jit(lambda k: lax.rng_bit_generator(k, (4,)))(k)\n"
    "out = (b.shape, str(b.dtype))",
    "rng_bit_generator_tuple": KEY + "out = type(lax.rng_bit_generator(k, (2,))).__name__",
    "rng_bit_generator_p_name": "out = (str(lax.rng_bit_generator_p), lax.rng_bit_generator_p.multiple_results)",
    "rng_uniform_shape": "u = lax.rng_uniform(0., 1., (3,))\n"
    "out = (u.shape, str(u.dtype), bool(((u >= 0) & (u < 1)).all()))",
    "rng_uniform_jaxpr": "out = str(jax.make_jaxpr(lambda: lax.rng_uniform(0., 1., (3,)))())",
    "rng_uniform_p_name": "out = str(lax.rng_uniform_p)",
    # ------------------------------------------------------------ Tolerance, ragged_dot_general
    "tolerance_fields": "t = lax.Tolerance(atol=1e-3)\nout = (t.atol, t.rtol, t.ulps)",
    "tolerance_empty": "out = lax.Tolerance()",
    "tolerance_negative": "out = lax.Tolerance(rtol=-1.)",
    "ragged_dn_repr": f"out = repr({DN0})",
    "ragged_dn_fields": f"d = {DNC}\nout = (d.dot_dimension_numbers, d.lhs_ragged_dimensions, "
    "d.rhs_group_dimensions)",
    "ragged_dot_general_basic": RAG + f"out = r(lax.ragged_dot_general(L, R, gs, {DN0}))",
    "ragged_dot_general_matches_ragged_dot": RAG + f"out = bool((lax.ragged_dot_general(L, R, gs, {DN0}) "
    "== lax.ragged_dot(L, R, gs)).all())",
    "ragged_dot_general_contracting": RAGC + f"out = r(lax.ragged_dot_general(L, R, gs, {DNC}))",
    # ------------------------------------------------------------ scaled_dot (float32 out)
    "scaled_dot_blocks": SD + "out = r(lax.scaled_dot(a, b, lhs_scale=jnp.array([[1., 2.], "
    "[3., .5]]), rhs_scale=jnp.array([[1., 2., 4.], [0.5, 1., 2.]]), "
    "preferred_element_type=jnp.float32))",
    "scaled_dot_no_scales": SD + "out = r(lax.scaled_dot(a, b, preferred_element_type=jnp.float32))",
    "scaled_dot_batched_jit": SD + "out = r(jax.jit(lambda a, b: lax.scaled_dot(a[None], b[None], "
    "preferred_element_type=jnp.float32))(a, b))",
    "scaled_dot_dimension_numbers": SD + "out = r(lax.scaled_dot(a.T, b, dimension_numbers="
    "(((0,), (0,)), ((), ())), preferred_element_type=jnp.float32))",
    "scaled_dot_rank1": "out = lax.scaled_dot(jnp.ones(3), jnp.ones(3))",
}

CASES = {name: (HELPER + code if "r(" in code else code) for name, code in _CASES.items()}
