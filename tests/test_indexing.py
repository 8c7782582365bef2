"""Indexing ``x[idx]`` and functional updates ``x.at[idx].op(y)``.

Three kinds of checks:

* values and dtypes against NumPy, for index expressions drawn by hypothesis;
* JAX's out-of-bounds rules: reads clamp (``x[10]`` is the last row), writes drop;
* printed jaxprs against text recorded from real JAX 0.10.2 (JAX_JAXPRS, at the bottom).
"""
import math
import warnings

import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax.jaxpr import jaxpr_as_fun
from edujax.lax import slicing
from edujax.numpy.indexing import NonConcreteBooleanIndexError, getitem, rewriting_take

try:
    from hypothesis import given
    from hypothesis import strategies as st
except ImportError:  # hypothesis comes with the dev extra
    given = st = None

needs_hypothesis = pytest.mark.skipif(given is None, reason="hypothesis is not installed")


def assert_same(got, want):
    """Same shape, same dtype, same values."""
    want = np.asarray(want)
    assert tuple(got.shape) == want.shape
    assert np.dtype(got.dtype) == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


def staged(f, *args):
    """Run ``f`` through make_jaxpr and the reference interpreter: the staged path."""
    return jaxpr_as_fun(jax.make_jaxpr(f)(*args))(*args)[0]


def as_jax_index(idx):
    """The same index with NumPy arrays replaced by edujax arrays."""
    return tuple(jnp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx)


# ---------------------------------------------------------------- the conformance programs
def test_basic_indexing_conformance():
    x = jnp.arange(24).reshape(2, 3, 4)
    n = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert_same(x[1], n[1])
    assert_same(x[1, 2], n[1, 2])
    assert_same(x[:, 1:3, ::2], n[:, 1:3, ::2])
    assert_same(x[..., -1], n[..., -1])
    assert jnp.arange(3)[None, :, None].shape == (1, 3, 1)


def test_integer_array_and_mask_conformance():
    x = jnp.arange(10) * 10
    assert_same(x[jnp.array([1, 3, 3, 7])], np.array([10, 30, 30, 70], np.int32))
    x = jnp.arange(6)
    assert_same(x[x > 2], np.array([3, 4, 5], np.int32))


def test_at_conformance():
    y = jnp.array([1, 2, 3])
    assert_same(y.at[0].set(123), np.array([123, 2, 3], np.int32))
    assert_same(y, np.array([1, 2, 3], np.int32))  # y itself is unchanged
    z = jnp.zeros((3, 3))
    assert_same(z.at[1, :].set(1.0), np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]], np.float32))
    assert_same(z.at[0, 0].add(5.0), np.diag(np.float32([5, 0, 0])))
    assert_same(jnp.ones(4).at[1:3].multiply(3.0), np.float32([1, 3, 3, 1]))
    x = jnp.array([5, 1, 7])
    assert_same(x.at[0].min(2), np.int32([2, 1, 7]))
    assert_same(x.at[1].max(4), np.int32([5, 4, 7]))
    assert_same(x.at[2].get(), np.int32(7))
    assert_same(jnp.zeros(4).at[jnp.array([0, 0, 2])].add(1.0), np.float32([2, 0, 1, 0]))


# ---------------------------------------------------------------- random index expressions
if st is not None:
    def _item(draw, size, array_shape, oob):
        """One index for an axis of ``size``: (the index, the same index clamped in range).

        Integer arrays get ``array_shape`` or a shape that broadcasts with it.
        """
        lo, hi = (-3 * size - 1, 3 * size + 1) if oob else (-size, size - 1)
        kind = draw(st.sampled_from(["int", "slice", "array"]))
        if kind == "int":
            i = draw(st.integers(lo, hi))
            return i, min(max(i + size if i < 0 else i, 0), size - 1)
        if kind == "array":
            shape = array_shape[draw(st.integers(0, len(array_shape))):]
            values = draw(st.lists(st.integers(lo, hi), min_size=math.prod(shape),
                                   max_size=math.prod(shape)))
            a = np.array(values, np.int32).reshape(shape)
            return a, np.clip(np.where(a < 0, a + size, a), 0, size - 1)
        bound = st.none() | st.integers(-size - 2, size + 2)
        step = st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3])
        s = slice(draw(bound), draw(bound), draw(step))
        return s, s

    @st.composite
    def indexed_arrays(draw, oob=False):
        """(x, idx, idx with every integer clamped in range), idx possibly with ... and None."""
        shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
        array_shape = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
        ndim = len(shape)
        k = draw(st.integers(0, ndim))
        ellipsis_at = draw(st.none() | st.integers(0, k))
        if ellipsis_at is None:
            axes = list(range(k))
        else:
            axes = list(range(ellipsis_at)) + list(range(ndim - (k - ellipsis_at), ndim))
        pairs = [_item(draw, shape[a], array_shape, oob) for a in axes]
        if ellipsis_at is not None:
            pairs.insert(ellipsis_at, (Ellipsis, Ellipsis))
        for _ in range(draw(st.integers(0, 2))):
            pairs.insert(draw(st.integers(0, len(pairs))), (None, None))
        x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
        return x, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


