"""Where each equation came from: the Python line that bound it and the transformations
it went through (JAX's ``source_info_util``).

Every equation a staging trace records carries a ``SourceInfo``:

* ``frame``: the innermost *user* frame at the moment of ``bind``: the line of the
  student's function that called ``jnp.sin``, not a line inside edujax. Only frames
  below the start of the current trace count, as in JAX: the body of ``jnp.where`` (a
  jitted edujax function) has no user frame and prints an empty place.
* ``name_stack``: the transformations and ``named_scope`` names in effect, printed
  ``[transpose(jvp())]`` or ``[foo/vmap()]``.

Capturing is cheap: bind keeps the user frame's code object and instruction offset; the
line and column are only looked up when someone prints them. A transformation that
replays equations (``eval_jaxpr``, the backward pass) hands each equation's place on to
the equations it makes, through ``replaying``: so the backward pass of ``grad`` points at
the primal lines.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any, Iterator, NamedTuple

_EDUJAX_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_STDLIB_DIRS = (os.path.dirname(os.__file__),)  # (not sysconfig: importing it costs 0.7 ms)
_is_user_file: dict[str, bool] = {}


def is_user_filename(filename: str) -> bool:
    """A frame is the user's unless it is in edujax or the standard library (JAX's rule)."""
    known = _is_user_file.get(filename)
    if known is None:
        known = _is_user_file[filename] = not (filename.startswith(_EDUJAX_DIR)
                                               or filename.startswith(_STDLIB_DIRS))
    return known


class Frame(NamedTuple):
    file_name: str
    function_name: str
    start_line: int
    start_column: int


class Scope(NamedTuple):
    """A ``named_scope``: printed as its name, ``/``-separated from what it encloses."""
    name: str

    def wrap(self, stack: list[str]) -> None:
        stack.append(self.name)


class Transform(NamedTuple):
    """A transformation: printed around what it encloses, ``jvp(...)``."""
    name: str

    def wrap(self, stack: list[str]) -> None:
        if stack:
            stack[-1] = f"{self.name}({stack[-1]})"
        else:
            stack.append(f"{self.name}()")


class NameStack(tuple):
    """Scopes and transformations, outermost first; prints as JAX's name stack does."""

    def __str__(self) -> str:
        scope: list[str] = []
        for elem in reversed(self):
            elem.wrap(scope)
        return "/".join(reversed(scope))

    def __add__(self, other: Any) -> NameStack:
        return NameStack(tuple(self) + tuple(other))


EMPTY_NAME_STACK = NameStack()


class SourceInfo:
    """An equation's place: the user's code location (or None) and its name stack."""

    __slots__ = ("code", "lasti", "name_stack")

    def __init__(self, code: Any, lasti: int, name_stack: NameStack = EMPTY_NAME_STACK):
        self.code = code  # the user frame's code object, or None when there is none
        self.lasti = lasti
        self.name_stack = name_stack

    @property
    def frame(self) -> Frame | None:
        if self.code is None:
            return None
        line, col = _position(self.code, self.lasti)
        return Frame(self.code.co_filename, self.code.co_qualname, line, col)

    def replace(self, name_stack: NameStack) -> SourceInfo:
        return SourceInfo(self.code, self.lasti, name_stack)

    def __repr__(self) -> str:
        return f"SourceInfo({summarize(self)!r}, name_stack={str(self.name_stack)!r})"


NO_SOURCE = SourceInfo(None, 0)


def _position(code: Any, lasti: int) -> tuple[int, int]:
    """The line and 0-based column of the instruction at byte offset ``lasti``."""
    positions = list(code.co_positions())
    index = max(0, min(lasti // 2, len(positions) - 1))
    line, _, col, _ = positions[index]
    return (line if line is not None else code.co_firstlineno), (col or 0)


def summarize(info: SourceInfo) -> str:
    """``file:line:column (function)``, as JAX prints a place; empty where there is none."""
    frame = info.frame
    if frame is None:
        return ""
    where = f"{frame.start_line}:{frame.start_column}" if frame.start_column else \
        f"{frame.start_line}"
    return f"{frame.file_name}:{where} ({frame.function_name})"


# ------------------------------------------------------------------ the current context


class _Context(threading.local):
    def __init__(self) -> None:
        self.base: Any = None       # the frame where the current trace began: walk no further
        self.replay: SourceInfo | None = None  # the equation being replayed, if any
        self.name_stack: NameStack = EMPTY_NAME_STACK


_context = _Context()


def name_depth() -> int:
    """How deep the name stack is now: a staging trace records names below this depth
    only, since an equation's names are relative to the jaxpr that holds it."""
    return len(_context.name_stack)


def current(depth: int = 0) -> SourceInfo:
    """The place of the ``bind`` happening now (called by the staging trace that began at
    name depth ``depth``)."""
    ctx = _context
    names = NameStack(ctx.name_stack[depth:]) if depth else ctx.name_stack
    replay = ctx.replay
    if replay is not None:
        return replay.replace(names + replay.name_stack if names else replay.name_stack)
    # (frame 1 is the staging trace's process_primitive, frame 2 the bind or the trace that
    # called it: both edujax's own, so the walk starts above them)
    frame, base, known = sys._getframe(3), ctx.base, _is_user_file
    while frame is not None and frame is not base:
        code = frame.f_code
        user = known.get(code.co_filename)
        if user is None:
            user = is_user_filename(code.co_filename)
        if user:
            return SourceInfo(code, frame.f_lasti, names)
        frame = frame.f_back
    return SourceInfo(None, 0, names)


class new_trace:
    """``with new_trace(frame):`` a fresh jaxpr is traced from ``frame`` down: its name stack
    starts empty (names are relative to the enclosing jaxpr) and no equation of another's
    replay leaks in. (A class rather than a generator: it runs on every trace.)"""

    __slots__ = ("base", "saved")

    def __init__(self, base_frame: Any):
        self.base = base_frame

    def __enter__(self) -> None:
        ctx = _context
        self.saved = ctx.base, ctx.replay, ctx.name_stack
        ctx.base, ctx.replay, ctx.name_stack = self.base, None, EMPTY_NAME_STACK

    def __exit__(self, *exc: Any) -> None:
        _context.base, _context.replay, _context.name_stack = self.saved


def swap_replay(info: SourceInfo | None) -> SourceInfo | None:
    """From now on, equations bound come from ``info``'s place (None: from the caller's
    line again). Returns the previous one, to swap back: the interpreters' inner loops use
    this rather than ``replaying``, to stay cheap."""
    ctx = _context
    saved, ctx.replay = ctx.replay, info
    return saved


@contextlib.contextmanager
def replaying(info: SourceInfo | None) -> Iterator[None]:
    """Equations bound inside come from the replayed equation's place."""
    saved = swap_replay(info)
    try:
        yield
    finally:
        swap_replay(saved)


@contextlib.contextmanager
def extend_name_stack(elem: Scope | Transform) -> Iterator[None]:
    ctx = _context
    saved = ctx.name_stack
    ctx.name_stack = saved + (elem,)
    try:
        yield
    finally:
        ctx.name_stack = saved


def transform_name_stack(name: str):
    """``with transform_name_stack("jvp"):`` the equations bound inside show ``[jvp()]``."""
    return extend_name_stack(Transform(name))
