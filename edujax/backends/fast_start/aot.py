"""Ahead-of-time kernels: a module's machine code kept as an object file, run without Numba.

Numba's own disk cache (``cache=True``) keeps the machine code of every kernel, but only
Numba can load it, and Numba's start-up costs a new process more than half a second: its
import, then the first initialization of its type system, before the first cached kernel
can run (docs/performance.md, "Compile time"). A jitted function that was compiled
yesterday should not pay that today. So, once a module's kernels are compiled, this file
writes their machine code out once more, as a plain object file (ELF, what a C compiler
writes), and a later process loads that with LLVM alone, the way a C program's loader would:

* **export** (``export``, in the process that compiled the kernels, on the background
  thread, after the first call): each kernel gets a C entry point, a few lines of LLVM IR
  (``_write_entry``) that take the NumPy arrays, read their data pointers and call the
  compiled kernel with Numba's calling convention. They are linked with the kernels' own
  LLVM modules, code generation writes the object file, and a small manifest (the entry
  points, the CPU it was compiled for, the object's hash, the symbols it needs from the
  process) goes beside the generated module in ``EDUJAX_CACHE_DIR``. Only a module that
  needs nothing from Numba's runtime is exported: its object may call libm, libc and LLVM
  intrinsics, nothing else (``ALLOWED``). That is why kernels allocate nothing
  (``codegen.py``: the driver allocates, kernels fill). Parallel kernels (``prange`` calls
  Numba's thread pool) and compiled while/scan/cond loops (they allocate, and watch
  Ctrl-C) stay with Numba.
* **load** (``load``, any later process): ``llvmlite.binding`` (LLVM without Numba, 0.04 s
  to start) puts the object into an MCJIT execution engine, which resolves its few symbols
  and hands back each entry point's address; ``ctypes`` calls it with the arrays' data
  pointers. The driver ``run`` is plain Python and runs unchanged, its kernel names bound
  to those calls instead of Numba's dispatchers. ``import numba`` never happens.

Nothing here may break a program. Any failure (a missing or damaged file, another CPU, a
symbol the process lacks, an LLVM error) means ``load`` returns None, with one line on the
``edujax.numba`` logger, and the program takes the Numba path as before. An object file for
another CPU (an image built on one machine and run on another) is expected, not an error: it
is said at the ``INFO`` level (the edujax kernel writes that to the server's log, for the
teacher; a student sees nothing), and the kernels compiled instead replace it where the
folder may be written, or go to the user's own cache folder where not (``cache.py``). MCJIT
aborts the process on a symbol it cannot resolve, so every symbol the object needs is looked
up *before* the object is handed over; the object's hash is checked before LLVM reads it.

NB: XLA does the same (an AOT-compiled executable is an object file with a C entry point).
We keep Numba as the compiler and only change who loads its output.
"""
from __future__ import annotations

import atexit
import ctypes
import hashlib
import json
import math
import os
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from edujax.backends.fast_start.cache import (cache_dir, create_atomically, logger,
                                              shared_cache_dir)
from edujax.backends.fast_start.tiering import submit

FORMAT = 1  # bump when the files written here would mean something else

# The symbols an exported object may take from the process: C's memory functions and libm
# (LLVM calls them for loops it turns into memset/memcpy, and for the math it does not
# inline). Anything else (Numba's runtime, the Python C API) keeps a module on Numba.
ALLOWED = {"memset", "memcpy", "memmove", "bzero", "__bzero", "__memset_chk", "__memcpy_chk",
           *(f"{name}{suffix}" for suffix in ("", "f") for name in (
               "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
               "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10",
               "log1p", "pow", "sqrt", "cbrt", "hypot", "fmod", "remainder", "floor", "ceil",
               "trunc", "round", "rint", "nearbyint", "fabs", "copysign", "fmin", "fmax",
               "erf", "erfc", "lgamma", "tgamma", "ldexp", "frexp", "nextafter",
               "sincos"))}  # (LLVM turns sin(x) and cos(x) of one x into one sincos(x))


def data_offset() -> int:
    """Where a NumPy array object keeps its data pointer: right after Python's object
    header (``PyArrayObject_fields.data``), 16 bytes in on a usual 64-bit CPython. Found
    by looking, rather than assumed, and recorded in the manifest.

    The entry points read it there themselves: asking in Python (``a.ctypes.data``) costs
    about 3 microseconds per array, more than many small kernels take."""
    import numpy as np
    probe = np.empty(3)
    for offset in range(8, 64, 8):
        if ctypes.c_void_p.from_address(id(probe) + offset).value == probe.ctypes.data:
            return offset
    raise RuntimeError("cannot find the data pointer in a NumPy array object")


