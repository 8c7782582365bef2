"""What a magic was asked: its options, and the call (after running a cell's setup)."""
from __future__ import annotations

import argparse

from edujax.magics.calls import NotACall, parse_call, run_setup, split_cell
from edujax.language import Text
from edujax.magics.options import MagicParser

CALL_AFTER_CELL_MAGIC = Text("put the call in the cell, not after %{magic}: {source!r}",
                             "호출은 %{magic} 뒤가 아니라 셀 안에 쓰세요: {source!r}")


def read_request(parser: MagicParser, tokens: list[str], source: str, cell: str | None,
                 namespace: dict, magic: str) -> tuple[argparse.Namespace, str]:
    """Parse the options and find the call's source text.

    Line magic: the call is the rest of the line. Cell magic: the line holds only
    options; the cell's statements before its last one run first (in the user's
    namespace), and the last one is the call. Anything malformed is a UsageError.
    """
    __tracebackhide__ = True
    opts = parser.parse_args(tokens)
    if cell is not None:
        if source:
            raise parser.usage_error(CALL_AFTER_CELL_MAGIC.format(magic=magic, source=source))
        try:
            setup, source = split_cell(cell)
        except NotACall as e:
            raise parser.usage_error(str(e)) from None
    try:
        parse_call(source)
    except NotACall as e:
        raise parser.usage_error(str(e)) from None
    if cell is not None:
        run_setup(setup, namespace, magic)
    return opts, source
