"""``edujax.explain_primitive("sin")``: every rule table that holds a rule for a primitive.

A primitive is a name plus entries in tables that the interpreters own: its reference
implementation and abstract evaluation (``core``), its JVP and transpose (``ad``), its
batching rule (``batching``), its partial-evaluation and constant-folding rules
(``partial_eval``), how it prints (``pretty``), and how the Numba backends write it as
scalar code (``backends/passes/lowering.py``, keyed by name). Most are filled in the
primitive's own block in ``lax/``; this lists them all, each with the file and line of the
code that says what the rule does, so a reader can open them one after the other.
"""
from __future__ import annotations

import functools
import inspect
import os
from typing import Any, Callable, Iterator, NamedTuple

from edujax import core, pretty
from edujax.backends.passes import lowering
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe

PACKAGE = os.path.dirname(os.path.abspath(__file__))

# (name shown, table keyed by primitive). Sets are properties a primitive has or not.
TABLES: list[tuple[str, Any]] = [
    ("core.impl_rules", core.impl_rules),
    ("core.abstract_eval_rules", core.abstract_eval_rules),
    ("ad.jvp_rules", ad.jvp_rules),
    ("ad.transpose_rules", ad.transpose_rules),
    ("batching.batching_rules", batching.batching_rules),
    ("batching.axis_rules", batching.axis_rules),
    ("partial_eval.partial_eval_rules", pe.partial_eval_rules),
    ("partial_eval.const_fold_rules", pe.const_fold_rules),
    ("partial_eval.forwarding_rules", pe.forwarding_rules),
    ("partial_eval.dce_rules", pe.dce_rules),
    ("pretty.pp_eqn_rules", pretty.pp_eqn_rules),
    ("core.nan_check_rules", core.nan_check_rules),
    ("ad.linearized_directly", ad.linearized_directly),
    ("partial_eval.split_even_if_known", pe.split_even_if_known),
]
# Tables keyed by the primitive's name (the backends see equations, not primitives).
TABLES_BY_NAME: list[tuple[str, dict]] = [
    ("backends.passes.lowering.scalar_rules", lowering.scalar_rules),
]


class RuleEntry(NamedTuple):
    table: str
    rule: str   # the rule's name ("" for a property set)
    where: str  # "lax/elementwise.py:356", relative to the package


def explain_primitive(name: str) -> None:
    """Print the rule tables that hold a rule for the primitive ``name``, one line each,
    with the file and line of each rule. Raises ``ValueError`` for a name no primitive
    has."""
    print(rules_text(name))


def rules_text(name: str) -> str:
    """What ``explain_primitive`` prints."""
    lines: list[str] = []
    for prim in sorted((p for p in _all_primitives() if p.name == name), key=id):
        entries = list(rule_entries(prim))
        width = max(len(e.table) for e in entries)
        where = max(len(e.where) for e in entries)
        lines.append(f"{name}: {len(entries)} tables")
        lines += [f"  {e.table:<{width}}  {e.where:<{where}}  {e.rule}".rstrip()
                  for e in entries]
    if not lines:
        raise ValueError(f"no primitive is named {name!r} (try 'sin', 'add' or 'scan')")
    return "\n".join(lines)


def rule_entries(prim: core.Primitive) -> Iterator[RuleEntry]:
    for table_name, table in TABLES:
        if isinstance(table, set):
            if prim in table:
                yield RuleEntry(table_name, "(a property: only the printed jaxpr)", "")
        elif prim in table:
            yield RuleEntry(table_name, *_describe(table[prim]))
    for table_name, table in TABLES_BY_NAME:
        if prim.name in table:
            yield RuleEntry(table_name, *_describe(table[prim.name]))


def _all_primitives() -> set:
    return {p for _, table in TABLES for p in table}


def _describe(rule: Callable) -> tuple[str, str]:
    """(name, file:line) of the function that says what ``rule`` does for this primitive:
    the rule itself, or, for one made by a registrar (``ad.defjvp``, ``quiet``...), the
    function the registrar was given."""
    fn = _specific_function(rule)
    code = getattr(fn, "__code__", None)
    if code is None:  # a NumPy ufunc, say
        return f"{type(rule).__module__}.{getattr(rule, '__name__', type(rule).__name__)}", ""
    where = os.path.relpath(code.co_filename, PACKAGE)
    return fn.__qualname__, f"{where}:{code.co_firstlineno}"


def _specific_function(rule: Callable) -> Callable:
    """The innermost function among ``rule`` and those it wraps, preferring one written
    outside the interpreters (a generic rule such as ``defvectorized``'s is its own)."""
    candidates = list(_functions_in(rule))
    outside = [f for f in candidates if "interpreters" not in f.__code__.co_filename]
    return (outside or candidates or [rule])[-1]


def _functions_in(rule: Any, depth: int = 0) -> Iterator[Callable]:
    """``rule``, then the functions its partial arguments and closure hold (three levels)."""
    if isinstance(rule, functools.partial):
        yield from _functions_in(rule.func, depth)
        given = [a for a in (*rule.args, *rule.keywords.values()) if inspect.isfunction(a)]
        yield from given[:1]  # (the first: a shape rule before a dtype rule)
        return
    if not inspect.isfunction(rule):
        return
    yield rule
    if depth < 3:
        for cell in rule.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            for item in value if isinstance(value, (tuple, list)) else (value,):
                if inspect.isfunction(item) or isinstance(item, functools.partial):
                    yield from _functions_in(item, depth + 1)
