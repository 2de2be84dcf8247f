"""What a policy rule says about hiding values: on or off, more keys, more patterns, who sees.

The policy file's `redact:` section becomes one of these (`bot.policy.file`
checks it and names the place of a mistake); the detectors themselves need
no configuration, so detection is on with `DEFAULT_RULES` whatever the file
says, until a rule says `redact: false`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Reveal = Literal["nobody", "deciders"]


@dataclass(frozen=True)
class RedactionRules:
    """`keys`: more key names (globs, `*_dsn`) or dotted paths (`customer.ssn`) whose
    values are hidden; `patterns`: more value patterns; `reveal`: who may see full
    values, and only in their own private *View full input* modal."""

    enabled: bool = True
    keys: tuple[str, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = ()
    reveal: Reveal = "nobody"


DEFAULT_RULES = RedactionRules()
OFF = RedactionRules(enabled=False)


def compile_pattern(text: str) -> re.Pattern[str]:
    """A policy's value pattern, or ValueError saying why it can't be used."""
    try:
        pattern = re.compile(text)
    except re.error as exc:
        raise ValueError(f'"{text}" is not a regular expression ({exc})') from None
    if pattern.fullmatch(""):
        raise ValueError(f'"{text}" matches empty text, so it would hide nothing visible')
    return pattern


def check_key(text: str) -> str:
    """A key name or dotted path as the policy gives it, or ValueError."""
    if not text.strip() or text != text.strip():
        raise ValueError(f'"{text}" is not a key name (no blanks around it)')
    if any(part == "" for part in text.split(".")):
        raise ValueError(f'"{text}" has an empty part between dots')
    return text
