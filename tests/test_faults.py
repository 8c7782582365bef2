"""jit under faults: broken disk caches, unwritable folders, many processes and threads,
interrupts. Each test breaks something a classroom breaks, then checks two things: the
program still gets the right answer, and what is left behind (the disk cache, the jit
cache's counts) is sound, so the *next* call or process is fast and correct too.
"""
from __future__ import annotations

import _thread
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from kernel_client import Kernel, install_kernel

import edujax as jax
import edujax.numpy as jnp
from edujax.backends.numba_cpu import backend as numba_backend
from edujax.config import config

REPO = Path(__file__).resolve().parents[1]

# One small program, run in fresh processes: it prints its result, the tier it ran on,
# and whether Numba compiled its kernel or loaded it from the disk cache.
PROGRAM = textwrap.dedent("""
    import json, sys
    import edujax as jax, edujax.numpy as jnp
    PRELUDE
    jax.config.update("edujax_backend", "numba")
    f = jax.jit(lambda x: jnp.sin(x) * 2.0 + 0.25)
    g = jax.jit(lambda x: jnp.cos(x) - 0.5)
    x = jnp.arange(6.0)
    out = [f(x).tolist(), g(x).tolist()]
    kernels = [e.executable._run.__globals__["fused_0"]
               for h in (f, g) for e in h.cache_info().entries]
    print(json.dumps({"out": out, "tiers": [h.cache_info().entries[0].tier for h in (f, g)],
                      "loaded": sum(sum(k.stats.cache_hits.values()) for k in kernels),
                      "compiled": sum(sum(k.stats.cache_misses.values()) for k in kernels)}))
""")
EXPECTED = [(np.sin(np.arange(6.0, dtype=np.float32)) * 2 + 0.25).tolist(),
            (np.cos(np.arange(6.0, dtype=np.float32)) - 0.5).tolist()]


def run_program(cache_dir: Path, prelude: str = "") -> tuple[dict, str]:
    # (EDUJAX_AOT=0, EDUJAX_DIRECT=0: these tests are about Numba's own cache files;
    # test_aot_kernels.py breaks the object files aot.py writes)
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(cache_dir), EDUJAX_TIERED="0", EDUJAX_AOT="0",
               EDUJAX_DIRECT="0")
    done = subprocess.run([sys.executable, "-c", PROGRAM.replace("PRELUDE", prelude)],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def assert_right(result: dict) -> None:
    np.testing.assert_allclose(result["out"], EXPECTED, rtol=1e-6)
    assert result["tiers"] == ["numba", "numba"]  # never stuck on the slow interpreter


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory) -> Path:
    """A cache folder holding the program's kernels, compiled once for every test."""
    folder = tmp_path_factory.mktemp("warm-cache")
    result, _ = run_program(folder)
    assert_right(result)
    assert result["compiled"] == 2
    return folder


