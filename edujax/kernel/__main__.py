"""``python -m edujax.kernel``: install the kernelspec, or run the kernel.

    python -m edujax.kernel install [--user | --sys-prefix | --prefix PATH]
    python -m edujax.kernel -f CONNECTION_FILE     (what Jupyter runs; see kernel.json)
"""
from __future__ import annotations

import argparse
import sys

from ipykernel.kernelapp import IPKernelApp
from traitlets.config import Config

from edujax.kernel.install import install


def _install(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m edujax.kernel install",
                                     description="Install the 'edujax' Jupyter kernelspec.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="into the user's Jupyter folder")
    where.add_argument("--sys-prefix", action="store_true",
                       help="into this Python environment (sys.prefix)")
    where.add_argument("--prefix", help="into PREFIX/share/jupyter/kernels")
    args = parser.parse_args(argv)
    prefix = sys.prefix if args.sys_prefix else args.prefix
    path = install(user=args.user, prefix=prefix)
    print(f"Installed the edujax kernelspec in {path}")
    return 0


def _run(argv: list[str]) -> None:
    """Start an ipykernel that loads edujax.kernel as an extension."""
    config = Config()
    config.IPKernelApp.extra_extensions = ["edujax.kernel"]
    IPKernelApp.launch_instance(argv=argv, config=config)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["install"]:
        return _install(argv[1:])
    _run(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
