"""The Numba CUDA backend computes what the reference interpreter computes, without a GPU.

Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) runs the very kernels the backend
generates, every GPU thread as a Python thread, with the same ``cuda.threadIdx``,
``cuda.shared.array`` and ``cuda.syncthreads()``. So the grid-stride loops, the reduction
trees, the tiled matmul, the scatters' atomics and the host-driven control flow are all
exercised, and compared with the reference interpreter, on a machine with no GPU. The
simulator is set below, before numba.cuda is imported; NUMBA_ENABLE_CUDASIM=0 in the
environment runs the same tests on a real GPU instead.

What runs, and why only that:

* every golden case of tests/jax_golden.json that ``test_conformance.py`` runs, with
  ``edujax_backend="cuda"``, except ``SLOW_CASES``: ``linear_regression_loop`` jits a
  gradient step and calls it hundreds of times, 12 s in the simulator for nothing the other
  cases do not already cover;
* random programs (tests/program_generator.py) against the reference, 30 examples as for
  the CPU backend (their arrays are tiny: the simulator starts a Python thread per GPU
  thread, so every launch costs milliseconds);
* targeted programs for each kind of kernel, and device residency (a jitted result stays a
  GPU array; feeding it to the next jitted function copies nothing to the host).

Launch sizes are the simulator's (runtime.SIMULATOR_SIZES: 4 threads per block, 2x2 matmul
tiles), so that even these tiny arrays span several blocks and several tree levels.
"""
from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
numba = pytest.importorskip("numba")
if "numba.cuda" not in sys.modules:  # numba itself may be imported already (the CPU backend)
    numba.config.ENABLE_CUDASIM = int(os.environ["NUMBA_ENABLE_CUDASIM"] not in ("", "0"))
cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (edujax[cuda])")

from conformance import load_golden, passes, report, run_case  # noqa: E402
from conformance_scope import ENABLED, ISSUE_CASES  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from backend_compare import assert_same  # noqa: E402
from program_generator import random_program  # noqa: E402

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax import backends, lax  # noqa: E402
from edujax.backends.numba_cuda import runtime  # noqa: E402
from edujax.backends.numba_cuda.array import CudaArray  # noqa: E402
from edujax.config import config  # noqa: E402

if not cuda.is_available():
    pytest.skip("no CUDA GPU, and numba.cuda was imported without the simulator",
                allow_module_level=True)

pytestmark = pytest.mark.filterwarnings(
    "error::edujax.backends.numba_cuda.backend.CudaCompileWarning")
SLOW_CASES = {"linear_regression_loop"}


@pytest.fixture(autouse=True)
def cuda_backend():
    """Every test runs with the cuda backend, and leaves the configuration as it found it."""
    before = config.read("edujax_backend")
    config.update("edujax_backend", "cuda")
    yield
    config.update("edujax_backend", before)


def run_on(backend: str, fn, *args, **jit_kwargs):
    config.update("edujax_backend", backend)
    try:
        return jax.jit(fn, **jit_kwargs)(*args)
    finally:
        config.update("edujax_backend", "cuda")


def check(fn, *args, **jit_kwargs):
    """Run ``fn`` on the reference and on cuda, compare, and return the cuda result."""
    want = run_on("reference", fn, *args, **jit_kwargs)
    got = run_on("cuda", fn, *args, **jit_kwargs)
    assert_same(got, want)
    return got


def compiled_text(fn, *args) -> str:
    return jax.jit(fn).lower(*args).compile().as_text()


def f32(*shape, seed=0):
    return jnp.asarray(np.random.default_rng(seed).standard_normal(shape), jnp.float32)


