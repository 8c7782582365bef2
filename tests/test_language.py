"""The classroom speaks the notebook's language: every message has a Korean form, uses the
glossary's words, and the language is chosen as edujax/language.py says."""
from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from edujax.config import config
from edujax.language import ALL_TEXTS, Text, language

ROOT = Path(__file__).resolve().parents[1]
# Every module that says something to a student (importing them makes their Texts).
CLASSROOM = ["edujax.timing", "edujax.kernel.hints", "edujax.kernel.tracebacks",
             "edujax.magics.options", "edujax.magics.calls", "edujax.magics.request",
             "edujax.magics.jittime", "edujax.magics.progress", "edujax.viz.graph",
             "edujax.viz.timing", "edujax.viz.trace", "edujax.viz.lineage",
             "edujax.viz.stages", "edujax.viz.vmap_stages"]
HANGUL = re.compile("[\uac00-\ud7a3]")
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")


@pytest.fixture(scope="module")
def texts() -> list[Text]:
    for name in CLASSROOM:
        importlib.import_module(name)
    return list(ALL_TEXTS)


@pytest.fixture
def korean():
    config.update("edujax_language", "ko")
    yield
    config.update("edujax_language", "auto")


def test_every_message_has_a_korean_form_with_the_same_placeholders(texts):
    """(Korean may leave out a placeholder English needs for grammar: a plural's "s".)"""
    assert len(texts) > 50
    for text in texts:
        assert text.en.strip() and HANGUL.search(text.ko), f"no Korean form: {text.en!r}"
        assert set(PLACEHOLDER.findall(text.ko)) <= set(PLACEHOLDER.findall(text.en)), text
        assert set(PLACEHOLDER.findall(text.en)) - set(PLACEHOLDER.findall(text.ko)) <= {"s"}


def glossary() -> list[tuple[list[str], list[str]]]:
    """docs/glossary.md's rows: (English forms, Korean forms)."""
    rows = []
    for line in (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and HANGUL.search(cells[1]):
            english = re.sub(r"\(.*?\)", "", cells[0])
            rows.append(([e.strip() for e in english.split(",") if e.strip()],
                         [k.strip().split()[0] for k in cells[1].split(",")]))
    return rows


def test_the_korean_messages_use_the_glossarys_words(texts):
    rows = glossary()
    assert len(rows) >= 15
    for text in texts:
        for english, korean in rows:
            used = any(re.search(rf"\b{re.escape(e)}\w*", text.en, re.IGNORECASE)
                       for e in english)
            if used:
                assert any(k in text.ko for k in korean), (
                    f"{text.en!r} says {english[0]!r}; its Korean form should say one of "
                    f"{korean} (docs/glossary.md): {text.ko!r}")


def test_a_message_without_its_korean_form_is_caught(texts):
    broken = Text("a tracer escaped", "")
    try:
        with pytest.raises(AssertionError):
            test_every_message_has_a_korean_form_with_the_same_placeholders([broken] * 51)
        wrong_word = Text("a tracer escaped", "대역 값이 새어 나갔습니다")
        with pytest.raises(AssertionError, match="트레이서"):
            test_the_korean_messages_use_the_glossarys_words([wrong_word])
    finally:
        ALL_TEXTS.remove(broken)
        ALL_TEXTS.remove(wrong_word)


def _language_in(cwd: Path, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("EDUJAX_LANG", "LC_ALL", "LC_MESSAGES", "LANG")}
    done = subprocess.run([sys.executable, "-c", "from edujax.language import language; "
                           "print(language())"], cwd=cwd, capture_output=True, text=True,
                          env={**environ, "PYTHONPATH": str(ROOT), **env}, check=True)
    return done.stdout.strip()


def test_the_language_follows_the_option_the_variable_the_folder_and_the_locale(tmp_path):
    (tmp_path / "ko").mkdir()
    (tmp_path / "ko" / "en").mkdir()
    assert _language_in(tmp_path) == "en"
    assert _language_in(tmp_path / "ko") == "ko"               # notebooks/ko: Korean
    assert _language_in(tmp_path / "ko" / "en") == "en"        # the nearest folder wins
    assert _language_in(tmp_path, LANG="ko_KR.UTF-8") == "ko"
    assert _language_in(tmp_path / "ko", EDUJAX_LANG="en") == "en"
    assert _language_in(tmp_path, EDUJAX_LANG="ko") == "ko"
    assert language() == "en"           # the tests run in the repository's root
    config.update("edujax_language", "ko")
    try:
        assert language() == "ko"
    finally:
        config.update("edujax_language", "auto")
    with pytest.raises(ValueError):
        config.update("edujax_language", "fr")


@pytest.fixture(scope="module")
def shell():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "edujax.kernel")
    return shell


