"""The inline views (edujax.viz): their data and their static HTML/SVG, for known inputs.

The live widgets are checked in a real browser by tests/test_viz_browser.py.
"""
import collections
import re
import subprocess
import sys

import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax import viz
from edujax.viz import dot as dot_module

needs_dot = pytest.mark.skipif(dot_module.dot_program() is None,
                               reason="Graphviz's dot is not installed (scripts/setup installs it)")


def kinds(view):
    return collections.Counter(n.kind for n in view.data.nodes)


# ------------------------------------------------------------------------------ graph
def test_graph_of_a_small_function_counts_nodes_and_edges():
    g = viz.graph(lambda x: jnp.sin(x) * 2.0 + x, jnp.ones((3, 4)))
    assert kinds(g) == {"input": 1, "eqn": 3, "literal": 1, "output": 1}
    assert [n.label for n in g.data.nodes if n.kind == "eqn"] == ["sin", "mul", "add"]
    # x feeds sin and add; sin -> mul; 2.0 -> mul; mul -> add; add -> out
    assert len(g.data.edges) == 6
    assert {e.label for e in g.data.edges} == {"f32[3,4]", "f32[]"}
    assert g.data.node("a:f32[3,4]").kind == "input"


def test_graph_labels_params_and_shows_constants():
    w = np.arange(3.0, dtype=np.float32)
    g = viz.graph(lambda x: jnp.sum(x * w, axis=0), jnp.ones(3))
    assert "reduce_sum\naxes=(0,)" in [n.label for n in g.data.nodes]
    (const,) = [n for n in g.data.nodes if n.kind == "const"]
    assert const.label.startswith("a:f32[3]") and "0. 1. 2." in const.label


def test_graph_boxes_show_the_params_the_printed_jaxpr_shows():
    """jnp.where is an inner jit: its box says ``name=_where``, as the printed jaxpr does, and
    not the params the printer hides (donated_invars, inline, keep_unused)."""
    g = viz.graph(lambda x: jnp.where(x > 0, x, 0.0), jnp.arange(3.0))
    jit_box, = [n for n in g.data.nodes if n.label.startswith("jit")]
    assert jit_box.label == "jit\nname=_where"


def test_graph_draws_cond_branches_as_clusters_or_collapsed_boxes():
    def f(x):
        return jax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)

    g = viz.graph(f, jnp.ones(3))
    labels = sorted(c.label for c in g.data.clusters)
    assert labels == ["cond: branches[0]", "cond: branches[1]"]
    inner = [n.label for n in g.data.nodes if n.cluster is not None and n.kind == "eqn"]
    assert sorted(inner) == ["cos", "sin"]
    assert sum(e.style == "dashed" for e in g.data.edges) == 2
    folded = viz.graph(f, jnp.ones(3), collapse=True)
    assert folded.data.clusters == []
    assert [n.label for n in folded.data.nodes if n.kind == "collapsed"] == [
        "cond: branches[0]\n(1 equations)", "cond: branches[1]\n(1 equations)"]


def test_graph_of_loops_and_inner_jit():
    def f(x):
        y = jax.jit(jnp.tanh)(x)
        y = jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0, y)  # a scan: its bounds are known
        return jax.lax.while_loop(lambda c: c.sum() < 10, lambda c: c * 2.0, y)

    g = viz.graph(f, jnp.ones(2))
    labels = sorted(c.label for c in g.data.clusters)
    assert labels == ["jit: jaxpr", "scan: jaxpr", "while: body_jaxpr", "while: cond_jaxpr"]


def test_graph_of_a_custom_jvp_function_shows_its_body():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda primals, tangents: (f(primals[0]), tangents[0]))
    g = viz.graph(lambda x: f(x) * 2.0, 1.0)
    assert [c.label for c in g.data.clusters] == ["custom_jvp_call: call_jaxpr"]
    assert g.data.node("sin").cluster == g.data.clusters[0].id


def test_graph_size_limit_says_how_many_equations_were_left_out():
    def chain(x):
        for _ in range(30):
            x = jnp.sin(x)
        return x

    g = viz.graph(chain, jnp.ones(2), max_eqns=10)
    assert kinds(g)["eqn"] == 10 and g.data.hidden_eqns == 20
    assert g.data.node("20 more equations").kind == "more"
    assert "20 more not drawn" in g.summary()


