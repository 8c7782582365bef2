"""``eval_jaxpr(make_jaxpr(f))`` computes what ``f`` computes, on random programs.

make_jaxpr stages a program into a jaxpr; eval_jaxpr replays the jaxpr with the
reference rules. If staging lost or changed anything (a dropped weak type, a
literal of the wrong dtype, a wrongly folded constant), the replay disagrees with
running the program directly. tests/program_generator.py writes the programs.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given
from program_generator import random_program

import edujax as jax
import edujax.numpy as jnp
from edujax.jaxpr import eval_jaxpr


def _check_same(expected, got) -> None:
    assert np.shape(got) == np.shape(expected)
    assert got.dtype == expected.dtype
    assert got.weak_type == expected.weak_type
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


@given(random_program())
def test_eval_jaxpr_of_make_jaxpr_matches_eager(program_and_args):
    program, args = program_and_args
    args = [jnp.asarray(a) for a in args]  # a jaxpr may hand an input straight back
    closed = jax.make_jaxpr(program)(*args)
    outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
    expected = program(*args)
    assert len(outs) == 1
    _check_same(expected, outs[0])


@given(random_program())
def test_jaxpr_out_avals_match_eager(program_and_args):
    """The abstract values make_jaxpr predicts are those of the eager result."""
    program, args = program_and_args
    closed = jax.make_jaxpr(program)(*args)
    expected = program(*args)
    aval, = closed.out_avals
    assert (aval.shape, aval.dtype, aval.weak_type) == (expected.shape, expected.dtype,
                                                        expected.weak_type)


@given(random_program(dtypes="f", max_dims=0))
def test_jaxpr_of_python_scalar_inputs(program_and_args):
    """Called with Python floats instead of arrays, the inputs are weakly typed."""
    program, args = program_and_args
    scalar_args = [float(a) for a in args]
    closed = jax.make_jaxpr(program)(*scalar_args)
    assert all(v.aval.weak_type for v in closed.jaxpr.invars)
    outs = eval_jaxpr(closed.jaxpr, closed.consts, *scalar_args)
    _check_same(program(*scalar_args), outs[0])
