"""A message in a channel, private channel or DM the bot is in: maybe a reply answering a
question in its thread (Bolt acks an event before its listener runs; the service decides
whether it is one, and offers to send the answer it stands for); and the *Send* click
on that offer, which is what decides."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import acknowledging, actor_of, person, services_of
from bot.bridge.listeners.approvals import channel_of
from bot.services.thread_replies import thread_reply
from bot.slack.click_reply import reply_of
from bot.slack.ids import ActionId


def register(app: AsyncApp) -> None:
    @app.event("message")
    async def message(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        event_id = body.get("event_id")
        reply = thread_reply(event, str(event_id) if event_id else None)
        if reply is None:
            return
        services = services_of(context)
        actor = person(services, reply.user_id, None, reply.team_id)
        await services.thread_replies.replied(reply, actor)

    @app.action(ActionId.SEND_REPLY)
    async def send_reply(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        actor = actor_of(services, body)
        interaction_id, outcome = await services.thread_replies.send(
            action["value"], actor, acknowledging(ack, context)
        )
        await services.presenter.tell(
            actor.user_id, interaction_id, outcome, channel_of(body), reply_of(body)
        )
