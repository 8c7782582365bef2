"""Programs recorded in fidelity_index_recorded.json: indexing and searching as JAX builds them.

jnp.diagonal (a gather with two index vectors; for a square matrix, a lax.platform_dependent
cond between it and a masked sum) and jnp.trace (a masked sum), both inner jits;
jnp.searchsorted, a jitted binary search (a scan per query, vmapped over the query's
dimensions) with its four methods, and the total-order comparisons it uses (lax.eq_to_p,
lt_to_p, le_to_p); the inner jits of lax.fft, jnp.angle, jnp.isreal and jnp.round; the typed
Python scalars (TypedFloat...) that vjp hands back; argmax of complex numbers, which fails
when run. Values and printed jaxprs, under jit, vmap and grad. tests/test_fidelity_index.py
replays them.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/fidelity_index_cases.py \\
        tests/data/fidelity_index_recorded.json
"""
CASES: dict[str, str] = {}

M = "jnp.arange(12.).reshape(3, 4)"
T = "jnp.arange(24.).reshape(2, 3, 4)"
SORTED = "jnp.array([0., 1., 1., 2., 5.])"
Q = "jnp.array([[1.5, -2.0, 1.0], [7.0, 0.5, 2.0]])"
Z = "jnp.array([1 + 2j, -0.5 + 0.25j, 3 - 1j])"
X64 = ("jax.config.update('jax_enable_x64', True)\ntry:\n    {}\n"
       "finally:\n    jax.config.update('jax_enable_x64', False)")


def jaxpr(name: str, fn: str, *args: str) -> None:
    CASES[name] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


def value(name: str, expr: str) -> None:
    CASES[name] = f"out = {expr}"


# ---------------------------------------------------------------- diagonal and trace
for name, fn, arg in [
    ("diagonal[offset1]", "lambda a: jnp.diagonal(a, 1)", M),
    ("diagonal[offset-1]", "lambda a: jnp.diagonal(a, -1)", M),
    ("diagonal[offset_past_end]", "lambda a: jnp.diagonal(a, 5)", M),
    ("diagonal[axes12]", "lambda a: jnp.diagonal(a, axis1=1, axis2=2)", T),
    ("diagonal[axes20]", "lambda a: jnp.diagonal(a, 1, 2, 0)", T),
    ("diagonal[int]", "jnp.diagonal", "jnp.arange(6).reshape(2, 3)"),
    ("diagonal[grad_offset]", "jax.grad(lambda a: jnp.sum(jnp.diagonal(a, -1) ** 2))", M),
    ("diagonal[method]", "lambda a: a.diagonal(1)", M),
    ("diag[matrix]", "lambda a: jnp.diag(a, 1)", M),
    ("diagonal[square]", "jnp.diagonal", "jnp.arange(9.).reshape(3, 3)"),
    ("diagonal[square_offset]", "lambda a: jnp.diagonal(a, 1)", "jnp.arange(9.).reshape(3, 3)"),
    ("diagonal[square_bool]", "jnp.diagonal", "jnp.eye(2, dtype=bool)"),
    ("diagonal[square_vmap]", "jax.vmap(jnp.diagonal)", "jnp.ones((2, 2, 2))"),
    ("diagonal[square_grad]", "jax.grad(lambda a: jnp.sum(jnp.diagonal(a)))", "jnp.ones((2, 2))"),
    ("diagonal[square_jit]", "jax.jit(jnp.diagonal)", "jnp.ones((2, 2))"),
    ("diagonal[square_3d]", "jnp.diagonal", "jnp.ones((2, 2, 2))"),
    ("trace[square]", "jnp.trace", "jnp.ones((2, 2))"),
    ("platform_dependent", "lambda p: lax.platform_dependent(p, cpu=jnp.sin, default=jnp.cos)",
     "1."),
    ("platform_dependent[tpu]", "lambda p: lax.platform_dependent(p, tpu=jnp.sin, "
     "cuda=jnp.sin, default=jnp.cos)", "1."),
    ("platform_dependent[vmap]", "jax.vmap(lambda p: lax.platform_dependent(p, cpu=jnp.sin, "
     "default=jnp.cos))", "jnp.ones(2)"),
    ("platform_dependent[jvp]", "lambda p: jax.jvp(lambda p: lax.platform_dependent(p, "
     "tpu=jnp.sin, default=jnp.cos), (p,), (1.,))", "1."),
    ("trace[offset]", "lambda a: jnp.trace(a, 1)", M),
    ("trace[axes]", "lambda a: jnp.trace(a, axis1=0, axis2=2)", T),
    ("trace[dtype]", "lambda a: jnp.trace(a, dtype=jnp.int32)", M),
    ("trace[traced_offset]", "lambda a, k: jnp.trace(a, k)", M + ", 1"),
    ("trace[grad_offset]", "jax.grad(lambda a: jnp.trace(a, -1))", M),
    ("trace[vmap_offset]", "jax.vmap(lambda a: jnp.trace(a, 1))", T),
]:
    jaxpr(name, fn, arg)
