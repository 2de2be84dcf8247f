"""The demo's scripted people: they click through what the bridge posts.

Ada approves, Grace denies with a reason, Linus answers every question by
filling its form (whatever its shape), and someone picks an agent's action,
so each kind of decision is seen end to end: a deploy needing two approvals
gets them from two people, a step's calls are approved all at once, and a
refund routed to Grace's DM is decided there. Then they keep deciding
whatever arrives, one every few seconds.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Iterator, Sequence
from typing import Any

from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId
from bot.slack.render.question_encoding import action_id_pattern
from novo_dev.demo.transcript import Transcript
from novo_dev.localslack.driver import SlackDriver
from novo_dev.localslack.records import StoredMessage, StoredView
from novo_dev.localslack.server import LocalSlack

log = logging.getLogger(__name__)

STEP_SECONDS = 3.0
WAIT_SECONDS = 10.0
OTHER_TEXT_SUFFIX = "_other"


PEOPLE = ("U0ADA", "U0GRACE", "U0LINUS")


async def script_clicks(
    slack: LocalSlack,
    driver: SlackDriver,
    channels: Sequence[str],
    transcript: Transcript,
    dm_people: Sequence[str] = (),
) -> None:
    """Click through what waits in `channels` and in the DMs of `dm_people`, one every
    few seconds. Each person tries a message once: with a quorum, a second one approves
    after the first; someone the policy leaves out is refused, as in Slack."""
    people = itertools.cycle(PEOPLE)
    tried: set[tuple[str, str]] = set()  # (ts, user)
    approvals = 0
    questions = 0
    while True:
        await asyncio.sleep(STEP_SECONDS)
        found = _next_waiting(slack, channels, dm_people, tried, people)
        if found is None:
            continue
        channel, message, user = found
        tried.add((message.ts, user))
        name = slack.user(user).display_name if slack.user(user) else user  # type: ignore[union-attr]
        actions = _action_ids(message)
        try:
            if ActionId.APPROVE_ALL in actions:
                transcript.say(f"*click* {name} presses Approve all")
                await driver.click_message_button(user, channel, message.ts, ActionId.APPROVE_ALL)
            elif ActionId.APPROVE in actions:
                approvals += 1
                if approvals % 3 == 2 and not _counts_votes(message):
                    transcript.say(f"*click* {name} presses Deny and gives a reason")
                    await _deny_with_reason(slack, driver, user, channel, message)
                else:
                    transcript.say(f"*click* {name} presses Approve")
                    await driver.click_message_button(user, channel, message.ts, ActionId.APPROVE)
            else:
                questions += 1
                choice = next(
                    (a for a in actions if action_id_pattern(ActionId.QUESTION_ACTION).match(a)),
                    None,
                )
                if choice is not None and (questions % 2 == 0 or ActionId.ANSWER not in actions):
                    transcript.say(f"*click* {name} picks one of the agent's own actions")
                    await driver.click_message_button(user, channel, message.ts, choice)
                elif ActionId.ANSWER in actions:
                    transcript.say(f"*click* {name} presses Answer and fills in the form")
                    await _answer(slack, driver, user, channel, message)
        except (AssertionError, TimeoutError, KeyError) as exc:
            transcript.say(f"(scripted click skipped: {exc})")


def _next_waiting(
    slack: LocalSlack,
    channels: Sequence[str],
    dm_people: Sequence[str],
    tried: set[tuple[str, str]],
    people: Iterator[str],
) -> tuple[str, StoredMessage, str] | None:
    """The next message with buttons and who clicks it: a DM's own person, otherwise the
    next of the people who has not tried it yet."""
    for person in dm_people:
        channel = slack.channel_id(person)
        for message in slack.messages(channel):
            if (message.ts, person) not in tried and _action_ids(message):
                return channel, message, person
    for channel in channels:
        for message in slack.messages(channel):
            if not _action_ids(message) or _left_to_lapse(message):
                continue
            for _ in PEOPLE:
                user = next(people)
                if (message.ts, user) not in tried:
                    return channel, message, user
    return None


LEFT_TO_LAPSE = ("rotate_credential",)
"""Tools nobody scripted decides, so the demo shows a reminder, an escalation and an expiry."""


def _left_to_lapse(message: StoredMessage) -> bool:
    shown = json.dumps(message.blocks, ensure_ascii=False)
    return any(tool in shown for tool in LEFT_TO_LAPSE)


def _counts_votes(message: StoredMessage) -> bool:
    """A quorum's message: a Deny would end the vote the demo means to show."""
    shown = json.dumps(message.blocks, ensure_ascii=False)
    return "Needs " in shown or "Approvals: " in shown


