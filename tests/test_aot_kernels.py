"""Kernels loaded as object files (``fast_start/aot.py``): no Numba in a warm process.

A process that compiled a module's kernels with Numba writes their machine code out as an
object file; a later process runs the same driver with the kernels loaded from that file by
LLVM alone. These tests run real processes (the only way to see that ``import numba`` never
happens), break the files on purpose, and compare the object-file kernels with the
reference interpreter on many programs.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
if not sys.platform.startswith("linux"):
    pytest.skip("object files are loaded on Linux only", allow_module_level=True)

from hypothesis import given, settings  # noqa: E402
from program_generator import random_program  # noqa: E402

import edujax as jax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
from edujax.backends.fast_start import aot  # noqa: E402
from edujax.backends.numba_cpu.backend import NumbaProgram  # noqa: E402
from edujax.config import config  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Three programs, run in fresh processes: an MLP training step (grad), selu, and a program
# of reductions, argmax and a gather. Prints each result, where its kernels came from, and
# whether Numba was imported.
PROGRAMS = textwrap.dedent("""
    import json, sys
    import numpy as np
    import edujax as jax, edujax.numpy as jnp
    jax.config.update("edujax_backend", "numba")

    def mlp_loss(params, x, y):
        for w, b in params[:-1]:
            x = jnp.tanh(x @ w + b)
        w, b = params[-1]
        return jnp.mean((x @ w + b - y) ** 2)

    def selu(x):
        return 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67)

    def reductions(x):
        return (jnp.sum(x, axis=0), jnp.max(x, axis=1), jnp.argmax(x, axis=1),
                x[jnp.array([2, 0, 3])], jnp.mean(x))

    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    params = [(f32(6, 8), f32(8)), (f32(8, 3), f32(3))]
    cases = {"mlp": (jax.grad(mlp_loss), (params, f32(5, 6), f32(5, 3))),
             "selu": (selu, (f32(1000),)),
             "reductions": (reductions, (f32(4, 7),))}
    out = {}
    for name, (fn, args) in cases.items():
        f = jax.jit(fn)
        leaves = jax.tree_util.tree_leaves(f(*args))
        entry, = f.cache_info().entries
        out[name] = {"values": [np.asarray(v).tolist() for v in leaves],
                     "kernels_from": getattr(entry.executable, "kernels_from", ""),
                     "tier": entry.tier}
    print(json.dumps({"programs": out, "numba_imported": "numba" in sys.modules}))
""")


def assert_same(got: list, want: list, same_dtype: bool = True) -> None:
    """Same shapes (and dtypes); values exactly for integers and bools, to a few float32
    ulps for floats (edujax's exp/tanh are not NumPy's, sums run in another order)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and (not same_dtype or g.dtype == w.dtype), (g, w)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.fixture(autouse=True, scope="module")
def numba_compiles():
    """These tests are about the machine code Numba compiles, exported and loaded again:
    edujax's own compiler (direct.py, tests/test_direct_kernels.py) stays out of the way."""
    before = os.environ.get("EDUJAX_DIRECT")
    os.environ["EDUJAX_DIRECT"] = "0"
    yield
    if before is None:
        del os.environ["EDUJAX_DIRECT"]
    else:
        os.environ["EDUJAX_DIRECT"] = before


