"""Wires the Bolt app: services into every listener's context, listeners, errors.

Only wiring lives here; listeners are in `listeners/`, logic in `services/`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.services.container import Services
from bot.slack.listeners import SERVICES_KEY, register_all

log = logging.getLogger(__name__)


def build_bolt_app(client: AsyncWebClient, signing_secret: str, services: Services) -> AsyncApp:
    app = AsyncApp(
        client=client,
        signing_secret=signing_secret,
        process_before_response=False,
        raise_error_for_unhandled_request=False,
    )

    @app.middleware
    async def provide_services(
        context: AsyncBoltContext, next: Callable[[], Awaitable[None]]
    ) -> None:
        context[SERVICES_KEY] = services
        await next()

    @app.error
    async def report_error(error: Exception, body: dict[str, Any]) -> None:
        kind = body.get("type") if isinstance(body, dict) else None
        log.error("listener failed on %s payload: %r", kind, error, exc_info=error)

    register_all(app)
    return app
