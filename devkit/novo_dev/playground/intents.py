"""What a person did on the page, turned into the signed payload Slack would send.

The page never builds a Slack payload itself: it posts a small intent (who,
which message or view, which element, what was typed or picked) and
`SlackDriver` builds the payload from what the local Slack shows, signs it
and sends it to the bridge. So the page can only click what the bridge
rendered, and what works on the page works in Slack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field

from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.payloads import find_element, find_option
from novo_dev.localslack.server import LocalSlack

StateValues = dict[str, dict[str, dict[str, Any]]]
_EXTERNAL = ("external_select", "multi_external_select")


class _Intent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(min_length=1)


class ClickMessage(_Intent):
    kind: Literal["click"]
    channel: str
    ts: str
    action_id: str
    block_id: str | None = None
    value: str | None = None


class PickOverflow(_Intent):
    kind: Literal["overflow"]
    channel: str
    ts: str
    action_id: str
    option: str


class ClickView(_Intent):
    kind: Literal["view_click"]
    view_id: str
    action_id: str
    value: str | None = None
    values: StateValues = {}


class Submit(_Intent):
    kind: Literal["submit"]
    view_id: str
    values: StateValues = {}


class LoadOptions(_Intent):
    kind: Literal["options"]
    view_id: str
    block_id: str
    action_id: str
    query: str = ""


class Close(_Intent):
    kind: Literal["close"]
    view_id: str


Intent = ClickMessage | PickOverflow | ClickView | Submit | LoadOptions | Close


class IntentBody(BaseModel):
    intent: Annotated[Intent, Field(discriminator="kind")]


async def perform(body: IntentBody, driver: SlackDriver, slack: LocalSlack) -> dict[str, Any]:
    """Send the intent's payload; the bridge's HTTP status and ack body come back to the page.

    Raises AssertionError (from the driver) for what Slack's client would not
    let a person do: an element that is not shown, a closed view, a required
    input left empty.
    """
    intent = body.intent
    if isinstance(intent, ClickMessage):
        response = await driver.click_message_button(
            intent.user,
            intent.channel,
            intent.ts,
            intent.action_id,
            value=intent.value,
            block_id=intent.block_id,
        )
    elif isinstance(intent, PickOverflow):
        response = await driver.choose_overflow(
            intent.user, intent.channel, intent.ts, intent.action_id, intent.option
        )
    elif isinstance(intent, ClickView):
        values = state_values(slack, intent.view_id, intent.values)
        response = await driver.click_view_button(
            intent.user, intent.view_id, intent.action_id, value=intent.value, state_values=values
        )
    elif isinstance(intent, Submit):
        values = state_values(slack, intent.view_id, intent.values)
        response = await driver.submit_view(intent.user, intent.view_id, values)
    elif isinstance(intent, LoadOptions):
        response = await driver.load_options(
            intent.user, intent.view_id, intent.action_id, intent.block_id, intent.query
        )
    else:
        response = await close_view(driver, slack, intent.user, intent.view_id)
    return {"status": response.status_code, "ack": _ack(response)}


def state_values(slack: LocalSlack, view_id: str, given: StateValues) -> StateValues:
    """`state.values` with each picked option as the view itself offers it.

    The page sends option values (and, for external selects, the option the
    bridge's options endpoint gave it); Slack reports the option object, so
    static options are looked up in the view: a value it does not offer fails
    here as it could not be picked in Slack.
    """
    blocks = slack.view(view_id).blocks
    values: StateValues = {}
    for block_id, by_action in given.items():
        for action_id, entry in by_action.items():
            _, element = find_element(blocks, action_id, block_id=block_id)
            values.setdefault(block_id, {})[action_id] = _entry(element, entry)
    return values


def _entry(element: Mapping[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    kind = str(element.get("type"))
    if kind in _EXTERNAL:
        return {"type": kind, **entry}  # options came from the bridge at load time
    picked = {**entry, "type": kind}
    if isinstance(entry.get("selected_option"), dict):
        picked["selected_option"] = find_option(element, str(entry["selected_option"]["value"]))
    if isinstance(entry.get("selected_options"), list):
        picked["selected_options"] = [
            find_option(element, str(o.get("value"))) for o in entry["selected_options"]
        ]
    return picked


async def close_view(
    driver: SlackDriver, slack: LocalSlack, user_id: str, view_id: str
) -> httpx.Response:
    """Close the view as its close button does; `view_closed` goes only where asked for.

    Slack tells the app a modal was closed only when the view set
    `notify_on_close`; otherwise the bridge hears nothing, and the page says
    so with a 204.
    """
    if slack.view(view_id).closed:
        raise AssertionError(f"view {view_id} is already closed")
    response = await driver.close_view(user_id, view_id)
    return response if response is not None else httpx.Response(204)


def _ack(response: httpx.Response) -> Any:
    if not response.content.strip():
        return None
    try:
        return response.json()
    except ValueError:
        return response.text
