"""Inline views for notebooks: jaxpr graphs, pytrees, compile caches, timing charts.

    from edujax import viz
    viz.graph(f, x)          # the jaxpr of f as a dataflow graph (Graphviz)
    viz.graph(jax.jit(f), x) # ... with the Numba fusion groups shaded
    viz.tree(params)         # a pytree with key paths and array summaries
    viz.cache(jax.jit(f))    # the compile cache, updating live as f is called
    viz.timing(f, x)         # eager vs jit first call vs jit steady state
    viz.sweep(f, sizes)      # time against input size, log-log
    viz.trace(f, x)          # tracing one bind at a time: trace, level, avals, the jaxpr so far
    viz.lineage(f, x)        # Python, jaxpr and generated kernel side by side, linked lines
    viz.grad_stages(f, x)    # grad stage by stage: JVP, partial evaluation, transposition
    viz.vmap_stages(f, xs)   # vmap equation by equation: each variable's batch dimension
    viz.sharding(x)          # an array on a mesh, coloured by device
    viz.sharding(jax.jit(f), x)  # ... and the collectives f's per-device program sends

Each function returns a view: plain data (``.data``, ``.rows``, ``.state``, ``.seconds``)
with a text form (``print(view)``), a static HTML form for notebooks shown without a
kernel, and a live widget in JupyterLab. The core of edujax never imports this package;
IPython, anywidget and matplotlib are imported only when a view is shown or drawn.
"""
from edujax.viz.cache import CacheView, cache
from edujax.viz.graph import GraphView, graph
from edujax.viz.lineage import LineageView, lineage
from edujax.viz.sharding import ShardingView, sharding
from edujax.viz.stages import StagesView, grad_stages
from edujax.viz.timing import SweepView, TimingView, sweep, timing
from edujax.viz.trace import TraceView, trace
from edujax.viz.vmap_stages import VmapStagesView, vmap_stages
from edujax.viz.tree import TreeView, tree

__all__ = ["graph", "tree", "cache", "timing", "sweep", "trace", "lineage", "grad_stages",
           "vmap_stages", "sharding", "GraphView", "TreeView", "CacheView", "TimingView",
           "SweepView", "TraceView", "LineageView", "StagesView", "VmapStagesView",
           "ShardingView"]
