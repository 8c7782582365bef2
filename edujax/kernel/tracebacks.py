"""Tracebacks that show the user's code, not edujax's insides.

An error raised while tracing passes through many edujax frames (make_jaxpr, the
trace, bind, the primitive's rule) before it reaches the line that caused it in the
user's function. JAX hides its own frames by default ("traceback filtering"); the
edujax kernel does the same: the frames whose code lives inside the edujax package
are dropped from the traceback shown, and one line says how many were hidden.
``jax.config.update("jax_traceback_filtering", "off")`` (or the environment variable
``JAX_TRACEBACK_FILTERING=off``) shows them all again.
"""
from __future__ import annotations

import os
import types

from edujax.config import config
from edujax.language import Text

# The edujax package folder: this file is edujax/kernel/tracebacks.py.
EDUJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _is_internal(tb: types.TracebackType) -> bool:
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(EDUJAX_DIR)


def filter_traceback(tb: types.TracebackType | None
                     ) -> tuple[types.TracebackType | None, int]:
    """``(tb without edujax's frames, how many were dropped)``.

    Traceback objects form a linked list (``tb_next``); a new list is built from the
    frames that are kept. If every frame is edujax's, nothing is dropped: an error
    inside edujax itself must stay visible.
    """
    if config.read("jax_traceback_filtering") == "off":
        return tb, 0
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    kept = [f for f in frames if not _is_internal(f)]
    if not kept:
        return (frames[0] if frames else None), 0
    new_tb = None
    for f in reversed(kept):
        new_tb = types.TracebackType(new_tb, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return new_tb, len(frames) - len(kept)


HIDDEN_FRAMES = Text(
    "({count} frame{s} inside edujax hidden; "
    "jax.config.update(\"jax_traceback_filtering\", \"off\") shows them)",
    "(edujax 내부 프레임 {count}개 숨김; "
    "jax.config.update(\"jax_traceback_filtering\", \"off\")로 모두 볼 수 있습니다)")


def hidden_frames_note(count: int) -> str:
    return HIDDEN_FRAMES.format(count=count, s="s" if count != 1 else "")
