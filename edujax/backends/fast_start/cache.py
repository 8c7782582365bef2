"""The persistent kernel cache: generated modules stored as real files, named by content.

Numba can keep compiled machine code on disk (``@njit(cache=True)``), but only for
functions defined in a real source file: it stores the code next to the file, in
``__pycache__``, and reuses it while the file is unchanged. A function built with
``exec()`` has no file, so it would be compiled again in every new process.

So each generated module is written to ``EDUJAX_CACHE_DIR`` (default: the user's cache
folder, e.g. ``~/.cache/edujax/numba`` on Linux) under a name made from the SHA-256 of
its text, then imported like any module. The same jaxpr (same shapes and dtypes) always
generates the same text, hence the same file, hence Numba's cached machine code: in a new
process, nothing is compiled again.

A file is never rewritten in place. Numba checks the source file's modification time; a
rewrite, even with the same text, would throw its cache away (and a process reading the
file while another writes it could see half of it). New files are written under a temporary
name and linked into place atomically; an existing file is only ever read. Every file is
readable by all (0644): the folder may be an image's pre-warmed cache that a JupyterHub runs
under other users.

A cache folder this user may not write (``EDUJAX_CACHE_DIR`` pointing at such a shared,
read-only cache) is read, never written: what it lacks goes to the user's own cache folder
(``cache_dir()``), and a module found only in the shared folder is copied there with its
Numba files, so that Numba reuses their machine code (Numba keeps its cache only beside a
source file it may write).
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import py_compile
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

_lock = threading.Lock()  # one import at a time: modules are registered in sys.modules
logger = logging.getLogger("edujax.numba")


def default_cache_dir() -> Path:
    """The per-user cache folder of the platform, plus ``edujax/numba``."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "edujax" / "numba"


def cache_dir(create: bool = True) -> Path:
    """The folder new files go to: ``EDUJAX_CACHE_DIR`` if set (unless it is a shared folder
    this user may not write, ``shared_cache_dir()``), else ``default_cache_dir()``; created
    if missing (an OSError if it cannot be: the caller then compiles in memory)."""
    configured = os.environ.get("EDUJAX_CACHE_DIR")
    path = Path(configured) if configured else default_cache_dir()
    if configured and _read_only(path):
        path = default_cache_dir()
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def shared_cache_dir() -> Path | None:
    """``EDUJAX_CACHE_DIR`` when it exists but this user may not write it (a JupyterHub's
    pre-warmed image, another user's folder): files are read from it, never written."""
    configured = os.environ.get("EDUJAX_CACHE_DIR")
    return Path(configured) if configured and _read_only(Path(configured)) else None


def _read_only(path: Path) -> bool:
    return path.is_dir() and not os.access(path, os.W_OK | os.X_OK)


def module_name(source: str) -> str:
    """``edujax_kernels_<hash>``: the hash of the text and of the Numba version that will
    compile it (a new Numba must not reuse machine code cached by an old one)."""
    import numba
    key = f"{source}\n# numba {numba.__version__}".encode()
    return "edujax_kernels_" + hashlib.sha256(key).hexdigest()[:24]


def write_module(source: str, directory: Path | None = None) -> Path:
    """The path of the file holding ``source``, writing it first if it does not exist."""
    directory = directory or cache_dir()
    name = module_name(source)
    for attempt in range(100):
        path = directory / (name + (f"_{attempt}" if attempt else "") + ".py")
        if not path.exists():
            create_atomically(path, source.encode())
        if path.read_text() == source:
            return path
        # A different text under this name (a damaged file): never touch it, use another name.
    raise RuntimeError(f"could not write a kernel module for {name} in {directory}")


def create_atomically(path: Path, data: bytes, replace: bool = False) -> None:
    """Write ``path`` unless it exists, so that no reader ever sees half of it: under a
    temporary name first, then linked into place (a file already there is left alone,
    unless ``replace``: then it is swapped for the new one in one step)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        os.fchmod(fd, 0o644)  # (mkstemp makes it 0600: private to its owner)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if replace:
            os.replace(tmp, path)
            return
        try:
            os.link(tmp, path)  # fails if another process created it first: fine
        except FileExistsError:
            pass
        except OSError:  # a filesystem without hard links
            if not path.exists():
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load_module(source: str) -> ModuleType:
    """Import the module whose text is ``source`` (from the cache folder)."""
    name = module_name(source)
    with _lock:
        module = sys.modules.get(name)
        if module is not None:
            return module
        copy_from_shared(name)
        path = write_module(source)
        _write_bytecode(path)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module


def copy_from_shared(name: str) -> None:
    """Copy the module ``name`` (its text, its bytecode and Numba's files) from the shared
    cache folder into the user's own, if only the shared one has it. The copies keep their
    modification times, which Numba's index and Python's bytecode check against the text."""
    shared = shared_cache_dir()
    if shared is None or not (shared / f"{name}.py").exists():
        return
    try:
        target = cache_dir()
        if (target / f"{name}.py").exists():
            return
        (target / "__pycache__").mkdir(exist_ok=True)
        for path in sorted((shared / "__pycache__").glob(f"{name}.*")):
            shutil.copy2(path, target / "__pycache__" / path.name)
        tmp = target / f".tmp-{name}-{os.getpid()}.py"
        shutil.copy2(shared / f"{name}.py", tmp)
        os.replace(tmp, target / f"{name}.py")  # the text last: it says the copy is complete
    except OSError as e:  # (then the module is written and compiled as if new)
        logger.info("edujax: could not copy %s from the shared cache %s (%s)", name, shared, e)


def _write_bytecode(path: Path) -> None:
    """Compile the module's text to Python bytecode once, into ``__pycache__``, so that a
    new process imports it without parsing it again (a big program's module is long). Done
    here because Python itself writes no bytecode where ``PYTHONDONTWRITEBYTECODE`` is set,
    as on many shared servers and CI machines."""
    bytecode = importlib.util.cache_from_source(str(path))
    if not os.path.exists(bytecode):
        try:
            py_compile.compile(str(path), cfile=bytecode, doraise=True)
        except (OSError, py_compile.PyCompileError):
            pass  # (a read-only folder: Python parses the text each time, as before)


def load_module_in_memory(source: str) -> ModuleType:
    """The module built from ``source`` without any file: Numba compiles its kernels in
    this process only (``cache=True`` needs a source file, so it is turned off)."""
    module = ModuleType(module_name(source) + "_in_memory")
    exec(compile(source.replace("cache=True", "cache=False"), module.__name__, "exec"),
         module.__dict__)
    return module


def cached_files(source: str, directory: Path | None = None) -> list[Path]:
    """Numba's files for the module of ``source``: its index (``.nbi``) and machine code
    (``.nbc``) files, in ``__pycache__`` beside the module."""
    directory = directory or cache_dir(create=False)
    pycache = directory / "__pycache__"
    if not pycache.is_dir():
        return []
    return sorted(pycache.glob(module_name(source) + ".*.nb[ic]"))


def forget(source: str) -> int:
    """Drop the module of ``source`` from this process and its Numba files from the disk,
    so that the next ``load_module`` compiles it afresh. Returns the files removed."""
    with _lock:
        sys.modules.pop(module_name(source), None)
    removed = 0
    for path in cached_files(source):
        try:
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink()
            removed += 1
        except OSError:
            pass
    return removed
