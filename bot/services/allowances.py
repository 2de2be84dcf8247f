"""Standing approvals ("allowances"): granting one with an approval, using it on the
poll's new approvals, ending it (revoke, expiry, a policy that no longer allows it).

Granting goes through exactly what Approve does for a rule of quorum 1 (the
decider gate, the body check, the outbox, the same reason); the allowance is
recorded before the ack, with the decision. A rule offers allowances only with
`allow_standing` and a quorum of 1 (`Route.standing`).

Using one is the poll's hook (`bot.sync.standing`): of the new pending
approvals, each that an allowance in force covers, under a rule that still
allows it, is tracked without a message, its use recorded and its approval
queued in one store transaction (`Store.use_allowances`: whichever replica
polls, a use happens once), then delivered through the outbox like any
decision. Each poll's uses of one allowance are reported as one reply in the
granting message's thread; a report is claimed in the store before it is sent.

Every poll also ends what must end: allowances past their time (expired) and
those whose rule the policy in force no longer lets grant them (a reload that
removed `allow_standing` or raised the quorum). Each ending is audited once and
the granting message says so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import timedelta
from itertools import groupby

from bot.clock import Clock
from bot.domain import Allowance, AllowanceScope, AllowanceUse, SlackActor, SlackDecision
from bot.messages import Refresh
from bot.metrics import ALLOWANCES_USED
from bot.novo.models import Interaction
from bot.outcomes import (
    BadAnswer,
    DecisionOutcome,
    Ended,
    Granted,
    NotGranted,
    Notice,
    OutcomeKind,
)
from bot.policy.live import LivePolicy
from bot.policy.routes import DEFAULTS_RULE, Route, resolve
from bot.services.acking import Acknowledge, Stage, before_ack, window_of
from bot.services.approvals import VERB_APPROVED, approval_body
from bot.services.deciders import DeciderGate
from bot.services.decisions import DELIVERY_LEASE_SECONDS, DecisionService
from bot.services.shown import stood_in
from bot.slack.gateway import SlackGateway
from bot.slack.render.allowance import OFFER_SCOPES, StandingOffer, report_text
from bot.store import QueuedDecision, Store
from bot.store.allowances import Grant, PlannedUse
from bot.store.audit import AuditEvent

log = logging.getLogger(__name__)

UNDELIVERED = frozenset({OutcomeKind.CONFLICT, OutcomeKind.GONE, OutcomeKind.REJECTED})
"""What Novo answered when it did not take an approval (its allowance is ended)."""


def scope_of(choice: str | None) -> AllowanceScope | None:
    """The allowance an overflow choice asks for, or None when it asks for none."""
    return OFFER_SCOPES.get(choice) if choice is not None else None


def _permits(route: Route, allowance: Allowance) -> bool:
    """Whether the policy in force still lets this allowance stand under its rule."""
    standing = route.standing
    return (
        route.rule == allowance.rule and standing is not None and allowance.scope in standing.scopes
    )


class AllowanceService:
    def __init__(
        self,
        store: Store,
        decisions: DecisionService,
        gate: DeciderGate,
        publisher: Refresh,
        slack: SlackGateway,
        policy: LivePolicy,
        clock: Clock,
    ) -> None:
        self._store = store
        self._decisions = decisions
        self._gate = gate
        self._publisher = publisher
        self._slack = slack
        self._policy = policy
        self._clock = clock

    # ------------------------------------------------------------------ granting

    async def grant(
        self,
        interaction_id: str,
        actor: SlackActor,
        scope: AllowanceScope,
        acknowledge: Acknowledge | None = None,
    ) -> DecisionOutcome:
        """Approve as Approve does, and allow the tool for the scope's time: the allowance
        is written with the approval, and takes effect once the approval is delivered."""
        window = window_of(acknowledge)
        done = await before_ack(
            window,
            lambda stage: self._record(
                interaction_id, actor, scope, stage=stage, commit_by=window.deadline
            ),
        )
        if isinstance(done, DecisionOutcome):
            return done
        queued, snapshot = done
        outcome = await self._decisions.deliver(queued, snapshot)
        if outcome.kind is OutcomeKind.DELIVERED:
            granted = await self._store.allowances_granted_on(interaction_id)
            if granted:
                return DecisionOutcome(OutcomeKind.VOTED, Granted(granted[-1]), outcome.interaction)
            return outcome
        fact = outcome.fact
        if outcome.kind in UNDELIVERED and isinstance(fact, Notice | Ended | BadAnswer):
            return DecisionOutcome(outcome.kind, NotGranted(fact), outcome.interaction)
        return outcome

    async def _record(
        self,
        interaction_id: str,
        actor: SlackActor,
        scope: AllowanceScope,
        *,
        stage: Stage,
        commit_by: float,
    ) -> DecisionOutcome | tuple[QueuedDecision, Interaction]:
        tracked = await self._store.get(interaction_id)
        ended = self._decisions.not_decidable(tracked)
        if ended is not None or tracked is None:
            return ended or DecisionOutcome(OutcomeKind.UNKNOWN, Notice.UNKNOWN)
        snapshot = tracked.snapshot
        route = self._gate.route(snapshot)
        standing = route.standing
        if (
            tracked.kind != "approval_request"
            or standing is None
            or scope not in standing.scopes
            or not snapshot.tool_name
        ):
            return DecisionOutcome(OutcomeKind.REFUSED, Notice.STANDING_NOT_OFFERED, snapshot)
        now = self._clock()
        seconds = StandingOffer(tuple(standing.scopes), standing.max_seconds).seconds_for(scope)
        grant = Grant(
            rule=route.rule,
            scope=scope,
            agent_id=snapshot.agent_id,
            tool_name=snapshot.tool_name,
            root_run_id=snapshot.root_run_id if scope == "run" else None,
            granted_by=actor,
            granted_at=now,
            until=now + timedelta(seconds=seconds),
            interaction_id=interaction_id,
        )
        recorded = await self._decisions.record(
            interaction_id,
            approval_body(interaction_id, True),
            SlackDecision(actor=actor, at=now, verb=VERB_APPROVED),
            stage=stage,
            commit_by=commit_by,
            grant=grant,
        )
        if not isinstance(recorded, DecisionOutcome):
            await self._publisher.refresh_soon_by_id(interaction_id)
        return recorded

    # ------------------------------------------------------------------ revoking

    async def revoke(self, allowance_id: str, actor: SlackActor) -> DecisionOutcome:
        """End an allowance at once: its granter, or anyone who may decide under its rule."""
        allowance = (
            await self._store.allowance(int(allowance_id)) if allowance_id.isdigit() else None
        )
        if allowance is None or not allowance.in_force(self._clock()):
            return DecisionOutcome(OutcomeKind.NOT_WAITING, Notice.ALLOWANCE_ENDED)
        if actor.user_id != allowance.granted_by.user_id and not await self._may_revoke(
            allowance, actor
        ):
            return DecisionOutcome(OutcomeKind.REFUSED, Notice.ALLOWANCE_NOT_YOURS)
        ended = await self._store.end_allowances(
            [allowance.id], "revoked", self._clock(), by=actor.user_id
        )
        if not ended:
            return DecisionOutcome(OutcomeKind.NOT_WAITING, Notice.ALLOWANCE_ENDED)
        await self._ended(ended, actor.user_id)
        return DecisionOutcome(OutcomeKind.VOTED, Notice.ALLOWANCE_REVOKED)

    async def _may_revoke(self, allowance: Allowance, actor: SlackActor) -> bool:
        tracked = await self._store.get(allowance.interaction_id)
        return tracked is not None and await self._gate.may_decide(tracked.snapshot, actor)

    async def _ended(self, ended: Sequence[Allowance], by: str | None = None) -> None:
        now = self._clock()
        await self._store.record_many(
            [
                AuditEvent(
                    "allowance_expired" if a.ended == "expired" else "allowance_revoked",
                    now,
                    a.interaction_id,
                    by,
                    {"allowance": a.id, "rule": a.rule, "why": a.ended},
                )
                for a in ended
            ]
        )
        for allowance in ended:
            await self._publisher.refresh_soon_by_id(allowance.interaction_id)

    async def visible_to(self, actor: SlackActor) -> tuple[list[Allowance], list[Allowance]]:
        """(this person's allowances in force, the others in force under rules they may
        decide), for their App Home."""
        now = self._clock()
        mine: list[Allowance] = []
        theirs: list[Allowance] = []
        for allowance in await self._store.open_allowances():
            if not allowance.in_force(now):
                continue
            if allowance.granted_by.user_id == actor.user_id:
                mine.append(allowance)
            elif await self._may_revoke(allowance, actor):
                theirs.append(allowance)
        return mine, theirs

    # ------------------------------------------------------------------ using (the poll's hook)

    async def take(self, new: Sequence[Interaction]) -> set[str]:
        """Of a poll's new interactions, those an allowance approved (they are not posted)."""
        in_force = await self._sweep()
        taken: set[str] = set()
        if in_force and new:
            taken = await self._use(new, in_force)
        await self._report()
        return taken

    async def _sweep(self) -> list[Allowance]:
        """End what expired or the policy no longer permits; the allowances still in force."""
        now = self._clock()
        expired: list[int] = []
        stopped: list[int] = []
        kept: list[Allowance] = []
        for allowance in await self._store.open_allowances():
            if not allowance.in_force(now):
                expired.append(allowance.id)
            elif not self._rule_permits(allowance):
                stopped.append(allowance.id)
            else:
                kept.append(allowance)
        ended = [
            *await self._store.end_allowances(expired, "expired", now),
            *await self._store.end_allowances(stopped, "policy", now),
        ]
        if ended:
            await self._ended(ended)
        return kept

    def _rule_permits(self, allowance: Allowance) -> bool:
        """Whether the rule the allowance was granted under, as the policy in force has
        it, still allows standing approvals of its scope (a rule gone allows none)."""
        policy = self._policy.current
        rule = next((r for r in policy.rules if r.name == allowance.rule), None)
        if rule is None and allowance.rule != DEFAULTS_RULE:
            return False
        return _permits(resolve(policy, rule, self._policy.default_channel), allowance)

    async def _use(self, new: Sequence[Interaction], in_force: Sequence[Allowance]) -> set[str]:
        """Use the allowances on the new approvals they cover, one at a time: each use asks
        the decider gate about the granter now, and its own transaction checks the
        allowance is still in force (`Store.use_allowance`)."""
        used: dict[str, Interaction] = {}
        for interaction in new:
            if interaction.kind != "approval_request" or not interaction.is_pending:
                continue
            route = self._gate.route(interaction)
            allowance = next(
                (
                    a
                    for a in in_force
                    if a.covers(
                        interaction.agent_id, interaction.tool_name, interaction.root_run_id
                    )
                    and _permits(route, a)
                ),
                None,
            )
            if allowance is None or route.standing is None:
                continue
            if not await self._granter_may_decide(interaction, allowance):
                continue
            plan = self._plan(interaction, allowance, route.standing.max_seconds)
            if await self._store.use_allowance(plan, plan.decision.at):
                used[interaction.id] = interaction
                ALLOWANCES_USED.labels(allowance.rule).inc()
        if not used:
            return set()
        queued = await self._store.open_decisions(list(used))
        await asyncio.gather(
            *(
                self._decisions.deliver(q, used[q.interaction_id], source="standing")
                for q in queued.values()
            )
        )
        return set(used)

    async def _granter_may_decide(self, interaction: Interaction, allowance: Allowance) -> bool:
        """The gate a click passes, asked of the granter under the rule as it is now (a
        reload or a group change since the grant stops the allowance's uses)."""
        if await self._gate.may_decide(interaction, allowance.granted_by):
            return True
        log.info(
            "allowance %d not used on %s: %s may no longer decide it",
            allowance.id,
            interaction.id,
            allowance.granted_by.user_id,
        )
        return False

    def _plan(
        self, interaction: Interaction, allowance: Allowance, max_seconds: float
    ) -> PlannedUse:
        now = self._clock()
        granter = allowance.granted_by.user_id
        return PlannedUse(
            interaction,
            allowance,
            approval_body(interaction.id, True),
            SlackDecision(actor=allowance.granted_by, at=now, verb=VERB_APPROVED),
            now + timedelta(seconds=DELIVERY_LEASE_SECONDS),
            max_seconds,
            (
                AuditEvent(
                    "allowance_used",
                    now,
                    interaction.id,
                    granter,
                    {"allowance": allowance.id, "shown": stood_in(allowance).detail()},
                ),
            ),
        )

    async def _report(self) -> None:
        """One thread reply per granting message for the uses not yet reported."""
        uses = await self._store.claim_unreported_uses(self._clock())
        uses.sort(key=lambda u: u.allowance_id)  # stable: each group stays in order of use
        for allowance_id, group in groupby(uses, key=lambda u: u.allowance_id):
            await self._report_one(allowance_id, list(group))

    async def _report_one(self, allowance_id: int, uses: list[AllowanceUse]) -> None:
        allowance = await self._store.allowance(allowance_id)
        if allowance is None:
            return
        granting = await self._store.get(allowance.interaction_id)
        if granting is None or granting.ts is None:
            return
        try:
            await self._slack.post_reply(
                granting.shown_in, granting.ts, report_text(uses, allowance.granted_by.user_id)
            )
        except Exception as exc:  # the uses are approved; only the report is lost
            log.warning(
                "could not report %d use(s) of allowance %d: %r", len(uses), allowance_id, exc
            )