@needs_hypothesis
def test_getitem_matches_numpy():
    @given(indexed_arrays())
    def check(case):
        x, idx, _ = case
        assert_same(jnp.asarray(x)[as_jax_index(idx)], x[idx])
    check()


@needs_hypothesis
def test_staged_getitem_matches_numpy():
    """Under make_jaxpr the same expressions become slice / dynamic_slice / gather."""
    @given(indexed_arrays())
    def check(case):
        x, idx, _ = case
        jidx = as_jax_index(idx)
        assert_same(staged(lambda a: a[jidx], jnp.asarray(x)), x[idx])
    check()


@needs_hypothesis
def test_fast_path_agrees_with_lax_path():
    @given(indexed_arrays(oob=True))
    def check(case):
        x, idx, _ = case
        jidx = as_jax_index(idx)
        assert_same(getitem(jnp.asarray(x), jidx), np.asarray(rewriting_take(jnp.asarray(x),
                                                                              jidx)))
    check()


@needs_hypothesis
def test_out_of_bounds_reads_clamp():
    """JAX clamps out-of-bounds integer indices (after counting negatives from the end)."""
    @given(indexed_arrays(oob=True))
    def check(case):
        x, idx, clamped = case
        jidx = as_jax_index(idx)
        assert_same(jnp.asarray(x)[jidx], x[clamped])
        assert_same(staged(lambda a: a[jidx], jnp.asarray(x)), x[clamped])
    check()


@needs_hypothesis
def test_boolean_masks_match_numpy():
    @given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
    def check(shape, data):
        x = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
        k = data.draw(st.integers(1, len(shape)))
        bits = data.draw(st.lists(st.booleans(), min_size=math.prod(shape[:k]),
                                  max_size=math.prod(shape[:k])))
        mask = np.array(bits, bool).reshape(shape[:k])
        assert_same(jnp.asarray(x)[jnp.asarray(mask)], x[mask])
        assert_same(jnp.asarray(x)[mask], x[mask])
    check()


def _np_scatter(op, x, idx, y):
    """NumPy's reference for x.at[idx].op(y) with a 1-D integer index: drop out-of-bounds
    indices, then apply every update (``np.add.at`` and friends)."""
    n = x.shape[0]
    idx = np.where(idx < 0, idx + n, idx)
    keep = (idx >= 0) & (idx < n)
    out = x.copy()
    if op is None:
        out[idx[keep]] = y[keep]
    else:
        op.at(out, idx[keep], y[keep])
    return out


@needs_hypothesis
@pytest.mark.parametrize("method, op", [("add", np.add), ("multiply", np.multiply),
                                        ("min", np.minimum), ("max", np.maximum),
                                        ("subtract", np.subtract), ("set", None)])
def test_at_updates_match_numpy(method, op):
    @given(st.integers(1, 5), st.lists(st.integers(-8, 8), max_size=6), st.data())
    def check(n, idx, data):
        idx = np.array(idx, np.int32)
        if method == "set":  # with repeats the order is unspecified: keep them distinct
            idx = np.unique(np.where(idx < 0, idx + n, idx))
        x = np.arange(n, dtype=np.float32) - 2
        y = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=len(idx),
                                        max_size=len(idx))), np.float32)
        got = getattr(jnp.asarray(x).at[jnp.asarray(idx)], method)(jnp.asarray(y))
        assert_same(got, _np_scatter(op, x, idx, y))
    check()


# ---------------------------------------------------------------- out of bounds, by hand
def test_out_of_bounds_static_and_traced():
    x = jnp.arange(5)
    assert_same(x[7], np.int32(4))
    assert_same(x[-7], np.int32(0))
    f = jax.jit(lambda x, i: x[i])
    for i, want in [(9, 4), (-9, 0), (-2, 3), (2, 2)]:
        assert_same(f(x, i), np.int32(want))


def test_out_of_bounds_updates_are_dropped_or_clipped():
    x = jnp.arange(5)
    assert_same(x.at[7].set(100), np.arange(5, dtype=np.int32))
    assert_same(x.at[-7].set(100), np.arange(5, dtype=np.int32))
    assert_same(x.at[7].add(100, mode="clip"), np.int32([0, 1, 2, 3, 104]))
    assert_same(jnp.zeros((3, 4)).at[jnp.array([9, -9])].set(1.0, mode="clip"),
                np.float32([[1] * 4, [0] * 4, [1] * 4]))


def test_get_modes():
    x = jnp.arange(5.0)
    assert_same(x.at[20].get(), np.float32(4))
    assert np.isnan(np.asarray(x.at[20].get(mode="fill")))
    assert_same(x.at[20].get(mode="fill", fill_value=-1), np.float32(-1))
    assert_same(x.at[jnp.array([1, 7, -1, -9])].get(mode="fill", fill_value=0),
                np.float32([1, 0, 4, 0]))
    assert_same(jnp.arange(5).at[7].get(mode="fill"), np.int32(np.iinfo(np.int32).min))
    assert_same(jnp.arange(5, dtype=jnp.uint8).at[jnp.array([7])].get(mode="fill"),
                np.uint8([255]))
    assert_same(jnp.ones(5, bool).at[jnp.array([7])].get(mode="fill"), np.array([True]))
    assert_same(x.at[-1].set(99, wrap_negative_indices=False, mode="drop"),
                np.float32([0, 1, 2, 3, 4]))


