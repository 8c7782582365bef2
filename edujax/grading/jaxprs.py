"""Compare the program a student's function traces to with the expected program.

Sometimes the *values* are not the point: "compute the gradient with ``jax.grad``, not by
hand", "take the ``jnp.where`` route, not a Python ``if``", "fuse the two passes into
one". The jaxpr shows which program the student wrote, so we compare jaxprs.

Two jaxprs are *structurally* the same when they are the same program up to the names
of their variables. The printer already names variables a, b, c... in order of first
appearance, so we print both jaxprs equation by equation and compare the lines: the
first line that differs is the first equation where the programs part ways, and it is
shown in the student's own names and in the expected one's.
"""
from __future__ import annotations

from typing import Any, Callable

from edujax import api
from edujax.jaxpr import ClosedJaxpr, Jaxpr
from edujax.grading.verdict import PASSED, Verdict, failed, reported
from edujax.language import Text
from edujax.pretty import PpContext, _dropvars, format_doc, pp_eqn, pp_vars

OTHER_INPUTS = Text("your function takes different inputs: yours `{got}`, expected `{want}`.",
                    "여러분의 함수는 다른 입력을 받습니다: 여러분의 것은 `{got}`, 기대한 것은 "
                    "`{want}`입니다.")
OTHER_EQUATION = Text("equation {number} differs: yours is `{got}`, the expected program has "
                      "`{want}`.",
                      "{number}번째 식이 다릅니다: 여러분의 것은 `{got}`, 기대한 프로그램은 "
                      "`{want}`입니다.")
MORE_EQUATIONS = Text("your program has {count} more equation(s) than the expected one; the first "
                      "extra one is `{first}`.",
                      "여러분의 프로그램은 기대한 것보다 식이 {count}개 더 많습니다; 첫 번째로 더 "
                      "있는 식은 `{first}`입니다.")
FEWER_EQUATIONS = Text("your program stops after {count} equation(s); the expected one goes on "
                       "with `{next}`.",
                       "여러분의 프로그램은 식 {count}개 뒤에 끝납니다; 기대한 프로그램은 "
                       "`{next}`(으)로 이어집니다.")
OTHER_OUTPUTS = Text("your program returns {got}, the expected one returns {want}.",
                     "여러분의 프로그램은 {got}을(를) 돌려주고, 기대한 프로그램은 {want}을(를) "
                     "돌려줍니다.")
NOT_TRACEABLE = Text("your function cannot be traced: {error}",
                     "여러분의 함수를 추적할 수 없습니다: {error}")
NO_EQUATION = Text("your function's jaxpr has no `{primitive}` equation. {advice}",
                   "여러분의 함수의 jaxpr에는 `{primitive}` 식이 없습니다. {advice}")

WIDE = 10_000  # print every equation on one line, whatever its length


def _as_jaxpr(f_or_jaxpr: Callable | ClosedJaxpr | Jaxpr, args: tuple) -> Jaxpr:
    if isinstance(f_or_jaxpr, ClosedJaxpr):
        return f_or_jaxpr.jaxpr
    if isinstance(f_or_jaxpr, Jaxpr):
        return f_or_jaxpr
    return api.make_jaxpr(f_or_jaxpr)(*args).jaxpr


def jaxpr_lines(jaxpr: Jaxpr) -> tuple[str, list[str], str]:
    """(the binders ``a:f32[3] b:f32[]``, one line per equation, the outputs ``(c,)``)."""
    ctx = PpContext(_dropvars(jaxpr))
    binders = format_doc(pp_vars(jaxpr.constvars + jaxpr.invars, ctx, shapes=True), WIDE)
    eqns = [format_doc(pp_eqn(e, ctx), WIDE) for e in jaxpr.eqns]
    outs = format_doc(pp_vars(jaxpr.outvars, ctx, separator=","), WIDE)
    return binders, eqns, f"({outs})"