# ====================================================================== where the files are
def paths(source: str, directory: Path | None = None) -> tuple[Path, Path]:
    """The object file and the manifest of the module whose text is ``source``.

    Named by the text alone (``cache.module_name`` also hashes Numba's version, which would
    mean importing Numba): the manifest records the CPU the code is for."""
    directory = directory or cache_dir(create=False)
    name = "edujax_aot_" + hashlib.sha256(source.encode()).hexdigest()[:24]
    return directory / (name + ".o"), directory / (name + ".json")


def find(source: str) -> tuple[Path, Path]:
    """``paths(source)``, or, where only the shared read-only cache folder has the module's
    manifest, the paths there (``cache.shared_cache_dir``)."""
    obj_path, manifest_path = paths(source)
    shared = shared_cache_dir()
    if shared is not None and not manifest_path.exists():
        shared_paths = paths(source, shared)
        if shared_paths[1].exists():
            return shared_paths
    return obj_path, manifest_path


def symbol_prefix(source: str) -> str:
    """Entry points are named after their module, so that many can share one engine."""
    return "edujax_" + hashlib.sha256(source.encode()).hexdigest()[:16] + "_"


# ====================================================================== export (with Numba)
def why_not_exportable(module: Any) -> str | None:
    """None if ``module``'s kernels may be exported, else why not (before compiling anything)."""
    if sys.byteorder != "little" or not sys.platform.startswith("linux"):
        return "object files are only loaded on little-endian Linux (ELF) for now"
    for kernel in module.kernels:
        if not kernel.outputs:
            return f"{kernel.name} is a compiled loop (it allocates its results)"
    if "parallel=True" in module.source:
        return "a kernel runs its loop on Numba's thread pool (prange)"
    return None


def export(module: Any, loaded: Any) -> str:
    """Write the object file and manifest of ``module`` (whose Python module, with every
    kernel compiled, is ``loaded``); return what happened, in a few words.

    A module that turns out to need more than ``ALLOWED`` gets a manifest that says so
    (``"refused"``), so that later processes do not try again."""
    reason = why_not_exportable(module)
    if reason:
        return f"not exported: {reason}"
    obj_path, manifest_path = paths(module.source)
    if manifest_path.exists() and manifest_path not in _foreign:
        return "already exported"
    if not module.kernels:  # a driver of BLAS calls, views and reference rules only
        manifest = {"format": FORMAT, "kernels": {}}
        create_atomically(manifest_path, json.dumps(manifest, indent=1).encode())
        return "exported a driver without kernels"
    data, entries, reason = _object_code(module, loaded)
    if reason:
        manifest = {"format": FORMAT, "refused": reason}
        create_atomically(manifest_path, json.dumps(manifest, indent=1).encode())
        return f"not exported: {reason}"
    save(module.source, data, make_manifest(data, entries, "numba"))
    return f"exported {len(entries)} kernel(s), {len(data)} bytes"


def make_manifest(data: bytes, entries: dict, compiler: str) -> dict:
    """What a later process checks before it loads ``data``, and what it finds in it;
    ``compiler`` says who wrote the machine code (``numba``, or ``direct``: direct.py)."""
    if not entries:  # a driver of BLAS calls, views and reference rules only
        return {"format": FORMAT, "compiler": compiler, "kernels": {}}
    import llvmlite.binding as llvm
    return {"format": FORMAT, "compiler": compiler, "cpu": _host_cpu(llvm),
            "data_offset": data_offset(), "sha256": hashlib.sha256(data).hexdigest(),
            "undefined": sorted(elf_undefined_symbols(data)), "kernels": entries}


def save(source: str, data: bytes, manifest: dict) -> None:
    """Write the object file and its manifest beside the module of ``source``, in place of
    those of another CPU if there are (``_foreign``)."""
    obj_path, manifest_path = paths(source)
    replace = manifest_path in _foreign
    create_atomically(obj_path, data, replace)  # the object first: the manifest says it is
    create_atomically(manifest_path, json.dumps(manifest, indent=1).encode(), replace)
    _foreign.discard(manifest_path)  # (complete)


