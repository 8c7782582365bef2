"""The tracing stepper (issue 29): ``viz.trace`` records every bind of a known program in
order, with the trace that handled it, its nesting level, avals and the user's line."""
from __future__ import annotations

import re

import edujax as jax
import edujax.numpy as jnp
from edujax import viz
from edujax.viz.trace import trace_events


def f(x):
    y = jnp.sin(x)
    return y * 2.0


LINE = f.__code__.co_firstlineno


def steps(events):
    return [(e.primitive, e.trace, e.level) for e in events]


def test_plain_tracing_stages_each_bind_once_in_order():
    events = trace_events(f, 1.0)
    assert steps(events) == [("sin", "staging", 0), ("mul", "staging", 0)]
    assert [e.line for e in events] == [f"{__file__}:{LINE + 1}:8 (f)",
                                        f"{__file__}:{LINE + 2}:11 (f)"]
    assert [v.aval for v in events[0].inputs] == ["f32[]"]
    assert events[1].jaxpr == ["b:f32[] = sin a", "c:f32[] = mul b 2.0:f32[]"]


def test_vmap_batches_then_stages_the_whole_batch():
    events = trace_events(jax.vmap(f), jnp.ones(3))
    # (2.0 meets an f32 array: cast, it is lifted into the trace as JAX's lax.stage does,
    # and comes out a literal)
    assert steps(events) == [("sin", "batching", 0), ("sin", "staging", 1),
                             ("stage", "batching", 0), ("stage", "staging", 1),
                             ("mul", "batching", 0), ("mul", "staging", 1)]
    assert str(events[3].outputs[0]) == "f32[] (literal)"
    assert str(events[0].inputs[0]) == "f32[] (batch dim 0)"  # one element, batched on 0
    assert events[1].inputs[0].aval == "f32[3]"                # the staged whole batch
    assert all(e.names == "vmap()" for e in events)


def test_grad_runs_jvp_over_partial_eval_then_transposes():
    events = trace_events(jax.grad(f), 1.0)
    first = events[0]
    assert (first.primitive, first.trace, first.level) == ("sin", "JVP", 0)
    assert first.inputs[0].detail == "primal f32[] tangent f32[]"
    # the JVP rule of sin binds sin and cos (and mul for the tangent) one level down
    assert [(e.primitive, e.level) for e in events[1:6] if e.trace == "partial eval"] == [
        ("sin", 1), ("cos", 1), ("mul", 1)]
    backward = [e for e in events if e.names == "transpose(jvp())"]
    assert [e.primitive for e in backward] == ["mul", "mul"]
    # the backward pass's binds point at the primal lines they transpose, last line first
    assert [int(e.line.split(":")[-2]) for e in backward] == [LINE + 2, LINE + 1]
    assert {e.line.rsplit(":", 2)[0] for e in backward} == {__file__}


def test_the_static_stepper_has_a_panel_and_back_next_for_every_step():
    view = viz.trace(f, 1.0)
    html = view.html()
    assert html.count('class="ej-step-panel') == 2
    assert html.count('type="radio"') == 2 and "checked" in html
    assert "next &#8594;</label>" in html and "&#8592; back</label>" in html
    assert "<script" not in html  # works on nbviewer/GitHub, without a kernel
    assert re.search(r"sin.*staging", view.text())


# -- viz.grad_stages: JVP, the known/unknown split, transposition
def g(x):
    y = jnp.sin(x)
    return jnp.cos(y) * 2.0


def test_partial_evaluation_splits_known_from_unknown_and_marks_residuals():
    jvp_stage, split, backward = viz.grad_stages(g, 1.0).stages
    known = [line for line in split.lines if line.role == "known"]
    unknown = [line for line in split.lines if line.role == "unknown"]
    # the forward pass: sin, cos (the JVP of sin), cos, sin (the JVP of cos), times 2
    assert [t.split(" = ")[1].split()[0] for t in split.by_role("known")] == [
        "sin", "cos", "cos", "sin", "mul"]
    # the residuals are the derivatives the tangent side multiplies by: cos(x), sin(sin x)
    assert [t.split(" = ")[1] for t in (line.text for line in known if line.residual)] == [
        "cos a", "sin e"]
    assert [line.text.split(" = ")[1].split()[0] for line in unknown] == ["mul", "mul", "neg",
                                                                         "mul"]
    # the tangent side reads the residuals by the names the forward pass gave them
    assert unknown[0].text.endswith("mul b c") and unknown[1].text.endswith("mul h d")
    assert len(jvp_stage.lines) == 9 and len(backward.lines) == 4
    line = g.__code__.co_firstlineno
    assert [ln.place.split(":")[-2] for ln in backward.lines] == [str(line + 2)] * 3 + [
        str(line + 1)]


def test_the_stage_view_colours_roles():
    html = viz.grad_stages(g, 1.0).html()
    assert html.count("ej-role-known") >= 5 and html.count("ej-role-unknown") >= 4
    assert "ej-residual" in html and "<script" not in html


def defined_before_use(lines, given):
    """Every variable an equation reads is an input, a constant or an earlier output."""
    defined = set(given)
    for line in lines:
        lhs, rhs = line.text.split(" = ", 1)
        reads = [w for w in rhs.split("] ")[-1].split()[1:] if ":" not in w]
        if any(w not in defined for w in reads):
            return line.text
        defined.update(v.split(":")[0] for v in lhs.split())
    return None


def test_every_name_a_stage_reads_is_defined_there_closed_over_and_literal_residuals_too():
    """A strong f32 input: the tangents (closed over) and the scalar 2.0 (a literal residual,
    as in JAX) are named or shown as the value they are."""
    jvp_stage, split, backward = viz.grad_stages(lambda x: (jnp.sin(x) * 2.0).sum(),
                                                 jnp.ones(3)).stages
    assert defined_before_use(jvp_stage.lines, "ab") is None   # a: the tangent, b: x
    assert defined_before_use(split.lines, "ab") is None       # a: x, b: its tangent
    assert split.by_role("unknown")[1] == "h:f32[3] = mul g 2.0:f32[]"
    assert defined_before_use(backward.lines, "abc") is None   # a, b: residuals, c: 1.0
