"""Would Slack accept this? The one answer, used by the local Slack and by tests.

Slack refuses a whole message or modal when one nested value is off, and a
renderer bug would otherwise only show up against the real service. So the
local Slack checks everything slack_sdk's models check and, on top, the
limits those models miss (see SLACK-FACTS), and any key slack_sdk's round trip
drops (a typo that would pass here and fail in Slack). Every `validate_*` and
`check_*` function is pure and returns Slack-style messages,
`"[ERROR] <what> [json-pointer:<where>]"`, an empty list meaning accepted.

Tests of anything that renders Block Kit call `assert_valid_message` and
`assert_valid_view`, which fail with the first message as `<pointer>: <what>`
so a failing test says exactly where to look. Those two also hold the
project's own rule Slack does not enforce: a message carries fallback text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block, BlockElement, ConfirmObject, Option, OptionGroup
from slack_sdk.models.views import View

from bot.slack import limits

Surface = Literal["message", "modal", "home"]

# What a malformed dict can make slack_sdk's parsers raise besides their own
# formation error (a text object without `type`, an unexpected keyword, ...).
_PARSE_ERRORS = (SlackObjectFormationError, KeyError, TypeError, ValueError, AttributeError)
_CHOICE_ELEMENTS = frozenset({"checkboxes", "radio_buttons"})
_TEXT_TYPES = frozenset({"plain_text", "mrkdwn"})
_VIEW_TYPES = frozenset({"modal", "home"})
_ID_KEYS = ("action_id", "block_id")
_ERROR = re.compile(r"\[ERROR\] (?P<what>.*) \[json-pointer:(?P<where>[^\]]*)\]", re.DOTALL)


def error(message: str, pointer: str) -> str:
    """One entry of `response_metadata.messages`, shaped like Slack's."""
    return f"[ERROR] {message} [json-pointer:{pointer}]"


def validate_message_blocks(blocks: object, *, base: str = "/blocks") -> list[str]:
    """Everything Slack would say about the `blocks` of a chat.* call."""
    if not isinstance(blocks, list):
        return [error("must be an array", base)]
    errors: list[str] = []
    if len(blocks) > limits.MESSAGE_BLOCKS:
        errors.append(error(f"no more than {limits.MESSAGE_BLOCKS} items allowed", base))
    errors.extend(_check_blocks(blocks, base, "message"))
    return errors


def validate_view(view: object, *, base: str = "/view") -> list[str]:
    """Everything Slack would say about the `view` of a views.* call (size aside)."""
    if not isinstance(view, dict):
        return [error("must be an object", base)]
    view_type = view.get("type")
    if view_type not in _VIEW_TYPES:
        return [error("must be one of: modal, home", f"{base}/type")]
    blocks = view.get("blocks")
    if not isinstance(blocks, list):
        return [error("must be an array", f"{base}/blocks")]
    errors: list[str] = []
    if len(blocks) > limits.MODAL_BLOCKS:
        errors.append(error(f"no more than {limits.MODAL_BLOCKS} items allowed", f"{base}/blocks"))
    errors.extend(_too_long(view, "external_id", limits.ID_LENGTH, base))
    errors.extend(_too_long(view, "callback_id", limits.ID_LENGTH, base))
    errors.extend(_too_long(view, "private_metadata", limits.PRIVATE_METADATA, base))
    if view_type == "modal":
        if not isinstance(view.get("title"), dict):
            errors.append(error("missing required field: title", f"{base}/title"))
        has_input = any(isinstance(b, dict) and b.get("type") == "input" for b in blocks)
        if has_input and not isinstance(view.get("submit"), dict):
            errors.append(
                error("submit is required when a modal contains input blocks", f"{base}/submit")
            )
    surface: Surface = "modal" if view_type == "modal" else "home"
    errors.extend(_check_blocks(blocks, f"{base}/blocks", surface))
    if errors:
        return errors
    try:
        View(**view).to_dict()
    except _PARSE_ERRORS as exc:
        return [error(_describe(exc), _attribute_pointer(view, base, str(exc)))]
    return []


