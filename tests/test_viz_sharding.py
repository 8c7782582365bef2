"""viz.sharding: an array coloured by device, and the collectives of a jitted function's
per-device program drawn between the devices that exchange data."""
import re

import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax import viz
from edujax.sharding import NamedSharding, PartitionSpec as P
from edujax.viz.sharding import colour


# Eight devices for every test here; `mesh` (4x2, axes x and y) comes from conftest.py.
pytestmark = pytest.mark.usefixtures("eight_devices")


def test_an_array_is_coloured_by_the_device_of_each_block(mesh):
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P("x", "y")))
    view = viz.sharding(x)
    html = view.html()
    for device in range(8):  # every device's colour fills one block, and the legend names it
        assert html.count(f'fill="{colour(device)}"') == 1
        assert f"CPU {device}</span>" in html
    assert "CPU 0 │ CPU 1" in view.text()  # the text form is visualize_array_sharding's


def test_the_collectives_of_a_jitted_function_link_the_devices_that_exchange(mesh):
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P("x", "y")))
    view = viz.sharding(jax.jit(lambda a: a.sum(axis=0)), x)
    (psum,) = view.collectives
    assert psum.name == "psum" and psum.axes == ("x",)
    assert psum.groups == [[0, 2, 4, 6], [1, 3, 5, 7]]  # the columns of the (4, 2) mesh
    assert "psum over x" in view.text() and "all-reduce" in view.text()
    assert len(re.findall(r"<line ", view.html())) == 6  # 3 links in each of the 2 columns


def test_a_function_without_collectives_says_so(mesh):
    x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P("x", "y")))
    view = viz.sharding(jax.jit(lambda a: a * 2), x)
    assert view.collectives == []
    assert "no collectives" in view.text()


def test_a_program_that_does_not_run_per_device_is_a_clear_error():
    with pytest.raises(ValueError, match="does not run per device"):
        viz.sharding(jax.jit(lambda a: a * 2), jnp.ones(4))
