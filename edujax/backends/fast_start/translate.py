"""One Python function into one LLVM function: Numba's typing rules, and the lowering.

``direct.py`` compiles the generated kernels without Numba; this file is its core, the walk
over a function's syntax tree (``ast``) that gives each expression a type and writes its
LLVM instructions (``llvmlite.ir``), as Numba's type inference and lowering do in two
passes over its own IR:

* **types** are NumPy dtypes. The rules are Numba's, not NumPy's: integers compute in 64
  bits (``int32 + int32`` is int64, signed unless both are unsigned), a float operand makes
  the smallest float that holds both (``float32 * int8`` is float32, ``float32 * int32``
  float64), Python's ``1`` is an int64 and ``0.5`` a float64 (``arithmetic_type``, checked
  against Numba itself by tests/test_direct_kernels.py);
* **variables** live in stack slots (``alloca``), one per name and type, as in Numba's
  lowering: loops and branches then need no bookkeeping, and LLVM's first passes turn the
  slots into registers;
* **control flow**: ``for i in range(n)``, ``if``, and ``a if c else b`` (two branches and
  a phi), ``and``/``or`` and chained comparisons (evaluated only as far as needed);
* **calls**: NumPy's dtype conversions (``np.float32(x)``), a few functions that are one
  LLVM intrinsic each (``np.floor``, ``abs``, ``min``), ``llvm.py``'s intrinsics (``fma``,
  bit casts) and the helpers of ``math.py``/``scalar.py``, compiled once per argument types
  by the module (``direct.ModuleCompiler``).

Anything else raises ``Unsupported``: the kernel then goes to Numba.
"""
from __future__ import annotations

import ast
import functools
import math
from typing import Any

import numpy as np
from llvmlite import ir


class Unsupported(Exception):
    """The kernel uses something this compiler does not cover: Numba compiles it."""


# ============================================================ x * 2^k, rounded once
@functools.cache
def ldexp_is_one_instruction() -> bool:
    """Can this CPU multiply floats by 2^k in one vector instruction (AVX-512's
    ``vscalefps``)? Elsewhere LLVM turns ``llvm.ldexp`` into a call of the C library's
    ``ldexpf`` per element, which stops a loop from vectorizing."""
    import llvmlite.binding as llvm  # (heavy: only once a kernel is compiled)
    return "+avx512f" in llvm.get_host_cpu_features().flatten().split(",")


def scale_by_pow2(builder: ir.IRBuilder, x: ir.Value, k: ir.Value) -> ir.Value:
    """``x * 2^k`` (float32 ``x``, int32 ``k`` in [-150, 128]) rounded once, in LLVM IR.

    ``exp_f32`` ends with it. Where AVX-512 has it, one ``llvm.ldexp`` (``vscalefps``);
    elsewhere 2^k in two halves, each a normal float32, so that only the second multiply
    rounds: results that overflow to inf or underflow to subnormals come out the same,
    correctly rounded, either way. (Numba compiles ``llvm.py``'s ``scale_by_pow2`` with
    this function too: one spelling for both compilers.)"""
    f32, i32 = ir.FloatType(), ir.IntType(32)
    if ldexp_is_one_instruction():
        ldexp = builder.module.declare_intrinsic("llvm.ldexp", [f32, i32],
                                                 ir.FunctionType(f32, [f32, i32]))
        return builder.call(ldexp, [x, k])
    half = builder.ashr(k, ir.Constant(i32, 1))

    def power_of_2(e: ir.Value) -> ir.Value:  # the float32 whose exponent field is e + 127
        biased = builder.add(e, ir.Constant(i32, 127))
        return builder.bitcast(builder.shl(biased, ir.Constant(i32, 23)), f32)
    scaled = builder.fmul(x, power_of_2(half))  # exact: |x * 2^half| stays normal
    return builder.fmul(scaled, power_of_2(builder.sub(k, half)))


# ====================================================================== types (Numba's rules)
B, I8, I16, I32, I64 = (np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64))
U8, U16, U32, U64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
SCALARS = {B, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64}
BUILTINS = {"abs": abs, "min": min, "max": max}
# The NumPy scalar types generated code calls to convert (``np.float32(x)``).
CONVERSIONS = {getattr(np, t.name if t != B else "bool_"): t for t in SCALARS}