# ---------------------------------------------------------------- the kernels, as text
def test_selu_is_one_grid_stride_kernel():
    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
    x = jnp.linspace(-3, 3, 20, dtype=jnp.float32)
    text = compiled_text(selu, x)
    assert text.count("@cuda.jit") == 1 and "def fused_0(A, G):" in text
    assert "for flat in range(cuda.grid(1), 20, cuda.gridsize(1)):" in text
    assert "c = np.float32(exp(a))" in text  # the jaxpr's names, device_math's exp
    sizes = runtime.launch_sizes()  # the simulator's (2 blocks of 4 threads) or a GPU's
    blocks = runtime.blocks_for(20, sizes.threads, sizes.max_blocks)
    assert f"fused_0[{blocks}, {sizes.threads}](a, g)" in text
    check(selu, x)


def _selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def _loss(w, x):
    y = jnp.tanh(x @ w)
    return (y ** 2).sum()


TUTORIAL_JITS = {  # the tutorials' jitted functions (as tests/test_source_info.py's)
    "selu": (_selu, (jnp.arange(5.0),)),
    "grad(loss)": (jax.grad(_loss), (jnp.ones((3, 2)), jnp.ones((4, 3)))),
    "vmap(selu)": (jax.vmap(_selu), (jnp.ones((2, 3)),)),
    "sum_of_squares": (lambda x: jnp.sum(x ** 2), (jnp.arange(4.0),)),
    "sort then cumsum": (lambda x: jnp.cumsum(jnp.sort(x) * 2.0), (jnp.arange(4.0),)),
}


@pytest.mark.parametrize("name", list(TUTORIAL_JITS))
def test_every_equation_names_its_generated_line_and_python_line(name):
    """Issue 29: as the CPU backend's, each equation's first statement in the CUDA module
    (in a kernel, or the driver's launch or host rule) says which equation it computes and
    which line of this file made it; the compiled source itself stays place-free."""
    from edujax.backends.numba_cuda.provenance import cuda_statement_origins

    fun, args = TUTORIAL_JITS[name]
    program = jax.jit(fun).lower(*args).compile()._entry.executable
    module = program.module
    marked = {id(o) for o in cuda_statement_origins(module.source, module.provenance) if o}
    for origin in module.provenance.values():  # 100% of the equations
        assert id(origin) in marked, origin.eqn_text
        assert origin.place.frame is not None and origin.place.frame.file_name == __file__
    assert module.source.count(__file__) == 0  # (the source names the cached module file)
    text = program.as_text()
    assert text.count(f"<- {__file__}:") >= len({id(o) for o in module.provenance.values()})


def test_a_kernel_statement_carries_its_equation_and_line():
    text = compiled_text(_selu, jnp.arange(5.0))
    line = _selu.__code__.co_firstlineno + 1
    assert (f"        c = np.float32(exp(a))  # c:f32[5] = exp a  <- {__file__}:{line}:47 "
            "(_selu)") in text
    text = compiled_text(jax.grad(_loss), jnp.ones((3, 2)), jnp.ones((4, 3)))
    line = _loss.__code__.co_firstlineno + 1
    launch = next(t for t in text.splitlines() if t.startswith("    dot_0["))
    assert launch.endswith(f"(b, a, c)  # dot_general: tiled matmul  <- {__file__}:{line}:17 "
                           "(_loss)")
    rule = compiled_text(lambda x: jnp.sort(x) * 2.0, jnp.arange(4.0))
    assert re.search(r"    b, = rules\[0\]\(a\)  # sort: .*  <- .*test_cuda_backend.py:\d+", rule)


def test_reductions_combine_in_a_shared_memory_tree():
    x = f32(3, 5)
    text = compiled_text(lambda v: (v.sum(1), v.max(0), jnp.argmax(v, axis=1)), x)
    threads = runtime.launch_sizes().threads
    assert f"cuda.shared.array({threads}, np.float32)" in text and "cuda.syncthreads()" in text
    assert "while half > 0:" in text and "arg_better(" in text
    for axes in [(0,), (1,), None]:
        check(lambda v, a=axes: (jnp.sum(v, axis=a), jnp.max(v, axis=a), jnp.min(v, axis=a),
                                 jnp.prod(v, axis=a)), x)
    y = f32(2, 3, 4, seed=1)
    check(lambda v: (v.sum((0, 2)), jnp.argmin(v, axis=1), jnp.argmax(v, axis=0)), y)
    xi = jnp.arange(24, dtype=jnp.int32).reshape(2, 3, 4) - 12
    check(lambda v: (jnp.sum(v, axis=1), v.max(0), jnp.all(v > -10, axis=2),
                     jnp.any(v > 10), jnp.argmax(v, axis=2), jnp.prod(v, axis=2)), xi)


