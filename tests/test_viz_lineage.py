"""The linked panes (issue 29): ``viz.lineage`` ties each equation of a jitted call to the
Python line it came from and to the generated statements that compute it."""
from __future__ import annotations

import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax import viz


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def loss(w, x):
    y = jnp.tanh(x @ w)
    return (y ** 2).sum()


def predict(params, x):
    w, b = params
    return jnp.tanh(x @ w + b)


TUTORIAL_JITS = {  # the tutorials' jitted functions
    "selu": (selu, (jnp.arange(5.0),)),
    "grad(loss)": (jax.grad(loss), (jnp.ones((3, 2)), jnp.ones((4, 3)))),
    "vmap(selu)": (jax.vmap(selu), (jnp.ones((2, 3)),)),
    "predict": (predict, ((jnp.ones((3, 2)), jnp.zeros(2)), jnp.ones((4, 3)))),
}


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "0")


@pytest.mark.parametrize("name", list(TUTORIAL_JITS))
def test_every_equation_has_a_python_line_and_a_kernel_line(name):
    fun, args = TUTORIAL_JITS[name]
    data = viz.lineage(fun, *args).data
    assert data.jaxpr
    assert data.coverage() == {"python": 1.0, "kernel": 1.0}


def test_backward_equations_link_to_the_primal_lines():
    data = viz.lineage(jax.grad(loss), jnp.ones((3, 2)), jnp.ones((4, 3))).data
    tanh_line = next(line for line in data.python if "jnp.tanh" in line.text)
    linked = {data.jaxpr[k].text.split(" = ")[1].split()[0].split("[")[0]
              for k in tanh_line.groups}
    # the forward tanh and matmul, and the backward pass's products and sum of cotangents
    assert {"tanh", "dot_general", "add_any"} <= linked


def test_the_html_links_lines_with_css_alone():
    view = viz.lineage(selu, jnp.arange(3.0))
    html = view.html()
    assert "<script" not in html
    assert ":has(.q0:hover) .q0" in html and ":has(.q0:focus) .q0" in html
    exp_lines = [line for line in view.data.kernel if "exp_f32(" in line.text]
    assert exp_lines and all(line.groups for line in exp_lines)
    assert "exp a" in view.text() and "jnp.exp(x)" in view.text()
