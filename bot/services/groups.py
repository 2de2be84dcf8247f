"""Approve all / Deny all on a step group: many decisions, one click, one batch call.

A click acts on what the message showed: its value names the version of the
group message clicked, and the store keeps which items that version offered
(each with its own card posted). Items that arrived after it are left out and
the clicker is told to review them first. Of those, only the items the clicker
may decide are included. Each item is a `DecisionRequest` on the one decision
path (`bot.services.deciding`): the policy's check item by item, a rule's quorum
per item (a batch approval is one vote on each, stale votes dropped as for a
single approval), every item written in one transaction before the ack, under
the same deadline, then sent together with `resolveBatch` on the root run. What
came of each item is summed up on the group message ("3 approved, 1 was already
denied elsewhere").
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

from bot.clock import Clock
from bot.domain import SlackActor
from bot.messages import Messages
from bot.novo.models import Interaction
from bot.outcomes import DecisionOutcome, GroupOutcome, ItemFate, Notice, OutcomeKind, Tally
from bot.services.acking import Acknowledge, AckWindow, Stage, before_ack, window_of
from bot.services.approvals import VERB_APPROVED, VERB_DENIED, approval_body
from bot.services.deciders import UNCHECKED, DeciderGate
from bot.services.deciding import DecisionPath
from bot.services.decision_request import DecisionRequest, Means
from bot.slack.gateway import SlackGateway
from bot.slack.render.group import parse_group_ref
from bot.slack.render.modals import render_deny_all_modal
from bot.slack.render.outcomes import group_summary
from bot.store import StepGroup, Store, TrackedInteraction

log = logging.getLogger(__name__)


@dataclass
class _Chosen:
    """What the clicked version of a group message offered: the group, the items still
    open to decide, how the others had ended, and how many arrived after it."""

    group: StepGroup
    members: list[TrackedInteraction] = field(default_factory=list)
    tally: Counter[ItemFate] = field(default_factory=Counter)
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
        path: DecisionPath,
        gate: DeciderGate,
        publisher: Messages,
        clock: Clock,
    ) -> None:
        self._store = store
        self._slack = slack
        self._path = path
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
        may decide; `ref` is the button's value (group id and version). Every item is a
        request on `DecisionPath`, all written in one transaction under the one ack."""
        window = window_of(acknowledge)
        reading = AckWindow(_not_yet, window.deadline)
        chosen = await before_ack(reading, partial(self._chosen, ref))
        if isinstance(chosen, DecisionOutcome):
            await window()
            return chosen
        _, version = parse_group_ref(ref)
        requests = [
            DecisionRequest(
                decider=actor,
                interaction_id=member.id,
                verb=VERB_APPROVED if approve else VERB_DENIED,
                body=approval_body(member.id, approve),
                means=Means.APPROVE_ALL,
                note=(note or "").strip() or None,
                version=version,
            )
            for member in chosen.members
        ]
        decided = await self._path.decide_together(requests, window)
        tally = chosen.tally
        for request, item in zip(requests, decided, strict=True):
            tally[self._word(item.outcome, approve)] += 1
            verb = "approve all" if approve else "deny all"
            log.info(
                "%s on %s by %s: %s",
                verb,
                request.interaction_id,
                actor.user_id,
                item.outcome.kind.value,
            )
        result = GroupOutcome(actor.user_id, approve, tally, chosen.arrived_later)
        # the group's message is re-rendered from the store: its summary line is kept worded
        group = chosen.group
        await self._store.set_group_outcome(group.id, group_summary(result), self._clock())
        await self._publisher.refresh_group_soon(group.id)
        return result

    async def _chosen(self, ref: str, stage: Stage) -> DecisionOutcome | _Chosen:
        """The items the clicked version offered (before the ack, under its deadline)."""
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
        chosen = _Chosen(group)
        chosen.arrived_later = sum(1 for m in members if m.is_open and m.id not in shown)
        for member in (m for m in members if m.id in shown):
            if member.is_open:
                chosen.members.append(member)
            else:
                chosen.tally[_already(member.snapshot, member.decided_in_slack is not None)] += 1
        return chosen

    @staticmethod
    def _word(outcome: DecisionOutcome, approve: bool) -> ItemFate:
        if outcome.kind is OutcomeKind.DELIVERED:
            return ItemFate.APPROVED if approve else ItemFate.DENIED
        if outcome.kind in (OutcomeKind.CONFLICT, OutcomeKind.NOT_WAITING) and outcome.interaction:
            return _already(outcome.interaction, in_slack=False)
        if isinstance(outcome.fact, Tally):
            return ItemFate.COUNTED if outcome.fact.counted else ItemFate.HAD_YOUR_VOTE
        if outcome.fact is UNCHECKED:
            return ItemFate.UNCHECKED
        return FATES.get(outcome.kind, ItemFate.FAILED)


async def _not_yet() -> None:
    """Reading the group acks nothing: the path acks once the decisions are written."""
