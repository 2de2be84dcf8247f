"""Wires the Bolt app: services into every listener's context, listeners, errors.

Only wiring lives here; listeners are in `listeners/`, logic in `services/`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk.web.async_client import AsyncWebClient

from bot.bridge.inflight import InFlight
from bot.bridge.listeners import ARRIVED_KEY, CLICK_KEY, SERVICES_KEY, click_of, register_all
from bot.bridge.origin import origin_check
from bot.bridge.presenter import failure_text, requester
from bot.bridge.priority import ClicksFirstApp
from bot.bridge.replays import once_per_request
from bot.bridge.wiring import Services
from bot.services.shown import note_shown
from bot.slack.credentials import SlackIdentity

log = logging.getLogger(__name__)


class _NoTokenNotice(logging.Filter):
    """Bolt also reads SLACK_BOT_TOKEN itself and warns that the client's token wins: it is
    the same token, and the warning would be noise on every start."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != warning_client_prioritized_and_token_skipped()


logging.getLogger("slack_bolt.AsyncApp").addFilter(_NoTokenNotice())


def build_bolt_app(
    client: AsyncWebClient,
    signing_secret: str | None,
    services: Services,
    *,
    identity: SlackIdentity,
    in_flight: InFlight,
) -> AsyncApp:
    """The app: payloads from outside `identity`'s workspace refused, runs in `in_flight`,
    clicks served before heavy requests (`priority`). `signing_secret` None: Socket Mode,
    whose requests come down the connection the app token opened, with nothing to verify
    (and Bolt must not read one from the environment)."""
    app = ClicksFirstApp(
        services.heavy,
        client=client,
        signing_secret=signing_secret or "",
        request_verification_enabled=signing_secret is not None,
        process_before_response=False,
        raise_error_for_unhandled_request=False,
    )
    in_flight.install(app)

    @app.middleware
    async def stamp_arrival(context: AsyncBoltContext, next: Callable[[], Awaitable[None]]) -> None:
        """First of all: Slack's 3 s for the ack count from here."""
        context[ARRIVED_KEY] = asyncio.get_running_loop().time()
        await next()

    app.middleware(origin_check(identity))
    app.middleware(once_per_request(services.store, services.clock))

    @app.middleware
    async def provide_services(
        body: dict[str, Any], context: AsyncBoltContext, next: Callable[[], Awaitable[None]]
    ) -> None:
        context[SERVICES_KEY] = services
        context[CLICK_KEY] = click_of(services, body)  # the payload, parsed once
        await next()

    @app.middleware
    async def keep_what_was_shown(
        body: dict[str, Any], next: Callable[[], Awaitable[None]]
    ) -> None:
        """The message, form or reply the request carries, for the decision's audit event."""
        note_shown(body)
        await next()

    @app.error
    async def report_error(
        error: Exception, body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        """Logged with its traceback, and the person who clicked or typed is told that
        nothing was sent: a failure is never a silent click."""
        kind = body.get("type") if isinstance(body, dict) else None
        log.error("listener failed on %s payload: %r", kind, error, exc_info=error)
        user, channel = requester(body)
        if user is not None:
            await services.presenter.say(user, failure_text(error), channel)

    register_all(app)
    return app
