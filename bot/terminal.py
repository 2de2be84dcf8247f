"""Text from agents or from files shown on an operator's terminal.

A tool name or an export line is someone else's text: an ANSI escape in it could
recolour, hide or rewrite what the operator reads (a "chain intact" drawn over a
break). Control characters are shown as escapes instead, so what is printed is
what was there.
"""

from __future__ import annotations

import unicodedata


def terminal_safe(text: str) -> str:
    """`text` with every control or format character but the newline as `\\xNN`/`\\uNNNN`."""
    return "".join(
        ch if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf") else _escaped(ch)
        for ch in text
    )


def _escaped(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
