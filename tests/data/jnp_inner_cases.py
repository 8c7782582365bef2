"""Programs whose printed jaxprs and values are recorded in jnp_inner_recorded.json.

These are the jnp functions JAX 0.10 wraps in its own ``jit`` whose bodies edujax first
wrote differently: median, quantile and their family, cross, take_along_axis, unwrap,
corrcoef, gcd, lcm, poly and polyfit, and more found later. Each is traced as it is, under
jit, vmap and (where differentiable) grad, with the keyword variants a student would use,
on integer and float inputs; value cases check that the rebuilt bodies still compute the
same numbers. tests/test_jnp_inner.py replays them on edujax.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/jnp_inner_cases.py \\
        tests/data/jnp_inner_recorded.json
"""
CASES: dict[str, str] = {}

X = "jnp.array([[1.5, -2.0, 3.0, 0.25], [-4.0, 0.5, -6.0, 2.0], [7.0, 1.0, -1.0, 4.5]])"
XI = "jnp.array([[3, -7, 0, 4], [5, 2, -1, 8], [1, 9, 6, -2]])"
V = "jnp.array([0.5, -1.5, 2.0, 3.0, 1.25])"
VI = "jnp.array([2, -3, 4, 7])"


def jaxpr(name: str, fn: str, *args: str) -> None:
    CASES[name] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


def value(name: str, expr: str) -> None:
    CASES[name] = f"out = {expr}"


def transformed(name: str, fn: str, arg: str, grad: bool = True) -> None:
    """``fn`` traced as it is, under jit and vmap and, if differentiable, under grad."""
    jaxpr(name, fn, arg)
    jaxpr(f"{name}[jit]", f"jax.jit({fn})", arg)
    jaxpr(f"{name}[vmap]", f"jax.vmap({fn})", f"jnp.stack([{arg}, {arg}])")
    if grad:
        jaxpr(f"{name}[grad]", f"jax.grad(lambda x: jnp.sum(({fn})(x)))", arg)


# ---------------------------------------------------------------- median, quantile, percentile
transformed("median", "jnp.median", X)
transformed("median[vector]", "jnp.median", V)
transformed("median[axis0,keepdims]", "lambda x: jnp.median(x, axis=0, keepdims=True)", X)
transformed("median[axis-1]", "lambda x: jnp.median(x, axis=-1)", X)
jaxpr("median[axis_tuple]", "lambda x: jnp.median(x, axis=(0, 1))", X)
jaxpr("median[keepdims]", "lambda x: jnp.median(x, keepdims=True)", X)
jaxpr("median[int]", "jnp.median", XI)
jaxpr("median[int,axis1]", "lambda x: jnp.median(x, axis=1)", XI)
transformed("nanmedian", "jnp.nanmedian", X)
jaxpr("nanmedian[axis0,keepdims]", "lambda x: jnp.nanmedian(x, axis=0, keepdims=True)", X)
for method in ("linear", "lower", "higher", "nearest", "midpoint"):
    jaxpr(f"quantile[{method}]", f"lambda x: jnp.quantile(x, 0.3, method={method!r})", X)
    jaxpr(f"quantile[{method},axis1]",
          f"lambda x: jnp.quantile(x, jnp.array([0.25, 0.75]), axis=1, method={method!r})", X)
    jaxpr(f"nanquantile[{method}]", f"lambda x: jnp.nanquantile(x, 0.3, method={method!r})", X)
transformed("quantile", "lambda x: jnp.quantile(x, 0.3)", X)
transformed("quantile[q_vector,axis0]",
            "lambda x: jnp.quantile(x, jnp.array([0.1, 0.5, 0.9]), axis=0)", X)
transformed("quantile[keepdims]", "lambda x: jnp.quantile(x, 0.3, axis=1, keepdims=True)", X)
jaxpr("quantile[q_traced]", "lambda x, q: jnp.quantile(x, q)", X, "0.3")
jaxpr("quantile[q_vector_traced]", "lambda x, q: jnp.quantile(x, q, axis=0)", X,
      "jnp.array([0.1, 0.9])")
jaxpr("quantile[int]", "lambda x: jnp.quantile(x, 0.3)", XI)
jaxpr("quantile[axis_tuple,keepdims]",
      "lambda x: jnp.quantile(x, 0.3, axis=(0, 1), keepdims=True)", X)
transformed("nanquantile", "lambda x: jnp.nanquantile(x, jnp.array([0.25, 0.5]), axis=1)", X)
jaxpr("nanquantile[keepdims]",
      "lambda x: jnp.nanquantile(x, 0.3, axis=0, keepdims=True)", X)
