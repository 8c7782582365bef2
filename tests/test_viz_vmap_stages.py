"""The vmap stage view (issue 29): ``viz.vmap_stages`` puts one example's program beside
the batched one, with each variable's batch dimension.

The batch dimensions are compared with real JAX 0.10.2's (tests/data/vmap_stages_cases.py,
recorded in vmap_stages_recorded.json: the same replay, reading JAX's BatchTracers)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax import viz
from edujax.viz.vmap_stages import vmap_data

from recorded import DATA, load

import importlib.util

_spec = importlib.util.spec_from_file_location("vmap_cases", DATA / "vmap_stages_cases.py")
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
RECORDED = load("vmap_stages_recorded.json")


def case(name):
    ns = {"jax": jax, "jnp": jnp, "np": np}
    exec(_cases.CASES[name], ns)
    return ns["f"], ns["args"], ns["in_axes"]


@pytest.mark.parametrize("name", list(_cases.CASES))
def test_batch_dims_are_jaxs(name):
    f, args, in_axes = case(name)
    data = vmap_data(f, *args, in_axes=in_axes)
    want = RECORDED[name]
    assert [b.batch_dim for b in data.inputs] == want["inputs"]
    got = [[r.text.split(" = ")[1].split("[")[0].split(" ")[0], [b.batch_dim for b in r.outputs]]
           for r in data.rows]
    assert got == want["eqns"]
    # the replay stages exactly what vmap(f) stages: every batched equation is shown once
    assert sum(len(r.batched) for r in data.rows) + len(data.moved) == want["batched_eqns"]
    direct = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args)
    assert len(direct.eqns) == want["direct_eqns"]


def test_a_row_shows_the_equation_its_batch_dim_and_what_it_became():
    f, args, in_axes = case("sin_then_dot")
    data = vmap_data(f, *args, in_axes=in_axes)
    assert data.axis_size == 5
    assert [str(b) for b in data.inputs] == ["a:f32[3] -> batch dim 0 (f32[5,3])",
                                             "b:f32[4,3] -> not batched (f32[4,3])"]
    dot = data.row("dot_general")
    assert dot.outputs[0].aval == "f32[4]" and dot.outputs[0].batched_aval == "f32[4,5]"
    assert dot.outputs[0].batch_dim == 1  # JAX puts it after w's free axis
    assert dot.batched == ["e:f32[4,5] = dot_general[dimension_numbers=(([1], [1]), ([], [])) "
                           "preferred_element_type=float32] b d"]
    # w.sum() does not depend on the example: computed once, on one example's shapes
    unbatched = data.rows[4]
    assert unbatched.outputs[0].batch_dim is None
    assert unbatched.batched == ["g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b"]
    assert dot.place.endswith(":3:6 (f)") and dot.place.startswith("<string>")


def test_an_output_batched_on_the_last_axis_is_moved_to_out_axes():
    f, args, in_axes = case("batch_on_last_axis_out_moved")
    data = vmap_data(f, *args, in_axes=in_axes)
    assert [b.batch_dim for b in data.outputs] == [1]
    assert len(data.moved) == 1 and " = transpose[permutation=(1, 0)]" in data.moved[0]


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def test_the_view_text_and_html():
    view = viz.vmap_stages(selu, jnp.ones((5, 3)))
    text = str(view)
    assert text.startswith("vmap over a batch of 5")
    assert "a:f32[3] -> batch dim 0 (f32[5,3])" in text
    html = view.html()
    assert "vmap of <code>selu</code> over a batch of 5" in html
    assert html.count("<tr class=\"ej-vmap-batched\">") == 6  # every equation is batched
    assert "make_jaxpr(vmap(f))" in html and "<script" not in html
    assert re.search(r"ej-bdim\"[^>]*><b>b</b> 0 <small>bool\[5,3\]</small>", html)


def test_an_unbatched_row_is_marked():
    view = viz.vmap_stages(lambda x, w: jnp.sin(w) * x, jnp.ones(4), jnp.ones(()),
                           in_axes=(0, None))
    html = view.html()
    assert html.count('class="ej-vmap-unbatched"') == 1
    assert 'class="ej-bdim-none"' in html


def test_a_mismatched_batch_is_a_clear_error():
    with pytest.raises(ValueError, match="every mapped axis of the same size"):
        vmap_data(lambda x, y: x + y, jnp.ones(3), jnp.ones(4))


W = jnp.ones((4, 3))


def apply(v):
    return jnp.tanh(W @ v)


def test_a_closed_over_constant_is_named_first_and_never_batched():
    data = vmap_data(apply, jnp.ones((2, 3)))
    assert [str(b) for b in data.consts] == ["a:f32[4,3] -> not batched (f32[4,3])"]
    assert data.rows[0].text.endswith("] a b")  # as make_jaxpr(apply) prints it
    assert data.rows[0].batched[0].endswith("] a b")
    assert data.moved == ["e:f32[2,4] = transpose[permutation=(1, 0)] d"]
