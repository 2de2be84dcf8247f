"""The "View full input" modal and its paging buttons."""

from __future__ import annotations

import json
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext

from bot.bridge.listeners import actor_of, services_of
from bot.slack.ids import ActionId


def register(app: AsyncApp) -> None:
    @app.action(ActionId.VIEW_INPUT)
    async def open_viewer(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        services = services_of(context)
        await services.forms.open_input_viewer(
            body["trigger_id"], action["value"], actor_of(services, body)
        )

    async def turn_page(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        view = body["view"]
        metadata = json.loads(view["private_metadata"])
        services = services_of(context)
        await services.forms.show_input_page(
            view["id"], str(metadata["id"]), int(action["value"]), actor_of(services, body)
        )

    app.action(ActionId.INPUT_PAGE_PREV)(turn_page)
    app.action(ActionId.INPUT_PAGE_NEXT)(turn_page)
