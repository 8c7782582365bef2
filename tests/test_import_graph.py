"""The import graph of edujax: no cycles, and no imports hidden inside functions.

docs/layers.md draws edujax in layers where every import runs downward; `lint-imports`
(scripts/test) checks the layers. Two things its contracts do not see are checked here:

* a cycle through a package's ``__init__`` (``edujax.backends`` importing
  ``edujax.backends.numba_cpu``, which imports ``edujax.backends`` back): the ``no-cycles``
  contract compares sibling modules only;
* an import of an edujax module inside a function, which hides a dependency from a reader.
  The few that are needed (a heavy module imported when first used) are listed below.
"""
from __future__ import annotations

import ast
import pathlib

import pytest

import edujax

grimp = pytest.importorskip("grimp")  # installed with import-linter (the dev extra)

PACKAGE = pathlib.Path(edujax.__file__).parent

# The one upward import of the package (docs/layers.md): `%load_ext edujax` calls
# load_ipython_extension, which imports the magics; the magics import edujax back.
HOOK = ("edujax", "edujax.magics")

# Function-level imports of edujax modules that are needed, each with its reason in a comment
# where it is made: (file, module imported).
ALLOWED_INSIDE_FUNCTIONS = {
    # The code generators take most of a second to import: loaded when the backend is used.
    ("backends/numba_cpu/__init__.py", "edujax.backends.numba_cpu.backend"),
    ("backends/numba_cuda/__init__.py", "edujax.backends.numba_cuda.backend"),
    ("__init__.py", "edujax.magics"),  # the hook above (IPython is optional)
}
# The classroom packages (on top of everything) import optional things inside functions.
CLASSROOM = ("magics", "kernel", "viz", "grading")


def test_no_import_cycles():
    graph = grimp.build_graph("edujax")
    if HOOK[1] in graph.modules:
        graph.remove_import(importer=HOOK[0], imported=HOOK[1])
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(importer=imported, imported=module):
                back = graph.find_shortest_chain(importer=imported, imported=module)
                cycles.append(" -> ".join((module, *back)))
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _edujax_imports_inside_functions(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, module) of each import of an edujax module made inside a function."""
    package = ".".join(("edujax", *path.relative_to(PACKAGE).parent.parts))
    found = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, ast.Import):
                found.extend((child.lineno, a.name) for a in child.names
                             if a.name.split(".")[0] == "edujax")
            elif inside and isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = package.split(".")[:len(package.split(".")) - child.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                if base.split(".")[0] == "edujax":
                    found.extend((child.lineno, f"{base}.{a.name}") for a in child.names)
            visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda)))

    visit(ast.parse(path.read_text()), False)
    return found


def _allowed(file: str, module: str) -> bool:
    # `from edujax.a import b` names edujax.a.b, which may be a module or a name in edujax.a.
    return any(file == f and (module == m or module.rsplit(".", 1)[0] == m)
               for f, m in ALLOWED_INSIDE_FUNCTIONS)


def test_no_edujax_imports_inside_functions():
    hidden = []
    for path in sorted(PACKAGE.rglob("*.py")):
        file = path.relative_to(PACKAGE).as_posix()
        if file.split("/")[0] in CLASSROOM:
            continue
        hidden += [f"edujax/{file}:{line}: {module}"
                   for line, module in _edujax_imports_inside_functions(path)
                   if not _allowed(file, module)]
    assert not hidden, ("imports of edujax modules inside functions (import at the top of the "
                        "file, or explain why not and list it here):\n" + "\n".join(hidden))
