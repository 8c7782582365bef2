"""edujax's own kernel compiler (direct.py) against Numba, which compiles the same source.

The law: for every kernel direct.py accepts, its machine code computes what Numba's does, bit
for bit (same typing, same arithmetic, same NaN, infinity, -0.0 and integer-overflow
behaviour), and a kernel it does not accept still runs, through Numba. Checked three ways:

* kernels written by hand, one expression each, on random values of random dtypes (including
  NaN, infinities, -0.0 and the integers' extremes): the typing rules and the semantics of
  each operator;
* whole programs through ``NumbaProgram``: random elementwise programs, the math helpers on
  dense grids, the integer and conversion primitives, the benchmark programs;
* new processes: a program whose kernels all compile directly never imports Numba, and the
  next process loads the object file it left.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
if not sys.platform.startswith("linux"):
    pytest.skip("object files are loaded on Linux only", allow_module_level=True)

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402
from program_generator import random_program  # noqa: E402

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax import lax  # noqa: E402
from edujax.abstract_arrays import ShapedArray  # noqa: E402
from edujax.backends.fast_start import aot, direct, translate  # noqa: E402
from edujax.backends.numba_cpu import kernels  # noqa: E402
from edujax.backends.numba_cpu.backend import NumbaProgram  # noqa: E402
from edujax.backends.fast_start.cache import load_module_in_memory  # noqa: E402
from edujax.backends.numba_cpu.codegen import KernelSignature  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    """An empty cache folder, and no object files read or written: each program below is
    compiled afresh, by the compiler the test asks for."""
    monkeypatch.setenv("EDUJAX_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("EDUJAX_AOT", "0")
    monkeypatch.setenv("EDUJAX_TIERED", "0")


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if want.dtype.kind == "f":  # NaN payloads aside (LLVM does not promise them), bit for bit
        both_nan = np.isnan(got) & np.isnan(want)
        return bool(np.all(both_nan | (got.view(f"u{got.itemsize}")
                                       == want.view(f"u{want.itemsize}"))))
    return bool(np.array_equal(got, want))


# ====================================================================== one expression
KERNEL = """
import math

import numpy as np
from numba import njit

from edujax.backends.numba_cpu.scalar import fmax_nan, fmin_nan, int_div, int_rem, sign
from edujax.backends.numba_cpu.scalar import float_to_int, round_half_away


@njit(cache=True, error_model="numpy")
def k(A, B, OUT):
    for i0 in range({n}):
        a = A[i0]
        b = B[i0]
        OUT[i0] = {expr}
