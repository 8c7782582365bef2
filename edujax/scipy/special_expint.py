"""The exponential integrals of ``jax.scipy.special``: ``expi`` (Ei), ``exp1`` (E1) and
``expn`` (E_n), ported from JAX's implementation (Cephes' rational approximations and series).

``Ei(x) = -integral_{-x}^inf exp(-t) / t dt``; for x > 0 it is a rational function on each
of the ranges (0, 2], (2, 4], ..., (32, 64] and an asymptotic form beyond; for x < 0,
``Ei(x) = -E1(-x)``. ``E_n(x) = integral_1^inf exp(-x t) / t**n dt`` is a power series for
x <= 1 and a continued fraction beyond.
NB: JAX evaluates only the branch each element needs (``jnp.piecewise`` on scalars under
``jnp.vectorize``); edujax evaluates every branch and selects, on inputs made safe for the
branches that are not used.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.custom_derivatives import custom_jvp
from edujax.inner_jit import inner_jit
from edujax.scipy.special_functions import _const, _no_complex, _polyval, _promote, gammaln


def _expint1(x: Any) -> Any:
    # 0 < x <= 2
    A = np.array([
        -5.350447357812542947283e0,
        2.185049168816613393830e2,
        -4.176572384826693777058e3,
        5.541176756393557601232e4,
        -3.313381331178144034309e5,
        1.592627163384945414220e6,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        -5.250547959112862969197e1,
        1.259616186786790571525e3,
        -1.756549581973534652631e4,
        1.493062117002725991967e5,
        -7.294949239640527645655e5,
        1.592627163384945429726e6,
    ], dtype=x.dtype)
    f = _polyval(A, x) / _polyval(B, x)
    return x * f + np.euler_gamma + jnp.log(x)



def _eval_expint_k(A: Any, B: Any, x: Any) -> Any:
    # helper function for all subsequent intervals
    one = _const(x, 1.0)
    w = one / x
    f = _polyval(A, w) / _polyval(B, w)
    f = w * f + one
    return jnp.exp(x) * w * f



def _expint2(x: Any) -> Any:
    # 2 <= x < 4
    A = np.array([
        1.981808503259689673238e-2,
        -1.271645625984917501326e0,
        -2.088160335681228318920e0,
        2.755544509187936721172e0,
        -4.409507048701600257171e-1,
        4.665623805935891391017e-2,
        -1.545042679673485262580e-3,
        7.059980605299617478514e-5,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        1.476498670914921440652e0,
        5.629177174822436244827e-1,
        1.699017897879307263248e-1,
        2.291647179034212017463e-2,
        4.450150439728752875043e-3,
        1.727439612206521482874e-4,
        3.953167195549672482304e-5,
    ], dtype=x.dtype)
    return _eval_expint_k(A, B, x)



def _expint3(x: Any) -> Any:
    # 4 <= x <= 8
    A = np.array([
        -1.373215375871208729803e0,
        -7.084559133740838761406e-1,
        1.580806855547941010501e0,
        -2.601500427425622944234e-1,
        2.994674694113713763365e-2,
        -1.038086040188744005513e-3,
        4.371064420753005429514e-5,
        2.141783679522602903795e-6,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        8.585231423622028380768e-1,
        4.483285822873995129957e-1,
        7.687932158124475434091e-2,
        2.449868241021887685904e-2,
        8.832165941927796567926e-4,
        4.590952299511353531215e-4,
        -4.729848351866523044863e-6,
        2.665195537390710170105e-6,
    ], dtype=x.dtype)
    return _eval_expint_k(A, B, x)



def _expint4(x: Any) -> Any:
    # 8 <= x <= 16
    A = np.array([
        -2.106934601691916512584e0,
        1.732733869664688041885e0,
        -2.423619178935841904839e-1,
        2.322724180937565842585e-2,
        2.372880440493179832059e-4,
        -8.343219561192552752335e-5,
        1.363408795605250394881e-5,
        -3.655412321999253963714e-7,
        1.464941733975961318456e-8,
        6.176407863710360207074e-10,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        -2.298062239901678075778e-1,
        1.105077041474037862347e-1,
        -1.566542966630792353556e-2,
        2.761106850817352773874e-3,
        -2.089148012284048449115e-4,
        1.708528938807675304186e-5,
        -4.459311796356686423199e-7,
        1.394634930353847498145e-8,
        6.150865933977338354138e-10,
    ], dtype=x.dtype)
    return _eval_expint_k(A, B, x)



def _expint5(x):
    # 16 <= x <= 32
    A = np.array([
        -2.458119367674020323359e-1,
        -1.483382253322077687183e-1,
        7.248291795735551591813e-2,
        -1.348315687380940523823e-2,
        1.342775069788636972294e-3,
        -7.942465637159712264564e-5,
        2.644179518984235952241e-6,
        -4.239473659313765177195e-8,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        -1.044225908443871106315e-1,
        -2.676453128101402655055e-1,
        9.695000254621984627876e-2,
        -1.601745692712991078208e-2,
        1.496414899205908021882e-3,
        -8.462452563778485013756e-5,
        2.728938403476726394024e-6,
        -4.239462431819542051337e-8,
    ], dtype=x.dtype)
    return _eval_expint_k(A, B, x)



def _expint6(x):
    # 32 <= x <= 64
    A = np.array([
        1.212561118105456670844e-1,
        -5.823133179043894485122e-1,
        2.348887314557016779211e-1,
        -3.040034318113248237280e-2,
        1.510082146865190661777e-3,
        -2.523137095499571377122e-5,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        -1.002252150365854016662e0,
        2.928709694872224144953e-1,
        -3.337004338674007801307e-2,
        1.560544881127388842819e-3,
        -2.523137093603234562648e-5,
    ], dtype=x.dtype)
    return _eval_expint_k(A, B, x)



def _expint7(x):
    # x > 64
    A = np.array([
        -7.657847078286127362028e-1,
        6.886192415566705051750e-1,
        -2.132598113545206124553e-1,
        3.346107552384193813594e-2,
        -3.076541477344756050249e-3,
        1.747119316454907477380e-4,
        -6.103711682274170530369e-6,
        1.218032765428652199087e-7,
        -1.086076102793290233007e-9,
    ], dtype=x.dtype)
    B = np.array([
        1.0,
        -1.888802868662308731041e0,
        1.066691687211408896850e0,
        -2.751915982306380647738e-1,
        3.930852688233823569726e-2,
        -3.414684558602365085394e-3,
        1.866844370703555398195e-4,
        -6.345146083130515357861e-6,
        1.239754287483206878024e-7,
        -1.086076102793126632978e-9,
    ], dtype=x.dtype)
    return _eval_expint_k(A, B, x)


def _expi_pos(x: Any) -> Any:
    """Ei(x) for x >= 0: the rational function of x's range (0, 2], (2, 4], ... (32, 64], or
    the asymptotic form beyond 64. (Each piece sees only inputs from its range.)"""
    pieces = [_expint1, _expint2, _expint3, _expint4, _expint5, _expint6]
    bounds = [0, 2, 4, 8, 16, 32, 64]
    outside = (x > 64) | (x <= 0)  # (JAX's default branch: the asymptotic form, nan at 0)
    out = _expint7(jnp.where(outside, x, 128.))
    for lo, hi, piece in reversed(list(zip(bounds, bounds[1:], pieces))):
        inside = (_const(x, lo) < x) & (x <= _const(x, hi))
        out = jnp.where(inside, piece(jnp.where(inside, x, (lo + hi) / 2)), out)
    return out


@custom_jvp
def expi(x: Any) -> Any:
    """The exponential integral Ei(x)."""
    x, = _promote("expi", x)
    _no_complex("expi", x)
    negative = x < 0
    return jnp.where(negative, -exp1(jnp.where(negative, -x, 1.)),
                     _expi_pos(jnp.where(negative, 1., x)))


def _expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


expi.defjvp(_expi_jvp)


def _expn1(x: Any, n: Any) -> Any:
    """E_n(x) for x <= 1: its power series (with the digamma term psi(n))."""
    _c = _const
    machep = np.finfo(x.dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    psi = -np.euler_gamma - jnp.log(x)
    psi = lax.fori_loop(_c(n, 1), n, lambda i, psi: psi + one / i, psi)
    n1 = jnp.where(n == _c(n, 1), one + one, n)
    init = dict(x=x, z=-x, xk=zero, yk=one, pk=one - n,
                ans=jnp.where(n == _c(n, 1), zero, one / (one - n1)), t=np.inf)

    def body(d):
        d["xk"] += one
        d["yk"] *= d["z"] / d["xk"]
        d["pk"] += one
        d["ans"] += jnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = jnp.where(d["ans"] != zero, abs(d["yk"] / d["ans"]), one)
        return d

    def cond(d):
        return (d["x"] > _c(d["x"], 0.0)) & (d["t"] > machep)
    d = lax.while_loop(cond, body, init)
    t = n
    r = n - _c(n, 1)
    return d["z"] ** r * psi / jnp.exp(gammaln(t)) - d["ans"]


def _expn2(x: Any, n: Any) -> Any:
    """E_n(x) for x > 1: a continued fraction (rescaled when its terms grow too big)."""
    _c = _const
    big = _c(x, 1.44115188075855872e17)
    machep = np.finfo(x.dtype).eps
    zero, one = _c(x, 0.0), _c(x, 1.0)
    init = dict(k=_c(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
                t=_c(x, np.inf), r=zero, x=x)

    def body(d):
        x = d["x"]
        d["k"] += _c(d["k"], 1)
        k = d["k"]
        odd = k % _c(k, 2) == _c(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - _c(k, 1)) / _c(k, 2), k / _c(k, 2))
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        d["r"] = r = jnp.where(nz, pk / qk, d["r"])
        d["t"] = jnp.where(nz, abs((d["ans"] - r) / r), one)
        d["ans"] = jnp.where(nz, r, d["ans"])
        d["pkm2"] = d["pkm1"]
        d["pkm1"] = pk
        d["qkm2"] = d["qkm1"]
        d["qkm1"] = qk
        is_big = abs(pk) > big
        for name in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[name] = jnp.where(is_big, d[name] / big, d[name])
        return d

    def cond(d):
        return (d["x"] > _c(d["k"], 0)) & (d["t"] > machep)
    d = lax.while_loop(cond, body, init)
    return d["ans"] * jnp.exp(-x)


def _expn3(x: Any, n: Any) -> Any:
    """E_n(x) for n >= 5000: an asymptotic expansion in n."""
    _c = _const
    one = _c(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    t = n
    ans = yk * t * (_c(x, 6) * x * x - _c(x, 8) * t * x + t * t)
    ans = yk * (ans + t * (t - _c(x, 2) * x))
    ans = yk * (ans + t)
    return (ans + one) * jnp.exp(-x) / xk


@inner_jit
def _expn(n: Any, x: Any) -> Any:
    """E_n(x) for one n and one x: the special cases, else the series (x <= 1), the continued
    fraction (x > 1) or the expansion for large n, chosen with jnp.piecewise."""
    n, x = _promote("expn", n, x)
    _no_complex("expn", x)
    _c = _const
    zero, one = _c(x, 0), _c(x, 1)
    conds = [(n < _c(n, 0)) | (x < zero),
             (x == zero) & (n < _c(n, 2)),
             (x == zero) & (n >= _c(n, 2)),
             (n == _c(n, 0)) & (x >= zero),
             (n >= _c(n, 5000)),
             (x > one)]
    n1 = jnp.where(n == _c(n, 1), n + n, n)
    vals = [np.nan, np.inf, one / n1,  # (n1: no division by zero)
            jnp.exp(-x) / x, _expn3, _expn2, _expn1]
    return jnp.piecewise(x, conds, vals, n=n)


_expn.__name__ = _expn._inner_jit.name = "expn"  # JAX's name for it in jaxprs


@partial(custom_jvp, nondiff_argnums=(0,))
def expn(n: Any, x: Any) -> Any:
    """The generalized exponential integral E_n(x) (vectorized over n and x)."""
    return jnp.vectorize(_expn)(n, x)


def expn_jvp(n, primals, tangents):
    """d/dx E_n(x) = -E_{n-1}(x).

    NB: JAX also jits this rule; edujax does not, because its custom_jvp cannot yet take
    a traced ``n`` (a nondiff argument) into the rule's jit."""
    (x,), (x_dot,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(x_dot), expn(lax.sub(n, _const(n, 1)), x))


expn.defjvp(expn_jvp)


def exp1(x: Any) -> Any:
    """E1(x) = integral_x^inf exp(-t) / t dt."""
    x, = _promote("exp1", x)
    _no_complex("exp1", x)
    return expn(1, x)