def copy_of(warm: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    shutil.copytree(warm, folder)
    return folder


# ------------------------------------------------------------------ broken cache files
def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00garbage\xff" * 3)


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _unreadable(path: Path) -> None:
    path.unlink()
    path.mkdir()   # a folder where a file should be: reading it fails (even as root)


def _foreign(path: Path) -> None:
    """An index written by another Numba version (Numba checks the version it stores)."""
    with open(path, "rb") as f:
        pickle.load(f)
        rest = f.read()
    path.write_bytes(pickle.dumps("0.1.0-another-numba") + rest)


BREAKAGES = [("nbi", _garbage), ("nbc", _garbage), ("nbc", _truncate), ("nbi", _truncate),
             ("nbi", _unreadable), ("nbc", _unreadable), ("nbi", _foreign)]


@pytest.mark.parametrize("kind, breakage", BREAKAGES,
                         ids=[f"{b.__name__.strip('_')}-{k}" for k, b in BREAKAGES])
def test_a_broken_cache_file_is_thrown_away_and_rebuilt(warm_cache, tmp_path, kind, breakage):
    folder = copy_of(warm_cache, tmp_path)
    files = sorted((folder / "__pycache__").glob(f"*.{kind}"))
    assert len(files) == 2
    for path in files:
        breakage(path)
    result, stderr = run_program(folder)
    assert_right(result)
    if breakage is not _foreign:  # Numba itself ignores another version's index
        assert stderr.count("could not be used") == 2, stderr
        assert "compiled it again" in stderr
    # ... and the rebuilt cache serves the next process without compiling anything.
    again, stderr = run_program(folder)
    assert_right(again)
    assert (again["loaded"], again["compiled"]) == (2, 0)
    assert stderr == ""


# ------------------------------------------------------------------ unwritable folders
# Root ignores permission bits and tests cannot mount a full disk, so these two inject
# the OSError the operating system would raise when the module file is written.
def _failing_write(error: str) -> str:
    return textwrap.dedent(f"""
        import errno
        from edujax.backends.fast_start import cache as _cache
        def _fail(path, source):
            raise {error}
        _cache.create_atomically = _fail
    """)


FULL_DISK = _failing_write('OSError(errno.ENOSPC, "No space left on device")')
READ_ONLY = _failing_write('PermissionError(errno.EACCES, "Permission denied")')


@pytest.mark.parametrize("where, prelude", [
    ("a file in its place", ""),
    ("a folder under a file", ""),
    ("a full disk", FULL_DISK),
    ("a read-only folder", READ_ONLY),
])
def test_an_unwritable_cache_folder_compiles_in_memory_with_one_warning(tmp_path, where,
                                                                        prelude):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    folder = {"a file in its place": blocker,
              "a folder under a file": blocker / "cache",
              "a full disk": tmp_path / "cache",
              "a read-only folder": tmp_path / "cache"}[where]
    result, stderr = run_program(folder, prelude)
    assert_right(result)
    assert result["compiled"] == 2
    assert stderr.count("compiling in memory") == 1, stderr  # one warning, two functions
    assert "Traceback" not in stderr


# ------------------------------------------------------------------ processes and threads
def test_four_processes_share_one_cache_folder(tmp_path):
    folder = tmp_path / "cache"
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(folder), EDUJAX_TIERED="0", EDUJAX_AOT="0",
               EDUJAX_DIRECT="0")
    procs = [subprocess.Popen([sys.executable, "-c", PROGRAM.replace("PRELUDE", "")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=REPO, env=env) for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert_right(json.loads(out.strip().splitlines()[-1]))
    fifth, stderr = run_program(folder)
    assert_right(fifth)
    assert (fifth["loaded"], fifth["compiled"]) == (2, 0) and stderr == ""
    assert len(list(folder.glob("edujax_kernels_*.py"))) == 2  # no duplicates, no leftovers
    assert not list(folder.glob(".tmp-*"))


@pytest.fixture
def numba_backend_tiered(monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "1")
    monkeypatch.setenv("EDUJAX_AOT", "0")  # (an object file from an earlier run: no tiering)
    monkeypatch.setenv("EDUJAX_DIRECT", "0")  # (nor kernels compiled at once without Numba)
    config.update("edujax_backend", "numba")
    yield
    config.update("edujax_backend", "reference")


def test_eight_threads_calling_while_it_compiles_trace_once(numba_backend_tiered):
    f = jax.jit(lambda x: jnp.tanh(x) * 3.0 - 0.125)
    x = jnp.linspace(-1.0, 1.0, 64)
    expected = np.tanh(np.linspace(-1.0, 1.0, 64, dtype=np.float32)) * 3.0 - 0.125
    start = threading.Barrier(8)
    results, errors = [], []

    def call() -> None:
        try:
            start.wait()
            for _ in range(20):  # some calls on the interpreter, some on the kernels
                results.append(np.asarray(f(x)))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors and len(results) == 160
    for r in results:
        np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-6)  # float32 tanh: ulps
    info = f.cache_info()
    assert (info.misses, info.currsize) == (1, 1)                # traced and compiled once
    assert info.hits == 159 == sum(e.hits for e in info.entries)
    assert info.entries[0].executable.wait(300) == "numba"


# ------------------------------------------------------------------ counts that add up
def test_cache_info_counts_like_lru_cache():
    f = jax.jit(lambda x: x + 1)
    for n in (3, 3, 3, 4, 4, 3):
        f(jnp.ones(n))
    f.lower(jnp.ones(3))
    info = f.cache_info()
    assert info.misses == 2                                  # two signatures compiled
    assert info.hits == 5 == sum(e.hits for e in info.entries)
    assert sorted(e.hits for e in info.entries) == [1, 4]
    assert len(f.explain_misses()) == info.misses


def test_clear_caches_forgets_every_compiled_signature():
    f, g = jax.jit(lambda x: x * 2), jax.jit(lambda x: x - 2)
    f(1.0), g(1.0)
    jax.clear_caches()
    assert f.cache_info().currsize == 0 == g.cache_info().currsize
    assert float(f(1.0)) == 2.0 and f.cache_info().currsize == 1


def test_the_disk_cache_command_reports_and_clears(warm_cache, tmp_path):
    folder = copy_of(warm_cache, tmp_path)
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(folder))

    def command(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "edujax.cache", *args], env=env,
                              capture_output=True, text=True, cwd=REPO)

    shown = command("info")
    assert shown.returncode == 0 and str(folder) in shown.stdout
    assert "2 kernel modules, 4 Numba files" in shown.stdout
    cleared = command("clear")
    assert cleared.returncode == 0 and "removed 6 files" in cleared.stdout
    assert "0 kernel modules, 0 Numba files" in command("info").stdout
    wrong = command("frobnicate")
    assert wrong.returncode == 2 and "usage: python -m edujax.cache info|clear" in wrong.stderr


