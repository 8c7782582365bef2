"""``viz.cache``: the compile cache of one jitted function, as a table that keeps up.

    f = jax.jit(f)
    viz.cache(f)      # shown once; calls of f in later cells update the table live

``jit`` compiles once per *signature*: the argument shapes and dtypes, the static arguments,
the backend. Each row is one compiled signature with how often it was used and what it
cost. Below the table, every miss so far says why it missed ("argument x: new shape
f32[3] → f32[4]"): the usual surprise is a loop that recompiles on every step.

The data is ``f.cache_info()`` and ``f.explain_misses()``, nothing more. The live widget
re-reads them twice a second from a background thread (and only sends what changed), so
the table also follows calls made while a cell is still running, and the tier column
shows the Numba compile finishing in the background.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from edujax.jit.cache import leaf_text
from edujax.viz.view import View, escape

REFRESH_SECONDS = 0.5


@dataclass
class CacheRow:
    signature: str  # "x: f32[3,4], y: f32[4]"
    statics: str  # "n=2" or ""
    backend: str
    tier: str  # "reference", "direct", "object file", "numba", "not compiled"...
    hits: int  # calls that found this signature already compiled
    trace_ms: float
    compile_ms: float

    def to_json(self) -> dict:
        return vars(self)


def cache_rows(jitted: Any) -> list[CacheRow]:
    """One row per cached signature of ``jitted``, oldest first."""
    rows = []
    for entry in jitted.cache_info().entries:
        key = entry.key
        head = entry.signature.rsplit(" [", 1)[0]
        args = head.split(", ")[:len(key.leaves)] if key.leaves else []
        if not args:
            args = [leaf_text(leaf) for leaf in key.leaves]
        statics = ", ".join(f"{name}={value!r}" for name, value in key.statics)
        rows.append(CacheRow(", ".join(args) or "()", statics, key.backend, str(entry.tier),
                             entry.hits, entry.trace_seconds * 1e3, entry.compile_seconds * 1e3))
    return rows


def cache_state(jitted: Any) -> dict:
    """Everything the table shows, as JSON-ready data."""
    info = jitted.cache_info()
    return {"name": getattr(jitted, "__name__", "f"), "hits": info.hits, "misses": info.misses,
            "maxsize": info.maxsize, "rows": [r.to_json() for r in cache_rows(jitted)],
            "reasons": list(jitted.explain_misses())}


def count(n: int, word: str) -> str:
    """``1 hit``, ``2 hits``, ``1 miss``, ``3 misses``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}{'es' if word.endswith('s') else 's'}"


def _ms(x: float) -> str:
    return f"{x:.1f} ms" if x >= 0.1 or x == 0 else f"{x * 1e3:.0f} μs"


class CacheView(View):
    """The compile cache of one jitted function."""

    kind = "cache"
    columns = ("signature", "statics", "backend", "tier", "hits", "trace", "compile")

    def __init__(self, jitted: Any):
        if not hasattr(jitted, "cache_info"):
            raise TypeError(f"viz.cache expects a jitted function (jax.jit(f)), got {jitted!r}")
        self.jitted = jitted

    @property
    def state(self) -> dict:
        return cache_state(self.jitted)

    def text(self) -> str:
        s = self.state
        lines = [f"jit({s['name']}) cache: {count(s['hits'], 'hit')}, "
                 f"{count(s['misses'], 'miss')}, "
                 f"{len(s['rows'])}/{s['maxsize']} entries"]
        for r in s["rows"]:
            statics = f" static {r['statics']}" if r["statics"] else ""
            lines.append(f"  {r['signature']}{statics} [{r['backend']}, {r['tier']}] "
                         f"hits={r['hits']} trace={_ms(r['trace_ms'])} "
                         f"compile={_ms(r['compile_ms'])}")
        lines += [f"  miss {i + 1}: {reason}" for i, reason in enumerate(s["reasons"])]
        return "\n".join(lines)

    def body_html(self) -> str:
        s = self.state
        head = "".join(f"<th>{c}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(v)}</td>" for v in (
                r["signature"], r["statics"], r["backend"], r["tier"], r["hits"],
                _ms(r["trace_ms"]), _ms(r["compile_ms"]))) + "</tr>" for r in s["rows"])
        reasons = "".join(f"<li>{escape(r)}</li>" for r in s["reasons"])
        return (f'<div class="edujax-title">jit({escape(s["name"])}): {count(s["hits"], "hit")}, '
                f'{count(s["misses"], "miss")}, {len(s["rows"])}/{s["maxsize"]} entries</div>'
                f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                f'<div class="edujax-subtitle">Why each call missed</div><ol>{reasons}</ol>')

    def widget(self) -> Any:
        from edujax.viz.widgets import CacheWidget
        w = CacheWidget(state=self.state)
        _follow(w, self.jitted)
        return w


def _follow(w: Any, jitted: Any) -> None:
    """Re-read the cache in a daemon thread and push changes to the widget until it closes.

    The thread holds the widget weakly, so a widget nobody shows any more is not kept alive.
    """
    ref = weakref.ref(w)
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(REFRESH_SECONDS):
            widget = ref()
            if widget is None or widget.comm is None:  # closed or collected: stop following
                return
            try:
                state = cache_state(jitted)
            except RuntimeError:  # the cache changed while we read it (a call, meanwhile)
                continue
            if state != widget.state:
                widget.state = state
            del widget

    threading.Thread(target=loop, name="edujax-viz-cache", daemon=True).start()
    w._stop_following = stop


def cache(jitted: Any) -> CacheView:
    """Show the compile cache of ``jitted`` (a ``jax.jit`` function) as a live table."""
    return CacheView(jitted)
