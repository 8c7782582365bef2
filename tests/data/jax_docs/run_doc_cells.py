"""Run the code cells of one of JAX's documentation notebooks (MyST Markdown), in order, in
one namespace, as Jupyter would, and write what each cell showed: its printed text plus
the repr of a last expression, or the exception's type and first line.

    # real JAX 0.10 (a separate virtualenv), 8 simulated CPU devices, as the docs set them:
    XLA_FLAGS=--xla_force_host_platform_device_count=8 /tmp/jaxenv31/bin/python \\
        tests/data/jax_docs/run_doc_cells.py jax-repo/docs/parallel.md \\
        tests/data/jax_docs/parallel.json
    # the same cells on edujax (``import jax`` is edujax there):
    .venv/bin/python tests/data/jax_docs/run_doc_cells.py --edujax \\
        tests/data/jax_docs/parallel.json /tmp/parallel-edujax.json

The JSON keeps each cell's code, so edujax replays exactly what JAX ran (the docs come from
github.com/jax-ml/jax, Apache License 2.0). tests/test_jax_docs.py replays them.
"""
import __future__
import ast
import contextlib
import io
import json
import re
import signal
import sys

CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
TIMEOUT_S = 60


def cells_of(markdown: str) -> list[str]:
    """The code cells' sources, without their ``:key: value`` metadata lines."""
    out = []
    for body in CELL.findall(markdown):
        lines = body.splitlines()
        while lines and (lines[0].startswith(":") or not lines[0].strip()):
            lines.pop(0)
        out.append("\n".join(lines))
    return out


def run_cell(code: str, ns: dict, flags: list) -> dict:
    """Run one cell as Jupyter does: statements, then the value of a last expression (a
    ``from __future__ import`` holds for the cells after it too, as in IPython)."""
    buf = io.StringIO()
    try:
        if "from __future__ import annotations" in code:
            flags[0] |= __future__.annotations.compiler_flag
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(buf):
            exec(compile(tree, "<cell>", "exec", flags=flags[0]), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<cell>", "eval",
                                     flags=flags[0]), ns)
                if value is not None:
                    print(repr(value))
        return {"out": buf.getvalue()}
    except BaseException as e:  # noqa: BLE001 - a cell's failure is a result to record
        message = str(e).splitlines()[0] if str(e) else ""
        return {"out": buf.getvalue(), "raises": type(e).__name__, "message": message}


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout(f"a cell ran past {TIMEOUT_S} s")


def run_cells(codes: list[str]) -> list[dict]:
    """All cells on this (the main) thread, as a kernel runs them: a mesh set by
    ``jax.set_mesh`` in one cell is current in the next."""
    ns: dict = {"__name__": "__main__"}
    flags = [0]
    results = []
    signal.signal(signal.SIGALRM, _alarm)
    for code in codes:
        if code.lstrip().startswith(("%", "!")):
            results.append({"code": code, "skipped": "an IPython magic or shell command"})
            continue
        signal.alarm(TIMEOUT_S)
        try:
            results.append({"code": code, **run_cell(code, ns, flags)})
        finally:
            signal.alarm(0)
    return results


def main() -> None:
    args = sys.argv[1:]
    if args[0] == "--edujax":
        import edujax
        edujax.config.update("edujax_num_cpu_devices", 8)
        edujax.install_as_jax() if hasattr(edujax, "install_as_jax") else _alias(edujax)
        codes = [c["code"] for c in json.load(open(args[1]))["cells"]]
        out_path = args[2]
        source = json.load(open(args[1]))["source"]
    else:
        import jax
        codes = cells_of(open(args[0]).read())
        out_path, source = args[1], args[0].split("docs/", 1)[-1]
        source = f"docs/{source} (jax {jax.__version__})"
    json.dump({"source": source, "cells": run_cells(codes)}, open(out_path, "w"), indent=1)


def _alias(edujax) -> None:
    """``import jax`` (and its submodules the docs import) give edujax's."""
    import importlib
    sys.modules["jax"] = edujax
    for name in ("numpy", "lax", "sharding", "random", "nn", "tree_util", "debug",
                 "experimental", "scipy", "tree", "typing"):
        try:
            sys.modules[f"jax.{name}"] = importlib.import_module(f"edujax.{name}")
        except ImportError:
            pass


if __name__ == "__main__":
    main()
