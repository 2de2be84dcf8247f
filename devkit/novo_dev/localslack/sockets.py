"""Slack's side of Socket Mode: envelopes sent down an open socket, and their acks.

In Socket Mode Slack sends the app each request as one JSON frame,
`{"envelope_id", "type", "payload", "accepts_response_payload"}`, and the app
acknowledges it by sending back `{"envelope_id"}` (with a `payload` when it
answers in the ack). Slack counts a request unanswered after 3 seconds, so
what tests need is the ack itself, and how long it took: `deliver` sends one
envelope and waits for the frame that acknowledges it.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMessage, WSMsgType, web


@dataclass(frozen=True)
class SocketAck:
    """The app's acknowledgement of one envelope, and how long it took to come."""

    envelope_id: str
    payload: dict[str, Any] | None
    seconds: float


class Envelopes:
    """Envelopes sent and not yet acknowledged, by envelope id."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def deliver(
        self,
        socket: web.WebSocketResponse,
        kind: str,
        payload: dict[str, Any],
        *,
        within: float,
    ) -> SocketAck:
        """Send `payload` as a `kind` envelope; AssertionError if no ack within `within` s."""
        envelope_id = secrets.token_hex(8)
        acked: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[envelope_id] = acked
        loop = asyncio.get_running_loop()
        started = loop.time()
        frame = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            # an app may answer a command or an interaction in its ack; an event, never
            "accepts_response_payload": kind != "events_api",
        }
        try:
            await socket.send_str(json.dumps(frame))
            async with asyncio.timeout(within):
                ack = await acked
        except TimeoutError:
            raise AssertionError(f"no ack of the {kind} envelope within {within}s") from None
        finally:
            self._waiting.pop(envelope_id, None)
        answer = ack.get("payload")
        return SocketAck(
            envelope_id, answer if isinstance(answer, dict) else None, loop.time() - started
        )

    def received(self, message: WSMessage) -> None:
        """A frame from the app: an ack settles the envelope it names; anything else is ignored."""
        if message.type != WSMsgType.TEXT:
            return
        try:
            frame = json.loads(message.data)
        except ValueError:
            return
        if not isinstance(frame, dict):
            return
        waiting = self._waiting.get(str(frame.get("envelope_id")))
        if waiting is not None and not waiting.done():
            waiting.set_result(frame)
