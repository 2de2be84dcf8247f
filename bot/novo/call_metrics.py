"""Counting the bridge's calls to Novo, by route and status, where the calls are made."""

from __future__ import annotations

import re

from bot.metrics import NOVO_CALLS

# An id in a Novo path becomes `{id}`: one series per route, not per interaction.
_ID_SEGMENT = re.compile(r"(?<=/runs/)[^/]+|(?<=^/v1/interactions/)[^/]+")


def novo_route(path: str) -> str:
    """`/v1/interactions/int_1/resolve` → `/v1/interactions/{id}/resolve`."""
    return _ID_SEGMENT.sub("{id}", path.split("?", 1)[0])


def count_novo_call(method: str, path: str, status: int | str) -> None:
    NOVO_CALLS.labels(f"{method} {novo_route(path)}", str(status)).inc()