transformed("percentile", "lambda x: jnp.percentile(x, 30.0)", X)
jaxpr("percentile[int_q]", "lambda x: jnp.percentile(x, 30, axis=0)", X)
jaxpr("percentile[q_vector,nearest]",
      "lambda x: jnp.percentile(x, jnp.array([10, 50, 90]), method='nearest')", X)
jaxpr("percentile[int]", "lambda x: jnp.percentile(x, 50)", XI)
transformed("nanpercentile", "lambda x: jnp.nanpercentile(x, 30.0, axis=1)", X)
# Values are chosen so that every interpolation is exact in float32: JAX's eager call runs
# one compiled XLA kernel, which fuses ``a * w1 + b * w2`` into a fused multiply-add and so
# can round differently from edujax's eager NumPy ops in the last place.
value("median[value]", f"jnp.median({X})")
value("median[value,axis0,keepdims]", f"jnp.median({X}, axis=0, keepdims=True)")
value("median[value,int]", f"jnp.median({XI}, axis=1)")
value("nanmedian[value]", "jnp.nanmedian(jnp.array([[1.0, jnp.nan, 3.0], [jnp.nan, jnp.nan, 2.0]]), axis=1)")
for method in ("linear", "lower", "higher", "nearest", "midpoint"):
    value(f"quantile[value,{method}]",
          f"jnp.quantile({X}, jnp.array([0.25, 0.5, 1.0]), axis=1, method={method!r})")
value("percentile[value]", f"jnp.percentile({XI}, jnp.array([25, 50, 100]), axis=0)")
value("nanpercentile[value]", "jnp.nanpercentile(jnp.array([1.0, jnp.nan, 3.0, 4.0]), 25)")
value("median[grad,value]", f"jax.grad(lambda x: jnp.median(x))({V})")

# ---------------------------------------------------------------- cross
A3 = "jnp.array([[1.0, 2.0, 3.0], [-1.5, 0.5, 2.0]])"
B3 = "jnp.array([[0.5, -1.0, 4.0], [2.0, 1.0, -3.0]])"
A2 = "jnp.array([[1.0, 2.0], [-1.5, 0.5]])"
AI3 = "jnp.array([[1, 2, 3], [4, -5, 6]])"
jaxpr("cross", "jnp.cross", A3, B3)
jaxpr("cross[jit]", "jax.jit(jnp.cross)", A3, B3)
jaxpr("cross[vmap]", "jax.vmap(jnp.cross)", A3, B3)
jaxpr("cross[grad]", "jax.grad(lambda a, b: jnp.sum(jnp.cross(a, b)))", A3, B3)
jaxpr("cross[2d]", "jnp.cross", A2, A2 + "[::-1]")
jaxpr("cross[2d_3d]", "jnp.cross", A2, B3)
jaxpr("cross[axis0]", "lambda a, b: jnp.cross(a, b, axis=0)", A3 + ".T", B3 + ".T")
jaxpr("cross[axisa]", "lambda a, b: jnp.cross(a, b, axisa=0)", A3 + ".T", B3)
jaxpr("cross[int]", "jnp.cross", AI3, AI3 + "[::-1]")
jaxpr("cross[vector]", "jnp.cross", "jnp.array([1.0, 2.0, 3.0])", "jnp.array([4, 5, 6])")
jaxpr("linalg.cross", "jnp.linalg.cross", A3, B3)
value("cross[value]", f"jnp.cross({A3}, {B3})")
value("cross[value,2d]", f"jnp.cross({A2}, {A2}[::-1])")
value("cross[value,int]", f"jnp.cross({AI3}, {AI3}[::-1])")
value("linalg.cross[value]", f"jnp.linalg.cross({A3}, {B3})")

# ---------------------------------------------------------------- take_along_axis
IDX = "jnp.array([[2, 0, -1, 1], [-4, 3, 3, 0], [1, 1, 0, -2]])"
jaxpr("take_along_axis", "jnp.take_along_axis", X, IDX)
jaxpr("take_along_axis[jit]", "jax.jit(jnp.take_along_axis)", X, IDX)
jaxpr("take_along_axis[vmap]", "jax.vmap(jnp.take_along_axis)", X, IDX)
jaxpr("take_along_axis[vmap_arr]", "jax.vmap(jnp.take_along_axis, in_axes=(0, None))",
      f"jnp.stack([{X}, {X}])", IDX)
