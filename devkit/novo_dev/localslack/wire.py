"""Reading Web API arguments and answering with Slack's error shape.

Slack takes the same argument as a form field (JSON-encoded when it is an
object), a query parameter or a JSON body member; these helpers hide which.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from typing import Any

_TRUE = frozenset({"1", "true", "True", "TRUE", "yes"})


class SlackFailure(Exception):
    """A Web API answer with `ok: false`; `status` is 200 as Slack's are, unless stated."""

    def __init__(
        self,
        error: str,
        messages: list[str] | None = None,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(error if not messages else f"{error}: {'; '.join(messages)}")
        self.error = error
        self.messages = messages or []
        self.status = status
        self.headers = dict(headers or {})
        # Top-level members some errors carry, e.g. missing_scope's `needed` and `provided`.
        self.fields = dict(fields or {})

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": False, "error": self.error, **self.fields}
        if self.messages:
            body["response_metadata"] = {"messages": self.messages}
        return body


def missing(name: str) -> SlackFailure:
    return SlackFailure(
        "invalid_arguments", [f"[ERROR] missing required field: {name} [json-pointer:/{name}]"]
    )


def required_str(args: Mapping[str, Any], name: str, *, error: str | None = None) -> str:
    """A non-empty string argument; `error` names Slack's specific code for its absence."""
    value = args.get(name)
    if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value):
        return str(value)
    raise SlackFailure(error) if error else missing(name)


def optional_str(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    if value is None or value == "":
        return None
    return str(value)


def json_field(args: Mapping[str, Any], name: str, *, error: str) -> Any:
    """An object argument that form bodies carry as a JSON string."""
    value = args.get(name)
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise SlackFailure(error, [f"[ERROR] {exc.msg} [json-pointer:/{name}]"]) from exc


def truthy(value: object) -> bool:
    """Slack's boolean arguments: JSON booleans, or "1"/"true" in forms and queries."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    return isinstance(value, str) and value in _TRUE


def assign_block_ids(blocks: list[Any], numbers: Iterator[int]) -> list[Any]:
    """A copy of `blocks` where every block has a `block_id`, as Slack returns them.

    Slack fills in the ids an app left out, and interaction payloads name
    them, so the local Slack does the same.
    """
    copied = copy.deepcopy(blocks)
    taken = {b.get("block_id") for b in copied if isinstance(b, dict)}
    for block in copied:
        if isinstance(block, dict) and not block.get("block_id"):
            candidate = f"b{next(numbers):x}"
            while candidate in taken:
                candidate = f"b{next(numbers):x}"
            block["block_id"] = candidate
            taken.add(candidate)
    return copied