def test_graph_of_a_jitted_function_shades_the_numba_fusion_groups():
    def f(x, b):
        y = jnp.sin(x) * 2.0
        return jnp.tanh(y @ y.T + b).sum()

    x, b = jnp.ones((3, 4)), jnp.ones((3, 3))
    jf = jax.jit(f)
    g = viz.graph(jf, x, b)
    fusion = [c for c in g.data.clusters if c.kind == "fusion"]
    assert [c.label.split(" ")[0] for c in fusion] == ["fused_0", "fused_1"]
    in_group = collections.defaultdict(list)
    for n in g.data.nodes:
        if n.kind == "eqn" and n.cluster:
            in_group[n.cluster].append(n.label.split("\n")[0])
    assert sorted(in_group.values()) == [["add", "tanh", "reduce_sum"], ["sin", "mul"]]
    # The generated source names the same kernels for the same equations.
    from edujax.backends.numba_cpu.backend import NumbaProgram
    source = NumbaProgram(jf.lower(x, b).jaxpr).as_text()
    assert re.search(r"fused_1 \(Numba loop\)\s+\S+ = tanh", source)
    plain = viz.graph(jf, x, b, fusion=False)
    assert not [c for c in plain.data.clusters if c.kind == "fusion"]


def test_dot_text_quotes_labels_and_nests_clusters():
    g = viz.graph(lambda x: jax.lax.cond(True, lambda y: y + 1.0, lambda y: y, x), 1.0)
    text = g.dot
    assert text.startswith('digraph "<lambda>" {') and "rankdir=LR" in text
    assert text.count("subgraph cluster_") == 2
    assert dot_module.quote('a"b\nc') == '"a\\"b\\nc"'


@needs_dot
def test_graph_svg_has_one_group_per_node_and_edge():
    g = viz.graph(lambda x: jnp.sin(x) * 2.0 + x, jnp.ones((3, 4)))
    svg = g.svg
    assert svg.startswith("<svg")
    assert svg.count('class="node"') == len(g.data.nodes)
    assert svg.count('class="edge"') == len(g.data.edges)
    assert ">sin</text>" in svg and "f32[3,4]" in svg
    html = g.html()
    assert "<svg" in html and "<script" not in html


def test_graph_without_graphviz_shows_the_jaxpr_and_an_install_hint(monkeypatch):
    monkeypatch.setattr(dot_module.shutil, "which", lambda name: None)
    g = viz.graph(lambda x: jnp.sin(x), jnp.ones(3))
    assert g.svg is None
    html = g.html()
    assert "sin a" in html and "apt-get install graphviz" in html and "<svg" not in html
    bundle = g._repr_mimebundle_()
    assert bundle["text/plain"] == str(jax.make_jaxpr(jnp.sin)(jnp.ones(3)))


# ------------------------------------------------------------------------------ tree
Params = collections.namedtuple("Params", "w b")


@jax.tree_util.register_pytree_node_class
class Box:
    def __init__(self, value):
        self.value = value

    def tree_flatten(self):
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_tree_rows_have_key_paths_types_and_array_summaries():
    params = {"layers": [{"w": jnp.arange(12.0).reshape(3, 4), "b": jnp.zeros(4)},
                         Params(jnp.array([1.0, np.nan, np.inf]), None)],
              "box": Box(jnp.ones(2, dtype=jnp.int32)), "step": 3}
    v = viz.tree(params)
    paths = [r.path for r in v.rows]
    assert paths == ["", "['box']", "['box'][<flat index 0>]", "['layers']", "['layers'][0]",
                     "['layers'][0]['b']", "['layers'][0]['w']", "['layers'][1]",
                     "['layers'][1].w", "['layers'][1].b", "['step']"]
    w = v.row("['layers'][0]['w']")
    assert w.leaf and w.depth == 3
    assert w.summary == "f32[3,4] min 0 mean 5.5 max 11"
    assert v.row("['layers'][1].w").summary == "f32[3] [ 1., nan, inf] · 1 NaN · 1 inf"
    assert v.row("['layers'][1]").type == "Params"
    assert v.row("['layers'][1].b").type == "NoneType"
    assert v.row("['layers'][1].b").summary == "None (a node with no leaves)"
    assert v.row("['box']").type == "Box"
    assert v.row("['step']").summary == "3"
    assert v.row("").summary == "3 children"


def test_tree_html_folds_with_details_and_text_indents():
    v = viz.tree({"w": jnp.ones((2, 2)), "b": [1, 2]})
    html = v.html()
    assert html.count("<details open>") == 2  # the root dict and the list
    assert 'data-path="[&#x27;w&#x27;]"' in html and "f32[2,2]" in html
    assert v.text().splitlines() == [
        "(root): dict 2 children", "  ['b']: list 2 children", "    [0]: int 1",
        "    [1]: int 2", "  ['w']: ArrayImpl f32[2,2] [1., 1., 1., 1.]"]


