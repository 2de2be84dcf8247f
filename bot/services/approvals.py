"""Approve and deny: the bodies Part 1 prescribes, and taking back a standing vote.

Deciding is `DecisionPath`'s: with `quorum: N` in the interaction's rule, an
Approve by someone allowed to decide is a vote, kept in the store with its note;
the vote that would meet the quorum first has every other voter re-checked, then
the store counts, queues the decision and seals its approvals in one transaction.
A sealed approval can't be withdrawn and delivery names exactly the sealed
approvers, each with their note. A Deny needs no quorum: one decider's no decides
at once.
"""

from __future__ import annotations

import logging

from bot.clock import Clock
from bot.domain import SlackActor
from bot.messages import Refresh
from bot.novo.models import APPROVE_OPTION, DENY_OPTION, InputResponse, ResolveInteractionBody
from bot.outcomes import DecisionOutcome, Notice, OutcomeKind
from bot.services.acking import NOT_SAVED, Acknowledge
from bot.services.deciding import DecisionPath
from bot.services.decision_request import DecisionRequest, Means
from bot.store import Store

log = logging.getLogger(__name__)

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
    def __init__(
        self, path: DecisionPath, clock: Clock, *, store: Store, publisher: Refresh
    ) -> None:
        self._path = path
        self._clock = clock
        self._store = store
        self._publisher = publisher

    async def decide(
        self,
        interaction_id: str,
        actor: SlackActor,
        *,
        approve: bool,
        note: str | None = None,
        means: Means = Means.BUTTON,
        acknowledge: Acknowledge | None = None,
    ) -> DecisionOutcome:
        """Approve or Deny: under a rule's quorum an Approve is a vote (`DecisionPath`)."""
        request = DecisionRequest(
            decider=actor,
            interaction_id=interaction_id,
            verb=VERB_APPROVED if approve else VERB_DENIED,
            body=approval_body(interaction_id, approve),
            means=means,
            note=(note or "").strip() or None,
        )
        return await self._path.decide(request, acknowledge)

    async def withdraw(self, interaction_id: str, actor: SlackActor) -> DecisionOutcome:
        """Take back a standing approval; refused once the quorum sealed it into a decision."""
        try:
            tracked = await self._store.get(interaction_id)
            if tracked is None or not tracked.is_open:
                return DecisionOutcome(OutcomeKind.NOT_WAITING, Notice.ENDED_NO_VOTE)
            result = await self._store.withdraw_vote(interaction_id, actor.user_id, self._clock())
        except Exception:
            log.exception("could not withdraw %s's approval on %s", actor.user_id, interaction_id)
            return NOT_SAVED
        if result == "sealed":
            return DecisionOutcome(OutcomeKind.REJECTED, Notice.SEALED)
        if result == "none":
            return DecisionOutcome(OutcomeKind.REJECTED, Notice.NO_VOTE)
        await self._store.record(
            "vote_withdrawn", self._clock(), interaction_id=interaction_id, actor_id=actor.user_id
        )
        await self._publisher.refresh_soon_by_id(interaction_id)
        return DecisionOutcome(OutcomeKind.VOTED, Notice.WITHDRAWN)
