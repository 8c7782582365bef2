"""The inside views (issue 29: the stepper, the linked panes, grad and vmap stage by stage)
speak the notebook's language: in a Korean notebook every caption, label, legend and button
is Korean and no English caption is left; code, jaxpr text, primitive names and the terms the
glossary keeps in English (jaxpr, JVP, grad, vmap) stay as they are."""
from __future__ import annotations

import importlib
import re
from html.parser import HTMLParser

import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax import viz
from edujax.config import config
from edujax.language import ALL_TEXTS

# (by name: edujax.viz's attributes of these names are the view functions)
MODULES = [importlib.import_module(f"edujax.viz.{m}")
           for m in ("trace", "lineage", "stages", "vmap_stages")]
HANGUL = re.compile("[\uac00-\ud7a3]")
CODE_WORDS = {"in", "out", "const", "dimension"}  # (dot_general[dimension_numbers=...])


def f(x):
    y = jnp.sin(x)
    return jnp.cos(y) * 2.0


W = jnp.ones((4, 3))


def apply(v):
    return jnp.tanh(W @ v)


VIEWS = {
    "trace": lambda: viz.trace(jax.grad(f), 1.0),
    "lineage": lambda: viz.lineage(f, 1.0),
    "stages": lambda: viz.grad_stages(f, 1.0),
    "vmap_stages": lambda: viz.vmap_stages(apply, jnp.arange(6.0).reshape(2, 3)),
}


class Prose(HTMLParser):
    """The text a person reads as the view's captions: every text node outside code
    (``<code>``, ``<pre>``, the linked panes' source lines) and styles."""

    CODE_TAGS = {"code", "pre", "style"}
    CODE_CLASSES = {"ej-lin-code"}
    VOID = {"input", "br", "img", "hr", "meta", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []  # per open element: is it (or one around it) code?
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        code = tag in self.CODE_TAGS or bool(classes & self.CODE_CLASSES)
        self.open.append(code or (bool(self.open) and self.open[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if not (self.open and self.open[-1]) and data.strip():
            self.texts.append(data)


def prose(html: str) -> list[str]:
    parser = Prose()
    parser.feed(html)
    return parser.texts


def read(html: str) -> str:
    """The captions as a person reads them, one string (as the DOM's textContent)."""
    return " ".join("".join(prose(html)).split())


def english_words() -> set[str]:
    """The words of these views' English captions that their Korean forms do not keep."""
    texts = [t for t in ALL_TEXTS if any(t is v or (isinstance(v, dict) and t in v.values())
                                         or (isinstance(v, list) and t in v)
                                         for m in MODULES for v in vars(m).values())]
    assert len(texts) > 40
    words = set()
    for t in texts:
        kept = set(re.findall(r"[A-Za-z_]+", re.sub(r"\{\w*\}", "", t.ko)))
        words |= {w for w in re.findall(r"[A-Za-z]{2,}", re.sub(r"\{\w*\}", "", t.en))
                  if w not in kept}
    return words


@pytest.fixture
def korean():
    config.update("edujax_language", "ko")
    yield
    config.update("edujax_language", "auto")


@pytest.mark.parametrize("name", VIEWS)
def test_a_view_in_a_korean_notebook_has_no_english_caption_left(name, korean):
    english = english_words()
    view = VIEWS[name]()
    texts = prose(view.html())
    left = {w for text in texts for w in re.findall(r"[A-Za-z]{2,}", text) if w in english}
    assert not left, f"English left in the {name} view's captions: {sorted(left)}"
    assert sum(bool(HANGUL.search(t)) for t in texts) >= 3
    # the text form too: no caption word left outside the code it quotes (the equations,
    # with their params, and vmap_stages' in/out/const rows, which name jaxpr variables)
    lines = view.text().splitlines()
    words = {w for line in lines for w in re.findall(r"[A-Za-z]{2,}", line.split("#")[0])}
    assert not words & english - CODE_WORDS, sorted(words & english - CODE_WORDS)


def test_the_korean_captions_read_as_the_inside_track_writes_them(korean):
    stepper = read(VIEWS["trace"]().html())
    for words in ("22단계 중 1단계", "JVP 트레이스가 처리, 중첩 레벨 0", "지금까지의 jaxpr", "다음",
                  "이전", "모든 단계", "프라이멀 f32[] 탄젠트 f32[]"):
        assert words in stepper, words
    panes = [t.strip() for t in prose(VIEWS["lineage"]().html())]
    assert {"Python 소스", "jaxpr (컴파일된 그대로)", "생성된 커널"} <= set(panes)
    split = [t.strip() for t in prose(VIEWS["stages"]().html())]
    assert {"1. JVP (순방향)", "2. 부분 평가", "3. 전치", "잔차"} <= set(split)
    assert "알려진: 지금 실행 (순방향 패스)" in split
    batched = read(VIEWS["vmap_stages"]().html())
    for words in ("크기 2인 배치에 대한", "의 vmap", "값의 배치 차원",
                  "배치되지 않음: 모든 예제에 똑같은 값", "예제 하나:", "배치된 프로그램:"):
        assert words in batched, words


def test_the_same_view_speaks_the_language_of_the_moment_it_is_shown(korean):
    """Captions are read when the view is rendered, not when it (or edujax) was made."""
    view = VIEWS["stages"]()
    assert "2. 부분 평가" in view.html()
    config.update("edujax_language", "en")
    html = view.html()
    assert "2. partial evaluation" in html and "kept for the backward pass" in html
    assert not HANGUL.search(html)
    steps = VIEWS["trace"]()
    assert "f32[] (primal f32[] tangent f32[])" in steps.text()
    config.update("edujax_language", "ko")
    assert "f32[] (프라이멀 f32[] 탄젠트 f32[])" in steps.text()
