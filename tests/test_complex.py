"""Complex numbers and jnp.fft: recorded from JAX, and laws that hold for all inputs.

* Programs recorded from real JAX 0.10.2 (tests/data/complex_cases.py -> complex_recorded.json):
  reprs, dtypes, weak types, promotion, jaxprs, errors, grads with JAX's holomorphic rules,
  vmap, jit, every jnp.fft function.
* Properties (float64): holomorphic grad against complex finite differences; grad of a
  real-valued function of complex input is ``df/dx - i df/dy`` (JAX's convention); vjp is
  the transpose of jvp for the real pairing ``Re(sum(a * b))``; jnp.fft against numpy.fft;
  vmap against a Python loop; jit (reference and Numba backends) against eager evaluation.
"""
from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from recorded import check, load, params
from x64_mode import x64

import edujax as jax
import edujax.numpy as jnp
from edujax import lax

CASES = load("complex_recorded.json")

# Known differences, each with its reason (strict: the test fails once they are fixed).
KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, KNOWN_DIFFERENCES))
def test_matches_recorded_jax(case):
    check(case)


def test_namespaces():
    import edujax.numpy.fft as fft_module
    assert jnp.fft is fft_module
    assert lax.FftType.IRFFT == 3 and lax.fft_p.name == "fft"
    for name in ["real", "imag", "conj", "conjugate", "angle", "iscomplex", "isreal",
                 "iscomplexobj", "isrealobj", "complex64", "complex128", "complexfloating"]:
        assert hasattr(jnp, name), name


# ---------------------------------------------------------------- strategies
PROPS = settings(max_examples=15, deadline=None)
_parts = st.floats(-2, 2, allow_nan=False, width=32)


@st.composite
def complex_arrays(draw, min_size=1, max_size=5):
    n = draw(st.integers(min_size, max_size))
    re = draw(hnp.arrays(np.float64, (n,), elements=_parts))
    im = draw(hnp.arrays(np.float64, (n,), elements=_parts))
    return re + 1j * im


def _away_from_zero(z: np.ndarray) -> np.ndarray:
    """Keep |z| >= 0.5, away from the branch points and poles of log, sqrt and 1/z."""
    return np.where(np.abs(z) < 0.5, z + 1.0, z)


# ---------------------------------------------------------------- grad conventions
HOLOMORPHIC = {
    "sin": jnp.sin, "exp": jnp.exp, "cube": lambda z: z ** 3, "tanh": jnp.tanh,
    "log": jnp.log, "reciprocal": lambda z: 1 / z, "sqrt": jnp.sqrt,
    "poly": lambda z: 3 * z ** 2 - (1 + 2j) * z + jnp.cosh(z),
}


@PROPS
@given(complex_arrays(), st.sampled_from(sorted(HOLOMORPHIC)))
def test_holomorphic_grad_is_the_complex_derivative(z, name):
    """For holomorphic f, grad(f, holomorphic=True)(z) = f'(z), the limit of
    (f(z + h) - f(z - h)) / 2h along any direction: the real axis here."""
    f = HOLOMORPHIC[name]
    z = _away_from_zero(z) + 0.25j  # off the negative real axis (log's and sqrt's cut)
    with x64():
        df = jax.vmap(jax.grad(f, holomorphic=True))(jnp.asarray(z))
        h = 1e-6
        numeric = (np.asarray(f(jnp.asarray(z + h))) - np.asarray(f(jnp.asarray(z - h)))) / (2 * h)
        np.testing.assert_allclose(np.asarray(df), numeric, rtol=1e-5, atol=1e-6)
        # Along the imaginary axis the derivative is the same (Cauchy-Riemann).
        numeric_i = (np.asarray(f(jnp.asarray(z + 1j * h)))
                     - np.asarray(f(jnp.asarray(z - 1j * h)))) / (2j * h)
        np.testing.assert_allclose(np.asarray(df), numeric_i, rtol=1e-5, atol=1e-6)


