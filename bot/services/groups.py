"""Approve all / Deny all on a step group: many decisions, one click, one batch call.

A click acts on what the message showed: its value names the version of the
group message clicked, and the store keeps which items that version offered
(each with its own card posted). Items that arrived after it are left out and
the clicker is told to review them first. Of those, only the items the clicker
may decide are included (the policy's check, item by item), a rule's quorum
applies per item (a batch approval is one vote on each, cast for every item in
one transaction, stale votes dropped as for a single approval), and every
included decision goes through the outbox like a single click: recorded before
the ack, under the same deadline, then sent together with `resolveBatch` on the
root run. What came of each item is summed up on the group message
("3 approved, 1 was already denied elsewhere").
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

from bot.clock import Clock
from bot.domain import Approval, SlackActor, SlackDecision
from bot.messages import Messages
from bot.novo.models import Interaction, ResolveInteractionBody
from bot.outcomes import DecisionOutcome, GroupOutcome, ItemFate, Notice, OutcomeKind
from bot.services.acking import Acknowledge, Stage, before_ack, window_of
from bot.services.approvals import (
    VERB_APPROVED,
    VERB_DENIED,
    Cast,
    approval_body,
    stale_votes,
    vote_events,
)
from bot.services.deciders import DeciderGate
from bot.services.decisions import DELIVERY_LEASE_SECONDS, DecisionService
from bot.slack.directory import DirectoryUnavailable
from bot.slack.gateway import SlackGateway
from bot.slack.render.group import parse_group_ref
from bot.slack.render.modals import render_deny_all_modal
from bot.slack.render.outcomes import group_summary
from bot.store import QueuedDecision, StepGroup, Store, TrackedInteraction, Vote
from bot.store.audit import AuditEvent
from bot.store.votes import VoteRequest

log = logging.getLogger(__name__)


@dataclass
class _Batch:
    """What one Approve all / Deny all settled before its ack, to finish after it."""

    group: StepGroup
    tally: Counter[ItemFate] = field(default_factory=Counter)
    queued: list[tuple[QueuedDecision, Interaction | None]] = field(default_factory=list)
    audit: list[AuditEvent] = field(default_factory=list)
    voted: list[str] = field(default_factory=list)
    arrived_later: int = 0


ENDED_IN_SLACK = {"allow": ItemFate.APPROVED_IN_SLACK, "deny": ItemFate.DENIED_IN_SLACK}
ENDED_ELSEWHERE = {"allow": ItemFate.APPROVED_ELSEWHERE, "deny": ItemFate.DENIED_ELSEWHERE}


def _already(interaction: Interaction, in_slack: bool) -> ItemFate:
    """How an item had ended before the click (e.g. denied elsewhere)."""
    if interaction.status == "cancelled":
        if interaction.timed_out:
            return ItemFate.EXPIRED
        return ItemFate.CANCELLED
    if in_slack:
        return ENDED_IN_SLACK.get(interaction.decision or "", ItemFate.DECIDED_IN_SLACK)
    return ENDED_ELSEWHERE.get(interaction.decision or "", ItemFate.DECIDED_ELSEWHERE)


FATES = {
    OutcomeKind.QUEUED: ItemFate.QUEUED,
    OutcomeKind.IN_FLIGHT: ItemFate.TAKEN,
    OutcomeKind.GONE: ItemFate.GONE,
    OutcomeKind.REFUSED: ItemFate.NOT_YOURS,
}
"""What an item's outcome comes to in the summary, kinds not delivered nor ended."""


