"""One way to decide: every decision leaves the bridge through `DecisionPath`.

Seven ways decide (Approve/Deny buttons and a question's buttons, the deny and note
modals, a question's form, Approve all, a vote that meets a quorum, a standing
approval used by the poll, a thread reply's *Send*). Each builds a `DecisionRequest`
(who, what, which outcome, which words, by which means) and hands it here; this
module alone runs the sequence, in this order:

1. freshness, first look: tracked, pending, not gone (else how it ended);
2. authority: the decider gate, against the policy and group membership in force
   now, asked of the person deciding (for a standing approval, of its granter), and
   of every other voter when a vote would meet a quorum;
3. the body, checked against the interaction's rules (Part 1);
4. the write: the outbox row and whatever goes with it (a vote, an allowance granted,
   a standing approval's use) and the audit events of exactly what was written, in
   one transaction under the ack's deadline (`Store.write_decisions`), which checks
   freshness again in its own statements (pending, not gone, nothing queued or
   delivered);
5. the ack, once, whatever came of 1-4 (`acking.before_ack`);
6. telling: delivering what was queued (`DecisionService`), and an outcome that says
   what the transaction did (queued, counted, refused, ended).

Nothing before the ack waits on Novo; the decider's display name is looked up at
delivery. Approve all writes its decisions in one transaction; a poll's standing
approvals each in a transaction of its own (each use is checked at its moment).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from bot.clock import Clock
from bot.domain import (
    Approval,
    SlackDecision,
)
from bot.messages import Refresh
from bot.novo.errors import ResolveRuleError
from bot.novo.models import APPROVE_OPTION, Interaction, ResolveInteractionBody
from bot.novo.rules import check_resolve_body
from bot.outcomes import (
    BadAnswer,
    DecisionOutcome,
    Ended,
    Granted,
    InFlight,
    NotGranted,
    Notice,
    OutcomeKind,
    Tally,
)
from bot.policy.routes import Route
from bot.services.acking import Acknowledge, Stage, before_ack, window_of
from bot.services.deciders import UNCHECKED, DeciderGate
from bot.services.decision_request import Decided, DecisionRequest, Means
from bot.services.decision_trail import decision_trail
from bot.services.decisions import DELIVERY_LEASE_SECONDS, DecisionService
from bot.slack.directory import DirectoryUnavailable
from bot.slack.render.allowance import StandingOffer
from bot.slack.render.thread_reply import THREAD_VIA
from bot.store import QueuedDecision, Store, TrackedInteraction, Vote
from bot.store.allowances import Grant, PlannedUse
from bot.store.votes import VoteRequest
from bot.store.writes import DecisionWrite, Written

log = logging.getLogger(__name__)

UNKNOWN = DecisionOutcome(OutcomeKind.UNKNOWN, Notice.UNKNOWN)
NOT_USED = DecisionOutcome(OutcomeKind.NOT_WAITING, Notice.ALLOWANCE_ENDED)
"""A standing approval's use that its transaction refused (ended, or tracked already)."""
UNDELIVERED = frozenset({OutcomeKind.CONFLICT, OutcomeKind.GONE, OutcomeKind.REJECTED})
"""What Novo answered when it did not take an approval (an allowance with it ends)."""


@dataclass
class _Step:
    """A request on its way through the sequence."""

    request: DecisionRequest
    snapshot: Interaction | None = None
    route: Route | None = None
    outcome: DecisionOutcome | None = None
    grant: Grant | None = None
    vote: VoteRequest | None = None
    written: Written | None = None

    @property
    def interaction(self) -> Interaction:
        """The interaction of a step still on its way (read by `_look`)."""
        assert self.snapshot is not None
        return self.snapshot

    @property
    def rule(self) -> str | None:
        return self.route.rule if self.route is not None else None

    @property
    def queued(self) -> QueuedDecision:
        """The decision a step's write queued (for steps that queued one)."""
        assert self.written is not None and self.written.queued is not None
        return self.written.queued