def test_traced_index_in_a_loop():
    lax = jax.lax
    if not hasattr(lax, "fori_loop"):
        pytest.skip("lax.fori_loop is not written yet")
    x = jnp.arange(5.0)
    total = lax.fori_loop(0, 5, lambda i, acc: acc + x[i], 0.0)
    assert float(total) == 10.0
    ys = lax.fori_loop(0, 5, lambda i, ys: ys.at[i].set(x[4 - i]), jnp.zeros(5))
    assert_same(ys, np.float32([4, 3, 2, 1, 0]))


# ---------------------------------------------------------------- more index forms
def test_index_forms():
    x = jnp.arange(24).reshape(2, 3, 4)
    n = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    assert_same(x[[1, 0], [0, 2]], n[[1, 0], [0, 2]])  # lists inside a tuple are arrays
    assert_same(x[np.int32(1)], n[1])
    assert_same(x[jnp.array(1)], n[1])
    assert_same(x[x > 10], n[n > 10])
    assert_same(x[jnp.array([True, False])], n[np.array([True, False])])
    assert_same(x[True], n[None])
    assert x[False].shape == (0, 2, 3, 4)
    assert_same(x[jnp.array([0, 1]), :, jnp.array([1, 2])], n[[0, 1], :, [1, 2]])
    assert_same(x[0, None, jnp.array([1, 2])], n[0, None, [1, 2]])
    assert_same(jnp.arange(10)[8:2:-3], np.int32([8, 5]))
    assert_same(jnp.arange(5)[3:1], np.zeros(0, np.int32))
    assert_same(jnp.zeros(0)[jnp.array([], jnp.int32)], np.zeros(0, np.float32))
    assert_same(jnp.asarray(3)[None], np.int32([3]))


def test_weak_types_survive_indexing():
    x = jnp.asarray(2.0)[None]
    assert x.weak_type and x[0].weak_type
    assert jnp.asarray(1.0).at[()].set(2).weak_type
    assert not jnp.arange(3.0).at[0].set(2).weak_type


def test_update_dtypes_follow_the_array():
    with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
        out = jnp.arange(3).at[1].set(1.7)
    assert_same(out, np.int32([0, 1, 2]))
    assert_same(jnp.arange(3, dtype=jnp.uint8).at[1].add(200), np.uint8([0, 201, 2]))
    assert_same(jnp.arange(3).at[1].divide(2), np.float32([0, 0.5, 2]))
    assert_same(jnp.arange(3).at[1].power(2), np.int32([0, 1, 2]))
    assert_same(jnp.arange(3).at[0:2].set([7, 8]), np.int32([7, 8, 2]))
    assert_same(jnp.arange(3).at[jnp.array([True, False, True])].set(9), np.int32([9, 1, 9]))
    assert_same(jnp.arange(3.0).at[jnp.array([1, 1])].apply(lambda v: v * 2),
                np.float32([0, 4, 2]))
    assert_same(jnp.zeros(6).at[::-2].add(jnp.array([1.0, 2.0, 3.0])),
                np.float32([0, 3, 0, 2, 0, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.arange(3.0).at[0].set(1)  # an int into a float array is a safe cast: no warning


def test_at_repr():
    assert repr(jnp.arange(3).at) == "_IndexUpdateHelper(Array([0, 1, 2], dtype=int32))"
    assert repr(jnp.arange(3).at[1]) == "_IndexUpdateRef(Array([0, 1, 2], dtype=int32), 1)"


# ---------------------------------------------------------------- errors, as JAX raises them
@pytest.mark.parametrize("index, error, message", [
    ([0, 1], TypeError, "Using a non-tuple sequence for multidimensional indexing is not "
     "allowed; use `arr[array(seq)]` instead of `arr[seq]`."),
    ([0, slice(None)], TypeError, "Using a non-tuple sequence for multidimensional indexing is "
     "not allowed; use `arr[tuple(seq)]` instead of `arr[seq]`."),
    ("a", TypeError, "JAX does not support string indexing; got idx='a'"),
    (1.0, TypeError, "Indexer must have integer or boolean type, got indexer with type float64"),
    ((0, 0, 0, 0), IndexError, "Too many indices: array is 3-dimensional, but 4 were indexed"),
    ((Ellipsis, Ellipsis), IndexError, "an index can only have a single ellipsis ('...')"),
])
def test_index_errors(index, error, message):
    x = jnp.arange(24).reshape(2, 3, 4)
    with pytest.raises(error) as info:
        x[index]
    assert str(info.value).startswith(message)


def test_more_index_errors():
    with pytest.raises(TypeError, match="got indexer with type float32"):
        jnp.arange(3)[jnp.array([1.0])]
    with pytest.raises(IndexError, match=r"boolean index did not match shape of indexed array "
                       r"in index 0: got \(2,\), expected \[3\]"):
        jnp.arange(3)[jnp.array([True, False])]
    with pytest.raises(IndexError, match="index is out of bounds for axis 0 with size 0"):
        jnp.zeros((0, 3))[0]
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        jax.make_jaxpr(lambda x, i: x[i:i + 2])(jnp.arange(6), 1)
    with pytest.raises(ValueError, match='Unknown gather mode "bogus"'):
        jnp.arange(3).at[1].set(1, mode="bogus")
    with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                       r"type=int32\[3\] and requested type=int32\[2\]"):
        jnp.arange(3).at[0:2].set(jnp.arange(3))
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                       r"shapes=\[\(3, 3\), \(2,\)\]"):
        jnp.zeros((1, 1))[jnp.zeros((3, 3), jnp.int32), jnp.zeros(2, jnp.int32)]
    with pytest.raises(ValueError, match="fill_value argument to indexed get"):
        jnp.arange(3.0).at[1].get(mode="fill", fill_value=jnp.ones(2))


def test_traced_boolean_mask_is_an_index_error():
    with pytest.raises(NonConcreteBooleanIndexError) as info:
        jax.make_jaxpr(lambda x: x[x > 2])(jnp.arange(6))
    assert isinstance(info.value, IndexError)
    assert str(info.value).startswith("Array boolean indices must be concrete; got bool[6]")


def test_arrays_are_immutable():
    with pytest.raises(TypeError, match="JAX arrays are immutable"):
        jnp.zeros(3)[1] = 1.0


# ---------------------------------------------------------------- lax.gather and lax.scatter
GATHER_ROWS = slicing.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                             start_index_map=(0,))
SCATTER_ROWS = slicing.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                               scatter_dims_to_operand_dims=(0,))
WINDOWS = slicing.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                         start_index_map=(0, 1))


