"""Options of a magic line: ``%jittime -n 100 --static 1 f(x, 3)``.

The options come first, the call last. The call is Python, with its own spaces,
quotes and minus signs, so it must not go through a shell-like splitter (which
``IPython.core.magic_arguments`` uses). Instead the leading option tokens are peeled
off one by one, and only they are handed to ``argparse``; the rest of the line is
the call, character for character.

Every mistake becomes IPython's ``UsageError``: IPython prints it as one line,
``UsageError: ...``, with no traceback.
"""
from __future__ import annotations

import argparse
import re
from typing import Iterable

from IPython.core.error import UsageError

from edujax.language import Text, language

_TOKEN = re.compile(r"\s*(\S+)")


USAGE_ERROR = Text("{magic}: {message}\nusage: {usage}", "{magic}: {message}\n사용법: {usage}")

# argparse's own messages (English, from argparse's source), said again in Korean: the start
# of the message, and its Korean form.
ARGPARSE_KOREAN = [
    ("unrecognized arguments:", "알 수 없는 옵션:"),
    ("expected one argument", "값이 하나 필요합니다"),
    ("ignored explicit argument", "값을 받지 않는 옵션에 값이 주어졌습니다:"),
]
ARGPARSE_INVALID = re.compile(r"argument (\S+): invalid (\w+) value: (.*)")


def _argparse_in_korean(message: str) -> str:
    invalid = ARGPARSE_INVALID.match(message)
    if invalid:
        option, kind, value = invalid.groups()
        return f"옵션 {option}: 올바른 {kind} 값이 아닙니다: {value}"
    for english, korean in ARGPARSE_KOREAN:
        message = message.replace(english, korean)
    return message


class MagicParser(argparse.ArgumentParser):
    """argparse that reports mistakes as a UsageError carrying the usage line, in the
    notebook's language (edujax/language.py)."""

    def __init__(self, magic: str, usage: str):
        super().__init__(prog=magic, usage=usage, add_help=False, allow_abbrev=False)
        self.magic = magic

    def error(self, message: str):  # argparse would print and call sys.exit
        if language() == "ko":
            message = _argparse_in_korean(message)
        raise self.usage_error(message)

    def usage_error(self, message: str | Text) -> UsageError:
        return UsageError(USAGE_ERROR.format(magic=self.magic, message=message,
                                             usage=self.usage))


def split_options(line: str, takes_value: Iterable[str]) -> tuple[list[str], str]:
    """``(option tokens, rest of the line)``. ``takes_value`` lists the options that
    read the next token as their value (``-n 100``; ``-n100`` and ``--static=1`` work
    too)."""
    takes_value = set(takes_value)
    tokens: list[str] = []
    pos = 0
    expect_value = False
    while True:
        m = _TOKEN.match(line, pos)
        if m is None:
            break
        token = m.group(1)
        if not expect_value and not token.startswith("-"):
            break
        tokens.append(token)
        pos = m.end()
        expect_value = not expect_value and token in takes_value
    return tokens, line[pos:].strip()


BAD_POSITIONS = Text("expected argument positions such as 1 or 0,2, got {text!r}",
                     "1이나 0,2 같은 인자 위치가 필요한데 {text!r}을(를) 받았습니다")


def int_list(text: str) -> tuple[int, ...]:
    """``"0,2"`` -> ``(0, 2)``: the value of ``--static``."""
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(BAD_POSITIONS.format(text=text)) from None