jaxpr("take_along_axis[grad]",
      f"jax.grad(lambda x: jnp.sum(jnp.take_along_axis(x, {IDX}, axis=1)))", X)
jaxpr("take_along_axis[axis0]", "lambda x, i: jnp.take_along_axis(x, i, axis=0)", X,
      "jnp.array([[0, 2, 1, -1]])")
jaxpr("take_along_axis[axis_none]", "lambda x, i: jnp.take_along_axis(x, i, axis=None)", X,
      "jnp.array([0, 5, -1, 11])")
jaxpr("take_along_axis[argsort]", "lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)", X)
jaxpr("take_along_axis[clip]", "lambda x, i: jnp.take_along_axis(x, i, axis=1, mode='clip')", X, IDX)
jaxpr("take_along_axis[fill]",
      "lambda x, i: jnp.take_along_axis(x, i, axis=1, mode='fill', fill_value=-1.0)", X, IDX)
jaxpr("take_along_axis[broadcast]", "lambda x, i: jnp.take_along_axis(x, i, axis=1)", X,
      "jnp.array([[1, 0]])")
jaxpr("take_along_axis[int]", "jnp.take_along_axis", XI, IDX)
jaxpr("take_along_axis[uint8]", "lambda x, i: jnp.take_along_axis(x, i.astype(jnp.uint8), axis=1)",
      X, "jnp.array([[1, 0, 3, 2], [0, 0, 1, 1], [3, 2, 1, 0]])")
value("take_along_axis[value]", f"jnp.take_along_axis({X}, {IDX}, axis=1)")
value("take_along_axis[value,none]", f"jnp.take_along_axis({X}, jnp.array([0, 5, -1, 11]), axis=None)")
value("take_along_axis[value,fill]", f"jnp.take_along_axis({X}, jnp.array([[0, 7, -9, 1]]), axis=1)")

# ---------------------------------------------------------------- unwrap
P = "jnp.array([0.0, 1.0, 3.5, 6.5, 0.5, -3.0, 2.5])"
PI = "jnp.array([0, 3, 7, 2, 9, -4])"
transformed("unwrap", "jnp.unwrap", P)
jaxpr("unwrap[2d,axis0]", "lambda p: jnp.unwrap(p, axis=0)", f"jnp.stack([{P}, {P} * 2])")
jaxpr("unwrap[discont]", "lambda p: jnp.unwrap(p, discont=2.0)", P)
jaxpr("unwrap[period]", "lambda p: jnp.unwrap(p, period=4.0)", P)
jaxpr("unwrap[int]", "lambda p: jnp.unwrap(p, period=6)", PI)
value("unwrap[value]", f"jnp.unwrap({P})")
value("unwrap[value,period]", f"jnp.unwrap({P}, period=4.0)")
value("unwrap[value,int]", f"jnp.unwrap({PI}, period=6)")

# ---------------------------------------------------------------- cov, corrcoef
M = "jnp.array([[1.0, 2.5, -1.0, 4.0], [0.5, -2.0, 3.0, 1.5], [2.0, 2.0, 0.0, -1.0]])"
MI = "jnp.array([[1, 4, 2, 8], [3, 1, 0, 5]])"
transformed("corrcoef", "jnp.corrcoef", M)
jaxpr("corrcoef[rowvar]", "lambda m: jnp.corrcoef(m, rowvar=False)", M)
jaxpr("corrcoef[y]", "jnp.corrcoef", M + "[0]", M + "[1]")
jaxpr("corrcoef[vector]", "jnp.corrcoef", M + "[0]")
jaxpr("corrcoef[int]", "jnp.corrcoef", MI)
jaxpr("corrcoef[dtype]", "lambda m: jnp.corrcoef(m, dtype=jnp.float32)", MI)
jaxpr("corrcoef[complex]", "jnp.corrcoef", M + " + 1j * " + M + "[::-1]")
transformed("cov", "jnp.cov", M)
jaxpr("cov[weights]", "lambda m: jnp.cov(m, fweights=jnp.array([1, 2, 1, 3]), "
      "aweights=jnp.array([0.5, 1.0, 2.0, 1.0]))", M)
jaxpr("cov[weights,aweights_first]", "lambda m: jnp.cov(m, aweights=jnp.array([0.5, 1.0, 2.0, 1.0]), "
      "fweights=jnp.array([1, 2, 1, 3]))", M)
