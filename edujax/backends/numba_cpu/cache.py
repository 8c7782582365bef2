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
name and linked into place atomically; an existing file is only ever read.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

_lock = threading.Lock()  # one import at a time: modules are registered in sys.modules


def default_cache_dir() -> Path:
    """The per-user cache folder of the platform, plus ``edujax/numba``."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "edujax" / "numba"


def cache_dir() -> Path:
    """``EDUJAX_CACHE_DIR`` if set, else ``default_cache_dir()``; created if missing."""
    path = Path(os.environ.get("EDUJAX_CACHE_DIR") or default_cache_dir())
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only home: fall back to a private temporary folder
        user = os.getuid() if hasattr(os, "getuid") else 0
        path = Path(tempfile.gettempdir()) / f"edujax-numba-{user}"
        path.mkdir(parents=True, exist_ok=True)
    return path


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
            _create_atomically(path, source)
        if path.read_text() == source:
            return path
        # A different text under this name (a damaged file): never touch it, use another name.
    raise RuntimeError(f"could not write a kernel module for {name} in {directory}")


def _create_atomically(path: Path, source: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(source)
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
        path = write_module(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module
