"""Run every tutorial in notebooks/ top to bottom, and say how long and how much memory each took.

    python scripts/run_notebooks.py              # all notebooks, on the "edujax" kernel if any
    python scripts/run_notebooks.py --prewarm    # fill the kernel cache (see below)
    python scripts/run_notebooks.py notebooks/en/02_quickstart.md

Nothing is written back: the notebooks are read from their .md sources and their outputs are
thrown away. What it prints, per notebook, is the wall time, the kernel's peak resident memory
(the numbers docs/teaching.md quotes for sizing a JupyterHub) and every text a cell wrote to
stderr (a warning under a cell is something a student would see).

``--prewarm`` is what binder/postBuild runs while the image is built. It runs the notebooks as
a student's kernel does (tiered: a new jit answers on the interpreter while its kernels
compile in the background), then waits, before the kernel exits, until every background
compile and object-file export is done: so the kernel cache holds every kernel a student's
kernel will ask for, the kernels of the inner jits that only the tiered path compiles
included. The cache is ``EDUJAX_CACHE_DIR``: postBuild sets it to the repository's
``.edujax_cache/``, which binder/start points the students' kernels at (without it, the
user's ``~/.cache/edujax/numba``). It skips the Korean notebooks:
their code is the English ones' with its comments translated (tests/test_binder_launch.py
checks that they add nothing to the cache).

tests/test_notebooks.py runs the same notebooks and also checks what they print.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat
from jupyter_client.kernelspec import find_kernel_specs
from nbclient import NotebookClient
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[1]
PEAK_MEMORY = """\
import resource, sys
_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(_kb // 1024 if sys.platform != "darwin" else _kb // 2**20)   # MiB
"""
# Before the kernel exits: wait for the compiles queued in the background (tiering.py).
WAIT_FOR_COMPILES = """\
from edujax.backends.fast_start import tiering
tiering.wait_until_idle()
"""


def run(path: Path, kernel: str, timeout: int,
        prewarm: bool = False) -> tuple[float, int, list[str]]:
    """Execute one notebook; return (seconds, peak MiB of its kernel, the texts its cells
    wrote to stderr)."""
    nb = jupytext.read(path)
    if prewarm:
        nb.cells.append(nbformat.v4.new_code_cell(WAIT_FOR_COMPILES))
    nb.cells.append(nbformat.v4.new_code_cell(PEAK_MEMORY))
    with tempfile.TemporaryDirectory(prefix="run-notebooks-") as sockets:
        # Unix sockets, not TCP ports: no port to race for, and no "Kernel is running over
        # TCP without encryption" warning per notebook.
        config = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "k")}})
        client = NotebookClient(nb, kernel_name=kernel, timeout=timeout, config=config,
                                resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        client.execute()
        seconds = time.perf_counter() - start
    stderr = [out.text for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", [])
              if out.output_type == "stream" and out.name == "stderr"]
    return seconds, int(nb.cells[-1].outputs[0].text.split()[-1]), stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        help="notebook sources (.md); default: all of notebooks/")
    parser.add_argument("--prewarm", action="store_true",
                        help="fill the kernel cache: wait for every background compile "
                             "before each kernel exits; skip the Korean notebooks")
    parser.add_argument("--kernel", default=None,
                        help='Jupyter kernel; default "edujax" if installed, else "python3"')
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)

    notebooks = ROOT / "notebooks"
    paths = args.paths or sorted(p for p in [*notebooks.glob("*/*.md"),
                                             *notebooks.glob("inside/*/*.md")]
                                 if p.name != "README.md")
    if args.prewarm and not args.paths:
        paths = [p for p in paths if p.parent.name != "ko"]
    kernel = args.kernel or ("edujax" if "edujax" in find_kernel_specs() else "python3")
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    total = 0.0
    for path in paths:
        seconds, mib, stderr = run(path.resolve(), kernel, args.timeout, args.prewarm)
        total += seconds
        print(f"{path}: {seconds:6.1f} s, kernel peak {mib} MiB, "
              f"{len(stderr)} stderr output(s)", flush=True)
        for text in stderr:
            print("  stderr: " + text.rstrip().replace("\n", "\n          "), flush=True)
    print(f"{len(paths)} notebooks in {total:.1f} s on the {kernel!r} kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
