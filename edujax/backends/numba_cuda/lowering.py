"""Lowering rules for CUDA kernels: the CPU backend's table, with the math swapped out.

A fused CUDA kernel computes one element at a time, exactly like a CPU loop body, so the
rules of ``passes/lowering.py`` (one equation -> one line of scalar Python) apply as
they are: ``c = a * b``, ``d = (b if c else a)``, casts that wrap integers around...

Only the functions a rule *calls* change. On the CPU, float32 ``exp`` is edujax's own
branch-free ``exp_f32`` (so LLVM can vectorize the loop) and float64 ``exp`` is NumPy's;
a GPU has no use for that (each thread computes one element anyway) and Numba's CUDA
target does not compile those helpers, so here every math function is a name from
``device_math.py``: CUDA's libdevice on a GPU, NumPy's ufuncs in the simulator. The
overrides below are the whole difference; every other rule is shared.
"""
from __future__ import annotations


from edujax.backends.passes import lowering as cpu
from edujax.backends.passes.lowering import Ctx, np_name
from edujax.jaxpr import JaxprEqn

DEVICE_MATH = "edujax.backends.numba_cuda.device_math"
# The CPU rules import their helpers from these modules; device_math.py has the same names.
CPU_HELPER_MODULES = {cpu.SCALAR_HELPERS, cpu.MATH_HELPERS}

ScalarRule = cpu.ScalarRule
cuda_rules: dict[str, ScalarRule] = dict(cpu.scalar_rules)

# Rules whose expression already has the output's dtype: no cast is written around them.
# (A math function may come back in float64 in the simulator, so those are always cast.)
EXACT = {"add", "add_any", "sub", "mul", "div", "neg", "abs", "max", "min", "select_n",
         "square", "clamp", "integer_pow", "sign"}


def lower(eqn: JaxprEqn, operands: list[str], imports: set) -> str:
    """The scalar expression computing ``eqn``'s output: the CPU's ``lower`` with this table."""
    return cpu.lower(eqn, operands, imports, rules=cuda_rules, exact=EXACT)


def helper_module(module: str) -> str:
    """Where the generated code imports a helper from: device_math.py for every CPU helper."""
    return DEVICE_MATH if module in CPU_HELPER_MODULES else module


# ---------------------------------------------------------------- the overrides
def _call(name: str) -> ScalarRule:
    """A rule that calls ``device_math.<name>`` on its operands."""
    def rule(ctx: Ctx, *operands: str, **params) -> str:
        return f"{ctx.helper(name, DEVICE_MATH)}({', '.join(operands)})"
    return rule


def _rem(ctx: Ctx, x: str, y: str) -> str:
    if ctx.dtype.kind == "f":
        return f"{ctx.helper('fmod', DEVICE_MATH)}({x}, {y})"
    return f"{ctx.helper('int_rem', DEVICE_MATH)}({x}, {y})"


def _pow(ctx: Ctx, x: str, y: str) -> str:
    if ctx.in_dtypes[1] != ctx.in_dtypes[0]:  # an integer power: computed as a float power
        y = f"{np_name(ctx.in_dtypes[0])}({y})"
    return f"{x} ** {y}"


def _round(ctx: Ctx, x: str, *, rounding_method: object) -> str:
    name = "round_half_away" if int(rounding_method) == 0 else "rint"
    return f"{ctx.helper(name, DEVICE_MATH)}({x})"


def _rsqrt(ctx: Ctx, x: str, **params) -> str:
    return f"{ctx.const(1)} / {ctx.helper('sqrt', DEVICE_MATH)}({x})"


def _erf(ctx: Ctx, x: str) -> str:
    return f"{ctx.helper('erf', DEVICE_MATH)}(np.float64({x}))"


cuda_rules.update({name: _call(name) for name in (
    "exp", "log", "log1p", "expm1", "tanh", "sin", "cos", "tan", "sqrt", "cbrt", "exp2",
    "sinh", "cosh", "asinh", "acosh", "atanh", "floor", "ceil", "logistic", "atan2",
    "nextafter")})
cuda_rules.update({
    "asin": _call("asin"), "acos": _call("acos"), "atan": _call("atan"),
    "is_finite": _call("isfinite"), "rem": _rem, "pow": _pow, "round": _round,
    "rsqrt": _rsqrt, "erf": _erf,
})
