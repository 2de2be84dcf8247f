"""Approve and deny: the bodies Part 1 prescribes.

The `reason` (who decided in Slack) is added at delivery, by the decision
service, once the decider's display name is known.
"""

from __future__ import annotations

from bot.clock import Clock
from bot.domain import SlackActor, SlackDecision
from bot.novo.models import APPROVE_OPTION, DENY_OPTION, InputResponse, ResolveInteractionBody
from bot.services.decisions import Acknowledge, DecisionService
from bot.services.outcomes import DecisionOutcome

VERB_APPROVED = "Approved"
VERB_DENIED = "Denied"


def approval_body(interaction_id: str, approve: bool) -> ResolveInteractionBody:
    """An approval addresses its own id and selects `approve` or `deny` (Part 1)."""
    return ResolveInteractionBody(
        input_responses=[
            InputResponse(
                request_id=interaction_id, option_id=APPROVE_OPTION if approve else DENY_OPTION
            )
        ],
    )


class ApprovalService:
    def __init__(self, decisions: DecisionService, clock: Clock) -> None:
        self._decisions = decisions
        self._clock = clock

    async def decide(
        self,
        interaction_id: str,
        actor: SlackActor,
        *,
        approve: bool,
        note: str | None = None,
        acknowledge: Acknowledge | None = None,
    ) -> DecisionOutcome:
        verb = VERB_APPROVED if approve else VERB_DENIED
        note = (note or "").strip() or None
        body = approval_body(interaction_id, approve)
        decision = SlackDecision(actor=actor, at=self._clock(), verb=verb, note=note)
        return await self._decisions.decide(interaction_id, body, decision, acknowledge)
