"""Printing jaxprs in exactly JAX's text format.

Two layers:

1. A small *document* pretty-printer (Wadler/Lindig style, as in JAX): a document
   is text, breaks, nesting and groups. A group is printed on one line if it fits
   in the remaining width, otherwise each of its breaks becomes a newline.
2. Functions that build the document of a jaxpr the way JAX does, so that
   line breaks, indentation and variable names match JAX character for character.
"""
from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

from edujax import source_info as si
from edujax.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var, literal_value_str

# ------------------------------------------------------------------ documents


class Text(NamedTuple):
    text: str


class Annotated(NamedTuple):
    """Text with a note printed at the right end of its line, after `` # `` (JAX prints an
    equation's source line and name stack this way)."""
    text: str
    annotation: str


class Break(NamedTuple):
    text: str  # printed when the enclosing group is flat


class Concat(NamedTuple):
    children: tuple


class Nest(NamedTuple):
    n: int
    child: Any


class Group(NamedTuple):
    child: Any


NIL = Concat(())


def text(s: str) -> Text:
    return Text(s)


def brk(s: str = " ") -> Break:
    return Break(s)


def concat(*docs: Any) -> Concat:
    return Concat(tuple(docs))


def nest(n: int, doc: Any) -> Nest:
    return Nest(n, doc)


def group(doc: Any) -> Group:
    return Group(doc)


def join(sep: Any, docs: list) -> Any:
    if not docs:
        return NIL
    out = [docs[0]]
    for d in docs[1:]:
        out += [sep, d]
    return Concat(tuple(out))


def _flat_width(doc: Any, budget: int) -> int:
    """Width of ``doc`` printed flat; stops counting once past ``budget``."""
    width, todo = 0, [doc]
    while todo and width <= budget:
        d = todo.pop()
        if type(d) in (Text, Break, Annotated):
            width += len(d.text)
        elif type(d) is Concat:
            todo.extend(reversed(d.children))
        else:  # Nest, Group
            todo.append(d.child)
    return width


def _with_annotations(lines: list[str], notes: list[list[str]]) -> str:
    """Each line's annotations start in one column, after the widest line."""
    if not any(notes):
        return "\n".join(lines)
    right = max(len(line) for line in lines)
    out = []
    for line, line_notes in zip(lines, notes):
        if not line_notes:
            out.append(line)
            continue
        out.append(line + " " * (right - len(line)) + " # " + line_notes[0])
        out.extend(" " * right + " # " + note for note in line_notes[1:])
    return "\n".join(out)


def format_doc(doc: Any, width: int = 80) -> str:
    """Lay out ``doc``: a group goes flat when it fits in what is left of the line."""
    lines, line, col = [], "", 0
    notes: list[list[str]] = [[]]  # the annotations of each line
    agenda = [(0, False, doc)]  # (indent, flat?, doc)
    while agenda:
        indent, flat, d = agenda.pop()
        kind = type(d)
        if kind is Text:
            line += d.text
            col += len(d.text)
        elif kind is Annotated:
            line += d.text
            col += len(d.text)
            notes[-1].append(d.annotation)
        elif kind is Break:
            if flat:
                line += d.text
                col += len(d.text)
            else:
                lines.append(line)
                notes.append([])
                line, col = " " * indent, indent
        elif kind is Concat:
            agenda.extend((indent, flat, c) for c in reversed(d.children))
        elif kind is Nest:
            agenda.append((indent + d.n, flat, d.child))
        else:  # Group
            fits = flat or _flat_width(d.child, width - col) <= width - col
            agenda.append((indent, fits, d.child))
    lines.append(line)
    return _with_annotations(lines, notes)


# ------------------------------------------------------------------ naming