def run_programs(cache_dir: Path, code: str = PROGRAMS, tiered: str = "0") -> tuple[dict, str]:
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(cache_dir), EDUJAX_TIERED=tiered,
               EDUJAX_DIRECT="0")
    env.pop("EDUJAX_AOT", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def reference_values() -> dict:
    """The same programs on the reference interpreter, in this process."""
    namespace: dict = {}
    exec(PROGRAMS.replace('"numba")', '"reference")').replace("print(json.dumps", "("),
         namespace)
    return namespace["out"]


def assert_right(result: dict, kernels_from: str) -> None:
    want = reference_values()
    for name, got in result["programs"].items():
        assert got["kernels_from"] == kernels_from, name
        assert got["tier"] == kernels_from, name  # what cache_info() shows names it too
        assert_same(got["values"], want[name]["values"], same_dtype=False)  # (from JSON)


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> Path:
    """A cache folder after one cold process: modules, Numba's files and object files."""
    folder = tmp_path_factory.mktemp("aot-cache")
    result, _ = run_programs(folder)
    assert_right(result, "numba")
    assert result["numba_imported"]
    assert len(list(folder.glob("edujax_aot_*.o"))) == 3  # (written at exit at the latest)
    return folder


def copy_of(folder: Path, tmp_path: Path) -> Path:
    import shutil
    return Path(shutil.copytree(folder, tmp_path / "cache"))


@pytest.mark.parametrize("tiered", ["0", "1"])
def test_a_warm_process_runs_the_object_files_without_importing_numba(warm, tmp_path, tiered):
    # (tiered or not: loading an object file is quick, so even the first call runs it)
    result, stderr = run_programs(copy_of(warm, tmp_path), tiered=tiered)
    assert_right(result, "object file")
    assert result["numba_imported"] is False
    assert "Traceback" not in stderr


@pytest.mark.parametrize("damage", ["garbage", "truncate", "manifest"])
def test_a_damaged_object_file_falls_back_to_numba_and_is_written_again(warm, tmp_path,
                                                                        damage):
    folder = copy_of(warm, tmp_path)
    for obj in folder.glob("edujax_aot_*.o"):
        manifest = obj.with_suffix(".json")
        if damage == "garbage":
            obj.write_bytes(b"\x7fELF" + os.urandom(4000))
        elif damage == "truncate":
            obj.write_bytes(obj.read_bytes()[:300])
        else:
            manifest.write_text("{not json")
    result, stderr = run_programs(folder)
    assert_right(result, "numba")  # right values, from Numba's own cache
    assert stderr.count("could not be used") == 3 and "Traceback" not in stderr
    again, _ = run_programs(folder)  # ... and the files were written again at exit
    assert_right(again, "object file")


def test_an_object_needing_a_missing_symbol_is_refused_before_llvm_sees_it(tmp_path):
    """MCJIT aborts the process on a symbol it cannot resolve: the loader must not get
    there. The object here calls a function no process has."""
    code = textwrap.dedent(f"""
        import hashlib, json, sys
        from pathlib import Path
        import llvmlite.binding as llvm
        from edujax.backends.fast_start import aot
        from edujax.backends.numba_cpu.codegen import GeneratedModule, KernelSignature
        from edujax.core import ShapedArray
        import numpy as np
        llvm.initialize_native_target(); llvm.initialize_native_asmprinter()
        ir = '''
        declare i32 @edujax_no_such_function(ptr)
        define i32 @entry(ptr %p0) {{
          %r = call i32 @edujax_no_such_function(ptr %p0)
          ret i32 %r
        }}'''
        tm = llvm.Target.from_default_triple().create_target_machine()
        data = tm.emit_object(llvm.parse_assembly(ir))
        aval = ShapedArray((3,), np.dtype(np.float32))
        module = GeneratedModule("# a module", kernels=[KernelSignature("k", [], [aval])])
        obj, manifest = aot.paths(module.source, Path({str(tmp_path)!r}))
        obj.write_bytes(data)
        manifest.write_text(json.dumps({{
            "format": aot.FORMAT, "cpu": aot._host_cpu(llvm), "data_offset": aot.data_offset(),
            "kernels": {{"k": {{"symbol": "entry", "nargs": 1}}}},
            "sha256": hashlib.sha256(data).hexdigest()}}))
        print(aot.elf_undefined_symbols(data), aot.load(module))
    """)
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(tmp_path), EDUJAX_DIRECT="0")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["{'edujax_no_such_function'}", "None"]
    assert "lacks" in done.stderr and "could not be used" in done.stderr


def test_parallel_kernels_stay_with_numba(tmp_path):
    code = textwrap.dedent("""
        import json, sys
        import edujax as jax, edujax.numpy as jnp
        jax.config.update("edujax_backend", "numba")
        f = jax.jit(lambda x: jnp.exp(x) * 2.0)
        y = f(jnp.ones(1 << 18))
        entry, = f.cache_info().entries
        print(json.dumps({"programs": {}, "from": entry.executable.kernels_from,
                          "text": entry.executable.as_text()}))
    """)
    for _ in range(2):
        result, _ = run_programs(tmp_path, code)
        assert "parallel=True" in result["text"] and result["from"] == "numba"
    assert not list(tmp_path.glob("edujax_aot_*"))


# ---------------------------------------------------------------- in this process
@pytest.fixture
def numba_backend(monkeypatch, tmp_path):
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    monkeypatch.setenv("EDUJAX_CACHE_DIR", str(tmp_path))
    config.update("edujax_backend", "numba")
    yield
    config.update("edujax_backend", "reference")