jaxpr("cov[dtype]", "lambda m: jnp.cov(m, dtype=jnp.float32)", MI)
jaxpr("cov[ddof,bias]", "lambda m: jnp.cov(m, ddof=0) + jnp.cov(m, bias=True)", M)
jaxpr("cov[complex]", "jnp.cov", M + " + 1j * " + M + "[::-1]")
jaxpr("cov[vector]", "jnp.cov", M + "[0]")
# (rounded: JAX's compiled kernel fuses the square roots and divisions, and its last bits
# differ from edujax's op-by-op NumPy)
value("corrcoef[value]", f"jnp.round(jnp.corrcoef({M}), 5)")
value("corrcoef[value,int]", "jnp.round(jnp.corrcoef(jnp.array([[1, 4, 2, 8, 5], [3, 1, 0, 5, 1]])), 5)")
value("corrcoef[value,vector]", f"jnp.corrcoef({M}[0])")
# (five observations: the divisions by n - 1 = 4 are exact, so XLA's reciprocal multiply and
# edujax's division agree to the last bit)
value("cov[value,dtype]", "jnp.cov(jnp.array([[1, 4, 2, 8, 5], [3, 1, 0, 5, 1]]), dtype=jnp.float32)")
value("cov[value,no_samples]", "jnp.cov(jnp.zeros((2, 0)))")
value("corrcoef[dtype_error]", f"jnp.corrcoef({MI}, dtype=jnp.int32)")

# ---------------------------------------------------------------- gcd, lcm
G1 = "jnp.array([12, -18, 0, 7, 100])"
G2 = "jnp.array([8, 27, 5, 0, -75])"
for fn in ("gcd", "lcm"):
    jaxpr(fn, f"jnp.{fn}", G1, G2)
    jaxpr(f"{fn}[jit]", f"jax.jit(jnp.{fn})", G1, G2)
    jaxpr(f"{fn}[vmap]", f"jax.vmap(jnp.{fn})", f"jnp.stack([{G1}, {G2}])", f"jnp.stack([{G2}, {G1}])")
    jaxpr(f"{fn}[scalar]", f"lambda x: jnp.{fn}(x, 6)", G1)
    jaxpr(f"{fn}[uint8]", f"lambda x, y: jnp.{fn}(x.astype(jnp.uint8), y.astype(jnp.uint8))",
          "jnp.array([12, 18, 0])", "jnp.array([8, 27, 5])")
    value(f"{fn}[value]", f"jnp.{fn}({G1}, {G2})")
    value(f"{fn}[value,broadcast]", f"jnp.{fn}({G1}, jnp.array([[4], [6]]))")
    value(f"{fn}[float_error]", f"jnp.{fn}(1.5, 2)")

# ---------------------------------------------------------------- poly, polyfit
R = "jnp.array([1.0, -2.0, 0.5])"
transformed("poly", "jnp.poly", R)
jaxpr("poly[int]", "jnp.poly", "jnp.array([1, 2, 3])")
jaxpr("poly[scalar]", "jnp.poly", "2.5")
jaxpr("poly[complex]", "jnp.poly", "jnp.array([1.0 + 1j, 1.0 - 1j])")
value("poly[value]", f"jnp.poly({R})")
value("poly[value,int]", "jnp.poly(jnp.array([1, 2, 3]))")
value("poly[value,empty]", "jnp.poly(jnp.zeros((0,)))")
PX = "jnp.array([0.0, 1.0, 2.0, 3.0, 4.0])"
PY = "jnp.array([1.0, 2.5, 2.0, 4.5, 8.0])"
jaxpr("polyfit", "lambda x, y: jnp.polyfit(x, y, 2)", PX, PY)
jaxpr("polyfit[jit]", "jax.jit(lambda x, y: jnp.polyfit(x, y, 2))", PX, PY)
jaxpr("polyfit[vmap]", "jax.vmap(lambda y: jnp.polyfit(" + PX + ", y, 1))", f"jnp.stack([{PY}, {PY} * 2])")
jaxpr("polyfit[grad]", "jax.grad(lambda y: jnp.sum(jnp.polyfit(" + PX + ", y, 1)))", PY)
jaxpr("polyfit[w]", "lambda x, y: jnp.polyfit(x, y, 1, w=jnp.array([1.0, 2.0, 1.0, 0.5, 1.0]))", PX, PY)
jaxpr("polyfit[2d]", "lambda x, y: jnp.polyfit(x, y, 1)", PX, f"jnp.stack([{PY}, {PY} * 2], axis=1)")
jaxpr("polyfit[full]", "lambda x, y: jnp.polyfit(x, y, 1, full=True)", PX, PY)
jaxpr("polyfit[cov]", "lambda x, y: jnp.polyfit(x, y, 1, cov=True)", PX, PY)
jaxpr("polyfit[int]", "lambda x, y: jnp.polyfit(x, y, 1)", "jnp.arange(5)", "jnp.array([1, 3, 2, 5, 4])")
# (the SVD's last bits differ from LAPACK's: compared within a tolerance)
value("polyfit[value]", f"jnp.allclose(jnp.polyfit({PX}, {PY}, 1), jnp.array([1.6, 0.4]), atol=1e-5)")
value("polyfit[value,full]", f"[x.shape for x in jnp.polyfit({PX}, {PY}, 2, full=True)]")

