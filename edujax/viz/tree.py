"""``viz.tree``: any pytree as a foldable tree, with key paths and array summaries.

    viz.tree({"layers": [{"w": w0, "b": b0}, {"w": w1, "b": b1}], "step": 3})

Each row is one node of the tree, found the way ``tree_util`` finds them (dicts, lists,
tuples, namedtuples, None, dataclasses and your registered classes), and says

* its **key path**, the same string ``jax.tree_util.keystr`` gives (``['layers'][0]['w']``),
  so you can copy it into ``tree_map_with_path`` code;
* its **type** (``dict``, ``list``, ``Params``, ``Array``...);
* for an array leaf: **shape and dtype** (``f32[3,4]``) and a **summary** of its numbers,
  min / mean / max and how many are NaN or infinite: the first thing to look at when a
  training run goes wrong (treescope, penzai's pretty-printer, does the same).

The static HTML folds with the browser's own ``<details>`` element, so it folds even on
GitHub or nbviewer, without a kernel.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from edujax.core import short_dtype_name
from edujax.tree_util import flatten_one_level_with_keys, keystr
from edujax.viz.view import View, escape

MAX_ROWS = 500  # a tree bigger than this shows its first rows and says how many are left


@dataclass
class Row:
    path: str  # the key path, keystr-style: "['layers'][0]['w']"; "" for the root
    key: str  # the last entry of the path: "['w']"
    depth: int
    type: str  # "dict", "Array", "NoneType", "Params", ...
    summary: str  # "f32[3,4] min -1.2 mean 0.03 max 1.5" for arrays, "3 children" for nodes
    leaf: bool
    children: int = 0

    def to_json(self) -> dict:
        return vars(self)


def _number(x: float) -> str:
    return f"{x:.4g}"


def array_summary(value: Any) -> str:
    """``f32[3,4] min -1.2 mean 0.03 max 1.5 · 2 NaN``: shape, dtype and what the numbers
    look like, without printing them all."""
    arr = np.asarray(value)
    head = f"{short_dtype_name(arr.dtype)}[{','.join(map(str, arr.shape))}]"
    if arr.size == 0:
        return f"{head} (empty)"
    if arr.dtype == bool:
        return f"{head} {int(arr.sum())} true of {arr.size}"
    if not np.issubdtype(arr.dtype, np.number):
        return head
    if np.iscomplexobj(arr):
        return f"{head} mean |x| {_number(float(np.abs(arr).mean()))}"
    flat = arr.astype(np.float64).ravel()
    finite = flat[np.isfinite(flat)]
    parts = [head]
    if arr.size <= 6:
        parts.append(np.array2string(arr.ravel() if arr.ndim > 1 else arr, precision=4,
                                     separator=", "))
    elif finite.size:
        parts.append(f"min {_number(finite.min())} mean {_number(finite.mean())} "
                     f"max {_number(finite.max())}")
    nans = int(np.isnan(flat).sum())
    infs = int(np.isinf(flat).sum())
    if nans:
        parts.append(f"· {nans} NaN")
    if infs:
        parts.append(f"· {infs} inf")
    return " ".join(parts)


def _is_array(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def leaf_summary(x: Any) -> str:
    if _is_array(x):
        try:
            return array_summary(x)
        except Exception:  # noqa: BLE001 - a tracer has a type but no numbers
            return f"{short_dtype_name(np.dtype(x.dtype))}[{','.join(map(str, x.shape))}]"
    text = repr(x)
    return text if len(text) <= 60 else text[:59] + "…"


def tree_rows(tree: Any, max_rows: int = MAX_ROWS) -> list[Row]:
    """The rows of ``tree`` in depth-first order (a parent before its children)."""
    rows: list[Row] = []

    def visit(x: Any, path: tuple, depth: int) -> None:
        if len(rows) >= max_rows:
            return
        key = str(path[-1]) if path else ""
        try:
            pairs, _ = flatten_one_level_with_keys(x)
        except ValueError:  # not a pytree node: a leaf
            rows.append(Row(keystr(path), key, depth, type(x).__name__, leaf_summary(x), True))
            return
        pairs = list(pairs)
        word = "child" if len(pairs) == 1 else "children"
        # None, [] and {} are nodes without children (not leaves: tree_leaves skips them).
        summary = f"{len(pairs)} {word}" if pairs else f"{x!r} (a node with no leaves)"
        rows.append(Row(keystr(path), key, depth, type(x).__name__, summary, False, len(pairs)))
        for k, child in pairs:
            visit(child, (*path, k), depth + 1)

    visit(tree, (), 0)
    return rows


class TreeView(View):
    """A pytree's rows (``.rows``), as indented text, foldable HTML and a widget."""

    kind = "tree"

    def __init__(self, tree: Any, max_rows: int = MAX_ROWS):
        self.rows = tree_rows(tree, max_rows)
        self.truncated = len(self.rows) >= max_rows

    def row(self, path: str) -> Row:
        """The row at this key path (``view.row("['layers'][0]['w']")``)."""
        return next(r for r in self.rows if r.path == path)

    def text(self) -> str:
        lines = []
        for r in self.rows:
            name = r.key or "(root)"
            lines.append(f"{'  ' * r.depth}{name}: {r.type} {r.summary}".rstrip())
        if self.truncated:
            lines.append("… (more rows not shown)")
        return "\n".join(lines)

    def body_html(self) -> str:
        # Rows come depth-first, so a stack of open <details> elements nests them.
        out, open_depths = [], []
        for r in self.rows:
            while open_depths and open_depths[-1] >= r.depth:
                out.append("</div></details>")
                open_depths.pop()
            key = escape(r.path or "(root)")
            line = (f'<span class="edujax-key" title="{escape(r.path)}">{key}</span> '
                    f'<span class="edujax-type">{escape(r.type)}</span> '
                    f'<span class="edujax-summary">{escape(r.summary)}</span>')
            if r.leaf or not r.children:  # nothing to fold
                out.append(f'<div class="edujax-row edujax-leaf" data-path="{escape(r.path)}">'
                           f"{line}</div>")
            else:
                out.append(f'<details open><summary class="edujax-row" '
                           f'data-path="{escape(r.path)}">{line}</summary>'
                           f'<div class="edujax-children">')
                open_depths.append(r.depth)
        out += ["</div></details>"] * len(open_depths)
        if self.truncated:
            out.append('<div class="edujax-hint">… more rows not shown</div>')
        return "".join(out)

    def widget(self) -> Any:
        from edujax.viz.widgets import TreeWidget
        return TreeWidget(rows=[r.to_json() for r in self.rows], truncated=self.truncated)


def tree(x: Any, max_rows: int = MAX_ROWS) -> TreeView:
    """Show the pytree ``x`` as a foldable tree with key paths and array summaries."""
    return TreeView(x, max_rows)
