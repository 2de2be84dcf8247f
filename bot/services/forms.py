"""Opening modals: the reason dialog, the full-input viewer and the answer form.

A stale message can still be clicked; an interaction that is no longer
waiting gets a clear notice instead of a form that would fail on submit.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.services.describe import UNKNOWN_TEXT, why_not_waiting
from bot.slack.gateway import SlackGateway
from bot.slack.render.input_viewer import input_viewer_page_count, render_input_viewer
from bot.slack.render.modals import ReasonIntent, render_notice_modal, render_reason_modal
from bot.slack.render.question_modal import render_question_modal
from bot.store import Store, TrackedInteraction

log = logging.getLogger(__name__)

NOT_WAITING_TITLE = "Nothing to answer"


class FormService:
    def __init__(self, store: Store, slack: SlackGateway) -> None:
        self._store = store
        self._slack = slack

    async def _waiting(
        self, interaction_id: str
    ) -> tuple[TrackedInteraction | None, dict[str, Any] | None]:
        """The tracked interaction if it still waits, else a notice view saying why not."""
        tracked = await self._store.get(interaction_id)
        reason = why_not_waiting(tracked)
        if reason is not None:
            return None, render_notice_modal(NOT_WAITING_TITLE, reason)
        return tracked, None

    async def open_reason_modal(
        self, trigger_id: str, interaction_id: str, intent: ReasonIntent
    ) -> None:
        tracked, notice = await self._waiting(interaction_id)
        view = notice if tracked is None else render_reason_modal(tracked.snapshot, intent)
        assert view is not None
        await self._slack.open_view(trigger_id, view)

    async def open_answer_modal(self, trigger_id: str, interaction_id: str) -> None:
        tracked, notice = await self._waiting(interaction_id)
        view = notice if tracked is None else render_question_modal(tracked.snapshot, 0)
        assert view is not None
        await self._slack.open_view(trigger_id, view)

    async def input_viewer(self, interaction_id: str, page: int) -> dict[str, Any]:
        """The viewer shows the input even after the decision: it is a record, not a form."""
        tracked = await self._store.get(interaction_id)
        if tracked is None:
            return render_notice_modal("Tool input", UNKNOWN_TEXT)
        last = input_viewer_page_count(tracked.snapshot) - 1
        return render_input_viewer(tracked.snapshot, max(0, min(page, last)))

    async def open_input_viewer(self, trigger_id: str, interaction_id: str) -> None:
        await self._slack.open_view(trigger_id, await self.input_viewer(interaction_id, 0))

    async def show_input_page(self, view_id: str, interaction_id: str, page: int) -> None:
        await self._slack.update_view(view_id, await self.input_viewer(interaction_id, page))