def test_lax_gather_modes():
    x = jnp.arange(12.0).reshape(3, 4)
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    rows = jnp.array([[2], [0]])
    assert_same(slicing.gather(x, rows, GATHER_ROWS, (1, 4)), n[[2, 0]])
    assert_same(slicing.gather(x, jnp.array([[5], [-3]]), GATHER_ROWS, (1, 4), mode="clip"),
                n[[2, 0]])
    filled = slicing.gather(x, jnp.array([[5], [-3], [1]]), GATHER_ROWS, (1, 4), mode="fill")
    assert np.isnan(np.asarray(filled)[:2]).all()
    assert_same(filled[2], n[1])
    # a 2x3 window that sticks out: clamped back inside by default, filled in "fill" mode
    start = jnp.array([[2, 2]])
    assert_same(slicing.gather(x, start, WINDOWS, (2, 3)), n[None, 1:3, 1:4])
    assert_same(slicing.gather(x, jnp.array([[1, 2]]), WINDOWS, (2, 3), mode="fill",
                               fill_value=-1), np.full((1, 2, 3), -1, np.float32))


def test_lax_scatter_modes():
    x = jnp.arange(12.0).reshape(3, 4)
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    added = slicing.scatter_add(x, jnp.array([[2], [2], [7]]), jnp.ones((3, 4)), SCATTER_ROWS)
    assert_same(added, n + np.float32([[0], [0], [2]]))  # repeats add, out-of-bounds drops
    clipped = slicing.scatter(x, jnp.array([[9], [-9]]), jnp.ones((2, 4)), SCATTER_ROWS,
                              mode="clip")
    assert_same(clipped, np.where(np.arange(3)[:, None] == 1, n, 1).astype(np.float32))
    windows = slicing.ScatterDimensionNumbers(update_window_dims=(1, 2), inserted_window_dims=(),
                                              scatter_dims_to_operand_dims=(0, 1))
    zeros = jnp.zeros((3, 4))
    assert_same(slicing.scatter(zeros, jnp.array([[1, 2]]), jnp.ones((1, 2, 3)), windows),
                np.zeros((3, 4), np.float32))  # the window sticks out: dropped whole
    assert_same(slicing.scatter(zeros, jnp.array([[1, 1]]), jnp.ones((1, 2, 3)), windows),
                np.pad(np.ones((2, 3), np.float32), ((1, 0), (1, 0))))


@pytest.mark.parametrize("call, error, message", [
    (lambda x, i: slicing.gather(x, i, GATHER_ROWS, (1, 5)), TypeError,
     "Slice size at index 1 in gather op is out of range, must be within [0, 4 + 1), got 5."),
    (lambda x, i: slicing.gather(x, i, GATHER_ROWS, (2, 4)), TypeError,
     "Gather op can only collapse slice dims with bound 1, but bound is 2 for index 0 at "
     "position 0."),
    (lambda x, i: slicing.gather(x, i.astype(jnp.float32), GATHER_ROWS, (1, 4)), ValueError,
     "indices must have an integer type"),
    (lambda x, i: slicing.gather(x, i, GATHER_ROWS, (1,)), TypeError,
     "Gather op must have one slice size for every input dimension; got: len(slice_sizes)=1, "
     "input_shape.rank=2"),
    (lambda x, i: slicing.scatter_add(x, i, jnp.ones((2, 4), jnp.int32), SCATTER_ROWS),
     TypeError, "lax.scatter requires arguments to have the same dtypes, got float32, int32."),
    (lambda x, i: slicing.scatter_add(x, i, jnp.ones((2,)), SCATTER_ROWS), TypeError,
     "Updates tensor must be of rank 2; got 1."),
    (lambda x, i: slicing.scatter_add(x, i, jnp.ones((3, 4)), SCATTER_ROWS), TypeError,
     "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
     "corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 3, "
     "indices bound is 2."),
    (lambda x, i: slicing.scatter_add(x, i, jnp.ones((2, 5)), SCATTER_ROWS), TypeError,
     "Bounds of the window dimensions of updates must not exceed the bounds of the "
     "corresponding dimensions of operand. For dimension 1, updates bound is 5, operand bound "
     "is 4."),
])
def test_lax_gather_scatter_errors(call, error, message):
    x = jnp.arange(12.0).reshape(3, 4)
    with pytest.raises(error) as info:
        call(x, jnp.array([[2], [0]]))
    assert str(info.value) == message