# ---------------------------------------------------------------- convolve, correlate
CV = "jnp.array([1.0, -2.0, 0.5, 3.0, 1.5])"
CK = "jnp.array([0.5, 1.0, -1.0])"
for fn in ("convolve", "correlate"):
    jaxpr(fn, f"jnp.{fn}", CV, CK)
    jaxpr(f"{fn}[jit]", f"jax.jit(jnp.{fn})", CV, CK)
    jaxpr(f"{fn}[vmap]", f"jax.vmap(jnp.{fn}, in_axes=(0, None))", f"jnp.stack([{CV}, {CV}])", CK)
    jaxpr(f"{fn}[grad]", f"jax.grad(lambda a, v: jnp.sum(jnp.{fn}(a, v)), argnums=(0, 1))", CV, CK)
    for mode in ("full", "same", "valid"):
        jaxpr(f"{fn}[{mode}]", f"lambda a, v: jnp.{fn}(a, v, mode={mode!r})", CV, CK)
        value(f"{fn}[value,{mode}]", f"jnp.{fn}({CV}, {CK}, mode={mode!r})")
    jaxpr(f"{fn}[swapped]", f"jnp.{fn}", CK, CV)
    jaxpr(f"{fn}[int]", f"jnp.{fn}", "jnp.array([1, 2, 3])", "jnp.array([0, 1])")
    jaxpr(f"{fn}[complex]", f"jnp.{fn}", CV, CK + " * 1j")
    value(f"{fn}[value,swapped]", f"jnp.{fn}({CK}, {CV}, mode='full')")
    value(f"{fn}[value,complex]", f"jnp.{fn}({CV}, {CK} * (1 + 1j))")
    value(f"{fn}[value,int]", f"jnp.{fn}(jnp.array([1, 2, 3]), jnp.array([0, 1]), "
          "preferred_element_type=jnp.int32)")

# ---------------------------------------------------------------- the NaN-ignoring reductions
XN = "jnp.array([[1.5, jnp.nan, 3.0, 0.25], [-4.0, 0.5, jnp.nan, 2.0], [jnp.nan, jnp.nan, jnp.nan, 4.5]])"
for fn in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"):
    transformed(fn, f"jnp.{fn}", XN)
    jaxpr(f"{fn}[axis1,keepdims]", f"lambda x: jnp.{fn}(x, axis=1, keepdims=True)", XN)
    jaxpr(f"{fn}[int]", f"lambda x: jnp.{fn}(x, axis=0)", XI)
    value(f"{fn}[value]", f"jnp.{fn}({XN}, axis=1)")
for fn in ("nancumsum", "nancumprod"):
    transformed(fn, f"jnp.{fn}", XN)
    jaxpr(f"{fn}[axis0]", f"lambda x: jnp.{fn}(x, axis=0)", XN)
    jaxpr(f"{fn}[int,dtype]", f"lambda x: jnp.{fn}(x, axis=1, dtype=jnp.float32)", XI)
    value(f"{fn}[value]", f"jnp.{fn}({XN}, axis=1)")
jaxpr("nanmax[initial]", "lambda x: jnp.nanmax(x, axis=0, initial=0.0)", XN)
jaxpr("nansum[where]", "lambda x: jnp.nansum(x, where=x > 0)", XN)
jaxpr("nanvar[ddof]", "lambda x: jnp.nanvar(x, axis=1, ddof=1)", XN)
jaxpr("nanstd[mean]", "lambda x: jnp.nanstd(x, axis=1, keepdims=True, mean=jnp.zeros((3, 1)))", XN)
jaxpr("nanmean[dtype]", "lambda x: jnp.nanmean(x, dtype=jnp.float32)", XI)
value("nanvar[value,ddof]", f"jnp.nanvar({XN}, axis=1, ddof=2)")
value("nanmax[value,initial]", f"jnp.nanmax({XN}, axis=1, initial=0.0)")
value("nanmean[value,complex]", "jnp.nanmean(jnp.array([1 + 2j, jnp.nan, 3 - 1j]))")
value("nanvar[value,complex]", "jnp.nanvar(jnp.array([1 + 2j, jnp.nan, 3 - 1j]))")

