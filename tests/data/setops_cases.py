"""Programs recorded in setops_recorded.json: jnp.unique and the set operations (issue 17).

With a static ``size=`` JAX computes them with sorts, comparisons, cumulative sums, gathers
and scatters, so they trace: these programs print their jaxprs (as they are, and under jit,
vmap and grad), the values they give eagerly and under the transformations, and the errors
JAX raises when ``size`` is missing under a trace. record_from_jax.py runs them under real
JAX 0.10.2; tests/test_setops_jaxprs.py replays them on edujax and compares the text.

    /tmp/jaxenv/bin/python tests/data/record_from_jax.py tests/data/setops_cases.py \\
        tests/data/setops_recorded.json
"""
CASES: dict[str, str] = {}

X = "jnp.array([3.0, 1.0, 3.0, 2.0])"
Y = "jnp.array([5.0, 1.0])"
XI = "jnp.array([3, 1, 3, 2, 7, 1])"
YI = "jnp.array([1, 5, 7])"
M = "jnp.array([[1, 2], [2, 3], [1, 2]])"
C = "jnp.array([1 + 1j, 1 + 1j, 2])"
NAN = "jnp.array([1.0, jnp.nan, 1.0, jnp.nan])"


def jaxpr(name: str, fn: str, *args: str) -> None:
    assert name not in CASES, name
    CASES[name] = f"out = str(make_jaxpr({fn})({', '.join(args)}))"


def value(name: str, code: str) -> None:
    assert name not in CASES, name
    CASES[name] = f"out = {code}"


# ================================================================ jaxprs, with size=
for name, fn, args in [
    ("unique", "lambda a: jnp.unique(a, size=4)", (X,)),
    ("unique[all]", "lambda a: jnp.unique(a, True, True, True, size=4)", (X,)),
    ("unique[fill]", "lambda a: jnp.unique(a, size=4, fill_value=0)", (X,)),
    ("unique[int]", "lambda a: jnp.unique(a, return_counts=True, size=3)", (XI,)),
    ("unique[axis]", "lambda a: jnp.unique(a, True, True, True, axis=0, size=2, fill_value=0)",
     (M,)),
    ("unique[complex]", "lambda a: jnp.unique(a, size=2)", (C,)),
    ("unique[equal_nan]", "lambda a: jnp.unique(a, equal_nan=False, size=3)", (NAN,)),
    ("unique_all", "lambda a: jnp.unique_all(a, size=4)", (X,)),
    ("unique_counts", "lambda a: jnp.unique_counts(a, size=4)", (X,)),
    ("unique_inverse", "lambda a: jnp.unique_inverse(a, size=4)", (M,)),
    ("unique_values", "lambda a: jnp.unique_values(a, size=4)", (X,)),
    ("isin", "jnp.isin", (XI, YI)),
    ("isin[invert]", "lambda a, b: jnp.isin(a, b, invert=True)", (XI, YI)),
    ("isin[binary_search]", "lambda a, b: jnp.isin(a, b, method='binary_search')", (XI, YI)),
    ("isin[sort]", "lambda a, b: jnp.isin(a, b, method='sort')", (XI, YI)),
    ("isin[sort][assume_unique]",
     "lambda a, b: jnp.isin(a, b, method='sort', assume_unique=True, invert=True)", (YI, XI)),
    ("intersect1d", "lambda a, b: jnp.intersect1d(a, b, size=3)", (X, Y)),
    ("intersect1d[indices]",
     "lambda a, b: jnp.intersect1d(a, b, size=3, return_indices=True)", (X, Y)),
    ("intersect1d[assume_unique]",
     "lambda a, b: jnp.intersect1d(a, b, size=3, assume_unique=True, fill_value=0.0)", (X, Y)),
    ("union1d", "lambda a, b: jnp.union1d(a, b, size=6)", (X, Y)),
    ("setdiff1d", "lambda a, b: jnp.setdiff1d(a, b, size=4)", (X, Y)),
    ("setdiff1d[assume_unique]",
     "lambda a, b: jnp.setdiff1d(a, b, size=4, assume_unique=True)", (X, Y)),
    ("setxor1d", "lambda a, b: jnp.setxor1d(a, b, size=6)", (X, Y)),
    ("setxor1d[fill]", "lambda a, b: jnp.setxor1d(a, b, size=6, fill_value=0.0)", (X, Y)),
    ("setxor1d[assume_unique]",
     "lambda a, b: jnp.setxor1d(a, b, size=6, assume_unique=True)", (X, Y)),
]:
    jaxpr(name, fn, *args)
# under the transformations
jaxpr("unique[jit]", "jax.jit(lambda a: jnp.unique(a, size=3))", X)
jaxpr("unique[vmap]", "jax.vmap(lambda a: jnp.unique(a, size=3))", f"jnp.stack([{X}, -{X}])")
jaxpr("unique[grad]", "jax.grad(lambda a: (jnp.unique(a, size=3) * jnp.arange(3.0)).sum())", X)
jaxpr("intersect1d[grad]", "jax.grad(lambda a: jnp.intersect1d(a, jnp.array([1.0, 3.0]), "
      "size=2).sum())", X)
