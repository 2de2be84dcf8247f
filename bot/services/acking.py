"""Slack's three seconds: one deadline for everything a request does before its ack.

Slack shows a click as failed when it hears nothing within 3 s, so a decision
applied after that would be one the person was told did not happen. Everything
between a request's arrival and its ack (policy and group look-ups, store reads,
the outbox write) therefore runs under one deadline, `ACK_BUDGET_SECONDS` after
the request arrived, which leaves the ack time to travel. Past it nothing is
recorded (the store rolls back a transaction that ends late, see
`StoreBase._transaction`), the ack goes anyway, and the person is told, only
them, that nothing was sent: which part was slow decides what they are told.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy.exc import SQLAlchemyError

from bot.outcomes import DecisionOutcome, Notice, OutcomeKind
from bot.store.errors import StoreFileError, TooLate

log = logging.getLogger(__name__)

T = TypeVar("T")

ACK_BUDGET_SECONDS = 2.5
"""Of Slack's 3 s, counted from the request's arrival."""

NOT_SAVED = DecisionOutcome(OutcomeKind.REJECTED, Notice.NOT_SAVED)
"""Nothing was recorded: the store failed, or was too slow for the ack."""

Send = Callable[[], Awaitable[None]]


async def _nothing() -> None:
    return None


class AckWindow:
    """A request's ack and the deadline (event-loop time) by which it must be sent.

    Calling it sends the ack, once; later calls do nothing.
    """

    def __init__(self, send: Send, deadline: float) -> None:
        self._send = send
        self.deadline = deadline
        self.sent = False

    @classmethod
    def from_now(cls, send: Send = _nothing) -> AckWindow:
        """A window opening now: for callers that did not see the request arrive."""
        return cls(send, asyncio.get_running_loop().time() + ACK_BUDGET_SECONDS)

    def left(self) -> float:
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    async def __call__(self) -> None:
        if not self.sent:
            self.sent = True
            await self._send()


Acknowledge = AckWindow | Send


def window_of(acknowledge: Acknowledge | None) -> AckWindow:
    if isinstance(acknowledge, AckWindow):
        return acknowledge
    return AckWindow.from_now(acknowledge or _nothing)


class Stage:
    """Which part of the work before the ack is running: asking Slack, or the store."""

    def __init__(self) -> None:
        self.asking_slack = False

    @contextmanager
    def slack(self) -> Iterator[None]:
        """Mark a look-up; left marked when the deadline cuts it short, so the person
        hears that Slack was slow, not the store."""
        self.asking_slack = True
        yield
        self.asking_slack = False


async def before_ack(
    window: AckWindow, work: Callable[[Stage], Awaitable[T]]
) -> T | DecisionOutcome:
    """Run `work` under the window's deadline, then ack whatever came of it.

    A deadline passed or a store that fails becomes an outcome saying nothing was
    sent; the ack is sent either way (Slack must hear back, late or not).
    """
    stage = Stage()
    try:
        async with asyncio.timeout_at(window.deadline):
            return await work(stage)
    except (TimeoutError, TooLate):
        slow = "Slack" if stage.asking_slack else "the store"
        log.warning("nothing recorded: %s did not answer before Slack's ack deadline", slow)
        return DecisionOutcome(
            OutcomeKind.REJECTED, Notice.SLACK_SLOW if stage.asking_slack else Notice.NOT_SAVED
        )
    except (StoreFileError, SQLAlchemyError, OSError) as exc:
        log.warning("nothing recorded: the store failed before the ack: %s", exc)
        return NOT_SAVED
    except Exception:
        log.exception("nothing recorded: handling the click failed before the ack")
        return NOT_SAVED
    finally:
        await window()
