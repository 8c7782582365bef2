"""Kernels compiled without Numba: the generated Python loops turned into LLVM IR by hand.

Numba's start-up costs a new process more than half a second (its import, then the first
initialization of its type system) before it compiles anything, and XLA compiles a small
program in less. But a kernel written by ``codegen.py`` is a tiny corner of Python:
``for`` loops over constant ranges, array reads and writes at computed indices, arithmetic
on scalars whose types follow from the arrays' dtypes, ``a if c else b``, and calls to the
helpers of ``math.py`` and ``scalar.py``, themselves straight-line arithmetic. For that
corner, what Numba does fits in this file:

1. **parse**: the kernel's source (the same text Numba gets) becomes a Python syntax tree
   (``ast``); the helpers' trees come from their own source files, their globals (tables,
   constants) from running those files with Numba's decorators replaced by nothing;
2. **type and lower**, in one walk over the tree (``FunctionCompiler``): each expression gets
   a NumPy dtype by Numba's rules (``int32 + int32`` is int64, ``float32 * int64`` is
   float64: ``arithmetic_type``, checked against Numba by tests/test_direct_kernels.py) and
   becomes LLVM instructions through ``llvmlite.ir``. Variables live in stack slots
   (``alloca``), as in Numba; LLVM's first passes turn them into registers;
3. **optimize and emit**: ``llvmlite.binding`` parses the IR, runs LLVM's O3 pipeline with the
   loop vectorizer for the host CPU (the settings Numba uses), inlines the helpers (marked
   ``alwaysinline`` by their ``inline_into_callers()``), and writes an object file;
4. **load**: that object is what ``aot.py`` writes after a Numba compile, so ``aot.py``'s
   loader runs it, and the file goes to the same cache folder for the next process.

Each kernel gets a C entry point taking the NumPy arrays themselves (their data pointers sit
at a fixed offset in the array object, ``aot.data_offset``), which calls the loop nest as a
function whose array pointers are marked ``noalias`` (the driver allocates every output
afresh, so no two of them overlap, nor overlap an input): LLVM may then vectorize without
checking for overlaps at run time.

Anything outside the subset (a ``prange`` loop, a compiled while loop, a NumPy function not
listed here, an operation whose typing we do not reproduce) raises ``Unsupported``, and the
module goes to Numba as before: correctness never depends on how much this file covers.
``EDUJAX_DIRECT=0`` turns it off.
"""
from __future__ import annotations

import ast
import math
import os
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np
from llvmlite import ir

from edujax.backends.numba_cpu import aot
from edujax.backends.numba_cpu.cache import logger
from edujax.backends.numba_cpu.kernels import DECORATOR

# A kernel summing floats into a scalar (a row sum) lets LLVM reorder the additions, so that
# the loop runs on vectors of partial sums (codegen.py, ``_fastmath``).
REASSOCIATING = DECORATOR[:-1] + ', fastmath={"reassoc"})'

HERE = Path(__file__).parent
HELPER_FILES = {"edujax.backends.numba_cpu.math": "math.py",
                "edujax.backends.numba_cpu.scalar": "scalar.py",
                "edujax.backends.numba_cpu.threefry": "threefry.py"}
INTRINSICS_MODULE = "edujax.backends.numba_cpu.llvm"
# Kernels whose arrays all have fewer elements call the math helpers rather than paste them
# into their loop (see ModuleCompiler.compile_kernel).
INLINE_MIN_ELEMENTS = 1024


class Unsupported(Exception):
    """The kernel uses something this compiler does not cover: Numba compiles it."""


def enabled() -> bool:
    """``EDUJAX_DIRECT`` (default on); ``0``/``false``/``no``/``off`` turn it off."""
    return os.environ.get("EDUJAX_DIRECT", "1").strip().lower() not in ("0", "false", "no", "off")


# ====================================================================== types (Numba's rules)
B, I8, I16, I32, I64 = (np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64))
U8, U16, U32, U64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
SCALARS = {B, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64}
# The NumPy scalar types generated code calls to convert (``np.float32(x)``).
BUILTINS = {"abs": abs, "min": min, "max": max}
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


