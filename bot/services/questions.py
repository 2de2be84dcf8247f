"""Answering agent questions: modal submissions (possibly over several pages),
action buttons, in-message quick options, and dismissing.

The submission is checked against the stored interaction before anything is
sent, so a person sees a mistake on the right input instead of a 400; what
passes goes through the same durable decision path as an approval.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.domain import SlackActor
from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from bot.outcomes import DecisionOutcome, Notice, OutcomeKind
from bot.services.acking import ACK_BUDGET_SECONDS, Acknowledge, AckWindow, window_of
from bot.services.deciding import DecisionPath, not_decidable
from bot.services.decision_request import DecisionRequest, Means
from bot.slack.gateway import SlackGateway
from bot.slack.question_answers import (
    ParsedSubmission,
    parse_action_choice,
    parse_quick_option,
    parse_submission,
)
from bot.slack.render.common import truncate
from bot.slack.render.outcomes import (
    ANSWER_TITLE,
    answer_notice_modal,
    answer_sent_modal,
    not_waiting_modal,
    outcome_text,
    submitting_modal,
)
from bot.slack.render.question_encoding import interaction_id_of_value
from bot.slack.render.question_modal import (
    ModalRef,
    question_modal_page_count,
    render_question_modal,
)
from bot.store import Store

log = logging.getLogger(__name__)

VERB_ANSWERED = "Answered"
VERB_DISMISSED = "Dismissed"
CHOICE_GONE = DecisionOutcome(OutcomeKind.REJECTED, Notice.CHOICE_GONE)
ACTION_LABEL_CHARS = 60
RESULT_BUDGET_SECONDS = 2.0  # of Slack's 3 s: answering a submission with its outcome
DRAFT_TTL = timedelta(hours=24)  # an abandoned multi-page form is forgotten after this
MAX_DRAFTS = 1_000  # and never more than this many are kept (oldest go first)


@dataclass(frozen=True)
class SubmissionCheck:
    """What to answer a view_submission with, decided before the ack."""

    errors: dict[str, str] = field(default_factory=dict)
    view: dict[str, Any] | None = None  # replace the modal with this (next page, notice)
    responses: list[InputResponse] | None = None  # complete: resolve with these
    interaction_id: str = ""


class QuestionService:
    def __init__(self, store: Store, slack: SlackGateway, path: DecisionPath, clock: Clock) -> None:
        self._store = store
        self._slack = slack
        self._path = path
        self._clock = clock

    async def check_submission(
        self,
        view_id: str,
        private_metadata: str,
        state_values: dict[str, Any],
        *,
        deadline: float | None = None,
    ) -> SubmissionCheck:
        """What to answer a submission with; a store that fails or is too slow for Slack's
        deadline gets the form a word, not a bare error (nothing was sent)."""
        window = deadline if deadline is not None else AckWindow.from_now().deadline
        try:
            async with asyncio.timeout_at(window):
                return await self._check_submission(view_id, private_metadata, state_values)
        except Exception:
            log.exception("could not check a form submission (view %s)", view_id)
            return SubmissionCheck(view=answer_notice_modal(Notice.NOT_SAVED))

    async def _check_submission(
        self, view_id: str, private_metadata: str, state_values: dict[str, Any]
    ) -> SubmissionCheck:
        ref = ModalRef.decode(private_metadata)
        if ref is None:
            return SubmissionCheck(view=answer_notice_modal(Notice.FORM_DAMAGED))
        tracked = await self._store.get(ref.interaction_id)
        ended = not_decidable(tracked)
        if ended is not None or tracked is None:  # (the second test only narrows the type)
            await self._store.drop_draft(view_id)
            fact = ended.fact if ended is not None else Notice.UNKNOWN
            return SubmissionCheck(view=not_waiting_modal(fact, ANSWER_TITLE))
        parsed = parse_submission(tracked.snapshot, ref.page, state_values)
        if not isinstance(parsed, ParsedSubmission):
            return SubmissionCheck(errors=parsed, interaction_id=ref.interaction_id)
        earlier = await self._store.load_draft(view_id) if ref.page > 0 else None
        answers = [
            *(InputResponse.model_validate(item) for item in earlier or []),
            *parsed.input_responses,
        ]
        assert tracked.snapshot.request is not None
        if ref.page + 1 < question_modal_page_count(tracked.snapshot.request):
            # in the store, not in memory: the next page may reach another replica
            await self._store.save_draft(
                view_id, ref.interaction_id, [a.to_wire() for a in answers], self._clock()
            )
            return SubmissionCheck(view=render_question_modal(tracked.snapshot, ref.page + 1))
        await self._store.drop_draft(view_id)
        return SubmissionCheck(responses=answers, interaction_id=ref.interaction_id)

    async def form_closed(self, view_id: str) -> None:
        """The person closed a form: what they typed on earlier pages goes."""
        await self._store.drop_draft(view_id)

    async def prune_drafts(self) -> int:
        """Forget abandoned forms: older than `DRAFT_TTL`, or beyond `MAX_DRAFTS`."""
        return await self._store.prune_drafts(self._clock() - DRAFT_TTL, MAX_DRAFTS)

    async def answer(
        self,
        interaction_id: str,
        responses: list[InputResponse],
        actor: SlackActor,
        acknowledge: Acknowledge | None = None,
    ) -> DecisionOutcome:
        """A form's answers, as the path decides them."""
        body = ResolveInteractionBody(input_responses=responses)
        request = DecisionRequest(actor, interaction_id, VERB_ANSWERED, body, Means.FORM)
        return await self._path.decide(request, acknowledge)

    async def submit(
        self,
        view_id: str,
        interaction_id: str,
        responses: list[InputResponse],
        actor: SlackActor,
        acknowledge: Callable[[dict[str, Any]], Awaitable[None]],
        *,
        started: float,
    ) -> DecisionOutcome:
        """Resolve, answering the submission with how it went if that fits Slack's 3 s.

        Acking first and updating afterwards would race: Bolt sends the ack a
        moment after `ack()` returns, so a fast `views.update` could land first
        and be overwritten by "Submitting…". So the outcome itself is the ack
        when Novo answers within `RESULT_BUDGET_SECONDS` of `started` (when the
        request arrived, on the event loop's clock); only a slower answer gets
        "Submitting…" now and a `views.update` later. Either way the ack
        comes only once the answer is safe in the store, or once it is clear
        it could not be saved before Slack's deadline.
        """
        recorded = asyncio.Event()

        async def on_recorded() -> None:
            recorded.set()

        window = AckWindow(on_recorded, started + ACK_BUDGET_SECONDS)
        decision = asyncio.ensure_future(self.answer(interaction_id, responses, actor, window))
        loop = asyncio.get_running_loop()
        budget = max(0.0, RESULT_BUDGET_SECONDS - (loop.time() - started))
        done, _ = await asyncio.wait({decision}, timeout=budget)
        if decision not in done:
            await recorded.wait()
        if decision.done():
            outcome = decision.result()
            await acknowledge(await self._result_view(interaction_id, outcome))
            return outcome
        await acknowledge(submitting_modal())
        outcome = await decision
        await self._replace_view(view_id, await self._result_view(interaction_id, outcome))
        return outcome

    async def _result_view(self, interaction_id: str, outcome: DecisionOutcome) -> dict[str, Any]:
        if outcome.kind is OutcomeKind.DELIVERED:
            return answer_sent_modal()
        if outcome.kind is OutcomeKind.REJECTED:
            tracked = await self._store.get(interaction_id)
            if tracked is not None and tracked.snapshot.is_pending:
                note = outcome_text(outcome)
                return render_question_modal(tracked.snapshot, 0, errors_note=note)
        return answer_notice_modal(outcome.fact)

    async def _replace_view(self, view_id: str, view: dict[str, Any]) -> None:
        try:
            await self._slack.update_view(view_id, view)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            # The person may have closed the modal; the message shows the outcome anyway.
            log.info("could not update modal %s: %r", view_id, exc)

    async def choose_action(
        self, value: str, actor: SlackActor, acknowledge: Acknowledge | None = None
    ) -> tuple[str, DecisionOutcome]:
        """An action button: decide with the action its value names."""
        return await self._choose(value, actor, acknowledge, parse_action_choice)

    async def choose_quick_option(
        self, value: str, actor: SlackActor, acknowledge: Acknowledge | None = None
    ) -> tuple[str, DecisionOutcome]:
        """An option's button in the message: answer with the option its value names."""
        return await self._choose(value, actor, acknowledge, parse_quick_option)

    async def dismiss(
        self, interaction_id: str, actor: SlackActor, acknowledge: Acknowledge | None = None
    ) -> DecisionOutcome:
        body = ResolveInteractionBody(cancel=True)
        request = DecisionRequest(actor, interaction_id, VERB_DISMISSED, body, Means.BUTTON)
        return await self._path.decide(request, acknowledge)

    async def _choose(
        self,
        value: str,
        actor: SlackActor,
        acknowledge: Acknowledge | None,
        parse: Callable[[Interaction, str], InputResponse | None],
    ) -> tuple[str, DecisionOutcome]:
        interaction_id = interaction_id_of_value(value)
        tracked = await self._store.get(interaction_id)
        response = parse(tracked.snapshot, value) if tracked is not None else None
        if tracked is None or response is None:
            await window_of(acknowledge)()
            return interaction_id, CHOICE_GONE
        body = ResolveInteractionBody(input_responses=[response])
        verb = answer_verb(tracked.snapshot, response)
        request = DecisionRequest(actor, interaction_id, verb, body, Means.BUTTON)
        return interaction_id, await self._path.decide(request, acknowledge)


def answer_verb(interaction: Interaction | None, response: InputResponse) -> str:
    """How the message words an answer: `Answered`, or `Chose “…”` for an action."""
    request = interaction.request if interaction is not None else None
    action = request.action(response.request_id) if request is not None else None
    if action is None:
        return VERB_ANSWERED
    return f"Chose “{truncate(action.label or action.id, ACTION_LABEL_CHARS)}”"