def _object_code(module: Any, loaded: Any) -> tuple[bytes, dict, str]:
    """The object file of ``module``'s C entry points, the manifest's table of them, and
    why not (an empty string when all went well)."""
    import llvmlite.binding as llvm
    from llvmlite import ir

    prefix, offset = symbol_prefix(module.source), data_offset()
    entry_module = ir.Module("edujax_entries")
    libraries, entries = [], {}
    for kernel in module.kernels:
        compiled = getattr(loaded, kernel.name).overloads[kernel.numba_types()]
        if compiled.library.has_dynamic_globals:
            return b"", {}, f"{kernel.name} refers to Python objects"
        symbol = prefix + kernel.name
        _write_entry(entry_module, symbol, compiled, [*kernel.inputs, *kernel.outputs], offset)
        libraries.append(compiled.library)
        entries[kernel.name] = {"symbol": symbol,
                                "nargs": len(kernel.inputs) + len(kernel.outputs)}
    first = libraries[0]._final_module
    linked = llvm.parse_assembly(str(entry_module))
    linked.triple, linked.data_layout = first.triple, first.data_layout
    for library in libraries:
        linked.link_in(library._get_module_for_linking(), preserve=True)
    target_machine = libraries[0].codegen._tm
    _drop_unused(linked, target_machine)
    outside = _needs(linked)
    if outside:
        return b"", {}, "it needs " + ", ".join(sorted(outside)[:5])
    data = target_machine.emit_object(linked)
    undefined = elf_undefined_symbols(data)
    if not undefined <= ALLOWED:
        return b"", {}, "its object needs " + ", ".join(sorted(undefined - ALLOWED)[:5])
    return data, entries, ""


def _write_entry(module: Any, symbol: str, compiled: Any, avals: list, offset: int) -> None:
    """The C entry point of one kernel, in LLVM IR: ``int32 symbol(PyObject *a0, ...)``.

    For each argument it reads the NumPy array's data pointer (``offset`` bytes into the
    array object) and builds the array structure Numba's code expects, with the shape and
    strides the kernel was compiled for (constants: the jaxpr fixed them); then it calls
    the kernel with Numba's calling convention and returns its status code (0: all went
    well). This is what Numba's ``cfunc`` with ``carray`` would build, without running
    Numba's compiler again for it."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.np.arrayobj import make_array, populate_array

    context, signature = compiled.target_context, compiled.signature
    function = ir.Function(module, ir.FunctionType(ir.IntType(32), [cgutils.voidptr_t]
                                                   * len(avals)), symbol)
    builder = ir.IRBuilder(function.append_basic_block())
    arrays = []
    for arg, aval, array_type in zip(function.args, avals, signature.args):
        address = builder.gep(builder.bitcast(arg, cgutils.voidptr_t), [ir.Constant(
            ir.IntType(64), offset)])
        data = builder.load(builder.bitcast(address, cgutils.voidptr_t.as_pointer()))
        array = make_array(array_type)(context, builder)
        itemsize = aval.dtype.itemsize
        strides = [itemsize * math.prod(aval.shape[d + 1:]) for d in range(len(aval.shape))]
        populate_array(array,
                       data=builder.bitcast(data, array.data.type),
                       shape=[context.get_constant(types.intp, n) for n in aval.shape],
                       strides=[context.get_constant(types.intp, n) for n in strides],
                       itemsize=context.get_constant(types.intp, itemsize), meminfo=None)
        arrays.append(array._getvalue())
    callee = context.declare_function(module, compiled.fndesc)
    status, _ = context.call_conv.call_function(builder, callee, signature.return_type,
                                                signature.args, arrays)
    builder.ret(status.code)


def _drop_unused(module: Any, target_machine: Any) -> None:
    """Remove what no entry point uses: the cfuncs' own wrappers (they report errors through
    the Python C API) and the functions only they called."""
    import llvmlite.binding as llvm
    passes = llvm.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    passes.run(module, llvm.create_pass_builder(target_machine,
                                                llvm.create_pipeline_tuning_options(0)))


def _needs(module: Any) -> set:
    """The functions and globals ``module`` takes from outside that are not ALLOWED."""
    outside = {f.name for f in module.functions if f.is_declaration
               and not f.name.startswith("llvm.") and f.name not in ALLOWED}
    return outside | {g.name for g in module.global_variables if g.is_declaration}


def _host_cpu(llvm: Any) -> str:
    """The CPU machine code is for: its name and features (AVX-512 code would crash a CPU
    without it, so a cache folder shared between machines must not mix them up)."""
    return f"{llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()}"


def elf_undefined_symbols(data: bytes) -> set:
    """The names of the symbols an ELF64 object file uses but does not define.

    (Its symbol table is a list of fixed-size records; a record whose section index is 0,
    SHN_UNDEF, names a symbol that must come from elsewhere.)"""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 object")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings_offset = sections[link][4]
        for start in range(offset + entsize, offset + size, entsize):  # (record 0 is empty)
            name, _, _, shndx = struct.unpack_from("<IBBH", data, start)
            if shndx == 0 and name:
                end = data.index(b"\0", strings_offset + name)
                names.add(data[strings_offset + name:end].decode())
    return names


# ====================================================================== load (no Numba)
_engine_lock = threading.Lock()
_engine: Any = None
_loaded: dict = {}  # manifest path -> {kernel name: callable}: each object is added once
_foreign: set = set()  # the manifests found to be for another CPU: to be replaced


def _get_engine() -> Any:
    """One MCJIT execution engine per process, holding every object loaded so far."""
    global _engine
    if _engine is None:
        import llvmlite.binding as llvm
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple().create_target_machine()
        _engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target)
    return _engine


def _process_symbol(name: str) -> int | None:
    """The address of a C function of this process (libc, libm), or None."""
    try:
        return ctypes.cast(getattr(ctypes.CDLL(None), name), ctypes.c_void_p).value
    except AttributeError:
        return None


def load(module: Any) -> dict[str, Callable] | None:
    """Callables for ``module``'s kernels from its object file, or None (then use Numba)."""
    if not enabled():
        return None
    try:
        obj_path, manifest_path = find(module.source)
        if not manifest_path.exists():
            return None
    except OSError:
        return None
    try:
        with _engine_lock:
            kernels = _loaded.get(manifest_path)
            if kernels is None:
                kernels = _loaded[manifest_path] = _load(module, obj_path, manifest_path)
        return kernels
    except WrongMachine as e:  # expected where an image runs on another machine: no warning
        _foreign.add(manifest_path)
        logger.info("edujax: the ahead-of-time kernels in %s were %s; compiling them for this "
                    "CPU", obj_path, e)
        return None
    except Exception as e:  # noqa: BLE001 - any failure: Numba compiles or loads the kernels
        for path in (manifest_path, obj_path):  # thrown away: this process writes them again
            try:
                path.unlink()
            except OSError:
                pass
        logger.warning("edujax: the ahead-of-time kernels in %s could not be used (%s: %s); "
                       "loading them with Numba (the files were removed)", obj_path,
                       type(e).__name__, e)
        return None


