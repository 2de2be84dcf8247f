"""Approve, Deny, Approve-with-note: clicks and the reason modal's submission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import acknowledging, actor_of, services_of
from bot.bridge.listeners.snoozes import remind
from bot.bridge.wiring import Services
from bot.domain import AllowanceScope, SlackActor
from bot.outcomes import DecisionOutcome
from bot.services.acking import AckWindow
from bot.services.allowances import scope_of
from bot.slack.click_reply import reply_of
from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId, OverflowValue
from bot.slack.render.approval import interaction_id_from_block_id
from bot.slack.render.outcomes import outcome_text


def channel_of(body: dict[str, Any]) -> str | None:
    channel = body.get("channel") or {}
    return channel.get("id") or (body.get("container") or {}).get("channel_id")


ByValue = Callable[[str, SlackActor, AckWindow], Awaitable[tuple[str, DecisionOutcome]]]
"""A service deciding what a button's value names: (the interaction, the outcome)."""


async def decide_by_value(
    ack: AsyncAck,
    body: dict[str, Any],
    action: dict[str, Any],
    context: AsyncBoltContext,
    decide: Callable[[Services], ByValue],
) -> None:
    """A button whose value names what it decides: the service decides (and acks once it
    is stored), then the person is told how it went."""
    services = services_of(context)
    actor = actor_of(services, body)
    interaction_id, outcome = await decide(services)(
        action["value"], actor, acknowledging(ack, context)
    )
    await services.presenter.tell(
        actor.user_id, interaction_id, outcome, channel_of(body), reply_of(body)
    )


def reason_of(view: dict[str, Any]) -> str | None:
    value = view["state"]["values"].get(REASON_BLOCK_ID, {}).get(ActionId.REASON_INPUT, {})
    text = value.get("value")
    return str(text) if text else None


async def allow(
    ack: AsyncAck,
    body: dict[str, Any],
    context: AsyncBoltContext,
    interaction_id: str,
    scope: AllowanceScope,
) -> None:
    services = services_of(context)
    actor = actor_of(services, body)
    outcome = await services.allowances.grant(
        interaction_id, actor, scope, acknowledge=acknowledging(ack, context)
    )
    await services.presenter.tell(
        actor.user_id, interaction_id, outcome, channel_of(body), reply_of(body)
    )


def register(app: AsyncApp) -> None:
    @app.action(ActionId.APPROVE)
    async def approve(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        actor = actor_of(services, body)
        outcome = await services.approvals.decide(
            action["value"], actor, approve=True, acknowledge=acknowledging(ack, context)
        )
        await services.presenter.tell(
            actor.user_id, action["value"], outcome, channel_of(body), reply_of(body)
        )

    @app.action(ActionId.DENY)
    async def deny(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        actor = actor_of(services, body)
        refused = await services.forms.open_reason_modal(
            body["trigger_id"], action["value"], "deny", actor
        )
        if refused:
            await services.presenter.refuse(
                actor.user_id, action["value"], refused, channel_of(body), reply_of(body)
            )

    @app.action(ActionId.APPROVAL_OVERFLOW)
    async def overflow(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        interaction_id = interaction_id_from_block_id(action.get("block_id", ""))
        chosen = (action.get("selected_option") or {}).get("value")
        scope = scope_of(chosen)
        if interaction_id and scope is not None:  # approves: acked once it is recorded
            await allow(ack, body, context, interaction_id, scope)
            return
        await ack()
        if interaction_id and chosen == OverflowValue.APPROVE_WITH_NOTE:
            services = services_of(context)
            actor = actor_of(services, body)
            refused = await services.forms.open_reason_modal(
                body["trigger_id"], interaction_id, "approve_note", actor
            )
            if refused:
                await services.presenter.refuse(
                    actor.user_id, interaction_id, refused, channel_of(body), reply_of(body)
                )
        elif interaction_id and chosen == OverflowValue.WITHDRAW_APPROVAL:
            services = services_of(context)
            actor = actor_of(services, body)
            outcome = await services.approvals.withdraw(interaction_id, actor)
            await services.presenter.tell(
                actor.user_id, interaction_id, outcome, channel_of(body), reply_of(body)
            )
        elif interaction_id and services_of(context).snoozes.is_choice(chosen):
            await remind(services_of(context), body, interaction_id, str(chosen), channel_of(body))

    @app.action(ActionId.REVOKE_ALLOWANCE)
    async def revoke(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        actor = actor_of(services, body)
        outcome = await services.allowances.revoke(str(action.get("value", "")), actor)
        channel = channel_of(body)
        if channel is not None:
            await services.presenter.say(
                actor.user_id, outcome_text(outcome), channel, reply_of(body)
            )
        else:  # from App Home: the tab shows it
            await services.home.opened(actor.user_id)

    async def submit_reason(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        actor = actor_of(services, body)
        interaction_id = view["private_metadata"]
        approve = view["callback_id"] == CallbackId.APPROVE_NOTE_MODAL
        outcome = await services.approvals.decide(
            interaction_id,
            actor,
            approve=approve,
            note=reason_of(view),
            acknowledge=acknowledging(ack, context),
        )
        await services.presenter.tell(actor.user_id, interaction_id, outcome)

    app.view(CallbackId.DENY_MODAL)(submit_reason)
    app.view(CallbackId.APPROVE_NOTE_MODAL)(submit_reason)
