"""edujax.explain_primitive: the rule tables of one primitive, each rule with its file:line."""
from __future__ import annotations

import os

import pytest

import edujax
from edujax.explain import rules_text

PACKAGE = os.path.dirname(edujax.__file__)


def _line_at(where: str) -> str:
    path, line = where.rsplit(":", 1)
    with open(os.path.join(PACKAGE, path), encoding="utf-8") as f:
        return f.read().splitlines()[int(line) - 1]


def test_sin_lists_its_tables_and_points_at_its_own_rules(capsys):
    edujax.explain_primitive("sin")
    out = capsys.readouterr().out
    tables = [line.split()[0] for line in out.splitlines()[1:]]
    assert out.startswith("sin: ")
    assert {"core.impl_rules", "core.abstract_eval_rules", "ad.jvp_rules",
            "batching.batching_rules", "ad.linearized_directly",
            "backends.passes.lowering.scalar_rules"} <= set(tables)
    jvp = next(line for line in out.splitlines() if line.split()[0] == "ad.jvp_rules")
    # the JVP rule's line is sin's own (d sin = cos), not the registrar's in ad.py
    assert "cos" in _line_at(jvp.split()[1])


def test_every_location_names_a_real_line():
    for name in ("add", "scan", "jit", "cumsum", "threefry2x32"):
        for line in rules_text(name).splitlines()[1:]:
            fields = line.split()
            if ":" in fields[1]:
                assert _line_at(fields[1]).strip(), line


def test_a_name_no_primitive_has_says_so():
    with pytest.raises(ValueError, match="no primitive is named 'sine'"):
        edujax.explain_primitive("sine")