# ====================================================================== the helpers' source
_helpers_lock = threading.Lock()
_helper_modules: dict = {}  # module name -> {function name: Function or global value}


def _no_numba(*args: Any, **kwargs: Any) -> Callable:
    """Stands for ``njit(...)``: the decorator leaves the function as it is."""
    return lambda function: function


def helper_module(module: str) -> dict:
    """The names of a helper module, read from its source without importing Numba.

    The file is run with its imports of Numba and of ``llvm.py`` taken out (``njit``
    becomes a decorator that does nothing, ``fma`` and the bit casts become markers for the
    compiler), so its globals, the tables of ``math.py`` say, are computed as usual; each
    function is kept with its syntax tree."""
    with _helpers_lock:
        names = _helper_modules.get(module)
        if names is None:
            names = _helper_modules[module] = _read_helpers(HERE / HELPER_FILES[module])
        return names


def _read_helpers(path: Path) -> dict:
    tree = ast.parse(path.read_text(), str(path))
    namespace: dict = {"njit": _no_numba, "__name__": "edujax_direct_helpers"}
    kept = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "numba":
            continue
        if isinstance(stmt, ast.ImportFrom) and stmt.module == INTRINSICS_MODULE:
            namespace.update({a.asname or a.name: Intrinsic(a.name) for a in stmt.names})
            continue
        kept.append(stmt)
    tree.body = kept
    exec(compile(tree, str(path), "exec"), namespace)
    for stmt in kept:
        if isinstance(stmt, ast.FunctionDef):
            namespace[stmt.name] = Function(stmt.name, stmt, namespace)
    return namespace


def module_namespace(tree: ast.Module) -> dict:
    """The globals of a generated module: ``np``, ``math`` and the helpers it imports."""
    namespace: dict = {"np": np, "math": math}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            if stmt.module == INTRINSICS_MODULE:
                namespace.update({a.asname or a.name: Intrinsic(a.name) for a in stmt.names})
            elif stmt.module in HELPER_FILES:
                helpers = helper_module(stmt.module)
                namespace.update({a.asname or a.name: helpers[a.name] for a in stmt.names})
    return namespace