class WrongMachine(ValueError):
    """The object file is fine, but for another CPU: compile the kernels for this one (they
    replace it where the folder may be written)."""


def _load(module: Any, obj_path: Path, manifest_path: Path) -> dict[str, Callable] | None:
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("format") != FORMAT:
        raise ValueError(f"format {manifest.get('format')}, expected {FORMAT}")
    if "refused" in manifest:  # (not exportable: Numba's path, without a warning)
        return None
    if not manifest["kernels"]:
        return _load_object(module, b"", manifest)
    data = obj_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != manifest["sha256"]:
        raise ValueError("the object file does not match its manifest (damaged?)")
    return _load_object(module, data, manifest)


def _load_object(module: Any, data: bytes, manifest: dict) -> dict[str, Callable]:
    """Callables for the kernels of the object ``data`` (read from a file, or just written
    by ``direct.py``), put into this process's execution engine."""
    import llvmlite.binding as llvm
    entries = manifest["kernels"]
    expected = {k.name: len(k.inputs) + len(k.outputs) for k in module.kernels}
    if {name: e["nargs"] for name, e in entries.items()} != expected:
        raise ValueError("the manifest does not describe this module's kernels")
    if not entries:
        return {}
    engine = _get_engine()
    if manifest["cpu"] != _host_cpu(llvm):
        raise WrongMachine("compiled for another CPU")
    if manifest["data_offset"] != data_offset():
        raise WrongMachine("written by a Python whose NumPy arrays are laid out differently")
    for name in elf_undefined_symbols(data):  # MCJIT would abort the process on a miss
        address = _process_symbol(name) if name in ALLOWED else None
        if address is None:
            raise ValueError(f"the object needs {name!r}, which this process lacks")
        llvm.add_symbol(name, address)
    engine.add_object_file(llvm.ObjectFileRef.from_data(data))
    engine.finalize_object()
    kernels = {}
    for name, entry in entries.items():
        address = engine.get_function_address(entry["symbol"])
        if not address:
            raise ValueError(f"no symbol {entry['symbol']} in the object")
        kernels[name] = _caller(name, address, entry["nargs"])
    return kernels


