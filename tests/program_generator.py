"""Random jnp programs, for property tests of everything that runs a program twice.

``random_program()`` is a hypothesis strategy. Each example is ``(program, args)``:
``program`` is a callable ``Program`` built from a few lines of generated source,
and ``args`` are one or two small NumPy arrays to call it with. For instance::

    def program(x0, x1):
        v2 = jnp.multiply(x0, 2.5)
        v3 = jnp.sin(v2)
        v4 = jnp.maximum(v3, x1)
        v5 = jnp.sum(v4, axis=1)
        return v5

The generator keeps track of the shape and dtype of every value as it goes, so
every program it writes is valid: binary operations only combine values whose
shapes broadcast, reductions only name axes that exist, integer-only operations
only see integers. Python scalar constants (``2.5``, ``3``) appear on either side
of a binary operation, so weak types and promotion get exercised too.

It is meant to be reused wherever "the same program, two ways" must agree:
``eval_jaxpr(make_jaxpr(f))`` against ``f`` (tests/test_eval_jaxpr.py), and later
``jit(f)`` and the Numba backends against the reference interpreter. Use it as::

    @given(program_generator.random_program())
    def test_something(program_and_args):
        program, args = program_and_args
        ...

``random_program(max_steps=..., num_inputs=..., dtypes=...)`` narrows what is drawn.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# ---------------------------------------------------------------- the operations
# Each operation is (name, kind, dtypes it accepts). The kinds:
#   unary      jnp.<name>(v)                   keeps the shape
#   binary     jnp.<name>(v, w)                broadcasts v and w
#   reduction  jnp.<name>(v, axis=a)           removes axis a (or all axes)
FLOAT_UNARY = ["sin", "cos", "tanh", "exp", "log1p", "sqrt", "arctan", "floor", "ceil",
               "round", "sign", "abs", "negative", "square", "logistic_like"]
ANY_UNARY = ["abs", "negative", "square", "sign"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide", "power_scalar",
          "where_greater"]
INT_BINARY = ["floor_divide_nonzero", "remainder_nonzero", "bitwise_and", "bitwise_or"]
REDUCTIONS = ["sum", "max", "min", "mean", "prod", "argmax", "any", "all", "var"]


@dataclass
class _Value:
    """A value of the program being written: its variable name, shape and dtype kind
    ("f" float32, "i" int32, "b" bool)."""
    name: str
    shape: tuple[int, ...]
    kind: str


@dataclass
class Program:
    """A generated jnp program: its source text and the function compiled from it."""
    source: str
    num_inputs: int
    fn: Callable = field(repr=False, default=None)

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    def __repr__(self) -> str:
        return "\n" + self.source


def _result_kind(a: str, b: str) -> str:
    """Promotion on our three kinds: bool < int32 < float32."""
    order = "bif"
    return order[max(order.index(a), order.index(b))]


def _broadcasts(s: tuple[int, ...], t: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(s, t)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------- writing one line
def _unary_line(draw, v: _Value) -> tuple[str, tuple[int, ...], str]:
    choices = FLOAT_UNARY if v.kind == "f" else ANY_UNARY
    if v.kind == "b":
        choices = ["logical_not", "abs"]
    op = draw(st.sampled_from(choices))
    if op == "logistic_like":
        return f"1.0 / (1.0 + jnp.exp(-{v.name}))", v.shape, "f"
    if op == "logical_not":
        return f"jnp.logical_not({v.name})", v.shape, "b"
    if op == "square" and v.kind == "b":
        return f"jnp.square({v.name})", v.shape, "i"
    if op in ("sign", "negative") and v.kind == "b":
        return f"jnp.abs({v.name})", v.shape, "b"
    return f"jnp.{op}({v.name})", v.shape, v.kind


def _scalar(draw, kind: str) -> str:
    if kind == "f" or draw(st.booleans()):
        return repr(draw(st.sampled_from([0.5, 1.5, 2.0, -1.25, 3.0])))
    return repr(draw(st.sampled_from([1, 2, 3, -2])))


def _operand(draw, values: list[_Value], first: _Value) -> tuple[str, tuple[int, ...], str]:
    """The second operand of a binary operation: a value whose shape broadcasts with
    ``first``, or a Python scalar constant."""
    partners = [w for w in values if _broadcasts(w.shape, first.shape)]
    if not partners or draw(st.integers(0, 2)) == 0:
        text = _scalar(draw, first.kind)
        return text, (), "f" if "." in text else "i"
    w = draw(st.sampled_from(partners))
    return w.name, w.shape, w.kind


def _binary_line(draw, values: list[_Value], v: _Value) -> tuple[str, tuple[int, ...], str]:
    other, other_shape, other_kind = _operand(draw, values, v)
    shape = np.broadcast_shapes(v.shape, other_shape)
    kind = _result_kind(v.kind, other_kind)
    ops = BINARY + (INT_BINARY if kind == "i" and other_kind != "f" and v.kind != "f" else [])
    op = draw(st.sampled_from(ops))
    lhs, rhs = (v.name, other) if draw(st.booleans()) else (other, v.name)
    if op == "power_scalar":
        return f"jnp.power({v.name}, {draw(st.sampled_from([2, 3]))})", v.shape, \
            "i" if v.kind == "b" else v.kind
    if op == "where_greater":
        return f"jnp.where({lhs} > {rhs}, {lhs}, {rhs})", shape, kind
    if op == "true_divide":
        return f"jnp.true_divide({lhs}, {rhs})", shape, "f"
    if op.endswith("_nonzero"):
        fn = op[:-len("_nonzero")]
        return f"jnp.{fn}({lhs}, jnp.where({rhs} == 0, 1, {rhs}))", shape, kind
    if kind == "b" and op in ("subtract",):
        op = "logical_xor"
    return f"jnp.{op}({lhs}, {rhs})", shape, kind


def _reduction_line(draw, v: _Value) -> tuple[str, tuple[int, ...], str]:
    op = draw(st.sampled_from(REDUCTIONS))
    nonempty = all(d > 0 for d in v.shape)
    if op in ("max", "min", "argmax") and not nonempty:
        op = "sum"
    if op == "var" and v.kind == "b":
        op = "any"
    if v.shape and draw(st.booleans()):
        axis = draw(st.integers(0, len(v.shape) - 1))
        shape = v.shape[:axis] + v.shape[axis + 1:]
        call = f"jnp.{op}({v.name}, axis={axis})"
    else:
        shape, call = (), f"jnp.{op}({v.name})"
    kind = {"mean": "f", "var": "f", "argmax": "i", "any": "b", "all": "b"}.get(op, v.kind)
    if op in ("sum", "prod") and v.kind == "b":
        kind = "i"
    return call, shape, kind


# ---------------------------------------------------------------- the strategy
_DTYPES = {"f": np.float32, "i": np.int32, "b": np.bool_}


def _elements(kind: str) -> st.SearchStrategy:
    if kind == "f":
        return st.floats(-4, 4, width=32)
    if kind == "i":
        return st.integers(-5, 5)
    return st.booleans()


@st.composite
def random_program(draw, max_steps: int = 5, num_inputs: int | None = None,
                   dtypes: str = "fib", max_dims: int = 3) -> tuple[Program, list[np.ndarray]]:
    """A random valid jnp program and arguments for it (see the module docstring).

    ``dtypes`` lists the kinds of inputs allowed: "f" float32, "i" int32, "b" bool;
    the inputs have at most ``max_dims`` dimensions, each of size 0 to 4.
    """
    n = num_inputs or draw(st.integers(1, 2))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=4))
    values, args = [], []
    for i in range(n):
        kind = draw(st.sampled_from(dtypes))
        # The second input may drop leading axes: it still broadcasts with the first.
        arg_shape = shape[draw(st.integers(0, len(shape))):] if i else shape
        args.append(draw(hnp.arrays(_DTYPES[kind], arg_shape, elements=_elements(kind))))
        values.append(_Value(f"x{i}", arg_shape, kind))
    lines = []
    for step in range(draw(st.integers(1, max_steps))):
        v = draw(st.sampled_from(values))
        kind_of_line = draw(st.sampled_from(["unary", "binary", "binary", "reduction"]))
        if kind_of_line == "unary":
            expr, out_shape, out_kind = _unary_line(draw, v)
        elif kind_of_line == "binary":
            expr, out_shape, out_kind = _binary_line(draw, values, v)
        else:
            expr, out_shape, out_kind = _reduction_line(draw, v)
        name = f"v{n + step}"
        lines.append(f"    {name} = {expr}")
        values.append(_Value(name, tuple(out_shape), out_kind))
    params = ", ".join(f"x{i}" for i in range(n))
    source = "\n".join([f"def program({params}):", *lines, f"    return {values[-1].name}"])
    return _compile(source, n), args


def _compile(source: str, num_inputs: int) -> Program:
    import edujax.numpy as jnp
    namespace = {"jnp": jnp}
    exec(source, namespace)
    return Program(source, num_inputs, namespace["program"])
