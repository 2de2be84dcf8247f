"""The interaction payloads Slack sends an app, built from what the local Slack shows.

Payloads are built from the stored message or view, never written by hand,
so a test can only click a button the bridge really rendered. A lookup that
finds nothing raises AssertionError: in a test that is a failure to report,
not an error in the harness.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from novo_dev.localslack.records import (
    Identity,
    SlackUser,
    StoredEphemeral,
    StoredMessage,
    StoredView,
)

VERIFICATION_TOKEN = "local-verification-token"  # Slack's legacy field; Bolt ignores it

# What Slack puts in state.values for an element the user left alone.
_EMPTY_STATE: dict[str, tuple[str, Any]] = {
    "plain_text_input": ("value", None),
    "email_text_input": ("value", None),
    "url_text_input": ("value", None),
    "number_input": ("value", None),
    "rich_text_input": ("rich_text_value", None),
    "static_select": ("selected_option", None),
    "external_select": ("selected_option", None),
    "radio_buttons": ("selected_option", None),
    "multi_static_select": ("selected_options", []),
    "multi_external_select": ("selected_options", []),
    "checkboxes": ("selected_options", []),
    "datepicker": ("selected_date", None),
    "timepicker": ("selected_time", None),
    "users_select": ("selected_user", None),
    "conversations_select": ("selected_conversation", None),
    "channels_select": ("selected_channel", None),
}


def iter_elements(
    blocks: Sequence[Mapping[str, Any]],
) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """Every (block, interactive element) pair, wherever the block type keeps them."""
    for block in blocks:
        for key in ("accessory", "element"):
            element = block.get(key)
            if isinstance(element, Mapping) and "action_id" in element:
                yield block, element
        if block.get("type") == "actions":
            for element in block.get("elements") or []:
                if isinstance(element, Mapping):
                    yield block, element


def find_element(
    blocks: Sequence[Mapping[str, Any]],
    action_id: str,
    *,
    value: str | None = None,
    block_id: str | None = None,
) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The (block, element) with that action_id (and button value / block_id when given)."""
    seen: list[str] = []
    for block, element in iter_elements(blocks):
        seen.append(f"{block.get('block_id')}/{element.get('action_id')}={element.get('value')}")
        if element.get("action_id") != action_id:
            continue
        if block_id is not None and block.get("block_id") != block_id:
            continue
        if value is not None and element.get("value") != value:
            continue
        return block, element
    wanted = f"action_id={action_id!r}" + (f" value={value!r}" if value is not None else "")
    raise AssertionError(f"no element with {wanted}; elements shown: {seen}")


