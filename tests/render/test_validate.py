"""The validators must fail on what Slack would refuse, pointing at the offending place."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.slack.render.approval import render_approval_message
from bot.slack.render.context import MessageContext
from bot.slack.render.modals import render_notice_modal
from novo_dev.localslack.validation import (
    assert_valid_message,
    assert_valid_view,
    text_length,
)


def section(text: str, block_id: str) -> dict[str, Any]:
    return {"type": "section", "block_id": block_id, "text": {"type": "mrkdwn", "text": text}}


def message(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"text": "fallback", "blocks": blocks, "metadata": None}


def fails_at(pointer: str, check: Any, value: Any) -> None:
    with pytest.raises(AssertionError) as raised:
        check(value)
    assert str(raised.value).startswith(pointer), str(raised.value)


def test_a_good_message_passes(approval: Interaction, ctx: MessageContext) -> None:
    assert_valid_message(render_approval_message(approval, ctx))


def test_empty_fallback_text() -> None:
    fails_at("/text", assert_valid_message, {"text": "", "blocks": []})


def test_too_many_blocks() -> None:
    blocks = [section("x", f"b{n}") for n in range(51)]
    fails_at("/blocks", assert_valid_message, message(blocks))


def test_total_text() -> None:
    blocks = [section("x" * 2_500, f"b{n}") for n in range(5)]
    assert text_length(blocks) == 12_500
    fails_at("/blocks", assert_valid_message, message(blocks))


def test_section_text_limit_from_slack_sdk() -> None:
    blocks = [section("a", "a"), section("x" * 3_001, "b")]
    fails_at("/blocks/1", assert_valid_message, message(blocks))


def test_unknown_block_type() -> None:
    fails_at("/blocks/0/type", assert_valid_message, message([{"type": "carousel-ish"}]))


def test_unknown_key_is_reported() -> None:
    block = section("x", "a")
    block["txet"] = {"type": "mrkdwn", "text": "typo"}
    fails_at("/blocks/0/txet", assert_valid_message, message([block]))


def test_misspelt_nested_key_is_reported() -> None:
    button = {"type": "button", "acton_id": "a", "text": {"type": "plain_text", "text": "Go"}}
    block = {"type": "actions", "block_id": "a", "elements": [button]}
    fails_at("/blocks/0/elements/0/acton_id", assert_valid_message, message([block]))


def test_duplicate_block_ids() -> None:
    fails_at(
        "/blocks/1/block_id", assert_valid_message, message([section("a", "x"), section("b", "x")])
    )


def test_duplicate_action_ids_in_a_block() -> None:
    button = {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "Go"}}
    block = {"type": "actions", "block_id": "a", "elements": [button, dict(button)]}
    fails_at("/blocks/0/elements/1/action_id", assert_valid_message, message([block]))


def test_field_count_and_length() -> None:
    fields = [{"type": "mrkdwn", "text": "f"} for _ in range(11)]
    block = {"type": "section", "block_id": "s", "fields": fields}
    fails_at("/blocks/0", assert_valid_message, message([block]))
    long = {"type": "section", "block_id": "s", "fields": [{"type": "mrkdwn", "text": "x" * 2_001}]}
    fails_at("/blocks/0/fields/0/text", assert_valid_message, message([long]))


def test_empty_text_object() -> None:
    fails_at("/blocks/0/text/text", assert_valid_message, message([section("", "s")]))


def option(text: str, value: str) -> dict[str, Any]:
    return {"text": {"type": "plain_text", "text": text}, "value": value}


def radio_view(options: list[dict[str, Any]]) -> dict[str, Any]:
    element = {"type": "radio_buttons", "action_id": "r", "options": options}
    return {
        "type": "modal",
        "title": {"type": "plain_text", "text": "T"},
        "submit": {"type": "plain_text", "text": "Go"},
        "blocks": [
            {
                "type": "input",
                "block_id": "i",
                "label": {"type": "plain_text", "text": "L"},
                "element": element,
            }
        ],
    }


def test_radio_options_count_and_lengths() -> None:
    assert_valid_view(radio_view([option("a", "a")]))
    many = [option(str(n), str(n)) for n in range(11)]
    fails_at("/view/blocks/0/element/options", assert_valid_view, radio_view(many))
    fails_at(
        "/view/blocks/0/element/options/0/value",
        assert_valid_view,
        radio_view([option("a", "v" * 76)]),
    )
    fails_at(
        "/view/blocks/0/element/options/0/text/text",
        assert_valid_view,
        radio_view([option("t" * 76, "v")]),
    )


def test_view_blocks_limit() -> None:
    view = render_notice_modal("T", "x")
    view["blocks"] = [section("x", f"b{n}") for n in range(101)]
    fails_at("/view", assert_valid_view, view)


def test_view_private_metadata() -> None:
    view = render_notice_modal("T", "x")
    view["private_metadata"] = "m" * 3_001
    fails_at("/view", assert_valid_view, view)


def test_view_bytes() -> None:
    view = render_notice_modal("T", "x")
    view["blocks"] = [section("😀" * 2_900, f"b{n}") for n in range(10)]
    assert len(json.dumps(view)) > 250_000
    fails_at("/view:", assert_valid_view, view)


def test_view_pointer_for_blocks(approval: Interaction) -> None:
    view = copy.deepcopy(render_notice_modal("T", "x"))
    view["blocks"].append(section("y", view["blocks"][0]["block_id"]))
    fails_at("/view/blocks/1/block_id", assert_valid_view, view)
