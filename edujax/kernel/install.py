"""Installing the ``edujax`` kernelspec: a kernel.json that starts this package's kernel.

A kernelspec is a folder holding ``kernel.json``: the command Jupyter runs to start a
kernel (with ``{connection_file}`` filled in), its display name and language.
``jupyter_client`` copies the folder into a ``share/jupyter/kernels/`` directory:
the user's (``--user``), the current environment's (``--sys-prefix``, what
scripts/setup uses), or any prefix (``--prefix PATH``).
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager

from edujax.kernel import DISPLAY_NAME, KERNEL_NAME


def kernel_json(python: str = sys.executable) -> dict:
    return {
        "argv": [python, "-m", "edujax.kernel", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "metadata": {"debugger": True},
    }


def install(user: bool = False, prefix: str | None = None) -> str:
    """Install the kernelspec; return the folder it was installed into."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / KERNEL_NAME
        folder.mkdir()
        (folder / "kernel.json").write_text(json.dumps(kernel_json(), indent=2) + "\n")
        return KernelSpecManager().install_kernel_spec(
            str(folder), KERNEL_NAME, user=user, prefix=prefix)
