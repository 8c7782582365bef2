"""The live views in a real browser: JupyterLab on localhost, driven by headless Chromium.

The test writes a notebook that shows all four views, starts JupyterLab on a free port of
127.0.0.1 (its own config and runtime folders, the ``edujax`` kernel installed into a folder
of its own, a random token), opens the notebook in
Debian's Chromium through Playwright, runs every cell, and checks what a student would see:
the graph widget has a node labelled ``sin``, the tree widget a row ``['w']`` that folds, the
cache widget a row per signature that updates when the function is called again, the chart
its bars. Then it takes a screenshot of each view. With ``EDUJAX_UPDATE_SCREENSHOTS=1`` they
are written to docs/img/ (the README shows them); otherwise to a temporary folder.

It skips only when no Chromium is installed (scripts/setup installs Debian's ``chromium``
when it runs as root); a missing Python package is a failure of the setup, not a skip.
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                 if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on this machine: scripts/setup installs Debian's "
    "`chromium` when run as root (apt-get install chromium)")

CELLS = [
    """\
import numpy as np
import edujax as jax
import edujax.numpy as jnp
from edujax import viz

def f(x, b):
    y = jnp.sin(x) * 2.0
    return jnp.tanh(y @ y.T + b).sum()

viz.graph(jax.jit(f), jnp.ones((3, 4)), jnp.ones((3, 3)))""",
    """\
params = {"layers": [{"w": jnp.arange(12.0).reshape(3, 4), "b": jnp.zeros(4)}],
          "w": jnp.array([1.0, np.nan, 3.0]), "step": 3}
viz.tree(params)""",
    """\
g = jax.jit(lambda x, n: x * n, static_argnums=1)
g(jnp.ones(3), 2); g(jnp.ones(3), 2)
viz.cache(g)""",
    """\
viz.timing({"eager": 2.1e-4, "jit first call": 0.35, "jit steady state": 1.2e-5})""",
    """\
g(jnp.ones(5), 2)  # a new shape: the cache table above gains a row by itself""",
]


def notebook(sources: list = CELLS) -> dict:
    """A notebook on the EduJAX kernel: a string is a code cell, ("markdown", text) prose."""
    def cell(i: int, src) -> dict:
        if isinstance(src, tuple):
            return {"cell_type": src[0], "id": f"cell-{i}", "metadata": {}, "source": src[1]}
        return {"cell_type": "code", "id": f"cell-{i}", "metadata": {}, "source": src,
                "outputs": [], "execution_count": None}
    cells = [cell(i, src) for i, src in enumerate(sources)]
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "edujax", "display_name": "EduJAX (Python 3)",
                                        "language": "python"}}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                json.load(r)
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError("JupyterLab did not answer in time")


