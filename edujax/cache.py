"""``python -m edujax.cache info|clear``: look at, or empty, the kernel cache on disk.

jit's Numba backend keeps every generated kernel module, and Numba's machine code for
it, in one folder (``EDUJAX_CACHE_DIR``, by default ``~/.cache/edujax/numba``; see
``edujax/backends/fast_start/cache.py``). Nothing there is needed: a module that is
missing is generated and compiled again on first use. So clearing it is always safe, and
useful after copying a home folder between machines or to measure a cold start.

    python -m edujax.cache info     # where, how many modules, how much space
    python -m edujax.cache clear    # delete the modules, Numba's files and the object files

(``edujax.clear_caches()`` is the in-memory side: it forgets every jitted function's
compiled signatures in the running process.)
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from edujax.backends.fast_start.cache import cache_dir

USAGE = "usage: python -m edujax.cache info|clear"


class DiskCacheInfo(NamedTuple):
    folder: Path
    modules: int        # generated kernel modules (edujax_kernels_*.py)
    numba_files: int    # Numba's index (.nbi) and machine code (.nbc) files
    size_bytes: int
    object_files: int = 0  # kernels' machine code for loading without Numba (aot.py)


def _files(folder: Path) -> tuple[list[Path], list[Path], list[Path]]:
    modules = sorted(folder.glob("edujax_kernels_*.py"))
    pycache = folder / "__pycache__"
    numba = sorted(pycache.glob("edujax_kernels_*.nb[ic]")) if pycache.is_dir() else []
    objects = sorted(folder.glob("edujax_aot_*.o")) + sorted(folder.glob("edujax_aot_*.json"))
    return modules, numba, objects


def info(folder: Path | None = None) -> DiskCacheInfo:
    folder = folder or cache_dir(create=False)
    if not folder.is_dir():
        return DiskCacheInfo(folder, 0, 0, 0)
    modules, numba, objects = _files(folder)
    size = sum(p.stat().st_size for p in modules + numba + objects if p.is_file())
    return DiskCacheInfo(folder, len(modules), len(numba), size,
                         sum(p.suffix == ".o" for p in objects))


def clear(folder: Path | None = None) -> int:
    """Delete the kernel modules and Numba's files for them; return how many files."""
    folder = folder or cache_dir(create=False)
    if not folder.is_dir():
        return 0
    modules, numba, objects = _files(folder)
    removed = 0
    for path in modules + numba + objects + sorted(folder.glob(".tmp-*")):
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _size_text(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["info"]:
        i = info()
        print(f"edujax kernel cache: {i.folder}\n  {i.modules} kernel modules, "
              f"{i.numba_files} Numba files, {i.object_files} object files, "
              f"{_size_text(i.size_bytes)}")
        return 0
    if argv == ["clear"]:
        folder = cache_dir(create=False)
        print(f"removed {clear(folder)} files from {folder}")
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
