"""The classroom's two languages: which one a message is shown in, and messages in both.

The tutorials come in Korean (notebooks/ko, notebooks/inside/ko) and English. What the
classroom itself says (the kernel's hint boxes, the magics' usage lines, the views'
captions) follows the notebook's language, chosen in this order:

1. the ``edujax_language`` option, ``"ko"`` or ``"en"`` (``jax.config.update(...)`` in a
   cell; it starts from the environment variable ``EDUJAX_LANG``); ``"auto"``, the default,
   goes on to
2. the folder the kernel runs in: JupyterLab (and nbclient) start a notebook's kernel in the
   notebook's folder, so a folder named ``ko`` or ``en`` on that path says it;
3. the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG`` starting with ``ko``);
4. English.

Each message is a :class:`Text`, its English and Korean forms side by side, so that a reader
of the code sees both and a test finds any message whose Korean form is missing. The terms
both forms use are the ones in docs/glossary.md.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edujax.config import config

LANGUAGES = ("en", "ko")

# Every Text made, in order: tests check each one has both forms (see Text).
ALL_TEXTS: list[Text] = []


def _from_folder() -> str | None:
    try:
        parts = Path.cwd().parts
    except OSError:          # the folder the process started in was removed
        return None
    for part in reversed(parts):
        if part in LANGUAGES:
            return part
    return None


def _from_locale() -> str | None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return "ko" if value.lower().startswith("ko") else None
    return None


def language() -> str:
    """``"ko"`` or ``"en"``: the language the classroom speaks now (see the module docs)."""
    chosen = config.read("edujax_language")
    if chosen in LANGUAGES:
        return chosen
    return _from_folder() or _from_locale() or "en"


@dataclass(frozen=True)
class Text:
    """One message in English and Korean; ``str(text)`` is the form for ``language()``.

    ``text.format(**values)`` fills ``{placeholders}``, which both forms must share.
    """
    en: str
    ko: str

    def __post_init__(self) -> None:
        ALL_TEXTS.append(self)

    def __str__(self) -> str:
        return self.ko if language() == "ko" else self.en

    def format(self, *args: Any, **kwargs: Any) -> str:
        return str(self).format(*args, **kwargs)
