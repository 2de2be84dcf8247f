"""Would Slack accept this? Assertions for tests of anything that renders Block Kit.

Two layers, because neither is enough alone:

1. `slack_sdk.models` parses every block and view and runs its own
   validators (lengths, counts, required fields), and any key it silently
   ignores is reported as unknown — a typo would otherwise pass here and
   fail in Slack.
2. Our own checks for the limits `slack_sdk` does not enforce (the "no" rows
   of SLACK-FACTS), all read from `limits.py`: blocks per message, total
   text, section fields, radio/checkbox option counts, option text/value/
   description lengths, unique block ids, view bytes, private_metadata.

Failures raise `AssertionError` whose message starts with a JSON pointer
into what was checked, in Slack's own style (`/blocks/3/fields/0/text`,
`/view/blocks/1/...`), so a failing test says exactly where to look.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.slack.limits import (
    CHOICE_OPTIONS,
    ID_LENGTH,
    MESSAGE_BLOCKS,
    MESSAGE_FALLBACK_TEXT,
    MESSAGE_TOTAL_TEXT,
    MODAL_BLOCKS,
    OPTION_DESCRIPTION,
    OPTION_TEXT,
    OPTION_VALUE,
    PRIVATE_METADATA,
    SECTION_FIELD_TEXT,
    SECTION_FIELDS,
    VIEW_BYTES,
)

_TEXT_TYPES = frozenset({"plain_text", "mrkdwn"})
_CHOICE_TYPES = frozenset({"radio_buttons", "checkboxes"})
_OPTION_KEYS = frozenset({"options", "initial_options", "initial_option"})
_ID_KEYS = ("action_id", "block_id", "callback_id", "external_id")
_VIEW_TYPES = frozenset({"modal", "home"})


def assert_valid_message(rendered: Mapping[str, Any]) -> None:
    """Fail unless `rendered` (text, blocks, metadata) is a message Slack would post."""
    text = rendered.get("text")
    _check(
        isinstance(text, str) and text != "", "/text", "fallback text must be a non-empty string"
    )
    assert isinstance(text, str)
    _check(len(text) <= MESSAGE_FALLBACK_TEXT, "/text", f"longer than {MESSAGE_FALLBACK_TEXT}")
    blocks = rendered.get("blocks")
    _check(isinstance(blocks, list), "/blocks", "must be a list")
    assert isinstance(blocks, list)
    _check(len(blocks) <= MESSAGE_BLOCKS, "/blocks", f"{len(blocks)} > {MESSAGE_BLOCKS} blocks")
    _check_blocks(blocks, "/blocks")
    total = sum(len(t) for _, t in _texts(blocks, "/blocks"))
    _check(total <= MESSAGE_TOTAL_TEXT, "/blocks", f"total text {total} > {MESSAGE_TOTAL_TEXT}")
    metadata = rendered.get("metadata")
    if metadata is not None:
        _check(isinstance(metadata, Mapping), "/metadata", "must be an object")
        assert isinstance(metadata, Mapping)
        _check(isinstance(metadata.get("event_type"), str), "/metadata/event_type", "missing")
        payload = metadata.get("event_payload")
        _check(isinstance(payload, Mapping), "/metadata/event_payload", "must be an object")
        _check(_is_json(metadata), "/metadata", "is not JSON-serialisable")


def assert_valid_view(view: Mapping[str, Any]) -> None:
    """Fail unless `view` is a modal Slack would open (views.open / update / push) or a
    Home tab it would publish (views.publish): the same limits hold for both."""
    _check(view.get("type") in _VIEW_TYPES, "/view/type", "must be one of: modal, home")
    try:
        View(**view).to_dict()
    except (SlackObjectFormationError, TypeError) as error:
        raise AssertionError(f"/view: slack_sdk rejects the view: {error}") from error
    blocks = view.get("blocks") or []
    _check(len(blocks) <= MODAL_BLOCKS, "/view/blocks", f"{len(blocks)} > {MODAL_BLOCKS} blocks")
    _check_blocks(blocks, "/view/blocks")
    metadata = view.get("private_metadata")
    if metadata is not None:
        _check(
            isinstance(metadata, str) and len(metadata) <= PRIVATE_METADATA,
            "/view/private_metadata",
            f"must be a string of at most {PRIVATE_METADATA} characters",
        )
    for key in _ID_KEYS:
        value = view.get(key)
        if isinstance(value, str):
            _check(len(value) <= ID_LENGTH, f"/view/{key}", f"longer than {ID_LENGTH}")
    size = len(json.dumps(view).encode())
    _check(size <= VIEW_BYTES, "/view", f"{size} bytes > {VIEW_BYTES}")


def message_text_length(blocks: list[dict[str, Any]]) -> int:
    """Characters of text across blocks, as counted against Slack's message total."""
    return sum(len(text) for _, text in _texts(blocks, ""))