def llvm_type(t: np.dtype) -> ir.Type:
    """A value's type in registers: bool is one bit, numbers are what they are."""
    if t == B:
        return ir.IntType(1)
    if t.kind == "f":
        return ir.FloatType() if t == F32 else ir.DoubleType()
    return ir.IntType(8 * t.itemsize)


def memory_type(t: np.dtype) -> ir.Type:
    """A value's type in an array: NumPy keeps a bool in a byte."""
    return ir.IntType(8) if t == B else llvm_type(t)


def arithmetic_type(a: np.dtype, b: np.dtype) -> np.dtype:
    """The type of ``a + b`` (also ``-``, ``*``, and what a comparison compares in), in Numba.

    Integers compute in 64 bits (signed unless both are unsigned), as in Numba's "integer
    typing" rules; a float operand makes the result the smallest float that holds both
    exactly (float32 holds booleans and 8- and 16-bit integers, not int32)."""
    if a.kind == "f" or b.kind == "f":
        small = all(t == F32 or (t.kind in "biu" and t.itemsize <= 2) for t in (a, b))
        return F32 if small else F64
    return U64 if a.kind == "u" and b.kind == "u" else I64


def unify(a: np.dtype, b: np.dtype) -> np.dtype:
    """The one type two values merge into (the arms of ``a if c else b``, ``max(a, b)``)."""
    if a == b:
        return a
    if a.kind == b.kind and a.kind in "fiu":
        return max(a, b, key=lambda t: t.itemsize)
    raise Unsupported(f"merging {a} and {b}")


class Value:
    """A typed value during compilation: its dtype (or a tuple of dtypes) and its LLVM value
    (or a tuple of Values)."""

    __slots__ = ("type", "ir")

    def __init__(self, type_: Any, value: Any):
        self.type, self.ir = type_, value


class Array:
    """An array the kernel reads or writes (``pointer``: a kernel's argument), or a constant
    table (``table``: a global of the module): C-ordered, with a shape fixed in advance."""

    def __init__(self, dtype: np.dtype, shape: tuple, pointer: Any = None, table: Any = None):
        self.dtype, self.shape, self.pointer, self.table = dtype, tuple(shape), pointer, table
        self.strides = [math.prod(self.shape[d + 1:]) for d in range(len(self.shape))]


class Function:
    """A helper function (``sin_f32``): its syntax tree and the globals it sees."""

    def __init__(self, name: str, tree: ast.FunctionDef, namespace: dict):
        self.name, self.tree, self.namespace = name, tree, namespace


class Intrinsic:
    """One of ``llvm.py``'s functions written in LLVM IR (``fma``, ``f32_bits``...)."""

    def __init__(self, name: str):
        self.name = name


# NumPy's functions on floats, as Numba lowers each (read from the LLVM IR it writes): an
# LLVM intrinsic, or the C library's function (its float32 version has an ``f`` suffix).
NUMPY_FUNCTIONS = {
    np.floor: "llvm.floor", np.ceil: "llvm.ceil", np.rint: "llvm.rint",
    np.copysign: "llvm.copysign", math.copysign: "llvm.copysign",
    np.exp: "llvm.exp", np.exp2: "llvm.exp2", np.log: "llvm.log", np.log2: "llvm.log2",
    np.log10: "llvm.log10", np.sin: "llvm.sin", np.cos: "llvm.cos",
    np.sqrt: "sqrt", np.tan: "tan", np.tanh: "tanh", np.log1p: "log1p", np.expm1: "expm1",
    np.arcsin: "asin", np.arccos: "acos", np.arctan: "atan", np.arctan2: "atan2",
    np.sinh: "sinh", np.cosh: "cosh", np.arcsinh: "asinh", np.arccosh: "acosh",
    np.arctanh: "atanh", math.erf: "erf"}


