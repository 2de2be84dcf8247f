"""The "View full input" modal and its paging buttons."""

from __future__ import annotations

import json
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import Click, services_of
from bot.slack.ids import ActionId


def register(app: AsyncApp) -> None:
    @app.action(ActionId.VIEW_INPUT)
    async def open_viewer(
        ack: AsyncAck, click: Click, action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        assert click.trigger_id is not None
        await services_of(context).forms.open_input_viewer(
            click.trigger_id, action["value"], click.actor
        )

    async def turn_page(
        ack: AsyncAck,
        body: dict[str, Any],
        click: Click,
        action: dict[str, Any],
        context: AsyncBoltContext,
    ) -> None:
        await ack()
        view = body["view"]
        metadata = json.loads(view["private_metadata"])
        await services_of(context).forms.show_input_page(
            view["id"], str(metadata["id"]), int(action["value"]), click.actor
        )

    app.action(ActionId.INPUT_PAGE_PREV)(turn_page)
    app.action(ActionId.INPUT_PAGE_NEXT)(turn_page)