REAL_VALUED = {
    "abs2": lambda z: jnp.sum(jnp.abs(z) ** 2),
    "abs": lambda z: jnp.sum(jnp.abs(z)),
    "angle": lambda z: jnp.sum(jnp.angle(z)),
    "real_of_square": lambda z: jnp.sum(jnp.real(z * z)),
    "imag_of_exp": lambda z: jnp.sum(jnp.imag(jnp.exp(z))),
    "conj_product": lambda z: jnp.real(jnp.sum(jnp.conj(z) * jnp.sin(z))),
    "fft_power": lambda z: jnp.sum(jnp.abs(jnp.fft.fft(z)) ** 2),
    "lax_parts": lambda z: jnp.sum(lax.abs(lax.complex(lax.imag(z), 2 * lax.real(z)))),
}


@PROPS
@given(complex_arrays(), st.sampled_from(sorted(REAL_VALUED)))
def test_grad_of_real_function_is_dfdx_minus_i_dfdy(z, name):
    """JAX's convention for a real-valued f of z = x + iy: grad f = df/dx - i df/dy
    (the conjugate of the direction of steepest ascent)."""
    f = REAL_VALUED[name]
    z = _away_from_zero(z)
    # angle jumps by 2*pi across the negative real axis: no finite difference there.
    assume(name != "angle" or not np.any((z.real < 0) & (np.abs(z.imag) < 1e-3)))
    with x64():
        g = np.asarray(jax.grad(f)(jnp.asarray(z)))
        h = 1e-6
        for k in range(z.size):
            e = np.zeros(z.size)
            e[k] = h
            dfdx = (float(f(jnp.asarray(z + e))) - float(f(jnp.asarray(z - e)))) / (2 * h)
            dfdy = (float(f(jnp.asarray(z + 1j * e))) - float(f(jnp.asarray(z - 1j * e)))) / (
                2 * h)
            np.testing.assert_allclose(g[k], dfdx - 1j * dfdy, rtol=1e-5, atol=1e-5)


R_LINEAR = {  # maps that are linear over the reals (not all over the complex numbers)
    "real": jnp.real, "imag": jnp.imag, "conj": jnp.conj,
    "complex": lambda z: lax.complex(jnp.imag(z), jnp.real(z)),
    "scale": lambda z: (2 - 1j) * z, "fft": jnp.fft.fft, "ifft": jnp.fft.ifft,
    "fft_ortho_n": lambda z: jnp.fft.fft(z, n=6, norm="ortho"),
    "rfft": lambda z: jnp.fft.rfft(jnp.real(z)),
    "irfft": jnp.fft.irfft, "irfft_odd": lambda z: jnp.fft.irfft(z, n=2 * z.shape[0] - 1),
    "hfft": jnp.fft.hfft, "ihfft": lambda z: jnp.fft.ihfft(jnp.imag(z)),
    "fft2": lambda z: jnp.fft.fft2(jnp.stack([z, 2 * z])),
    "rfftn": lambda z: jnp.fft.rfftn(jnp.stack([jnp.real(z), jnp.imag(z)])),
}


@PROPS
@given(complex_arrays(min_size=2), st.sampled_from(sorted(R_LINEAR)), st.integers(0, 2**31 - 1))
def test_vjp_is_the_transpose_of_jvp(z, name, seed):
    """For a real-linear map L, JAX's vjp is its transpose for the pairing Re(sum(a * b))
    (no conjugation): Re<vjp(ct), t> = Re<ct, L t> for every tangent t and cotangent ct."""
    f = R_LINEAR[name]
    rng = np.random.default_rng(seed)
    with x64():
        z = jnp.asarray(z)
        y, pullback = jax.vjp(f, z)
        t = rng.normal(size=z.shape) + 1j * rng.normal(size=z.shape)
        ct = rng.normal(size=y.shape) + (1j * rng.normal(size=y.shape) if y.dtype.kind == "c"
                                         else 0)
        ct = jnp.asarray(ct, y.dtype)
        _, lt = jax.jvp(f, (z,), (jnp.asarray(t),))
        lhs = np.real(np.sum(np.asarray(pullback(ct)[0]) * t))
        rhs = np.real(np.sum(np.asarray(ct) * np.asarray(lt)))
        np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- jnp.fft against numpy.fft
_NORMS = st.sampled_from([None, "backward", "ortho", "forward"])


@st.composite
def signals(draw, complex_values=True):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    re = draw(hnp.arrays(np.float64, shape, elements=_parts))
    if not complex_values:
        return re
    return re + 1j * draw(hnp.arrays(np.float64, shape, elements=_parts))


