"""Run the tutorials' cells (tests/seeds/seed_*.py) and record what they print.

    JAX_PLATFORMS=cpu /tmp/jaxenv/bin/python tests/seeds/record.py

runs every seed file's cells in order, in one namespace per seed, with real JAX (the Python
running this script must have jax, numpy and matplotlib), and writes
tests/seeds/expected.json::

    {"seed_000": [{"line": 9, "tags": [], "code": "...", "stdout": "...", "display": null,
                   "raises": null, "message": null}, ...], ...}

``display`` is what a notebook shows under the cell: ``repr`` of the value of the cell's last
statement when it is an expression (not None, and the cell does not end with ``;``), as
IPython does (IPython pretty-prints long containers over several lines; we keep the plain
repr). ``raises``/``message`` are the type name and first message line of an exception that
ended the cell. tests/test_seeds.py imports this module and replays the same cells with
``jax`` aliased to edujax, so both sides run the cells the same way.

A seed file is Python made of cells, each starting with a marker line
``# %% L<line> [tags]``: <line> is the cell's first line in the tutorial text in
shared/seeds, and the tags say how to check it:

- ``timing``: an IPython ``%timeit`` (or a ``time.time()`` measurement), run once; its output
  is not compared, and ``%timeit`` shows no value, so nothing is displayed.
- ``device``: its output depends on the devices present; not compared.
- ``raises``: the tutorial shows this cell raising on purpose.
- ``fragment``: an illustrative snippet from the prose (it uses names never defined).
- ``added``: code that is not in the tutorial (imports that a blog post assumes).
"""
from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

SEEDS_DIR = Path(__file__).resolve().parent
EXPECTED_PATH = SEEDS_DIR / "expected.json"
MARKER = re.compile(r"^# %% L(\d+)((?:[ \t]+\w+)*)[ \t]*$")
NOT_COMPARED = {"timing", "device"}


@dataclass
class Cell:
    line: int            # first line of the cell in the tutorial's text (shared/seeds/*.txt)
    tags: list[str]
    code: str
    file_line: int       # line of the cell's first code line in the seed_*.py file
    path: Path = field(repr=False)

    @property
    def label(self) -> str:
        return f"L{self.line}" + "".join(f" {t}" for t in self.tags)


def seed_files() -> list[Path]:
    return sorted(SEEDS_DIR.glob("seed_*.py"))


def parse_cells(path: Path) -> list[Cell]:
    """Split a seed file at its ``# %% L<line> [tags]`` markers (a header may come first)."""
    cells: list[Cell] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, text in enumerate(lines):
        m = MARKER.match(text)
        if m is None:
            if text.startswith("# %%"):
                raise ValueError(f"{path.name}:{i + 1}: malformed cell marker {text!r}")
            if cells:
                cells[-1].code += text + "\n"
            continue
        cells.append(Cell(int(m.group(1)), m.group(2).split(), "", i + 2, path))
    for cell in cells:
        cell.code = cell.code.rstrip() + "\n"
    return cells


def _ends_with_semicolon(code: str) -> bool:
    """IPython shows no value for a cell whose last token (comments aside) is ``;``."""
    last = None
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.ENDMARKER):
            last = tok
    return last is not None and last.string == ";"


def display(*objs) -> None:
    """IPython's ``display`` without a frontend: print each object's repr."""
    for obj in objs:
        print(repr(obj))


def new_namespace() -> dict:
    """A fresh notebook namespace. NumPy's global generator is reseeded so that cells that
    draw unseeded NumPy data (seed_002's training data) give JAX and edujax the same numbers;
    import jax (or edujax) before calling this, as its first import draws from it."""
    import numpy as np

    np.random.seed(0)
    os.environ.setdefault("MPLBACKEND", "Agg")
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg")
    return {"__name__": "__main__", "__builtins__": __builtins__, "display": display}


def close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@dataclass
class Outcome:
    stdout: str
    display: str | None
    raises: str | None
    message: str | None
    error: BaseException | None  # the exception itself, for reports

    def record(self) -> dict:
        return {"stdout": normalize(self.stdout), "display": normalize(self.display),
                "raises": self.raises, "message": normalize(self.message)}


def run_cell(cell: Cell, ns: dict) -> Outcome:
    """Run one cell in ``ns`` like a notebook would; capture stdout and the displayed value."""
    tree = ast.parse(cell.code, filename=str(cell.path))
    ast.increment_lineno(tree, cell.file_line - 1)   # tracebacks point into the seed file
    shown = None
    if (tree.body and isinstance(tree.body[-1], ast.Expr) and "timing" not in cell.tags
            and not _ends_with_semicolon(cell.code)):
        shown = ast.Expression(tree.body.pop().value)
    out = io.StringIO()
    value = error = None
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(tree, str(cell.path), "exec"), ns)
            if shown is not None:
                value = eval(compile(shown, str(cell.path), "eval"), ns)
                value = None if value is None else repr(value)
    except Exception as e:  # noqa: BLE001 - any exception is part of the record
        error = e
    if error is None:
        return Outcome(out.getvalue(), value, None, None, None)
    lines = str(error).splitlines()
    return Outcome(out.getvalue(), None, type(error).__name__, lines[0] if lines else "", error)


def normalize(text: str | None) -> str | None:
    """Memory addresses (``<object object at 0x7f...>``) differ from run to run."""
    return None if text is None else re.sub(r"\bat 0x[0-9a-fA-F]+", "at 0x...", text)


def main() -> None:
    os.environ["JAX_PLATFORMS"] = "cpu"
    # `import jax` draws from NumPy's global generator the first time: import it before
    # new_namespace() seeds that generator, as edujax is imported before the test's cells run.
    import jax

    expected = {}
    for path in seed_files():
        cells = parse_cells(path)
        ns = new_namespace()
        records = []
        for cell in cells:
            outcome = run_cell(cell, ns)
            if outcome.raises and "raises" not in cell.tags:
                print(f"warning: {path.stem} {cell.label} raised {outcome.raises}: "
                      f"{outcome.message}", file=sys.stderr)
            if "raises" in cell.tags and not outcome.raises:
                print(f"warning: {path.stem} {cell.label} did not raise", file=sys.stderr)
            records.append({"line": cell.line, "tags": cell.tags, "code": cell.code,
                            **outcome.record()})
        close_figures()
        expected[path.stem] = records
        print(f"{path.stem}: {len(records)} cells", file=sys.stderr)
    EXPECTED_PATH.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    print(f"wrote {EXPECTED_PATH} (jax {jax.__version__})", file=sys.stderr)


if __name__ == "__main__":
    main()
