"""viz.sharding in a real browser (issue 31): JupyterLab on localhost, headless Chromium.

A notebook on 8 simulated devices shows ``viz.sharding`` of a jitted matmul whose
contraction is split over ``y`` (a psum over ``y``) followed by a sum over the rows split
over ``x`` (a psum over ``x``), first in English, then, after switching the classroom's
language, in Korean. The test checks what a student sees in each: every device's colour on
the blocks it holds, one line per link between the devices a collective joins, the captions
in the notebook's language. Then it takes a screenshot of each (``EDUJAX_UPDATE_SCREENSHOTS=1``
writes them to docs/img/viz-sharding.png and docs/img/viz-sharding-ko.png).
"""
from __future__ import annotations

import pytest
from test_viz_browser import CHROMIUM, notebook_page, screenshots_dir, serve_lab

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")

SETUP = """\
import edujax as jax
import edujax.numpy as jnp
from edujax import viz
from edujax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('x', 'y'))
x = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('x', 'y')))
w = jax.device_put(jnp.ones((4, 3)), NamedSharding(mesh, P('y', None)))

def f(x, w):
    return jnp.matmul(x, w, out_sharding=NamedSharding(mesh, P('x', None))).sum(axis=0)
"""
CELLS = [
    SETUP + "jax.config.update('edujax_language', 'en')\nviz.sharding(jax.jit(f), x, w)",
    "jax.config.update('edujax_language', 'ko')\nviz.sharding(jax.jit(f), x, w)",
]
# Tableau's first eight colours (edujax/viz/sharding.py's COLOURS), one per device.
COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7"]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with serve_lab(tmp_path_factory.mktemp("lab"), "sharding.ipynb", CELLS,
                   EDUJAX_NUM_CPU_DEVICES="8", EDUJAX_TIERED="0") as url:
        yield url


def test_the_sharding_view_in_english_and_korean(lab, tmp_path):
    from playwright.sync_api import expect

    shots = screenshots_dir(tmp_path)
    captions = {
        "en": ("argument 0 [8,4]", "psum over y", "XLA: all-reduce; 4 group(s) of 2",
               "psum over x", "XLA: all-reduce; 2 group(s) of 4", "mesh (x=4, y=2):"),
        "ko": ("인수 0 [8,4]", "y 축을 따른 psum", "XLA: all-reduce; 2개 장치씩 4개 무리",
               "x 축을 따른 psum", "XLA: all-reduce; 4개 장치씩 2개 무리", "메시 (x=4, y=2):"),
    }
    with notebook_page(lab) as page:
        views = page.locator(".jp-OutputArea-output .edujax-view.edujax-sharding")
        expect(views).to_have_count(2, timeout=120_000)
        for k, lang in enumerate(("en", "ko")):
            view = views.nth(k)
            for caption in captions[lang]:
                expect(view).to_contain_text(caption)
            svgs = view.locator("svg")
            # argument 0, argument 1, output 0, then the two collectives
            expect(svgs).to_have_count(5)
            x_blocks = svgs.nth(0)
            for colour in COLOURS:  # each device holds one block of x, in its colour
                expect(x_blocks.locator(f'rect[fill="{colour}"]')).to_have_count(1)
            expect(svgs.nth(3).locator("line")).to_have_count(4)  # y: 4 pairs, one link each
            expect(svgs.nth(4).locator("line")).to_have_count(6)  # x: 2 columns of 4, 3 links
            box = view.bounding_box()
            assert box["width"] > 600 and box["height"] > 150  # drawn, not collapsed
        page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        for k, name in enumerate(("viz-sharding", "viz-sharding-ko")):
            view = views.nth(k)
            view.scroll_into_view_if_needed()
            view.screenshot(path=str(shots / f"{name}.png"))
            assert (shots / f"{name}.png").stat().st_size > 2000