def object_file_program(fn, *args) -> NumbaProgram:
    """``jit(fn)``'s program with Numba, exported, then loaded again from its object file
    into a new program (as a new process would)."""
    f = jax.jit(fn)
    f(*args)
    entry, = [e for e in f.cache_info().entries if e.backend == "numba"]
    program = entry.executable
    if program.kernels_from == "numba":  # (else an earlier test run exported it)
        program.export_later()  # (and the programs of loops run from Python)
        aot._wait_for_exports()
    again = NumbaProgram(entry.closed)
    assert again.load_object_file() and again.kernels_from == "object file"
    assert again.as_text().startswith("# tier: object file (the kernels below were loaded as "
                                      "machine code")
    return again


@settings(max_examples=10, deadline=None)
@given(random_program())
def test_random_programs_from_object_files_match_the_reference(program_and_args):
    program, args = program_and_args
    args = [np.asarray(jnp.asarray(a)) for a in args]
    want = jax.jit(program, backend="reference")(*args)
    config.update("edujax_backend", "numba")
    tiered = os.environ.get("EDUJAX_TIERED")
    os.environ["EDUJAX_TIERED"] = "0"  # (hypothesis and function-scoped fixtures do not mix)
    try:
        loaded = object_file_program(program, *args)
    finally:
        config.update("edujax_backend", "reference")
        if tiered is None:
            del os.environ["EDUJAX_TIERED"]
        else:
            os.environ["EDUJAX_TIERED"] = tiered
    got = loaded(*args)  # (the driver makes them C-ordered itself)
    assert_same(got, jax.tree_util.tree_leaves(want))


CASES = {
    "0-d sum": (lambda x: jnp.sum(x) * 2, lambda: (np.arange(12.0, dtype=np.float32),)),
    "bools": (lambda x: (x > 0.5, jnp.any(x > 0.9)), lambda: (np.linspace(0, 1, 9),)),
    "dynamic slice": (lambda x, i: jax.lax.dynamic_slice(x, (i, 1), (2, 3)),
                      lambda: (np.arange(24.0).reshape(4, 6), np.int32(3))),
    "dynamic update": (lambda x, i: jax.lax.dynamic_update_slice(x, jnp.ones((2, 2)), (i, i)),
                       lambda: (np.arange(24.0).reshape(4, 6), np.int32(1))),
    "scatter-add": (lambda x: x.at[jnp.array([0, 2, 0])].add(1.0),
                    lambda: (np.arange(12.0).reshape(4, 3),)),
    "concatenate": (lambda x: jnp.concatenate([x, x * 2], axis=1),
                    lambda: (np.arange(6.0).reshape(2, 3),)),
    "integer dot": (lambda a: a @ a.T, lambda: (np.arange(12, dtype=np.int32).reshape(3, 4),)),
    "column argmin": (lambda x: (jnp.argmin(x, axis=0), jnp.min(x, axis=0)),
                      lambda: (np.cos(np.arange(20.0)).reshape(4, 5),)),
    "only BLAS": (lambda a, b: a @ b, lambda: (np.ones((3, 4), np.float32),
                                              np.ones((4, 2), np.float32))),
    "0-d input returned": (lambda x, y: jnp.abs(y), lambda: (np.float32(0), np.array(False))),
    "Python loop": (lambda x: jax.lax.while_loop(  # (cumsum: a reference rule in the body)
        lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.cumsum(c[1]) * 0.5), (0, x)),
        lambda: (np.linspace(0, 1, 8, dtype=np.float32),)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_kernels_from_object_files_match_the_reference(numba_backend, name):
    fn, make_args = CASES[name]
    args = [np.asarray(jnp.asarray(a)) for a in make_args()]
    loaded = object_file_program(fn, *args)
    want = jax.tree_util.tree_leaves(jax.jit(fn, backend="reference")(*args))
    assert_same(loaded(*args), want)


def test_the_disk_cache_command_counts_and_clears_object_files(warm, tmp_path):
    from edujax import cache
    folder = copy_of(warm, tmp_path)
    assert cache.info(folder).object_files == 3
    cache.clear(folder)
    assert not list(folder.glob("edujax_aot_*")) and cache.info(folder).object_files == 0
