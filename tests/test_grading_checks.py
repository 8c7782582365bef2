"""edujax.grading's checks: each passes on a right answer and, on a typical wrong one,
fails with the explanation a student would read."""
import time

import pytest

import edujax as jax
import edujax.grading as g
import edujax.numpy as jnp
from edujax import lax, random


# --------------------------------------------------------------------------- values
def test_close_passes_within_tolerance_and_fails_outside():
    assert g.check_close(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0 + 1e-7]))
    v = g.check_close(jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 2.5, 3.0]))
    assert not v
    assert "1 of 3 position(s)" in v.explanation
    assert "element [1]: you have 2, expected 2.5" in v.explanation
    assert "Largest error 0.5" in v.explanation


def test_first_differing_index_is_multidimensional():
    want = jnp.zeros((2, 3))
    got = want.at[1, 2].set(1.0)
    assert "element [1, 2]" in g.check_close(got, want).explanation


def test_shape_mismatch_explains_the_extra_axis_and_the_transpose():
    extra = g.check_close(jnp.ones((3, 1)), jnp.ones(3)).explanation
    assert "shape (3, 1), expected (3,)" in extra and "axes of length 1" in extra
    assert "transposed" in g.check_close(jnp.ones((2, 3)), jnp.ones((3, 2))).explanation
    assert "scalar" in g.check_close(jnp.ones(()), jnp.ones(4)).explanation


def test_dtype_and_weak_type_mismatch():
    ints = g.check_close(jnp.arange(3), jnp.arange(3.0)).explanation
    assert "dtype int32, expected float32" in ints and "1.0 instead of 1" in ints
    assert g.check_close(2.0, jnp.float32(2.0))  # weak types are ignored unless asked
    weak = g.check_close(2.0, jnp.float32(2.0), weak_type=True).explanation
    assert "~f32[]" in weak and "Python scalar" in weak


def test_nan_and_non_answers_are_named():
    assert "NaN" in g.check_close(jnp.log(jnp.array([-1.0])), jnp.ones(1)).explanation
    assert "forget to `return`" in g.check_close(None, jnp.ones(1)).explanation
    assert "placeholder" in g.check_close(..., jnp.ones(1)).explanation


def test_assert_raises_a_grading_error_with_the_explanation():
    with pytest.raises(g.GradingError, match="expected 2.5"):
        g.assert_close(jnp.array([2.0]), jnp.array([2.5]))
    with pytest.raises(AssertionError):  # pytest and otter count it as a failed test
        g.assert_equal(jnp.arange(3), jnp.arange(1, 4))


# --------------------------------------------------------------------------- pytrees
def test_tree_mismatch_names_the_path():
    want = {"w": jnp.ones(2), "b": jnp.zeros(())}
    assert g.check_tree_close(want, want)
    assert "missing ['b']" in g.check_tree_close({"w": jnp.ones(2)}, want).explanation
    wrong_b = g.check_tree_close({"w": jnp.ones(2), "b": jnp.ones(())}, want).explanation
    assert wrong_b.startswith("your result['b'] differs")


# --------------------------------------------------------------------------- jaxprs
def test_jaxpr_comparison_names_the_first_differing_equation():
    f = lambda x: jnp.sin(x) * 2.0 + 1.0
    assert g.check_same_jaxpr(f, f, 1.0)
    assert g.check_same_jaxpr(lambda y: jnp.sin(y) * 2.0 + 1.0, f, 1.0)  # names don't matter
    v = g.check_same_jaxpr(lambda x: jnp.sin(x) * 2.0 - 1.0, f, 1.0)
    assert "equation 3 differs" in v.explanation
    assert "`d:f32[] = sub c 1.0:f32[]`" in v.explanation
    assert "`d:f32[] = add c 1.0:f32[]`" in v.explanation
    shorter = g.check_same_jaxpr(lambda x: jnp.sin(x) * 2.0, f, 1.0).explanation
    assert "stops after 2 equation(s)" in shorter


def test_count_primitive_looks_inside_nested_jaxprs():
    f = lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)
    assert g.count_primitive(f, "cond", 1.0) == 1
    assert g.count_primitive(f, "sin", 1.0) == 1
    assert g.count_primitive(lambda x: jnp.where(x > 0, x, 0.0), "cond", 1.0) == 0
    assert g.check_uses(f, "cond", 1.0)
    v = g.check_uses(jnp.sin, "cond", 1.0, advice="Use lax.cond.")
    assert v.explanation == "your function's jaxpr has no `cond` equation. Use lax.cond."


def test_check_uses_explains_a_function_that_cannot_be_traced():
    def relu(x):
        return x if x > 0 else 0.0

    assert "TracerBoolConversionError" in g.check_uses(relu, "cond", 1.0).explanation


# --------------------------------------------------------------------------- PRNG keys
def test_key_reuse_is_detected_and_located():
    def reuses(key):
        return random.normal(key, (2,)), random.uniform(key, (2,))

    def splits(key):
        k1, k2 = random.split(key)
        return random.normal(k1, (2,)), random.uniform(k2, (2,))

    v = g.check_no_key_reuse(reuses, random.PRNGKey(0))
    assert not v and "random.normal at" in v.explanation and "random.uniform" in v.explanation
    assert g.check_no_key_reuse(splits, random.PRNGKey(0))
    assert g.check_no_key_reuse(splits, random.PRNGKey(0))  # earlier runs are forgotten


# --------------------------------------------------------------------------- jit
def test_not_jittable_says_why_and_where():
    def relu(x):
        if x > 0:
            return x
        return 0.0

    v = g.check_jittable(relu, 1.0)
    assert "TracerBoolConversionError" in v.explanation
    assert "if x > 0:" in v.explanation and "jnp.where" in v.explanation
    assert g.check_jittable(lambda x: jnp.where(x > 0, x, 0.0), 1.0)
    power = lambda x, n: x ** int(n)
    assert not g.check_jittable(power, 1.0, 3)
    assert g.check_jittable(power, 1.0, 3, static_argnums=1)
    zeros = g.check_jittable(lambda n: jnp.zeros(n), 3)  # a traced shape: JAX's TypeError
    assert not zeros and "static" in zeros.explanation and "Shapes must be" in zeros.explanation


def test_cache_misses_quote_the_reason():
    f = jax.jit(lambda x: x * 2)
    for n in (1, 2, 3):
        f(jnp.ones(n))
    v = g.check_cache_misses(f, at_most=1)
    assert "compiled 3 times" in v.explanation and "new shape f32[1] → f32[2]" in v.explanation
    same = jax.jit(lambda x: x * 2)
    for _ in range(3):
        same(jnp.ones(3))
    assert g.check_cache_misses(same, at_most=1)


# --------------------------------------------------------------------------- calling
def test_call_stops_an_endless_loop():
    def forever():
        while True:
            pass

    start = time.perf_counter()
    with pytest.raises(g.TimeLimitExceeded, match="did not finish within 0.3 s"):
        g.call(forever, seconds=0.3)
    assert time.perf_counter() - start < 5


def test_call_explains_exceptions_and_placeholders():
    with pytest.raises(g.GradingError, match="ZeroDivisionError"):
        g.call(lambda x: 1 / x, 0)
    with pytest.raises(g.GradingError, match="still `...`"):
        g.call(...)
    assert g.call(lambda x: x + 1, 1) == 2


def test_seeded_inputs_repeat_and_differ_by_seed():
    a, b = g.seeded_array(3, (4,)), g.seeded_array(3, (4,))
    assert g.check_equal(a, b) and not g.check_equal(a, g.seeded_array(4, (4,)))
    assert a.dtype == jnp.float32