@contextlib.contextmanager
def serve_lab(folder: Path, name: str, sources: list, **env_vars: str):
    """A JupyterLab server on 127.0.0.1 serving ``folder`` with one notebook, ``name``, of
    ``sources``; yields the URL that opens it. ``env_vars`` go to the server and its kernels."""
    (folder / name).write_text(json.dumps(notebook(sources)))
    port, token = free_port(), secrets.token_hex(16)
    # The students' kernel (edujax.kernel), installed into a folder of the test's own.
    kernels = folder / ".kernels"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "edujax.kernel", "install", "--prefix", str(kernels)],
                   env=env, check=True, capture_output=True)
    env.update(env_vars, JUPYTER_PATH=str(kernels / "share" / "jupyter"),
               JUPYTER_CONFIG_DIR=str(folder / ".config"),
               JUPYTER_RUNTIME_DIR=str(folder / ".runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(folder / ".workspaces"))
    log = open(folder / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", f"--IdentityProvider.token={token}", f"--notebook-dir={folder}",
         "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: run cells by command
         "--allow-root", "--KernelSpecManager.allowed_kernelspecs=edujax"],
        cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_server(f"http://127.0.0.1:{port}/api/status?token={token}", proc)
        yield f"http://127.0.0.1:{port}/lab/tree/{name}?token={token}&reset"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        print((folder / "lab.log").read_text()[-3000:])


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab with the views notebook, its kernel on the Numba backend."""
    with serve_lab(tmp_path_factory.mktemp("lab"), "views.ipynb", CELLS,
                   EDUJAX_BACKEND="numba") as url:
        yield url


KERNEL_IDLE = """() => {
  const kernel = window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel;
  return kernel && kernel.status === "idle";
}"""


def start_kernel_and_run_all(page) -> None:
    """Wait until the notebook's kernel is up, then run every cell (without waiting)."""
    page.wait_for_function("() => document.querySelector('.jp-Notebook')", timeout=120_000)
    dialog = page.locator(".jp-Dialog .jp-mod-accept")  # "Select Kernel", on some setups
    deadline = time.time() + 120
    while not page.evaluate(KERNEL_IDLE):
        if dialog.count():
            dialog.first.click()
        if time.time() > deadline:
            raise TimeoutError("the notebook's kernel did not start")
        time.sleep(0.5)
    kernel = "window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.name"
    assert page.evaluate(f"() => {kernel}") == "edujax"  # the students' kernel
    # (not awaited: the command's promise settles only when every cell has run)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


@contextlib.contextmanager
def notebook_page(url: str):
    """Headless Chromium on the JupyterLab page at ``url``, every cell run on the kernel."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 1600},
                                device_scale_factor=1.5)
        try:
            page.goto(url)
            start_kernel_and_run_all(page)
            yield page
        finally:
            browser.close()


def screenshots_dir(tmp_path: Path) -> Path:
    if os.environ.get("EDUJAX_UPDATE_SCREENSHOTS") == "1":
        return ROOT / "docs" / "img"
    return tmp_path


def test_the_four_views_live_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import expect

    shots = screenshots_dir(tmp_path)
    with notebook_page(lab) as page:
        live = ".edujax-view[data-live='true']"

        graph = page.locator(f"{live}.edujax-graph")
        expect(graph.locator("g.node text", has_text="sin").first).to_be_visible(
            timeout=120_000)
        # a, b, sin, 2.0, mul, transpose, dot_general, add, tanh, reduce_sum, out
        expect(graph.locator("g.node")).to_have_count(11)
        expect(graph.locator("g.cluster text", has_text="fused_0")).to_have_count(1)
        graph.locator("input").fill("tanh")  # the search box outlines the tanh node
        expect(graph.locator("g.node.edujax-match")).to_have_count(1)

        tree = page.locator(f"{live}.edujax-tree")
        row = tree.locator(".edujax-row[data-path=\"['w']\"]")
        expect(row).to_contain_text("f32[3]")
        expect(row).to_contain_text("1 NaN")
        inner = tree.locator(".edujax-row[data-path=\"['layers'][0]['w']\"]")
        expect(inner).to_contain_text("f32[3,4] min 0 mean 5.5 max 11")
        tree.locator(".edujax-row[data-path=\"['layers']\"]").click()  # fold it
        expect(inner).to_be_hidden()
        tree.locator(".edujax-row[data-path=\"['layers']\"]").click()
        expect(inner).to_be_visible()

        cache = page.locator(f"{live}.edujax-cache")
        # The last cell called g with a new shape after the table was shown: the widget
        # follows the cache by itself and shows the second row and why it missed.
        expect(cache.locator("tbody tr")).to_have_count(2, timeout=30_000)
        expect(cache.locator("tbody tr").first).to_contain_text("x: f32[3]")
        expect(cache.locator("tbody tr").nth(1)).to_contain_text("x: f32[5]")
        expect(cache).to_contain_text("argument x: new shape f32[3] → f32[5]")
        expect(cache.locator(".edujax-title")).to_have_text(
            "jit(<lambda>): 1 hit, 2 misses, 2/1024 entries")

        chart = page.locator(f"{live}.edujax-timing")
        expect(chart.locator("rect.edujax-bar")).to_have_count(3)
        expect(chart).to_contain_text("jit is 17.5× faster than eager once compiled")
        expect(chart).to_contain_text("350 ms")

        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # room for the views
        graph.locator("input").fill("")
        page.wait_for_timeout(1600)  # the cache table's flash of a changed row is over
        for name, view in (("graph", graph), ("tree", tree), ("cache", cache),
                           ("timing", chart)):
            view.scroll_into_view_if_needed()
            view.screenshot(path=str(shots / f"viz-{name}.png"))
        assert all((shots / f"viz-{n}.png").stat().st_size > 2000
                   for n in ("graph", "tree", "cache", "timing"))
        # A classroom's JupyterLab asks nothing on first open (scripts/setup installs
        # scripts/jupyterlab-overrides.json): by now the news pop-up would have come.
        expect(page.get_by_text("official Jupyter news")).to_have_count(0)
