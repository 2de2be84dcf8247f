"""One text made fit to show: every hit found, overlaps merged, each replaced by its mask."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.redaction.formats import Hit, find_formats
from bot.redaction.masks import mask_text


def find(text: str, patterns: Sequence[re.Pattern[str]] = ()) -> list[Hit]:
    """Every value to hide in `text`, in order, none overlapping another.

    Where two hits overlap, the one that starts first is kept and stretched
    over both (a bearer token that is also a JWT is one value, hidden once).
    """
    hits = list(find_formats(text))
    for pattern in patterns:
        hits.extend(
            Hit(m.start(), m.end(), "policy_pattern")
            for m in pattern.finditer(text)
            if m.end() > m.start()
        )
    if not hits:
        return []
    hits.sort(key=lambda h: (h.start, -h.end))
    merged = [hits[0]]
    for hit in hits[1:]:
        last = merged[-1]
        if hit.start < last.end:
            if hit.end > last.end:
                merged[-1] = Hit(last.start, hit.end, last.kind)
            continue
        merged.append(hit)
    return merged


def redact_text(text: str, patterns: Sequence[re.Pattern[str]] = ()) -> tuple[str, list[str]]:
    """`text` with each value to hide masked, and the kind of each (empty: unchanged)."""
    hits = find(text, patterns)
    if not hits:
        return text, []
    parts: list[str] = []
    at = 0
    for hit in hits:
        parts.append(text[at : hit.start])
        parts.append(mask_text(hit.kind, text[hit.start : hit.end]))
        at = hit.end
    parts.append(text[at:])
    return "".join(parts), [hit.kind for hit in hits]