def check_message_text_total(blocks: Sequence[object], *, base: str = "/blocks") -> list[str]:
    """Slack's undocumented cap on all the text in one message (`msg_blocks_too_long`)."""
    total = text_length(blocks)
    if total <= limits.MESSAGE_TOTAL_TEXT:
        return []
    return [
        error(
            f"blocks hold {total} characters of text, more than {limits.MESSAGE_TOTAL_TEXT}",
            base,
        )
    ]


def check_view_size(view: object, *, base: str = "/view") -> list[str]:
    """Slack's cap on a whole view's JSON (`view_too_large`), counted as slack_sdk sends it
    (ASCII-escaped, so one emoji costs 12 bytes), as the renderers' budgets count it."""
    size = len(json.dumps(view).encode())
    if size <= limits.VIEW_BYTES:
        return []
    return [error(f"view is {size} bytes, more than {limits.VIEW_BYTES}", base)]


def text_length(value: object) -> int:
    """Characters in every text object nested anywhere in `value`."""
    if isinstance(value, Mapping):
        own = value.get("text")
        if value.get("type") in _TEXT_TYPES and isinstance(own, str):
            return len(own)
        return sum(text_length(child) for child in value.values())
    if isinstance(value, list):
        return sum(text_length(child) for child in value)
    return 0


def validate_message(rendered: Mapping[str, Any]) -> list[str]:
    """Everything wrong with a rendered message (text, blocks, metadata) as chat.* would get
    it: Slack's checks on the blocks, plus a non-empty fallback text and well-formed metadata."""
    errors: list[str] = []
    text = rendered.get("text")
    if not isinstance(text, str) or text == "":
        errors.append(error("fallback text must be a non-empty string", "/text"))
    elif len(text) > limits.MESSAGE_FALLBACK_TEXT:
        errors.append(
            error(f"must be less than {limits.MESSAGE_FALLBACK_TEXT + 1} characters", "/text")
        )
    blocks = rendered.get("blocks")
    errors.extend(validate_message_blocks(blocks))
    if isinstance(blocks, list):
        errors.extend(check_message_text_total(blocks))
    metadata = rendered.get("metadata")
    if metadata is not None:
        errors.extend(_check_metadata(metadata))
    return errors


def assert_valid_message(rendered: Mapping[str, Any]) -> None:
    """Fail unless `rendered` (text, blocks, metadata) is a message Slack would post."""
    _fail_on(validate_message(rendered))


def assert_valid_view(view: Mapping[str, Any]) -> None:
    """Fail unless `view` is a modal Slack would open (views.open / update / push) or a
    Home tab it would publish (views.publish): the same limits hold for both."""
    _fail_on(validate_view(view) or check_view_size(view))


def _fail_on(errors: list[str]) -> None:
    if errors:
        raise AssertionError("\n".join(_as_pointer_first(e) for e in errors))


def _as_pointer_first(message: str) -> str:
    """`[ERROR] what [json-pointer:/x]` as `/x: what`, the shape a failing test reads best."""
    found = _ERROR.fullmatch(message)
    return f"{found['where']}: {found['what']}" if found else message


def _check_metadata(metadata: object) -> list[str]:
    if not isinstance(metadata, Mapping):
        return [error("must be an object", "/metadata")]
    errors: list[str] = []
    if not isinstance(metadata.get("event_type"), str):
        errors.append(error("missing required field: event_type", "/metadata/event_type"))
    if not isinstance(metadata.get("event_payload"), Mapping):
        errors.append(error("must be an object", "/metadata/event_payload"))
    try:
        json.dumps(metadata)
    except (TypeError, ValueError):
        errors.append(error("is not JSON-serialisable", "/metadata"))
    return errors


# --------------------------------------------------------------------------- blocks


def _check_blocks(blocks: Sequence[object], base: str, surface: Surface) -> list[str]:
    errors: list[str] = []
    seen_ids: set[str] = set()
    for index, block in enumerate(blocks):
        pointer = f"{base}/{index}"
        if not isinstance(block, dict):
            errors.append(error("must be an object", pointer))
            continue
        block_id = block.get("block_id")
        if isinstance(block_id, str):
            if block_id in seen_ids:
                errors.append(error(f"duplicate block_id: {block_id}", f"{pointer}/block_id"))
            seen_ids.add(block_id)
        errors.extend(_check_block(block, pointer, surface))
    return errors