"""


def both_compilers(source: str, inputs: list, out_dtype: np.dtype) -> tuple:
    """Kernel ``k`` of ``source`` run by Numba and by direct.py on the same arrays."""
    n = len(inputs[0])
    outs = []
    numba_kernel = load_module_in_memory(source).k
    out = np.empty(n, out_dtype)
    numba_kernel(*inputs, out)
    outs.append(out)
    module = types.SimpleNamespace(source=source, kernels=[KernelSignature(
        "k", [ShapedArray(a.shape, a.dtype) for a in inputs], [ShapedArray((n,), out_dtype)])])
    data, entries = direct.compile_module(module)
    kernel = aot._load_object(module, data, aot.make_manifest(data, entries, "direct"))["k"]
    out = np.empty(n, out_dtype)
    kernel(*inputs, out)
    outs.append(out)
    return outs


DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint32", "uint64", "float32", "float64"]
EXPRESSIONS = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a & b", "a | b", "a ^ b",
               "a < b", "a <= b", "a == b", "a != b", "a > b", "-a", "abs(a)", "max(a, b)",
               "min(a, b)", "a if a > b else b", "(a > b) & (b > a) | (a == a)",
               "np.float32(a) * np.float32(1.5)", "np.int8(a) + np.int8(b)",
               "np.uint32(a) * np.uint32(b)", "a >> np.int64(3)", "a << np.int64(5)",
               "0 <= a < 7", "a > 0 or b > 0", "not (a > b)"]
FLOAT_EXPRESSIONS = ["fmax_nan(a, b)", "fmin_nan(a, b)", "sign(a, np.float32(1.0))",
                     "round_half_away(a)", "float_to_int(a, -128, 127)", "np.floor(a)",
                     "np.copysign(a, b)", "math.copysign(1.0, a)"]
INT_EXPRESSIONS = ["int_div(a, b)", "int_rem(a, b)"]
FUNCTIONS = ["np.exp(a)", "np.exp2(a)", "np.log(a)", "np.log2(a)", "np.log10(a)", "np.sin(a)",
             "np.cos(a)", "np.sqrt(a)", "np.tan(a)", "np.tanh(a)", "np.log1p(a)",
             "np.expm1(a)", "np.arcsin(a)", "np.arccos(a)", "np.arctan(a)", "np.sinh(a)",
             "np.cosh(a)", "np.arcsinh(a)", "np.arccosh(a)", "np.arctanh(a)",
             "np.arctan2(a, b)", "math.erf(a)", "np.ceil(a)", "np.rint(a)",
             "np.sin(a) * np.cos(a)"]  # (the last: LLVM makes one call of sincos)
FLOAT_EXPRESSIONS += FUNCTIONS


def values(dtype: str) -> st.SearchStrategy:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        special = st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.5])
        return st.one_of(special, st.floats(width=8 * dtype.itemsize, allow_nan=True))
    return hnp.from_dtype(dtype)


@st.composite
def expression_kernels(draw):
    kind = draw(st.sampled_from(["any", "any", "float", "int"]))
    if kind == "float":
        a_type = b_type = draw(st.sampled_from(["float32", "float64"]))
        expr = draw(st.sampled_from(FLOAT_EXPRESSIONS))
    elif kind == "int":
        a_type = b_type = draw(st.sampled_from(["int8", "int32", "int64"]))
        expr = draw(st.sampled_from(INT_EXPRESSIONS))
    else:
        a_type, b_type = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
        expr = draw(st.sampled_from(EXPRESSIONS))
    n = draw(st.integers(1, 12))
    a = draw(hnp.arrays(a_type, n, elements=values(a_type)))
    b = draw(hnp.arrays(b_type, n, elements=values(b_type)))
    return expr, a, b


def result_dtype(expr: str, a: np.dtype, b: np.dtype) -> np.dtype:
    """Where to store the result so that a difference in its type shows in its value: wide
    types of the kind our typing rules give (a float64 result stored as float32 would hide
    a float32 computation)."""
    if any(word in expr for word in ("<", ">", "==", "!=", " or ", "not ")) and \
            "if" not in expr and ">>" not in expr and "<<" not in expr:
        return np.dtype(bool)
    if "float_to_int" in expr:
        return np.dtype(np.int64)
    kinds = {a.kind, b.kind}
    if "f" in kinds or "/ " in expr or "float32" in expr or "copysign" in expr:
        return np.dtype(np.float64)
    return np.dtype(np.uint64) if kinds == {"u"} else np.dtype(np.int64)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(expression_kernels())
def test_one_expression_computes_as_in_numba(case):
    """Typing and semantics, operator by operator: Numba's result, bit for bit."""
    expr, a, b = case
    if any(op in expr for op in ("<<", ">>")):
        assume(a.dtype.kind in "iub")
    if any(op in expr for op in ("&", "|", "^", "//", "%")) and "(" not in expr:
        assume(a.dtype.kind != "f" and b.dtype.kind != "f")
    if expr == "abs(a)":
        assume(a.dtype != bool)
    if expr.startswith("np.int8") or expr.startswith("np.uint32"):  # (no raw float -> int)
        assume(a.dtype.kind != "f" and b.dtype.kind != "f")
    if expr in ("a // b", "a % b"):
        assume(a.dtype != bool or b.dtype != bool)
    out = result_dtype(expr, a.dtype, b.dtype)
    source = KERNEL.format(n=len(a), expr=expr)
    try:
        numba_result, direct_result = both_compilers(source, [a, b], out)
    except direct.Unsupported:
        return  # (allowed: Numba compiles it; the fallback tests below check that path)
    assert same_bits(direct_result, numba_result), (expr, a, b, direct_result, numba_result)