def _encode_alphabetic(n: int) -> str:
    """0 -> 'a', 25 -> 'z', 26 -> 'ba', ... (JAX's variable names)."""
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class PpContext:
    """Hands out names a, b, c... in order of first appearance, shared by nested jaxprs."""

    def __init__(self, fixed: dict | None = None, *, source_info: bool = False,
                 name_stack: bool = False):
        self.names: dict[Var, str] = dict(fixed or {})
        # JAX's printing options: each equation's source line and name stack, as annotations
        self.source_info = source_info
        self.name_stack = name_stack
        self.counter = 0
        self.shared: dict[Jaxpr, str] = {}  # jaxprs printed once, up front, then by name

    def name(self, v: Var) -> str:
        name = self.names.get(v)
        if name is None and type(v) is DropVar:
            return "_"
        if name is None:
            name = _encode_alphabetic(self.counter)
            self.counter += 1
            while name in self.shared.values():  # a shared jaxpr's name is taken
                name = _encode_alphabetic(self.counter)
                self.counter += 1
            self.names[v] = name
        return name

    def suggest_same_names(self, for_vars: list, like_vars: list) -> None:
        """Name ``for_vars`` like ``like_vars`` (used to print a jit's inner jaxpr)."""
        used = set()
        for for_v, like_v in zip(for_vars, like_vars):
            if (type(like_v) is Var and like_v not in used and type(for_v) is Var
                    and for_v not in self.names):
                used.add(like_v)
                self.names[for_v] = self.name(like_v)


def _dropvars(jaxpr: Jaxpr) -> dict:
    """Equation outputs nobody reads are printed as ``_``."""
    names, used = {}, {v for v in jaxpr.outvars if type(v) is Var}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                names[v] = "_"
        used.update(v for v in eqn.invars if type(v) is Var)
    return names


# ------------------------------------------------------------------ jaxpr documents


def pp_atom(v: Var | Literal, ctx: PpContext) -> str:
    if type(v) is Literal:
        return f"{literal_value_str(v)}:{v.aval.str_short(short_dtypes=True)}"
    return ctx.name(v)


def pp_vars(vs: list, ctx: PpContext, *, separator: str = "", shapes: bool = False) -> Any:
    items = [text(pp_atom(v, ctx) + (":" + v.aval.str_short(short_dtypes=True) if shapes else ""))
             for v in vs]
    return nest(2, group(join(concat(text(separator), group(brk())), items)))


def pp_param_value(v: Any, ctx: PpContext) -> Any:
    if type(v) is tuple and v and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
        jaxprs = [j.jaxpr if isinstance(j, ClosedJaxpr) else j for j in v]
        return group(concat(nest(2, concat(text("("), brk(""),
                                           join(brk(), [pp_jaxpr(j, ctx) for j in jaxprs]))),
                            brk(""), text(")")))
    if isinstance(v, ClosedJaxpr):
        return pp_jaxpr(v.jaxpr, ctx)
    if isinstance(v, Jaxpr):
        return pp_jaxpr(v, ctx)
    if hasattr(v, "name") and type(v).__module__ == "numpy":  # a dtype
        return text(str(v))
    # Like JAX, hide the memory address of a function parameter (lax.reduce's computation):
    # it changes from run to run, and jaxprs are meant to be compared.
    return text(re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)),
                       str(v)))


def pp_params(params: dict, names: list[str], ctx: PpContext) -> Any:
    if not names:
        return NIL
    pairs = [concat(text(f"{k}="), pp_param_value(params[k], ctx)) for k in names]
    return group(concat(nest(2, concat(text("["), brk(""), join(brk(), pairs))),
                        brk(""), text("]")))


def pp_eqn_default(eqn, ctx: PpContext, names: list[str] | None = None) -> Any:
    if names is None:
        names = sorted(eqn.params)
    lhs = pp_vars(eqn.outvars, ctx, shapes=True)
    info = getattr(eqn, "source_info", si.NO_SOURCE)
    name = (Annotated(eqn.primitive.name, f"[{info.name_stack}]") if ctx.name_stack
            else text(eqn.primitive.name))
    rhs = [name, pp_params(eqn.params, names, ctx),
           concat(text(" "), pp_vars(eqn.invars, ctx))]
    equals = Annotated(" = ", si.summarize(info)) if ctx.source_info else text(" = ")
    return concat(lhs, equals, *rhs) if eqn.outvars else concat(*rhs)


# Primitives whose printed form hides some params (JAX's core.pp_eqn_rules).
# A rule takes (eqn, ctx) and returns a document.
pp_eqn_rules: dict[Any, Callable] = {}


def hide_params(*hidden: str, hide_if_empty: tuple[str, ...] = ()) -> Callable:
    """A pp rule that leaves out ``hidden`` params, and those in ``hide_if_empty`` when empty."""
    def names(eqn) -> list[str]:
        return [k for k in sorted(eqn.params) if k not in hidden
                and not (k in hide_if_empty and not eqn.params[k])]

    def rule(eqn, ctx):
        return pp_eqn_default(eqn, ctx, names(eqn))
    rule.param_names = names  # type: ignore[attr-defined]
    return rule