jaxpr("setdiff1d[vmap]", "jax.vmap(lambda a: jnp.setdiff1d(a, jnp.array([1.0]), size=3))",
      f"jnp.stack([{X}, -{X}])")

# ================================================================ values
value("unique[values]", f"jnp.unique({XI}, True, True, True)")
value("unique[values][size]", f"jnp.unique({XI}, True, True, True, size=6)")
value("unique[values][size_small]", f"jnp.unique({XI}, True, True, True, size=2)")
value("unique[values][fill]", f"jnp.unique({XI}, True, True, True, size=6, fill_value=-1)")
value("unique[values][nan]", f"jnp.unique({NAN}, return_counts=True)")
value("unique[values][nan_unequal]", f"jnp.unique({NAN}, equal_nan=False, return_counts=True)")
value("unique[values][axis1]", f"jnp.unique({M}, True, True, True, axis=1)")
value("unique[values][2d_inverse]", f"jnp.unique({M}, return_inverse=True)")
value("unique[values][complex_nan]",
      "jnp.unique(jnp.array([1 + 1j, 1 + 1j, 2, jnp.nan, complex(1, np.nan)]))")
value("unique[values][empty]", "jnp.unique(jnp.array([]), True, True, True)")
value("unique[values][empty_size]",
      "jnp.unique(jnp.array([]), True, True, True, size=2, fill_value=0)")
value("unique[values][empty_rows]", "jnp.unique(jnp.zeros((2, 0)), True, True, True, axis=0)")
value("unique[values][scalar]", "jnp.unique(3.0, True, True, True)")
value("unique[values][bool]", "jnp.unique(jnp.array([True, False, True]), return_counts=True)")
value("unique_all[values]", f"jnp.unique_all({M})")
value("unique_counts[values][size]", f"jnp.unique_counts({M}, size=4, fill_value=0)")
value("unique[values][jit]",
      f"jax.jit(lambda a: jnp.unique(a, True, True, True, size=4))({XI})")
value("unique[values][vmap]", "jax.vmap(lambda a: jnp.unique(a, True, True, True, size=4))"
      f"(jnp.stack([{XI}, {XI}[::-1]]))")
value("unique[values][grad]",
      f"jax.grad(lambda a: (jnp.unique(a, size=3) * jnp.arange(3.0)).sum())({X})")
value("isin[values][binary_search]", f"jnp.isin({XI}, {YI}, method='binary_search', invert=True)")
value("isin[values][sort]", f"jnp.isin({XI}.reshape(2, 3), {YI}, method='sort', invert=True)")
value("intersect1d[values][indices]", f"jnp.intersect1d({XI}, {YI}, return_indices=True)")
value("intersect1d[values][size_indices]",
      f"jnp.intersect1d({XI}, {YI}, size=4, return_indices=True)")
value("intersect1d[values][assume_unique]", "jnp.intersect1d(jnp.array([3, 1, 2]), "
      "jnp.array([2, 5, 3]), size=4, assume_unique=True, return_indices=True)")
value("intersect1d[values][empty]",
      "jnp.intersect1d(jnp.array([], int), jnp.array([], int), size=2)")
value("union1d[values][fill]", f"jnp.union1d({XI}, {YI}, size=8, fill_value=0)")
value("setdiff1d[values][size]", f"jnp.setdiff1d({XI}, {YI}, size=5)")
value("setdiff1d[values][empty]", f"jnp.setdiff1d(jnp.array([], int), {YI}, size=3)")
value("setxor1d[values][size]", f"jnp.setxor1d({XI}, {YI}, size=6)")
value("setxor1d[values][empty]",
      "jnp.setxor1d(jnp.array([], int), jnp.array([], int), size=2)")
value("intersect1d[values][vmap]", "jax.vmap(lambda a: jnp.intersect1d(a, jnp.array([5.0, 1.0]),"
      f" size=3, return_indices=True))(jnp.stack([{X}, {X} - 2]))")
value("setxor1d[values][vmap]", "jax.vmap(lambda a: jnp.setxor1d(a, jnp.array([5.0, 1.0]), "
      f"size=6))(jnp.stack([{X}, {X} + 1]))")

# ================================================================ errors
value("unique[error][jit]", f"jax.jit(jnp.unique)({XI})")
value("unique[error][traced_size]", f"jax.jit(lambda s: jnp.unique({XI}, size=s))(3)")
value("unique[error][empty_size]", "jnp.unique(jnp.array([]), size=2)")
value("unique_values[error][jit]", f"jax.jit(jnp.unique_values)({XI})")
value("union1d[error][jit]", f"jax.jit(jnp.union1d)({XI}, {YI})")
value("setdiff1d[error][jit]", f"jax.jit(jnp.setdiff1d)({XI}, {YI})")
value("intersect1d[error][jit]", f"jax.jit(jnp.intersect1d)({XI}, {YI})")
value("setxor1d[error][jit]", f"jax.jit(jnp.setxor1d)({XI}, {YI})")
value("isin[error][method]", f"jnp.isin({XI}, {YI}, method='bad')")