class GroupService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        decisions: DecisionService,
        gate: DeciderGate,
        publisher: Messages,
        clock: Clock,
    ) -> None:
        self._store = store
        self._slack = slack
        self._decisions = decisions
        self._gate = gate
        self._publisher = publisher
        self._clock = clock

    async def open_deny_all(self, trigger_id: str, ref: str, actor: SlackActor) -> Notice | None:
        """Open Deny all's reason form; or say why there is nothing for this person to deny."""
        group_id, version = parse_group_ref(ref)
        listed = await self._store.group_view(group_id, version) if version else None
        if listed is None:
            await self._publisher.refresh_group_soon(group_id)
            return Notice.GROUP_CHANGED
        shown = set(listed)
        members = [m for m in await self._store.group_members(group_id) if m.id in shown]
        mine = [m for m in members if m.is_open and await self._gate.may_decide(m.snapshot, actor)]
        if not mine:
            if any(m.is_open for m in members):
                return Notice.GROUP_NONE_MINE
            return Notice.GROUP_NONE_WAITING
        await self._slack.open_view(trigger_id, render_deny_all_modal(ref, len(mine)))
        return None

    async def decide_all(
        self,
        ref: str,
        actor: SlackActor,
        *,
        approve: bool,
        note: str | None = None,
        acknowledge: Acknowledge | None = None,
    ) -> GroupOutcome | DecisionOutcome:
        """Decide what the clicked version of the group message offered, of what `actor`
        may decide; `ref` is the button's value (group id and version)."""
        decision = SlackDecision(
            actor=actor,
            at=self._clock(),
            verb=VERB_APPROVED if approve else VERB_DENIED,
            note=(note or "").strip() or None,
        )
        window = window_of(acknowledge)
        prepared = await before_ack(
            window,
            lambda stage: self._prepare(ref, decision, approve, stage, window.deadline),
        )
        if isinstance(prepared, DecisionOutcome):
            return prepared
        return await self._finish(prepared, actor, approve)

    async def _prepare(
        self, ref: str, decision: SlackDecision, approve: bool, stage: Stage, commit_by: float
    ) -> DecisionOutcome | _Batch:
        """Everything before the ack: what to decide, checked, voted and queued."""
        group_id, version = parse_group_ref(ref)
        group = await self._store.group(group_id)
        if group is None:
            return DecisionOutcome(OutcomeKind.UNKNOWN, Notice.GROUP_UNKNOWN)
        listed = await self._store.group_view(group_id, version) if version else None
        if listed is None:
            await self._publisher.refresh_group_soon(group_id)
            return DecisionOutcome(OutcomeKind.REJECTED, Notice.GROUP_CHANGED)
        shown = set(listed)
        members = await self._store.group_members(group_id)
        batch = _Batch(group)
        batch.arrived_later = sum(1 for m in members if m.is_open and m.id not in shown)
        chosen = [m for m in members if m.id in shown]
        actor = decision.actor
        with stage.slack():
            allowed = await asyncio.gather(
                *(self._gate.may_decide(m.snapshot, actor) for m in chosen if m.is_open)
            )
        verdicts = iter(allowed)
        direct: list[tuple[TrackedInteraction, ResolveInteractionBody]] = []
        voting: list[TrackedInteraction] = []
        for member in chosen:
            if not member.is_open:
                batch.tally[_already(member.snapshot, member.decided_in_slack is not None)] += 1
            elif not next(verdicts):
                self._left_out(batch, member, actor)
            elif approve and self._gate.route(member.snapshot).quorum > 1:
                voting.append(member)
            else:
                direct.append((member, approval_body(member.id, approve)))
        for recorded in await self._decisions.record_many(direct, decision, commit_by=commit_by):
            if isinstance(recorded, DecisionOutcome):
                batch.tally[self._word(recorded, approve)] += 1
            else:
                batch.queued.append(recorded)
        if voting:
            try:
                await self._vote(batch, voting, decision, stage, commit_by)
            except DirectoryUnavailable as exc:
                log.warning("could not re-check votes for approve all on %s: %s", group_id, exc)
                batch.tally[ItemFate.UNCHECKED] += len(voting)
        return batch

    def _left_out(self, batch: _Batch, member: TrackedInteraction, actor: SlackActor) -> None:
        batch.tally[ItemFate.NOT_YOURS] += 1
        batch.audit.append(
            AuditEvent(
                "refused",
                self._clock(),
                member.id,
                actor.user_id,
                {"rule": self._gate.route(member.snapshot).rule, "why": "not theirs to decide"},
            )
        )

    async def _vote(
        self,
        batch: _Batch,
        members: list[TrackedInteraction],
        decision: SlackDecision,
        stage: Stage,
        commit_by: float,
    ) -> None:
        """One vote on each item, all cast in one transaction; an item whose quorum this
        meets has its other voters re-checked first, as a single approval would."""
        actor = decision.actor
        standing = await self._store.votes_of([m.id for m in members])
        requests: list[VoteRequest] = []
        for member in members:
            quorum = self._gate.route(member.snapshot).quorum
            others = [v for v in standing[member.id] if v.user_id != actor.user_id]
            dropped: dict[str, str] = {}
            if len(others) + 1 >= quorum:
                with stage.slack():
                    dropped = await self._stale(member, others)
            requests.append(
                VoteRequest(
                    member.id,
                    Approval(actor, decision.note),
                    quorum,
                    approval_body(member.id, True),
                    decision,
                    dropped,
                )
            )
        lease = self._clock() + timedelta(seconds=DELIVERY_LEASE_SECONDS)
        ballots = await self._store.cast_votes(requests, self._clock(), lease, commit_by=commit_by)
        for member, request, ballot in zip(members, requests, ballots, strict=True):
            cast = Cast(ballot, request.quorum, dict(request.drop))
            batch.audit.extend(vote_events(member.id, actor, cast, self._clock, "approve all"))
            if ballot.queued is not None:
                batch.queued.append((ballot.queued, member.snapshot))
            elif ballot.closed:
                batch.tally[ItemFate.TAKEN] += 1
            else:
                counted = ballot.counted
                batch.tally[ItemFate.COUNTED if counted else ItemFate.HAD_YOUR_VOTE] += 1
                if counted:
                    batch.voted.append(member.id)

    async def _stale(self, member: TrackedInteraction, others: list[Vote]) -> dict[str, str]:
        verdicts = await asyncio.gather(
            *(self._gate.no_longer_counts(member.snapshot, v.approval.actor) for v in others)
        )
        return stale_votes(others, list(verdicts))

    async def _finish(self, batch: _Batch, actor: SlackActor, approve: bool) -> GroupOutcome:
        """After the ack: audit, refresh what was voted on, deliver, sum it up."""
        await self._store.record_many(batch.audit)
        await self._store.record_many(
            [
                AuditEvent(
                    "clicked",
                    self._clock(),
                    q.interaction_id,
                    actor.user_id,
                    {"verb": q.decision.verb, "via": "batch"},
                )
                for q, _ in batch.queued
            ]
        )
        for interaction_id in batch.voted:
            await self._publisher.refresh_soon_by_id(interaction_id)
        group = batch.group
        tally = batch.tally
        outcomes = await self._decisions.deliver_batch(group.root_run_id, batch.queued)
        for (item, _), outcome in zip(batch.queued, outcomes, strict=True):
            tally[self._word(outcome, approve)] += 1
            log.info(
                "%s on %s by %s: %s",
                "approve all" if approve else "deny all",
                item.interaction_id,
                actor.user_id,
                outcome.kind.value,
            )
        result = GroupOutcome(actor.user_id, approve, tally, batch.arrived_later)
        # the group's message is re-rendered from the store: its summary line is kept worded
        await self._store.set_group_outcome(group.id, group_summary(result), self._clock())
        await self._publisher.refresh_group_soon(group.id)
        return result

    @staticmethod
    def _word(outcome: DecisionOutcome, approve: bool) -> ItemFate:
        if outcome.kind is OutcomeKind.DELIVERED:
            return ItemFate.APPROVED if approve else ItemFate.DENIED
        if outcome.kind in (OutcomeKind.CONFLICT, OutcomeKind.NOT_WAITING) and outcome.interaction:
            return _already(outcome.interaction, in_slack=False)
        return FATES.get(outcome.kind, ItemFate.FAILED)
