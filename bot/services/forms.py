"""Opening modals: the reason dialog, the full-input viewer and the answer form.

A stale message can still be clicked; an interaction that is no longer
waiting gets a clear notice instead of a form that would fail on submit.

When many people click the same form's button at once, they share reads of
the interaction: reading a large one (a form of thousands of options) takes
tens of milliseconds, one read after another, and each click's trigger_id
expires 3 s after the click. A click takes the result of a read under way or
finished less than ``READ_REUSE_SECONDS`` ago. That is no staler than what
the bridge knows anyway (Novo is polled every few seconds), and a form opened
on a record that just changed still meets the full check when it is submitted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError

from bot.domain import SlackActor
from bot.novo.models import Interaction
from bot.outcomes import Refusal
from bot.services.deciders import DeciderGate
from bot.services.deciding import not_decidable
from bot.slack.gateway import VIEW_REFUSED_ERRORS, SlackGateway
from bot.slack.render.input_viewer import input_viewer_page_count, render_input_viewer
from bot.slack.render.modals import ReasonIntent, render_reason_modal
from bot.slack.render.outcomes import not_waiting_modal, too_large_modal, viewer_unknown_modal
from bot.slack.render.question_modal import render_question_modal
from bot.store import Store, TrackedInteraction

log = logging.getLogger(__name__)

READ_REUSE_SECONDS = 1.0


class FormService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        gate: DeciderGate,
        *,
        read_reuse_seconds: float = READ_REUSE_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._slack = slack
        self._gate = gate
        self._reuse = read_reuse_seconds
        self._monotonic = monotonic
        self._reads: dict[str, asyncio.Future[TrackedInteraction | None]] = {}
        self._recent: dict[str, tuple[float, TrackedInteraction | None]] = {}

    async def _read(self, interaction_id: str) -> TrackedInteraction | None:
        """``store.get``, shared by callers asking while it runs or just after it."""
        now = self._monotonic()
        self._recent = {k: v for k, v in self._recent.items() if now - v[0] < self._reuse}
        if interaction_id in self._recent:
            return self._recent[interaction_id][1]
        pending = self._reads.get(interaction_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[TrackedInteraction | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._reads[interaction_id] = future
        try:
            tracked = await self._store.get(interaction_id)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # marks it retrieved when nobody else was waiting
            raise
        finally:
            del self._reads[interaction_id]
        future.set_result(tracked)
        self._recent[interaction_id] = (self._monotonic(), tracked)
        return tracked

    async def _waiting(
        self, interaction_id: str
    ) -> tuple[TrackedInteraction | None, dict[str, Any] | None]:
        """The tracked interaction if it still waits, else a notice view saying why not."""
        tracked = await self._read(interaction_id)
        ended = not_decidable(tracked)
        if ended is not None:
            return None, not_waiting_modal(ended.fact)
        return tracked, None

    async def open_reason_modal(
        self, trigger_id: str, interaction_id: str, intent: ReasonIntent, actor: SlackActor
    ) -> Refusal | None:
        """Open the reason form; or, for someone who may not decide, why not (nothing opens)."""
        tracked, notice = await self._waiting(interaction_id)
        if tracked is not None and (refused := await self._gate.refusal(tracked.snapshot, actor)):
            return refused
        view = notice if tracked is None else render_reason_modal(tracked.snapshot, intent)
        assert view is not None
        await self._open(trigger_id, view)
        return None

    async def open_answer_modal(
        self, trigger_id: str, interaction_id: str, actor: SlackActor
    ) -> Refusal | None:
        """Open the answer form; or, for someone who may not decide, why not (nothing opens)."""
        tracked, notice = await self._waiting(interaction_id)
        if tracked is not None and (refused := await self._gate.refusal(tracked.snapshot, actor)):
            return refused
        view = notice if tracked is None else render_question_modal(tracked.snapshot, 0)
        assert view is not None
        await self._open(trigger_id, view)
        return None

    async def _open(self, trigger_id: str, view: dict[str, Any]) -> None:
        """Open `view`; one Slack refuses as too large becomes a notice saying so
        (the same view would be refused on every click)."""
        try:
            await self._slack.open_view(trigger_id, view)
        except SlackApiError as exc:
            error = exc.response.get("error")
            if error not in VIEW_REFUSED_ERRORS:
                raise
            log.warning("Slack refused a %s view (%s); opening a notice", view.get("type"), error)
            await self._slack.open_view(trigger_id, too_large_modal())

    async def input_viewer(
        self, interaction_id: str, page: int, actor: SlackActor
    ) -> dict[str, Any]:
        """The viewer shows the input even after the decision: it is a record, not a form."""
        tracked = await self._read(interaction_id)
        if tracked is None:
            return viewer_unknown_modal()
        shown = await self._revealed(tracked, actor)
        last = input_viewer_page_count(shown) - 1
        revealed = shown is not tracked.snapshot
        return render_input_viewer(shown, max(0, min(page, last)), revealed=revealed)

    async def _revealed(self, tracked: TrackedInteraction, actor: SlackActor) -> Interaction:
        """The full values for a person the rule allows to decide, when it says
        `reveal: deciders` (this modal is theirs alone, never channel history);
        the masked record for everyone else."""
        if tracked.record is tracked.snapshot:
            return tracked.snapshot
        if self._gate.route(tracked.record).redact.reveal != "deciders":
            return tracked.snapshot
        if not await self._gate.may_decide(tracked.record, actor):
            return tracked.snapshot
        log.info("showed %s the full values of %s", actor.user_id, tracked.id)
        return tracked.record

    async def open_input_viewer(
        self, trigger_id: str, interaction_id: str, actor: SlackActor
    ) -> None:
        await self._open(trigger_id, await self.input_viewer(interaction_id, 0, actor))

    async def show_input_page(
        self, view_id: str, interaction_id: str, page: int, actor: SlackActor
    ) -> None:
        await self._slack.update_view(view_id, await self.input_viewer(interaction_id, page, actor))