@pytest.mark.parametrize("expr", ["a < b", "a <= b", "a > b", "a == b"])
@pytest.mark.parametrize("a_type, b_type", [("uint64", "bool"), ("bool", "uint64"),
                                            ("uint64", "int8"), ("int64", "uint64")])
def test_uint64_comparisons_with_signed_or_bool_are_numbas(expr, a_type, b_type):
    """2**63 < True is False in Numba (a hypothesis run found the direct compiler saying True)."""
    a = np.array([0, 1, 2**63, 2**64 - 1, 5], np.uint64).astype(a_type) if a_type == "uint64" \
        else np.array([0, 1, 1, 0, -1 if a_type != "bool" else 1]).astype(a_type)
    b = np.array([1, 0, 1, 1, 5], np.uint64).astype(b_type) if b_type != "uint64" \
        else np.array([0, 1, 2**63, 2**64 - 1, 5], np.uint64)
    source = KERNEL.format(n=len(a), expr=expr)
    try:
        numba_result, direct_result = both_compilers(source, [a, b], np.dtype(bool))
    except direct.Unsupported:
        return  # (Numba compiles it: what the backend then runs is Numba's own result)
    assert same_bits(direct_result, numba_result), (a, b, direct_result, numba_result)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("expr", FUNCTIONS)
def test_numpy_functions_are_numbas(expr, dtype):
    """NumPy's functions on floats: the same LLVM intrinsic or C function as Numba's."""
    a = float32_grid(500).astype(dtype)
    b = a[::-1].copy()
    out = np.dtype(dtype)
    numba_result, direct_result = both_compilers(KERNEL.format(n=len(a), expr=expr), [a, b],
                                                 out)
    assert same_bits(direct_result, numba_result), expr


def test_the_typing_rules_are_numbas():
    """``int32 + int32`` is int64, ``float32 * int32`` float64, ``uint8 * uint8`` uint64..."""
    from numba import njit
    add = njit(lambda a, b: a + b)
    for x in DTYPES:
        for y in DTYPES:
            a, b = np.ones(1, x)[0], np.ones(1, y)[0]
            add(a, b)
            numba_type = np.dtype(str(add.nopython_signatures[-1].return_type)
                                  .replace("bool", "bool_"))
            assert translate.arithmetic_type(np.dtype(x), np.dtype(y)) == numba_type, (x, y)


def test_unsupported_constructs_say_so():
    source = KERNEL.format(n=3, expr="a ** b")
    module = types.SimpleNamespace(source=source, kernels=[KernelSignature(
        "k", [ShapedArray((3,), np.float32)] * 2, [ShapedArray((3,), np.float32)])])
    with pytest.raises(direct.Unsupported):
        direct.compile_module(module)


# ====================================================================== whole programs
def run_both(fn, *args) -> dict:
    """``fn``'s program compiled by direct.py and by Numba: {"direct": ..., "numba": ...},
    each (where its kernels came from, its outputs)."""
    args = [np.asarray(a) for a in args]
    closed = jax.make_jaxpr(fn)(*args)
    results = {}
    for name, switch in (("direct", "1"), ("numba", "0")):
        os.environ["EDUJAX_DIRECT"] = switch
        try:
            program = NumbaProgram(closed).load()
            results[name] = (program.kernels_from, [np.asarray(x) for x in program(*args)])
        finally:
            del os.environ["EDUJAX_DIRECT"]
    return results


def assert_same_outputs(results: dict) -> None:
    (_, got), (_, want) = results["direct"], results["numba"]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert same_bits(g, w), (g, w)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(random_program())
def test_random_programs_compute_as_with_numba(program_and_args):
    program, args = program_and_args
    results = run_both(program, *args)
    assert results["numba"][0] == "numba"
    assert_same_outputs(results)


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.17549435e-38,
                     3.4028235e38, -3.4028235e38, 88.72, 89.0, -103.9, 104.0, 1e5, -1e5,
                     1e30, -1e30, 0.5, -0.5, 1.0, -1.0, 3.14159265, 1e-8], np.float32)


