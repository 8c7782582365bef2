"""docs/architecture.md is a reading path: each of its walks (``jnp.sin``, ``vmap``, ``jit``,
``grad``) shows an example and a table of the files that run for it. Here each example runs
in a fresh process under ``sys.setprofile``, and the files in which a function of edujax ran
must be exactly the files the table lists: a file that runs but is not listed, or one listed
that no longer runs, fails the test, so the document cannot drift from the code.

Only functions count (lambdas and comprehensions too), not the bodies of modules and classes
that a first import runs: those are imports, not the walk.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
WALKS = ("jnp.sin", "vmap", "jit", "grad")

# Runs one walk: the example's last line is the walk, the lines before it set it up.
RUNNER = r"""
import json, os, sys
import edujax as jax
import edujax.numpy as jnp
PACKAGE = os.path.dirname(jax.__file__) + os.sep
setup, walk = json.loads(sys.argv[1])
exec(setup)
ran = set()

def profile(frame, event, arg):
    code = frame.f_code
    # co_flags & 1 (CO_OPTIMIZED): a function, not a module's or a class's body
    if event == "call" and code.co_flags & 1 and code.co_filename.startswith(PACKAGE):
        ran.add(os.path.relpath(code.co_filename, PACKAGE).replace(os.sep, "/"))

sys.setprofile(profile)
exec(walk)
sys.setprofile(None)
print(json.dumps(sorted(ran)))
"""


def walk_from_doc(name: str) -> tuple[str, str, set[str]]:
    """(setup code, walk statement, files listed) of the walk ``name`` in the document."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- walk:{re.escape(name)} -->(.*?)<!-- /walk -->", text, re.S)
    assert match, f"docs/architecture.md has no walk {name!r}"
    block = match.group(1)
    code = re.search(r"```python\n(.*?)```", block, re.S).group(1).strip().splitlines()
    table = [line for line in block.splitlines() if line.startswith("| `")]
    files = {path for line in table for path in re.findall(r"`([\w/]+\.py)`",
                                                             line.split("|")[1])}
    return "\n".join(code[:-1]), code[-1], files


def files_that_run(setup: str, walk: str, tmp_path: Path) -> set[str]:
    env = dict(os.environ, EDUJAX_CACHE_DIR=str(tmp_path / "cache"))  # a cold kernel cache
    for name in ("EDUJAX_BACKEND", "EDUJAX_TIERED", "EDUJAX_DIRECT", "EDUJAX_AOT"):
        env.pop(name, None)  # the defaults the document describes
    out = subprocess.run([sys.executable, "-c", RUNNER, json.dumps([setup, walk])],
                         capture_output=True, text=True, env=env, timeout=600,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("name", WALKS)
def test_the_files_a_walk_lists_are_the_files_that_run(name, tmp_path):
    setup, walk, listed = walk_from_doc(name)
    ran = files_that_run(setup, walk, tmp_path)
    assert ran == listed, (
        f"docs/architecture.md, walk {name!r} ({walk}):\n"
        f"  run but not listed: {sorted(ran - listed)}\n"
        f"  listed but did not run: {sorted(listed - ran)}")


def test_every_walk_of_the_document_is_checked():
    found = re.findall(r"<!-- walk:(\S+) -->", DOC.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(WALKS)


# The names JAX's public API fixes for edujax's rule tables (docs/fidelity.md): they exist
# for user code written against JAX, and no module of edujax reads a table under them.
JAX_ONLY_NAMES = ("primitive_jvps", "primitive_transposes", "primitive_batchers")


def test_edujax_calls_each_rule_table_by_one_name():
    package = DOC.parents[1] / "edujax"
    uses = [f"{path.relative_to(package)}:{number}: {line.strip()}"
            for path in sorted(package.rglob("*.py"))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if any(re.search(rf"\b{name}\b", line) for name in JAX_ONLY_NAMES)]
    # the two lines that give JAX's names to the tables, and nothing else
    where = [u.split(":", 1)[0] for u in uses]
    assert where == ["interpreters/ad.py", "interpreters/batching.py"], uses
    fidelity = (DOC.parent / "fidelity.md").read_text(encoding="utf-8")
    assert all(name in fidelity for name in JAX_ONLY_NAMES)  # each one is explained there
