"""Lowering rules: how one elementwise equation becomes one line of scalar Python.

Inside a fused loop nest every value is a *scalar*: the loop visits one position of the
output at a time, so ``c:f32[1000] = mul a b`` becomes ``c = a * b`` on the current
elements. ``scalar_rules`` maps a primitive's name to a function that receives

* ``ctx``: the equation's dtypes and params, and a way to import helper functions;
* the operands, already as Python expressions (a variable name or a typed constant),

and returns the expression of the result. ``lower`` wraps it in a cast to the output's
dtype where Numba's arithmetic would pick another type (Numba, like NumPy on scalars,
computes ``int32 + int32`` in int64; the cast wraps it back around as XLA does).

This is tinygrad's ``code_for_op`` idea: the table is plain data, easy to read and extend.
A primitive missing here simply does not fuse: it runs through its NumPy reference rule.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax.jaxpr import JaxprEqn, Literal

# dtypes Numba computes with on the CPU (no float16/bfloat16 arithmetic).
SUPPORTED_DTYPES = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64,
                                          np.uint8, np.uint16, np.uint32, np.uint64,
                                          np.float32, np.float64)}
# Numba has complex64 and complex128 scalars too. The kernels use them for the arithmetic and
# the complex-number primitives below; the rest on complex numbers (division, abs, the
# transcendental functions, reductions: where C's complex routines and XLA's differ in their
# corner cases) runs through the reference rules.
COMPLEX_DTYPES = {np.dtype(np.complex64), np.dtype(np.complex128)}
COMPLEX_PRIMITIVES = {"add", "add_any", "sub", "mul", "neg", "square", "select_n", "eq", "ne",
                      "real", "imag", "complex", "conj", "convert_element_type"}


def reference_rule_label(eqn: JaxprEqn) -> str:
    """How the generated source names an equation that runs through its reference rule (with
    the reason, where it is not just a missing lowering)."""
    if eqn.primitive.name == "fft":
        return "reference rule (numpy.fft)"
    if any(v.aval.dtype in COMPLEX_DTYPES for v in (*eqn.invars, *eqn.outvars)):
        return "reference rule (NumPy; complex)"
    return "reference rule (NumPy)"


def supported(eqn: JaxprEqn) -> bool:
    """Are all of the equation's dtypes ones a kernel can compute with?"""
    dtypes = [v.aval.dtype for v in (*eqn.invars, *eqn.outvars)]
    if all(d in SUPPORTED_DTYPES for d in dtypes):
        return True
    return (eqn.primitive.name in COMPLEX_PRIMITIVES
            and all(d in SUPPORTED_DTYPES or d in COMPLEX_DTYPES for d in dtypes)
            and eqn.outvars[0].aval.dtype.kind in "fc")  # no complex -> int or bool casts

SCALAR_HELPERS = "edujax.backends.numba_cpu.scalar"
MATH_HELPERS = "edujax.backends.numba_cpu.math"
THREEFRY_HELPERS = "edujax.backends.numba_cpu.threefry"


# ---------------------------------------------------------------- types and constants
def np_name(dtype: np.dtype) -> str:
    """``np.float32``: how generated code names a dtype (and casts to it)."""
    return "np.bool_" if dtype == np.bool_ else f"np.{np.dtype(dtype).name}"


def _float_text(value: float) -> str:
    if np.isnan(value):
        return "np.nan"
    if np.isinf(value):
        return "np.inf" if value > 0 else "-np.inf"
    return repr(float(value))  # repr round-trips: the float32 comes back exactly


def constant(value: Any, dtype: np.dtype) -> str:
    """A typed scalar constant: ``np.float32(1.5)``, ``np.int32(-3)``, ``True``."""
    dtype = np.dtype(dtype)
    value = np.asarray(value).astype(dtype).item()
    if dtype == np.bool_:
        return repr(bool(value))
    if dtype.kind == "f":
        return f"{np_name(dtype)}({_float_text(value)})"
    if dtype.kind == "c":
        return f"{np_name(dtype)}(complex({_float_text(value.real)}, {_float_text(value.imag)}))"
    return f"{np_name(dtype)}({int(value)})"


def literal_array(lit: Literal) -> str:
    """A literal as a 0-d array, for the driver: ``np.array(np.float32(2.0))``."""
    dtype = np.dtype(lit.aval.dtype)
    if dtype in SUPPORTED_DTYPES or dtype.kind == "c" or dtype == np.float16:
        return f"np.array({literal_expr(lit)})"
    # Any other dtype (bfloat16, ...) by name, from the Python value.
    return f"np.array({np.asarray(lit.val).item()!r}, dtype=np.dtype({dtype.name!r}))"


def literal_expr(lit: Literal) -> str:
    return constant(lit.val, lit.aval.dtype)


