"""What a record's shape says about a value: a sibling that names it, a pair, lines of one text.

Agents pass credentials in shapes as often as in formats: a Kubernetes or
ECS `env` entry (`{"name": "DB_PASSWORD", "value": "…"}`), a HAR header
(`{"name": "Authorization", "value": "…"}`), a CloudFormation parameter
(`ParameterKey`/`ParameterValue`), a `[name, value]` pair, a PEM key split
into a list of lines. The value itself looks like nothing; its neighbours
say what it is. These functions read the neighbours; `record` hides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from bot.redaction.formats import Hit
from bot.redaction.keys import is_secret_name

NAME_KEYS = frozenset(
    {
        "name",
        "key",
        "header",
        "variable",
        "var",
        "parameterkey",
        "parametername",
        "field",
        "envvar",
        "setting",
        "option",
        "label",
    }
)
"""Keys whose value names a sibling value (compared without case, `_` or `-`)."""
VALUE_KEYS = frozenset(
    {
        "value",
        "val",
        "parametervalue",
        "secretvalue",
        "secretstring",
        "data",
        "content",
        "defaultvalue",
        "text",
    }
)
"""Keys whose value is the one a sibling names."""


@lru_cache(maxsize=4096)
def _fold(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def named_values(record: dict[Any, Any]) -> frozenset[str]:
    """The keys of `record` whose values a sibling names as secret (`value` beside
    `name: DB_PASSWORD`); empty for most dicts."""
    if len(record) < 2:
        return frozenset()
    values = [k for k in record if isinstance(k, str) and _fold(k) in VALUE_KEYS]
    if not values:
        return frozenset()
    for key, item in record.items():
        if (
            isinstance(key, str)
            and isinstance(item, str)
            and _fold(key) in NAME_KEYS
            and is_secret_name(item)
        ):
            return frozenset(values)
    return frozenset()


def is_named_pair(items: Sequence[Any]) -> bool:
    """A `[name, value]` pair whose name is secret (`["DB_PASSWORD", "…"]`)."""
    return len(items) == 2 and isinstance(items[0], str) and is_secret_name(items[0])


def hits_per_line(
    lines: Sequence[str], find: Callable[[str], list[Hit]]
) -> tuple[list[list[Hit]], list[str]]:
    """Hits in a list of strings read as one text (a PEM key split into lines), each clipped
    to the line it covers: (hits of each line, in its own offsets; kinds, each hit once)."""
    joined = "\n".join(lines)
    hits = find(joined)
    per_line: list[list[Hit]] = [[] for _ in lines]
    if not hits:
        return per_line, []
    starts: list[int] = []
    at = 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    for hit in hits:
        for i, line in enumerate(lines):
            begin, end = starts[i], starts[i] + len(line)
            if hit.start < end and hit.end > begin and end > begin:
                clipped = Hit(max(hit.start, begin) - begin, min(hit.end, end) - begin, hit.kind)
                per_line[i].append(clipped)
    return per_line, [hit.kind for hit in hits]