def _check_block(block: dict[str, Any], pointer: str, surface: Surface) -> list[str]:
    """Our own rules first; slack_sdk's model only for a block they found no fault in."""
    block_type = block.get("type")
    if not isinstance(block_type, str):
        return [error("missing required field: type", f"{pointer}/type")]
    if block_type == "input" and surface == "message":
        return [error("input blocks are only allowed in modals and Home tabs", f"{pointer}/type")]
    try:
        parsed = Block.parse(block)
    except _PARSE_ERRORS as exc:
        return [error(_describe(exc), pointer)]
    if parsed is None:
        return [error(f"unsupported block type: {block_type}", f"{pointer}/type")]
    errors = _extra_block_rules(block, pointer)
    if errors:
        return errors
    try:
        produced = parsed.to_dict()
    except _PARSE_ERRORS as exc:
        return [error(_describe(exc), _locate(block, pointer, str(exc)))]
    return list(_dropped_keys(block, produced, pointer))


def _dropped_keys(sent: object, produced: object, pointer: str) -> Iterator[str]:
    """Every key that did not survive slack_sdk's round trip: one Slack does not know."""
    if isinstance(sent, Mapping) and isinstance(produced, Mapping):
        for key, value in sent.items():
            here = f"{pointer}/{_token(key)}"
            if key not in produced:
                yield error(f"unsupported field: {key}", here)
            else:
                yield from _dropped_keys(value, produced[key], here)
    elif isinstance(sent, list) and isinstance(produced, list) and len(sent) == len(produced):
        for index, (item, out) in enumerate(zip(sent, produced, strict=True)):
            yield from _dropped_keys(item, out, f"{pointer}/{index}")


def _extra_block_rules(block: dict[str, Any], pointer: str) -> list[str]:
    """The limits SLACK-FACTS marks as unchecked by slack_sdk."""
    errors: list[str] = []
    if block.get("type") == "header":
        text = block.get("text")
        if isinstance(text, dict) and text.get("type") != "plain_text":
            errors.append(error("must be plain_text", f"{pointer}/text/type"))
    fields = block.get("fields")
    if isinstance(fields, list):
        if len(fields) > limits.SECTION_FIELDS:
            errors.append(
                error(f"no more than {limits.SECTION_FIELDS} items allowed", f"{pointer}/fields")
            )
        for index, field in enumerate(fields):
            errors.extend(
                _text_too_long(field, limits.SECTION_FIELD_TEXT, f"{pointer}/fields/{index}")
            )
    for where, node in _walk(block, pointer):
        for key in _ID_KEYS:
            errors.extend(_too_long(node, key, limits.ID_LENGTH, where))
        if node.get("type") in _TEXT_TYPES and node.get("text") == "":
            errors.append(error("must be more than 0 characters", f"{where}/text"))
    action_ids: set[str] = set()
    for element, element_pointer in _elements(block, pointer):
        action_id = element.get("action_id")
        if isinstance(action_id, str):
            if action_id in action_ids:
                errors.append(
                    error(f"duplicate action_id: {action_id}", f"{element_pointer}/action_id")
                )
            action_ids.add(action_id)
        errors.extend(_check_element(element, element_pointer))
    return errors