# ---------------------------------------------------------------- the context of one rule
class Ctx:
    """What a rule may look at: dtypes and params of the equation, plus helper imports."""

    def __init__(self, eqn: JaxprEqn, imports: set):
        self.eqn = eqn
        self.in_dtypes = [v.aval.dtype for v in eqn.invars]
        self.out_dtype = eqn.outvars[0].aval.dtype
        self.params = eqn.params
        self._imports = imports

    @property
    def dtype(self) -> np.dtype:
        """The operands' dtype (elementwise primitives take one dtype)."""
        return self.in_dtypes[-1] if self.in_dtypes else self.out_dtype

    def helper(self, name: str, module: str = SCALAR_HELPERS) -> str:
        """Import ``name`` from a helper module into the generated code; return the name."""
        self._imports.add((module, name))
        return name

    def const(self, value: Any, dtype: np.dtype | None = None) -> str:
        return constant(value, self.dtype if dtype is None else dtype)


ScalarRule = Callable[..., str]
scalar_rules: dict[str, ScalarRule] = {}
# Rules whose expression already has the output dtype for float operands (no cast needed).
FLOAT_EXACT = {"add", "add_any", "sub", "mul", "div", "neg", "abs", "max", "min", "select_n",
               "square", "clamp", "integer_pow", "sign", "exp", "log", "log1p", "expm1", "tanh",
               "logistic", "sin", "cos", "pow"}


def lowerable(eqn: JaxprEqn) -> bool:
    """Can this equation run inside a fused loop?"""
    avals = [v.aval for v in (*eqn.invars, *eqn.outvars)]
    return (eqn.primitive.name in scalar_rules and len(eqn.outvars) == 1
            and (all(a.dtype in SUPPORTED_DTYPES for a in avals) or supported(eqn)))


# The indexing equations that get a kernel of their own (kernels.py writes it); fusion.py
# asks this to give them a step, and the CUDA backend uses the same partition.
SCATTERS = {"scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min",
            "scatter-max"}
INDEXING = {"gather", "dynamic_slice", "dynamic_update_slice", "concatenate", "stack"} | SCATTERS


def plain_dtypes(eqn: JaxprEqn) -> bool:
    """Are all of ``eqn``'s operands and results of a dtype the kernels handle (no complex)?"""
    return all(v.aval.dtype in SUPPORTED_DTYPES for v in (*eqn.invars, *eqn.outvars))


def index_lowerable(eqn: JaxprEqn) -> bool:
    """Does ``eqn`` (a gather, scatter, dynamic slice or concatenate) have a kernel?"""
    name, params = eqn.primitive.name, eqn.params
    if name not in INDEXING or not plain_dtypes(eqn):
        return False
    if name in SCATTERS:
        dtype = eqn.invars[0].aval.dtype
        if name == "scatter" and params["update_jaxpr"] is not None:
            return False  # x.at[i].apply(f): f is a jaxpr, left to the reference rule
        if dtype == np.bool_ and name == "scatter-sub":
            return False  # NumPy refuses to subtract booleans: so does the reference
    return True


def lower(eqn: JaxprEqn, operands: list[str], imports: set,
          rules: dict | None = None, exact: set | None = None) -> str:
    """The scalar expression computing ``eqn``'s output from its operands' expressions.

    ``rules`` and ``exact`` (the float rules whose expression already has the output's dtype)
    default to this table's; the CUDA backend passes its own."""
    ctx = Ctx(eqn, imports)
    rules = scalar_rules if rules is None else rules
    expr = rules[eqn.primitive.name](ctx, *operands, **eqn.params)
    out = ctx.out_dtype
    if out == np.bool_ or (out.kind == "f" and
                           eqn.primitive.name in (FLOAT_EXACT if exact is None else exact)):
        return expr
    return f"{np_name(out)}({expr})"


# ---------------------------------------------------------------- arithmetic
def _infix(op: str) -> ScalarRule:
    return lambda ctx, x, y, **p: f"{x} {op} {y}"


def _neg(ctx: Ctx, x: str) -> str:
    return f"-{x}"


def _sign(ctx: Ctx, x: str) -> str:
    one, zero = ctx.const(1), ctx.const(0)
    if ctx.dtype.kind == "u":
        return f"({one} if {x} > {zero} else {x})"
    # NaN and the signed zeros fall through to ``x`` itself (XLA keeps sign(-0.0) = -0.0).
    return f"{ctx.helper('sign')}({x}, {one})"


def _div(ctx: Ctx, x: str, y: str) -> str:
    kind = ctx.dtype.kind
    if kind == "f":
        return f"{x} / {y}"
    if kind == "u":  # XLA: x / 0 is all ones for unsigned integers
        return f"({ctx.const(-1)} if {y} == 0 else {x} // {y})"
    return f"{ctx.helper('int_div')}({x}, {y})"


