"""What every view has in common: plain data, a text form, a static HTML form, a live widget.

A notebook output can carry several forms of the same thing (a *MIME bundle*); the
front-end shows the richest one it can. So each view hands out

* ``text/plain``: what a terminal or ``print`` shows;
* ``text/html``: self-contained HTML (inline SVG, inline CSS, no script), which GitHub,
  nbviewer, exported HTML and a notebook opened without a kernel all show;
* when a live kernel with anywidget is there, the widget's own MIME type: JupyterLab then
  runs the view's ES module (widgets/*.js) instead, which can fold, zoom and update live.

The data comes first (a ``GraphData``, a ``CacheInfo``, a list of timings); the two
renderings are built from it, so tests check the data and the HTML, and a browser checks
the widget.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any

WIDGETS_DIR = Path(__file__).resolve().parent.parent.parent / "widgets"


def widgets_dir() -> Path:
    """Where the views' ES modules and CSS live: the top-level ``widgets/`` folder of a source
    checkout, or its copy ``edujax/_widgets`` inside an installed wheel."""
    if (WIDGETS_DIR / "edujax.css").exists():
        return WIDGETS_DIR
    return Path(__file__).resolve().parent.parent / "_widgets"


def stylesheet() -> str:
    """The CSS every static view inlines (the widgets load the same file)."""
    return (widgets_dir() / "edujax.css").read_text()


def escape(text: Any) -> str:
    return html.escape(str(text), quote=True)


def live_kernel() -> bool:
    """Are we running inside a Jupyter kernel, where a widget can talk back to Python?"""
    try:
        from IPython import get_ipython  # the classroom's optional dependency: imported lazily
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class View:
    """Base class of the views: subclasses give ``text()``, ``body_html()`` and ``widget()``."""

    kind = "view"

    def text(self) -> str:
        raise NotImplementedError

    def body_html(self) -> str:
        raise NotImplementedError

    def widget(self) -> Any:
        """The live anywidget for this view (only inside a kernel with anywidget installed)."""
        raise NotImplementedError

    def html(self) -> str:
        """The static HTML: the view's own markup with the shared stylesheet inlined."""
        return (f'<div class="edujax-view edujax-{self.kind}">'
                f"<style>{stylesheet()}</style>{self.body_html()}</div>")

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        bundle = {"text/plain": self.text(), "text/html": self.html()}
        if live_kernel():
            try:
                live = self.widget()._repr_mimebundle_()
            except ImportError:  # no anywidget: the static HTML is still a fine picture
                return bundle
            if isinstance(live, tuple):  # anywidget answers (data, metadata)
                live = live[0]
            live.pop("text/plain", None)
            bundle.update(live)
        return bundle