def _close(got, want):
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-9)


@PROPS
@given(signals(), st.sampled_from(["fft", "ifft", "hfft"]), st.integers(1, 7), _NORMS,
       st.data())
def test_1d_transforms_match_numpy(x, name, n, norm, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = n + (name == "hfft")  # hfft needs n >= 2 here
    with x64():
        _close(getattr(jnp.fft, name)(x, n=n, axis=axis, norm=norm),
               getattr(np.fft, name)(x, n=n, axis=axis, norm=norm))


@PROPS
@given(signals(complex_values=False), st.integers(1, 7), _NORMS, st.data())
def test_real_transforms_match_numpy(x, n, norm, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    with x64():
        _close(jnp.fft.rfft(x, n=n, axis=axis, norm=norm), np.fft.rfft(x, n, axis, norm))
        _close(jnp.fft.ihfft(x, n=n, axis=axis, norm=norm), np.fft.ihfft(x, n, axis, norm))
        spectrum = np.fft.rfft(x, axis=axis)
        _close(jnp.fft.irfft(spectrum, n=n, axis=axis, norm=norm),
               np.fft.irfft(spectrum, n, axis, norm))


@PROPS
@given(signals(), st.sampled_from(["fftn", "ifftn", "rfftn", "irfftn"]), _NORMS, st.data())
def test_nd_transforms_match_numpy(x, name, norm, data):
    axes = data.draw(st.permutations(range(x.ndim)).flatmap(
        lambda p: st.integers(1, len(p)).map(lambda k: tuple(p[:k]))))
    s = data.draw(st.none() | st.lists(st.integers(1, 6), min_size=len(axes),
                                       max_size=len(axes)).map(tuple))
    x = np.real(x) if name == "rfftn" else x
    # irfftn's default output length along the last axis is 2 * (n - 1): none when n == 1
    # (NumPy raises "Invalid number of FFT data points (0)", and so does edujax).
    assume(not (name == "irfftn" and s is None and x.shape[axes[-1]] == 1))
    with x64():
        _close(getattr(jnp.fft, name)(x, s=s, axes=axes, norm=norm),
               getattr(np.fft, name)(x, s=s, axes=axes, norm=norm))


def test_float32_fft_is_complex64_and_accurate():
    x = np.random.default_rng(0).normal(size=(4, 16)).astype(np.float32)
    out = jnp.fft.fft2(x)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(out), np.fft.fft2(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.fft.irfft(jnp.fft.rfft(x), n=16)), x, atol=1e-6)


@pytest.mark.parametrize("n", [1, 4, 7])
def test_frequencies_and_shifts_match_numpy(n):
    with x64():
        _close(jnp.fft.fftfreq(n, d=0.5), np.fft.fftfreq(n, d=0.5))
        _close(jnp.fft.rfftfreq(n, d=0.5), np.fft.rfftfreq(n, d=0.5))
    a = np.arange(n * 3).reshape(3, n)
    np.testing.assert_array_equal(np.asarray(jnp.fft.fftshift(a)), np.fft.fftshift(a))
    np.testing.assert_array_equal(np.asarray(jnp.fft.ifftshift(a, axes=1)),
                                  np.fft.ifftshift(a, axes=1))


# ---------------------------------------------------------------- vmap and jit
BATCHED = {
    "real": jnp.real, "imag": jnp.imag, "conj": jnp.conj, "abs": jnp.abs,
    "angle": jnp.angle, "complex": lambda z: lax.complex(jnp.imag(z), jnp.real(z)),
    "fft": jnp.fft.fft, "ifft_n": lambda z: jnp.fft.ifft(z, n=3),
    "rfft": lambda z: jnp.fft.rfft(jnp.real(z)), "irfft": jnp.fft.irfft,
    "grad": jax.grad(lambda z: jnp.sum(jnp.abs(jnp.fft.fft(z)))),
    "holomorphic_grad": lambda z: jax.vmap(jax.grad(lambda w: w * jnp.sin(w),
                                                     holomorphic=True))(z),
}


@PROPS
@given(st.integers(1, 3), st.integers(2, 4), st.sampled_from(sorted(BATCHED)), st.booleans())
def test_vmap_matches_a_python_loop(batch, n, name, batch_last):
    f = BATCHED[name]
    rng = np.random.default_rng(batch * 10 + n)
    z = (rng.normal(size=(batch, n)) + 1j * rng.normal(size=(batch, n))).astype(np.complex64)
    if batch_last:
        out = jax.vmap(f, in_axes=1)(jnp.asarray(z.T))
    else:
        out = jax.vmap(f)(jnp.asarray(z))
    want = np.stack([np.asarray(f(jnp.asarray(row))) for row in z])
    assert out.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)