def _rem(ctx: Ctx, x: str, y: str) -> str:
    if ctx.dtype.kind == "f":
        return f"np.fmod({x}, {y})"
    return f"{ctx.helper('int_rem')}({x}, {y})"


def _pow(ctx: Ctx, x: str, y: str) -> str:
    if ctx.in_dtypes[1] != ctx.in_dtypes[0]:  # an integer power: computed as a float power
        y = f"{np_name(ctx.in_dtypes[0])}({y})"
    if ctx.in_dtypes[0] == np.float32:
        return f"{ctx.helper('pow_f32', MATH_HELPERS)}({x}, {y})"
    return f"{x} ** {y}"


def _max_min(which: str) -> ScalarRule:
    def rule(ctx: Ctx, x: str, y: str) -> str:
        kind = ctx.dtype.kind
        if kind == "b":
            return f"{x} {'|' if which == 'max' else '&'} {y}"
        if kind == "f":  # NaN-propagating, like np.maximum / np.minimum
            return f"{ctx.helper('f' + which + '_nan')}({x}, {y})"
        return f"({x} if {x} {'>=' if which == 'max' else '<='} {y} else {y})"
    return rule


def _integer_pow(ctx: Ctx, x: str, *, y: int) -> str:
    """x ** y by repeated squaring, in the same order as the reference rule (bit for bit)."""
    acc, base, n = None, x, abs(y)
    while n > 0:
        if n & 1:
            acc = base if acc is None else f"({acc} * {base})"
        n >>= 1
        if n:
            base = f"({base} * {base})"
    if acc is None:
        acc = ctx.const(1)
    if ctx.dtype.kind in "iu":
        return acc  # the final cast wraps integer overflow around
    return f"{ctx.const(1)} / {acc}" if y < 0 else acc


def _clamp(ctx: Ctx, lo: str, x: str, hi: str) -> str:
    rule_max, rule_min = _max_min("max"), _max_min("min")
    inner = rule_max(ctx, x, lo)
    return rule_min(ctx, inner, hi)


scalar_rules.update({
    "add": _infix("+"), "add_any": _infix("+"), "sub": _infix("-"), "mul": _infix("*"), "neg": _neg,
    "sign": _sign, "abs": lambda ctx, x: f"abs({x})", "div": _div, "rem": _rem, "pow": _pow,
    "max": _max_min("max"), "min": _max_min("min"), "integer_pow": _integer_pow,
    "square": lambda ctx, x: f"{x} * {x}", "clamp": _clamp,
    "atan2": lambda ctx, x, y: f"np.arctan2({x}, {y})",
    "nextafter": lambda ctx, x, y: f"np.nextafter({x}, {y})",
})


# ---------------------------------------------------------------- rounding
def _round(ctx: Ctx, x: str, *, rounding_method: Any) -> str:
    if int(rounding_method) == 0:
        return f"{ctx.helper('round_half_away')}({x})"
    return f"np.rint({x})"  # half to even


scalar_rules.update({
    "floor": lambda ctx, x: f"np.floor({x})", "ceil": lambda ctx, x: f"np.ceil({x})",
    "round": _round, "is_finite": lambda ctx, x: f"np.isfinite({x})",
})


# ---------------------------------------------------------------- transcendental functions
# float32 uses the branch-free versions of math.py, which LLVM can vectorize (a call to the
# C library's expf cannot be). float64 calls NumPy's functions (the C library).
def _math(name: str, np_fn: str) -> ScalarRule:
    def rule(ctx: Ctx, x: str, **params) -> str:
        if ctx.dtype == np.float32:
            return f"{ctx.helper(name + '_f32', MATH_HELPERS)}({x})"
        if name == "logistic":
            return f"{ctx.const(1)} / ({ctx.const(1)} + np.exp(-{x}))"
        return f"{np_fn}({x})"
    return rule


def _unary_np(np_fn: str) -> ScalarRule:
    return lambda ctx, x, **params: f"{np_fn}({x})"


scalar_rules.update({name: _math(name, f"np.{name}") for name in
                     ("exp", "log", "log1p", "expm1", "tanh", "sin", "cos")})
scalar_rules["logistic"] = _math("logistic", "")
scalar_rules.update({
    "exp2": _unary_np("np.exp2"), "tan": _unary_np("np.tan"), "sqrt": _unary_np("np.sqrt"),
    "cbrt": _unary_np("np.cbrt"), "asin": _unary_np("np.arcsin"),
    "acos": _unary_np("np.arccos"), "atan": _unary_np("np.arctan"),
    "sinh": _unary_np("np.sinh"), "cosh": _unary_np("np.cosh"),
    "asinh": _unary_np("np.arcsinh"), "acosh": _unary_np("np.arccosh"),
    "atanh": _unary_np("np.arctanh"),
    "rsqrt": lambda ctx, x, **p: f"{ctx.const(1)} / np.sqrt({x})",
    # The reference computes erf in float64 (math.erf) and rounds once: so do we.
    "erf": lambda ctx, x: f"math.erf(np.float64({x}))",
})


