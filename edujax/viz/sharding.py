"""``viz.sharding``: an array coloured by the device that holds each block, and the
collectives a jitted function sends between the devices.

    viz.sharding(x)                    # x: an Array laid out on a mesh
    viz.sharding(jax.jit(f), x, w)     # the inputs, then the per-device program's collectives

Each device has a colour. The array is drawn as a rectangle cut into its blocks, each block
filled with the colour of the device that holds it (a block held by several devices, as on
a replicated axis, is striped with all of their colours). For a jitted function on sharded
inputs, the program each device runs (``edujax/spmd.py``) is scanned for collectives, and
each one is drawn as the mesh of devices with an arrow between the devices that exchange
data: a ``psum`` over ``x`` links the devices of each column of an (x, y) mesh.

The view is static HTML (inline SVG), so it shows in a notebook without a kernel too.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from edujax.language import Text
from edujax.sharding.visualize import blocks, draw
from edujax.spmd import HLO_NAMES, PerDeviceExecutable
from edujax.viz.view import View, escape

# Tableau's 10 colours, then lighter ones: one per device.
COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d", "#8cd17d", "#f1ce63",
           "#86bcb6", "#d4a6c8"]
CELL = 150  # pixels for the longer side of an array's rectangle

# What the view says, in the notebook's language (edujax/language.py).
ARGUMENT = Text("argument {k}", "인수 {k}")
OUTPUT = Text("output {k}", "출력 {k}")
ALL = Text("all {n}", "전체 {n}")
MESH = Text("mesh ({names}):", "메시 ({names}):")
TITLE = Text("{name} over {axes}", "{axes} 축을 따른 {name}")
OVER = Text("{name} over {axes} -> {outs}", "{axes} 축을 따른 {name} -> {outs}")
GROUPS = Text("XLA: {hlo}; {n} group(s) of {size}", "XLA: {hlo}; {size}개 장치씩 {n}개 무리")
BETWEEN = Text("{line}  (XLA: {hlo})  between devices {groups}",
               "{line}  (XLA: {hlo})  장치 무리 {groups}")
NO_COLLECTIVES = Text("no collectives: every device computes its block on its own",
                      "집합 통신 없음: 모든 장치가 자기 블록을 혼자 계산합니다")


def colour(device_id: int) -> str:
    return COLOURS[device_id % len(COLOURS)]


# White text with a dark outline reads on every device colour, the light ones (yellow, pink)
# and the striped blocks of a replicated axis alike.
ON_COLOUR = 'fill="white" stroke="#222" stroke-width="2" paint-order="stroke"'


def ink(background: str) -> str:
    """Dark text on a light colour, white text on a dark one (the legend's chips)."""
    r, g, b = (int(background[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#222" if 0.299 * r + 0.587 * g + 0.114 * b > 0.62 else "white"


@dataclass
class Collective:
    """One collective of the per-device program: what, over which mesh axes, and the groups
    of devices (ids) that exchange data."""
    line: str  # the equation as the jaxpr prints it
    name: str
    axes: tuple
    groups: list


def collectives(executable: PerDeviceExecutable) -> list[Collective]:
    mesh = executable.mesh
    coords = list(itertools.product(*[range(n) for n in mesh.axis_sizes]))
    ids = [d.id for d in mesh.devices.flat]
    out = []
    for eqn in executable.per_device.eqns:
        if eqn.primitive.name not in HLO_NAMES:
            continue
        p = eqn.params
        axes = p.get("axes") or p.get("axis_name")
        axes = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
        moving = [mesh.axis_names.index(a) for a in axes if a in mesh.axis_names]
        groups: dict = {}
        for c, i in zip(coords, ids):
            key = tuple(v for k, v in enumerate(c) if k not in moving)
            groups.setdefault(key, []).append(i)
        out.append(Collective(_eqn_line(eqn), eqn.primitive.name, axes, list(groups.values())))
    return out


def _eqn_line(eqn: Any) -> str:
    outs = " ".join(f"{v.aval.str_short()}" for v in eqn.outvars)
    return OVER.format(name=eqn.primitive.name, axes=", ".join(map(str, _axes(eqn))), outs=outs)


def _axes(eqn: Any) -> tuple:
    a = eqn.params.get("axes") or eqn.params.get("axis_name")
    return tuple(a) if isinstance(a, (tuple, list)) else (a,)


class ShardingView(View):
    """Arrays coloured by device (``.arrays``: (name, shape, block table)), and for a jitted
    function the collectives of its per-device program (``.collectives``)."""

    kind = "sharding"

    def __init__(self, arrays: list, executable: PerDeviceExecutable | None):
        self.arrays = arrays
        self.executable = executable
        self.collectives = collectives(executable) if executable is not None else []
        self.mesh = executable.mesh if executable is not None else next(
            (s.mesh for _, _, s in arrays if hasattr(s, "mesh")), None)

    # ---- text
    def text(self) -> str:
        parts = [f"{name}: {_shape_str(shape)}\n{draw(shape, s)}" for name, shape, s in self.arrays]
        for c in self.collectives:
            groups = "; ".join("{" + ", ".join(map(str, g)) + "}" for g in c.groups)
            parts.append(BETWEEN.format(line=c.line, hlo=HLO_NAMES[c.name], groups=groups))
        if self.executable is not None and not self.collectives:
            parts.append(str(NO_COLLECTIVES))
        return "\n".join(parts)

    # ---- static HTML
    def body_html(self) -> str:
        out = ['<div class="edujax-sharding" style="display:flex;flex-wrap:wrap;gap:24px;'
               'align-items:flex-start;font-family:sans-serif;font-size:12px">']
        for name, shape, s in self.arrays:
            out.append(_array_svg(name, shape, s))
        for c in self.collectives:
            out.append(_collective_svg(c, self.mesh))
        out.append("</div>")
        if self.mesh is not None:
            out.append(_legend(self.mesh))
        return "".join(out)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"text/plain": self.text(), "text/html": self.html()}  # (no live widget)


def _shape_str(shape: tuple) -> str:
    return f"[{','.join(map(str, shape))}]"


def _array_svg(name: str, shape: tuple, sharding: Any) -> str:
    rows, cols = (shape[0], shape[1]) if len(shape) >= 2 else (1, shape[0] if shape else 1)
    scale = CELL / max(rows, cols)
    w, h = max(cols * scale, 40), max(rows * scale, 24)
    title = f"{name} {_shape_str(shape)}"
    parts = [f'<svg width="{max(w + 2, 7.5 * len(title)):.0f}" height="{h + 36:.0f}" role="img">',
             f'<text x="1" y="12" font-weight="bold">{escape(name)} '
             f'{escape(_shape_str(shape))}</text>']
    y0 = 18
    for (r, c), (ids, hf, wf) in sorted(_grid(shape, sharding).items()):
        bw, bh = w * wf, h * (hf if hf is not None else 1.0)
        bx, by = 1 + c * bw, y0 + r * bh
        ids = sorted(ids)
        stripe = bw / len(ids)
        for k, i in enumerate(ids):
            parts.append(f'<rect x="{bx + k * stripe:.1f}" y="{by:.1f}" width="{stripe:.1f}" '
                         f'height="{bh:.1f}" fill="{colour(i)}"/>')
        parts.append(f'<rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="{bh:.1f}" '
                     'fill="none" stroke="#222"/>')
        label = _label(ids, bw, sharding)
        parts.append(f'<text x="{bx + bw / 2:.1f}" y="{by + bh / 2 + 4:.1f}" '
                     f'text-anchor="middle" {ON_COLOUR} font-weight="bold">'
                     f'{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _label(ids: list, width: float, sharding: Any) -> str:
    """``CPU 0,2`` where it fits, else the ids alone; ``all 8`` for a block every device
    holds."""
    if len(ids) > 1 and len(ids) == len(getattr(sharding, "device_set", ())):
        return ALL.format(n=len(ids))
    text = "CPU " + ",".join(map(str, ids))
    return text if 8 * len(text) + 6 < width else ",".join(map(str, ids))


def _grid(shape: tuple, sharding: Any) -> dict:
    if not shape or len(shape) > 2:  # (a scalar, or more than 2 dimensions: one box)
        return {(0, 0): ({d.id for d in sharding.device_set}, None, 1.0)}
    return blocks(shape, sharding)


def _collective_svg(c: Collective, mesh: Any) -> str:
    """The mesh's devices as dots in their grid; the devices of each group joined by a
    line of the group's first device's colour."""
    sizes = list(mesh.axis_sizes) + [1] * (2 - len(mesh.axis_sizes))
    rows, cols = sizes[0], int(np.prod(sizes[1:]))
    step = 46
    w, h = cols * step + 20, rows * step + 48
    ids = [d.id for d in mesh.devices.flat]
    place = {i: (20 + (k % cols) * step + 10, 40 + (k // cols) * step + 10)
             for k, i in enumerate(ids)}
    title = TITLE.format(name=c.name, axes=", ".join(map(str, c.axes)))
    groups = GROUPS.format(hlo=HLO_NAMES[c.name], n=len(c.groups), size=len(c.groups[0]))
    parts = [f'<svg width="{max(w, 260)}" height="{h}" role="img">',
             f'<text x="1" y="12" font-weight="bold">{escape(title)}</text>',
             f'<text x="1" y="27" fill="#555">{escape(groups)}</text>']
    for g in c.groups:
        pts = [place[i] for i in g]
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):  # (a chain: a ring's last link would cross it)
            parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour(g[0])}" '
                         'stroke-width="4" stroke-linecap="round" opacity="0.8"/>')
    for i, (x, y) in place.items():
        parts.append(f'<circle cx="{x}" cy="{y}" r="13" fill="{colour(i)}" stroke="#222"/>'
                     f'<text x="{x}" y="{y + 4}" text-anchor="middle" {ON_COLOUR} '
                     f'font-weight="bold">{i}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _legend(mesh: Any) -> str:
    names = ", ".join(f"{a}={n}" for a, n in zip(mesh.axis_names, mesh.axis_sizes))
    chips = "".join(f'<span style="background:{colour(d.id)};color:{ink(colour(d.id))};'
                    'padding:1px 6px;'
                    f'margin-right:4px;border-radius:3px">CPU {d.id}</span>'
                    for d in mesh.devices.flat)
    return (f'<div style="margin-top:8px;font-family:sans-serif;font-size:12px">'
            f'{escape(MESH.format(names=names))} {chips}</div>')


def sharding(f_or_array: Any, *args: Any) -> ShardingView:
    """``viz.sharding(x)``: ``x`` coloured by device. ``viz.sharding(jax.jit(f), *args)``:
    the arguments, the outputs, and the collectives of ``f``'s per-device program."""
    if not args:
        x = f_or_array
        return ShardingView([("x", tuple(np.shape(x)), x.sharding)], None)
    compiled = f_or_array.lower(*args).compile()
    executable = compiled._entry.executable
    if not isinstance(executable, PerDeviceExecutable):
        raise ValueError("viz.sharding: this program does not run per device (its inputs are "
                         "not split over Explicit mesh axes, or it uses an operation edujax "
                         "cannot partition): there are no collectives to draw")
    outs = compiled(*args)
    outs = outs if isinstance(outs, (tuple, list)) else [outs]
    arrays = [(ARGUMENT.format(k=k), tuple(np.shape(a)), a.sharding) for k, a in enumerate(args)]
    arrays += [(OUTPUT.format(k=k), tuple(np.shape(o)), o.sharding) for k, o in enumerate(outs)]
    return ShardingView(arrays, executable)
