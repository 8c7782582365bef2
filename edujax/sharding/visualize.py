"""``jax.debug.visualize_array_sharding``: which device holds which block, as a box table.

The same drawing as JAX's (which draws it with the ``rich`` library when no terminal colours
are available): the array as a rectangle about 10 lines high, cut into its blocks; each block
names the devices that hold it (``CPU 0,2,4,6``: one block replicated on four devices).
"""
from __future__ import annotations

from typing import Any

BASE_HEIGHT = 10            # lines for the whole array's height
HEIGHT_TO_WIDTH = 2.5       # a character is about 2.5 times as tall as it is wide
MIN_WIDTH, MAX_WIDTH = 9, 80


def blocks(shape: tuple, sharding: Any) -> dict:
    """{(row, column) of a block: (device ids, height fraction or None, width fraction)}."""
    table: dict = {}
    for device, index in devices_indices(shape, sharding):
        sizes = [(s.stop if s.stop is not None else n) - (s.start or 0)
                 for s, n in zip(index, shape)]
        where = tuple((s.start or 0) // size for s, size in zip(index, sizes))
        if len(shape) == 1:
            key, height, width = (0, *where), None, sizes[0] / shape[0]
        else:
            key, height, width = where, sizes[0] / shape[0], sizes[1] / shape[1]
        ids, _, _ = table.setdefault(key, (set(), height, width))
        ids.add(device.id)
    return table


def devices_indices(shape: tuple, sharding: Any) -> list:
    """(device, the block it holds as one slice per dimension), for every device."""
    if hasattr(sharding, "index"):
        return [(d, sharding.index(d, shape)) for d in sharding.mesh.devices.flat]
    device = next(iter(sharding.device_set))
    return [(device, (slice(None),) * len(shape))]


def draw(shape: tuple, sharding: Any) -> str:
    """The box table, as text."""
    if not 1 <= len(shape) <= 2:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    aspect = (shape[1] if len(shape) == 2 else 1) / shape[0]
    base_width = int(BASE_HEIGHT * aspect)
    kind = next(iter(sharding.device_set)).platform.upper()
    table = blocks(shape, sharding)
    rows = max(k[0] for k in table) + 1
    cols = max(k[1] for k in table) + 1
    cells = [[_cell(f"{kind} " + ",".join(map(str, sorted(table[i, j][0]))),
                    table[i, j][1], table[i, j][2], base_width)
              for j in range(cols)] for i in range(rows)]
    return _boxed(cells)


def _cell(entry: str, height_fraction: float | None, width_fraction: float,
          base_width: int) -> list[str]:
    """One block's lines: its label centred by padding, as JAX computes the padding."""
    width = int(width_fraction * base_width * HEIGHT_TO_WIDTH)
    height = 1 if height_fraction is None else int(height_fraction * BASE_HEIGHT)
    width = min(max(width, MIN_WIDTH), MAX_WIDTH)
    left, extra = divmod(width - len(entry) - 2, 2)
    right = left + extra
    top, extra = divmod(height - 2, 2)
    bottom = top + extra
    left, right, top, bottom = (max(p, 0) for p in (left, right, top, bottom))
    line_width = left + len(entry) + right
    blank = " " * line_width
    return [blank] * top + [" " * left + entry + " " * right] + [blank] * bottom


def _boxed(cells: list[list[list[str]]]) -> str:
    """The cells in a table with square box lines between all rows and columns."""
    widths = [max(len(row[j][0]) for row in cells) for j in range(len(cells[0]))]

    def rule(left: str, middle: str, right: str) -> str:
        return left + middle.join("─" * w for w in widths) + right

    lines = [rule("┌", "┬", "┐")]
    for i, row in enumerate(cells):
        if i:
            lines.append(rule("├", "┼", "┤"))
        for k in range(max(len(c) for c in row)):
            parts = [(c[k] if k < len(c) else "").center(w) for c, w in zip(row, widths)]
            lines.append("│" + "│".join(parts) + "│")
    lines.append(rule("└", "┴", "┘"))
    return "\n".join(lines) + "\n"


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """Print which device holds which block of ``arr`` (1-D or 2-D)."""
    print(draw(tuple(arr.shape), arr.sharding), end="")


def visualize_sharding(shape: Any, sharding: Any, **kwargs: Any) -> None:
    print(draw(tuple(shape), sharding), end="")