def test_printed_parameters():
    assert str(GATHER_ROWS) == (
        "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
        "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")
    assert str(slicing.GatherScatterMode.CLIP) == "GatherScatterMode.CLIP"
    assert slicing.GatherScatterMode.from_any(None) is slicing.GatherScatterMode.FILL_OR_DROP


# ---------------------------------------------------------------- jaxprs, as JAX prints them
def _jaxpr_cases():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    v = jnp.arange(6.0)
    m = jnp.zeros((3, 3))
    pairs = jnp.array([1, 0])
    return {
        "x[1]": (lambda x: x[1], x),
        "x[...,-1]": (lambda x: x[..., -1], x),
        "x[:,1:3,::2]": (lambda x: x[:, 1:3, ::2], x),
        "x[None]": (lambda x: x[None], x),
        "x[:, ::-2]": (lambda x: x[:, ::-2], x),
        "x[:]": (lambda x: x[:], x),
        "x[0,None,:,1]": (lambda x: x[0, None, :, 1], x),
        "x[5]": (lambda x: x[5], x),
        "x[i]": (lambda x, i: x[i], x, 1),
        "v[i]": (lambda x, i: x[i], v, 1),
        "x[i,::2]": (lambda x, i: x[i, ::2], x, 1),
        "x[I]": (lambda x, i: x[i], x, pairs),
        "x[I,::-1]": (lambda x, i: x[i, ::-1], x, pairs),
        "x[I,1]": (lambda x, i: x[i, 1], x, pairs),
        "x[npidx]": (lambda x: x[np.array([1, 0])], x),
        "bool mask": (lambda y: y[np.array([True, False, True])], m),
        "bool scalar": (lambda y: y[True], m),
        "set0": (lambda x: x.at[0].set(5.0), v),
        "add arr": (lambda x: x.at[jnp.array([0, 0, 2])].add(1.0), v),
        "mul slice": (lambda x: x.at[1:3].multiply(3.0), v),
        "min": (lambda x: x.at[1].min(2.0), v),
        "div": (lambda x: x.at[1].divide(2.0), v),
        "get fill": (lambda x: x.at[2].get(mode="fill", fill_value=-1.0), v),
        "get fill arr": (lambda x: x.at[jnp.array([2, 9])].get(mode="fill"), v),
        "set clip": (lambda x: x.at[jnp.array([2, 9])].set(1.0, mode="clip"), v),
        "set step": (lambda x: x.at[::2].set(7.0), v),
        "set rev": (lambda x: x.at[::-1].set(jnp.arange(6.0)), v),
        "apply": (lambda x: x.at[1].apply(jnp.sin), v),
        "2d set row": (lambda y: y.at[1, :].set(1.0), m),
        "2d set None": (lambda y: y.at[None, 1].set(1.0), m),
        "2d traced i": (lambda y, i: y.at[i].set(1.0), m, 1),
        "int set float": (lambda y: y.at[1].set(1.5), jnp.arange(3)),
        "bool scalar set": (lambda y: y.at[True].set(2.0), m),
        "clip 7": (lambda x: x.at[7].get(mode="clip"), jnp.zeros(3)),
        "nowrap 7": (lambda x: x.at[7].get(wrap_negative_indices=False), jnp.zeros(3)),
        "x[empty]": (lambda x: x[jnp.array([], jnp.int32)], jnp.zeros(3)),
        "bcast adv": (lambda x: x[jnp.array([0, 1]), jnp.array([[0], [1]])], m),
        "weak int apply": (lambda x: (x * jnp.ones(3, jnp.int32)).at[1].apply(lambda v: v + 1),
                           2),
    }


@pytest.mark.parametrize("name", list(_jaxpr_cases()))
def test_jaxpr_matches_jax(name):
    fun, *args = _jaxpr_cases()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert str(jax.make_jaxpr(fun)(*args)) == JAX_JAXPRS[name]


