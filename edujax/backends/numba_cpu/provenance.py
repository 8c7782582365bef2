"""Which equation, and which line of the user's Python, each statement of the generated
module computes: the third of the three texts a student reads (Python, jaxpr, kernel).

The generated source itself stays free of user file names and line numbers: its text names
the module on disk and keys the kernel caches, and the same kernel must be found again when
the notebook cell moves. So the places are kept beside it (``GeneratedModule.provenance``:
generated variable name -> equation) and written into the text only when it is shown
(``annotate``, used by ``as_text()`` and the linked view ``viz.lineage``).
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from edujax import source_info
from edujax.jaxpr import Var
from edujax.pretty import jaxprs_in_params

# "    c = exp_f32(a)", "acc_c += a", "ACC_C[i0] = ...", "C[i0] = c": the name a statement sets
_TARGET = re.compile(r"^(\s*)(?:acc_|ACC_)?([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*(?:[-+*/|&^]?=)\s")


class Origin(NamedTuple):
    """Where a generated variable comes from: its equation, as printed, and its place."""
    eqn_text: str
    place: source_info.SourceInfo

    def comment(self) -> str:
        where = source_info.summarize(self.place)
        return f"{self.eqn_text}" + (f"  <- {where}" if where else "")


def origins_by_name(jaxpr: Any, names: Any) -> dict[str, Origin]:
    """Each equation's output variables, nested jaxprs' too, by their generated name
    (``names``: the code generator's ``Names``, jaxpr variable -> Python name)."""
    origins = {}
    todo = [jaxpr]
    while todo:
        j = todo.pop()
        for eqn in j.eqns:
            origin = Origin(names.eqn_text(eqn), eqn.source_info)
            for v in eqn.outvars:
                if type(v) is Var:
                    origins.setdefault(names(v), origin)
            todo.extend(jaxprs_in_params(eqn.params))
    return origins


def statement_origins(source: str, provenance: dict[str, Origin]) -> list[Origin | None]:
    """For each line of ``source``, the origin of the equation it starts computing (the
    first statement of each function that sets that equation's variable), else None."""
    origins: list[Origin | None] = []
    seen: set[str] = set()
    for line in source.splitlines():
        if line.startswith("def ") or line.startswith("@"):
            seen = set()
        match = _TARGET.match(line)
        name = match.group(2) if match and not _only_moves(line, match.group(2)) else None
        if name is not None and name not in provenance and name.lower() in provenance:
            name = name.lower()  # an array: the variable's name in capitals
        if name is not None and name in provenance and name not in seen:
            seen.add(name)
            origins.append(provenance[name])
        else:
            origins.append(None)
    return origins


def _only_moves(line: str, name: str) -> bool:
    """An allocation (``g = np.empty(...)``) or a load of an input (``c = C[i0]``): the
    equation is computed elsewhere."""
    rhs = line.split("=", 1)[1].strip()
    return rhs.startswith("np.empty(") or rhs.startswith(name.upper() + "[")


def annotate(source: str, provenance: dict[str, Any],
             origins: list[Origin | None] | None = None) -> str:
    """``source`` with each equation's first statement followed by ``# equation <- place``
    (``origins``: one per line, when another backend finds them its own way)."""
    if not provenance:
        return source
    lines = source.splitlines()
    out = []
    if origins is None:
        origins = statement_origins(source, provenance)
    for line, origin in zip(lines, origins):
        where = source_info.summarize(origin.place) if origin is not None else ""
        if origin is None:
            out.append(line)
        elif "#" in line:  # (the driver's own note: what runs there)
            out.append(f"{line}  <- {where}" if where else line)
        else:
            out.append(f"{line}  # {origin.comment()}")
    return "\n".join(out)
