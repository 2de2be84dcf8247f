"""One text made fit to show: every hit found, overlaps merged, each replaced by its mask.

Three detectors, most certain first: known formats (`formats`), values the
text names as secret (`named`), and the fallback for random-looking tokens
(`entropy`). Where a fallback hit overlaps a named one, the name wins, so a
mask never calls an `AGE-SECRET-KEY-…` an AWS key or a known key "unknown".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.redaction.entropy import KIND as UNKNOWN
from bot.redaction.entropy import find_unknown
from bot.redaction.formats import Hit, find_formats
from bot.redaction.masks import mask_text
from bot.redaction.named import find_named

NAMED = "secret_key"
SHORTEST = 5
"""No credential is shorter than `a=xyz` (a named value needs 3 characters)."""


def known_kind(text: str) -> str | None:
    """What a decoded text holds by format or name (no fallback): its first kind, or None."""
    for hit in find_formats(text):
        return hit.kind
    for _ in find_named(text):
        return NAMED
    return None


def find(text: str, patterns: Sequence[re.Pattern[str]] = ()) -> list[Hit]:
    """Every value to hide in `text`, in order, none overlapping another.

    Where two hits overlap they become one, stretched over both (a bearer
    token that is also a JWT is one value, hidden once), named by the first
    that is not the fallback.
    """
    if len(text) < SHORTEST and not patterns:
        return []
    hits = list(find_formats(text))
    hits.extend(Hit(start, end, NAMED) for start, end in find_named(text))
    for pattern in patterns:
        hits.extend(
            Hit(m.start(), m.end(), "policy_pattern")
            for m in pattern.finditer(text)
            if m.end() > m.start()
        )
    if len(text) >= 20:
        hits.extend(Hit(start, end, kind) for start, end, kind in find_unknown(text, known_kind))
    if not hits:
        return []
    hits.sort(key=lambda h: (h.start, -h.end, h.kind == UNKNOWN))
    merged = [hits[0]]
    for hit in hits[1:]:
        last = merged[-1]
        if hit.start < last.end:
            kind = hit.kind if last.kind == UNKNOWN and hit.kind != UNKNOWN else last.kind
            merged[-1] = Hit(last.start, max(last.end, hit.end), kind)
            continue
        merged.append(hit)
    return merged


def redact_text(text: str, patterns: Sequence[re.Pattern[str]] = ()) -> tuple[str, list[str]]:
    """`text` with each value to hide masked, and the kind of each (empty: unchanged)."""
    hits = find(text, patterns)
    if not hits:
        return text, []
    return masked(text, hits), [hit.kind for hit in hits]


def masked(text: str, hits: Sequence[Hit]) -> str:
    """`text` with each of `hits` (in order, none overlapping) replaced by its mask."""
    parts: list[str] = []
    at = 0
    for hit in hits:
        parts.append(text[at : hit.start])
        parts.append(mask_text(hit.kind, text[hit.start : hit.end]))
        at = hit.end
    parts.append(text[at:])
    return "".join(parts)
