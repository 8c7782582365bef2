"""Reading the call a magic is given: ``%jaxpr f(x, 2.0)`` -> ``f`` and ``(x, 2.0)``.

``%jaxpr`` and ``%jittime`` both take one *call expression*. They need its parts
separately: the callee, to hand to ``make_jaxpr`` or ``jit``, and the arguments, to
call it with. So the expression is parsed with Python's ``ast`` module, checked to be
a call, and rewritten into ``(callee, __pack__(args...))``: evaluating that in the
user's namespace gives the callee and the arguments exactly as Python would compute
them (``*xs``, ``**kw``, keyword arguments and nested calls included).
"""
from __future__ import annotations

import ast
import linecache
from typing import Any, Callable, NamedTuple

from edujax.language import Text


class NotACall(ValueError):
    """The magic's expression is empty, not Python, or not a call ``f(...)``."""


class Call(NamedTuple):
    source: str          # the expression as the user wrote it
    callee: Callable
    args: tuple
    kwargs: dict


def _pack(*args: Any, **kwargs: Any) -> tuple[tuple, dict]:
    return args, kwargs


NO_CALL = Text("no call given", "호출이 없습니다")
NOT_PYTHON = Text("{source!r} is not a Python expression ({msg})",
                  "{source!r}은(는) 파이썬 식이 아닙니다 ({msg})")
NOT_A_CALL = Text("{source!r} is not a function call", "{source!r}은(는) 함수 호출이 아닙니다")
CELL_NOT_PYTHON = Text("the cell is not valid Python ({msg}, line {line})",
                       "셀이 올바른 파이썬이 아닙니다 ({msg}, {line}번째 줄)")
LAST_NOT_A_CALL = Text("the cell's last statement must be the call to look at",
                       "셀의 마지막 문장은 들여다볼 함수 호출이어야 합니다")


def parse_call(source: str) -> ast.Call:
    """The ``ast.Call`` node of ``source``, or :class:`NotACall` saying what is wrong."""
    source = source.strip()
    if not source:
        raise NotACall(str(NO_CALL))
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as e:
        raise NotACall(NOT_PYTHON.format(source=source, msg=e.msg)) from None
    if not isinstance(tree.body, ast.Call):
        raise NotACall(NOT_A_CALL.format(source=source))
    return tree.body


_counter = iter(range(1, 1 << 62))


def _register_source(source: str, magic: str) -> str:
    """A file name under which tracebacks can show the user's expression."""
    filename = f"<{magic} input {next(_counter)}>"
    lines = [line + "\n" for line in source.splitlines()]
    linecache.cache[filename] = (len(source), None, lines, filename)
    return filename


def evaluate_call(source: str, namespace: dict, magic: str = "%jaxpr") -> Call:
    """Evaluate the callee and the arguments of ``source`` in ``namespace``.

    Errors raised while evaluating (an undefined name, an exception in an argument
    expression) are the user's own and propagate unchanged.
    """
    __tracebackhide__ = True  # IPython shows the user's expression, not this frame
    call = parse_call(source)
    packed = ast.Call(func=ast.Name("__edujax_pack__", ast.Load()), args=call.args,
                      keywords=call.keywords)
    expr = ast.Expression(ast.Tuple([call.func, packed], ast.Load()))
    ast.fix_missing_locations(ast.copy_location(expr.body, call))
    code = compile(expr, _register_source(source.strip(), magic), "eval")
    callee, (args, kwargs) = eval(code, namespace, {"__edujax_pack__": _pack})
    return Call(source.strip(), callee, args, kwargs)


def split_cell(cell: str) -> tuple[str, str]:
    """``(setup, call)`` of a cell magic's body: the last statement must be a call
    expression (it may span several lines); the statements before it are the setup."""
    try:
        tree = ast.parse(cell)
    except SyntaxError as e:
        raise NotACall(CELL_NOT_PYTHON.format(msg=e.msg, line=e.lineno)) from None
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        raise NotACall(str(LAST_NOT_A_CALL))
    last = tree.body[-1]
    lines = cell.splitlines()
    setup = "\n".join(lines[:last.lineno - 1])
    return setup, ast.get_source_segment(cell, last.value) or ""


def run_setup(setup: str, namespace: dict, magic: str) -> None:
    """Run a cell magic's setup lines in the user's namespace, as a cell would."""
    __tracebackhide__ = True
    if setup.strip():
        exec(compile(setup, _register_source(setup, magic), "exec"), namespace)
