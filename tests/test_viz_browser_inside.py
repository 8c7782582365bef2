"""The inside views in a real browser (issue 29): JupyterLab on localhost, headless Chromium.

A notebook shows ``viz.trace`` (the stepper), ``viz.lineage`` (linked panes) and
``viz.grad_stages``; the test steps the stepper forward and back, clicks a Python line of
the linked panes and checks that its equations and kernel statements light up. Then it takes
a screenshot of each (``EDUJAX_UPDATE_SCREENSHOTS=1`` writes them to docs/img/). The server
and browser helpers are those of test_viz_browser.py.
"""
from __future__ import annotations

import pytest
from test_viz_browser import CHROMIUM, notebook_page, screenshots_dir, serve_lab

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")

CELLS = [
    """\
import edujax as jax
import edujax.numpy as jnp
from edujax import viz

def f(x):
    y = jnp.sin(x)
    return jnp.cos(y) * 2.0

viz.trace(jax.grad(f), 1.0)""",
    """\
def loss(w, x):
    y = jnp.tanh(x @ w)
    return (y ** 2).sum()

viz.lineage(jax.grad(loss), jnp.ones((3, 2)), jnp.ones((4, 3)))""",
    "viz.grad_stages(f, 1.0)",
]

HIGHLIGHT = "rgb(255, 243, 176)"  # the linked lines' background (#fff3b0)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with serve_lab(tmp_path_factory.mktemp("lab"), "inside.ipynb", CELLS,
                   EDUJAX_TIERED="0") as url:
        yield url


def test_step_the_stepper_and_click_a_linked_line(lab, tmp_path):
    from playwright.sync_api import expect

    shots = screenshots_dir(tmp_path)
    with notebook_page(lab) as page:
        stepper = page.locator(".edujax-trace").first
        expect(stepper.locator(".ej-step-panel:visible")).to_contain_text(
            "step 1/", timeout=120_000)
        expect(stepper.locator(".ej-step-panel:visible")).to_contain_text("JVP trace")
        for _ in range(4):  # next, next, next, next: the staging of cos (sin's JVP)
            stepper.locator(".ej-step-panel:visible label", has_text="next").click()
        panel = stepper.locator(".ej-step-panel:visible")
        expect(panel).to_contain_text("step 5/")
        expect(panel).to_contain_text("cos")
        expect(panel).to_contain_text("staging trace")
        expect(panel.locator(".ej-step-jaxpr")).to_contain_text("cos a")
        stepper.locator(".ej-step-panel:visible label", has_text="back").click()
        expect(stepper.locator(".ej-step-panel:visible")).to_contain_text("step 4/")
        stepper.locator(".ej-step-panel:visible label", has_text="next").click()

        panes = page.locator(".edujax-lineage").first
        line = panes.locator(".ej-lin-python .ej-lin-line", has_text="jnp.tanh")
        expect(line).to_be_visible(timeout=120_000)
        line.click()  # focus: its equations and kernel statements light up
        lit_jaxpr = panes.locator(".ej-lin-jaxpr .ej-lin-line").filter(has_text="tanh c")
        expect(lit_jaxpr).to_have_css("background-color", HIGHLIGHT)
        lit_kernel = panes.locator(".ej-lin-kernel .ej-lin-line",
                                   has_text="tanh_f32(")
        expect(lit_kernel).to_have_css("background-color", HIGHLIGHT)
        other = panes.locator(".ej-lin-jaxpr .ej-lin-line", has_text="mul 2.0:f32[] d")
        expect(other).not_to_have_css("background-color", HIGHLIGHT)  # from the sum line

        stages = page.locator(".edujax-stages").first
        expect(stages.locator(".ej-residual")).to_have_count(2)

        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        for name, view in (("trace", stepper), ("lineage", panes), ("stages", stages)):
            view.scroll_into_view_if_needed()
            if name == "lineage":
                line.click()
            view.screenshot(path=str(shots / f"viz-{name}.png"))
        assert all((shots / f"viz-{n}.png").stat().st_size > 2000
                   for n in ("trace", "lineage", "stages"))
