"""The Numba CPU backend computes what the reference interpreter computes.

The reference interpreter is the spec: every program here runs twice, ``jit`` on the
``reference`` backend and ``jit`` on the ``numba`` backend, and the results must agree
(exactly for integers and bools, to a few float32 ulps for floats, whose sums may be added
in another order and whose exp/log/... come from edujax's own vectorizable math).

Kernels are shared across tests and test runs: a generated module is stored under the hash
of its text in the persistent cache (``EDUJAX_CACHE_DIR``), so the same program with the same
shapes is compiled by Numba once. Tests that look at the cache itself use a temporary folder.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from hypothesis import given, settings  # noqa: E402
from backend_compare import assert_same  # noqa: E402
from program_generator import random_program  # noqa: E402

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax import lax  # noqa: E402
from edujax.backends.fast_start import cache  # noqa: E402
from edujax.backends.passes import fusion  # noqa: E402
from edujax.backends.numba_cpu.backend import NumbaCompileWarning  # noqa: E402
from edujax.backends.passes.inline import inline_calls  # noqa: E402
from edujax.config import config  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error::edujax.backends.numba_cpu.backend."
                                        "NumbaCompileWarning")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def synchronous(monkeypatch):
    """Compile at once (the tiering tests turn it back on) and restore the backend after."""
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    before = config.read("edujax_backend")
    yield
    config.update("edujax_backend", before)


def run_on(backend: str, fn, *args, **jit_kwargs):
    config.update("edujax_backend", backend)
    return jax.jit(fn, **jit_kwargs)(*args)


def check(fn, *args, **jit_kwargs):
    """Run ``fn`` on both backends, compare, and return the numba result."""
    want = run_on("reference", fn, *args, **jit_kwargs)
    got = run_on("numba", fn, *args, **jit_kwargs)
    assert_same(got, want)
    return got


def compiled_text(fn, *args) -> str:
    config.update("edujax_backend", "numba")
    return jax.jit(fn).lower(*args).compile().as_text()


def steps_of(fn, *args) -> list:
    closed = inline_calls(jax.make_jaxpr(fn)(*args))
    return fusion.partition(closed.jaxpr)


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def softmax(x):
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / jnp.sum(e, axis=-1, keepdims=True)


def mlp_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 + b2 - y) ** 2)


def mlp_args(seed=0, n=8, d=5, hidden=6):
    rng = np.random.default_rng(seed)
    f32 = lambda *s: jnp.asarray(rng.standard_normal(s).astype(np.float32))
    params = ((f32(d, hidden), f32(hidden)), (f32(hidden, 1), f32(1)))
    return params, f32(n, d), f32(n, 1)


# ---------------------------------------------------------------- registration and text
def test_importing_edujax_does_not_import_numba():
    code = "import sys, edujax; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert out.stdout.strip() == "False"


def test_selu_is_one_loop_and_its_source_reads_like_the_jaxpr():
    x = jnp.linspace(-3, 3, 1000, dtype=jnp.float32)
    text = compiled_text(selu, x)
    assert text.count("@njit") == 1 and "def fused_0(A, G):" in text
    assert "for i0 in range(1000):" in text
    assert "c = exp_f32(a)" in text  # the jaxpr's names, the branch-free exp
    assert "fused_0 (Numba loop)" in text  # the table of where each equation runs
    assert "def run(consts, rules, stop, a):" in text
    # the driver allocates, the kernel fills:
    assert "    g = np.empty((1000,), np.float32)\n    fused_0(a, g)" in text
    check(selu, x)
    entry, = [e for e in jax.jit(selu).cache_info().entries if e.backend == "numba"]
    # compiled kernels, named by the compiler that made them: edujax's own (direct.py), or
    # its machine code from an object file an earlier process wrote in the same cache folder
    assert entry.tier in ("direct", "object file")


def test_fusion_groups_of_softmax_and_mlp():
    x = jnp.ones((4, 8))
    groups = [s for s in steps_of(softmax, x) if isinstance(s, fusion.FusionGroup)]
    # max | x - max, exp, sum | e / sum: the broadcasts are read through, never made.
    assert [[e.primitive.name for e in g.eqns] for g in groups] == [
        ["reduce_max"], ["sub", "exp", "reduce_sum"], ["div"]]
    assert all(g.shape == (4, 8) for g in groups)
    steps = steps_of(jax.grad(mlp_loss), *mlp_args())
    kinds = [s.kind if isinstance(s, fusion.CallStep) else "group" for s in steps]
    assert kinds.count("dot") == 5 and kinds.count("group") == 3
    assert set(kinds) == {"dot", "group", "view"}  # nothing falls back to a reference rule


def test_a_primitive_without_lowering_runs_its_reference_rule_between_kernels():
    def f(x):
        return jnp.sin(jnp.cumsum(x * 2.0)) + 1.0
    x = jnp.arange(10, dtype=jnp.float32)
    text = compiled_text(f, x)
    assert "cumsum: reference rule (NumPy)" in text
    assert text.count("@njit") == 2
    check(f, x)


# ---------------------------------------------------------------- programs: numba == reference
def test_softmax_mlp_and_its_gradient():
    check(softmax, jnp.asarray(np.random.default_rng(1).standard_normal((5, 7)), jnp.float32))
    args = mlp_args()
    check(mlp_loss, *args)
    check(jax.grad(mlp_loss), *args)
    check(jax.value_and_grad(mlp_loss, argnums=(0, 1)), *args)


@pytest.mark.parametrize("dims", [((1,), (0,)), ((0,), (0,)), ((1,), (1,)), ((0,), (1,))])
def test_matrix_products_in_every_orientation(dims):
    rng = np.random.default_rng(2)
    a = jnp.asarray(rng.standard_normal((3, 3)), jnp.float32)
    b = jnp.asarray(rng.standard_normal((3, 3)), jnp.float32)
    check(lambda a, b: lax.dot_general(a, b, (dims, ((), ()))), a, b)


def test_dots_batched_vector_and_integer():
    rng = np.random.default_rng(3)
    x = jnp.asarray(rng.standard_normal((2, 3, 4)), jnp.float32)
    y = jnp.asarray(rng.standard_normal((2, 4, 5)), jnp.float32)
    check(jnp.matmul, x, y)
    check(lambda v, w: v @ w, x[0, 0], y[0])
    check(lambda v: v @ v, x[0, 0])
    check(jnp.dot, jnp.arange(6).reshape(2, 3), jnp.arange(6).reshape(3, 2))
    check(lambda a, b: jnp.einsum("bij,bkj->bik", a, b), x, x)


def test_reductions_in_both_loop_layouts():
    x = jnp.asarray(np.random.default_rng(4).standard_normal((3, 4, 5)), jnp.float32)
    for axes in [(0,), (1,), (2,), (1, 2), (0, 2), None]:
        check(lambda v, a=axes: (jnp.sum(v, axis=a), jnp.max(v, axis=a), jnp.prod(v, axis=a),
                                 jnp.min(v, axis=a)), x)
    for axis in [0, 1, 2]:
        check(lambda v, a=axis: (jnp.argmax(v, axis=a), jnp.argmin(v, axis=a)), x)
    xi = jnp.arange(60, dtype=jnp.int32).reshape(3, 4, 5) - 30
    check(lambda v: (jnp.sum(v, axis=1), v.max(0), jnp.all(v > -20, axis=2),
                     jnp.any(v > 20), jnp.argmax(v, axis=0), jnp.prod(v, axis=2)), xi)


def test_nan_and_empty_reductions():
    x = jnp.asarray([[1.0, np.nan, 3.0], [np.nan, 0.0, -1.0]], jnp.float32)
    check(lambda v: (v.max(1), v.min(0), jnp.argmax(v, 1), jnp.argmin(v, 0), v.sum()), x)
    e = jnp.zeros((0, 3), jnp.float32)
    check(lambda v: (v.sum(0), v.prod(0), jnp.sum(v), jnp.max(v, axis=1)), e)


def test_integer_semantics_match_xla():
    big = jnp.asarray([2**31 - 1, -2**31, 7, -7, 0, 5], jnp.int32)
    d = jnp.asarray([1, -1, 2, 2, 3, 0], jnp.int32)
    check(lambda a, b: (a + b, a * b, a - b, -a, abs(a), a // b, a % b,
                        lax.div(a, b), lax.rem(a, b), a ** 2, jnp.sign(a)), big, d)
    shifts = jnp.asarray([-1, 0, 1, 31, 32, 40], jnp.int32)
    check(lambda a, s: (lax.shift_left(a, s), lax.shift_right_arithmetic(a, s),
                        lax.shift_right_logical(a, s), a & s, a | s, a ^ s, ~a), big, shifts)
    u = jnp.asarray([0, 1, 2**32 - 1, 12345], jnp.uint32)
    check(lambda a: (a + jnp.uint32(7), a * a, a >> 3, a << 31, a // jnp.uint32(3),
                     lax.div(a, jnp.zeros_like(a)), lax.shift_right_arithmetic(a, a)), u)
    small = jnp.asarray([100, -100, 127], jnp.int8)
    check(lambda a: (a + a, a * jnp.int8(3), -a), small)


def test_float_edge_cases_and_casts():
    x = jnp.asarray([0.0, -0.0, 1.5, -2.5, 2.5, np.inf, -np.inf, np.nan, 3e9, -3e9, 1e-40],
                    jnp.float32)
    check(lambda v: (jnp.sign(v), jnp.round(v), lax.round(v, 0),
                     jnp.floor(v), jnp.ceil(v), jnp.isfinite(v), v.astype(jnp.int32),
                     v.astype(jnp.uint8), v.astype(jnp.bool_), v.astype(jnp.int64),
                     jnp.maximum(v, 0.0), jnp.minimum(v, -0.0), jnp.clip(v, -1, 1),
                     jnp.fmod(v, 2.0), jnp.sqrt(v), lax.rsqrt(v), v / 0.0), x)
    b = jnp.asarray([True, False, True])
    check(lambda v: (v.astype(jnp.float32), ~v, v & ~v, v | v, jnp.where(v, 1, 2)), b)


def test_transcendental_functions_float32_and_float64():
    x = jnp.linspace(-5, 5, 101, dtype=jnp.float32)
    fns = lambda v: (jnp.exp(v), jnp.log(jnp.abs(v)), jnp.log1p(jnp.abs(v)), jnp.expm1(v),
                     jnp.tanh(v), jax.nn.sigmoid(v), jnp.sin(v), jnp.cos(v), jnp.tan(v),
                     jnp.arctan2(v, 1.5), jnp.power(jnp.abs(v), 1.7), jnp.cbrt(v),
                     lax.erf(v), jnp.sinh(v), jnp.arcsinh(v), jnp.exp2(v))
    check(fns, x)
    with _x64():
        check(fns, jnp.linspace(-5, 5, 11, dtype=jnp.float64))


class _x64:
    def __enter__(self):
        config.update("jax_enable_x64", True)

    def __exit__(self, *exc):
        config.update("jax_enable_x64", False)


def test_broadcasts_transposes_iota_and_views():
    x = jnp.asarray(np.random.default_rng(5).standard_normal((3, 4)), jnp.float32)
    b = jnp.asarray([1.0, 2.0, 3.0, 4.0], jnp.float32)
    check(lambda v, w: (v + w, v.T * 2.0, (v.T + v[0][:, None]).reshape(2, 6),
                        jnp.arange(12).reshape(3, 4) + v, v[:, :1] * v, jnp.squeeze(v[1:2])),
          x, b)
    check(lambda v: jnp.transpose(v.reshape(2, 2, 3), (2, 0, 1)) + 1.0, x)


def test_slices_and_reversals_are_read_in_place():
    x = jnp.arange(24.0).reshape(4, 6)

    def f(v):
        return (v[1:3, ::2] * 2.0 + v[:2, 3:6], v[::-1, 1:] - 1.0, lax.rev(v, (1,)) + v,
                v[1:, :], jnp.sum(v[::2, ::-3], axis=0))

    text = compiled_text(f, x)
    assert "= A[3 - i0, i1 + 1]" in text  # v[::-1, 1:]: two views, no copy
    assert "c_order" not in text.split("def run")[1].replace("a = c_order(a)", "")
    check(f, x)


def placement(text: str) -> str:
    """The table of where each equation of the top-level jaxpr runs (module header)."""
    return text.split("# Where each equation runs:")[1].split("\nimport math")[0]


def test_loops_compile_into_numba_functions():
    """while, scan (also reversed, with consts, 0-d xs and ys), fori_loop and cond/switch:
    one @njit loop function each, calling @njit programs of their jaxprs: no Python loop."""
    table = jnp.asarray([1.0, 0.5, 2.0], jnp.float32)
    w = jnp.asarray(np.random.default_rng(7).standard_normal((3, 3)), jnp.float32)

    def loops(xs, n, i):
        def body(c):
            k, v = c
            inner, ys = lax.scan(lambda a, b: (a + b * table, a * b), v, xs)  # nested
            return k + 1, jnp.sin(inner @ w.T) * 0.5 + ys.sum(0)[::-1]  # dot, views
        _, v = lax.while_loop(lambda c: c[0] < n, body, (0, xs[0]))
        carry, ys = lax.scan(lambda c, x: (c * 0.9 + x, (c * x).sum()), v, xs, reverse=True)
        total, firsts = lax.scan(lambda c, x: (c + x, c), 0.0, xs[:, 0])  # 0-d xs and ys
        _, none = lax.scan(lambda c, x: (c, x * 2.0), 0.0, xs[:0])  # length 0
        branch = lax.switch(i, [lambda v: v + 1.0, lambda v: v * 2.0, lambda v: -v], carry)
        return (lax.fori_loop(0, 20, lambda j, c: c * 0.5 + jnp.cos(c) + j, carry), ys,
                total, firsts, none, branch)

    xs = jnp.asarray(np.random.default_rng(6).standard_normal((4, 3)), jnp.float32)
    for n, i in [(3, 5), (0, -2), (2, 1)]:  # switch indices are clamped into range
        check(loops, xs, n, i)
    text = compiled_text(loops, xs, 3, 1)
    assert "Python loop" not in text and "rules[" not in text.split("def run")[1]
    for name in ("while_0", "scan_0", "scan_1", "scan_2", "scan_3", "cond_0"):
        assert f"{name} (compiled" in placement(text)
    assert "def while_0_body_scan_0(" in text  # the scan inside the while's body
    assert "    while while_0_cond(" in text and "i = 3 - step  # reverse=True" in text
    assert text.count("@njit") == text.count("\ndef ") - 1  # everything but run is compiled


def counted_power(n, s):
    """s**n by a while loop that runs n times: under vmap its predicate is batched."""
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * s), (0, 1.0))[1]


def test_a_while_with_a_batched_predicate_runs_until_every_example_is_done():
    """vmap keeps one loop whose cond returns a bool per example (JAX 0.10's while): inlining
    lowers it to ``while any(pred): carry = select(pred, body(carry), carry)``, compiled."""
    ns, ss = jnp.array([0, 3, 1, 5]), jnp.array([2.0, 0.5, 3.0, -1.0])
    got = check(jax.vmap(counted_power), ns, ss)
    np.testing.assert_allclose(got, np.asarray(ss) ** np.asarray(ns))
    check(jax.vmap(jax.vmap(counted_power)), ns.reshape(2, 2), ss.reshape(2, 2))
    check(jax.vmap(jax.vmap(counted_power, in_axes=(0, None)), in_axes=(None, 0)), ns, ss)
    check(jax.vmap(jnp.gcd), jnp.array([[12, -18, 0], [8, 27, 5]]),
          jnp.array([[8, 27, 5], [12, -18, 0]]))
    text = compiled_text(jax.vmap(counted_power), ns, ss)
    assert "while_0 (compiled" in placement(text) and "reduce_or" in text

    def keyed(key, n):  # keys in the carry: lowered first, then the keys become words
        def body(c):
            i, k, acc = c
            k, sub = jax.random.split(k)
            return i + 1, k, acc + jax.random.uniform(sub)
        return lax.while_loop(lambda c: c[0] < n, body, (0, key, 0.0))
    i, key, acc = check(jax.vmap(keyed), jax.random.split(jax.random.key(0), 4), ns)
    np.testing.assert_array_equal(i, ns)


def test_a_loop_with_a_reference_rule_stays_a_python_loop():
    def f(x):
        return lax.fori_loop(0, 3, lambda i, v: jnp.cumsum(v) * 0.5, x)
    x = jnp.arange(4, dtype=jnp.float32)
    text = compiled_text(f, x)
    assert ("scan: Python loop around compiled bodies (body: cumsum runs its reference rule)"
            in text)
    assert "rules[0] (ScanLoop): body" in text
    check(f, x)


def test_gathers_scatters_and_dynamic_slices_compile():
    """jnp indexing and .at[] updates in every mode, as Numba kernels: no reference rule."""
    def f(x, m, i, s):
        j = i % 4
        return (x[i], x[s], m[j], m[:, i % 6], m[j, i % 6], x.at[i].get(mode="fill"),
                x.at[i].get(mode="fill", fill_value=-1.0), x.at[i].get(mode="clip"),
                x.at[i].set(0.0), x.at[i].add(1.0), x.at[i].add(1.0, mode="clip"),
                x.at[i].mul(2.0), x.at[i].min(3.0), x.at[i].max(3.0),
                m.at[:, i % 6].add(jnp.ones((4, 5))), m.at[j, 2].add(1.0),
                x.at[jnp.array([1, 1, 1])].add(jnp.array([0.1, 0.2, 0.3])),  # repeated: in order
                lax.dynamic_slice(m, (s, 2), (2, 2)), lax.dynamic_update_slice(x, x[:4], (s,)),
                jnp.concatenate([x, x[:3]]), jnp.stack([x, x], 1),
                jax.vmap(lambda v, k: v[k])(m, j[:4] + 2),  # (batching dims)
                jax.vmap(lambda v, k: v.at[k].add(1.0))(m, j[:4]))

    x, m = jnp.arange(10.0), jnp.arange(24.0).reshape(4, 6)
    i = jnp.asarray([1, 3, -2, 12, -20], jnp.int32)  # negative and out of bounds
    text = compiled_text(f, x, m, i, 8)
    assert "reference rule (NumPy)" not in placement(text)
    assert "def gather_0(" in text and "def scatter_add_0(" in text
    check(f, x, m, i, 8)
    check(f, x, m, i, -13)
    mi, b = jnp.arange(24, dtype=jnp.int32).reshape(4, 6), jnp.asarray([True, False, True])
    check(lambda m, b, i: (m[i % 4], m.at[i % 4].add(100), m.at[i].mul(3), m.at[i].max(5),
                           m.at[i].get(mode="fill"), b[i % 3], b.at[i].min(False),
                           b.at[i].set(True), b.at[i].get(mode="fill"), m @ m.T), mi, b, i)


def test_random_numbers_compile_bit_exact():
    """Keys become uint32 words and threefry2x32 an elementwise Numba function."""
    def f(key):
        k1, k2 = jax.random.split(key)

        def body(i, c):
            k, total = c
            return jax.random.split(k)[0], total + jax.random.uniform(
                jax.random.fold_in(k, i), (3,))
        return (jax.random.uniform(k1, (3,)), jax.random.randint(k2, (2, 3), 0, 10),
                jax.random.bits(k2, (5,), jnp.uint8),
                lax.fori_loop(0, 5, body, (key, jnp.zeros(3))))

    legacy = jax.random.PRNGKey(0)  # uint32 words already
    text = compiled_text(f, legacy)
    assert "reference rule (NumPy)" not in placement(text) and "Python loop" not in text
    assert "threefry2x32(" in text
    check(f, legacy)

    def g(key):  # key arrays: sliced as words, converted on the way in and out only
        k1, k2 = jax.random.split(key)
        return k1, jax.random.uniform(k2, (3,))
    typed = jax.random.key(1)
    converted = [line.split(" = ")[1].split()[0].split("[")[0]
                 for line in placement(compiled_text(g, typed)).splitlines()
                 if "reference rule" in line]
    assert converted == ["random_unwrap", "random_wrap"]
    check(g, typed)


def test_scalars_literals_consts_and_passthrough_outputs():
    table = jnp.arange(5.0)

    def f(x, y):
        return x, 2.0, table * x, y + table[2], jnp.float32(3) * y

    check(f, 2.0, jnp.float32(1.5))
    check(lambda x: (x,), jnp.ones(3))


@settings(max_examples=30)
@given(random_program())
def test_random_programs_match_the_reference(program_and_args):
    program, args = program_and_args
    args = [jnp.asarray(a) for a in args]
    check(program, *args)


# ---------------------------------------------------------------- the persistent cache
def test_modules_are_content_addressed_and_never_rewritten(tmp_path):
    source = "X = 1\n"
    path = cache.write_module(source, tmp_path)
    assert path.name == cache.module_name(source) + ".py" and path.read_text() == source
    stamp = path.stat().st_mtime_ns
    assert cache.write_module(source, tmp_path) == path and path.stat().st_mtime_ns == stamp
    path.chmod(0o644)
    path.write_text("damaged")  # a different text under the name: it is left alone
    other = cache.write_module(source, tmp_path)
    assert other != path and other.read_text() == source and path.read_text() == "damaged"


def test_a_new_process_loads_kernels_from_the_disk_cache(tmp_path):
    code = textwrap.dedent("""
        import time, edujax as jax, edujax.numpy as jnp
        jax.config.update("edujax_backend", "numba")
        f = jax.jit(lambda x: jnp.tanh(x) * 2.0 + 1.0)
        x = jnp.ones(100)
        f(x)
        entry, = f.cache_info().entries
        program = entry.executable
        kernel = program._run.__globals__["fused_0"]
        print(entry.tier, sum(kernel.stats.cache_hits.values()),
              sum(kernel.stats.cache_misses.values()))
    """)
    # (Numba's own disk cache: the object files of aot.py are tested in test_aot_kernels.py)
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(tmp_path), EDUJAX_TIERED="0", EDUJAX_AOT="0",
               EDUJAX_DIRECT="0")  # (Numba's own cache is the subject here)
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=REPO, env=env, check=True).stdout.split() for _ in range(2)]
    assert runs[0] == ["numba", "0", "1"]  # compiled, then saved
    assert runs[1] == ["numba", "1", "0"]  # loaded from disk
    assert len(list(tmp_path.glob("edujax_kernels_*.py"))) == 1
    assert list((tmp_path / "__pycache__").glob("*.nbi"))


# ---------------------------------------------------------------- tiering and fallbacks
def test_tiered_calls_run_on_the_reference_until_the_kernel_is_ready(monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "1")
    monkeypatch.setenv("EDUJAX_AOT", "0")  # (an object file from an earlier run: no tiering)
    monkeypatch.setenv("EDUJAX_DIRECT", "0")  # (nor kernels compiled at once without Numba)
    config.update("edujax_backend", "numba")
    f = jax.jit(lambda x: jnp.cos(x) * 3.0 - x)
    x = jnp.linspace(0, 1, 33)
    first = f(x)
    entry, = f.cache_info().entries
    assert entry.tier in ("reference", "numba")
    assert "def fused_0" in f.lower(x).compile().as_text()  # the source exists at once
    assert entry.executable.wait(120) == "numba" and entry.tier == "numba"
    assert_same(f(x), first)


def test_a_failing_compile_warns_and_falls_back_to_the_reference(monkeypatch):
    from edujax.backends.numba_cpu import backend

    def broken(*args, **kwargs):
        raise RuntimeError("codegen bug")
    monkeypatch.setattr(backend, "generate_module", broken)
    config.update("edujax_backend", "numba")
    f = jax.jit(lambda x: x * 7.0)
    with pytest.warns(NumbaCompileWarning, match="codegen bug"):
        out = f(jnp.ones(2))
    np.testing.assert_array_equal(out, [7.0, 7.0])
    assert f.cache_info().entries[0].tier == "reference"