JITTED = {
    "arithmetic": lambda z: (z * z + 1j) / (1 - 2j) - jnp.conj(z) ** 3,
    "math": lambda z: jnp.exp(z) + jnp.log(z) + jnp.sqrt(z) * jnp.sin(z) + jnp.tanh(z),
    "parts": lambda z: (jnp.real(z), jnp.imag(z), jnp.abs(z), jnp.angle(z),
                        lax.complex(jnp.imag(z), jnp.abs(z))),
    "reductions": lambda z: (jnp.sum(z), jnp.prod(z), jnp.mean(z * z), jnp.var(z)),
    "products": lambda z: (jnp.dot(z, z), jnp.vdot(z, z), jnp.outer(z, z) @ z),
    "compare": lambda z: (z == jnp.conj(z), z < 1j, jnp.where(jnp.abs(z) > 1, z, 0j)),
    "fft": lambda z: (jnp.fft.fft(z), jnp.fft.irfft(z, n=5), jnp.fft.rfft(jnp.real(z))),
    "grad": jax.grad(lambda z: jnp.sum(jnp.abs(jnp.exp(z) * z) ** 2)),
    "cast": lambda z: (z.astype(jnp.float32), jnp.real(z).astype(jnp.complex64) * 1j),
}


@pytest.mark.parametrize("name", sorted(JITTED))
def test_jit_matches_eager(name, backend):
    """``backend`` (conftest.py) runs this once on the reference interpreter, once on Numba."""
    f = JITTED[name]
    z = jnp.asarray(np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0.75j], np.complex64))
    want = jax.tree_util.tree_leaves(f(z))
    got = jax.tree_util.tree_leaves(jax.jit(f)(z))
    for g, w in zip(got, want):
        assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)


def test_complex128_under_x64_through_jit():
    with x64():
        z = jnp.asarray(np.array([1 + 2j, -3j]))
        out = jax.jit(lambda z: jnp.fft.fft(jnp.exp(z) * jnp.conj(z)))(z)
        assert out.dtype == np.complex128
        np.testing.assert_allclose(np.asarray(out), np.fft.fft(np.exp(z) * np.conj(z)),
                                   rtol=1e-13)


def test_numba_fuses_complex_arithmetic_and_says_what_falls_back(backend):
    """In the Numba source, complex arithmetic is a loop like any other; what runs through a
    reference rule says why (the FFT is numpy.fft's; abs of complex is not lowered)."""
    if backend != "numba":
        return
    z = jnp.asarray(np.array([1 + 2j, -3j], np.complex64))
    text = jax.jit(lambda z: (lax.complex(jnp.real(z), 2 * jnp.imag(z)) * jnp.conj(z),
                              jnp.abs(z), jnp.fft.fft(z))).lower(z).compile().as_text()
    assert "fused_0 (Numba loop)                 b:f32[2] = real a" in text
    assert "np.complex64(a.conjugate())" in text
    assert "reference rule (NumPy; complex)      " in text and "= abs a" in text
    assert "reference rule (numpy.fft)" in text


@PROPS
@given(complex_arrays(min_size=4, max_size=4), complex_arrays(min_size=4, max_size=4),
       st.sampled_from(["less", "less_equal", "greater", "greater_equal", "maximum",
                        "minimum", "equal"]))
def test_complex_ordering_is_numpys_lexicographic_order(a, b, name):
    """jnp orders complex numbers by real part, then imaginary part, as NumPy does (ties
    are made likely by copying some real parts across)."""
    b = np.where([True, False, True, False], a.real, b.real) + 1j * b.imag
    a, b = a.astype(np.complex64), b.astype(np.complex64)
    got = getattr(jnp, name)(a, b)
    want = getattr(np, name)(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