def test_tree_of_a_big_list_stops_at_the_row_limit():
    v = viz.tree(list(range(50)), max_rows=10)
    assert len(v.rows) == 10 and v.truncated and "more rows not shown" in v.html()


# ------------------------------------------------------------------------------ cache
def test_cache_rows_after_hits_and_misses():
    f = jax.jit(lambda x, n: x * n, static_argnums=1)
    f(jnp.ones(3), 2)
    f(jnp.ones(3), 2)  # hit
    f(jnp.ones(4), 2)  # miss: new shape
    f(jnp.ones(4), 3)  # miss: new static value
    v = viz.cache(f)
    rows = v.state["rows"]
    assert [(r["signature"], r["statics"], r["hits"]) for r in rows] == [
        ("x: f32[3]", "n=2", 1), ("x: f32[4]", "n=2", 0), ("x: f32[4]", "n=3", 0)]
    assert v.state["hits"] == 1 and v.state["misses"] == 3
    assert v.state["reasons"][1] == "argument x: new shape f32[3] → f32[4]"
    assert v.state["reasons"][2] == "static argument n: 2 → 3"
    html = v.html()
    assert html.count("<tr>") == 4 and "static argument n: 2 → 3" in html
    assert "1 hit, 3 misses" in v.text()


def test_cache_view_follows_later_calls():
    f = jax.jit(lambda x: x + 1)
    v = viz.cache(f)
    assert v.state["rows"] == []
    f(jnp.ones(2))
    assert len(v.state["rows"]) == 1 and v.state["rows"][0]["backend"] in ("numba", "reference",
                                                                           "cuda")


def test_cache_of_a_plain_function_is_a_clear_error():
    with pytest.raises(TypeError, match="expects a jitted function"):
        viz.cache(lambda x: x)


# ------------------------------------------------------------------------------ timing
def test_timing_chart_from_known_numbers():
    v = viz.timing({"eager": 2e-4, "jit first call": 0.5, "jit steady state": 2e-5})
    assert v.speedup == pytest.approx(10.0)
    assert v.verdict() == "jit is 10.0× faster than eager once compiled"
    svg = v.svg()
    bars = re.findall(r'data-label="([^"]+)" data-seconds="([^"]+)"', svg)
    assert bars == [("eager", "0.0002"), ("jit first call", "0.5"), ("jit steady state", "2e-05")]
    widths = [float(w) for w in re.findall(r'class="edujax-bar"[^>]* width="([\d.]+)"', svg)]
    assert widths[1] > widths[0] > widths[2]  # a log axis keeps the order
    assert "200 μs" in svg and "500 ms" in v.text()


def test_timing_says_plainly_when_jit_is_slower():
    v = viz.timing({"eager": 1e-6, "jit first call": 1e-3, "jit steady state": 4e-6})
    assert v.verdict().startswith("jit is 4.0× slower than eager")


def test_timing_from_a_jittime_result():
    class Timeit:
        def __init__(self, average):
            self.average = average

    class Result:
        eager, jit, first_call = Timeit(3e-4), Timeit(1e-5), 0.25

    assert viz.timing(Result()).seconds == {"eager": 3e-4, "jit first call": 0.25,
                                            "jit steady state": 1e-5}


def test_timing_measures_a_function_as_jittime_does(monkeypatch):
    import functools

    from edujax.magics import jittime
    # %jittime's own measurement, with few loops: a test needs the plumbing, not precision.
    monkeypatch.setattr(jittime, "measure", functools.partial(jittime.measure, number=20))

    def sine(x):
        return jnp.sin(x) * 2.0

    v = viz.timing(sine, jnp.ones(100))
    s = v.seconds
    assert set(s) == {"eager", "jit first call", "jit steady state"}
    assert s["jit first call"] > s["jit steady state"] > 0
    assert v.title == "sine" and v.note.startswith("first call = trace ")
    assert "backend reference" in v.note  # (the suite runs jit on the reference backend)
    jitted = jax.jit(lambda x: x + 1.0)
    jitted(jnp.ones(3))
    assert viz.timing(jitted, jnp.ones(3)).seconds["jit first call"] > 0
    assert len(jitted.cache_info().entries) == 1  # measured on a fresh compile, not this cache


