"""The Block Kit checks on their own: each limit refused at the right JSON pointer."""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack import limits
from novo_dev.localslack.validation import (
    check_message_text_total,
    check_view_size,
    validate_message_blocks,
    validate_view,
)
from tests.localslack.kit import (
    actions,
    big_modal,
    button,
    choice_input,
    modal,
    option,
    plain,
    section,
    text_input,
)


def radio(count: int) -> dict[str, Any]:
    options = [option(f"o{i}") for i in range(count)]
    return actions({"type": "radio_buttons", "action_id": "r", "options": options})


@pytest.mark.parametrize(
    ("blocks", "pointer"),
    [
        ([section("x" * (limits.SECTION_TEXT + 1))], "/blocks/0/text/text"),
        ([{"type": "divider"}] * (limits.MESSAGE_BLOCKS + 1), "/blocks"),
        ([radio(limits.CHOICE_OPTIONS + 1)], "/blocks/0/elements/0/options"),
        (
            [actions({"type": "static_select", "action_id": "s", "options": [option("v" * 80)]})],
            "/blocks/0/elements/0/options/0/value",
        ),
        (
            [{"type": "divider", "block_id": "same"}, {"type": "divider", "block_id": "same"}],
            "/blocks/1/block_id",
        ),
        ([{"type": "no_such_block"}], "/blocks/0/type"),
        ([text_input("reason", "r")], "/blocks/0/type"),
        (
            [actions(button("a", "v", "t" * (limits.BUTTON_TEXT + 1)))],
            "/blocks/0/elements/0/text/text",
        ),
        (
            [
                {
                    "type": "section",
                    "fields": [{"type": "mrkdwn", "text": "f"}] * (limits.SECTION_FIELDS + 1),
                }
            ],
            "/blocks/0/fields",
        ),
        (
            [{"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * 2001}]}],
            "/blocks/0/fields/0/text",
        ),
        (
            [
                actions(
                    {
                        "type": "checkboxes",
                        "action_id": "c",
                        "options": [option("v", description=plain("d" * 76))],
                    }
                )
            ],
            "/blocks/0/elements/0/options/0/description/text",
        ),
        (
            [
                actions(
                    button(
                        "a",
                        "v",
                        confirm={
                            "title": plain("t" * (limits.CONFIRM_TITLE + 1)),
                            "text": plain("sure?"),
                            "confirm": plain("Yes"),
                            "deny": plain("No"),
                        },
                    )
                )
            ],
            "/blocks/0/elements/0/confirm/title/text",
        ),
        ([actions({"type": "no_such_element", "action_id": "x"})], "/blocks/0/elements/0/type"),
        ([actions(button("a", "1"), button("a", "2"))], "/blocks/0/elements/1/action_id"),
        ([{"type": "header", "text": {"type": "mrkdwn", "text": "h"}}], "/blocks/0/text/type"),
        ("not a list", "/blocks"),
    ],
    ids=[
        "long-section",
        "51-blocks",
        "11-radio-options",
        "80-char-option-value",
        "duplicate-block-id",
        "unknown-block-type",
        "input-in-message",
        "long-button-text",
        "11-fields",
        "long-field",
        "long-option-description",
        "long-confirm-title",
        "unknown-element",
        "duplicate-action-id",
        "mrkdwn-header",
        "not-a-list",
    ],
)
def test_message_blocks_refused_at_pointer(blocks: Any, pointer: str) -> None:
    errors = validate_message_blocks(blocks)
    assert errors, "expected a refusal"
    assert any(
        e.startswith("[ERROR] ") and e.endswith(f"[json-pointer:{pointer}]") for e in errors
    ), errors


def test_message_blocks_at_the_limits_accepted() -> None:
    blocks = [section("s" * limits.SECTION_TEXT)] + [{"type": "divider"}] * (
        limits.MESSAGE_BLOCKS - 2
    )
    blocks.append(radio(limits.CHOICE_OPTIONS))
    assert validate_message_blocks(blocks) == []


def test_total_text_cap_is_separate_from_block_rules() -> None:
    at_cap = [section("x" * 3000)] * 4
    over_cap = [*at_cap, section("x")]
    assert validate_message_blocks(over_cap) == []
    assert check_message_text_total(at_cap) == []
    assert check_message_text_total(over_cap) == [
        "[ERROR] blocks hold 12001 characters of text, more than 12000 [json-pointer:/blocks]"
    ]


def test_big_modal_accepted() -> None:
    view = big_modal()
    assert len(view["blocks"]) == limits.MODAL_BLOCKS
    assert validate_view(view) == []
    assert check_view_size(view) == []


@pytest.mark.parametrize(
    ("view", "pointer"),
    [
        ({**modal(text_input("r", "r")), "submit": None}, "/view/submit"),
        (modal(section("s"), external_id="x" * 256), "/view/external_id"),
        (modal(section("s"), private_metadata="m" * 3001), "/view/private_metadata"),
        (modal(section("s"), title=plain("t" * 25)), "/view/title/text"),
        (modal(*[{"type": "divider"}] * 101), "/view/blocks"),
        (modal(section("x" * 3001)), "/view/blocks/0/text/text"),
        (
            modal(choice_input("c", "c", "radio_buttons", [f"o{i}" for i in range(11)])),
            "/view/blocks/0/element/options",
        ),
        ({**modal(section("s")), "type": "sheet"}, "/view/type"),
        ({"type": "modal", "blocks": [section("s")]}, "/view/title"),
    ],
    ids=[
        "inputs-without-submit",
        "long-external-id",
        "long-private-metadata",
        "long-title",
        "101-blocks",
        "long-section",
        "11-radio-options",
        "unknown-view-type",
        "modal-without-title",
    ],
)
def test_view_refused_at_pointer(view: dict[str, Any], pointer: str) -> None:
    errors = validate_view(view)
    assert any(e.endswith(f"[json-pointer:{pointer}]") for e in errors), errors


def test_input_blocks_allowed_in_views() -> None:
    assert validate_view(modal(text_input("reason", "r"))) == []
    assert validate_view({"type": "home", "blocks": [text_input("reason", "r")]}) == []


def test_view_size_cap() -> None:
    blocks = [section("x" * 3000, block_id=f"s{i}") for i in range(90)]
    view = modal(*blocks)
    assert validate_view(view) == []
    assert check_view_size(view) != []