def not_decidable(tracked: TrackedInteraction | None) -> DecisionOutcome | None:
    """Why nothing can be decided on it any more (unknown, gone, ended), or None: what a
    click is told, and what a form shows instead of opening."""
    if tracked is None:
        return UNKNOWN
    if tracked.gone:
        return DecisionOutcome(OutcomeKind.GONE, Notice.GONE)
    if not tracked.snapshot.is_pending:
        ended = Ended(tracked.snapshot, tracked.decided_in_slack)
        return DecisionOutcome(OutcomeKind.NOT_WAITING, ended, tracked.snapshot)
    return None


def _approves(snapshot: Interaction, body: ResolveInteractionBody) -> bool:
    responses = body.input_responses or []
    return snapshot.kind == "approval_request" and any(
        r.option_id == APPROVE_OPTION for r in responses
    )


class DecisionPath:
    def __init__(
        self,
        store: Store,
        delivery: DecisionService,
        gate: DeciderGate,
        publisher: Refresh,
        clock: Clock,
    ) -> None:
        self._store = store
        self._publisher = publisher
        self._delivery = delivery
        self._gate = gate
        self._clock = clock

    async def decide(
        self, request: DecisionRequest, acknowledge: Acknowledge | None = None
    ) -> DecisionOutcome:
        (decided,) = await self.decide_together([request], acknowledge)
        return decided.outcome

    async def decide_together(
        self, requests: list[DecisionRequest], acknowledge: Acknowledge | None = None
    ) -> list[Decided]:
        """Decide all of them under one ack, written in one transaction."""
        window = window_of(acknowledge)
        settled = await before_ack(window, partial(self._settle, requests, window.deadline))
        if isinstance(settled, DecisionOutcome):
            return [Decided(settled) for _ in requests]
        return await self._tell(settled)

    async def decide_each(self, requests: list[DecisionRequest]) -> list[Decided]:
        """Decide each in a transaction of its own, in order, then deliver them together
        (a poll's standing approvals: each use checked at the moment of that use). No
        one waits for an ack, so no deadline cuts a write short; a store that fails
        fails the poll, which tries again."""
        steps: list[_Step] = []
        for request in requests:
            steps.extend(await self._settle([request], None, Stage()))
        return await self._tell(steps)

    # ------------------------------------------------------------------ before the ack

    async def _settle(
        self, requests: list[DecisionRequest], commit_by: float | None, stage: Stage
    ) -> list[_Step]:
        steps = [_Step(r) for r in requests]
        await self._look(steps)
        with stage.slack():
            await self._authorise(steps)
        for step in self._live(steps):
            self._check_body(step)
        await self._count_votes(steps, stage)
        await self._write(steps, commit_by)
        return steps

    @staticmethod
    def _live(steps: list[_Step]) -> list[_Step]:
        return [s for s in steps if s.outcome is None]

    async def _look(self, steps: list[_Step]) -> None:
        """Freshness, first look (the write looks again), and what the policy says."""
        ids = [s.request.interaction_id for s in steps if s.request.seen is None]
        if len(ids) == 1:
            one = await self._store.get(ids[0])
            tracked = {ids[0]: one} if one is not None else {}
        else:
            tracked = await self._store.get_many(ids) if ids else {}
        for step in steps:
            seen = step.request.seen
            if seen is None:
                found = tracked.get(step.request.interaction_id)
                step.outcome = not_decidable(found)
                step.snapshot = found.snapshot if found is not None else None
            else:
                step.snapshot = seen
                step.outcome = None if seen.is_pending else NOT_USED
            if step.snapshot is not None:
                step.route = self._gate.route(step.snapshot)
            if step.outcome is None and step.request.standing is not None:
                self._grant(step)

    def _grant(self, step: _Step) -> None:
        """The allowance asked for with an approval, if the rule offers it."""
        request, snapshot, route = step.request, step.snapshot, step.route
        assert snapshot is not None and route is not None and request.standing is not None
        standing = route.standing
        if (
            snapshot.kind != "approval_request"
            or standing is None
            or request.standing not in standing.scopes
            or not snapshot.tool_name
        ):
            step.outcome = DecisionOutcome(
                OutcomeKind.REFUSED, Notice.STANDING_NOT_OFFERED, snapshot
            )
            return
        now = self._clock()
        offer = StandingOffer(tuple(standing.scopes), standing.max_seconds)
        step.grant = Grant(
            rule=route.rule,
            scope=request.standing,
            agent_id=snapshot.agent_id,
            tool_name=snapshot.tool_name,
            root_run_id=snapshot.root_run_id if request.standing == "run" else None,
            granted_by=request.decider,
            granted_at=now,
            until=now + timedelta(seconds=offer.seconds_for(request.standing)),
            interaction_id=request.interaction_id,
        )

    async def _authorise(self, steps: list[_Step]) -> None:
        """The decider gate for each, all asked at once (a standing approval's granter is
        asked quietly: a poll is nobody's click to refuse)."""
        live = self._live(steps)
        refusals = await asyncio.gather(
            *(
                self._gate.refusal(
                    s.interaction,
                    s.request.decider,
                    audit=s.request.means is not Means.ALLOWANCE,
                )
                for s in live
            )
        )
        for step, why in zip(live, refusals, strict=True):
            if why is not None:
                step.outcome = DecisionOutcome(OutcomeKind.REFUSED, why, step.snapshot)

    @staticmethod
    def _check_body(step: _Step) -> None:
        assert step.snapshot is not None
        try:
            check_resolve_body(step.snapshot, step.request.body)
        except ResolveRuleError as exc:
            step.outcome = DecisionOutcome(
                OutcomeKind.REJECTED, BadAnswer(exc.message, by_novo=False)
            )

    async def _count_votes(self, steps: list[_Step], stage: Stage) -> None:
        """An approval under a rule's quorum is a vote; one that would meet the quorum
        first asks Slack afresh whether every other voter still may decide."""
        voting = [
            s
            for s in self._live(steps)
            if s.route is not None
            and s.route.quorum > 1
            and s.snapshot is not None
            and _approves(s.snapshot, s.request.body)
        ]
        if not voting:
            return
        standing = await self._store.votes_of([s.request.interaction_id for s in voting])
        for step in voting:
            route, decider = step.route, step.request.decider
            assert route is not None
            others = [v for v in standing[step.interaction.id] if v.user_id != decider.user_id]
            dropped: dict[str, str] = {}
            if len(others) + 1 >= route.quorum:
                try:
                    with stage.slack():
                        dropped = await self._stale(step.interaction, others)
                except DirectoryUnavailable as exc:
                    log.warning("could not re-check the votes on %s: %s", step.interaction.id, exc)
                    step.outcome = DecisionOutcome(OutcomeKind.REFUSED, UNCHECKED, step.snapshot)
                    continue
            approval = Approval(decider, step.request.note)
            decision = self._decision(step.request, self._clock())
            body = step.request.body
            step.vote = VoteRequest(
                step.interaction.id, approval, route.quorum, body, decision, dropped
            )

    async def _stale(self, interaction: Interaction, others: list[Vote]) -> dict[str, str]:
        """The other voters who no longer qualify, asked of Slack afresh, with why."""
        verdicts = await asyncio.gather(
            *(self._gate.no_longer_counts(interaction, v.approval.actor) for v in others)
        )
        return {v.user_id: why for v, why in zip(others, verdicts, strict=True) if why is not None}

    async def _write(self, steps: list[_Step], commit_by: float | None) -> None:
        live = self._live(steps)
        if not live:
            return
        now = self._clock()
        lease = now + timedelta(seconds=DELIVERY_LEASE_SECONDS)
        writes = [self._write_of(s, now, lease) for s in live]
        written = await self._store.write_decisions(writes, now, lease, commit_by=commit_by)
        for step, done in zip(live, written, strict=True):
            step.written = done

    def _decision(self, request: DecisionRequest, now: datetime) -> SlackDecision:
        via = THREAD_VIA if request.means is Means.THREAD_REPLY else None
        return SlackDecision(request.decider, now, request.verb, request.note, via, request.reply)

    def _write_of(self, step: _Step, now: datetime, lease: datetime) -> DecisionWrite:
        request = step.request
        decision = self._decision(request, now)
        use = None
        if request.allowance is not None:
            assert step.snapshot is not None and step.route is not None
            standing = step.route.standing
            max_seconds = standing.max_seconds if standing is not None else 0.0
            use = PlannedUse(
                step.snapshot, request.allowance, request.body, decision, lease, max_seconds
            )
        return DecisionWrite(
            request.interaction_id,
            request.body,
            decision,
            grant=step.grant,
            vote=step.vote,
            use=use,
            trail=partial(decision_trail, request, decision, step.rule, step.vote, self._clock),
        )

    # ------------------------------------------------------------------ after the ack

    async def _tell(self, steps: list[_Step]) -> list[Decided]:
        """Deliver what was queued, and say what each write did."""
        told: dict[int, Decided] = {}
        batches: dict[str, list[int]] = defaultdict(list)
        singles: list[int] = []
        for n, step in enumerate(steps):
            written = step.written
            if step.outcome is not None or written is None:
                told[n] = Decided(step.outcome or UNKNOWN)
            elif written.queued is not None:
                if step.request.means is Means.APPROVE_ALL and step.snapshot is not None:
                    batches[step.snapshot.root_run_id].append(n)
                else:
                    singles.append(n)
            else:
                told[n] = Decided(await self._not_written(step, written), written)
        delivered = await asyncio.gather(*(self._deliver_one(steps[n]) for n in singles))
        for n, outcome in zip(singles, delivered, strict=True):
            told[n] = Decided(self._granted(steps[n], outcome), steps[n].written)
        for root_run_id, members in batches.items():
            batch = [(steps[n].queued, steps[n].snapshot) for n in members]
            outcomes = await self._delivery.deliver_batch(root_run_id, batch)
            for n, outcome in zip(members, outcomes, strict=True):
                told[n] = Decided(outcome, steps[n].written)
        return [told[n] for n in range(len(steps))]

    async def _deliver_one(self, step: _Step) -> DecisionOutcome:
        source = "standing" if step.request.means is Means.ALLOWANCE else "click"
        return await self._delivery.deliver(step.queued, step.snapshot, source=source)

    @staticmethod
    def _granted(step: _Step, outcome: DecisionOutcome) -> DecisionOutcome:
        """An approval that granted an allowance is told as the grant's fate."""
        allowance = step.written.allowance if step.written is not None else None
        if allowance is None:
            return outcome
        if outcome.kind is OutcomeKind.DELIVERED:
            return DecisionOutcome(OutcomeKind.VOTED, Granted(allowance), outcome.interaction)
        fact = outcome.fact
        if outcome.kind in UNDELIVERED and isinstance(fact, Notice | Ended | BadAnswer):
            return DecisionOutcome(outcome.kind, NotGranted(fact), outcome.interaction)
        return outcome

    async def _not_written(self, step: _Step, written: Written) -> DecisionOutcome:
        """A vote that did not meet the quorum, or a decision the write's own checks
        refused (someone else's is on its way, or the interaction stopped waiting)."""
        interaction_id = step.request.interaction_id
        ballot = written.ballot
        if step.request.means is Means.ALLOWANCE:
            return NOT_USED
        if ballot is not None and not ballot.closed and step.vote is not None:
            await self._publisher.refresh_soon_by_id(interaction_id)
            return DecisionOutcome(
                OutcomeKind.VOTED,
                Tally(len(ballot.standing), step.vote.quorum, counted=ballot.counted),
            )
        ended = not_decidable(await self._store.get(interaction_id))
        if ended is not None:
            return ended
        other = await self._store.open_decision(interaction_id)
        by = other.decision.actor.user_id if other else None
        return DecisionOutcome(OutcomeKind.IN_FLIGHT, InFlight(by), step.snapshot)
