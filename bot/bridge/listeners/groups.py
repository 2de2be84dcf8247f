"""Approve all / Deny all on a step group's message, and Deny all's reason modal."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import Click, acknowledging, services_of
from bot.bridge.listeners.approvals import reason_of
from bot.outcomes import DecisionOutcome, GroupOutcome
from bot.slack.ids import ActionId, CallbackId
from bot.slack.render.outcomes import fact_text, group_reply_text


def must_look(result: GroupOutcome | DecisionOutcome) -> bool:
    """Whether the clicker is told: nothing went, or items arrived they did not see
    (the group's message shows the rest)."""
    return isinstance(result, DecisionOutcome) or not result.decided or bool(result.arrived_later)


def register(app: AsyncApp) -> None:
    @app.action(ActionId.APPROVE_ALL)
    async def approve_all(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        result = await services.groups.decide_all(
            str(action["value"]), click.actor, approve=True, acknowledge=acknowledging(ack, context)
        )
        if must_look(result):
            await services.presenter.say(
                click.actor.user_id, group_reply_text(result), click.channel, click.reply
            )

    @app.action(ActionId.DENY_ALL)
    async def deny_all(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        assert click.trigger_id is not None
        refused = await services.groups.open_deny_all(
            click.trigger_id, str(action["value"]), click.actor
        )
        if refused:
            await services.presenter.say(
                click.actor.user_id, fact_text(refused), click.channel, click.reply
            )

    @app.view(CallbackId.DENY_ALL_MODAL)
    async def submit_deny_all(
        ack: AsyncAck, click: Click, view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        result = await services.groups.decide_all(
            str(view["private_metadata"]),
            click.actor,
            approve=False,
            note=reason_of(view),
            acknowledge=acknowledging(ack, context),
        )
        if must_look(result):
            await services.presenter.say(click.actor.user_id, group_reply_text(result), None)