def _elements(block: Mapping[str, Any], pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    """The elements a block holds, wherever its type keeps them."""
    for key in ("accessory", "element"):
        value = block.get(key)
        if isinstance(value, dict):
            yield value, f"{pointer}/{key}"
    if block.get("type") in ("actions", "context"):
        for index, value in enumerate(block.get("elements") or []):
            if isinstance(value, dict):
                yield value, f"{pointer}/elements/{index}"


def _check_element(element: dict[str, Any], pointer: str) -> list[str]:
    try:
        known = BlockElement.parse(element) is not None
    except _PARSE_ERRORS as exc:
        return [error(_describe(exc), pointer)]
    if not known:
        return [error(f"unsupported element type: {element.get('type')}", f"{pointer}/type")]
    errors: list[str] = []
    options = element.get("options")
    if (
        element.get("type") in _CHOICE_ELEMENTS
        and isinstance(options, list)
        and len(options) > limits.CHOICE_OPTIONS
    ):
        errors.append(
            error(f"no more than {limits.CHOICE_OPTIONS} items allowed", f"{pointer}/options")
        )
    for option, option_pointer in _options(element, pointer):
        errors.extend(
            _text_too_long(option.get("text"), limits.OPTION_TEXT, f"{option_pointer}/text")
        )
        errors.extend(_too_long(option, "value", limits.OPTION_VALUE, option_pointer))
        errors.extend(
            _text_too_long(
                option.get("description"),
                limits.OPTION_DESCRIPTION,
                f"{option_pointer}/description",
            )
        )
    return errors


def _options(element: Mapping[str, Any], pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    for key in ("options", "initial_options"):
        for index, option in enumerate(element.get(key) or []):
            if isinstance(option, dict):
                yield option, f"{pointer}/{key}/{index}"
    initial = element.get("initial_option")
    if isinstance(initial, dict):
        yield initial, f"{pointer}/initial_option"
    for group_index, group in enumerate(element.get("option_groups") or []):
        if isinstance(group, dict):
            group_pointer = f"{pointer}/option_groups/{group_index}"
            yield from _options({"options": group.get("options")}, group_pointer)


def _walk(node: object, pointer: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
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


def _too_long(obj: Mapping[str, Any], key: str, limit: int, pointer: str) -> list[str]:
    value = obj.get(key)
    if isinstance(value, str) and len(value) > limit:
        return [error(f"must be less than {limit + 1} characters", f"{pointer}/{key}")]
    return []


def _text_too_long(text_object: object, limit: int, pointer: str) -> list[str]:
    if isinstance(text_object, dict):
        return _too_long(text_object, "text", limit, pointer)
    return []


# --------------------------------------------------------------------------- pointers
#
# slack_sdk says what is wrong ("text attribute cannot exceed 75 characters")
# but not where. We find the deepest nested object that fails on its own and
# name the attribute the message starts with, which is where Slack points.

Fails = Callable[[Mapping[str, Any]], bool]


def _locate(obj: Mapping[str, Any], pointer: str, message: str) -> str:
    for child, child_pointer, child_fails in _children(obj, pointer):
        if child_fails(child):
            return _locate(child, child_pointer, message)
    return _attribute_pointer(obj, pointer, message)


def _attribute_pointer(obj: Mapping[str, Any], pointer: str, message: str) -> str:
    attribute = message.split(" ", 1)[0]
    if attribute not in obj:
        return pointer
    value = obj[attribute]
    pointer = f"{pointer}/{attribute}"
    if isinstance(value, dict) and "text" in value:
        pointer += "/text"
    return pointer


def _children(
    obj: Mapping[str, Any], pointer: str
) -> Iterator[tuple[Mapping[str, Any], str, Fails]]:
    for element, element_pointer in _elements(obj, pointer):
        yield element, element_pointer, _element_fails
    confirm = obj.get("confirm")
    if isinstance(confirm, dict) and "type" in obj:  # a confirm object's own `confirm` is text
        yield confirm, f"{pointer}/confirm", _confirm_fails
    for option, option_pointer in _options(obj, pointer):
        yield option, option_pointer, _option_fails
    for index, group in enumerate(obj.get("option_groups") or []):
        if isinstance(group, dict):
            yield group, f"{pointer}/option_groups/{index}", _group_fails


def _fails_with(build: Callable[[], Any]) -> bool:
    try:
        build()
    except _PARSE_ERRORS:
        return True
    return False


def _element_fails(element: Mapping[str, Any]) -> bool:
    def build() -> object:
        parsed = BlockElement.parse(dict(element))
        return None if parsed is None else parsed.to_dict()

    return _fails_with(build)


def _confirm_fails(confirm: Mapping[str, Any]) -> bool:
    def build() -> object:
        parsed = ConfirmObject.parse(dict(confirm))
        return None if parsed is None else parsed.to_dict()

    return _fails_with(build)


def _option_fails(option: Mapping[str, Any]) -> bool:
    return _fails_with(lambda: Option(**option).to_dict())


def _group_fails(group: Mapping[str, Any]) -> bool:
    return _fails_with(lambda: OptionGroup(**group).to_dict())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return f"missing required field: {exc.args[0]}"
    return str(exc) or type(exc).__name__