def shown_params(eqn) -> list[str]:
    """The params the printed jaxpr shows for ``eqn`` (a rule that hides some says which,
    through its ``param_names``): the graph view draws the same ones."""
    names = getattr(pp_eqn_rules.get(eqn.primitive), "param_names", None)
    return names(eqn) if names is not None else sorted(eqn.params)


def pp_eqn(eqn, ctx: PpContext) -> Any:
    return pp_eqn_rules.get(eqn.primitive, pp_eqn_default)(eqn, ctx)


def pp_jaxpr(jaxpr: Jaxpr, ctx: PpContext) -> Any:
    if jaxpr in ctx.shared:
        return text(ctx.shared[jaxpr])
    return pp_jaxpr_skeleton(jaxpr, ctx)


def pp_jaxpr_skeleton(jaxpr: Jaxpr, ctx: PpContext) -> Any:
    constvars = pp_vars(jaxpr.constvars, ctx, shapes=True)
    invars = pp_vars(jaxpr.invars, ctx, shapes=True)
    eqns = join(brk("; "), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outvars = concat(text("("), pp_vars(jaxpr.outvars, ctx, separator=","),
                     text(")" if len(jaxpr.outvars) != 1 else ",)"))
    return group(concat(nest(2, concat(
        text("{ "), text("lambda "), constvars, text("; "), invars, text(". "), text("let"),
        nest(2, concat(brk(), eqns)), brk(), text("in "), outvars)), text(" }")))


def jaxprs_in_params(params: dict) -> list[Jaxpr]:
    out = []
    for v in params.values():
        # (any tuple, as in JAX: custom_linear_solve's _LinearSolveTuple of four jaxprs too)
        for item in (v if isinstance(v, tuple) else (v,)):
            if isinstance(item, ClosedJaxpr):
                out.append(item.jaxpr)
            elif isinstance(item, Jaxpr):
                out.append(item)
    return out


# Primitives whose ``name`` param is only a label for the reader: JAX's custom_jvp_call and
# custom_vjp_call have no such param, their pp rules read it from the body's debug info, so
# it does not name their sub-jaxprs when those are hoisted (they print as ``let jaxpr = ...``).
label_only_names: set = set()


def _shared_jaxprs(top: Jaxpr) -> list[tuple[str, Jaxpr]]:
    """JAX prints a sub-jaxpr once, up front (``let name = {...} in``), when it is used
    more than once, or is long (more than 10 equations) and not the top level."""
    counts: dict[Jaxpr, int] = {}
    names: dict[Jaxpr, str] = {}
    queue = [top]
    while queue:
        jaxpr = queue.pop(0)
        counts[jaxpr] = counts.get(jaxpr, 0) + 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
        for eqn in jaxpr.eqns:
            name = None if eqn.primitive in label_only_names else eqn.params.get("name")
            for sub in jaxprs_in_params(eqn.params):
                queue.append(sub)
                if isinstance(name, str):
                    names.setdefault(sub, name.strip("<>"))
    used: dict[str, int] = {}
    shared = []
    for jaxpr, count in counts.items():
        if count == 1:
            continue
        name = names.get(jaxpr, "jaxpr")
        if used.get(name, 0):
            used[name] += 1
            name = f"{name}{used[name] - 1}"
        used[name] = used.get(name, 0) + 1
        shared.append((name, jaxpr))
    return shared


def pp_toplevel_jaxpr(jaxpr: Jaxpr, width: int = 80, *, source_info: bool = False,
                      name_stack: bool = False) -> str:
    ctx = PpContext(_dropvars(jaxpr), source_info=source_info, name_stack=name_stack)
    shared = _shared_jaxprs(jaxpr)
    ctx.shared.update((j, name) for name, j in shared)
    docs = [concat(text(f"let {name} = "), pp_jaxpr_skeleton(j, ctx), text(" in"), brk())
            for name, j in shared]
    return format_doc(concat(*docs, pp_jaxpr(jaxpr, ctx)), width)


Jaxpr.printer = pp_toplevel_jaxpr  # how print(jaxpr) and str(closed_jaxpr) find this printer


def _eqn_repr(eqn: JaxprEqn) -> str:
    """One equation on its own, named from ``a`` on as JAX does: ``a:f32[3] = mul b 2.0:f32[]``."""
    return format_doc(pp_eqn(eqn, PpContext()), 80)


JaxprEqn.__repr__ = JaxprEqn.__str__ = _eqn_repr
