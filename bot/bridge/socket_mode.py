"""Socket Mode with a connect that never holds up start-up or shutdown.

slack_sdk's client retries a failed connect forever, inside the call that
starts it: awaited from start-up, an unreachable Slack kept the process from
ever starting or stopping. Here the connect runs as a task of its own: start-up
waits for it a bounded time and goes on (the Web API side works meanwhile and
the task keeps trying), and `close()` cancels it. The app token has already
been checked, so what is retried is only Slack being out of reach.
"""

from __future__ import annotations

import asyncio
import logging

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

log = logging.getLogger(__name__)

_sdk_log = logging.getLogger("bot.bridge.socket_mode.sdk")


class _NoTracebacks(logging.Filter):
    """slack_sdk logs each failed reconnect with a traceback; one line says enough unless -v."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not _sdk_log.isEnabledFor(logging.DEBUG):
            record.exc_info = None
            record.exc_text = None
        return True


_sdk_log.addFilter(_NoTracebacks())


class SocketConnection:
    """One Socket Mode connection for the app, opened with the URL the token check got."""

    def __init__(self, app: AsyncApp, app_token: str, wss_url: str | None = None) -> None:
        self._handler = AsyncSocketModeHandler(app, app_token, logger=_sdk_log)
        # reuse the URL apps.connections.open just issued instead of asking again
        self._handler.client.wss_uri = wss_url
        self._connecting: asyncio.Task[None] | None = None

    async def connect(self, wait: float) -> bool:
        """Start connecting; True if connected within `wait` seconds (it goes on trying if not)."""
        connect = self._handler.client.connect()  # type: ignore[no-untyped-call]
        self._connecting = asyncio.create_task(connect, name="socket-mode")
        done, _ = await asyncio.wait({self._connecting}, timeout=wait)
        if done:
            self._connecting.result()
            log.info("connected to Slack in Socket Mode")
            return True
        log.warning("Socket Mode is not connected after %.0fs; still trying", wait)
        return False

    async def connected(self) -> bool:
        """Whether the WebSocket is open and answering pings now (what `/readyz` reports)."""
        return bool(await self._handler.client.is_connected())

    async def close(self, within: float) -> None:
        """Stop connecting or close the connection; gives up waiting after `within` seconds."""
        connecting, self._connecting = self._connecting, None
        if connecting is not None and not connecting.done():
            connecting.cancel()
            await asyncio.wait({connecting}, timeout=within)
        try:
            async with asyncio.timeout(within):
                await self._handler.close_async()  # type: ignore[no-untyped-call]
        except TimeoutError:
            log.warning("Socket Mode connection did not close within %.0fs", within)