# ---------------------------------------------------------------- more of JAX's jitted jnp functions
jaxpr("matvec", "jnp.matvec", X, "jnp.array([1.0, 2.0, -1.0, 0.5])")
jaxpr("matvec[grad]", "jax.grad(lambda m: jnp.sum(jnp.matvec(m, jnp.ones(4))))", X)
jaxpr("vecmat", "jnp.vecmat", "jnp.array([1.0, 2.0, -1.0])", X)
jaxpr("rollaxis", "lambda x: jnp.rollaxis(x, 1)", "jnp.ones((2, 3, 4))")
jaxpr("rollaxis[start]", "lambda x: jnp.rollaxis(x, 2, 1)", "jnp.ones((2, 3, 4))")
jaxpr("resize", "lambda x: jnp.resize(x, (5, 3))", X)
jaxpr("resize[int]", "lambda x: jnp.resize(x, 7)", VI)
value("resize[value]", f"jnp.resize({VI}, (3, 3))")
jaxpr("ediff1d", "jnp.ediff1d", V)
jaxpr("ediff1d[ends]", "lambda x: jnp.ediff1d(x, to_end=jnp.array([9.0]), to_begin=-1.0)", V)
value("ediff1d[value]", f"jnp.ediff1d({X}, to_begin=jnp.array([0.0, 1.0]))")
transformed("trapezoid", "jnp.trapezoid", X)
jaxpr("trapezoid[x]", "lambda y, x: jnp.trapezoid(y, x)", V, "jnp.array([0.0, 1.0, 3.0, 4.0, 6.5])")
jaxpr("trapezoid[dx,axis0]", "lambda y: jnp.trapezoid(y, dx=0.5, axis=0)", X)
value("trapezoid[value]", f"jnp.trapezoid({X}, dx=0.5, axis=0)")
transformed("gradient", "jnp.gradient", V)
jaxpr("gradient[2d]", "lambda f: jnp.gradient(f)", X)
jaxpr("gradient[axis,spacing]", "lambda f: jnp.gradient(f, 0.5, axis=1)", X)
jaxpr("gradient[coords]", "lambda f: jnp.gradient(f, jnp.array([0.0, 1.0, 3.0, 4.0, 6.5]))", V)
value("gradient[value]", f"jnp.gradient({X}, 2.0)")
jaxpr("ldexp", "jnp.ldexp", V, "jnp.array([1, -2, 3, 0, 2])")
jaxpr("frexp", "jnp.frexp", V)
jaxpr("modf", "jnp.modf", V)
jaxpr("modf[int]", "jnp.modf", VI)
value("frexp[value]", f"jnp.frexp({V})")
value("modf[value]", f"jnp.modf({V})")
value("ldexp[value]", f"jnp.ldexp({V}, jnp.array([1, -2, 3, 0, 2]))")
jaxpr("bitwise_count", "jnp.bitwise_count", VI)
value("bitwise_count[value]", f"jnp.bitwise_count({VI})")
transformed("i0", "jnp.i0", V)
value("i0[value]", f"jnp.allclose(jnp.i0({V}), jnp.array([1.0634835, 1.6467233, 2.2795851, "
      "4.8807926, 1.4304688]), rtol=1e-6)")  # (bessel_i0e's last bits are XLA's own)
value("kaiser[value]", "jnp.allclose(jnp.kaiser(5, 2.0), jnp.array([0.4386, 0.8462, 1.0, 0.8462, 0.4386]), atol=1e-4)")
jaxpr("lexsort", "lambda a, b: jnp.lexsort((a, b))", VI, "jnp.array([1, 1, 0, 0])")
jaxpr("lexsort[2d]", "lambda x: jnp.lexsort(x, axis=0)", XI)
jaxpr("partition", "lambda x: jnp.partition(x, 2)", X)
jaxpr("partition[axis0]", "lambda x: jnp.partition(x, 1, axis=0)", X)
jaxpr("argpartition", "lambda x: jnp.argpartition(x, 2)", X)
value("partition[value]", f"jnp.partition({V}, 2)")
jaxpr("packbits", "jnp.packbits", "jnp.array([1, 0, 1, 1, 0, 0, 1, 0, 1], dtype=jnp.uint8)")
jaxpr("packbits[axis,little]", "lambda x: jnp.packbits(x, axis=1, bitorder='little')",
      "jnp.array([[1, 0, 1], [0, 1, 1]], dtype=jnp.uint8)")
