"""Block Kit builders shared by the local Slack's tests (plain dicts, as Slack sees them), and
`refusal`, the one way those tests read the error of a call Slack refuses."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.errors import SlackApiError


async def refusal(call: Any) -> dict[str, Any]:
    """The body of the error `call` (an awaitable slack_sdk call) is refused with; fails the
    test if the call succeeds."""
    with pytest.raises(SlackApiError) as caught:
        await call
    data: dict[str, Any] = caught.value.response.data
    return data


def plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def section(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}, **extra}


def option(value: str, text: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"text": plain(text or value), "value": value, **extra}


def button(action_id: str, value: str, text: str = "Go", **extra: Any) -> dict[str, Any]:
    return {"type": "button", "action_id": action_id, "value": value, "text": plain(text), **extra}


def actions(*elements: dict[str, Any], block_id: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "actions", "elements": list(elements)}
    if block_id is not None:
        block["block_id"] = block_id
    return block


def text_input(block_id: str, action_id: str, *, optional: bool = False) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "optional": optional,
        "label": plain("Reason"),
        "element": {"type": "plain_text_input", "action_id": action_id, "multiline": True},
    }


def choice_input(
    block_id: str, action_id: str, element_type: str, values: list[str], *, optional: bool = False
) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "optional": optional,
        "label": plain("Pick"),
        "element": {
            "type": element_type,
            "action_id": action_id,
            "options": [option(v) for v in values],
        },
    }


def modal(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": "local_modal",
        "title": plain("Decide"),
        "close": plain("Cancel"),
        "blocks": list(blocks),
    }
    if any(b["type"] == "input" for b in blocks):
        view["submit"] = plain("Submit")
    view.update(extra)
    return view


def big_modal() -> dict[str, Any]:
    """A modal at Slack's limits: 100 blocks, full selects, long texts, every input kind."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": plain("h" * 150)},
        section("s" * 3000, block_id="long_section"),
        {
            "type": "section",
            "block_id": "fields",
            "fields": [{"type": "mrkdwn", "text": "f" * 2000} for _ in range(10)],
        },
        text_input("reason", "reason_input"),
        choice_input("env", "env_pick", "checkboxes", [f"e{i}" for i in range(10)]),
        choice_input("window", "window_pick", "radio_buttons", [f"w{i}" for i in range(10)]),
        choice_input("many", "many_pick", "static_select", [f"v{i:03d}" for i in range(100)]),
        choice_input("multi", "multi_pick", "multi_static_select", ["a", "b", "c"], optional=True),
        actions(*(button(f"b{i}", "v" * 2000, "t" * 75) for i in range(25)), block_id="buttons"),
    ]
    blocks += [{"type": "divider", "block_id": f"d{i}"} for i in range(100 - len(blocks))]
    return modal(*blocks, private_metadata="m" * 3000, external_id="x" * 255)


def radio_block(count: int) -> dict[str, Any]:
    """An actions block holding one radio group of `count` options."""
    options = [option(f"o{i}") for i in range(count)]
    return actions({"type": "radio_buttons", "action_id": "r", "options": options})