for name, expr in {
    "diagonal_value[offset1]": f"jnp.diagonal({M}, 1)",
    "diagonal_value[offset-2]": f"jnp.diagonal({M}, -2)",
    "diagonal_value[empty]": f"jnp.diagonal({M}, 4)",
    "diagonal_value[3d]": f"jnp.diagonal({T}, 0, 2, 1)",
    "diagonal_value[square]": "jnp.diagonal(jnp.arange(9.).reshape(3, 3))",
    "platform_dependent_value": "lax.platform_dependent(1., cpu=jnp.sin, default=jnp.cos)",
    "platform_dependent_value[default]": "lax.platform_dependent(1., tpu=jnp.sin, "
                                         "default=jnp.cos)",
    "platform_dependent_value[jit]": "jax.jit(lambda p: lax.platform_dependent(p, tpu=jnp.sin, "
                                     "default=jnp.cos))(1.)",
    "platform_dependent_value[grad]": "jax.grad(lambda p: lax.platform_dependent(p, "
                                      "tpu=jnp.sin, default=jnp.cos))(1.)",
    "platform_dependent_value[vmap_grad]": "jax.vmap(jax.grad(lambda p: lax.platform_dependent("
                                           "p, cpu=jnp.sin, default=jnp.cos)))(jnp.ones(2))",
    "platform_dependent_value[gpu_error]": "lax.platform_dependent(1., gpu=jnp.sin)",
    "platform_dependent_value[not_callable]": "lax.platform_dependent(1., cpu=2)",
    "platform_dependent_value[default_not_callable]": "lax.platform_dependent(1., default=2)",
    "platform_dependent_value[shared_branch]": "str(make_jaxpr(lambda p: lax.platform_dependent("
                                               "p, cpu=jnp.sin, cuda=jnp.sin))(1.))",
    "diagonal_value[square_jit]": "jax.jit(jnp.diagonal)(jnp.arange(9.).reshape(3, 3))",
    "diagonal_value[jit]": f"jax.jit(lambda a: jnp.diagonal(a, -1, 1, 0))({M})",
    "diagonal_value[list]": "jnp.diagonal([[1, 2], [3, 4]])",
    "diagonal_value[1d_error]": "jnp.diagonal(jnp.ones(3))",
    "diagonal_value[traced_offset_error]": "jax.jit(jnp.diagonal)(jnp.ones((2, 2)), 1)",
    "trace_value[offset]": f"jnp.trace({M}, -1)",
    "trace_value[jit_offset]": f"jax.jit(jnp.trace)({M}, 2)",
    "trace_value[out_error]": f"jnp.trace({M}, out=1)",
    "trace_value[same_axes_error]": f"jnp.trace({M}, axis1=1, axis2=-1)",
    "trace_value[grad]": f"jax.grad(lambda a: jnp.trace(a, 1))({M})",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- searchsorted
for name, fn, args in [
    ("searchsorted[right]", f"lambda v: jnp.searchsorted({SORTED}, v, side='right')", [Q]),
    ("searchsorted[scalar]", f"lambda v: jnp.searchsorted({SORTED}, v)", ["1.5"]),
    ("searchsorted[vector]", "jnp.searchsorted", [SORTED, "jnp.array([0.5, 1.0])"]),
    ("searchsorted[int]", "jnp.searchsorted", ["jnp.array([1, 3, 3, 9])", "jnp.array([3, 4])"]),
    ("searchsorted[promote]", "jnp.searchsorted", ["jnp.array([1, 3, 9])", "jnp.array([2.5])"]),
    ("searchsorted[compare_all]",
     "lambda a, v: jnp.searchsorted(a, v, method='compare_all')", [SORTED, Q]),
    ("searchsorted[compare_all_right]",
     "lambda a, v: jnp.searchsorted(a, v, side='right', method='compare_all')",
     [SORTED, "jnp.array([1.0, 3.0])"]),
    ("searchsorted[scan_unrolled]",
     "lambda a, v: jnp.searchsorted(a, v, method='scan_unrolled')",
     [SORTED, "jnp.array([1.0, 3.0])"]),
    ("searchsorted[sort]", "lambda a, v: jnp.searchsorted(a, v, method='sort')",
     [SORTED, "jnp.array([1.0, 3.0])"]),
    ("searchsorted[sort_right]",
     "lambda a, v: jnp.searchsorted(a, v, side='right', method='sort')",
     [SORTED, "jnp.array([1.0, 3.0])"]),
    ("searchsorted[sorter]", "lambda a, v, s: jnp.searchsorted(a, v, sorter=s)",
     ["jnp.array([5., 0., 2.])", "jnp.array([1.0])", "jnp.array([1, 2, 0])"]),
    ("searchsorted[empty]", "jnp.searchsorted", ["jnp.zeros(0)", "jnp.array([1.0, 2.0])"]),
    ("searchsorted[vmap_both]", "jax.vmap(jnp.searchsorted)",
     ["jnp.array([[0., 1., 2.], [1., 2., 3.]])", "jnp.array([1.5, 0.5])"]),
    ("searchsorted[grad_of_query_user]",
     f"jax.grad(lambda v: v * jnp.searchsorted({SORTED}, v))", ["1.5"]),
    ("searchsorted[digitize]", "lambda x: jnp.digitize(x, jnp.array([0., 1., 2.5]))", [Q]),
]:
    jaxpr(name, fn, *args)
for name, expr in {
    "searchsorted_value[left]": f"jnp.searchsorted({SORTED}, {Q})",
    "searchsorted_value[right]": f"jnp.searchsorted({SORTED}, {Q}, side='right')",
    "searchsorted_value[nan]": "jnp.searchsorted(jnp.array([1., 2., jnp.nan]), "
                               "jnp.array([jnp.nan, 2., -jnp.inf, jnp.inf]))",
    "searchsorted_value[nan_right]": "jnp.searchsorted(jnp.array([1., jnp.nan, jnp.nan]), "
                                     "jnp.array([jnp.nan, 1.]), side='right')",
    "searchsorted_value[signed_zero]": "jnp.searchsorted(jnp.array([-1., -0., 0., 1.]), "
                                       "jnp.array([0., -0.]))",
    "searchsorted_value[compare_all]": f"jnp.searchsorted({SORTED}, {Q}, method='compare_all')",
    "searchsorted_value[sort]": f"jnp.searchsorted({SORTED}, {Q}, side='right', method='sort')",
    "searchsorted_value[unrolled]": f"jnp.searchsorted({SORTED}, {Q}, method='scan_unrolled')",
    "searchsorted_value[uint8]": "jnp.searchsorted(jnp.array([0, 10, 200], jnp.uint8), "
                                 "jnp.array([5, 255], jnp.uint8))",
    "searchsorted_value[bool]": "jnp.searchsorted(jnp.array([False, True, True]), True)",
    "searchsorted_value[empty]": "jnp.searchsorted(jnp.zeros(0), jnp.array([1.0]))",
    "searchsorted_value[jit]": f"jax.jit(jnp.searchsorted)({SORTED}, {Q})",
    "searchsorted_value[vmap]": f"jax.vmap(jnp.searchsorted, (None, 0))({SORTED}, {Q})",
    "searchsorted_value[bad_method]": "jnp.searchsorted(jnp.arange(3), 1, method='bisect')",
    "searchsorted_value[2d_error]": "jnp.searchsorted(jnp.ones((2, 2)), 1)",
    "searchsorted_value[x64]": X64.format(
        "out = jnp.searchsorted(jnp.array([1., 2., 3.]), jnp.array([2.5]))"),
    "digitize_value": f"jnp.digitize({Q}, jnp.array([0., 1., 2.5]))",
    "eq_to": "lax.eq_to_p.bind(jnp.array([0., -0., jnp.nan, 1.]), "
             "jnp.array([-0., -0., jnp.nan, 1.]))",
    "lt_to": "lax.lt_to_p.bind(jnp.array([-0., jnp.nan, 1., -jnp.inf, 2.]), "
             "jnp.array([0., jnp.inf, jnp.nan, 0., 2.]))",
    "le_to[int]": "lax.le_to_p.bind(jnp.array([1, 2, 3]), jnp.array([2, 2, 2]))",
    "lt_to[jaxpr]": "str(make_jaxpr(lax.lt_to_p.bind)(1., 2.))",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- inner jits of lax.fft & co.
for name, fn, arg in [
    ("fft[jnp]", "jnp.fft.fft", "jnp.array([0.5, -1.5, 2.0])"),
    ("fft[rfft]", "lambda x: lax.fft(x, 'rfft', (3,))", "jnp.array([0.5, -1.5, 2.0])"),
    ("fft[no_lengths]", "lambda x: lax.fft(x, 'fft', ())", "jnp.array([0.5, -1.5, 2.0])"),
    ("fft[enum]", "lambda x: lax.fft(x, lax.FftType.IFFT, (2,))", "jnp.ones((2, 2))"),
    ("fft[vmap_ifft]", "jax.vmap(jnp.fft.ifft)", "jnp.ones((2, 3))"),
    ("fft[fft2]", "jnp.fft.fft2", "jnp.ones((2, 3))"),
    ("fft[irfftn]", "jnp.fft.irfftn", "jnp.ones((2, 3))"),
    ("fft[grad_rfft_even]", "jax.grad(lambda x: jnp.fft.rfft(x).real.sum())",
     "jnp.array([0.5, -1.5, 2.0, 1.0])"),
    ("fft[grad_rfft_odd]", "jax.grad(lambda x: lax.fft(x, 'rfft', (3,)).real.sum())",
     "jnp.array([0.5, -1.5, 2.0])"),
    ("fft[grad_irfft]", "jax.grad(lambda z: jnp.fft.irfft(z).sum())",
     "jnp.array([1 + 1j, 2, 3j])"),
    ("fft[grad_fft]", "jax.grad(lambda x: jnp.fft.fft(x).imag.sum())",
     "jnp.array([0.5, -1.5, 2.0])"),
    ("angle[deg]", "lambda z: jnp.angle(z, deg=True)", Z),
    ("angle[real]", "jnp.angle", "jnp.array([1.0, -2.0])"),
    ("angle[int]", "jnp.angle", "jnp.array([1, -2])"),
    ("isreal[real]", "jnp.isreal", "jnp.array([1.0, -2.0])"),
    ("round[decimals]", "lambda z: jnp.round(z, 2)", Z),
    ("round[float]", "jnp.round", "jnp.array([0.5, 1.5, -2.5])"),
    ("round[float_decimals]", "lambda x: jnp.round(x, 1)", "jnp.array([0.25, 1.35])"),
    ("round[method]", "lambda z: z.round(1)", Z),
    ("around", "jnp.around", Z),
]:
    jaxpr(name, fn, arg)
for name, expr in {
    "fft_value[list_lengths_error]": "lax.fft(jnp.ones(3), 'fft', [3])",
    "fft_value[vmap]": "jax.vmap(jnp.fft.fft)(jnp.array([[1., 2.], [3., 5.]]))",
    "fft_value[grad_rfft]": "jax.grad(lambda x: jnp.fft.rfft(x).real.sum())"
                            "(jnp.array([0.5, -1.5, 2.0, 1.0]))",
    "fft_value[grad_irfft]": "jax.grad(lambda z: jnp.fft.irfft(z).sum())"
                             "(jnp.array([1 + 1j, 2, 3j]))",
    "round_value[complex]": f"jnp.round({Z} * 1.2345)",
    "round_value[out_error]": "jnp.round(jnp.ones(2), out=1)",
    "round_value[bool_error]": "jnp.round(jnp.array([True]))",
    "angle_value[deg]": f"[round(float(d), 3) for d in jnp.angle({Z}, deg=True)]",
    "isreal_value": "jnp.isreal(jnp.array([1 + 0j, 2j]))",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- typed scalars from vjp
for name, expr in {
    "typed[grad_aux]": "jax.grad(lambda x: (x ** 2, x), has_aux=True)(3.0)",
    "typed[grad_aux_tree]": "jax.grad(lambda x: (x ** 2, {'x': x, 'n': 2}), has_aux=True)(3.0)",
    "typed[value_and_grad_aux]": "jax.value_and_grad(lambda x: (x ** 2, x), has_aux=True)(3.0)",
    "typed[vjp_identity]": "jax.vjp(lambda x: x, 3.0)[0]",
    "typed[vjp_aux]": "jax.vjp(lambda x: (x * 2, x), 3.0, has_aux=True)[2]",
    "typed[vjp_int_bool]": "jax.vjp(lambda x, b: (x, b), 1, True)[0]",
    "typed[vjp_complex]": "jax.vjp(lambda z: z, 1 + 2j)[0]",
    "typed[vjp_array_untouched]": "jax.vjp(lambda x: x, jnp.ones(2))[0]",
    "typed[jvp_untyped]": "jax.jvp(lambda x: (x, x), (3.0,), (1.0,))",
    "typed[linearize_untyped]": "jax.linearize(lambda x: x, 3.0)[0]",
    "typed[nondiff_untyped]": "jax.grad(lambda x, y: (x * y, y), has_aux=True)(3.0, 2.0)",
    "typed[str]": "str(jax.vjp(lambda x: x, 3.0)[0])",
    "typed[x64]": X64.format("out = jax.vjp(lambda x: x, 3.0)[0]"),
    "typed[tuple_output_error]": "jax.grad(lambda x: (x, x))(1.0)",
    "jacrev[aux]": "jax.jacrev(lambda x: (jnp.sin(x), {'a': x, 'b': 2 * x}), has_aux=True)"
                   "(jnp.array([1.0, 2.0]))",
    "jacrev[aux_scalar]": "jax.jacrev(lambda x: (x, x), has_aux=True)(3.0)",
    "jacfwd[aux]": "jax.jacfwd(lambda x: (jnp.sin(x), {'a': x, 'b': 2 * x}), has_aux=True)"
                   "(jnp.array([1.0, 2.0]))",
    "jacfwd[aux_scalar]": "jax.jacfwd(lambda x: (x, x), has_aux=True)(3.0)",
    "hessian[aux]": "jax.hessian(lambda x: (jnp.sum(jnp.sin(x)), x ** 2), has_aux=True)"
                    "(jnp.array([1.0, 2.0]))",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- argmax of complex numbers
for name, expr in {
    "argmax_complex[jaxpr]": f"str(make_jaxpr(jnp.argmax)({Z}))",
    "argmin_complex": f"jnp.argmin({Z})",
    "argmax_complex[jit]": f"jax.jit(jnp.argmax)({Z})",
    "argmax_complex[lax]": f"lax.argmax({Z}, 0, jnp.int32)",
    "argmax_complex[axis]": f"jnp.argmax(jnp.stack([{Z}, {Z}]), axis=1)",
    "nanargmax_complex": f"jnp.nanargmax({Z})",
    "max_complex": f"jnp.max({Z})",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- under x64
for name, code in {
    "x64[searchsorted]": "out = str(make_jaxpr(lambda v: jnp.searchsorted(jnp.array([0., 1., 2.]), "
                         "v))(jnp.array([0.5, 2.5])))",
    "x64[searchsorted_sort]": "out = str(make_jaxpr(lambda v: jnp.searchsorted(jnp.array([0, 1, 2]), "
                              "v, method='sort'))(jnp.array([1, 3])))",
    "x64[diagonal]": "out = str(make_jaxpr(lambda a: jnp.diagonal(a, 1))(jnp.ones((2, 3))))",
    "x64[trace]": "out = str(make_jaxpr(lambda a: jnp.trace(a, 1))(jnp.ones((2, 3))))",
    "x64[typed_int]": "out = jax.vjp(lambda x: x, 3)[0]",
    "x64[grad_rfft]": "out = str(make_jaxpr(jax.grad(lambda x: jnp.fft.rfft(x).real.sum()))"
                      "(jnp.ones(4)))",
}.items():
    CASES[name] = X64.format(code)

# ---------------------------------------------------------------- take and take_along_axis
V4 = "jnp.array([3., 1., 2., 5.])"
for name, fn, args in [
    ("take", "lambda x: jnp.take(x, jnp.array([0, 2, -1]))", [V4]),
    ("take[axis]", "lambda x: jnp.take(x, jnp.array([0, 2]), axis=1)", [M]),
    ("take[2d_indices]", "lambda x: jnp.take(x, jnp.array([[0], [2]]), axis=0)", [M]),
    ("take[scalar]", "lambda x: jnp.take(x, 1)", [V4]),
    ("take[wrap]", "lambda x: jnp.take(x, jnp.array([5, -1]), mode='wrap')", [V4]),
    ("take[clip]", "lambda x: jnp.take(x, jnp.array([5, -1]), mode='clip')", [V4]),
    ("take[fill_value]", "lambda x: jnp.take(x, jnp.array([9]), fill_value=-1.)", [V4]),
    ("take[grad]", "jax.grad(lambda x: jnp.take(x, jnp.array([0, 0, 3])).sum())", [V4]),
    ("take[vmap]", "jax.vmap(lambda x: jnp.take(x, jnp.array([1, 0])))", [M]),
    ("take_along_axis", "lambda x: jnp.take_along_axis(x, jnp.array([[0], [1], [2]]), axis=1)",
     [M]),
    ("take_along_axis[batched]", "lambda x: jnp.take_along_axis(x, jnp.array([[0, 3], [1, 1], "
     "[2, -1]]), axis=1)", [M]),
    ("take_along_axis[axis0]", "lambda x: jnp.take_along_axis(x, jnp.array([[2, 0, 1, 1]]), "
     "axis=0)", [M]),
    ("take_along_axis[squeeze]", "lambda x: jnp.take_along_axis(x, jnp.zeros((1, 3, 2), int), "
     "axis=2)", ["jnp.ones((2, 1, 4))"]),
    ("take_along_axis[none]", "lambda x: jnp.take_along_axis(x, jnp.array([5, 0]), axis=None)",
     [M]),
    ("take_along_axis[uint8]", "lambda x: jnp.take_along_axis(x, jnp.array([[1], [0], [2]], "
     "jnp.uint8), axis=1)", [M]),
    ("take_along_axis[promise]", "lambda x: jnp.take_along_axis(x, jnp.array([[1], [0], [2]]), "
     "axis=1, mode='promise_in_bounds')", [M]),
    ("take_along_axis[argsort]", "lambda x: jnp.take_along_axis(x, jnp.argsort(x), axis=-1)", [M]),
    ("take_along_axis[grad]", "jax.grad(lambda x: jnp.take_along_axis(x, jnp.array([[1], [2], "
     "[0]]), 1).sum())", [M]),
]:
    jaxpr(name, fn, *args)
for name, expr in {
    "take_value": f"jnp.take({M}, jnp.array([[0, 13], [-1, 5]]))",
    "take_value[jit]": f"jax.jit(lambda x: jnp.take(x, jnp.array([2, -1, 5]), axis=1))({M})",
    "take_value[list_error]": f"jnp.take({M}, [0, 1])",
    "take_value[raise]": f"jnp.take({M}, jnp.array([0]), mode='raise')",
    "take_value[bad_mode]": f"jnp.take({M}, jnp.array([0]), mode='nearest')",
    "take_value[empty_axis]": "jnp.take(jnp.ones((0, 2)), jnp.array([0]), axis=0)",
    "take_value[empty_indices]": f"jnp.take({M}, jnp.zeros((0,), int), axis=1)",
    "take_along_axis_value": f"jnp.take_along_axis({M}, jnp.array([[0, 3], [9, -1], [-5, 2]]), "
                             "axis=1)",
    "take_along_axis_value[jit]": f"jax.jit(lambda x: jnp.take_along_axis(x, jnp.array([[2, 0, "
                                  f"1, 1]]), axis=0))({M})",
    "take_along_axis_value[float_error]": f"jnp.take_along_axis({M}, jnp.ones((3, 1)), axis=1)",
    "take_along_axis_value[rank_error]": f"jnp.take_along_axis({M}, jnp.array([1]), axis=1)",
    "take_along_axis_value[empty_axis]": "jnp.take_along_axis(jnp.ones((2, 0)), "
                                         "jnp.zeros((2, 3), int), axis=1)",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- select, nonzero, argwhere
for name, fn, args in [
    ("select", "lambda x: jnp.select([x > 1, x > 2], [x, -x], 0.)", [V4]),
    ("select[default_array]", "lambda x: jnp.select([x > 1], [x], x * 2)", [V4]),
    ("broadcast_arrays[scalar]", "lambda x: jnp.broadcast_arrays(False, x > 0)", [V4]),
    ("broadcast_to[scalar]", "lambda x: jnp.broadcast_to(2.0, (3,)) + x", ["1."]),
    ("nonzero[size]", "lambda x: jnp.nonzero(x > 1, size=3)", [V4]),
    ("nonzero[size_fill]", "lambda x: jnp.nonzero(x, size=2, fill_value=-1)", [M]),
    ("nonzero[size_fill_tuple]", "lambda x: jnp.nonzero(x, size=2, fill_value=(-1, -2))", [M]),
    ("nonzero[size_zero]", "lambda x: jnp.nonzero(x, size=0)", [M]),
    ("nonzero[vmap]", "jax.vmap(lambda x: jnp.nonzero(x, size=2)[0])", [M]),
    ("flatnonzero[size]", "lambda x: jnp.flatnonzero(x, size=3)", [M]),
    ("argwhere[size]", "lambda x: jnp.argwhere(x > 1, size=3)", [V4]),
    ("argwhere[size_2d]", "lambda x: jnp.argwhere(x, size=2, fill_value=9)", [M]),
    ("argwhere[scalar]", "lambda x: jnp.argwhere(x, size=1)", ["1."]),
]:
    jaxpr(name, fn, *args)
for name, expr in {
    "nonzero_value": f"jnp.nonzero({M} % 3 == 0)",
    "nonzero_value[size]": f"jax.jit(lambda x: jnp.nonzero(x % 3 == 0, size=5, "
                           f"fill_value=-1))({M})",
    "nonzero_value[traced_error]": f"jax.jit(jnp.nonzero)({M})",
    "nonzero_value[0d_error]": "jnp.nonzero(1.0)",
    "nonzero_value[fill_shape_error]": f"jnp.nonzero({M}, size=2, fill_value=jnp.ones(2))",
    "nonzero_value[empty]": "jnp.nonzero(jnp.ones((2, 0)), size=2)",
    "argwhere_value": f"jnp.argwhere({M} > 8)",
    "argwhere_value[scalar]": "(jnp.argwhere(3), jnp.argwhere(0))",
    "flatnonzero_value": f"jnp.flatnonzero({M} > 8)",
    "select_value": f"jnp.select([{M} > 8, {M} < 2], [{M}, -{M}], 7.)",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- tril/triu indices, interp
XP, FP = "jnp.array([0., 1., 2.])", "jnp.array([1., 3., 2.])"
for name, fn, args in [
    ("tril_indices", "lambda: jnp.tril_indices(3)", []),
    ("triu_indices[k]", "lambda: jnp.triu_indices(3, 1)", []),
    ("tril_indices[m]", "lambda: jnp.tril_indices(2, -1, 4)", []),
    ("tril_indices_from", "lambda x: x[jnp.tril_indices_from(x)]", ["jnp.ones((3, 3))"]),
    ("triu_indices_from[k]", "lambda x: jnp.triu_indices_from(x, -1)", ["jnp.ones((2, 3))"]),
    ("interp", f"lambda x: jnp.interp(x, {XP}, {FP})", [V4]),
    ("interp[left_right]", f"lambda x, l: jnp.interp(x, {XP}, {FP}, left=l, "
     "right='extrapolate')", [V4, "-1."]),
    ("interp[period]", f"lambda x: jnp.interp(x, {XP}, {FP}, period=2.)", [V4]),
    ("interp[grad]", f"jax.grad(lambda x: jnp.interp(x, {XP}, {FP}).sum())", [V4]),
]:
    jaxpr(name, fn, *args)
for name, expr in {
    "tril_indices_value": "[jnp.tril_indices(n, k, m) for n, k, m in [(0, 0, None), (3, -1, 2), "
                          "(2, 3, 5), (4, -5, 1)]]",
    "triu_indices_value": "[jnp.triu_indices(n, k, m) for n, k, m in [(0, 0, None), (3, -1, 2), "
                          "(2, 3, 5), (4, -5, 1)]]",
    "tril_indices_value[traced_error]": "jax.jit(jnp.tril_indices)(3)",
    "tril_indices_from_value[1d_error]": "jnp.tril_indices_from(jnp.ones(3))",
    "interp_value": f"jnp.interp(jnp.array([-1., 0.5, 1.5, 3.]), {XP}, {FP})",
    "interp_value[extrapolate]": f"jnp.interp(jnp.array([-1., 3.]), {XP}, {FP}, "
                                 "left='extrapolate', right='extrapolate')",
    "interp_value[period]": f"jnp.interp(jnp.array([-1., 0.5, 1.5, 3.]), {XP}, {FP}, period=2.)",
    "interp_value[bad_left]": f"jnp.interp(1., {XP}, {FP}, left='nearest')",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- partition, lexsort
TIES = "jnp.array([[3, 1, 2, 1, 5], [0, 0, 4, 4, 2]])"
for name, fn, args in [
    ("partition", "lambda x: jnp.partition(x, 2)", [V4]),
    ("partition[axis0]", "lambda x: jnp.partition(x, 1, axis=0)", [M]),
    ("partition[uint]", "lambda x: jnp.partition(x, 1)", ["jnp.array([3, 0, 2], jnp.uint8)"]),
    ("argpartition", "lambda x: jnp.argpartition(x, 2)", [V4]),
    ("argpartition[2d]", "lambda x: jnp.argpartition(x, -2)", [TIES]),
    ("lexsort", "lambda x: jnp.lexsort((x, -x))", [V4]),
    ("lexsort[axis0]", "lambda x: jnp.lexsort([x, x], axis=0)", [M]),
    ("partition[grad]", "jax.grad(lambda x: jnp.partition(x, 1)[0])", [V4]),
]:
    jaxpr(name, fn, *args)
for name, expr in {
    "partition_value": f"[jnp.partition({TIES}, k) for k in range(5)]",
    "partition_value[axis0]": f"jnp.partition({TIES}, 0, axis=0)",
    "partition_value[uint]": "jnp.partition(jnp.array([3, 0, 2, 255, 0], jnp.uint8), 2)",
    "argpartition_value": f"[jnp.argpartition({TIES}, k) for k in range(5)]",
    "argpartition_value[axis0]": f"jnp.argpartition({TIES}, 1, axis=0)",
    "partition_value[complex_error]": "jnp.partition(jnp.array([1j, 2]), 0)",
    "lexsort_value": f"jnp.lexsort(({TIES}[0], {TIES}[1]))",
    "lexsort_value[scalar]": "jnp.lexsort((jnp.array(1.), jnp.array(2.)))",
    "lexsort_value[empty_error]": "jnp.lexsort(())",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- a Python scalar under trace
for name, fn, args in [
    ("put", "lambda x: jnp.put(x, jnp.array([0, 1]), 9., inplace=False)", [V4]),
    ("fill_diagonal", "lambda x: jnp.fill_diagonal(x, 0., inplace=False)", [M]),
    ("ravel[scalar]", "lambda x: jnp.ravel(2.) + x", ["1."]),
    ("atleast_1d[scalar]", "lambda x: jnp.atleast_1d(2.) * x", ["1."]),
]:
    jaxpr(name, fn, *args)

# ---------------------------------------------------------------- histograms
H = "jnp.array([3., 1., 2., 5., 2.5])"
for name, fn, args in [
    ("histogram", "lambda x: jnp.histogram(x, bins=3, range=(0., 6.))", [H]),
    ("histogram[auto_range]", "lambda x: jnp.histogram(x, bins=3)", [H]),
    ("histogram[edges_density]", "lambda x: jnp.histogram(x, bins=jnp.array([0., 2., 6.]), "
     "density=True)", [H]),
    ("histogram[weights]", "lambda x, w: jnp.histogram(x, 2, (0, 4), weights=w)", [H, H]),
    ("histogram_bin_edges[traced_range]", "lambda x: jnp.histogram_bin_edges(x, 4, "
     "(x.min(), 9.))", [H]),
    ("histogram2d", "lambda x: jnp.histogram2d(x, x, bins=2)", [H]),
    ("histogramdd[density]", "lambda x: jnp.histogramdd(jnp.stack([x, x], 1), bins=2, "
     "density=True)", [H]),
]:
    jaxpr(name, fn, *args)
for name, expr in {
    "histogram_value": f"jnp.histogram({H}, bins=3)",
    "histogram_value[flat_range]": f"jnp.histogram({H}, bins=2, range=(1, 1))",
    "histogram2d_value": f"jnp.histogram2d({H}, -{H}, bins=2)",
    "histogram_bin_edges_value[bad_range]": f"jnp.histogram_bin_edges({H}, 2, (1., 2., 3.))",
}.items():
    value(name, expr)

# ---------------------------------------------------------------- top_k's JVP: a batched gather
TK = "jnp.array([[3., 1., 2., 5.], [0., 4., -1., 2.]])"
for name, fn in {
    "top_k[grad]": "jax.grad(lambda x: lax.top_k(x, 2)[0].sum())",
    "top_k[grad_axis0]": "jax.grad(lambda x: lax.top_k(x, 1, axis=0)[0].sum())",
    "top_k[jvp]": "lambda x: jax.jvp(lambda x: lax.top_k(x, 3)[0], (x,), (x * 2,))",
    "top_k[vmap_grad]": "jax.vmap(jax.grad(lambda x: lax.top_k(x, 2)[0] @ jnp.array([1., 3.])))",
}.items():
    jaxpr(name, fn, TK)
value("top_k_value[grad]", f"jax.grad(lambda x: (lax.top_k(x, 2)[0] * jnp.array([1., 2.]))"
      f".sum())({TK})")
value("top_k_value[jit_vmap_grad]", "jax.jit(jax.vmap(jax.grad(lambda x: lax.top_k(x, 2)[0] "
      f"@ jnp.array([1., 3.]))))({TK})")
