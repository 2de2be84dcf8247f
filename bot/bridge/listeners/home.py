"""Someone opened the app's Home tab: publish what waits on them.

Bolt acks an event before its listener runs, so the publish never holds
Slack's 3 seconds. The same event fires for the app's Messages tab, which
has nothing to publish.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from bot.bridge.listeners import services_of

HOME_TAB = "home"


def register(app: AsyncApp) -> None:
    @app.event("app_home_opened")
    async def home_opened(event: dict[str, Any], context: AsyncBoltContext) -> None:
        user_id = event.get("user")
        if event.get("tab") != HOME_TAB or not isinstance(user_id, str) or not user_id:
            return
        await services_of(context).home.opened(user_id)