def test_nan_ties_and_empty_reductions():
    x = jnp.asarray([[1.0, np.nan, 3.0, 3.0, np.nan], [2.0, 2.0, -1.0, -1.0, 0.0]], jnp.float32)
    check(lambda v: (v.max(1), v.min(1), jnp.argmax(v, 1), jnp.argmin(v, 1), v.sum()), x)
    check(lambda v: (v.sum(0), v.prod(0), jnp.max(v, axis=1)), jnp.zeros((0, 3), jnp.float32))


@pytest.mark.parametrize("dims", [((1,), (0,)), ((0,), (0,)), ((1,), (1,)), ((0,), (1,))])
def test_matrix_products_in_every_orientation(dims):
    a, b = f32(3, 5), f32(5, 3, seed=1) if dims[0] == (1,) else f32(3, 3, seed=1)
    if dims == ((0,), (0,)):
        b = f32(3, 4, seed=1)
    elif dims == ((1,), (1,)):
        b = f32(4, 5, seed=1)
    elif dims == ((0,), (1,)):
        b = f32(4, 3, seed=1)
    text = compiled_text(lambda a, b: lax.dot_general(a, b, (dims, ((), ()))), a, b)
    sizes = runtime.launch_sizes()
    tile, wide = sizes.tile, sizes.tile * sizes.per_thread
    assert f"TILE_A = cuda.shared.array(({tile}, {wide + 1}), np.float32)" in text
    check(lambda a, b: lax.dot_general(a, b, (dims, ((), ()))), a, b)


def test_batched_vector_and_integer_products():
    x, y = f32(2, 3, 4), f32(2, 4, 5, seed=1)
    check(jnp.matmul, x, y)
    check(lambda v, w: v @ w, x[0, 0], y[0])
    check(lambda v: v @ v, x[0, 0])
    check(jnp.dot, jnp.arange(6).reshape(2, 3), jnp.arange(6).reshape(3, 2))
    check(lambda a, b: jnp.einsum("bij,bkj->bik", a, b), x, x)


# ---------------------------------------------------------------- elementwise semantics
def test_integer_semantics_match_xla():
    big = jnp.asarray([2**31 - 1, -2**31, 7, -7, 0, 5], jnp.int32)
    d = jnp.asarray([1, -1, 2, 2, 3, 0], jnp.int32)
    check(lambda a, b: (a + b, a * b, -a, abs(a), a // b, a % b, lax.div(a, b), lax.rem(a, b),
                        a ** 2, jnp.sign(a)), big, d)
    shifts = jnp.asarray([-1, 0, 1, 31, 32, 40], jnp.int32)
    check(lambda a, s: (lax.shift_left(a, s), lax.shift_right_arithmetic(a, s),
                        lax.shift_right_logical(a, s), a & s, a | s, a ^ s, ~a), big, shifts)
    u = jnp.asarray([0, 1, 2**32 - 1, 12345], jnp.uint32)
    check(lambda a: (a + jnp.uint32(7), a * a, a >> 3, a // jnp.uint32(3),
                     lax.div(a, jnp.zeros_like(a))), u)