def float32_grid(n: int) -> np.ndarray:
    bits = np.random.default_rng(0).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([SPECIALS, bits.view(np.float32),
                           np.linspace(-10, 10, n, dtype=np.float32)])


@pytest.mark.parametrize("size", [8, 4096], ids=["called", "pasted into the loop"])
@pytest.mark.parametrize("name", ["sin", "cos", "tanh", "exp", "log", "log1p", "expm1",
                                  "logistic", "pow"])
def test_math_helpers_give_numbas_bits(name, size):
    """math.py's helpers compiled from their source by direct.py (called from small loops,
    pasted into big ones) against the same helpers compiled by Numba."""
    x = float32_grid(size)[:max(size, len(SPECIALS))] if size < 100 else float32_grid(size)
    if name == "pow":
        fn = lambda x: jnp.power(jnp.abs(x) + 0.5, x[::-1])  # noqa: E731
    elif name == "logistic":
        fn = jax.nn.sigmoid
    else:
        fn = getattr(jnp, name)
    results = run_both(fn, x)
    assert results["direct"][0] == "direct"
    assert_same_outputs(results)


@pytest.mark.parametrize("one_instruction", [True, False], ids=["ldexp", "two multiplies"])
def test_both_spellings_of_exps_last_step_give_the_same_bits(monkeypatch, one_instruction):
    """exp ends with p * 2^n rounded once (``translate.scale_by_pow2``): one ``vscalefps``
    where the CPU has AVX-512, two multiplies by normal powers of two elsewhere. Either
    spelling, forced here, gives the same bits as the other on every float32 from -110 to
    95 in steps of 2^-9 (overflow to inf and underflow to subnormals included) and on
    random bit patterns."""
    x = np.concatenate([SPECIALS, np.arange(-110, 95, 2.0 ** -9, dtype=np.float32),
                        float32_grid(4096)])
    outs = {}
    for forced in (one_instruction, not one_instruction):
        monkeypatch.setattr(translate, "ldexp_is_one_instruction", lambda forced=forced: forced)
        n = len(x) + forced  # (another length, another module: both live in one process)
        program = NumbaProgram(jax.make_jaxpr(jnp.exp)(np.ones(n, np.float32)))
        data, entries = direct.compile_module(program.module)
        manifest = aot.make_manifest(data, entries, "direct")
        kernel = aot._load_object(program.module, data, manifest)["fused_0"]
        out = np.empty(n, np.float32)
        kernel(np.resize(x, n), out)
        outs[forced] = out[:len(x)]
    assert same_bits(outs[True], outs[False])


@pytest.mark.parametrize("name", ["exp", "tanh", "sin"])
def test_big_loops_are_vectorized(monkeypatch, name):
    """A loop over 4096 floats calling a helper is vectorized, as Numba's is: the helper is
    pasted in, and the optimized IR computes on vectors (``<8 x float>`` or wider)."""
    modules = []
    monkeypatch.setattr(direct, "optimize_and_emit", lambda m: modules.append(m) or b"")
    program = NumbaProgram(jax.make_jaxpr(getattr(jnp, name))(np.ones(4096, np.float32)))
    direct.compile_module(program.module)
    optimized = str(direct.optimize(modules[0]))
    assert any(f"<{n} x float>" in optimized for n in (4, 8, 16)), optimized[:2000]


INTS = np.array([0, 1, -1, 2, -2, 7, -7, 127, -128, 2**31 - 1, -2**31, 3, -3, 5], np.int32)


@pytest.mark.parametrize("case", [
    "div", "rem", "floor_divide", "remainder", "wraparound", "int8 wraparound", "to int32",
    "to int8", "to uint8", "to int64", "to uint64", "to bool", "nan comparisons", "select",
    "max min", "sign", "round", "clamp", "shifts", "uint32 div"])