# ------------------------------------------------------------------ interrupts
# Python turns SIGINT into KeyboardInterrupt only when the process started with SIGINT's
# default disposition. A job started in the background (`scripts/test > log &`, nohup, many
# CI runners) inherits SIGINT *ignored*, and then Ctrl-C, `_thread.interrupt_main()` and
# Jupyter's Interrupt button do nothing to a plain Python program. These tests are about
# what happens when Ctrl-C does arrive, so each one gives its process Python's default
# handler, as an interactive session has, whatever shell launched pytest.
@pytest.fixture
def ctrl_c_enabled():
    """SIGINT raises KeyboardInterrupt in this process for the test, then as it was."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def ignoring_sigint() -> None:
    """A child's ``preexec_fn``: start it as a background job would, SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_interrupt_while_tracing_leaves_no_entry(ctrl_c_enabled):
    interrupt = {"now": True}

    def f(x):
        if interrupt["now"]:
            interrupt["now"] = False
            _thread.interrupt_main()      # Ctrl-C arrives while f is being traced
            for _ in range(1000):
                pass
        return x * 3

    jitted = jax.jit(f)
    with pytest.raises(KeyboardInterrupt):
        jitted(jnp.ones(2))
    info = jitted.cache_info()
    assert (info.hits, info.misses, info.currsize) == (0, 0, 0)
    assert jitted(jnp.ones(2)).tolist() == [3.0, 3.0]             # the next call works
    assert jitted.cache_info().misses == 1


