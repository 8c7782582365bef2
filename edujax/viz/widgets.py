"""The live views: one anywidget class per view, its ES module and CSS in ``widgets/``.

anywidget turns a Python class with *traitlets* (attributes synced with the browser) and an
ES module into a Jupyter widget, with no build step: the module's ``render({model, el})``
draws into ``el`` from ``model.get("...")`` and redraws on ``model.on("change:...")``.
Python changes a traitlet (say ``CacheWidget.state`` after a call), the browser redraws.

This module imports anywidget, so it is only imported when a view is shown inside a kernel.
"""
from __future__ import annotations

import anywidget
import traitlets

from edujax.viz.view import widgets_dir

_DIR = widgets_dir()
_CSS = _DIR / "edujax.css"


def module(name: str) -> str:
    """The ES module ``widgets/NAME`` with ``util.js`` pasted in front of it.

    anywidget loads a module from a string, where ``import ... from "./util.js"`` has nowhere
    to look; so the shared helpers are inlined here, the way a bundler would do it.
    """
    util = (_DIR / "util.js").read_text().replace("export function", "function")
    own = "\n".join(line for line in (_DIR / name).read_text().splitlines()
                    if not line.startswith("import "))
    return util + "\n" + own


class GraphWidget(anywidget.AnyWidget):
    """The jaxpr graph: Graphviz's SVG, zoomable, with a search box that lights up nodes."""

    _esm = module("graph.js")
    _css = _CSS
    svg = traitlets.Unicode("").tag(sync=True)
    text = traitlets.Unicode("").tag(sync=True)  # the printed jaxpr, shown without Graphviz
    hint = traitlets.Unicode("").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    data = traitlets.Dict().tag(sync=True)  # GraphData.to_json()


class TreeWidget(anywidget.AnyWidget):
    """The pytree: rows drawn in the browser, each node folds and unfolds on a click."""

    _esm = module("tree.js")
    _css = _CSS
    rows = traitlets.List().tag(sync=True)  # Row.to_json() in depth-first order
    truncated = traitlets.Bool(False).tag(sync=True)


class CacheWidget(anywidget.AnyWidget):
    """The compile cache table; Python replaces ``state`` whenever the cache changes."""

    _esm = module("cache.js")
    _css = _CSS
    state = traitlets.Dict().tag(sync=True)  # cache.cache_state()


class ChartWidget(anywidget.AnyWidget):
    """A timing chart (bars or a sweep): the SVG, plus a table of the numbers on demand."""

    _esm = module("chart.js")
    _css = _CSS
    svg = traitlets.Unicode("").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    note = traitlets.Unicode("").tag(sync=True)  # where the first call's time went
    data = traitlets.Dict().tag(sync=True)
