"""Approve all / Deny all on a step group: many decisions, one click, one batch call.

Only the items the clicker may decide are included (the policy's check, item
by item), a rule's quorum applies per item (a batch approval is one vote on
each), and every included decision goes through the outbox like a single
click: recorded before the ack, then sent together with `resolveBatch` on the
root run. What came of each item is summed up on the group message
("3 approved, 1 was already denied elsewhere").
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from bot.clock import Clock
from bot.domain import SlackActor, SlackDecision
from bot.novo.models import TIMEOUT_REASON, Interaction, ResolveInteractionBody
from bot.services.approvals import VERB_APPROVED, VERB_DENIED, approval_body
from bot.services.deciders import DeciderGate
from bot.services.decisions import Acknowledge, DecisionService
from bot.services.outcomes import DecisionOutcome, OutcomeKind
from bot.slack.gateway import SlackGateway
from bot.slack.render.common import escape_mrkdwn
from bot.slack.render.modals import render_deny_all_modal
from bot.store import QueuedDecision, Store, TrackedInteraction
from bot.store.audit import AuditEvent
from bot.sync.publisher import MessagePublisher

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GroupResult:
    """What one Approve all / Deny all came to: the summary line and whether anything went."""

    summary: str
    decided: int


def _already(interaction: Interaction, in_slack: bool) -> str:
    """How an item had ended before the click: 'was already denied elsewhere'."""
    if interaction.status == "cancelled":
        if interaction.reason == TIMEOUT_REASON:
            return "had already expired"
        return "was already cancelled"
    what = {"allow": "approved", "deny": "denied"}.get(interaction.decision or "", "decided")
    return f"was already {what} {'in Slack' if in_slack else 'elsewhere'}"


class GroupService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        decisions: DecisionService,
        gate: DeciderGate,
        publisher: MessagePublisher,
        clock: Clock,
    ) -> None:
        self._store = store
        self._slack = slack
        self._decisions = decisions
        self._gate = gate
        self._publisher = publisher
        self._clock = clock

    async def open_deny_all(self, trigger_id: str, group_id: str, actor: SlackActor) -> str | None:
        """Open Deny all's reason form; or say why there is nothing for this person to deny."""
        members = await self._store.group_members(group_id)
        mine = [m for m in members if m.is_open and await self._gate.may_decide(m.snapshot, actor)]
        if not mine:
            if any(m.is_open for m in members):
                return "None of the tool calls still waiting here are yours to decide."
            return "Nothing in this group is waiting any more."
        await self._slack.open_view(trigger_id, render_deny_all_modal(group_id, len(mine)))
        return None

    async def decide_all(
        self,
        group_id: str,
        actor: SlackActor,
        *,
        approve: bool,
        note: str | None = None,
        acknowledge: Acknowledge | None = None,
    ) -> GroupResult:
        tally: Counter[str] = Counter()
        queued: list[tuple[QueuedDecision, Interaction | None]] = []
        refused: list[AuditEvent] = []
        try:
            group = await self._store.group(group_id)
            members = await self._store.group_members(group_id) if group else []
            sending: list[tuple[TrackedInteraction, ResolveInteractionBody]] = []
            for member in members:
                if await self._include(member, actor, approve, tally, refused):
                    sending.append((member, approval_body(member.id, approve)))
            decision = SlackDecision(
                actor=actor,
                at=self._clock(),
                verb=VERB_APPROVED if approve else VERB_DENIED,
                note=(note or "").strip() or None,
            )
            for recorded in await self._decisions.record_many(sending, decision):
                if isinstance(recorded, DecisionOutcome):
                    tally[self._word(recorded, approve)] += 1
                else:
                    queued.append(recorded)
        finally:
            if acknowledge is not None:
                await acknowledge()
        await self._store.record_many(refused)
        if group is None:
            return GroupResult("This group is no longer known to the bridge.", 0)
        outcomes = await self._decisions.deliver_batch(group.root_run_id, queued)
        for (item, _), outcome in zip(queued, outcomes, strict=True):
            tally[self._word(outcome, approve)] += 1
            log.info(
                "%s on %s by %s: %s",
                "approve all" if approve else "deny all",
                item.interaction_id,
                actor.user_id,
                outcome.kind.value,
            )
        summary = self._summary(actor, approve, tally)
        await self._store.set_group_outcome(group_id, summary, self._clock())
        await self._publisher.groups.refresh_soon_by_id(group_id)
        decided = tally["approved"] + tally["denied"]
        return GroupResult(summary, decided)

    async def _include(
        self,
        member: TrackedInteraction,
        actor: SlackActor,
        approve: bool,
        tally: Counter[str],
        refused: list[AuditEvent],
    ) -> bool:
        """Whether this item's decision goes out now; if not, count why it is left out.

        The policy is asked quietly item by item and the refusals are written to
        the audit trail together, after the ack: a hundred items must be decided
        well inside Slack's 3 s.
        """
        snapshot = member.snapshot
        if not member.is_open:
            tally[_already(snapshot, member.decided_in_slack is not None)] += 1
            return False
        if not await self._gate.may_decide(snapshot, actor):
            tally["not yours to decide"] += 1
            refused.append(
                AuditEvent(
                    "refused",
                    self._clock(),
                    member.id,
                    actor.user_id,
                    {"rule": self._gate.route(snapshot).rule, "why": "not theirs to decide"},
                )
            )
            return False
        route = self._gate.route(snapshot)
        if approve and route.quorum > 1:
            counted, standing = await self._store.cast_vote(
                member.id, actor.user_id, actor.display_name, self._clock()
            )
            if counted:
                await self._store.record(
                    "voted",
                    self._clock(),
                    interaction_id=member.id,
                    actor_id=actor.user_id,
                    tally=f"{len(standing)} of {route.quorum}",
                    via="approve all",
                )
            if len(standing) < route.quorum:
                tally["counted towards a quorum" if counted else "already had your vote"] += 1
                if counted:
                    await self._publisher.refresh_soon_by_id(member.id)
                return False
        return True

    @staticmethod
    def _word(outcome: DecisionOutcome, approve: bool) -> str:
        if outcome.kind is OutcomeKind.DELIVERED:
            return "approved" if approve else "denied"
        if outcome.kind in (OutcomeKind.CONFLICT, OutcomeKind.NOT_WAITING) and outcome.interaction:
            return _already(outcome.interaction, in_slack=False)
        if outcome.kind is OutcomeKind.QUEUED:
            return "will be sent when Novo answers"
        if outcome.kind is OutcomeKind.IN_FLIGHT:
            return "was being decided by someone else"
        if outcome.kind is OutcomeKind.GONE:
            return "no longer exists in Novo"
        if outcome.kind is OutcomeKind.REFUSED:
            return "not yours to decide"
        return "could not be sent"

    @staticmethod
    def _summary(actor: SlackActor, approve: bool, tally: Counter[str]) -> str:
        what = "Approve all" if approve else "Deny all"
        order = ["approved", "denied"]
        parts = [f"{tally[w]} {w}" for w in order if tally[w]]
        parts += [f"{n} {escape_mrkdwn(w)}" for w, n in tally.items() if w not in order and n]
        if not parts:
            parts = ["nothing was waiting"]
        return f"{what} by <@{actor.user_id}>: {', '.join(parts)}."