def test_float_edge_cases_casts_and_math():
    x = jnp.asarray([0.0, -0.0, 1.5, -2.5, 2.5, np.inf, -np.inf, np.nan, 3e9, -3e9, 1e-40],
                    jnp.float32)
    check(lambda v: (jnp.sign(v), jnp.round(v), lax.round(v, 0), jnp.floor(v), jnp.ceil(v),
                     jnp.isfinite(v), v.astype(jnp.int32), v.astype(jnp.uint8),
                     v.astype(jnp.bool_), v.astype(jnp.int64), jnp.maximum(v, 0.0),
                     jnp.clip(v, -1, 1), jnp.fmod(v, 2.0), jnp.sqrt(v), v / 0.0), x)
    y = jnp.linspace(-3, 3, 13, dtype=jnp.float32)
    check(lambda v: (jnp.exp(v), jnp.log(jnp.abs(v)), jnp.log1p(jnp.abs(v)), jnp.expm1(v),
                     jnp.tanh(v), jax.nn.sigmoid(v), jnp.sin(v), jnp.cos(v), jnp.tan(v),
                     jnp.arctan2(v, 1.5), jnp.power(jnp.abs(v), 1.7), jnp.cbrt(v), lax.erf(v),
                     jnp.sinh(v), jnp.arcsinh(v), jnp.exp2(v), lax.rsqrt(jnp.abs(v))), y)


def test_complex_arithmetic_runs_in_kernels_the_rest_on_the_host():
    """Complex arithmetic and real/imag/complex/conj fuse into kernels (numba-cuda has complex
    scalars); abs, division, transcendental functions and the FFT run their reference rules."""
    z = jnp.asarray(np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.75j, -2 + 0j], np.complex64))

    def f(z):
        w = z * z - jnp.conj(z) + 1j
        return (w, jnp.real(w), lax.complex(jnp.imag(z), jnp.real(z) * 2), w == z,
                jnp.abs(w), jnp.exp(z) / (1 - 2j), jnp.fft.fft(z))
    text = compiled_text(f, z)
    assert "conjugate()" in text and "fft: reference rule on the host" in text
    check(f, z)


def test_views_are_read_in_place_or_copied_by_a_kernel():
    x = jnp.arange(24.0).reshape(4, 6)

    def f(v):
        return (v[1:3, ::2] * 2.0 + v[:2, 3:6], v[::-1, 1:] - 1.0, lax.rev(v, (1,)) + v,
                v.T, v.reshape(3, 8), jnp.broadcast_to(v[0], (2, 6)), jnp.sum(v[::2, ::-3], 0))

    text = compiled_text(f, x)
    assert "= A[(3 - i0) * 6 + i1 + 1]" in text  # v[::-1, 1:] read in place, no copy
    assert "reshape: the same flat buffer" in text and "(copy kernel)" in text
    check(f, x)


def test_gathers_and_scatters_are_kernels():
    x = jnp.arange(12.0).reshape(3, 4)
    idx = jnp.asarray([2, 0, 2, 5, -1])
    text = compiled_text(lambda v, i: (v[:, i], v.at[i].add(1.0)), x, idx)
    assert "(gather kernel)" in text and "cuda.atomic.add(OUT, " in text
    check(lambda v, i: (v[i], v[:, i], v[i, 1:3], v.at[i].get(mode="fill", fill_value=-1.0),
                        v[jnp.abs(i[:3]) % 3, jnp.abs(i[1:4]) % 4]), x, idx)
    check(lambda v, i: (v.at[i].add(1.0), v.at[i, 1].add(10.0), v.at[i].min(2.0),
                        v.at[i].max(5.0), v.at[i].mul(2.0),  # (mul: on the host)
                        v.at[jnp.asarray([0, 2])].set(jnp.ones((2, 4)))), x, idx)
    check(jax.grad(lambda w: (w[jnp.asarray([0, 0, 2])] ** 2).sum()), x)
    check(jax.vmap(lambda v, i: v[i]), x, jnp.asarray([1, 3, 0]))


# ---------------------------------------------------------------- host steps
def test_primitives_without_a_kernel_run_their_reference_rule_on_the_host():
    x = jnp.arange(6, dtype=jnp.float32)
    text = compiled_text(lambda v: jnp.sin(jnp.cumsum(v * 2.0)) + 1.0, x)
    assert "cumsum: reference rule on the host (copies)" in text
    check(lambda v: jnp.sin(jnp.cumsum(v * 2.0)) + 1.0, x)
    check(lambda v: (v.astype(jnp.float16) * 2).astype(jnp.float32), x)  # a host dtype