def _action_ids(message: StoredMessage) -> list[str]:
    return [
        str(element.get("action_id"))
        for block in message.blocks
        if block.get("type") == "actions"
        for element in block.get("elements", [])
    ]


async def _wait_view(slack: LocalSlack, before: set[str], callback_id: str) -> StoredView:
    deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
    while asyncio.get_running_loop().time() < deadline:
        for view in slack.views():
            if view.id not in before and view.callback_id == callback_id:
                return view
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no {callback_id} modal opened")


async def _deny_with_reason(
    slack: LocalSlack, driver: SlackDriver, user: str, channel: str, message: StoredMessage
) -> None:
    before = {v.id for v in slack.views()}
    await driver.click_message_button(user, channel, message.ts, ActionId.DENY)
    view = await _wait_view(slack, before, CallbackId.DENY_MODAL)
    await asyncio.sleep(1.0)  # a person takes a moment to type
    values: dict[str, dict[str, dict[str, Any]]] = {
        REASON_BLOCK_ID: {
            ActionId.REASON_INPUT: {
                "type": "plain_text_input",
                "value": "Not during the change freeze",
            }
        }
    }
    await driver.submit_view(user, view.id, values)


async def _answer(
    slack: LocalSlack, driver: SlackDriver, user: str, channel: str, message: StoredMessage
) -> None:
    before = {v.id for v in slack.views()}
    await driver.click_message_button(user, channel, message.ts, ActionId.ANSWER)
    view = await _wait_view(slack, before, CallbackId.QUESTION_MODAL)
    while True:
        await asyncio.sleep(1.0)
        values = await _fill(driver, user, view)
        response = await driver.submit_view(user, view.id, values)
        ack = response.json() if response.content else {}
        next_view = ack.get("view") if isinstance(ack, dict) else None
        if not next_view or next_view.get("callback_id") != CallbackId.QUESTION_MODAL:
            return
        view = slack.view(view.id)  # the next page of a long form


async def _fill(driver: SlackDriver, user: str, view: StoredView) -> dict[str, Any]:
    """Answers for every input of a question modal, whatever widget each one is."""
    values: dict[str, Any] = {}
    for block in view.blocks:
        if block.get("type") != "input":
            continue
        block_id, element = block["block_id"], block["element"]
        action_id, kind = element["action_id"], element["type"]
        if kind == "plain_text_input":
            if block_id.endswith(OTHER_TEXT_SUFFIX) or block.get("optional"):
                continue
            text = (
                "Rolled out to 10% first, then everyone."
                if element.get("multiline")
                else "Yes — go ahead"
            )
            values[block_id] = {action_id: {"type": kind, "value": text}}
        elif kind in ("radio_buttons", "static_select"):
            values[block_id] = {action_id: {"type": kind, "selected_option": element["options"][0]}}
        elif kind in ("checkboxes", "multi_static_select"):
            values[block_id] = {
                action_id: {"type": kind, "selected_options": element["options"][:2]}
            }
        elif kind in ("external_select", "multi_external_select"):
            found = await driver.load_options(user, view.id, action_id, block_id, "")
            options = [o for o in found.json().get("options", []) if o.get("value") != "other"]
            if kind == "external_select":
                values[block_id] = {action_id: {"type": kind, "selected_option": options[0]}}
            else:
                values[block_id] = {action_id: {"type": kind, "selected_options": options[:2]}}
    return values