jaxpr("unpackbits", "jnp.unpackbits", "jnp.array([5, 255], dtype=jnp.uint8)")
jaxpr("unpackbits[count]", "lambda x: jnp.unpackbits(x, count=5, bitorder='little')",
      "jnp.array([5, 255], dtype=jnp.uint8)")
value("packbits[value]", "jnp.packbits(jnp.array([1, 0, 1, 1, 0, 0, 1, 0, 1], dtype=jnp.uint8))")
jaxpr("block", "lambda a, b: jnp.block([[a, b], [b, a]])", "jnp.ones((2, 2))", "jnp.zeros((2, 2))")
jaxpr("block[1d]", "lambda a: jnp.block([a, a, 1.0])", V)
jaxpr("put_along_axis", "lambda x: jnp.put_along_axis(x, jnp.array([[0], [2], [1]]), 9.0, axis=1, inplace=False)", X)
jaxpr("put_along_axis[none]", "lambda x: jnp.put_along_axis(x, jnp.array([0, 5]), jnp.array([7.0, 8.0]), axis=None, inplace=False)", X)
value("put_along_axis[value]", f"jnp.put_along_axis({X}, jnp.array([[0], [2], [1]]), 9.0, axis=1, inplace=False)")
jaxpr("digitize", "lambda x: jnp.digitize(x, jnp.array([-1.0, 0.0, 2.0]))", V)
jaxpr("digitize[right]", "lambda x: jnp.digitize(x, jnp.array([3.0, 0.0, -1.0]), right=True)", V)
value("digitize[value]", f"jnp.digitize({V}, jnp.array([-1.0, 0.0, 2.0]), right=True)")
jaxpr("iterate_rows", "lambda x: [r * 2 for r in x]", X)  # (lax.index_in_dim per row, as JAX)
jaxpr("iterate_rows[vmap]", "jax.vmap(lambda x: sum(r for r in x))", f"jnp.stack([{X}, {X}])")

# ---------------------------------------------------------------- quantile's inverted_cdf and weights
W = "jnp.array([[1.0, 2.0, 0.5, 1.0], [0.0, 1.0, 3.0, 1.0], [2.0, 2.0, 1.0, 1.0]])"
transformed("quantile[inverted_cdf]", "lambda x: jnp.quantile(x, 0.3, axis=1, method='inverted_cdf')", X,
            grad=False)
jaxpr("quantile[inverted_cdf,weights]",
      "lambda x, w: jnp.quantile(x, jnp.array([0.25, 0.75]), axis=1, method='inverted_cdf', weights=w)",
      X, W)
jaxpr("quantile[inverted_cdf,weights_1d]",
      "lambda x, w: jnp.quantile(x, 0.5, axis=0, method='inverted_cdf', weights=w)", X,
      "jnp.array([1.0, 3.0, 0.5])")
jaxpr("quantile[inverted_cdf,keepdims]",
      "lambda x: jnp.quantile(x, jnp.array([0.2, 0.9]), axis=0, method='inverted_cdf', keepdims=True)", X)
jaxpr("quantile[inverted_cdf,none]", "lambda x: jnp.quantile(x, 0.5, method='inverted_cdf')", X)
jaxpr("nanquantile[inverted_cdf]",
      "lambda x, w: jnp.nanquantile(x, 0.5, axis=1, method='inverted_cdf', weights=w)", XN, W)
jaxpr("percentile[inverted_cdf,weights]",
      "lambda x, w: jnp.percentile(x, 40.0, axis=1, method='inverted_cdf', weights=w)", X, W)
for m in ("inverted_cdf",):
    value(f"quantile[value,{m}]", f"jnp.quantile({X}, jnp.array([0.1, 0.5, 1.0]), axis=1, method={m!r})")
    value(f"quantile[value,{m},weights]",
          f"jnp.quantile({X}, jnp.array([0.25, 0.75]), axis=1, method={m!r}, weights={W})")
    value(f"nanquantile[value,{m},weights]",
          f"jnp.nanquantile({XN}, 0.5, axis=1, method={m!r}, weights={W})")
    value(f"quantile[value,{m},bad_weight]",
          f"jnp.quantile({X}, 0.5, axis=1, method={m!r}, weights={W} - 0.5)")