def test_integer_and_conversion_semantics_are_numbas(case):
    x, y = INTS, INTS[::-1].copy()
    f = float32_grid(16)
    with np.errstate(over="ignore"):
        big = f * np.float32(1e9)
    g = f[::-1].copy()
    programs = {
        "div": (lambda a, b: lax.div(a, b), x, y),
        "rem": (lambda a, b: lax.rem(a, b), x, y),
        "floor_divide": (lambda a, b: jnp.floor_divide(a, b), x, y),
        "remainder": (lambda a, b: jnp.remainder(a, b), x, y),
        "wraparound": (lambda a, b: a * b + a * 1000003, x, y),
        "int8 wraparound": (lambda a, b: (a * b + 100).astype(jnp.int8) * 3,
                            x.astype(np.int8), y.astype(np.int8)),
        "to int32": (lambda a: a.astype(jnp.int32), big),
        "to int8": (lambda a: a.astype(jnp.int8), f),
        "to uint8": (lambda a: a.astype(jnp.uint8), f),
        "to int64": (lambda a: a.astype(jnp.int64), f),
        "to uint64": (lambda a: a.astype(jnp.uint64), f),
        "to bool": (lambda a: a.astype(bool), f),
        "nan comparisons": (lambda a, b: (a < b, a <= b, a == b, a != b, a > b), f, g),
        "select": (lambda a, b: jnp.where(a > b, a, b * 2.0), f, g),
        "max min": (lambda a, b: (jnp.maximum(a, b), jnp.minimum(a, b)), f, g),
        "sign": (lambda a: (jnp.sign(a), jnp.sign(a.astype(jnp.int32))), f),
        "round": (lambda a: (jnp.round(a), lax.round(a)), f),
        "clamp": (lambda a: jnp.clip(a, -1.0, 1.0), f),
        "shifts": (lambda a, b: (lax.shift_left(a, b % 40), lax.shift_right_arithmetic(a, b),
                                 lax.shift_right_logical(a, b)), x, y),
        "uint32 div": (lambda a, b: (a // b, a % b), x.astype(np.uint32), y.astype(np.uint32)),
    }
    fn, *args = programs[case]
    assert_same_outputs(run_both(fn, *args))


INDEXING = {
    "gather": lambda x, i: x[i % 7],
    "gather, rows": lambda x, i: x.reshape(7, 1)[i % 7, 0],
    "take clamped": lambda x, i: jnp.take(x, i * 3 - 4, mode="clip"),
    "scatter set": lambda x, i: x.at[i % 7].set(-1.0),
    "scatter add": lambda x, i: x.at[i % 7].add(1.5),
    "scatter max": lambda x, i: x.at[i % 5].max(x[:i.shape[0]]),
    "scatter out of bounds": lambda x, i: x.at[i * 2 - 3].add(1.0, mode="drop"),
    "dynamic slice": lambda x, i: lax.dynamic_slice(x, (i[0] - 2,), (3,)),
    "dynamic update slice": lambda x, i: lax.dynamic_update_slice(x, x[:3] * 2, (i[1],)),
    "concatenate": lambda x, i: jnp.concatenate([x, x[::-1] * 2.0, i.astype(jnp.float32)]),
    "stack": lambda x, i: jnp.stack([x, -x]) + 1.0,
    "argmax argmin": lambda x, i: (jnp.argmax(x), jnp.argmin(x.reshape(7, 1), axis=0)),
    "column max": lambda x, i: jnp.max(jnp.outer(x, x), axis=0),
    "row sum of ints": lambda x, i: jnp.sum(jnp.outer(i, i), axis=1),
    "integer matmul": lambda x, i: jnp.outer(i, i) @ jnp.outer(i, i),
    "views": lambda x, i: jnp.outer(x, x).T[1:5, ::-1] + x,
    "row sums": lambda x, i: (jnp.sum(jnp.outer(x, x), axis=1), jnp.mean(x * 3.0)),
    "random bits": lambda x, i: jax.random.bits(jax.random.key(0), (33,)),
    "random normal": lambda x, i: jax.random.normal(jax.random.key(1), (9,)) * x[0],
}


@pytest.mark.parametrize("name", list(INDEXING))
def test_indexing_and_reduction_kernels_are_numbas(name):
    x = np.array([0.5, -1.5, np.nan, 2.0, -0.0, np.inf, 3.25], np.float32)
    i = np.array([3, 0, 12, -5, 6], np.int32)
    assert_same_outputs(run_both(INDEXING[name], x, i))


REDUCTIONS = {
    "sum": lambda x: jnp.sum(x),
    "row sums": lambda x: jnp.sum(x.reshape(64, 64), axis=1),
    "mean of tanh squared": lambda x: jnp.mean(jnp.tanh(x) ** 2),
    "row variances": lambda x: jnp.var(x.reshape(16, 256), axis=1),
    "row max": lambda x: jnp.max(x.reshape(64, 64), axis=1),
    "row argmax": lambda x: jnp.argmax(x.reshape(64, 64), axis=1),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reassociated_sums_are_numbas(name):
    """Row sums may be reordered (``fastmath={"reassoc"}``, so that they run on vectors of
    partial sums): the same IR reordered the same way gives Numba's bits."""
    x = np.random.default_rng(0).normal(size=4096).astype(np.float32)
    results = run_both(REDUCTIONS[name], x)
    assert results["direct"][0] == "direct"
    assert_same_outputs(results)


def test_the_benchmark_programs_compile_directly():
    """The programs of benchmarks/compile_time.py: every kernel through direct.py."""
    x = np.linspace(-1, 1, 8, dtype=np.float32)

    def chain(x):
        for _ in range(10):
            x = jnp.sin(x) * 1.01 + 0.5
        return x
    for fn in (chain, jax.grad(lambda x: jnp.sum(chain(x)))):
        results = run_both(fn, x)
        assert results["direct"][0] == "direct"
        assert_same_outputs(results)
    rng = np.random.default_rng(0)
    w = rng.normal(size=(16, 32)).astype(np.float32)
    xs = rng.normal(size=(8, 16)).astype(np.float32)

    def loss(w, x):
        h = jnp.tanh(x @ w) * 0.5 + jnp.exp(-(x @ w) ** 2)
        return jnp.mean((h - 1.0) ** 2)
    results = run_both(jax.grad(loss), w, xs)
    assert results["direct"][0] == "direct"
    assert_same_outputs(results)


# ====================================================================== falling back to Numba
def test_an_unsupported_kernel_runs_through_numba():
    x = np.linspace(0.1, 2.0, 33, dtype=np.float32)  # (np.fmod: not in direct.py)
    results = run_both(lambda x: lax.rem(x, np.float32(0.7)) + 1.0, x)
    assert results["direct"][0] == "numba"
    assert_same_outputs(results)


def test_a_parallel_kernel_runs_through_numba():
    x = np.ones(1 << 17, np.float32)  # (big enough for prange)
    results = run_both(lambda x: jnp.sin(x) * 2.0, x)
    assert results["direct"][0] == "numba"
    assert_same_outputs(results)


def test_a_failure_inside_the_compiler_warns_and_falls_back(monkeypatch, caplog):
    def broken(module):
        raise RuntimeError("an LLVM error")
    monkeypatch.setattr(direct, "optimize_and_emit", broken)
    results = run_both(lambda x: x * 3.0 + 1.0, np.arange(5.0, dtype=np.float32))
    assert results["direct"][0] == "numba"
    assert "the direct compiler failed (RuntimeError: an LLVM error)" in caplog.text
    assert_same_outputs(results)


def test_edujax_direct_0_turns_it_off(monkeypatch):
    monkeypatch.setenv("EDUJAX_DIRECT", "0")
    program = NumbaProgram(jax.make_jaxpr(lambda x: x + 1.0)(np.ones(3, np.float32))).load()
    assert program.kernels_from == "numba"


def test_a_tiered_jit_runs_direct_kernels_from_the_first_call(monkeypatch):
    """Compiling directly takes milliseconds: no reference interpreter in between."""
    monkeypatch.setenv("EDUJAX_TIERED", "1")
    jax.config.update("edujax_backend", "numba")
    try:
        f = jax.jit(lambda x: jnp.tanh(x) * 2.0 + 1.0)
        x = np.linspace(-2, 2, 5, dtype=np.float32)
        np.testing.assert_allclose(f(x), np.tanh(x) * 2 + 1, rtol=1e-6)
        entry, = f.cache_info().entries
        assert entry.tier == "direct" and entry.executable.kernels_from == "direct"
    finally:
        jax.config.update("edujax_backend", "reference")


def test_an_unwritable_cache_folder_still_compiles_directly(monkeypatch, tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("in the cache folder's place")
    monkeypatch.setenv("EDUJAX_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setenv("EDUJAX_AOT", "1")
    x = np.arange(4.0, dtype=np.float32)
    program = NumbaProgram(jax.make_jaxpr(lambda x: x * 3.0 - 1.0)(x)).load()
    assert program.kernels_from == "direct"
    np.testing.assert_array_equal(program(x)[0], x * 3 - 1)


def test_as_text_says_who_compiled_the_kernels():
    program = NumbaProgram(jax.make_jaxpr(lambda x: x * 2.0)(np.ones(3, np.float32))).load()
    assert program.kernels_from == program.tier == "direct"
    assert program.as_text().startswith("# tier: direct (")
    assert "edujax's own compiler (direct.py" in program.as_text()


# ====================================================================== new processes
PROGRAMS = textwrap.dedent("""
    import json, sys
    import numpy as np
    import edujax as jax, edujax.numpy as jnp
    jax.config.update("edujax_backend", "numba")

    def chain(x):
        for _ in range(30):
            x = jnp.sin(x) * 1.01 + 0.5
        return x
    def mlp(w, x):
        return jnp.mean((jnp.tanh(x @ w) * 0.5 + jnp.exp(-(x @ w) ** 2) - 1.0) ** 2)
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    w = np.ones((64, 128), np.float32) / 64
    xs = np.linspace(-1, 1, 32 * 64, dtype=np.float32).reshape(32, 64)
    out = {}
    for name, fn, args in [("chain", chain, (x,)),
                           ("grad", jax.grad(lambda x: jnp.sum(chain(x))), (x,)),
                           ("mlp", jax.grad(mlp), (w, xs))]:
        f = jax.jit(fn)
        value = f(*args)
        entry, = f.cache_info().entries
        out[name] = [entry.executable.kernels_from, np.asarray(value).ravel()[:4].tolist()]
    print(json.dumps({"programs": out, "numba_imported": "numba" in sys.modules}))
""")


def run_process(cache: Path, **env) -> dict:
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(cache), EDUJAX_TIERED="0", **env)
    env.pop("EDUJAX_AOT", None)
    done = subprocess.run([sys.executable, "-c", PROGRAMS], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_cold_process_never_imports_numba_and_leaves_object_files(tmp_path):
    cold = run_process(tmp_path, EDUJAX_DIRECT="1")
    assert not cold["numba_imported"]
    assert {p[0] for p in cold["programs"].values()} == {"direct"}
    assert list(tmp_path.glob("edujax_aot_*.o"))
    warm = run_process(tmp_path, EDUJAX_DIRECT="1")
    assert not warm["numba_imported"]
    assert {p[0] for p in warm["programs"].values()} == {"object file"}
    assert warm["programs"] == {k: ["object file", v[1]] for k, v in cold["programs"].items()}
    numba = run_process(tmp_path / "numba", EDUJAX_DIRECT="0")
    assert numba["numba_imported"]
    assert numba["programs"] == {k: ["numba", v[1]] for k, v in cold["programs"].items()}


def test_the_compiler_accepts_the_decorator_the_code_generator_writes():
    """direct.py spells out the serial kernels' decorator; if kernels.py wrote another, no
    kernel would be compiled directly any more (every program would wait for Numba)."""
    assert direct.DECORATOR == kernels.DECORATOR
