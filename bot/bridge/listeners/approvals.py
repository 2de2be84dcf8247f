"""Approve, Deny, Approve-with-note: clicks and the reason modal's submission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import Click, acknowledging, services_of
from bot.bridge.listeners.snoozes import remind
from bot.bridge.wiring import Services
from bot.domain import SlackActor
from bot.outcomes import DecisionOutcome
from bot.services.acking import AckWindow
from bot.services.allowances import scope_of
from bot.services.decision_request import Means
from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId, OverflowValue
from bot.slack.render.approval import interaction_id_from_block_id
from bot.slack.render.modals import ReasonIntent
from bot.slack.render.outcomes import outcome_text

ByValue = Callable[[str, SlackActor, AckWindow], Awaitable[tuple[str, DecisionOutcome]]]
"""A service deciding what a button's value names: (the interaction, the outcome)."""


async def tell(
    services: Services, click: Click, interaction_id: str, outcome: DecisionOutcome
) -> None:
    """How the click went, to the person who clicked, where they clicked."""
    await services.presenter.tell(
        click.actor.user_id, interaction_id, outcome, click.channel, click.reply
    )


async def decide_by_value(
    ack: AsyncAck,
    click: Click,
    action: dict[str, Any],
    context: AsyncBoltContext,
    decide: Callable[[Services], ByValue],
) -> None:
    """A button whose value names what it decides: the service decides (and acks once it
    is stored), then the person is told how it went."""
    services = services_of(context)
    interaction_id, outcome = await decide(services)(
        action["value"], click.actor, acknowledging(ack, context)
    )
    await tell(services, click, interaction_id, outcome)


def reason_of(view: dict[str, Any]) -> str | None:
    value = view["state"]["values"].get(REASON_BLOCK_ID, {}).get(ActionId.REASON_INPUT, {})
    text = value.get("value")
    return str(text) if text else None


async def open_reason(
    services: Services, click: Click, interaction_id: str, kind: ReasonIntent
) -> None:
    """Open the deny or note modal; or say why this person may not decide it."""
    assert click.trigger_id is not None
    refused = await services.forms.open_reason_modal(
        click.trigger_id, interaction_id, kind, click.actor
    )
    if refused:
        await services.presenter.refuse(
            click.actor.user_id, interaction_id, refused, click.channel, click.reply
        )


def register(app: AsyncApp) -> None:
    @app.action(ActionId.APPROVE)
    async def approve(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        outcome = await services.approvals.decide(
            action["value"], click.actor, approve=True, acknowledge=acknowledging(ack, context)
        )
        await tell(services, click, action["value"], outcome)

    @app.action(ActionId.DENY)
    async def deny(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        await open_reason(services_of(context), click, action["value"], "deny")

    @app.action(ActionId.APPROVAL_OVERFLOW)
    async def overflow(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        interaction_id = interaction_id_from_block_id(action.get("block_id", ""))
        chosen = (action.get("selected_option") or {}).get("value")
        scope = scope_of(chosen)
        if interaction_id and scope is not None:  # approves: acked once it is recorded
            outcome = await services.allowances.grant(
                interaction_id, click.actor, scope, acknowledge=acknowledging(ack, context)
            )
            await tell(services, click, interaction_id, outcome)
            return
        await ack()
        if interaction_id and chosen == OverflowValue.APPROVE_WITH_NOTE:
            await open_reason(services, click, interaction_id, "approve_note")
        elif interaction_id and chosen == OverflowValue.WITHDRAW_APPROVAL:
            outcome = await services.approvals.withdraw(interaction_id, click.actor)
            await tell(services, click, interaction_id, outcome)
        elif interaction_id and services.snoozes.is_choice(chosen):
            await remind(services, click, interaction_id, str(chosen))

    @app.action(ActionId.REVOKE_ALLOWANCE)
    async def revoke(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        outcome = await services.allowances.revoke(str(action.get("value", "")), click.actor)
        if click.channel is not None:
            await services.presenter.say(
                click.actor.user_id, outcome_text(outcome), click.channel, click.reply
            )
        else:  # from App Home: the tab shows it
            await services.home.opened(click.actor.user_id)

    async def submit_reason(
        ack: AsyncAck, click: Click, view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        services = services_of(context)
        interaction_id = view["private_metadata"]
        outcome = await services.approvals.decide(
            interaction_id,
            click.actor,
            approve=view["callback_id"] == CallbackId.APPROVE_NOTE_MODAL,
            note=reason_of(view),
            means=Means.MODAL,
            acknowledge=acknowledging(ack, context),
        )
        await services.presenter.tell(click.actor.user_id, interaction_id, outcome)

    app.view(CallbackId.DENY_MODAL)(submit_reason)
    app.view(CallbackId.APPROVE_NOTE_MODAL)(submit_reason)