def compare_jaxprs(actual: Jaxpr, expected: Jaxpr) -> Verdict:
    """The first place where two jaxprs differ, or PASSED."""
    return compare_lines(jaxpr_lines(actual), jaxpr_lines(expected))


def compare_lines(actual: tuple[str, list[str], str], expected: tuple[str, list[str], str]
                  ) -> Verdict:
    """``compare_jaxprs`` on two jaxprs already printed by ``jaxpr_lines``."""
    got_in, got, got_out = actual
    want_in, want, want_out = expected
    if got_in != want_in:
        return failed(OTHER_INPUTS.format(got=got_in, want=want_in))
    for i, (mine, theirs) in enumerate(zip(got, want)):
        if mine != theirs:
            return failed(OTHER_EQUATION.format(number=i + 1, got=mine, want=theirs))
    if len(got) > len(want):
        return failed(MORE_EQUATIONS.format(count=len(got) - len(want), first=got[len(want)]))
    if len(got) < len(want):
        return failed(FEWER_EQUATIONS.format(count=len(got), next=want[len(got)]))
    if got_out != want_out:
        return failed(OTHER_OUTPUTS.format(got=got_out, want=want_out))
    return PASSED


def check_same_jaxpr(actual: Callable | ClosedJaxpr | Jaxpr,
                     expected: Callable | ClosedJaxpr | Jaxpr, *args: Any) -> Verdict:
    """Do ``actual`` and ``expected`` trace to the same program (on ``args``)?

    Either may be a function (traced with ``make_jaxpr`` on ``args``) or a jaxpr; a
    function of the sandboxed notebook is traced there, and its lines compared here.
    """
    if getattr(actual, "edujax_remote", False):
        binders, eqns, outs = actual.observe("jaxpr_lines", args)
        return compare_lines((str(binders), [str(e) for e in eqns], str(outs)),
                             jaxpr_lines(_as_jaxpr(expected, args)))
    return compare_jaxprs(_as_jaxpr(actual, args), _as_jaxpr(expected, args))


def count_primitive(f: Callable, name: str, *args: Any) -> int:
    """How many equations of primitive ``name`` (``"sin"``, ``"cond"``...) ``f`` traces to,
    nested jaxprs included: "did you use ``lax.cond``?" in one line."""
    def count(jaxpr: Jaxpr) -> int:
        n = 0
        for eqn in jaxpr.eqns:
            n += eqn.primitive.name == name
            for value in eqn.params.values():
                for item in value if isinstance(value, tuple) else (value,):
                    if isinstance(item, (ClosedJaxpr, Jaxpr)):
                        n += count(_as_jaxpr(item, ()))
        return n
    return count(_as_jaxpr(f, args))


def check_uses(f: Callable, primitive: str, *args: Any, advice: str = "") -> Verdict:
    """Does ``f`` trace to a program with at least one ``primitive`` equation?

    ``advice`` is added to the explanation: say which function produces that primitive
    ("lax.cond traces to a `cond` equation").
    """
    from edujax.grading.jittable import TRACING_ERRORS, explain_tracing_error

    if getattr(f, "edujax_remote", False):  # the sandbox traces it and counts
        return reported(f.observe("uses", args, {"primitive": primitive, "advice": advice}))
    try:
        if count_primitive(f, primitive, *args):
            return PASSED
    except TRACING_ERRORS as error:
        return failed(NOT_TRACEABLE.format(error=explain_tracing_error(error)))
    return failed(NO_EQUATION.format(primitive=primitive, advice=advice).rstrip())


def assert_uses(f: Callable, primitive: str, *args: Any, advice: str = "") -> None:
    """``check_uses``, raising ``GradingError`` with the explanation when it fails."""
    check_uses(f, primitive, *args, advice=advice).or_raise()


def assert_same_jaxpr(actual: Any, expected: Any, *args: Any) -> None:
    """``check_same_jaxpr``, raising ``GradingError`` with the explanation when it fails."""
    check_same_jaxpr(actual, expected, *args).or_raise()
