"""edujax's branch-free float32 math (edujax/backends/numba_cpu/math.py): accuracy and form.

Each function must be within 2 ulp of the correctly rounded result over the float32 range.
The reference is NumPy in float64, rounded once to float32 (float64 carries 29 more bits,
so that is the correctly rounded value except in vanishingly rare double-rounding cases,
which are off by one ulp at most). The grids are dense: every float32 bit pattern is as
likely as any other in the random part, plus fine linear grids where the functions change
fastest, plus the edges (0, -0.0, ±inf, NaN, subnormals, the overflow bounds).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from edujax.backends.numba_cpu import math as m  # noqa: E402

EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38,
                  1.1754944e-38, -1.1754944e-38, 3.4028235e38, -3.4028235e38, 88.72283,
                  88.72284, 89.0, -87.33654, -103.97207, -103.97208, -104.0, 1.0, -1.0,
                  0.5, 2.0, 1e-8, -1e-8, np.pi / 2, np.pi, 1e5, -1e5, 1e30, 9.1, 20.0],
                 dtype=np.float32)

REFERENCES = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh,
    "logistic": lambda t: 1.0 / (1.0 + np.exp(-t)), "sin": np.sin, "cos": np.cos,
}
# Where each function changes fastest or has its cancellations, finely.
DENSE = {"exp": (-104.0, 89.0), "log": (0.0, 4.0), "log1p": (-1.0, 2.0),
         "expm1": (-2.0, 2.0), "tanh": (-10.0, 10.0), "logistic": (-20.0, 20.0),
         "sin": (-20.0, 20.0), "cos": (-20.0, 20.0)}


def ordered(a: np.ndarray) -> np.ndarray:
    """float32 -> int64, monotonic, with consecutive floats one apart (and -0.0 == 0.0)."""
    bits = a.view(np.uint32).astype(np.int64)
    return np.where(bits < 2**31, bits, 2**31 - bits)


def ulp_errors(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    both_nan = np.isnan(got) & np.isnan(want)
    return np.where(both_nan, 0, np.abs(ordered(got) - ordered(want)))


def grid(name: str) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, name)))
    random_bits = rng.integers(0, 2**32, 1_000_000, dtype=np.uint64).astype(np.uint32)
    lo, hi = DENSE[name]
    magnitudes = np.geomspace(1e-45, 3e38, 200_000).astype(np.float32)
    return np.concatenate([EDGES, random_bits.view(np.float32),
                           np.linspace(lo, hi, 1_000_000, dtype=np.float32),
                           magnitudes, -magnitudes])


def vectorized(fn, nargs: int = 1):
    """A Numba loop applying ``fn`` elementwise, the way the generated kernels call it."""
    if nargs == 1:
        @numba.njit(error_model="numpy")
        def apply(x):
            out = np.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = fn(x[i])
            return out
    else:
        @numba.njit(error_model="numpy")
        def apply(x, y):
            out = np.empty_like(x)
            for i in range(x.shape[0]):
                out[i] = fn(x[i], y[i])
            return out
    return apply


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_within_two_ulp_on_dense_grids_and_edges(name):
    x = grid(name)
    apply = vectorized(getattr(m, name + "_f32"))
    got = apply(x)
    with np.errstate(all="ignore"):
        want = REFERENCES[name](x.astype(np.float64)).astype(np.float32)
    errors = ulp_errors(got, want)
    worst = int(np.argmax(errors))
    assert errors[worst] <= 2, (f"{name}({x[worst]!r}) = {got[worst]!r}, correctly rounded: "
                                f"{want[worst]!r} ({errors[worst]} ulp)")
    assert got.dtype == np.float32
    # The edges, exactly: signed zeros and NaN are kept where the function keeps them.
    edges_got, edges_want = apply(EDGES), want[:len(EDGES)]
    np.testing.assert_array_equal(np.signbit(edges_got[edges_want == 0]),
                                  np.signbit(edges_want[edges_want == 0]))
    np.testing.assert_array_equal(np.isnan(edges_got), np.isnan(edges_want))


def test_pow_within_two_ulp_with_the_special_cases_of_c():
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, np.inf, -np.inf, np.nan,
                        3.0, -3.0, 1e-45, 1e38, 1.0000001, 0.9999999, 2.5, -2.5, 1e10],
                       dtype=np.float32)
    sx, sy = (a.ravel() for a in np.meshgrid(special, special))
    n = 500_000
    x = np.concatenate([sx, rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
                        .view(np.float32), rng.uniform(0, 10, n).astype(np.float32),
                        (1 + rng.uniform(-1e-3, 1e-3, n)).astype(np.float32),
                        -rng.integers(1, 20, n).astype(np.float32)])
    y = np.concatenate([sy, rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
                        .view(np.float32), rng.uniform(-40, 40, n).astype(np.float32),
                        rng.uniform(-1e5, 1e5, n).astype(np.float32),
                        rng.integers(-30, 30, n).astype(np.float32)])
    got = vectorized(m.pow_f32, 2)(x, y)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    errors = ulp_errors(got, want)
    worst = int(np.argmax(errors))
    assert errors[worst] <= 2, f"pow({x[worst]!r}, {y[worst]!r}): {got[worst]!r} != {want[worst]!r}"
    np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "logistic", "sin", "pow"])
def test_a_loop_calling_them_is_vectorized(name):
    """Branch-free means LLVM turns the loop into vector instructions (<8 x float>...)."""
    apply = vectorized(getattr(m, name + "_f32"), 2 if name == "pow" else 1)
    x = np.ones(16, np.float32)
    apply(*([x] * (2 if name == "pow" else 1)))
    llvm_ir = apply.inspect_llvm(apply.signatures[0])
    assert re.search(r"<\d+ x (float|double)>", llvm_ir), f"the loop over {name} is scalar"


def test_the_two_over_pi_table_reduces_huge_arguments_exactly():
    """sin(2^k) for large k, against remainders computed with Python's exact integers."""
    for k in (20, 50, 90, 127):
        x = np.float32(2.0 ** k) * np.float32(1.2345678)
        got = vectorized(m.sin_f32)(np.array([x], np.float32))[0]
        assert abs(float(got) - np.sin(float(x))) <= 1.2e-7  # NumPy's double sin is exact here