def load_compiled(module: Any, data: bytes, entries: dict,
                  compiler: str) -> dict[str, Callable] | None:
    """Callables for kernels compiled in this process into the object ``data``
    (``direct.py``), loaded like an object file read from disk; the object and its manifest
    are also written to the cache folder (when ``EDUJAX_AOT`` allows) for the next process.
    None if loading fails (then use Numba)."""
    manifest = make_manifest(data, entries, compiler)
    try:
        manifest_path = paths(module.source)[1]
    except OSError:
        manifest_path = None
    try:
        with _engine_lock:
            kernels = _loaded.get(manifest_path)
            if kernels is None:
                kernels = _load_object(module, data, manifest)
                if manifest_path is not None:
                    _loaded[manifest_path] = kernels
    except Exception as e:  # noqa: BLE001 - any failure: Numba compiles the kernels
        logger.warning("edujax: kernels compiled by %s could not be loaded (%s: %s); "
                       "compiling them with Numba", compiler, type(e).__name__, e)
        return None
    if enabled() and manifest_path is not None and (not manifest_path.exists()
                                                    or manifest_path in _foreign):
        try:
            cache_dir()  # (created if missing)
            save(module.source, data, manifest)
        except OSError as e:  # a read-only cache: the next process compiles them again
            logger.debug("edujax: could not write the object file (%s)", e)
    return kernels


def _caller(name: str, address: int, nargs: int) -> Callable:
    """``kernel(*arrays)``: the C entry point called with the arrays themselves.

    NB: nothing checks the arrays here, where Numba's dispatcher would check their types:
    the driver only ever passes NumPy arrays of the dtypes and shapes the jaxpr fixed,
    C-ordered (``c_order``), as it did to the dispatchers. ``PYFUNCTYPE``: the call keeps
    the GIL, as a Numba kernel called from Python does. A call costs about 0.5 µs, 0.2 µs
    more than a Numba dispatcher's (docs/performance.md)."""
    function = ctypes.PYFUNCTYPE(ctypes.c_int32, *[ctypes.py_object] * nargs)(address)

    def call(*arrays: Any) -> None:
        if function(*arrays):
            raise RuntimeError(f"the ahead-of-time kernel {name} reported an error")
    call.__name__ = call.__qualname__ = name
    return call


def exported(source: str) -> bool:
    """Has the module of ``source`` an object file for this CPU, as far as this process
    knows (for ``as_text``, ``export_later`` and the tests)?"""
    try:
        manifest_path = find(source)[1]
    except OSError:
        return False
    return manifest_path.exists() and manifest_path not in _foreign



# ====================================================================== when to export
_pending: list[threading.Event] = []


def enabled() -> bool:
    """``EDUJAX_AOT`` (default on); ``0``/``false``/``no``/``off`` turn it off."""
    return os.environ.get("EDUJAX_AOT", "1").strip().lower() not in ("0", "false", "no", "off")


def export_later(module: Any, loaded: Any) -> None:
    """Export ``module`` on the background compile thread (``tiering.submit``), after the
    call that needed it: the first call does not wait for it. A script that ends soon after
    waits for the export at exit (``_wait_for_exports``), or the next process would find
    no object file."""
    if not enabled() or why_not_exportable(module) or exported(module.source):
        return
    done = threading.Event()

    def job() -> None:
        start = time.perf_counter()
        try:
            result = export(module, loaded)
            logger.debug("edujax: %s (%.2f s)", result, time.perf_counter() - start)
        except Exception as e:  # noqa: BLE001 - the kernels still run through Numba
            logger.debug("edujax: exporting kernels failed (%s: %s)", type(e).__name__, e)
        finally:
            done.set()

    if not _pending:
        atexit.register(_wait_for_exports)
    _pending.append(done)
    submit(job)


def _wait_for_exports(timeout: float = 60.0) -> None:
    for done in _pending:
        done.wait(timeout)


# A process forked while an export was pending has no thread to finish it: it must not wait.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pending.clear)