# ---------------------------------------------------------------- logic, bits, comparisons
def _not(ctx: Ctx, x: str) -> str:
    return f"(not {x})" if ctx.dtype == np.bool_ else f"~{x}"


def _shift(helper: str) -> ScalarRule:
    def rule(ctx: Ctx, x: str, y: str) -> str:
        bits = ctx.dtype.itemsize * 8
        name = helper
        if helper != "shift_left" and ctx.dtype.kind == "u":
            name = "shift_right_logical"  # an unsigned arithmetic shift shifts zeros in
        if name == "shift_right_logical":
            unsigned = np_name(np.dtype(f"u{ctx.dtype.itemsize}"))
            x, y = f"{unsigned}({x})", f"{unsigned}({y})"  # reinterpret the bits as unsigned
        return f"{ctx.helper(name)}({x}, {y}, {bits})"
    return rule


scalar_rules.update({
    "not": _not, "and": _infix("&"), "or": _infix("|"), "xor": _infix("^"),
    "shift_left": _shift("shift_left"),
    "shift_right_arithmetic": _shift("shift_right_arithmetic"),
    "shift_right_logical": _shift("shift_right_logical"),
    "eq": _infix("=="), "ne": _infix("!="), "lt": _infix("<"), "le": _infix("<="),
    "gt": _infix(">"), "ge": _infix(">="),
})


# The total-order comparisons (sorting's): the usual ones, but for floats, whose NaNs and
# signed zeros have a place (scalar.total_lt). x <= y is not (y < x); x == y is neither.
def _total_order(op: str) -> ScalarRule:
    def rule(ctx: Ctx, x: str, y: str) -> str:
        if ctx.in_dtypes[0].kind != "f":
            return f"{x} {op} {y}"
        lt = ctx.helper("total_lt")
        return {"<": f"{lt}({x}, {y})", "<=": f"(not {lt}({y}, {x}))",
                "==": f"(not ({lt}({x}, {y}) or {lt}({y}, {x})))"}[op]
    return rule


scalar_rules.update({"eq_to": _total_order("=="), "lt_to": _total_order("<"),
                     "le_to": _total_order("<=")})


# ---------------------------------------------------------------- select and casts
def _select_n(ctx: Ctx, which: str, *cases: str) -> str:
    if ctx.in_dtypes[0] == np.bool_:
        return f"({cases[1]} if {which} else {cases[0]})" if len(cases) == 2 else cases[0]
    expr = cases[-1]
    for i in reversed(range(len(cases) - 1)):
        expr = f"({cases[i]} if {which} == {i} else {expr})"
    return expr


def _convert(ctx: Ctx, x: str, *, new_dtype: Any, **params) -> str:
    src, dst = ctx.in_dtypes[0], np.dtype(new_dtype)
    if dst == np.bool_:
        return f"{x} != {ctx.const(0, src)}"
    if src.kind == "c" and dst.kind == "f":
        return f"{x}.real"  # as NumPy and XLA do, the imaginary part is dropped
    if src.kind == "f" and dst.kind in "iu":
        if dst.itemsize == 8:  # the bounds of 64-bit integers are not exact floats
            return f"{ctx.helper('float_to_' + dst.name)}({x})"
        info = np.iinfo(dst)
        return f"{ctx.helper('float_to_int')}({x}, {info.min}, {info.max})"
    return x  # lower() adds the cast: np.float32(x), np.int8(x) (which wraps around), ...


scalar_rules.update({"select_n": _select_n, "convert_element_type": _convert})


# ---------------------------------------------------------------- complex numbers
def _conj(ctx: Ctx, x: str, **params) -> str:
    if ctx.dtype.kind == "c":
        return f"{x}.conjugate()"
    return f"complex({x}, {ctx.const(0)})"  # a float: x + 0i


scalar_rules.update({
    "real": lambda ctx, x: f"{x}.real", "imag": lambda ctx, x: f"{x}.imag",
    "complex": lambda ctx, x, y: f"complex({x}, {y})", "conj": _conj,
})


# ---------------------------------------------------------------- random bits
# ``threefry2x32_word`` is word 0 or 1 of the threefry2x32 hash (``keys.py`` splits the
# two-output primitive in two); both words call the same inlined function, computed once.
def _threefry_word(ctx: Ctx, k0: str, k1: str, x0: str, x1: str, *, word: int) -> str:
    return f"{ctx.helper('threefry2x32', THREEFRY_HELPERS)}({k0}, {k1}, {x0}, {x1})[{word}]"


scalar_rules["threefry2x32_word"] = _threefry_word
