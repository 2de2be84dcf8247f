"""Plays the Slack side of a click: signed interaction payloads sent to the bridge.

Slack posts `payload=<json>` form bodies signed with the app's signing
secret; the bridge must accept exactly that and nothing unsigned. The driver
builds each payload from what the local Slack shows (so only rendered
buttons can be clicked), signs it as Slack does, and applies a modal
submission's ack to the stored views as Slack would. Events (`app_home_opened`,
the `url_verification` challenge) go as Slack's Events API sends them: signed
JSON over HTTP, or an `events_api` envelope down the Socket Mode socket.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any
from urllib.parse import urlencode

import httpx
from slack_sdk.signature import SignatureVerifier

from bot.tls import trust_store
from novo_dev.localslack.events import (
    app_home_opened,
    event_callback,
    message_changed_event,
    message_deleted_event,
    message_event,
    url_verification,
)
from novo_dev.localslack.payloads import (
    action,
    envelope,
    ephemeral_container,
    find_element,
    find_option,
    message_container,
    slash_command,
    submitted_state,
    user_object,
    view_container,
)
from novo_dev.localslack.records import SlackUser, StoredEphemeral, StoredMessage, StoredView
from novo_dev.localslack.server import LocalSlack
from novo_dev.localslack.sockets import SocketAck

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
ANSWER_WAIT_SECONDS = 30.0
"""How long the driver waits for the app's HTTP answer or Socket Mode ack before calling it
lost: a bound on a hang, generous for a busy machine. Slack's own 3 s is a latency the
benchmarks report (`bench.latency`), not something the driver enforces."""

RETRY_NUM_HEADER = "X-Slack-Retry-Num"
RETRY_REASON_HEADER = "X-Slack-Retry-Reason"

__all__ = ["FORM", "DeliveredMessage", "SlackDriver", "find_element", "find_option"]


@dataclass(frozen=True)
class DeliveredMessage:
    """A message someone wrote, the `event_callback` that tells the app, and the app's
    answer to it (None when it was not delivered yet)."""

    message: StoredMessage
    payload: dict[str, Any]
    response: httpx.Response | None


@dataclass(frozen=True)
class SentRequest:
    """A request exactly as it went to the app: what a replay sends again byte for byte."""

    body: bytes
    headers: dict[str, str]


class SlackDriver:
    """Sends the bridge what Slack sends when a person clicks, picks, types or submits."""

    def __init__(
        self,
        bridge_url: str,
        signing_secret: str,
        slack: LocalSlack,
        *,
        team_id: str = "T0LOCAL",
        api_app_id: str = "A0LOCAL",
        clock: Callable[[], float] = time.time,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.events_url = f"{bridge_url.rstrip('/')}/slack/events"
        self.slack = slack
        self._verifier = SignatureVerifier(signing_secret)
        self._team_id = team_id
        self._identity = replace(slack.identity, team_id=team_id, app_id=api_app_id)
        self._clock = clock
        self._http = http or httpx.AsyncClient(timeout=ANSWER_WAIT_SECONDS, verify=trust_store())
        self._owns_http = http is None
        self.last_sent: SentRequest | None = None

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> SlackDriver:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ messages

    async def click_message_button(
        self,
        user_id: str,
        channel: str,
        ts: str,
        action_id: str,
        *,
        value: str | None = None,
        block_id: str | None = None,
    ) -> httpx.Response:
        message = self._message(channel, ts)
        block, element = find_element(message.blocks, action_id, value=value, block_id=block_id)
        return await self._send(
            self._message_action(user_id, message, action(block, element, self._ts()))
        )

    async def click_stale_button(
        self,
        user_id: str,
        channel: str,
        ts: str,
        stale_blocks: list[dict[str, Any]],
        action_id: str,
        *,
        value: str | None = None,
    ) -> httpx.Response:
        """A click from a client still showing the message as it was (`stale_blocks`):
        Slack sends the button the person saw, not the one the message has now."""
        message = replace(self._message(channel, ts), blocks=stale_blocks)
        block, element = find_element(stale_blocks, action_id, value=value)
        return await self._send(
            self._message_action(user_id, message, action(block, element, self._ts()))
        )

    async def choose_overflow(
        self,
        user_id: str,
        channel: str,
        ts: str,
        action_id: str,
        option_value: str,
        *,
        stale_blocks: list[dict[str, Any]] | None = None,
    ) -> httpx.Response:
        """Pick an option of a message's overflow menu; with `stale_blocks`, from a client
        still showing the message as it was."""
        message = self._message(channel, ts)
        if stale_blocks is not None:
            message = replace(message, blocks=stale_blocks)
        block, element = find_element(message.blocks, action_id)
        picked = find_option(element, option_value)
        entry = action(block, element, self._ts(), selected_option=picked)
        entry.pop("value", None)
        return await self._send(self._message_action(user_id, message, entry))

    async def click_ephemeral_button(
        self, ephemeral: StoredEphemeral, action_id: str, *, value: str | None = None
    ) -> httpx.Response:
        """A click in an ephemeral message, by the one person it was shown to. Slack marks
        the container ephemeral and sends no `message`: the app sees only the button."""
        return await self._send(self._ephemeral_click(ephemeral, action_id, value))

    async def click_ephemeral_button_over_socket(
        self, ephemeral: StoredEphemeral, action_id: str, *, within: float = 5.0
    ) -> SocketAck:
        """The same click in Socket Mode: an `interactive` envelope down the app's socket."""
        payload = self._ephemeral_click(ephemeral, action_id, None)
        return await self.slack.deliver_over_socket("interactive", payload, within=within)

    def _ephemeral_click(
        self, ephemeral: StoredEphemeral, action_id: str, value: str | None
    ) -> dict[str, Any]:
        block, element = find_element(ephemeral.blocks, action_id, value=value)
        return {
            **envelope("block_actions", self._identity, self._user(ephemeral.user)),
            "container": ephemeral_container(ephemeral),
            "trigger_id": self.slack.issue_trigger(ephemeral.user),
            "channel": {"id": ephemeral.channel, "name": self._channel_name(ephemeral.channel)},
            "state": {"values": {}},
            "response_url": self.slack.issue_response_url(
                ephemeral.channel, ephemeral.ts, user_id=ephemeral.user, ephemeral=True
            ),
            "actions": [action(block, element, self._ts())],
        }

    # ------------------------------------------------------------------ slash commands

    async def send_command(
        self, user_id: str, command: str, text: str = "", *, channel: str
    ) -> httpx.Response:
        """`user_id` types `command text` in `channel`: plain form fields, signed, posted to
        the app as Slack posts them. Its response_url answers in `channel`, to them only."""
        fields = self._command(user_id, command, text, channel)
        return await self.send_raw(urlencode(fields).encode())

    async def send_command_over_socket(
        self,
        user_id: str,
        command: str,
        text: str = "",
        *,
        channel: str,
        within: float = ANSWER_WAIT_SECONDS,
    ) -> SocketAck:
        """The same command in Socket Mode: a `slash_commands` envelope down the app's
        socket (`LocalSlack.serve_socket`); returns the app's ack once it comes."""
        fields = self._command(user_id, command, text, channel)
        return await self.slack.deliver_over_socket("slash_commands", fields, within=within)

    def _command(self, user_id: str, command: str, text: str, channel: str) -> dict[str, str]:
        channel_id = self.slack.channel_id(channel)
        return slash_command(
            self._identity,
            self._person(user_id),
            command=command,
            text=text,
            channel_id=channel_id,
            channel_name=self._channel_name(channel_id),
            # a command has no message of its own: the answer is a new (ephemeral) one
            response_url=self.slack.issue_response_url(channel_id, "", user_id=user_id),
            trigger_id=self.slack.issue_trigger(user_id),
        )

    # ------------------------------------------------------------------ views

    async def click_view_button(
        self,
        user_id: str,
        view_id: str,
        action_id: str,
        *,
        value: str | None = None,
        state_values: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
    ) -> httpx.Response:
        view = self._open_view(view_id)
        if state_values is not None:
            self.slack.set_view_state(view_id, _plain(state_values))
        block, element = find_element(view.blocks, action_id, value=value)
        payload = {
            **envelope("block_actions", self._identity, self._user(user_id)),
            "container": view_container(view),
            "trigger_id": self.slack.issue_trigger(user_id, view_id=view.id),
            "view": view.to_api(),
            "actions": [action(block, element, self._ts())],
        }
        return await self._send(payload)

    async def choose_view_overflow(
        self,
        user_id: str,
        view_id: str,
        action_id: str,
        option_value: str,
        *,
        block_id: str | None = None,
    ) -> httpx.Response:
        """A pick in an overflow menu of a view (a Home tab showing several: `block_id`)."""
        view = self._open_view(view_id)
        block, element = find_element(view.blocks, action_id, block_id=block_id)
        entry = action(
            block, element, self._ts(), selected_option=find_option(element, option_value)
        )
        entry.pop("value", None)
        payload = {
            **envelope("block_actions", self._identity, self._user(user_id)),
            "container": view_container(view),
            "trigger_id": self.slack.issue_trigger(user_id, view_id=view.id),
            "view": view.to_api(),
            "actions": [entry],
        }
        return await self._send(payload)

    async def click_stale_view_button(
        self,
        user_id: str,
        view_id: str,
        stale_blocks: list[dict[str, Any]],
        action_id: str,
        *,
        value: str | None = None,
    ) -> httpx.Response:
        """A click in a view (a Home tab) a client still shows as it was (`stale_blocks`),
        though the app has published it anew since."""
        view = self._open_view(view_id)
        stale = replace(view, payload={**view.payload, "blocks": stale_blocks})
        block, element = find_element(stale_blocks, action_id, value=value)
        payload = {
            **envelope("block_actions", self._identity, self._user(user_id)),
            "container": view_container(stale),
            "trigger_id": self.slack.issue_trigger(user_id, view_id=view.id),
            "view": stale.to_api(),
            "actions": [action(block, element, self._ts())],
        }
        return await self._send(payload)

    async def submit_view(
        self, user_id: str, view_id: str, values: dict[str, dict[str, dict[str, Any]]]
    ) -> httpx.Response:
        """Submit the modal with `values` (missing inputs are sent empty, as Slack does).

        The ack is applied to the stored views the way Slack applies it
        (close, update, push, errors, clear); an ack Slack would refuse raises
        AssertionError.
        """
        view = self._open_view(view_id)
        self.slack.set_view_state(view_id, submitted_state(view, values))
        payload = {
            **envelope("view_submission", self._identity, self._user(user_id)),
            "trigger_id": self.slack.issue_trigger(user_id, view_id=view.id),
            "view": view.to_api(),
            "response_urls": [],
        }
        response = await self._send(payload)
        if response.status_code == 200:
            problems = self.slack.apply_view_response(view_id, _ack_body(response))
            if problems:
                raise AssertionError(f"Slack would refuse the view_submission ack: {problems}")
        return response

    async def close_view(self, user_id: str, view_id: str) -> httpx.Response | None:
        """The person closes the modal (×/Cancel). Slack tells the app only when the
        view asked for it (`notify_on_close`); otherwise nothing is sent (None)."""
        view = self._open_view(view_id)
        self.slack.apply_view_response(view_id, None)  # Slack closes it before telling the app
        if not view.payload.get("notify_on_close"):
            return None
        payload = {
            **envelope("view_closed", self._identity, self._user(user_id)),
            "view": view.to_api(),
            "is_cleared": False,
        }
        return await self._send(payload)

    async def load_options(
        self, user_id: str, view_id: str, action_id: str, block_id: str, query: str
    ) -> httpx.Response:
        view = self._open_view(view_id)
        find_element(view.blocks, action_id, block_id=block_id)
        payload = {
            **envelope("block_suggestion", self._identity, self._user(user_id)),
            "container": view_container(view),
            "action_id": action_id,
            "block_id": block_id,
            "value": query,
            "view": view.to_api(),
        }
        return await self._send(payload)

    def selected_option(
        self, view_id: str, block_id: str, action_id: str, value: str
    ) -> dict[str, Any]:
        """`{"selected_option": ...}` for `submit_view`, taken from the view's own options."""
        _, element = find_element(self.slack.view(view_id).blocks, action_id, block_id=block_id)
        return {"selected_option": find_option(element, value)}

    def selected_options(
        self, view_id: str, block_id: str, action_id: str, values: list[str]
    ) -> dict[str, Any]:
        """`{"selected_options": [...]}` for `submit_view`, in the order given."""
        _, element = find_element(self.slack.view(view_id).blocks, action_id, block_id=block_id)
        return {"selected_options": [find_option(element, v) for v in values]}

    # ------------------------------------------------------------------ events

    async def open_home(self, user_id: str, *, tab: str = "home") -> httpx.Response:
        """`user_id` opens the app's Home (`tab` "messages": its Messages tab): the
        `app_home_opened` event, POSTed as Slack's Events API does (signed JSON)."""
        return await self.send_event(self._home_opened(user_id, tab))

    async def open_home_over_socket(
        self, user_id: str, *, tab: str = "home", within: float = ANSWER_WAIT_SECONDS
    ) -> SocketAck:
        """The same event in Socket Mode: an `events_api` envelope down the app's socket
        (`LocalSlack.serve_socket`); returns the app's ack once it comes."""
        payload = event_callback(self._identity, self._home_opened(user_id, tab), at=self._clock())
        return await self.slack.deliver_over_socket("events_api", payload, within=within)

    async def send_event(self, event: dict[str, Any]) -> httpx.Response:
        """Deliver `event` wrapped in its `event_callback`, as a signed JSON POST."""
        return await self._send_json(event_callback(self._identity, event, at=self._clock()))

    async def reply_in_thread(
        self,
        user_id: str,
        channel: str,
        thread_ts: str | None,
        text: str,
        *,
        bot_id: str = "",
        deliver: bool = True,
    ) -> DeliveredMessage:
        """`user_id` writes `text` in `thread_ts`'s thread (at the top of `channel` with
        None; another app's message with `bot_id`): the local Slack shows it, and the
        `message` event goes to the app as a signed POST (`deliver=False`: not yet, see
        `send_event_payload`)."""
        if not bot_id:
            self._person(user_id)
        message = self.slack.add_person_message(channel, user_id, text, thread_ts, bot_id=bot_id)
        payload = event_callback(self._identity, message_event(message), at=self._clock())
        response = await self.send_event_payload(payload) if deliver else None
        return DeliveredMessage(message, payload, response)

    async def reply_in_thread_over_socket(
        self,
        user_id: str,
        channel: str,
        thread_ts: str,
        text: str,
        *,
        within: float = ANSWER_WAIT_SECONDS,
    ) -> tuple[StoredMessage, SocketAck]:
        """The same reply in Socket Mode: an `events_api` envelope down the app's socket."""
        self._person(user_id)
        message = self.slack.add_person_message(channel, user_id, text, thread_ts)
        payload = event_callback(self._identity, message_event(message), at=self._clock())
        ack = await self.slack.deliver_over_socket("events_api", payload, within=within)
        return message, ack

    async def edit_reply(
        self, user_id: str, channel: str, thread_ts: str, text: str
    ) -> httpx.Response:
        """`user_id` edits a reply of theirs in the thread so it reads `text`: only the
        `message_changed` event reaches the app (the reply's own event was lost)."""
        self._person(user_id)
        message = self.slack.add_person_message(channel, user_id, "draft", thread_ts)
        previous, message.text = message.text, text
        event = message_changed_event(message, previous, at=self._clock())
        return await self.send_event(event)

    async def edit_message(self, user_id: str, channel: str, ts: str, text: str) -> httpx.Response:
        """`user_id` edits their message `ts` so it reads `text`; Slack sends the app a
        `message_changed` event."""
        self._person(user_id)
        message, previous = self.slack.edit_person_message(channel, ts, text)
        return await self.send_event(message_changed_event(message, previous, at=self._clock()))

    async def delete_message(self, user_id: str, channel: str, ts: str) -> httpx.Response:
        """`user_id` deletes their message `ts`; Slack sends the app `message_deleted`."""
        self._person(user_id)
        message = self.slack.delete_person_message(channel, ts)
        return await self.send_event(message_deleted_event(message, at=self._clock()))

    async def send_event_payload(
        self, payload: Mapping[str, Any], *, retry_num: int | None = None
    ) -> httpx.Response:
        """POST an `event_callback` as it is; with `retry_num`, as Slack retries a delivery
        it counts as failed (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`)."""
        raw = json.dumps(payload, separators=(",", ":")).encode()
        headers = (
            {RETRY_NUM_HEADER: str(retry_num), RETRY_REASON_HEADER: "http_timeout"}
            if retry_num is not None
            else {}
        )
        return await self.send_raw(raw, content_type=JSON, headers=headers)

    async def verify_url(self, challenge: str) -> httpx.Response:
        """The `url_verification` request Slack sends when the request URL is saved."""
        return await self._send_json(url_verification(challenge))

    def _home_opened(self, user_id: str, tab: str) -> dict[str, Any]:
        self._person(user_id)
        home = self.slack.home_view(user_id)
        return app_home_opened(
            user_id,
            self.slack.channel_id(user_id),  # the app's DM with them
            tab=tab,
            at=self._clock(),
            view=home.to_api() if home is not None and tab == "home" else None,
        )

    async def _send_json(self, body: Mapping[str, Any]) -> httpx.Response:
        raw = json.dumps(body, separators=(",", ":")).encode()
        return await self.send_raw(raw, content_type=JSON)

    # ------------------------------------------------------------------ wire

    async def send_raw(
        self,
        body: bytes,
        *,
        timestamp: str | None = None,
        signature: str | None = None,
        content_type: str = FORM,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """POST `body` as Slack would; a given timestamp or signature is sent as is."""
        timestamp = timestamp or str(int(self._clock()))
        if signature is None:
            signature = self.sign(body, timestamp)
        headers = {
            **(headers or {}),
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": signature,
        }
        self.last_sent = SentRequest(body, headers)
        return await self._http.post(self.events_url, content=body, headers=headers)

    async def replay(self, sent: SentRequest) -> httpx.Response:
        """Send a request again, the same bytes, timestamp and signature (as an attacker
        who captured it, or a second delivery, would)."""
        return await self._http.post(self.events_url, content=sent.body, headers=sent.headers)

    def sign(self, body: bytes, timestamp: str) -> str:
        signature = self._verifier.generate_signature(timestamp=timestamp, body=body.decode())
        if signature is None:  # slack_sdk returns None only without a secret
            raise ValueError("no signing secret")
        return signature

    @staticmethod
    def encode(payload: Mapping[str, Any]) -> bytes:
        """`payload=<json>`, form-encoded, the body Slack posts for interactions."""
        return urlencode({"payload": json.dumps(payload, separators=(",", ":"))}).encode()

    async def _send(self, payload: Mapping[str, Any]) -> httpx.Response:
        return await self.send_raw(self.encode(payload))

    def _message_action(
        self, user_id: str, message: StoredMessage, entry: dict[str, Any]
    ) -> dict[str, Any]:
        return {
            **envelope("block_actions", self._identity, self._user(user_id)),
            "container": message_container(message),
            "trigger_id": self.slack.issue_trigger(user_id),
            "channel": {"id": message.channel, "name": self._channel_name(message.channel)},
            "message": message.to_api(),
            "state": {"values": {}},
            "response_url": self.slack.issue_response_url(
                message.channel, message.ts, user_id=user_id
            ),
            "actions": [entry],
        }

    def _user(self, user_id: str) -> dict[str, Any]:
        return user_object(self._person(user_id), self._team_id)

    def _person(self, user_id: str) -> SlackUser:
        user = self.slack.user(user_id)
        if user is None:
            raise AssertionError(f"no user {user_id} in the local Slack (add_user it first)")
        return user

    def _channel_name(self, channel_id: str) -> str:
        # Slack names every DM "directmessage" in interaction payloads.
        return (
            "directmessage" if channel_id.startswith("D") else self.slack.channel_name(channel_id)
        )

    def _message(self, channel: str, ts: str) -> StoredMessage:
        message = self.slack.find_message(channel, ts)
        if message is None:
            raise AssertionError(f"no message {ts} in {channel}")
        return message

    def _open_view(self, view_id: str) -> StoredView:
        view = self.slack.view(view_id)
        if view.closed:
            raise AssertionError(f"view {view_id} is closed; nobody can interact with it")
        return view

    def _ts(self) -> str:
        return f"{self._clock():.6f}"


def _ack_body(response: httpx.Response) -> dict[str, Any] | None:
    if not response.content.strip():
        return None
    body = response.json()
    if not isinstance(body, dict):
        raise AssertionError(f"view_submission ack is not a JSON object: {response.text!r}")
    return body


def _plain(values: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, Any]:
    return {b: {a: dict(v) for a, v in by_action.items()} for b, by_action in values.items()}
