"""Standing approvals ("allowances"): granting one with an approval, using it on the
poll's new approvals, ending it (revoke, expiry, a policy that no longer allows it).

Granting is an Approve that asks `DecisionPath` for an allowance too: the same
gate, body check and outbox, the allowance written with the approval before the
ack. A rule offers allowances only with `allow_standing` and a quorum of 1
(`Route.standing`).

Using one is the poll's hook (`bot.sync.standing`): of the new pending
approvals, each that an allowance in force covers, under a rule that still
allows it, is decided on `DecisionPath` as its granter's approval: the gate asked
of the granter now, then one transaction that re-checks the allowance, tracks the
interaction without a message, records the use, queues the approval and audits
the use (whichever replica polls, a use happens once); then it is delivered
through the outbox like any decision. Each poll's uses of one allowance are
reported as one reply in the granting message's thread; a report is claimed in the
store before it is sent.

Every poll also ends what must end: allowances past their time (expired) and
those whose rule the policy in force no longer lets grant them (a reload that
removed `allow_standing` or raised the quorum). Each ending is audited once and
the granting message says so.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import groupby

from bot.clock import Clock
from bot.domain import Allowance, AllowanceScope, AllowanceUse, SlackActor
from bot.messages import Refresh
from bot.metrics import ALLOWANCES_USED
from bot.novo.models import Interaction
from bot.outcomes import DecisionOutcome, Notice, OutcomeKind
from bot.policy.live import LivePolicy
from bot.policy.routes import DEFAULTS_RULE, Route, resolve
from bot.services.acking import Acknowledge
from bot.services.approvals import VERB_APPROVED, approval_body
from bot.services.deciders import DeciderGate
from bot.services.deciding import DecisionPath
from bot.services.decision_request import DecisionRequest, Means
from bot.slack.gateway import SlackGateway
from bot.slack.render.allowance import OFFER_SCOPES, report_text
from bot.store import Store
from bot.store.audit import AuditEvent

log = logging.getLogger(__name__)


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
        path: DecisionPath,
        gate: DeciderGate,
        publisher: Refresh,
        slack: SlackGateway,
        policy: LivePolicy,
        clock: Clock,
    ) -> None:
        self._store = store
        self._path = path
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
        request = DecisionRequest(
            decider=actor,
            interaction_id=interaction_id,
            verb=VERB_APPROVED,
            body=approval_body(interaction_id, True),
            means=Means.BUTTON,
            standing=scope,
        )
        return await self._path.decide(request, acknowledge)

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
        """Use the allowances on the new approvals they cover, each as its granter's
        decision (`DecisionPath.decide_each`: the gate asked of the granter now, the
        allowance re-checked in the use's own transaction, which writes its audit)."""
        requests: list[DecisionRequest] = []
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
            if allowance is None:
                continue
            requests.append(
                DecisionRequest(
                    decider=allowance.granted_by,
                    interaction_id=interaction.id,
                    verb=VERB_APPROVED,
                    body=approval_body(interaction.id, True),
                    means=Means.ALLOWANCE,
                    allowance=allowance,
                    seen=interaction,
                )
            )
        used: set[str] = set()
        for request, decided in zip(requests, await self._path.decide_each(requests), strict=True):
            if decided.written is not None and decided.written.queued is not None:
                used.add(request.interaction_id)
                assert request.allowance is not None
                ALLOWANCES_USED.labels(request.allowance.rule).inc()
            elif decided.outcome.kind is OutcomeKind.REFUSED:
                log.info(
                    "allowance %d not used on %s: %s may no longer decide it",
                    request.allowance.id if request.allowance else 0,
                    request.interaction_id,
                    request.decider.user_id,
                )
        return used

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