def test_control_flow_is_driven_from_the_host():
    def loop(x):
        def body(c):
            i, v = c
            return i + 1, jnp.sin(v) * 1.5
        return lax.while_loop(lambda c: c[0] < 3, body, (0, x))

    def scan(xs):
        return lax.scan(lambda c, x: (c + x, jnp.tanh(c * x)), jnp.zeros(3), xs)

    def branches(p, x):
        return lax.cond(p > 0, lambda v: jnp.exp(v), lambda v: v - 1.0, x)

    xs = f32(3, 3, seed=6)
    check(loop, xs[0])
    check(scan, xs)
    check(branches, 1.0, xs)
    check(branches, -1.0, xs)
    text = compiled_text(scan, xs)
    assert "(ScanLoop): body" in text and "(fill kernel)" in text


def test_a_while_with_a_batched_predicate_runs_until_every_example_is_done():
    """vmap's while returns one predicate per example; the host loop runs while any holds,
    and the body keeps the carry of the examples that are done (flatten lowers it so)."""
    def counted_power(n, s):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * s), (0, 1.0))[1]
    ns, ss = jnp.array([0, 3, 1, 5]), jnp.array([2.0, 0.5, 3.0, -1.0])
    check(jax.vmap(counted_power), ns, ss)
    check(jax.vmap(jax.vmap(counted_power)), ns.reshape(2, 2), ss.reshape(2, 2))


def test_gradients_and_literals():
    def mlp_loss(params, x, y):
        (w1, b1), (w2, b2) = params
        h = jnp.tanh(x @ w1 + b1)
        return jnp.mean((h @ w2 + b2 - y) ** 2)

    params = ((f32(3, 4), f32(4, seed=1)), (f32(4, 1, seed=2), f32(1, seed=3)))
    check(jax.value_and_grad(mlp_loss), params, f32(5, 3, seed=4), f32(5, 1, seed=5))
    table = jnp.arange(5.0)
    check(lambda x, y: (x, 2.0, table * x, y + table[2]), 2.0, jnp.float32(1.5))


# ---------------------------------------------------------------- golden cases, random programs
def _golden_cases():
    names = set().union(*(ISSUE_CASES[issue] for issue in ENABLED)) - SLOW_CASES
    return [case for case in load_golden()["cases"] if case["name"] in names]


@pytest.mark.parametrize("case", _golden_cases(), ids=lambda case: case["name"])
def test_golden_case_on_cuda(case):
    result = run_case(case["code"], jax)
    if not passes(case, result):
        pytest.fail(report(case, result), pytrace=False)


@settings(max_examples=30)
@given(random_program())
def test_random_programs_match_the_reference(program_and_args):
    program, args = program_and_args
    check(program, *[jnp.asarray(a) for a in args])


# ---------------------------------------------------------------- arrays on the device
def test_results_stay_on_the_gpu_between_jitted_calls():
    f = jax.jit(lambda v: jnp.sin(v) * 2.0 + 1.0)
    x = jnp.arange(6, dtype=jnp.float32)
    before = dict(runtime.TRANSFERS)
    y = f(x)  # x is a CPU array: one upload
    z = f(f(y))  # y and f(y) are GPU arrays: no copy at all
    assert isinstance(y, CudaArray) and isinstance(z, CudaArray)
    assert (z.shape, z.dtype, z.weak_type, str(z.device)) == ((6,), jnp.float32, False, "cuda:0")
    assert runtime.TRANSFERS["to_device"] == before.get("to_device", 0) + 1
    assert runtime.TRANSFERS["to_host"] == before.get("to_host", 0)
    expected = np.sin(np.sin(np.sin(np.arange(6.0)) * 2 + 1) * 2 + 1) * 2 + 1
    np.testing.assert_allclose(np.asarray(z), expected, rtol=1e-5)  # one copy back ...
    assert "Array([" in repr(z) and float(z[0]) == pytest.approx(expected[0], rel=1e-5)
    assert runtime.TRANSFERS["to_host"] == before.get("to_host", 0) + 1  # ... kept after


