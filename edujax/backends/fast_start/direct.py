"""Kernels compiled without Numba: the generated Python loops turned into LLVM IR by hand.

Numba's start-up costs a new process more than half a second (its import, then the first
initialization of its type system) before it compiles anything, and XLA compiles a small
program in less. But a kernel written by ``codegen.py`` is a tiny corner of Python:
``for`` loops over constant ranges, array reads and writes at computed indices, arithmetic
on scalars whose types follow from the arrays' dtypes, ``a if c else b``, and calls to the
helpers of ``math.py`` and ``scalar.py``, themselves straight-line arithmetic. For that
corner, what Numba does fits in two files, this one and ``translate.py``:

1. **parse**: the kernel's source (the same text Numba gets) becomes a Python syntax tree
   (``ast``); the helpers' trees come from their own source files, their globals (tables,
   constants) from running those files with Numba's decorators replaced by nothing;
2. **type and lower**, in one walk over the tree (``translate.FunctionCompiler``): each
   expression gets a NumPy dtype by Numba's rules (``int32 + int32`` is int64, ``float32 *
   int64`` is float64, checked against Numba by tests/test_direct_kernels.py) and becomes
   LLVM instructions through ``llvmlite.ir``; this file builds the module around it: each
   helper compiled once per argument types, the constant tables, the kernels' entries;
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

from edujax.backends.fast_start import aot
from edujax.backends.fast_start.cache import logger
from edujax.backends.fast_start.translate import (B, SCALARS, Array, Function, FunctionCompiler,
                                                 Intrinsic, Unsupported, Value, llvm_type,
                                                 memory_type, unify)

# The decorator the code generator writes on a serial kernel (kernels.DECORATOR): a kernel
# with any other (``parallel=True``: prange) is left to Numba. Spelled out rather than
# imported, so that the fast-start machinery sits below the backend that uses it
# (test_direct_kernels checks that the two agree).
DECORATOR = '@njit(cache=True, error_model="numpy")'
# A kernel summing floats into a scalar (a row sum) lets LLVM reorder the additions, so that
# the loop runs on vectors of partial sums (codegen.py, ``_fastmath``).
REASSOCIATING = DECORATOR[:-1] + ', fastmath={"reassoc"})'

HERE = Path(__file__).parents[1] / "numba_cpu"  # (where the helper files are)
HELPER_FILES = {"edujax.backends.numba_cpu.math": "math.py",
                "edujax.backends.numba_cpu.scalar": "scalar.py",
                "edujax.backends.numba_cpu.threefry": "threefry.py"}
INTRINSICS_MODULE = "edujax.backends.numba_cpu.llvm"
# Kernels whose arrays all have fewer elements call the math helpers rather than paste them
# into their loop (see ModuleCompiler.compile_kernel).
INLINE_MIN_ELEMENTS = 1024


def enabled() -> bool:
    """``EDUJAX_DIRECT`` (default on); ``0``/``false``/``no``/``off`` turn it off."""
    return os.environ.get("EDUJAX_DIRECT", "1").strip().lower() not in ("0", "false", "no", "off")


# ====================================================================== the helpers' source
_helpers_lock = threading.Lock()
_helper_modules: dict = {}  # module name -> {function name: Function or global value}


def helper_module(module: str) -> dict:
    """The names of a helper module, read from its source without importing Numba.

    Its ``@jit_helper`` functions are kept as syntax trees (``Function``), to be compiled
    here; the rest of the file (constants, the tables of ``math.py`` and the plain Python
    functions that compute them) runs as usual, with the imports of Numba and of
    ``llvm.py`` taken out: ``fma`` and the bit casts become markers for the compiler."""
    with _helpers_lock:
        names = _helper_modules.get(module)
        if names is None:
            names = _helper_modules[module] = _read_helpers(HERE / HELPER_FILES[module])
        return names


def _read_helpers(path: Path) -> dict:
    tree = ast.parse(path.read_text(), str(path))
    namespace: dict = {"__name__": "edujax_direct_helpers"}
    kept, helpers = [], []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == INTRINSICS_MODULE:
            namespace.update({a.asname or a.name: Intrinsic(a.name) for a in stmt.names})
        elif isinstance(stmt, ast.FunctionDef) and stmt.decorator_list:
            helpers.append(stmt)  # (compiled by us, never run by Python)
        elif not (isinstance(stmt, ast.ImportFrom) and stmt.module == "numba") and not (
                isinstance(stmt, ast.Assign) and "njit" in ast.unparse(stmt.value)):
            kept.append(stmt)
    tree.body = kept
    exec(compile(tree, str(path), "exec"), namespace)
    namespace.update({f.name: Function(f.name, f, namespace) for f in helpers})
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


# ====================================================================== one module
class ModuleCompiler:
    """The LLVM module of one generated module: its kernels, and the helpers they call,
    each compiled once per list of argument types (as Numba compiles one overload each)."""

    def __init__(self, name: str):
        self.module = ir.Module(name)
        self.arrays: dict = {}  # the arrays of the kernel being compiled
        self.helpers: dict = {}  # (name, module, argument types, called?) -> (function, type)
        self.constants: dict = {}  # id of a global table -> Array
        self.small_kernel = False  # (see compile_kernel)

    def intrinsic(self, name: str, t: np.dtype, nargs: int) -> ir.Function:
        """LLVM's own function ``name`` (``llvm.fma``) on floats of type ``t``."""
        function_type = ir.FunctionType(llvm_type(t), [llvm_type(t)] * nargs)
        return self.module.declare_intrinsic(name, [llvm_type(t)], function_type)

    def c_function(self, name: str, t: np.dtype, nargs: int) -> ir.Function:
        """A function of the C library (``tanf``), declared once: the loader resolves it
        in the process (``aot.ALLOWED``)."""
        known = self.module.globals.get(name)
        if known is None:
            known = ir.Function(self.module, ir.FunctionType(llvm_type(t), [llvm_type(t)]
                                                             * nargs), name)
        return known

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
_llvm_lock = threading.RLock()
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


def optimize(module: ir.Module) -> Any:
    """LLVM's O3 pipeline with the loop vectorizer and without SLP, as Numba runs it: the
    module parsed by LLVM and optimized (an ``llvmlite.binding.ModuleRef``)."""
    import llvmlite.binding as llvm
    machine = target_machine()
    module.triple = llvm.get_process_triple()
    module.data_layout = str(machine.target_data)
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    options = llvm.create_pipeline_tuning_options(3)
    options.loop_vectorization, options.slp_vectorization = True, False
    with _llvm_lock:  # (one target machine for the process: one user at a time)
        passes = llvm.create_pass_builder(machine, options)
        passes.getModulePassManager().run(parsed, passes)
    return parsed


def optimize_and_emit(module: ir.Module) -> bytes:
    """The object file (ELF) of ``module``, optimized."""
    parsed, machine = optimize(module), target_machine()
    with _llvm_lock:
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

