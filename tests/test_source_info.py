"""Provenance (issue 29): every equation knows the Python line it came from and the
transformations it went through, and prints them as JAX does.

* Programs recorded from real JAX 0.10.2 (tests/data/source_info_cases.py ->
  source_info_recorded.json): ``jaxpr.pretty_print(source_info=True, name_stack=True)`` of
  plain, jit, grad, vmap, control-flow and remat programs, and ``print_saved_residuals``.
* The equations' places themselves: the student's line, not edujax's.
"""
from __future__ import annotations

import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax import config, source_info

from recorded import check, load, params

CASES = load("source_info_recorded.json")


@pytest.mark.parametrize("case", params(CASES))
def test_recorded(case):
    check(case)


def test_enough_programs_are_recorded():
    printed = [c for c in CASES if "pretty_print(" in c["code"]]
    residuals = [c for c in CASES if "print_saved_residuals" in c["code"]]
    assert len(printed) >= 30 and len(residuals) >= 5


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def test_every_equation_points_at_this_file():
    jaxpr = jax.make_jaxpr(selu)(jnp.arange(3.0))
    frames = [e.source_info.frame for e in jaxpr.eqns]
    assert all(f.file_name == __file__ and f.function_name == "selu" for f in frames)
    line = selu.__code__.co_firstlineno + 1
    assert {f.start_line for f in frames} == {line}


def test_backward_pass_points_at_the_primal_lines():
    def f(x):
        y = jnp.sin(x)
        return jnp.cos(y)
    jaxpr = jax.make_jaxpr(jax.grad(f))(1.0)
    first = f.__code__.co_firstlineno
    places = {(str(e.source_info.name_stack), e.source_info.frame.start_line)
              for e in jaxpr.eqns}
    assert ("transpose(jvp())", first + 1) in places
    assert ("transpose(jvp())", first + 2) in places
    assert ("jvp()", first + 1) in places


def test_an_equation_of_edujax_internals_has_no_place():
    # the body of jnp.where (a jitted edujax function) has no user frame, as in JAX
    jaxpr = jax.make_jaxpr(selu)(jnp.arange(3.0))
    inner = next(e for e in jaxpr.eqns if e.primitive.name == "jit").params["jaxpr"]
    assert [source_info.summarize(e.source_info) for e in inner.eqns] == [""]


# -- the generated kernel's statements name their equation and the user's line
def loss(w, x):
    y = jnp.tanh(x @ w)
    return (y ** 2).sum()


TUTORIAL_JITS = {  # the tutorials' jitted functions, with arguments
    "selu": (selu, (jnp.arange(5.0),)),
    "grad(loss)": (jax.grad(loss), (jnp.ones((3, 2)), jnp.ones((4, 3)))),
    "vmap(selu)": (jax.vmap(selu), (jnp.ones((2, 3)),)),
    "sum_of_squares": (lambda x: jnp.sum(x ** 2), (jnp.arange(4.0),)),
}


@pytest.fixture
def numba_backend(monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "0")  # compile at once
    before = config.read("edujax_backend")
    config.update("edujax_backend", "numba")
    yield
    config.update("edujax_backend", before)


@pytest.mark.parametrize("name", list(TUTORIAL_JITS))
def test_every_equation_maps_to_a_source_line_and_a_generated_line(name, numba_backend):
    from edujax.backends.numba_cpu.provenance import statement_origins

    fun, args = TUTORIAL_JITS[name]
    executable = jax.jit(fun).lower(*args).compile()._entry.executable
    module = executable.module
    origins = {id(o) for o in statement_origins(module.source, module.provenance) if o}
    equations = list(module.provenance.values())
    assert equations
    for origin in equations:  # 100%: each equation has a line of code and a place here
        assert id(origin) in origins, origin.eqn_text
        assert origin.place.frame is not None and origin.place.frame.file_name == __file__
    text = executable.as_text()
    assert f"<- {__file__}:" in text
    assert module.source.count(__file__) == 0  # the compiled text stays place-free (caches)
