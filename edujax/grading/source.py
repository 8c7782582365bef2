"""Master notebooks kept as text: jupytext's "percent" format, read without jupytext.

A notebook file is JSON with outputs and metadata mixed in: hard to review in a pull
request, easy to break by hand. So the masters in course-kit/exercises/ are ``.py`` files
in the *percent* format that jupytext, VS Code, Spyder and PyCharm understand:

    # %% [markdown]           a Markdown cell; each line starts with "# "
    # # Assignment 1
    # %% [raw]                a raw cell (otter's "# BEGIN QUESTION" markers live here)
    # # BEGIN QUESTION
    # name: q1
    # %%                      a code cell, as written
    def loss(w): ...

``notebook_from_percent`` turns one into an nbformat notebook for otter. One shortcut:
otter wants every answer cell between two raw cells, ``# BEGIN SOLUTION`` and ``# END
SOLUTION``; a code cell that contains solution markers (``# BEGIN SOLUTION`` lines, or a
line ending in ``# SOLUTION``) gets those two raw cells around it automatically, so a
master only marks the lines to hide. A master can also simply be an ``.ipynb``;
``read_master`` accepts both.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# The kernel the exercises run on: the EduJAX kernel (magics, hint boxes under tracing
# errors, key-reuse warnings). ``python -m edujax.kernel install`` registers it.
KERNELSPEC = {"name": "edujax", "display_name": "EduJAX (Python 3)", "language": "python"}

CELL_MARKER = re.compile(r"^# %%(?:\s*\[(markdown|md|raw)\])?\s*$")


def _uncomment(lines: list[str]) -> list[str]:
    """Markdown and raw cells are stored as comments: drop the leading "# " (or "#")."""
    return [line[2:] if line.startswith("# ") else line[1:] if line.startswith("#") else line
            for line in lines]


def _strip_blank_edges(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def split_cells(text: str) -> list[tuple[str, str]]:
    """``[(cell_type, source), ...]`` from percent-format text."""
    cells: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        marker = CELL_MARKER.match(line)
        if marker:
            kind = {"markdown": "markdown", "md": "markdown", "raw": "raw"}.get(
                marker.group(1) or "", "code")
            cells.append((kind, []))
        elif cells:
            cells[-1][1].append(line)
        # lines before the first marker (a header comment) belong to no cell
    return [(kind, "\n".join(_strip_blank_edges(
        lines if kind == "code" else _uncomment(lines)))) for kind, lines in cells]


SOLUTION_MARK = re.compile(r"# (BEGIN )?SOLUTION\s*$", re.MULTILINE)


def wrap_answer_cells(cells: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Put raw ``# BEGIN SOLUTION``/``# END SOLUTION`` cells around answer cells."""
    out: list[tuple[str, str]] = []
    for kind, source in cells:
        answer = kind == "code" and SOLUTION_MARK.search(source)
        already_wrapped = bool(out) and out[-1] == ("raw", "# BEGIN SOLUTION")
        if answer and not already_wrapped:
            out += [("raw", "# BEGIN SOLUTION"), (kind, source), ("raw", "# END SOLUTION")]
        else:
            out.append((kind, source))
    return out


def notebook_from_percent(text: str) -> Any:
    """An nbformat v4 notebook, on the EduJAX kernel, from percent-format text."""
    import nbformat  # comes with otter-grader and Jupyter; only the teacher's tools need it

    make = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
            "raw": nbformat.v4.new_raw_cell}
    cells = wrap_answer_cells(split_cells(text))
    nb = nbformat.v4.new_notebook(cells=[make[kind](src) for kind, src in cells])
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def read_master(path: Path) -> Any:
    """The master notebook at ``path`` (``.ipynb``, or a percent-format ``.py``)."""
    import nbformat

    if path.suffix == ".ipynb":
        return nbformat.read(path, as_version=4)
    return notebook_from_percent(path.read_text(encoding="utf-8"))