# Recorded from real JAX 0.10.2: str(jax.make_jaxpr(f)(*args)) for the cases in JAXPR_CASES.
JAX_JAXPRS = {
    'x[1]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:f32[1,3,4] = slice[\n'
        '      limit_indices=(2, 3, 4)\n'
        '      start_indices=(1, 0, 0)\n'
        '      strides=None\n'
        '    ] a\n'
        '    c:f32[3,4] = squeeze[dimensions=(0,)] b\n'
        '  in (c,) }'
    ),
    'x[...,-1]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:f32[2,3,1] = slice[\n'
        '      limit_indices=(2, 3, 4)\n'
        '      start_indices=(0, 0, 3)\n'
        '      strides=None\n'
        '    ] a\n'
        '    c:f32[2,3] = squeeze[dimensions=(2,)] b\n'
        '  in (c,) }'
    ),
    'x[:,1:3,::2]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:f32[2,2,2] = slice[\n'
        '      limit_indices=(2, 3, 4)\n'
        '      start_indices=(0, 1, 0)\n'
        '      strides=(1, 1, 2)\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'x[None]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:f32[1,2,3,4] = broadcast_in_dim[broadcast_dimensions=(1, 2, 3)] a\n'
        '  in (b,) }'
    ),
    'x[:, ::-2]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:f32[2,2,4] = slice[\n'
        '      limit_indices=(2, 3, 4)\n'
        '      start_indices=(0, 0, 0)\n'
        '      strides=(1, 2, 1)\n'
        '    ] a\n'
        '    c:f32[2,2,4] = rev[dimensions=(1,)] b\n'
        '  in (c,) }'
    ),
    'x[:]': (
        '{ lambda ; a:f32[2,3,4]. let  in (a,) }'
    ),
    'x[0,None,:,1]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:f32[1,3,1] = slice[\n'
        '      limit_indices=(1, 3, 2)\n'
        '      start_indices=(0, 0, 1)\n'
        '      strides=None\n'
        '    ] a\n'
        '    c:f32[3] = squeeze[dimensions=(0, 2)] b\n'
        '    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n'
        '  in (d,) }'
    ),
    'x[5]': (
        '{ lambda ; a:f32[2,3,4]. let\n'
        '    b:bool[] = lt 5:i32[] 0:i32[]\n'
        '    c:i32[] = add 5:i32[] 2:i32[]\n'
        '    d:i32[] = select_n b 5:i32[] c\n'
        '    e:bool[] = lt 0:i32[] 0:i32[]\n'
        '    f:i32[] = add 0:i32[] 3:i32[]\n'
        '    g:i32[] = select_n e 0:i32[] f\n'
        '    h:bool[] = lt 0:i32[] 0:i32[]\n'
        '    i:i32[] = add 0:i32[] 4:i32[]\n'
        '    j:i32[] = select_n h 0:i32[] i\n'
        '    k:f32[1,3,4] = dynamic_slice[slice_sizes=(1, 3, 4)] a d g j\n'
        '    l:f32[3,4] = squeeze[dimensions=(0,)] k\n'
        '  in (l,) }'
    ),
    'x[i]': (
        '{ lambda ; a:f32[2,3,4] b:i32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:bool[] = lt c 0:i32[]\n'
        '    e:i32[] = add c 2:i32[]\n'
        '    f:i32[] = select_n d c e\n'
        '    g:bool[] = lt 0:i32[] 0:i32[]\n'
        '    h:i32[] = add 0:i32[] 3:i32[]\n'
        '    i:i32[] = select_n g 0:i32[] h\n'
        '    j:bool[] = lt 0:i32[] 0:i32[]\n'
        '    k:i32[] = add 0:i32[] 4:i32[]\n'
        '    l:i32[] = select_n j 0:i32[] k\n'
        '    m:f32[1,3,4] = dynamic_slice[slice_sizes=(1, 3, 4)] a f i l\n'
        '    n:f32[3,4] = squeeze[dimensions=(0,)] m\n'
        '  in (n,) }'
    ),
    'v[i]': (
        '{ lambda ; a:f32[6] b:i32[]. let\n'
        '    c:bool[] = lt b 0:i32[]\n'
        '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    e:i32[] = add d 6:i32[]\n'
        '    f:i32[] = select_n c b e\n'
        '    g:f32[1] = dynamic_slice[slice_sizes=(1,)] a f\n'
        '    h:f32[] = squeeze[dimensions=(0,)] g\n'
        '  in (h,) }'
    ),
    'x[i,::2]': (
        '{ lambda ; a:f32[2,3,4] b:i32[]. let\n'
        '    c:bool[] = lt b 0:i32[]\n'
        '    d:i32[] = add b 2:i32[]\n'
        '    e:i32[] = select_n c b d\n'
        '    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n'
        '    g:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] \n'
        '    h:i32[2] = mul 2:i32[] g\n'
        '    i:i32[2] = add 0:i32[] h\n'
        '    j:i32[2,1] = broadcast_in_dim f\n'
        '    k:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] i\n'
        '    l:i32[2,2] = concatenate[dimension=1] j k\n'
        '    m:f32[2,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice'
        '_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_ba'
        'tching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1, 4)\n'
        '      unique_indices=True\n'
        '    ] a l\n'
        '  in (m,) }'
    ),
    'x[I]': (
        '{ lambda ; a:f32[2,3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 2:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2,3,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1, 2), collapsed_sli'
        'ce_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batc'
        'hing_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 3, 4)\n'
        '      unique_indices=False\n'
        '    ] a f\n'
        '  in (g,) }'
    ),
    'x[I,::-1]': (
        '{ lambda ; a:f32[2,3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 2:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n'
        '    g:i32[3] = mul -1:i32[] f\n'
        '    h:i32[3] = add 2:i32[] g\n'
        '    i:i32[3] = rev[dimensions=(0,)] h\n'
        '    j:i32[2,3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    k:i32[2,3,1] = broadcast_in_dim[broadcast_dimensions=(1,)] i\n'
        '    l:i32[2,3,2] = concatenate[dimension=2] j k\n'
        '    m:f32[2,3,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(2,), collapsed_slice'
        '_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_ba'
        'tching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1, 4)\n'
        '      unique_indices=False\n'
        '    ] a l\n'
        '    n:f32[2,3,4] = rev[dimensions=(1,)] m\n'
        '  in (n,) }'
    ),
    'x[I,1]': (
        '{ lambda ; a:f32[2,3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 2:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2] = broadcast_in_dim 1:i32[]\n'
        '    g:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] f\n'
        '    h:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    i:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g\n'
        '    j:i32[2,2] = concatenate[dimension=1] h i\n'
        '    k:f32[2,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice'
        '_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_ba'
        'tching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1, 4)\n'
        '      unique_indices=False\n'
        '    ] a j\n'
        '  in (k,) }'
    ),
    'x[npidx]': (
        '{ lambda a:i32[2] b:bool[2]; c:f32[2,3,4]. let\n'
        '    d:i32[2] = add a 2:i32[]\n'
        '    e:i32[2] = select_n b a d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2,3,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1, 2), collapsed_sli'
        'ce_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batc'
        'hing_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 3, 4)\n'
        '      unique_indices=False\n'
        '    ] c f\n'
        '  in (g,) }'
    ),
    'bool mask': (
        '{ lambda a:i32[2] b:bool[2]; c:f32[3,3]. let\n'
        '    d:i32[2] = add a 3:i32[]\n'
        '    e:i32[2] = select_n b a d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2,3] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice'
        '_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batchi'
        'ng_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 3)\n'
        '      unique_indices=False\n'
        '    ] c f\n'
        '  in (g,) }'
    ),
    'bool scalar': (
        '{ lambda a:i32[1] b:bool[1]; c:f32[3,3]. let\n'
        '    d:i32[1] = add a 1:i32[]\n'
        '    e:i32[1] = select_n b a d\n'
        '    f:i32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[1,3,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] c\n'
        '    h:f32[1,3,3] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1, 2), collapsed_sli'
        'ce_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batc'
        'hing_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 3, 3)\n'
        '      unique_indices=False\n'
        '    ] g f\n'
        '  in (h,) }'
    ),
    'set0': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:i32[1] = broadcast_in_dim 0:i32[]\n'
        '    c:f32[6] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a b 5.0:f32[]\n'
        '  in (c,) }'
    ),
    'add arr': (
        '{ lambda a:i32[3]; b:f32[6]. let\n'
        '    c:bool[3] = lt a 0:i32[]\n'
        '    d:i32[3] = add a 6:i32[]\n'
        '    e:i32[3] = select_n c a d\n'
        '    f:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[3] = broadcast_in_dim 1.0:f32[]\n'
        '    h:f32[6] = scatter-add[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=False\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = add i j in (k,) }\n'
        '    ] b f g\n'
        '  in (h,) }'
    ),
    'mul slice': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[2] = broadcast_in_dim 3.0:f32[]\n'
        '    d:f32[6] = scatter-mul[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserte'
        'd_window_dims=(), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = mul e f in (g,) }\n'
        '    ] a b c\n'
        '  in (d,) }'
    ),
    'min': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[6] = scatter-min[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = min d e in (f,) }\n'
        '    ] a b 2.0:f32[]\n'
        '  in (c,) }'
    ),
    'div': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:f32[6] = broadcast_in_dim 1.0:f32[]\n'
        '    c:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    d:f32[6] = scatter-mul[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = mul e f in (g,) }\n'
        '    ] b c 2.0:f32[]\n'
        '    h:f32[6] = div a d\n'
        '  in (h,) }'
    ),
    'get fill': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:i32[1] = broadcast_in_dim 2:i32[]\n'
        '    c:f32[] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_d'
        'ims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching'
        '_dims=())\n'
        '      fill_value=-1.0\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      slice_sizes=(1,)\n'
        '      unique_indices=True\n'
        '    ] a b\n'
        '  in (c,) }'
    ),
    'get fill arr': (
        '{ lambda a:i32[2]; b:f32[6]. let\n'
        '    c:bool[2] = lt a 0:i32[]\n'
        '    d:i32[2] = add a 6:i32[]\n'
        '    e:i32[2] = select_n c a d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_d'
        'ims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching'
        '_dims=())\n'
        '      fill_value=nan\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      slice_sizes=(1,)\n'
        '      unique_indices=False\n'
        '    ] b f\n'
        '  in (g,) }'
    ),
    'set clip': (
        '{ lambda a:i32[2]; b:f32[6]. let\n'
        '    c:bool[2] = lt a 0:i32[]\n'
        '    d:i32[2] = add a 6:i32[]\n'
        '    e:i32[2] = select_n c a d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2] = broadcast_in_dim 1.0:f32[]\n'
        '    h:f32[6] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.CLIP\n'
        '      unique_indices=False\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] b f g\n'
        '  in (h,) }'
    ),
    'set step': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n'
        '    c:i32[3] = mul 2:i32[] b\n'
        '    d:i32[3] = add 0:i32[] c\n'
        '    e:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] d\n'
        '    f:f32[3] = broadcast_in_dim 7.0:f32[]\n'
        '    g:f32[6] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a e f\n'
        '  in (g,) }'
    ),
    'set rev': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:f32[6] = iota[dimension=0 dtype=float32 shape=(6,) sharding=None] \n'
        '    c:i32[6] = iota[dimension=0 dtype=int32 shape=(6,) sharding=None] \n'
        '    d:i32[6] = mul -1:i32[] c\n'
        '    e:i32[6] = add 5:i32[] d\n'
        '    f:i32[6] = rev[dimensions=(0,)] e\n'
        '    g:i32[6,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
        '    h:f32[6] = rev[dimensions=(0,)] b\n'
        '    i:f32[6] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a g h\n'
        '  in (i,) }'
    ),
    'apply': (
        '{ lambda ; a:f32[6]. let\n'
        '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[6] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = sin d in (f,) }\n'
        '    ] a b 0.0:f32[]\n'
        '  in (c,) }'
    ),
    '2d set row': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[3] = broadcast_in_dim 1.0:f32[]\n'
        '    d:f32[3,3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserte'
        'd_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(),'
        ' scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a b c\n'
        '  in (d,) }'
    ),
    '2d set None': (
        '{ lambda ; a:f32[3,3]. let\n'
        '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[1,3] = broadcast_in_dim 1.0:f32[]\n'
        '    d:f32[3] = squeeze[dimensions=(0,)] c\n'
        '    e:f32[3,3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserte'
        'd_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(),'
        ' scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a b d\n'
        '  in (e,) }'
    ),
    '2d traced i': (
        '{ lambda ; a:f32[3,3] b:i32[]. let\n'
        '    c:bool[] = lt b 0:i32[]\n'
        '    d:i32[] = add b 3:i32[]\n'
        '    e:i32[] = select_n c b d\n'
        '    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n'
        '    g:i32[1] = broadcast_in_dim f\n'
        '    h:f32[3] = broadcast_in_dim 1.0:f32[]\n'
        '    i:f32[3,3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserte'
        'd_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(),'
        ' scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a g h\n'
        '  in (i,) }'
    ),
    'int set float': (
        '{ lambda ; a:i32[3]. let\n'
        '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=True] a\n'
        '    d:f32[3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] c b 1.5:f32[]\n'
        '    e:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] d\n'
        '  in (e,) }'
    ),
    'bool scalar set': (
        '{ lambda a:i32[1] b:bool[1]; c:f32[3,3]. let\n'
        '    d:i32[1] = add a 1:i32[]\n'
        '    e:i32[1] = select_n b a d\n'
        '    f:i32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[1,3,3] = broadcast_in_dim 2.0:f32[]\n'
        '    h:f32[1,3,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] c\n'
        '    i:f32[1,3,3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1, 2), inser'
        'ted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=('
        '), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=False\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] h f g\n'
        '    j:f32[3,3] = squeeze[dimensions=(0,)] i\n'
        '  in (j,) }'
    ),
    'clip 7': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[1] = slice[limit_indices=(3,) start_indices=(2,) strides=None] a\n'
        '    c:f32[] = squeeze[dimensions=(0,)] b\n'
        '  in (c,) }'
    ),
    'nowrap 7': (
        '{ lambda ; a:f32[3]. let\n'
        '    b:f32[1] = dynamic_slice[slice_sizes=(1,)] a 7:i32[]\n'
        '    c:f32[] = squeeze[dimensions=(0,)] b\n'
        '  in (c,) }'
    ),
    'x[empty]': (
        '{ lambda a:i32[0]; b:f32[3]. let\n'
        '    c:bool[0] = lt a 0:i32[]\n'
        '    d:i32[0] = add a 3:i32[]\n'
        '    e:i32[0] = select_n c a d\n'
        '    _:i32[0,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    f:f32[0] = broadcast_in_dim 0.0:f32[]\n'
        '  in (f,) }'
    ),
    'bcast adv': (
        '{ lambda a:i32[2] b:i32[2,1]; c:f32[3,3]. let\n'
        '    d:bool[2] = lt a 0:i32[]\n'
        '    e:i32[2] = add a 3:i32[]\n'
        '    f:i32[2] = select_n d a e\n'
        '    g:bool[2,1] = lt b 0:i32[]\n'
        '    h:i32[2,1] = add b 3:i32[]\n'
        '    i:i32[2,1] = select_n g b h\n'
        '    j:i32[2,2] = broadcast_in_dim[broadcast_dimensions=(1,)] f\n'
        '    k:i32[2,2] = broadcast_in_dim[broadcast_dimensions=(0, 1)] i\n'
        '    l:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] j\n'
        '    m:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] k\n'
        '    n:i32[2,2,2] = concatenate[dimension=2] l m\n'
        '    o:f32[2,2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_d'
        'ims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batc'
        'hing_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1)\n'
        '      unique_indices=False\n'
        '    ] c n\n'
        '  in (o,) }'
    ),
    'weak int apply': (
        '{ lambda ; a:i32[]. let\n'
        '    b:i32[3] = broadcast_in_dim 1:i32[]\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
        '    d:i32[3] = mul c b\n'
        '    e:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    f:i32[3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_'
        'window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), s'
        'catter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; g:i32[] h:i32[]. let\n'
        '          i:i32[] = add g 1:i32[]\n'
        '        in (i,) }\n'
        '    ] d e 0:i32[]\n'
        '  in (f,) }'
    ),
}