def test_interrupt_during_a_numba_compile_leaves_no_entry(monkeypatch, tmp_path,
                                                            ctrl_c_enabled):
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    monkeypatch.setenv("EDUJAX_CACHE_DIR", str(tmp_path))   # cold: Numba really compiles
    monkeypatch.setenv("EDUJAX_DIRECT", "0")  # (not edujax's own compiler, direct.py)
    config.update("edujax_backend", "numba")
    real_load = numba_backend.load_module
    pressed = []

    def load_then_interrupt(source):
        if not pressed:
            pressed.append(True)
            _thread.interrupt_main()     # Ctrl-C lands inside the compile that follows
        return real_load(source)

    monkeypatch.setattr(numba_backend, "load_module", load_then_interrupt)
    try:
        f = jax.jit(lambda x: jnp.exp(x) * 0.5 + 1.0)
        x = jnp.arange(3.0)
        with pytest.raises(KeyboardInterrupt):
            f(x)
        assert f.cache_info().currsize == 0 and f.cache_info().misses == 0
        np.testing.assert_allclose(f(x), np.exp(np.arange(3.0)) * 0.5 + 1.0, rtol=1e-6)
        entry, = f.cache_info().entries
        assert entry.tier == "numba" and f.cache_info().misses == 1
    finally:
        config.update("edujax_backend", "reference")


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernel started with SIGINT ignored, as JupyterLab started from a background job
    (or any test run in one) starts it: its Interrupt button must work all the same."""
    prefix = tmp_path_factory.mktemp("jupyter-prefix")
    install_kernel(prefix)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)   # the kernel inherits this
    try:
        k = Kernel(prefix, env={"EDUJAX_BACKEND": "numba", "EDUJAX_TIERED": "0"})
    finally:
        signal.signal(signal.SIGINT, previous)
    yield k
    k.close()


SPIN = textwrap.dedent("""
    import os, signal, threading
    import edujax as jax, edujax.numpy as jnp
    from edujax import lax
    @jax.jit
    def spin(x, n):
        return lax.fori_loop(0, n, lambda i, c: c * 0.999999 + 1e-6, x)
    x = jnp.ones(4)
    spin(x, 10).block_until_ready()   # compiled before the long run
""")


LONG_LOOP = SPIN + textwrap.dedent("""
    import time
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal (see above)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.perf_counter()
    try:
        spin(x, 2_000_000_000)            # minutes of work if nothing stops it
        print("not interrupted")
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
    print(f"{time.perf_counter() - start:.2f}")
    print(spin(x, 3).tolist(), spin.cache_info().currsize, spin.cache_info().entries[0].tier)
""")


def test_ctrl_c_stops_a_long_compiled_loop(tmp_path):
    """SIGINT (what Ctrl-C and Jupyter's Interrupt button send) while a compiled loop runs:
    the loop stops at once (interrupts.py), with a KeyboardInterrupt, never Numba's
    SystemError or nothing; the function still works afterwards. The child starts with
    SIGINT ignored, as under a background test run, and sets the default handler itself."""
    env = dict(os.environ, EDUJAX_BACKEND="numba", EDUJAX_TIERED="0")
    for _ in range(3):   # the signal lands at a different point of the loop each time
        done = subprocess.run([sys.executable, "-c", LONG_LOOP], capture_output=True, text=True,
                              cwd=REPO, env=env, timeout=300, preexec_fn=ignoring_sigint)
        assert done.returncode == 0, done.stderr
        interrupted, seconds, after = done.stdout.splitlines()[-3:]
        assert interrupted == "KeyboardInterrupt"
        assert float(seconds) < 30, f"the loop ran {seconds} s after Ctrl-C at 0.5 s"
        values, size, tier = after.rsplit(" ", 2)
        np.testing.assert_allclose(eval(values), [1.0] * 4, rtol=1e-5)
        assert (size, tier) == ("1", "numba")


def test_kernel_interrupt_button_stops_a_compiled_loop(kernel):
    """Jupyter's Interrupt button during a long compiled loop: the kernel says "busy" and
    shows what the cell printed while the loop runs (the loop lets go of the GIL), the cell
    ends with KeyboardInterrupt within seconds, and the jitted function still works."""
    assert kernel.execute(SPIN).status == "ok"
    timing = {}

    def press_interrupt(k: Kernel) -> None:
        threading.Event().wait(1.0)          # "busy" came: the loop is running by now
        timing["pressed"] = time.perf_counter()
        k.manager.interrupt_kernel()

    for _ in range(2):
        stopped = kernel.execute('print("looping", flush=True)\nspin(x, 2_000_000_000)',
                                 while_running=press_interrupt)
        took = time.perf_counter() - timing["pressed"]
        assert stopped.status == "error" and stopped.error["ename"] == "KeyboardInterrupt"
        assert stopped.stdout == "looping\n"
        assert took < 30, f"the cell ended {took:.1f} s after the Interrupt button"
        after = kernel.execute("print(spin(x, 2).tolist(), spin.cache_info().currsize)")
        assert after.status == "ok" and after.stdout.startswith("[1.0"), after
        assert after.stdout.split()[-1] == "1"  # the same compiled entry, no half-made one