value("quantile[weights_linear_error]", f"jnp.quantile({X}, 0.5, axis=1, weights={W})")
value("quantile[weights_shape_error]", f"jnp.quantile({X}, 0.5, method='inverted_cdf', weights=jnp.ones(4))")
value("quantile[weights_axis_error]", f"jnp.quantile({X}, 0.5, axis=1, method='inverted_cdf', weights=jnp.ones(3))")

# ---------------------------------------------------------------- errors, as JAX words them
value("quantile[error,q_rank]", f"jnp.quantile({X}, jnp.ones((2, 2)))")
value("quantile[error,method]", f"jnp.quantile({X}, 0.5, method='cubic')")
value("quantile[error,complex]", f"jnp.quantile({X} * 1j, 0.5)")
value("quantile[error,q_list]", f"jnp.quantile({X}, [0.1, 0.2])")
value("quantile[error,out]", f"jnp.quantile({X}, 0.5, overwrite_input=True)")
value("median[error,repeated_axis]", f"jnp.median({X}, axis=(0, 0))")
value("take_along_axis[error,float]", f"jnp.take_along_axis({X}, jnp.zeros((3, 4)), axis=1)")
value("take_along_axis[error,ndim]", f"jnp.take_along_axis({X}, jnp.array([0, 1]), axis=1)")
value("take_along_axis[error,none_2d]", f"jnp.take_along_axis({X}, {IDX}, axis=None)")
value("take_along_axis[value,promise]",
      f"jnp.take_along_axis({X}, jnp.array([[1, 0, 3, 2]]), axis=1, mode='promise_in_bounds')")
jaxpr("take_along_axis[promise]",
      "lambda x, i: jnp.take_along_axis(x, i, axis=1, mode='promise_in_bounds')", X, IDX)
value("cross[error,dim]", "jnp.cross(jnp.ones(4), jnp.ones(4))")
value("linalg.cross[error,dim]", "jnp.linalg.cross(jnp.ones(2), jnp.ones(2))")
value("unwrap[error,complex]", "jnp.unwrap(jnp.ones(3) * 1j)")
value("unwrap[value,empty]", "jnp.unwrap(jnp.zeros((0,)))")
value("polyfit[error,deg]", f"jnp.polyfit({PX}, {PY}, -1)")
value("polyfit[error,x2d]", f"jnp.polyfit(jnp.ones((2, 2)), {PY}, 1)")
value("poly[error,3d]", "jnp.poly(jnp.ones((2, 2, 2)))")
value("convolve[error,2d]", "jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))")
value("convolve[error,empty]", "jnp.convolve(jnp.ones(3), jnp.zeros(0))")
value("convolve[error,mode]", "jnp.convolve(jnp.ones(3), jnp.ones(2), mode='middle')")
value("nanmean[error,out]", f"jnp.nanmean({XN}, out=jnp.zeros(3))")
value("partition[error,complex]", "jnp.partition(jnp.ones(3) * 1j, 1)")
value("packbits[error,float]", "jnp.packbits(jnp.ones(3))")
value("trapezoid[value,x2d]", f"jnp.trapezoid({X}, {X} * 2, axis=0)")
value("gradient[error,small]", "jnp.gradient(jnp.ones(1))")

# ---------------------------------------------------------------- transformations combined
jaxpr("median[jacrev]", "jax.jacrev(lambda x: jnp.median(x, axis=1))", X)
jaxpr("quantile[jacfwd]", "jax.jacfwd(lambda x: jnp.quantile(x, 0.3))", V)
jaxpr("nanmean[hessian]", "jax.hessian(lambda x: jnp.nanmean(x ** 2))", V)
jaxpr("take_along_axis[vmap_grad]",
      "jax.vmap(jax.grad(lambda x: jnp.sum(jnp.take_along_axis(x, jnp.array([2, 0]), axis=0))))",
      f"jnp.stack([{V}, {V}])")
jaxpr("cross[jit_grad]", "jax.jit(jax.grad(lambda a, b: jnp.cross(a, b)[0]))", "jnp.array([1.0, 2.0, 3.0])",
      "jnp.array([0.5, -1.0, 4.0])")
jaxpr("convolve[value_and_grad]", f"jax.value_and_grad(lambda v: jnp.convolve({CV}, v).sum())", CK)