# ====================================================================== one function
class FunctionCompiler:
    """Types and lowers one Python function into one LLVM function, statement by statement.

    ``locals`` maps a variable's name to its stack slot and type. A name assigned again with
    another type (``y = np.float32(y)`` after ``y`` was a float64) gets a new slot, as Numba
    gives it a new SSA version, but only outside loops and branches: there, a value of
    another type would have to merge with the old one, which Numba types by unification and
    we decline (``Unsupported``)."""

    def __init__(self, module: ModuleCompiler, function: ir.Function, namespace: dict,
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
        self.return_slot: Any = None
        self.exit: Any = None

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
            return self.global_value(node.value) if not isinstance(node.value, str) else \
                self._unsupported("a string")
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
            if base is np or base is math:
                return self.global_value(getattr(base, node.attr))
            raise Unsupported(f"attribute .{node.attr}")
        if kind is ast.Subscript:
            return self.subscript(node)
        if kind is ast.Tuple:
            items = [self.expr(e) for e in node.elts]
            return Value(tuple(v.type for v in items), tuple(items))
        raise Unsupported(f"expression {kind.__name__}")

    @staticmethod
    def _unsupported(what: str) -> Any:
        raise Unsupported(what)

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
            t = U64 if a.type.kind == "u" else I64
            return Value(t, b.neg(self.convert(a, t).ir))
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
        if kinds == {"i", "u"} and U64 in (a.type, c.type):
            raise Unsupported("comparing uint64 with a signed integer")
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
        name = self.NUMPY_FUNCTIONS.get(callee)
        if name is not None:
            return self.numpy_function(name, args)
        raise Unsupported(f"a call of {getattr(callee, '__name__', callee)!r}")

    NUMPY_FUNCTIONS = {np.floor: "floor", np.ceil: "ceil", np.copysign: "copysign",
                       math.copysign: "copysign", np.rint: "rint", np.sqrt: "sqrt"}

    def numpy_function(self, name: str, args: list) -> Value:
        """NumPy's (and math's) functions Numba turns into one LLVM intrinsic each."""
        args = [self.scalar(a) for a in args]
        if any(a.type.kind != "f" for a in args):
            raise Unsupported(f"np.{name} of a non-float")
        t = args[0].type
        for a in args[1:]:
            t = unify(t, a.type)
        values = [self.convert(a, t).ir for a in args]
        intrinsic = {"rint": "llvm.rint", "floor": "llvm.floor", "ceil": "llvm.ceil",
                     "copysign": "llvm.copysign", "sqrt": "llvm.sqrt"}[name]
        return Value(t, self.builder.call(self.module.intrinsic(intrinsic, t, len(values)),
                                          values))

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


# ====================================================================== one module
class ModuleCompiler:
    """The LLVM module of one generated module: its kernels, and the helpers they call,
    each compiled once per list of argument types (as Numba compiles one overload each)."""

    def __init__(self, name: str):
        self.module = ir.Module(name)
        self.arrays: dict = {}  # the arrays of the kernel being compiled
        self.helpers: dict = {}  # (name, argument types) -> (ir.Function, return type)
        self.constants: dict = {}  # id of a global table -> Array
        self.small_kernel = False  # (see compile_kernel)

    def intrinsic(self, name: str, t: np.dtype, nargs: int) -> ir.Function:
        """LLVM's own function ``name`` (``llvm.fma``) on floats of type ``t``."""
        function_type = ir.FunctionType(llvm_type(t), [llvm_type(t)] * nargs)
        return self.module.declare_intrinsic(name, [llvm_type(t)], function_type)

    def constant_array(self, value: np.ndarray) -> Array:
        """A global table (``math.TWO_OVER_PI_TABLE``) as a constant array in the module."""
        known = self.constants.get(id(value))
        if known is None:
            if value.dtype not in SCALARS or value.dtype == B:
                raise Unsupported(f"a global array of {value.dtype}")
            element = memory_type(value.dtype)
            flat = np.ascontiguousarray(value).ravel()
            data_type = ir.ArrayType(element, flat.size)
            variable = ir.GlobalVariable(self.module, data_type,
                                         f"table_{len(self.constants)}")
            variable.global_constant, variable.linkage = True, "internal"
            items = flat.tolist()
            variable.initializer = ir.Constant(data_type, [ir.Constant(element, v)
                                                           for v in items])
            known = Array(value.dtype, value.shape, table=variable)
            self.constants[id(value)] = (known, value)  # (keeps the array alive: its id)
            return known
        return known[0]

    def call_helper(self, caller: FunctionCompiler, helper: Function, args: list) -> Value:
        types = tuple(a.type for a in args)
        if len(types) != len(helper.tree.args.args):
            raise Unsupported(f"{helper.name} called with {len(types)} arguments")
        outlined = caller.kernel and self.small_kernel
        key = (helper.name, id(helper.namespace), types, outlined)
        compiled = self.helpers.get(key)
        if compiled is None:
            compiled = self.helpers[key] = self.compile_helper(helper, types, outlined)
        function, return_type = compiled
        return Value(return_type, caller.builder.call(function, [a.ir for a in args]))

    def compile_helper(self, helper: Function, types: tuple, outlined: bool) -> tuple:
        """Two passes: the first (into a scratch function) learns the return type, as
        Numba's type inference does before it writes any code; the second writes it."""
        arguments = [llvm_type(t) for t in types]
        scratch = ir.Function(ir.Module("scratch"), ir.FunctionType(ir.VoidType(), arguments),
                              "scratch")
        probe = FunctionCompiler(self, scratch, helper.namespace)
        self._run(probe, helper, types)
        if not probe.return_types:
            raise Unsupported(f"{helper.name} returns nothing")
        return_type = probe.return_types[0]
        for other in probe.return_types[1:]:  # (Numba unifies them: int32 and int64, int64)
            if isinstance(other, tuple) or isinstance(return_type, tuple):
                if other != return_type:
                    raise Unsupported(f"{helper.name} returns tuples of different types")
            else:
                return_type = unify(return_type, other)
        if isinstance(return_type, tuple):
            result = ir.LiteralStructType([llvm_type(t) for t in return_type])
        else:
            result = llvm_type(return_type)
        name = f"{helper.name}__{'_'.join(_type_name(t) for t in types)}{'__call' * outlined}"
        function = ir.Function(self.module, ir.FunctionType(result, arguments), name)
        function.linkage = "internal"
        compiler = FunctionCompiler(self, function, helper.namespace, return_type,
                                    outlined=outlined)
        self._run(compiler, helper, types)
        return function, return_type

    def _run(self, compiler: FunctionCompiler, helper: Function, types: tuple) -> None:
        tree = helper.tree
        if tree.args.vararg or tree.args.kwarg or tree.args.kwonlyargs or tree.args.defaults:
            raise Unsupported(f"{helper.name}'s parameters")
        saved, self.arrays = self.arrays, {}
        try:
            for param, t, value in zip(tree.args.args, types, compiler.function.args):
                compiler.assign(param.arg, Value(t, value))
            compiler.body(tree.body)
            if not compiler.builder.block.is_terminated:
                if compiler.return_type is not None:
                    raise Unsupported(f"{helper.name} can end without a return")
                compiler.builder.unreachable()
            compiler.builder.position_at_end(compiler.entry)
            compiler.builder.branch(compiler.function.blocks[1])
        finally:
            self.arrays = saved

    def compile_kernel(self, tree: ast.FunctionDef, namespace: dict, symbol: str,
                       avals: list, offset: int, reassociate: bool = False) -> None:
        """A kernel as two functions: the loop nest, on the arrays' data pointers (marked
        ``noalias``), and its C entry point ``int32 symbol(PyObject *a0, ...)``, which reads
        each array's data pointer and calls it."""
        params = [p.arg for p in tree.args.args]
        if len(params) != len(avals) or tree.args.vararg or tree.args.defaults:
            raise Unsupported("the kernel's parameters do not match its signature")
        dtypes = [np.dtype(a.dtype) for a in avals]
        if any(d not in SCALARS for d in dtypes):
            raise Unsupported("an array of a dtype without arithmetic here")
        pointers = [memory_type(d).as_pointer() for d in dtypes]
        # A helper pasted into a loop lets LLVM vectorize it, but each paste costs compile
        # time (a sin_f32 is a hundred instructions to optimize). A loop over a few elements
        # gains nothing from vectors: it calls the helpers instead.
        self.small_kernel = max(math.prod(a.shape) for a in avals) < INLINE_MIN_ELEMENTS
        loop_nest = ir.Function(self.module, ir.FunctionType(ir.VoidType(), pointers),
                                symbol + "_loops")
        loop_nest.linkage = "internal"
        for argument in loop_nest.args:
            argument.add_attribute("noalias")
        self.arrays = {name: Array(d, a.shape, arg)
                       for name, d, a, arg in zip(params, dtypes, avals, loop_nest.args)}
        compiler = FunctionCompiler(self, loop_nest, namespace, return_type=ir.VoidType(),
                                    kernel=True)
        compiler.body(tree.body)
        if compiler.return_types:
            raise Unsupported("a kernel that returns a value")
        if not compiler.builder.block.is_terminated:
            compiler.builder.ret_void()
        compiler.builder.position_at_end(compiler.entry)
        compiler.builder.branch(loop_nest.blocks[1])
        self.arrays = {}
        if reassociate:
            _reassociate(loop_nest)
        # The entry point: the NumPy array objects in, their data pointers out.
        object_pointer = ir.IntType(8).as_pointer()
        entry = ir.Function(self.module, ir.FunctionType(ir.IntType(32), [object_pointer]
                                                         * len(avals)), symbol)
        b = ir.IRBuilder(entry.append_basic_block())
        data = []
        for argument, pointer_type in zip(entry.args, pointers):
            field = b.gep(argument, [ir.Constant(ir.IntType(64), offset)])
            data.append(b.load(b.bitcast(field, pointer_type.as_pointer())))
        b.call(loop_nest, data)
        b.ret(ir.Constant(ir.IntType(32), 0))


def _reassociate(function: ir.Function) -> None:
    """Numba's ``fastmath={"reassoc"}``: every float operation of the kernel's own function
    (not of the helpers it calls) may be reordered, as Numba's ``fastmathpass`` marks them."""
    for block in function.blocks:
        for instruction in block.instructions:
            if instruction.opname in ("fadd", "fsub", "fmul", "fdiv", "frem", "fcmp"):
                if not instruction.flags:
                    instruction.flags.append("reassoc")
            elif isinstance(instruction, ir.CallInstr) and \
                    instruction.type in (ir.FloatType(), ir.DoubleType()):
                instruction.fastmath.add("reassoc")


def _type_name(t: Any) -> str:
    return "T" + "_".join(map(_type_name, t)) if isinstance(t, tuple) else t.name


# ====================================================================== LLVM: optimize, emit
_llvm_lock = threading.Lock()
_target_machine: Any = None


def target_machine() -> Any:
    """The host CPU with all its features (AVX-512 where there is), at O3: Numba's JIT
    settings, so that the machine code is what Numba would make of the same IR."""
    global _target_machine
    with _llvm_lock:
        if _target_machine is None:
            import llvmlite.binding as llvm
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            target = llvm.Target.from_triple(llvm.get_process_triple())
            _target_machine = target.create_target_machine(
                cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                opt=3, reloc="static", codemodel="jitdefault", jit=True)
        return _target_machine


def optimize_and_emit(module: ir.Module) -> bytes:
    """LLVM's O3 pipeline with the loop vectorizer (as Numba runs it), then machine code."""
    import llvmlite.binding as llvm
    machine = target_machine()
    module.triple = llvm.get_process_triple()
    module.data_layout = str(machine.target_data)
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    options = llvm.create_pipeline_tuning_options(3)
    options.loop_vectorization, options.slp_vectorization = True, False
    passes = llvm.create_pass_builder(machine, options)
    passes.getModulePassManager().run(parsed, passes)
    return machine.emit_object(parsed)


# ====================================================================== the generated module
def compile_module(module: Any) -> tuple[bytes, dict]:
    """The object file of ``module``'s kernels and the manifest's table of them, or
    ``Unsupported``."""
    reason = aot.why_not_exportable(module)
    if reason:
        raise Unsupported(reason)
    tree = ast.parse(module.source)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    namespace = module_namespace(tree)
    prefix, offset = aot.symbol_prefix(module.source), aot.data_offset()
    compiler = ModuleCompiler("edujax_direct")
    entries = {}
    for kernel in module.kernels:
        function = functions[kernel.name]
        decorators = [ast.unparse(d).replace("'", '"') for d in function.decorator_list]
        if decorators not in ([DECORATOR[1:]], [REASSOCIATING[1:]]):  # (not parallel=True:
            raise Unsupported(f"{kernel.name} is compiled with {decorators}")  # prange)
        symbol = prefix + kernel.name
        compiler.compile_kernel(function, namespace, symbol, [*kernel.inputs, *kernel.outputs],
                                offset, reassociate=decorators == [REASSOCIATING[1:]])
        entries[kernel.name] = {"symbol": symbol,
                                "nargs": len(kernel.inputs) + len(kernel.outputs)}
    data = optimize_and_emit(compiler.module) if entries else b""
    return data, entries


def load(module: Any) -> dict[str, Callable] | None:
    """Compile ``module``'s kernels here, write them to the cache folder as ``aot.py``'s
    object file (for the next process), and load them with ``aot.py``'s loader; None when
    a kernel is ``Unsupported`` (or anything fails): Numba compiles the module."""
    if not enabled():
        return None
    try:
        data, entries = compile_module(module)
    except Unsupported as e:
        logger.debug("edujax: compiling with Numba (direct: %s)", e)
        return None
    except Exception as e:  # noqa: BLE001 - a bug here must not break a program
        logger.warning("edujax: the direct compiler failed (%s: %s); compiling with Numba",
                       type(e).__name__, e)
        return None
    return aot.load_compiled(module, data, entries, "direct")

