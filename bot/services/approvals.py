"""Approve and deny: the bodies Part 1 prescribes, and a rule's quorum before approving.

The `reason` (who decided in Slack) is added at delivery, by the decision
service, once the decider's display name is known.

With `quorum: N` in the interaction's rule, an Approve by someone allowed to
decide is a vote, kept in the store; the N-th distinct vote sends the
approval, whose reason then names every approver. A Deny needs no quorum: one
decider's no decides at once. Votes can be withdrawn until the quorum is met.
"""

from __future__ import annotations

from bot.clock import Clock
from bot.domain import SlackActor, SlackDecision
from bot.novo.models import APPROVE_OPTION, DENY_OPTION, InputResponse, ResolveInteractionBody
from bot.services.deciders import DeciderGate
from bot.services.decisions import Acknowledge, DecisionService
from bot.services.outcomes import DecisionOutcome, OutcomeKind
from bot.store import Store
from bot.sync.publisher import MessagePublisher

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


async def _acknowledged(acknowledge: Acknowledge | None) -> None:
    if acknowledge is not None:
        await acknowledge()


class ApprovalService:
    def __init__(
        self,
        decisions: DecisionService,
        clock: Clock,
        *,
        store: Store | None = None,
        gate: DeciderGate | None = None,
        publisher: MessagePublisher | None = None,
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
        if approve:
            voted = await self._vote(interaction_id, actor, acknowledge)
            if voted is not None:
                return voted
        verb = VERB_APPROVED if approve else VERB_DENIED
        note = (note or "").strip() or None
        body = approval_body(interaction_id, approve)
        decision = SlackDecision(actor=actor, at=self._clock(), verb=verb, note=note)
        return await self._decisions.decide(interaction_id, body, decision, acknowledge)

    async def _vote(
        self, interaction_id: str, actor: SlackActor, acknowledge: Acknowledge | None
    ) -> DecisionOutcome | None:
        """Count an approval towards the rule's quorum; None when it should go to Novo now
        (no quorum, the quorum just met, or nothing to count: the decision service says why)."""
        if self._store is None or self._gate is None:
            return None
        tracked = await self._store.get(interaction_id)
        if tracked is None or not tracked.is_open or tracked.kind != "approval_request":
            return None
        route = self._gate.route(tracked.snapshot)
        if route.quorum <= 1:
            return None
        refused = await self._gate.refusal(tracked.snapshot, actor)
        if refused is not None:
            await _acknowledged(acknowledge)
            return DecisionOutcome(OutcomeKind.REFUSED, refused, tracked.snapshot)
        counted, standing = await self._store.cast_vote(
            interaction_id, actor.user_id, actor.display_name, self._clock()
        )
        if counted:
            await self._store.record(
                "voted",
                self._clock(),
                interaction_id=interaction_id,
                actor_id=actor.user_id,
                tally=f"{len(standing)} of {route.quorum}",
            )
        if len(standing) >= route.quorum:
            return None  # this approval completes it: the decision goes out now
        await _acknowledged(acknowledge)
        tally = f"{len(standing)} of {route.quorum}"
        if not counted:
            return DecisionOutcome(
                OutcomeKind.VOTED, f"You already approved this one ({tally} approvals)."
            )
        if self._publisher is not None:
            await self._publisher.refresh_soon_by_id(interaction_id)
        still = route.quorum - len(standing)
        return DecisionOutcome(
            OutcomeKind.VOTED,
            f"Your approval is counted: {tally}. It goes to the agent when {still} more"
            f" {'decider approves' if still == 1 else 'deciders approve'}.",
        )

    async def withdraw(self, interaction_id: str, actor: SlackActor) -> DecisionOutcome:
        """Take back a standing approval before the quorum is met."""
        if self._store is None:
            return DecisionOutcome(OutcomeKind.REJECTED, "There is no approval to withdraw.")
        tracked = await self._store.get(interaction_id)
        if tracked is None or not tracked.is_open:
            return DecisionOutcome(
                OutcomeKind.NOT_WAITING, "This one is no longer waiting: nothing to withdraw."
            )
        if not await self._store.withdraw_vote(interaction_id, actor.user_id, self._clock()):
            return DecisionOutcome(OutcomeKind.REJECTED, "You have no approval here to withdraw.")
        await self._store.record(
            "vote_withdrawn", self._clock(), interaction_id=interaction_id, actor_id=actor.user_id
        )
        if self._publisher is not None:
            await self._publisher.refresh_soon_by_id(interaction_id)
        return DecisionOutcome(OutcomeKind.VOTED, "Your approval is withdrawn.")
