"""jit on sharded arrays runs per device (edujax/spmd.py): each device computes its block,
and the collectives the sharding rules call for appear in the compiled text, where a
learner reads them. Values must equal the whole-array program's."""
import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax.sharding import AxisType, NamedSharding, PartitionSpec as P
from edujax.spmd import PerDeviceExecutable


# Eight devices for every test here; `mesh` (4x2, axes x and y) comes from conftest.py.
pytestmark = pytest.mark.usefixtures("eight_devices")


X = np.arange(32.0, dtype=np.float32).reshape(8, 4)


def _on(mesh, value, *spec):
    return jax.device_put(jnp.asarray(value), NamedSharding(mesh, P(*spec)))


def _compiled(f, *args):
    compiled = jax.jit(f).lower(*args).compile()
    return compiled, compiled.as_text()


def test_reduction_over_a_split_dimension_is_a_local_sum_then_psum(mesh):
    x = _on(mesh, X, "x", "y")
    f = lambda a: (a * 2).sum(axis=0)
    compiled, text = _compiled(f, x)
    assert isinstance(compiled._entry.executable, PerDeviceExecutable)
    assert "{ lambda ; a:f32[2,2]. let" in text  # one device's block, not the 8x4 array
    assert "c:f32[2] = reduce_sum" in text and "psum[axes=('x',)" in text
    out = jax.jit(f)(x)
    np.testing.assert_allclose(out, (X * 2).sum(axis=0))
    assert out.sharding.spec == P("y")
    assert [s.data.shape for s in out.addressable_shards] == [(2,)] * 8


def test_matmul_over_a_split_contraction_is_a_reduce_scatter(mesh):
    a, w = _on(mesh, X, "x", "y"), _on(mesh, np.ones((4, 6), np.float32), "y", None)
    out_sharding = NamedSharding(mesh, P("x", "y"))
    f = lambda a, w: jnp.matmul(jnp.sin(a), w, out_sharding=out_sharding)
    _, text = _compiled(f, a, w)
    assert "reduce_scatter[" in text and "axis_name=y" in text
    np.testing.assert_allclose(jax.jit(f)(a, w), np.sin(X) @ np.ones((4, 6)), rtol=1e-5)


def test_reshard_gathers_then_slices_at_each_devices_place(mesh):
    x = _on(mesh, X, "x", "y")
    f = lambda a: jax.reshard(a, NamedSharding(mesh, P("y", "x")))
    _, text = _compiled(f, x)
    assert text.count("all_gather[") == 2 and "axis_index[axis_name=y]" in text
    out = jax.jit(f)(x)
    np.testing.assert_array_equal(out, X)
    assert out.sharding.spec == P("y", "x")
    assert out.addressable_shards[1].data.shape == (4, 1)


@pytest.mark.parametrize("f", [
    lambda a: a.sum(), lambda a: jnp.max(a, axis=1), lambda a: a.T * 3,
    lambda a: jnp.exp(a / 32) + a, lambda a: a + jnp.arange(4.0),
    lambda a: jnp.cumsum(a, axis=0)])
def test_per_device_values_equal_the_whole_array_program(mesh, f):
    out = jax.jit(f)(_on(mesh, X, "x", "y"))
    np.testing.assert_allclose(out, f(jnp.asarray(X)), rtol=1e-6)


def test_an_operation_without_a_per_device_rule_runs_on_whole_arrays(mesh):
    compiled, text = _compiled(lambda a: jnp.cumsum(a, axis=0), _on(mesh, X, "x", "y"))
    assert not isinstance(compiled._entry.executable, PerDeviceExecutable)
    assert "runs on its own blocks" not in text


def test_auto_axes_run_per_device_with_the_layouts_the_rules_choose():
    """On Auto axes JAX's partitioner chooses; edujax chooses what its sharding rules give
    (for a column sum: the local sums, then a psum over x, the result split over y, as the
    output JAX 0.10 returns is: P('y',))."""
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    x = _on(mesh, X, "x", "y")
    compiled, text = _compiled(lambda a: a.sum(axis=0), x)
    assert isinstance(compiled._entry.executable, PerDeviceExecutable)
    assert "psum[axes=('x',)" in text
    out = jax.jit(lambda a: a.sum(axis=0))(x)
    np.testing.assert_allclose(out, X.sum(axis=0))
    assert out.sharding.spec == P("y")
    assert str(jax.typeof(out)) == "float32[4]"  # Auto axes do not show in the type


def test_auto_axes_the_rules_cannot_partition_run_on_whole_arrays():
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    compiled, _ = _compiled(lambda a: a.T @ a, _on(mesh, X, "x", "y"))  # y on both dims
    assert not isinstance(compiled._entry.executable, PerDeviceExecutable)
    np.testing.assert_allclose(compiled(_on(mesh, X, "x", "y")), X.T @ X)
