"""Run every tutorial in notebooks/ top to bottom, and say how long and how much memory each took.

    python scripts/run_notebooks.py              # all notebooks, on the "edujax" kernel if any
    python scripts/run_notebooks.py --prewarm    # the same with EDUJAX_TIERED=0 (see below)
    python scripts/run_notebooks.py notebooks/en/02_quickstart.md

Nothing is written back: the notebooks are read from their .md sources and their outputs are
thrown away. What it prints, per notebook, is the wall time and the kernel's peak resident
memory (the numbers docs/teaching.md quotes for sizing a JupyterHub).

``--prewarm`` is what binder/postBuild runs while the image is built: with ``EDUJAX_TIERED=0``
every ``jit`` compiles its Numba kernels at once instead of in the background, so all the
kernels the tutorials use land in the Numba disk cache (``~/.cache/edujax/numba``) that the
students' kernels then start from.

tests/test_notebooks.py runs the same notebooks and also checks what they print.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from jupyter_client.kernelspec import find_kernel_specs
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
PEAK_MEMORY = """\
import resource, sys
_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(_kb // 1024 if sys.platform != "darwin" else _kb // 2**20)   # MiB
"""


def run(path: Path, kernel: str, timeout: int) -> tuple[float, int]:
    """Execute one notebook; return (seconds, peak MiB of its kernel)."""
    nb = jupytext.read(path)
    nb.cells.append(nbformat.v4.new_code_cell(PEAK_MEMORY))
    client = NotebookClient(nb, kernel_name=kernel, timeout=timeout,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    return seconds, int(nb.cells[-1].outputs[0].text.split()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        help="notebook sources (.md); default: all of notebooks/")
    parser.add_argument("--prewarm", action="store_true",
                        help="compile every jit synchronously, to fill the Numba disk cache")
    parser.add_argument("--kernel", default=None,
                        help='Jupyter kernel; default "edujax" if installed, else "python3"')
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)

    notebooks = ROOT / "notebooks"
    paths = args.paths or sorted(p for p in [*notebooks.glob("*/*.md"),
                                             *notebooks.glob("inside/*/*.md")]
                                 if p.name != "README.md")
    kernel = args.kernel or ("edujax" if "edujax" in find_kernel_specs() else "python3")
    if args.prewarm:
        os.environ["EDUJAX_TIERED"] = "0"      # the kernels inherit it
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    total = 0.0
    for path in paths:
        seconds, mib = run(path.resolve(), kernel, args.timeout)
        total += seconds
        print(f"{path}: {seconds:6.1f} s, kernel peak {mib} MiB", flush=True)
    print(f"{len(paths)} notebooks in {total:.1f} s on the {kernel!r} kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