def all_options(element: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    options: list[Mapping[str, Any]] = list(element.get("options") or [])
    for group in element.get("option_groups") or []:
        options.extend(group.get("options") or [])
    return options


def find_option(element: Mapping[str, Any], value: str) -> dict[str, Any]:
    """The option object Slack reports as selected, taken from the element's own options."""
    for option in all_options(element):
        if option.get("value") == value:
            picked: dict[str, Any] = {"text": option["text"], "value": option["value"]}
            if "description" in option:
                picked["description"] = option["description"]
            return picked
    values = [o.get("value") for o in all_options(element)]
    raise AssertionError(f"{element.get('action_id')!r} has no option {value!r}; options: {values}")


def user_object(user: SlackUser, team_id: str) -> dict[str, Any]:
    """The payload's `user`: its `team_id` is the person's own team, which for someone in a
    shared channel is not the app's (`team_id`, the payload's top-level `team`)."""
    return {
        "id": user.id,
        "username": user.name,
        "name": user.name,
        "team_id": user.home_team(team_id),
    }


def action(
    block: Mapping[str, Any],
    element: Mapping[str, Any],
    action_ts: str,
    *,
    selected_option: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One `actions[]` entry, as Slack reports a click or a pick on `element`."""
    entry: dict[str, Any] = {
        "type": element.get("type"),
        "action_id": element.get("action_id"),
        "block_id": block.get("block_id"),
        "action_ts": action_ts,
    }
    for key in ("text", "value", "style"):
        if key in element:
            entry[key] = element[key]
    if selected_option is not None:
        entry["selected_option"] = selected_option
    return entry


def envelope(kind: str, ident: Identity, user: Mapping[str, Any]) -> dict[str, Any]:
    """The fields every interaction payload carries."""
    return {
        "type": kind,
        "user": user,
        "api_app_id": ident.app_id,
        "token": VERIFICATION_TOKEN,
        "team": {"id": ident.team_id, "domain": ident.team_domain},
        "enterprise": None,
        "is_enterprise_install": False,
    }


def message_container(message: StoredMessage) -> dict[str, Any]:
    return {
        "type": "message",
        "message_ts": message.ts,
        "channel_id": message.channel,
        "is_ephemeral": False,
    }


def ephemeral_container(ephemeral: StoredEphemeral) -> dict[str, Any]:
    """A click in an ephemeral message: Slack says so, and sends no `message` with it."""
    return {
        "type": "message",
        "message_ts": ephemeral.ts,
        "channel_id": ephemeral.channel,
        "is_ephemeral": True,
    }


def slash_command(
    ident: Identity,
    user: SlackUser,
    *,
    command: str,
    text: str,
    channel_id: str,
    channel_name: str,
    response_url: str,
    trigger_id: str,
) -> dict[str, str]:
    """The fields of a slash command, as Slack sends them: form fields over HTTP, the
    envelope's `payload` in Socket Mode. `team_id` is the workspace it was typed in."""
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": ident.team_id,
        "team_domain": ident.team_domain,
        "channel_id": channel_id,
        "channel_name": channel_name,
        "user_id": user.id,
        "user_name": user.name,
        "command": command,
        "text": text,
        "api_app_id": ident.app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def view_container(view: StoredView) -> dict[str, Any]:
    return {"type": "view", "view_id": view.id}


def submitted_state(
    view: StoredView, values: Mapping[str, Mapping[str, Mapping[str, Any]]]
) -> dict[str, dict[str, dict[str, Any]]]:
    """`state.values` as Slack would send it: every input present, each with its `type`.

    Raises AssertionError for a value aimed at no element of the view, an
    option the element does not offer, or a required input left empty —
    Slack's client would never let such a submission through.
    """
    elements = {
        (str(block.get("block_id")), str(element.get("action_id"))): (block, element)
        for block, element in iter_elements(view.blocks)
    }
    state: dict[str, dict[str, dict[str, Any]]] = {}
    for block_id, by_action in values.items():
        for action_id, given in by_action.items():
            found = elements.get((block_id, action_id))
            if found is None:
                raise AssertionError(
                    f"view {view.id} has no element {block_id}/{action_id}; "
                    f"it has {sorted(elements)}"
                )
            _check_options(found[1], given)
            entry = {"type": found[1].get("type"), **given}
            state.setdefault(block_id, {})[action_id] = entry
    for (block_id, action_id), (block, element) in elements.items():
        if block.get("type") != "input":
            continue
        entry = state.setdefault(block_id, {}).setdefault(action_id, _empty(element))
        if not block.get("optional", False) and _is_empty(entry):
            raise AssertionError(
                f"required input {block_id}/{action_id} is empty: Slack would not submit"
            )
    return state


def _check_options(element: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    if element.get("type") in ("external_select", "multi_external_select"):
        return  # options come from the app at load time, not from the view
    offered = {o.get("value") for o in all_options(element)}
    picked = list(given.get("selected_options") or [])
    if given.get("selected_option"):
        picked.append(given["selected_option"])
    for option in picked:
        if option.get("value") not in offered:
            raise AssertionError(
                f"{element.get('action_id')!r} offers no option {option.get('value')!r}"
            )


def _empty(element: Mapping[str, Any]) -> dict[str, Any]:
    element_type = str(element.get("type"))
    entry: dict[str, Any] = {"type": element_type}
    if element_type in _EMPTY_STATE:
        key, empty = _EMPTY_STATE[element_type]
        entry[key] = list(empty) if isinstance(empty, list) else empty
    return entry


def _is_empty(entry: Mapping[str, Any]) -> bool:
    filled = [v for k, v in entry.items() if k != "type"]
    return not filled or all(v in (None, "", []) for v in filled)