# ====================================================================== one function
class FunctionCompiler:
    """Types and lowers one Python function into one LLVM function, statement by statement.

    ``locals`` maps a variable's name to its stack slot and type. A name assigned again with
    another type (``y = np.float32(y)`` after ``y`` was a float64) gets a new slot, as Numba
    gives it a new SSA version, but only outside loops and branches: there, a value of
    another type would have to merge with the old one, which Numba types by unification and
    we decline (``Unsupported``)."""

    def __init__(self, module: Any, function: ir.Function, namespace: dict,
                 return_type: Any = None, kernel: bool = False, outlined: bool = False):
        self.module, self.function, self.namespace = module, function, namespace
        self.kernel = kernel  # the loop nest of a kernel (not a helper)
        self.outlined = outlined  # a helper called, not pasted, by a small kernel
        self.entry = function.append_basic_block("entry")
        self.builder = ir.IRBuilder(function.append_basic_block("body"))
        self.locals: dict = {}  # name -> (slot, dtype, depth where it was made)
        self.depth = 0  # how many loops and branches we are in
        self.return_type = return_type  # None: the caller learns it (return_types)
        self.return_types: list = []

    # -- variables --------------------------------------------------------------
    def slot(self, type_: np.dtype) -> Any:
        """A stack slot, made in the entry block (where LLVM turns slots into registers)."""
        with self.builder.goto_block(self.entry):
            return self.builder.alloca(llvm_type(type_))

    def assign(self, name: str, value: Value) -> None:
        if isinstance(value.type, tuple):
            raise Unsupported("a tuple in a variable")
        known = self.locals.get(name)
        if known is None or (known[1] != value.type and self.depth == 0):
            known = self.locals[name] = (self.slot(value.type), value.type, self.depth)
        elif known[1] != value.type:
            raise Unsupported(f"{name} changes type inside a loop or branch")
        self.builder.store(value.ir, known[0])

    def load_name(self, name: str) -> Any:
        if name in self.locals:
            slot, type_, _ = self.locals[name]
            return Value(type_, self.builder.load(slot))
        if name in self.module.arrays:
            return self.module.arrays[name]
        if name in self.namespace:
            return self.global_value(self.namespace[name])
        if name in BUILTINS:
            return BUILTINS[name]
        raise Unsupported(f"unknown name {name}")

    def global_value(self, value: Any) -> Any:
        """A global as Numba freezes it: numbers become constants, tables constant arrays."""
        if isinstance(value, (bool, np.bool_)):
            return Value(B, ir.Constant(ir.IntType(1), int(value)))
        if isinstance(value, int):
            return self.constant(value, I64 if -2**63 <= value < 2**63 else U64)
        if isinstance(value, float):
            return self.constant(value, F64)
        if isinstance(value, np.generic) and value.dtype in SCALARS:
            return self.constant(value.item(), value.dtype)
        if isinstance(value, np.ndarray):
            return self.module.constant_array(value)
        return value  # a module, a helper Function, an Intrinsic, a NumPy function

    @staticmethod
    def constant(value: Any, type_: np.dtype) -> Value:
        if type_.kind == "f":
            return Value(type_, ir.Constant(llvm_type(type_), float(np.array(value, type_))))
        if type_ == B:
            return Value(B, ir.Constant(ir.IntType(1), int(bool(value))))
        return Value(type_, ir.Constant(llvm_type(type_), int(value) % 2 ** (8 * type_.itemsize)))

    # -- statements -------------------------------------------------------------
    def body(self, statements: list) -> None:
        for stmt in statements:
            if self.builder.block.is_terminated:  # after a return: nothing more runs here
                self.builder.position_at_end(self.function.append_basic_block("dead"))
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        kind = type(stmt)
        if kind is ast.Assign and len(stmt.targets) == 1:
            self.assign_to(stmt.targets[0], self.expr(stmt.value))
        elif kind is ast.AugAssign:
            target = stmt.target
            load = ast.Name(target.id, ast.Load()) if isinstance(target, ast.Name) else \
                ast.Subscript(target.value, target.slice, ast.Load())
            self.assign_to(target, self.binary(stmt.op, self.expr(load), self.expr(stmt.value)))
        elif kind is ast.For:
            self.for_loop(stmt)
        elif kind is ast.If:
            self.if_statement(stmt)
        elif kind is ast.Return:
            self.return_(stmt.value)
        elif kind is ast.Expr:
            if not (isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                self.expr(stmt.value)  # (a docstring is skipped)
        elif kind is not ast.Pass:
            raise Unsupported(f"statement {kind.__name__}")

    def assign_to(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            self.assign(target.id, value)
        elif isinstance(target, ast.Tuple):
            if not isinstance(value.type, tuple) or len(value.type) != len(target.elts):
                raise Unsupported("tuple unpacking")
            for element, item in zip(target.elts, self.items(value)):
                self.assign_to(element, item)
        elif isinstance(target, ast.Subscript):
            array = self.expr(target.value)
            if not isinstance(array, Array) or array.table is not None:
                raise Unsupported("assignment to a subscript that is not an array argument")
            value = self.convert(value, array.dtype)  # (Numba's setitem casts too)
            if array.dtype == B:
                value = Value(B, self.builder.zext(value.ir, ir.IntType(8)))
            self.builder.store(value.ir, self.element(array, target.slice))
        else:
            raise Unsupported(f"assignment to {type(target).__name__}")

    def items(self, value: Value) -> list:
        """The elements of a tuple value (a literal tuple, or a helper's returned struct)."""
        if isinstance(value.ir, tuple):
            return list(value.ir)
        return [Value(t, self.builder.extract_value(value.ir, k))
                for k, t in enumerate(value.type)]

    def for_loop(self, stmt: ast.For) -> None:
        """``for i in range(n)``: a counter from 0, tested before each pass."""
        call = stmt.iter
        if (stmt.orelse or not isinstance(stmt.target, ast.Name) or not isinstance(call, ast.Call)
                or not (isinstance(call.func, ast.Name) and call.func.id == "range")
                or len(call.args) != 1 or call.keywords):
            raise Unsupported("a loop other than for i in range(n)")
        stop = self.convert(self.integer(self.expr(call.args[0])), I64)
        counter = self.slot(I64)
        self.builder.store(ir.Constant(ir.IntType(64), 0), counter)
        test = self.function.append_basic_block("loop.test")
        body = self.function.append_basic_block("loop.body")
        done = self.function.append_basic_block("loop.done")
        self.builder.branch(test)
        self.builder.position_at_end(test)
        i = self.builder.load(counter)
        self.builder.cbranch(self.builder.icmp_signed("<", i, stop.ir), body, done)
        self.builder.position_at_end(body)
        self.depth += 1
        self.assign(stmt.target.id, Value(I64, i))
        self.body(stmt.body)
        self.depth -= 1
        if not self.builder.block.is_terminated:
            self.builder.store(self.builder.add(i, ir.Constant(ir.IntType(64), 1)), counter)
            self.builder.branch(test)
        self.builder.position_at_end(done)

    def if_statement(self, stmt: ast.If) -> None:
        condition = self.truth(self.expr(stmt.test))
        then = self.function.append_basic_block("if.then")
        otherwise = self.function.append_basic_block("if.else")
        after = self.function.append_basic_block("if.end")
        self.builder.cbranch(condition.ir, then, otherwise)
        self.depth += 1
        for block, statements in ((then, stmt.body), (otherwise, stmt.orelse)):
            self.builder.position_at_end(block)
            self.body(statements)
            if not self.builder.block.is_terminated:
                self.builder.branch(after)
        self.depth -= 1
        self.builder.position_at_end(after)

    def return_(self, node: ast.expr | None) -> None:
        if node is None:
            raise Unsupported("return without a value")
        value = self.expr(node)
        if isinstance(value.type, tuple):  # a tuple travels as an LLVM struct
            items = self.items(value)
            struct = ir.Constant(ir.LiteralStructType([llvm_type(v.type) for v in items]),
                                 ir.Undefined)
            for k, item in enumerate(items):
                struct = self.builder.insert_value(struct, item.ir, k)
            value = Value(tuple(v.type for v in items), struct)
        self.return_types.append(value.type)
        if self.return_type is None:  # (the first pass: only the types are wanted)
            self.builder.unreachable()
            return
        if value.type != self.return_type:  # (unify said how: convert)
            if isinstance(value.type, tuple) or isinstance(self.return_type, tuple):
                raise Unsupported("returns of different tuple types")
            value = self.convert(value, self.return_type)
        self.builder.ret(value.ir)

    # -- expressions ------------------------------------------------------------
    def expr(self, node: ast.expr) -> Any:
        kind = type(node)
        if kind is ast.Name:
            return self.load_name(node.id)
        if kind is ast.Constant:
            if isinstance(node.value, str):
                raise Unsupported("a string")
            return self.global_value(node.value)
        if kind is ast.BinOp:
            return self.binary(node.op, self.expr(node.left), self.expr(node.right))
        if kind is ast.UnaryOp:
            return self.unary(node.op, self.expr(node.operand))
        if kind is ast.Compare:
            return self.compare(node)
        if kind is ast.BoolOp:
            return self.bool_op(node)
        if kind is ast.IfExp:
            return self.if_expression(node)
        if kind is ast.Call:
            return self.call(node)
        if kind is ast.Attribute:
            base = self.expr(node.value)
            if (base is np or base is math) and hasattr(base, node.attr):
                return self.global_value(getattr(base, node.attr))
            raise Unsupported(f"attribute .{node.attr}")
        if kind is ast.Subscript:
            return self.subscript(node)
        if kind is ast.Tuple:
            items = [self.expr(e) for e in node.elts]
            return Value(tuple(v.type for v in items), tuple(items))
        raise Unsupported(f"expression {kind.__name__}")

    def scalar(self, value: Any) -> Value:
        if not isinstance(value, Value) or value.type not in SCALARS:
            raise Unsupported("a non-scalar operand")
        return value

    def integer(self, value: Any) -> Value:
        value = self.scalar(value)
        if value.type.kind not in "iu":
            raise Unsupported("a non-integer where an integer is needed")
        return value

    def convert(self, value: Value, to: np.dtype) -> Value:
        """``value`` as type ``to``, as Numba casts (C's conversions; out-of-range floats
        to integers are whatever the CPU gives, as in Numba)."""
        value = self.scalar(value)
        src, b, target = value.type, self.builder, llvm_type(to)
        if src == to:
            return value
        x = value.ir
        if to == B:
            if src.kind == "f":
                return Value(B, b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0)))
            return Value(B, b.icmp_unsigned("!=", x, ir.Constant(x.type, 0)))
        if src.kind == "f" and to.kind == "f":
            return Value(to, b.fpext(x, target) if to == F64 else b.fptrunc(x, target))
        if src.kind == "f":
            return Value(to, b.fptosi(x, target) if to.kind == "i" else b.fptoui(x, target))
        if to.kind == "f":
            return Value(to, b.sitofp(x, target) if src.kind == "i" else b.uitofp(x, target))
        bits_from, bits_to = x.type.width, target.width
        if bits_from == bits_to:
            return Value(to, x)
        if bits_from > bits_to:
            return Value(to, b.trunc(x, target))
        return Value(to, b.sext(x, target) if src.kind == "i" else b.zext(x, target))

    def binary(self, op: ast.operator, left: Any, right: Any) -> Value:
        a, c = self.scalar(left), self.scalar(right)
        b, kind = self.builder, type(op)
        if kind in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            t = arithmetic_type(a.type, c.type)
            if kind is ast.Div and t.kind != "f":
                t = F64  # (int / int is a float64)
            x, y = self.convert(a, t).ir, self.convert(c, t).ir
            if t.kind == "f":
                method = {ast.Add: b.fadd, ast.Sub: b.fsub, ast.Mult: b.fmul, ast.Div: b.fdiv}
            else:
                method = {ast.Add: b.add, ast.Sub: b.sub, ast.Mult: b.mul}
            return Value(t, method[kind](x, y))
        if kind in (ast.BitAnd, ast.BitOr, ast.BitXor):
            if a.type.kind == "f" or c.type.kind == "f":
                raise Unsupported("bitwise operation on floats")
            t = B if a.type == B and c.type == B else arithmetic_type(a.type, c.type)
            method = {ast.BitAnd: b.and_, ast.BitOr: b.or_, ast.BitXor: b.xor}[kind]
            return Value(t, method(self.convert(a, t).ir, self.convert(c, t).ir))
        if kind in (ast.LShift, ast.RShift):
            if a.type.kind == "f" or c.type.kind == "f":
                raise Unsupported("shift of floats")
            t = U64 if a.type.kind == "u" else I64  # the left operand's signedness decides
            x = self.convert(a, t).ir
            y = self.convert(c, U64 if c.type.kind == "u" else I64).ir
            if kind is ast.LShift:
                return Value(t, b.shl(x, y))
            return Value(t, b.lshr(x, y) if t == U64 else b.ashr(x, y))
        if kind in (ast.FloorDiv, ast.Mod) and a.type.kind in "biu" and c.type.kind in "biu":
            return self.floor_divide(a, c)[kind is ast.Mod]
        raise Unsupported(f"operator {kind.__name__} on {a.type}, {c.type}")

    def floor_divide(self, a: Value, c: Value) -> tuple[Value, Value]:
        """``a // c`` and ``a % c`` on integers, rounding down (the remainder has the
        divisor's sign), as Numba's: x // 0 and x % 0 are 0 (NumPy's error model), and so
        are those of the one overflowing quotient, INT_MIN // -1."""
        t = arithmetic_type(a.type, c.type)
        b = self.builder
        x, y = self.convert(a, t).ir, self.convert(c, t).ir
        zero, one = ir.Constant(x.type, 0), ir.Constant(x.type, 1)
        if t == U64:
            bad = b.icmp_unsigned("==", y, zero)
            safe = b.select(bad, one, y)
            quotient, remainder = b.udiv(x, safe), b.urem(x, safe)
            return (Value(t, b.select(bad, zero, quotient)),
                    Value(t, b.select(bad, zero, remainder)))
        bad = b.or_(b.icmp_signed("==", y, zero),
                    b.and_(b.icmp_signed("==", x, ir.Constant(x.type, -2**63)),
                           b.icmp_signed("==", y, ir.Constant(x.type, -1))))
        safe = b.select(bad, one, y)
        quotient, remainder = b.sdiv(x, safe), b.srem(x, safe)
        adjust = b.and_(b.icmp_signed("!=", remainder, zero),
                        b.icmp_signed("<", b.xor(remainder, safe), zero))
        quotient = b.select(adjust, b.sub(quotient, one), quotient)
        remainder = b.select(adjust, b.add(remainder, safe), remainder)
        return Value(t, b.select(bad, zero, quotient)), Value(t, b.select(bad, zero, remainder))

    def unary(self, op: ast.unaryop, operand: Any) -> Value:
        a, b = self.scalar(operand), self.builder
        if isinstance(op, ast.USub):
            if a.type.kind == "f":
                return Value(a.type, b.fneg(a.ir))
            if a.type == B:  # -True is -1
                return Value(I64, b.neg(self.convert(a, I64).ir))
            # Numba negates in the operand's own width, then widens: -int32(-2**31) stays
            # -2**31, -uint8(1) is 255.
            negated = Value(a.type, b.neg(a.ir))
            return self.convert(negated, U64 if a.type.kind == "u" else I64)
        if isinstance(op, ast.Not):
            return Value(B, b.not_(self.truth(a).ir))
        raise Unsupported(f"operator {type(op).__name__}")

    def truth(self, value: Any) -> Value:
        return self.convert(self.scalar(value), B)

    def compare(self, node: ast.Compare) -> Value:
        """``a < b``, and chains ``0 <= y < n`` (each link tested only if the last held)."""
        left = self.expr(node.left)
        if len(node.ops) == 1:
            return self.compare_two(node.ops[0], left, self.expr(node.comparators[0]))
        result_slot = self.slot(B)
        done = self.function.append_basic_block("compare.done")
        for k, (op, right_node) in enumerate(zip(node.ops, node.comparators)):
            right = self.expr(right_node)
            result = self.compare_two(op, left, right)
            self.builder.store(result.ir, result_slot)
            if k < len(node.ops) - 1:
                more = self.function.append_basic_block("compare.more")
                self.builder.cbranch(result.ir, more, done)
                self.builder.position_at_end(more)
            left = right
        self.builder.branch(done)
        self.builder.position_at_end(done)
        return Value(B, self.builder.load(result_slot))

    def compare_two(self, op: ast.cmpop, left: Any, right: Any) -> Value:
        a, c = self.scalar(left), self.scalar(right)
        symbol = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
                  ast.NotEq: "!="}.get(type(op))
        if symbol is None:
            raise Unsupported(f"comparison {type(op).__name__}")
        kinds = {a.type.kind, c.type.kind}
        if U64 in (a.type, c.type) and kinds & {"i", "b"}:  # (Numba's rules there: its own)
            raise Unsupported("comparing uint64 with a signed integer or a bool")
        t = arithmetic_type(a.type, c.type)
        x, y = self.convert(a, t).ir, self.convert(c, t).ir
        if t.kind == "f":  # != is true for NaN, the others false (IEEE, as in Numba)
            compare = self.builder.fcmp_unordered if symbol == "!=" else \
                self.builder.fcmp_ordered
            return Value(B, compare(symbol, x, y))
        compare = self.builder.icmp_unsigned if t == U64 else self.builder.icmp_signed
        return Value(B, compare(symbol, x, y))

    def bool_op(self, node: ast.BoolOp) -> Value:
        """``a and b`` / ``a or b`` on booleans, evaluating ``b`` only when needed."""
        is_and = isinstance(node.op, ast.And)
        result_slot = self.slot(B)
        done = self.function.append_basic_block("boolop.done")
        for k, operand in enumerate(node.values):
            value = self.scalar(self.expr(operand))
            if value.type != B:
                raise Unsupported("and/or on non-booleans")
            self.builder.store(value.ir, result_slot)
            if k < len(node.values) - 1:
                more = self.function.append_basic_block("boolop.more")
                self.builder.cbranch(value.ir, *((more, done) if is_and else (done, more)))
                self.builder.position_at_end(more)
        self.builder.branch(done)
        self.builder.position_at_end(done)
        return Value(B, self.builder.load(result_slot))

    def if_expression(self, node: ast.IfExp) -> Value:
        """``a if c else b``: two branches and a phi, as Numba writes it (LLVM turns them
        into a ``select`` where both arms are cheap and safe to compute)."""
        condition = self.truth(self.expr(node.test))
        then = self.function.append_basic_block("ifexp.then")
        otherwise = self.function.append_basic_block("ifexp.else")
        after = self.function.append_basic_block("ifexp.end")
        self.builder.cbranch(condition.ir, then, otherwise)
        arms = []
        for block, arm in ((then, node.body), (otherwise, node.orelse)):
            self.builder.position_at_end(block)
            arms.append((self.scalar(self.expr(arm)), self.builder.block))
        t = unify(arms[0][0].type, arms[1][0].type)
        phi_inputs = []
        for value, end in arms:  # each arm converted to the common type in its own branch
            self.builder.position_at_end(end)
            phi_inputs.append((self.convert(value, t).ir, self.builder.block))
            self.builder.branch(after)
        self.builder.position_at_end(after)
        phi = self.builder.phi(llvm_type(t))
        for value, end in phi_inputs:
            phi.add_incoming(value, end)
        return Value(t, phi)

    # -- calls ------------------------------------------------------------------
    def call(self, node: ast.Call) -> Any:
        if node.keywords:
            raise Unsupported("keyword arguments")
        callee = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        if isinstance(callee, type) and callee in CONVERSIONS:
            (x,) = args
            return self.convert(x, CONVERSIONS[callee])
        if isinstance(callee, Intrinsic):
            return self.intrinsic(callee.name, args)
        if isinstance(callee, Function):
            return self.module.call_helper(self, callee, [self.scalar(a) for a in args])
        if callee is abs:
            return self.absolute(args[0])
        if callee in (min, max) and len(args) == 2:
            return self.min_max(callee, *args)
        name = NUMPY_FUNCTIONS.get(callee)
        if name is not None:
            return self.numpy_function(name, args)
        raise Unsupported(f"a call of {getattr(callee, '__name__', callee)!r}")

    def numpy_function(self, name: str, args: list) -> Value:
        """NumPy's (and math's) functions on floats, as Numba lowers them: one LLVM
        intrinsic (``llvm.floor``), or a call of the C library (``tan``, ``tanf``)."""
        args = [self.scalar(a) for a in args]
        if any(a.type.kind != "f" for a in args):
            raise Unsupported(f"{name} of a non-float")
        t = args[0].type
        for a in args[1:]:
            t = unify(t, a.type)
        values = [self.convert(a, t).ir for a in args]
        if name.startswith("llvm."):
            function = self.module.intrinsic(name, t, len(values))
        else:
            function = self.module.c_function(name + ("f" if t == F32 else ""), t, len(values))
        return Value(t, self.builder.call(function, values))

    def absolute(self, value: Any) -> Value:
        a = self.scalar(value)
        if a.type.kind == "f":
            function = self.module.intrinsic("llvm.fabs", a.type, 1)
            return Value(a.type, self.builder.call(function, [a.ir]))
        if a.type.kind == "u":
            return a
        if a.type == B:
            raise Unsupported("abs of a bool")
        negative = self.builder.icmp_signed("<", a.ir, ir.Constant(a.ir.type, 0))
        return Value(a.type, self.builder.select(negative, self.builder.neg(a.ir), a.ir))

    def min_max(self, which: Any, first: Any, second: Any) -> Value:
        """Numba's ``max(a, b)``: ``b if b > a else a`` (a NaN first argument stays)."""
        a, c = self.scalar(first), self.scalar(second)
        t = unify(a.type, c.type)
        x, y = self.convert(a, t), self.convert(c, t)
        test = self.compare_two(ast.Gt() if which is max else ast.Lt(), y, x)
        return Value(t, self.builder.select(test.ir, y.ir, x.ir))

    def intrinsic(self, name: str, args: list) -> Value:
        """The functions of ``llvm.py``, which Numba compiles from LLVM IR written by hand."""
        b = self.builder
        if name in ("prefer_wide_vectors", "inline_into_callers"):
            attribute = ('"prefer-vector-width"="512"' if name == "prefer_wide_vectors"
                         else "noinline" if self.outlined else "alwaysinline")
            set.add(self.function.attributes, attribute)  # (see llvm.py)
            return Value(B, ir.Constant(ir.IntType(1), 0))
        if name == "fma":
            a = self.scalar(args[0])
            x, y, z = (self.convert(v, a.type).ir for v in args)
            return Value(a.type, b.call(self.module.intrinsic("llvm.fma", a.type, 3), [x, y, z]))
        if name == "scale_by_pow2":
            x, k = self.convert(args[0], F32).ir, self.convert(args[1], I32).ir
            return Value(F32, scale_by_pow2(b, x, k))
        casts = {"f32_bits": (F32, I32), "f32_from_bits": (I32, F32), "f64_bits": (F64, I64),
                 "f64_from_bits": (I64, F64)}
        if name in casts:
            src, to = casts[name]
            return Value(to, b.bitcast(self.convert(args[0], src).ir, llvm_type(to)))
        raise Unsupported(f"the intrinsic {name}")

    # -- arrays -----------------------------------------------------------------
    def subscript(self, node: ast.Subscript) -> Value:
        base = self.expr(node.value)
        if isinstance(base, Value) and isinstance(base.type, tuple):
            index = node.slice
            if not (isinstance(index, ast.Constant) and isinstance(index.value, int)):
                raise Unsupported("a tuple indexed by a variable")
            return self.items(base)[index.value]
        if not isinstance(base, Array):
            raise Unsupported("indexing something other than an array")
        value = self.builder.load(self.element(base, node.slice))
        if base.dtype == B:
            value = self.builder.icmp_unsigned("!=", value, ir.Constant(value.type, 0))
        return Value(base.dtype, value)

    def element(self, array: Array, index_node: ast.expr) -> Any:
        """The address of one element: its flat position from the indices and the strides
        (a negative index counts from the end, as in Python; no bounds check, as in Numba)."""
        nodes = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
        if len(nodes) != len(array.shape):
            raise Unsupported("an index that does not pick one element")
        b = self.builder
        flat = ir.Constant(ir.IntType(64), 0)
        for node, size, stride in zip(nodes, array.shape, array.strides):
            i = self.integer(self.expr(node))
            signed = i.type.kind == "i"
            i = self.convert(i, I64).ir
            if signed and not (isinstance(i, ir.Constant) and i.constant >= 0):
                negative = b.icmp_signed("<", i, ir.Constant(i.type, 0))
                i = b.select(negative, b.add(i, ir.Constant(i.type, size)), i)
            flat = b.add(flat, b.mul(i, ir.Constant(i.type, stride)))
        if array.table is not None:  # [n x T]*: its first element, then as for an argument
            pointer = b.gep(array.table, [ir.Constant(ir.IntType(64), 0)] * 2, inbounds=True)
        else:
            pointer = array.pointer
        return b.gep(pointer, [flat], inbounds=True)
