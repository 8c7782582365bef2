"""The inside views in a real browser (issue 29): JupyterLab on localhost, headless Chromium.

A notebook shows ``viz.trace`` (the stepper), ``viz.lineage`` (linked panes) and
``viz.grad_stages``; the test steps the stepper forward and back, clicks a Python line of
the linked panes and checks that its equations and kernel statements light up. Then it takes
a screenshot of each (``EDUJAX_UPDATE_SCREENSHOTS=1`` writes them to docs/img/). The server
and browser helpers are those of test_viz_browser.py.
"""
from __future__ import annotations

import jupytext
import pytest
from test_viz_browser import CHROMIUM, ROOT, notebook_page, screenshots_dir, serve_lab

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
    """\
W = jnp.ones((4, 3))
def apply(v):
    return jnp.tanh(W @ v)

viz.vmap_stages(apply, jnp.arange(6.0).reshape(2, 3))""",
    # the same views in a Korean notebook (test_the_inside_views_speak_korean)
    """\
jax.config.update("edujax_language", "ko")
viz.trace(jax.grad(f), 1.0)""",
    "viz.lineage(jax.grad(loss), jnp.ones((3, 2)), jnp.ones((4, 3)))",
    "viz.grad_stages(f, 1.0)",
]

HIGHLIGHT = "rgb(255, 243, 176)"  # the linked lines' background (#fff3b0)
ROW_HOVER = "rgb(255, 248, 197)"  # a vmap_stages row under the pointer (#fff8c5)


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

        batched = page.locator(".edujax-vmap-stages").first
        rows = batched.locator("tr.ej-vmap-batched")
        expect(rows).to_have_count(2)  # dot_general and tanh, each batched
        expect(rows.first.locator(".ej-bdim")).to_contain_text("1 f32[4,2]")
        expect(batched.locator("tr.ej-vmap-io").last).to_contain_text("transpose")
        rows.first.hover()
        expect(rows.first.locator("td").first).to_have_css("background-color", ROW_HOVER)

        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        for name, view in (("trace", stepper), ("lineage", panes), ("stages", stages),
                           ("vmap-stages", batched)):
            view.scroll_into_view_if_needed()
            page.mouse.move(1, 1)  # (hover follows the pointer only once it moves)
            if name == "lineage":
                line.click()
            view.screenshot(path=str(shots / f"viz-{name}.png"))
        assert all((shots / f"viz-{n}.png").stat().st_size > 2000
                   for n in ("trace", "lineage", "stages", "vmap-stages"))


def test_the_inside_views_speak_korean(lab, tmp_path):
    """The same views after ``edujax_language`` is "ko": Korean captions and buttons, the
    stepper stepped by its Korean "다음" (next); screenshots viz-{trace,lineage,stages}-ko."""
    from playwright.sync_api import expect

    shots = screenshots_dir(tmp_path)
    with notebook_page(lab) as page:
        stepper = page.locator(".edujax-trace").nth(1)
        panel = stepper.locator(".ej-step-panel:visible")
        expect(panel).to_contain_text("22단계 중 1단계", timeout=120_000)
        expect(panel).to_contain_text("JVP 트레이스가 처리, 중첩 레벨 0")
        for _ in range(4):
            stepper.locator(".ej-step-panel:visible label", has_text="다음").click()
        panel = stepper.locator(".ej-step-panel:visible")
        expect(panel).to_contain_text("22단계 중 5단계")
        expect(panel).to_contain_text("스테이징 트레이스가 처리, 중첩 레벨 2")
        expect(panel.locator(".ej-step-jaxpr-title")).to_have_text("지금까지의 jaxpr")

        panes = page.locator(".edujax-lineage").nth(1)
        expect(panes.locator(".ej-lin-title")).to_have_text(
            ["Python 소스", "jaxpr (컴파일된 그대로)", "생성된 커널"], timeout=120_000)
        line = panes.locator(".ej-lin-python .ej-lin-line", has_text="jnp.tanh")
        stages = page.locator(".edujax-stages").nth(1)
        expect(stages.locator(".ej-lin-title")).to_have_text(
            ["1. JVP (순방향)", "2. 부분 평가", "3. 전치"], timeout=120_000)
        expect(stages.locator(".ej-stage-legend")).to_contain_text("알려진: 지금 실행")

        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        for name, view in (("trace", stepper), ("lineage", panes), ("stages", stages)):
            view.scroll_into_view_if_needed()
            page.mouse.move(1, 1)
            if name == "lineage":
                line.click()
            view.screenshot(path=str(shots / f"viz-{name}-ko.png"))
        assert all((shots / f"viz-{n}-ko.png").stat().st_size > 2000
                   for n in ("trace", "lineage", "stages"))


BATCH_DIMS_HEADING = {"en": "Each variable's batch dimension", "ko": "변수마다의 배치 차원"}
BATCH_DIM_HEADER = {"en": "batch dim", "ko": "배치 차원"}  # the view's own column header


def batching_cells(lang: str) -> list:
    """The inside track's batching notebook in ``lang``, up to its vmap_stages cell."""
    nb = jupytext.read(ROOT / "notebooks" / "inside" / lang / "04_batching.md")
    cells = []
    for cell in nb.cells:
        cells.append(cell.source if cell.cell_type == "code" else ("markdown", cell.source))
        if cell.cell_type == "code" and "vmap_stages" in cell.source:
            return cells
    raise AssertionError(f"inside/{lang}/04_batching has no vmap_stages cell")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_batching_notebook_shows_each_batch_dimension(lang, tmp_path_factory, tmp_path):
    """The vmap stage view where it teaches, under its prose, in both languages."""
    from playwright.sync_api import expect

    shots = screenshots_dir(tmp_path)
    # (a folder named ko or en, as notebooks/inside/ko is: the kernel speaks its language)
    folder = tmp_path_factory.mktemp("batching") / lang
    folder.mkdir()
    with serve_lab(folder, "04_batching.ipynb", batching_cells(lang)) as url, \
            notebook_page(url) as page:
        view = page.locator(".edujax-vmap-stages").first
        expect(view.locator("tr.ej-vmap-batched")).to_have_count(2, timeout=120_000)
        expect(view).to_contain_text("make_jaxpr(vmap(f))")
        expect(view.locator("th").nth(1)).to_have_text(BATCH_DIM_HEADER[lang])
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        heading = page.locator(".jp-RenderedMarkdown h2", has_text=BATCH_DIMS_HEADING[lang])
        heading.scroll_into_view_if_needed()
        page.mouse.move(0, 0)
        page.wait_for_timeout(300)
        top, bottom = heading.bounding_box(), view.bounding_box()
        assert top is not None and bottom is not None and bottom["y"] > top["y"]
        clip = {"x": 0, "y": max(0, top["y"] - 12), "width": 1300,
                "height": bottom["y"] + bottom["height"] - top["y"] + 24}
        path = shots / f"viz-vmap-stages-{lang}.png"
        page.screenshot(path=str(path), clip=clip)
        assert path.stat().st_size > 2000
