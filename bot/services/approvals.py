"""Approve and deny: the bodies Part 1 prescribes, and a rule's quorum before approving.

The `reason` (who decided in Slack) is added at delivery, by the decision
service, once the decider's display name is known.

With `quorum: N` in the interaction's rule, an Approve by someone allowed to
decide is a vote, kept in the store with its note. The vote that would meet
the quorum first asks Slack afresh whether every other voter still may decide
under today's policy (one who may not is dropped, said so on the message and
audited); then the store counts, queues the decision and seals its approvals in
one transaction. A sealed approval can't be withdrawn and delivery names
exactly the sealed approvers, each with their note. A Deny needs no quorum:
one decider's no decides at once.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bot.clock import Clock
from bot.domain import Approval, SlackActor, SlackDecision
from bot.messages import Refresh
from bot.novo.models import (
    APPROVE_OPTION,
    DENY_OPTION,
    InputResponse,
    Interaction,
    ResolveInteractionBody,
)
from bot.outcomes import DecisionOutcome, Notice, OutcomeKind, Tally
from bot.services.acking import NOT_SAVED, Acknowledge, Stage, before_ack, window_of
from bot.services.deciders import UNCHECKED, DeciderGate
from bot.services.decisions import DELIVERY_LEASE_SECONDS, UNKNOWN, DecisionService
from bot.services.shown import shown_now
from bot.slack.directory import DirectoryUnavailable
from bot.store import QueuedDecision, Store, Vote
from bot.store.audit import AuditEvent
from bot.store.votes import Ballot, VoteRequest

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


@dataclass(frozen=True)
class Cast:
    """An approval counted towards a quorum before the ack: what the store made of it."""

    ballot: Ballot
    quorum: int
    dropped: dict[str, str] = field(default_factory=dict)


def stale_votes(others: list[Vote], verdicts: list[str | None]) -> dict[str, str]:
    """The voters who no longer qualify, with the reason why (the message words it)."""
    return {v.user_id: why for v, why in zip(others, verdicts, strict=True) if why is not None}


def vote_events(
    interaction_id: str, actor: SlackActor, cast: Cast, clock: Clock, via: str | None = None
) -> list[AuditEvent]:
    """The audit trail of one cast: votes dropped as stale, the vote itself."""
    now = clock()
    events = [
        AuditEvent("vote_dropped", now, interaction_id, user_id, {"why": why})
        for user_id, why in cast.dropped.items()
    ]
    if cast.ballot.counted:
        detail: dict[str, Any] = {"tally": f"{len(cast.ballot.standing)} of {cast.quorum}"}
        if via is not None:
            detail["via"] = via
        shown = shown_now()
        detail["shown"] = shown.detail() if shown is not None else None
        events.append(AuditEvent("voted", now, interaction_id, actor.user_id, detail))
    return events


class ApprovalService:
    def __init__(
        self,
        decisions: DecisionService,
        clock: Clock,
        *,
        store: Store,
        gate: DeciderGate,
        publisher: Refresh,
    ) -> None:
        self._decisions = decisions
        self._clock = clock
        self._store = store
        self._gate = gate
        self._publisher = publisher

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
        if not approve:
            return await self._decisions.decide(interaction_id, body, decision, acknowledge)
        window = window_of(acknowledge)
        done = await before_ack(
            window,
            lambda stage: self._approve(
                interaction_id, body, decision, stage=stage, commit_by=window.deadline
            ),
        )
        if isinstance(done, DecisionOutcome):
            return done
        if isinstance(done, Cast):
            return await self._counted(interaction_id, actor, done)
        queued, snapshot = done
        return await self._decisions.deliver(queued, snapshot)

    async def _approve(
        self,
        interaction_id: str,
        body: ResolveInteractionBody,
        decision: SlackDecision,
        *,
        stage: Stage,
        commit_by: float,
    ) -> DecisionOutcome | Cast | tuple[QueuedDecision, Interaction]:
        """Everything an Approve does before its ack: queue it, or count it as a vote."""
        tracked = await self._store.get(interaction_id)
        ended = self._decisions.not_decidable(tracked)
        if ended is not None or tracked is None:
            return ended or UNKNOWN
        route = self._gate.route(tracked.snapshot)
        if route.quorum <= 1 or tracked.kind != "approval_request":
            return await self._decisions.record(
                interaction_id, body, decision, stage=stage, commit_by=commit_by
            )
        actor = decision.actor
        with stage.slack():
            refused = await self._gate.refusal(tracked.snapshot, actor)
        if refused is not None:
            return DecisionOutcome(OutcomeKind.REFUSED, refused, tracked.snapshot)
        others = [v for v in await self._store.votes(interaction_id) if v.user_id != actor.user_id]
        dropped: dict[str, str] = {}
        if len(others) + 1 >= route.quorum:
            try:
                with stage.slack():
                    verdicts = await asyncio.gather(
                        *(
                            self._gate.no_longer_counts(tracked.snapshot, v.approval.actor)
                            for v in others
                        )
                    )
            except DirectoryUnavailable as exc:
                log.warning("could not re-check the votes on %s: %s", interaction_id, exc)
                return DecisionOutcome(OutcomeKind.REFUSED, UNCHECKED, tracked.snapshot)
            dropped = stale_votes(others, list(verdicts))
        request = VoteRequest(
            interaction_id, Approval(actor, decision.note), route.quorum, body, decision, dropped
        )
        lease = self._clock() + timedelta(seconds=DELIVERY_LEASE_SECONDS)
        ballot = await self._store.cast_vote(request, self._clock(), lease, commit_by=commit_by)
        return Cast(ballot, route.quorum, dropped)

    async def _counted(self, interaction_id: str, actor: SlackActor, cast: Cast) -> DecisionOutcome:
        """After the ack: audit the vote, then deliver the decision it queued or say where
        the count stands."""
        await self._store.record_many(vote_events(interaction_id, actor, cast, self._clock))
        ballot = cast.ballot
        tracked = await self._store.get(interaction_id)
        snapshot = tracked.snapshot if tracked is not None else None
        if ballot.queued is not None:
            await self._decisions.clicked(interaction_id, ballot.queued.decision)
            return await self._decisions.deliver(ballot.queued, snapshot)
        if ballot.closed:
            if snapshot is not None:
                return await self._decisions.not_queued(interaction_id, snapshot)
            return DecisionOutcome(OutcomeKind.IN_FLIGHT, Notice.ONE_ON_ITS_WAY)
        await self._publisher.refresh_soon_by_id(interaction_id)
        tally = Tally(len(ballot.standing), cast.quorum, counted=ballot.counted)
        return DecisionOutcome(OutcomeKind.VOTED, tally)

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