def test_device_put_devices_and_block_until_ready(monkeypatch):
    gpu, = jax.devices()
    assert (gpu.platform, repr(gpu), jax.default_backend()) == ("gpu", "CudaDevice(id=0)", "gpu")
    assert jax.devices("cpu")[0].platform == "cpu"
    x = jax.device_put(np.arange(4.0, dtype=np.float32), gpu)
    assert isinstance(x, CudaArray) and x.devices() == {gpu}
    waited = []
    monkeypatch.setattr(runtime, "synchronize", lambda: waited.append(True))
    assert x.block_until_ready() is x and jax.block_until_ready({"a": x})["a"] is x
    assert len(waited) == 2
    back = jax.device_put(x, jax.devices("cpu")[0])
    assert type(back) is jax.Array and back.device.platform == "cpu"
    np.testing.assert_array_equal(back, [0.0, 1.0, 2.0, 3.0])
    assert (x * 2).device.platform == "cpu"  # operations outside jit run on the host
    config.update("edujax_backend", "reference")
    assert jax.devices()[0].platform == "cpu"  # the CPU again once the backend is not cuda
    np.testing.assert_array_equal(jax.jit(lambda v: v + 1)(x), [1.0, 2.0, 3.0, 4.0])


def test_a_failing_compile_warns_and_runs_on_the_host(monkeypatch):
    from edujax.backends.numba_cuda import backend

    def broken(*args, **kwargs):
        raise RuntimeError("codegen bug")
    monkeypatch.setattr(backend, "generate_module", broken)
    x = jax.device_put(np.ones(2, np.float32), jax.devices()[0])  # a GPU input
    f = jax.jit(lambda v: v * 7.0)
    with pytest.warns(backend.CudaCompileWarning, match="codegen bug"):
        out = f(x)
    np.testing.assert_array_equal(out, [7.0, 7.0])
    assert f.cache_info().entries[0].tier == "reference"


def test_missing_numba_cuda_raises_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba.cuda", None)  # `from numba import cuda` now fails
    monkeypatch.delattr(numba, "cuda", raising=False)
    monkeypatch.delitem(backends._instances, "cuda", raising=False)
    with pytest.raises(RuntimeError, match=r'pip install "edujax\[cuda\]"'):
        jax.jit(lambda v: v + 1)(jnp.ones(2))
    with pytest.raises(RuntimeError, match="numba-cuda"):
        jax.devices("gpu")


def test_no_gpu_raises_a_clear_error_not_a_driver_traceback(monkeypatch):
    """numba-cuda installed, but no driver or GPU (and no simulator): say what to do."""
    monkeypatch.setattr(runtime, "gpu_available", lambda: False)
    monkeypatch.delitem(backends._instances, "cuda", raising=False)
    with pytest.raises(RuntimeError, match="found no CUDA GPU.*NUMBA_ENABLE_CUDASIM=1"):
        jax.jit(lambda v: v + 1)(jnp.ones(2))


def test_gpu_memory_comes_from_a_pool():
    """On a GPU, buffers freed by one call are reused by the next (memory_pool.py): after a
    warm-up, repeated calls take no new memory from the driver. The simulator has no
    driver, so there the pool stays off."""
    if runtime.simulator():
        assert runtime._POOL == [False]
        return
    manager = cuda.current_context().memory_manager
    f = jax.jit(lambda v: (jnp.sin(v) * 2.0 + 1.0, v.sum()))
    x = f32(1 << 20)
    for _ in range(3):
        f(x)
    runtime.synchronize()
    free = manager.get_memory_info().free
    for _ in range(20):
        f(x)
    runtime.synchronize()
    assert manager.get_memory_info().free == free and manager.cached_bytes > 0
