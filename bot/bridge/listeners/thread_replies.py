"""A message in a channel, private channel or DM the bot is in: maybe a reply answering a
question in its thread (Bolt acks an event before its listener runs; the service decides
whether it is one, and offers to send the answer it stands for), or the edit or deletion
of a reply whose answer was sent; and the *Send* click on that offer, which is what
decides."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import Click, person, services_of
from bot.bridge.listeners.approvals import decide_by_value
from bot.services.sent_replies import reply_change
from bot.services.thread_replies import thread_reply
from bot.slack.ids import ActionId


def register(app: AsyncApp) -> None:
    @app.event("message")
    async def message(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        event_id = str(body["event_id"]) if body.get("event_id") else None
        services = services_of(context)
        reply = thread_reply(event, event_id)
        if reply is None:
            change = reply_change(event, event_id)  # a sent reply edited or deleted?
            if change is not None:
                await services.sent_replies.changed(change)
            return
        actor = person(services, reply.user_id, None, reply.team_id)
        await services.thread_replies.replied(reply, actor)

    @app.action(ActionId.SEND_REPLY)
    async def send_reply(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await decide_by_value(ack, click, action, context, lambda s: s.thread_replies.send)