def test_a_magic_given_nonsense_answers_in_korean_in_a_korean_notebook(shell, capsys, korean):
    for line, words in (("jittime -n x f(x)", "옵션 -n: 올바른 int 값이 아닙니다"),
                        ("jaxpr x + 1", "함수 호출이 아닙니다"),
                        ("jittime --frobnicate f(x)", "알 수 없는 옵션: --frobnicate")):
        result = shell.run_cell(f"%{line}")
        err = capsys.readouterr().err
        assert not result.success
        assert words in err and "사용법: %" in err, err
        assert "Traceback" not in err and "frames inside edujax" not in err
        assert "edujax 내부 프레임" not in err      # no traceback, so nothing was hidden


def test_a_usage_error_says_nothing_about_hidden_frames(shell, capsys):
    result = shell.run_cell("%jaxpr --bogus f(x)")
    err = capsys.readouterr().err
    assert not result.success and "UsageError: %jaxpr" in err
    assert "hidden" not in err


def test_the_hint_box_is_korean_in_a_korean_notebook(korean):
    from edujax import errors
    from edujax.kernel.hints import hint_for
    hint = hint_for(errors.TracerBoolConversionError.__new__(errors.TracerBoolConversionError))
    text, html = hint.text(), hint.html()
    assert text.startswith("edujax 도움말: ") and "무슨 일인가: " in text
    assert "notebooks/ko/05_jit_and_jaxprs.md" in text and "/en/" not in text
    assert 'lang="ko"' in html and "고치는 법" in html and "What happened" not in html


def _raise(kind: str) -> BaseException:
    import numpy as np

    import edujax as jax
    import edujax.numpy as jnp
    programs = {
        "bool": lambda: jax.jit(lambda x: x if x > 0 else -x)(1.0),
        "concrete": lambda: jax.jit(lambda x: jnp.arange(x))(3),
        "integer": lambda: jax.jit(lambda x, i: [1, 2, 3][i])(1.0, 1),
        "numpy": lambda: jax.jit(lambda x: np.asarray(x))(1.0),
        "mask": lambda: jax.jit(lambda x: x[x > 0])(jnp.ones(3)),
        "scalar grad": lambda: jax.grad(lambda x: x * jnp.ones(2))(1.0),
        "int grad": lambda: jax.grad(lambda x: x * 2)(3),
    }
    try:
        programs[kind]()
    except Exception as e:  # noqa: BLE001 - the error a student meets
        return e
    raise AssertionError(f"{kind}: nothing raised")


@pytest.mark.parametrize("kind", ["bool", "concrete", "integer", "numpy", "mask", "scalar grad",
                                  "int grad"])
def test_the_one_line_hint_of_an_error_message_is_korean_in_a_korean_notebook(kind, korean):
    from edujax.kernel.errors import localize
    error = _raise(kind)
    assert "\nHint: " in str(error)                  # the core writes it in English
    localize(error)
    assert "\n도움말: " in str(error) and "Hint:" not in str(error), str(error)


def test_the_korean_notebooks_gloss_terms_with_the_glossarys_words():
    """Where a Korean tutorial glosses a term, 트레이서(tracer), it uses the glossary's word."""
    notebooks = sorted((ROOT / "notebooks").glob("ko/*.md")) + sorted(
        (ROOT / "notebooks").glob("inside/ko/*.md"))
    text = "\n".join(p.read_text(encoding="utf-8") for p in notebooks)
    glossed = 0
    for english, korean in glossary():
        for term in english:
            for word in re.findall(rf"([\uac00-\ud7a3]+)\**\({re.escape(term)}\)", text):
                glossed += 1
                assert any(word.startswith(k) or k.startswith(word) for k in korean), (
                    f"the Korean notebooks say {word}({term}); docs/glossary.md says {korean}")
    assert glossed >= 5