def _check(condition: bool, pointer: str, message: str) -> None:
    if not condition:
        raise AssertionError(f"{pointer}: {message}")


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _check_blocks(blocks: list[Any], pointer: str) -> None:
    seen_block_ids: dict[str, str] = {}
    for index, raw in enumerate(blocks):
        here = f"{pointer}/{index}"
        _check(isinstance(raw, Mapping), here, "a block must be an object")
        _check_with_sdk(raw, here)
        block_id = raw.get("block_id")
        if block_id is not None:
            _check(block_id not in seen_block_ids, f"{here}/block_id", f"{block_id!r} repeats")
            seen_block_ids[block_id] = here
        _check_action_ids(raw, here)
        for where, node in _walk(raw, here):
            _check_node(node, where)


def _check_with_sdk(raw: Mapping[str, Any], pointer: str) -> None:
    try:
        parsed = Block.parse(dict(raw))
        _check(parsed is not None, f"{pointer}/type", f"unknown block type {raw.get('type')!r}")
        assert parsed is not None
        produced = parsed.to_dict()
    except (SlackObjectFormationError, TypeError) as error:
        raise AssertionError(f"{pointer}: slack_sdk rejects the block: {error}") from error
    _check_nothing_dropped(raw, produced, pointer)


def _check_nothing_dropped(raw: Any, produced: Any, pointer: str) -> None:
    """Every key we sent survives slack_sdk's round trip; one that vanished is unknown to Slack."""
    if isinstance(raw, Mapping) and isinstance(produced, Mapping):
        for key, value in raw.items():
            _check(key in produced, f"{pointer}/{_token(key)}", "unknown key, ignored by slack_sdk")
            _check_nothing_dropped(value, produced[key], f"{pointer}/{_token(key)}")
    elif isinstance(raw, list) and isinstance(produced, list) and len(raw) == len(produced):
        for index, (item, out) in enumerate(zip(raw, produced, strict=True)):
            _check_nothing_dropped(item, out, f"{pointer}/{index}")


def _check_action_ids(block: Mapping[str, Any], pointer: str) -> None:
    """Slack wants action_ids unique within their block."""
    seen: set[str] = set()
    for where, node in _walk(block, pointer):
        action_id = node.get("action_id")
        if isinstance(action_id, str):
            _check(action_id not in seen, f"{where}/action_id", f"{action_id!r} repeats in block")
            seen.add(action_id)


def _check_node(node: Mapping[str, Any], pointer: str) -> None:
    for key in _ID_KEYS:
        value = node.get(key)
        if isinstance(value, str):
            _check(len(value) <= ID_LENGTH, f"{pointer}/{key}", f"longer than {ID_LENGTH}")
    if node.get("type") in _TEXT_TYPES and "text" in node:
        text = node["text"]
        _check(isinstance(text, str) and text != "", f"{pointer}/text", "text must not be empty")
    if node.get("type") in _CHOICE_TYPES:
        options = node.get("options") or []
        _check(len(options) <= CHOICE_OPTIONS, f"{pointer}/options", f"> {CHOICE_OPTIONS}")
    fields = node.get("fields")
    if node.get("type") == "section" and fields is not None:
        _check(len(fields) <= SECTION_FIELDS, f"{pointer}/fields", f"> {SECTION_FIELDS} fields")
        for index, field in enumerate(fields):
            length = len(field.get("text", ""))
            _check(
                length <= SECTION_FIELD_TEXT,
                f"{pointer}/fields/{index}/text",
                f"{length} > {SECTION_FIELD_TEXT} characters",
            )
    for key in _OPTION_KEYS & node.keys():
        value = node[key]
        options = value if isinstance(value, list) else [value]
        for index, option in enumerate(options):
            at = f"{pointer}/{key}/{index}" if isinstance(value, list) else f"{pointer}/{key}"
            _check_option(option, at)
    for index, group in enumerate(node.get("option_groups") or []):
        for position, option in enumerate(group.get("options") or []):
            _check_option(option, f"{pointer}/option_groups/{index}/options/{position}")


def _check_option(option: Mapping[str, Any], pointer: str) -> None:
    text = (option.get("text") or {}).get("text", "")
    _check(len(text) <= OPTION_TEXT, f"{pointer}/text/text", f"> {OPTION_TEXT} characters")
    value = option.get("value")
    if isinstance(value, str):
        _check(len(value) <= OPTION_VALUE, f"{pointer}/value", f"> {OPTION_VALUE} characters")
    description = (option.get("description") or {}).get("text", "")
    _check(
        len(description) <= OPTION_DESCRIPTION,
        f"{pointer}/description/text",
        f"> {OPTION_DESCRIPTION} characters",
    )


def _texts(blocks: list[Any], pointer: str) -> Iterator[tuple[str, str]]:
    """(pointer, text) of every text object in the blocks."""
    for index, block in enumerate(blocks):
        for where, node in _walk(block, f"{pointer}/{index}"):
            if node.get("type") in _TEXT_TYPES and isinstance(node.get("text"), str):
                yield where, node["text"]


def _walk(node: Any, pointer: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every object inside `node` (itself included) with its JSON pointer."""
    if isinstance(node, Mapping):
        yield pointer, node
        for key, value in node.items():
            yield from _walk(value, f"{pointer}/{_token(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{pointer}/{index}")


def _token(key: object) -> str:
    """RFC 6901 escaping of one pointer segment."""
    return str(key).replace("~", "~0").replace("/", "~1")
