"""Agent questions: Answer, action buttons, quick options, Dismiss, Remind me, the modal,
type-ahead."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import Click, acknowledging, arrived, services_of
from bot.bridge.listeners.approvals import decide_by_value, tell
from bot.bridge.listeners.snoozes import remind
from bot.services.acking import ACK_BUDGET_SECONDS
from bot.slack.ids import ActionId, CallbackId, OverflowValue
from bot.slack.render.question import interaction_id_from_block_id
from bot.slack.render.question_encoding import action_id_pattern


async def _dismiss(
    ack: AsyncAck, click: Click, context: AsyncBoltContext, interaction_id: str
) -> None:
    """Dismiss, from the button or from the menu of messages posted before it."""
    services = services_of(context)
    acknowledge = acknowledging(ack, context)
    outcome = await services.questions.dismiss(interaction_id, click.actor, acknowledge)
    await tell(services, click, interaction_id, outcome)


def register(app: AsyncApp) -> None:
    @app.action(ActionId.ANSWER)
    async def open_form(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        assert click.trigger_id is not None
        refused = await services.forms.open_answer_modal(
            click.trigger_id, action["value"], click.actor
        )
        if refused:
            await services.presenter.refuse(
                click.actor.user_id, action["value"], refused, click.channel, click.reply
            )

    @app.action(action_id_pattern(ActionId.QUESTION_ACTION))
    async def choose_action(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await decide_by_value(ack, click, action, context, lambda s: s.questions.choose_action)

    @app.action(action_id_pattern(ActionId.QUICK_OPTION))
    async def choose_option(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await decide_by_value(
            ack, click, action, context, lambda s: s.questions.choose_quick_option
        )

    @app.action(ActionId.QUESTION_DISMISS)
    async def dismiss(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        interaction_id = str(action.get("value") or "")
        if not interaction_id:
            await ack()
            return
        await _dismiss(ack, click, context, interaction_id)

    @app.action(ActionId.QUESTION_OVERFLOW)  # Dismiss in messages posted before the button
    async def overflow(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        chosen = (action.get("selected_option") or {}).get("value")
        interaction_id = interaction_id_from_block_id(action.get("block_id", ""))
        if chosen != OverflowValue.DISMISS or not interaction_id:
            await ack()
            return
        await _dismiss(ack, click, context, interaction_id)

    @app.action(ActionId.QUESTION_REMIND)
    async def remind_me(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        chosen = (action.get("selected_option") or {}).get("value")
        interaction_id = interaction_id_from_block_id(action.get("block_id", ""))
        if interaction_id and services_of(context).snoozes.is_choice(chosen):
            await remind(services_of(context), click, interaction_id, str(chosen))

    @app.view(CallbackId.QUESTION_MODAL)
    async def submit(
        ack: AsyncAck, click: Click, view: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        started = arrived(context)  # Slack's 3 s count from the click, not from a lookup
        services = services_of(context)
        check = await services.questions.check_submission(
            view["id"],
            view["private_metadata"],
            view["state"]["values"],
            deadline=started + ACK_BUDGET_SECONDS,
        )
        if check.errors:
            await ack(response_action="errors", errors=check.errors)
            return
        if check.responses is None:
            await ack(response_action="update", view=check.view)
            return

        async def acknowledge(result: dict[str, Any]) -> None:
            await ack(response_action="update", view=result)

        outcome = await services.questions.submit(
            view["id"],
            check.interaction_id,
            check.responses,
            click.actor,
            acknowledge,
            started=started,
        )
        await services.presenter.tell(click.actor.user_id, check.interaction_id, outcome)

    @app.view_closed(CallbackId.QUESTION_MODAL)
    async def closed(ack: AsyncAck, view: dict[str, Any], context: AsyncBoltContext) -> None:
        await ack()
        await services_of(context).questions.form_closed(str(view.get("id", "")))

    @app.options(action_id_pattern(ActionId.ANSWER_INPUT))
    async def type_ahead(
        ack: AsyncAck, body: dict[str, Any], click: Click, context: AsyncBoltContext
    ) -> None:
        options = await services_of(context).type_ahead.options(
            body["view"]["private_metadata"],
            body["action_id"],
            body["block_id"],
            str(body.get("value", "")),
            click.actor,
        )
        await ack(options=options)