def test_the_magics_show_the_views(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    from edujax.magics import jaxpr as jaxpr_magic
    from edujax.magics import jittime as jittime_magic

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "edujax")
    shown = []
    for module in (jaxpr_magic, jittime_magic):
        monkeypatch.setattr(module, "display", lambda *objs, **kw: shown.extend(objs))
    shell.user_ns.update(jnp=jnp, f=lambda x: jnp.sin(x) * 2.0, x=jnp.ones(3))
    shell.run_line_magic("jaxpr", "--graph f(x)")
    shell.run_line_magic("jittime", "-q -r 2 -n 5 --plot f(x)")
    graph, timing = shown
    assert isinstance(graph, viz.GraphView) and graph.data.node("sin").kind == "eqn"
    assert isinstance(timing, viz.TimingView) and timing.title == "f(x)"
    assert timing.seconds["jit first call"] > 0


def test_format_time_matches_ipython_timeit():
    from IPython.core.magics.execution import _format_time

    from edujax.timing import format_time

    for t in (2.5e-9, 3.14159e-6, 2.1e-4, 0.0123, 1.5, 75.0):
        assert format_time(t) == _format_time(t)


def test_sweep_times_each_size_and_plots_log_log():
    v = viz.sweep(lambda x: jnp.sin(x), [8, 64], numpy=np.sin, budget=0.005)
    assert list(v.series) == ["NumPy", "edujax eager", "edujax jit"]
    assert all(len(times) == 2 and min(times) > 0 for times in v.series.values())
    svg = v.svg()
    assert svg.startswith("<svg") and "input size" in svg
    assert v.text().splitlines()[0].split() == ["size", "8", "64"]


# ------------------------------------------------------------------------------ display
def test_views_give_text_and_static_html_outside_a_kernel():
    for view in (viz.graph(jnp.sin, 1.0), viz.tree([1]), viz.cache(jax.jit(jnp.cos)),
                 viz.timing({"eager": 1.0, "jit first call": 2.0, "jit steady state": 0.5})):
        bundle = view._repr_mimebundle_()
        assert set(bundle) == {"text/plain", "text/html"}
        assert bundle["text/html"].startswith('<div class="edujax-view') and "<style>" in bundle[
            "text/html"]


def test_in_a_kernel_the_bundle_has_the_widget_and_still_the_static_html(monkeypatch):
    pytest.importorskip("anywidget")
    from edujax.viz import view as view_module

    monkeypatch.setattr(view_module, "live_kernel", lambda: True)
    bundle = viz.tree({"w": jnp.ones(2)})._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"}
    assert "['w']" in bundle["text/plain"] and "f32[2]" in bundle["text/html"]


def test_widgets_carry_the_view_data_and_one_es_module_each():
    pytest.importorskip("anywidget")
    from edujax.viz import widgets

    w = viz.tree({"w": jnp.ones(2)}).widget()
    assert [r["path"] for r in w.rows] == ["", "['w']"]
    for name in ("graph.js", "tree.js", "cache.js", "chart.js"):
        source = widgets.module(name)
        assert "export default" in source and "function h(" in source
        assert not re.search(r"^import ", source, re.M)
    g = viz.graph(jnp.sin, 1.0).widget()
    assert [n["label"] for n in g.data["nodes"]] == ["a:f32[]", "sin", "out"]


def test_the_core_never_imports_the_views_and_the_views_import_no_notebook_packages():
    code = ("import sys, edujax, edujax.numpy; assert 'edujax.viz' not in sys.modules; "
            "import edujax.viz; bad = [m for m in ('IPython', 'anywidget', 'ipywidgets', "
            "'matplotlib', 'graphviz') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_executed_notebook_keeps_the_static_html_beside_the_widget(tmp_path, monkeypatch):
    """What GitHub, nbviewer and a kernel-less JupyterLab show: the output's text/html."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    from pathlib import Path

    from kernel_client import ipc_config

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import edujax.numpy as jnp\nfrom edujax import viz\nviz.tree({'w': jnp.ones(3)})")]
    root = str(Path(__file__).resolve().parent.parent)
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}},
                                     config=ipc_config())
    monkeypatch.setenv("PYTHONPATH", root)  # the kernel imports this checkout's edujax
    client.execute()
    (output,) = nb.cells[0].outputs
    assert "application/vnd.jupyter.widget-view+json" in output.data
    assert "<details open>" in output.data["text/html"] and "f32[3]" in output.data["text/html"]
    assert "['w']: ArrayImpl f32[3]" in output.data["text/plain"]
