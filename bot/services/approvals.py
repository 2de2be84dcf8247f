"""Approve and deny: the bodies Part 1 prescribes, labelled with who decided in Slack."""

from __future__ import annotations

from bot.clock import Clock
from bot.novo.models import APPROVE_OPTION, DENY_OPTION, InputResponse, ResolveInteractionBody
from bot.services.decisions import DecisionService
from bot.services.outcomes import DecisionOutcome
from bot.services.reasons import slack_reason
from bot.slack.render.context import SlackActor, SlackDecision

VERB_APPROVED = "Approved"
VERB_DENIED = "Denied"


def approval_body(interaction_id: str, approve: bool, reason: str) -> ResolveInteractionBody:
    """An approval addresses its own id and selects `approve` or `deny` (Part 1)."""
    return ResolveInteractionBody(
        input_responses=[
            InputResponse(
                request_id=interaction_id, option_id=APPROVE_OPTION if approve else DENY_OPTION
            )
        ],
        reason=reason,
    )


class ApprovalService:
    def __init__(self, decisions: DecisionService, clock: Clock) -> None:
        self._decisions = decisions
        self._clock = clock

    async def decide(
        self, interaction_id: str, actor: SlackActor, *, approve: bool, note: str | None = None
    ) -> DecisionOutcome:
        verb = VERB_APPROVED if approve else VERB_DENIED
        note = (note or "").strip() or None
        body = approval_body(interaction_id, approve, slack_reason(verb, actor, note))
        decision = SlackDecision(actor=actor, at=self._clock(), verb=verb, note=note)
        return await self._decisions.decide(interaction_id, body, decision)
