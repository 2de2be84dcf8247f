"""Delivering decisions: each queued decision becomes exactly one resolve call, never lost.

Decisions are written to the store's outbox by `bot.services.deciding` (the one
path every way of deciding takes), before Slack hears the ack and before anything
is sent; this service delivers them, and each stays in the outbox until Novo has
answered something final (200, 409, 404, 400). The decider's display name, which
the `reason` carries, is looked up here, at delivery time (a slow `users.info`
must not widen the window in which a crash loses an acknowledged click).
Outages leave a decision queued and `deliver_due` retries it with backoff, so a
click survives a Novo outage and a restart; a short lease keeps other replicas
off a decision while one delivers it.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta

from bot.clock import Clock
from bot.domain import Approval, SlackActor, SlackDecision, SlackMessageRef
from bot.messages import Refresh
from bot.metrics import count_decision
from bot.novo.client import NovoClient
from bot.novo.errors import (
    BadRequestError,
    ConflictError,
    InteractionNotFoundError,
    NovoError,
    ResolveRuleError,
)
from bot.novo.models import (
    BatchResolveItem,
    Interaction,
    ResolveInteractionBody,
)
from bot.novo.rules import MAX_BATCH_ITEMS, outcome_of, recorded_outcome
from bot.outcomes import BadAnswer, DecisionOutcome, Delivered, Ended, Notice, OutcomeKind
from bot.services.deciders import DeciderGate
from bot.services.reasons import slack_reason, standing_reason
from bot.store import QueuedDecision, Store
from bot.store.audit import AuditEvent, interaction_facts
from bot.store.rows import DecisionState
from bot.sync.final_metrics import observe_final

log = logging.getLogger(__name__)

REDELIVERY_BASE_SECONDS = 1.0
REDELIVERY_MAX_SECONDS = 60.0
# A delivery attempt is cut off after DELIVERY_ATTEMPT_SECONDS, well inside the lease
# that keeps other replicas off the decision meanwhile; when the process delivering
# it dies, another replica takes it over once the short lease ends.
DELIVERY_ATTEMPT_SECONDS = 5.0
DELIVERY_LEASE_SECONDS = 8.0
REDELIVERY_BATCH = 8  # claimed together and sent at once, so each is sent inside its lease
REDELIVERY_ROUNDS = 4  # batches per tick, so one tick never runs long

# The display name of a Slack user, given a fallback (`SlackGateway.display_name`).
NameLookup = Callable[[str, str | None], Awaitable[str]]
# Mark the thread reply a delivered decision was given in (the ✅).
ReplyMark = Callable[[SlackMessageRef], Awaitable[None]]


async def _no_lookup(user_id: str, fallback: str | None) -> str:
    return fallback or user_id


class DecisionService:
    def __init__(
        self,
        store: Store,
        novo: NovoClient,
        publisher: Refresh,
        clock: Clock,
        *,
        gate: DeciderGate,
        names: NameLookup = _no_lookup,
        mark_reply: ReplyMark | None = None,
        redelivery_base: float = REDELIVERY_BASE_SECONDS,
        redelivery_max: float = REDELIVERY_MAX_SECONDS,
    ) -> None:
        self._store = store
        self._names = names
        self._mark_reply = mark_reply
        self._gate = gate
        self._novo = novo
        self._publisher = publisher
        self._clock = clock
        self._redelivery_base = redelivery_base
        self._redelivery_max = redelivery_max

    async def deliver_due(self) -> list[tuple[QueuedDecision, DecisionOutcome]]:
        """Retry queued decisions whose time has come (the scheduler calls this).

        A few at a time, each batch claimed in one statement (another replica's
        run never gets the same one) and sent at once, so every decision is sent
        while its short lease still keeps the others off it.
        """
        results: list[tuple[QueuedDecision, DecisionOutcome]] = []
        for _ in range(REDELIVERY_ROUNDS):
            now = self._clock()
            lease = now + timedelta(seconds=DELIVERY_LEASE_SECONDS)
            batch = await self._store.claim_due_decisions(now, lease, limit=REDELIVERY_BATCH)
            if not batch:
                break
            outcomes = await asyncio.gather(*(self._redeliver(queued) for queued in batch))
            results.extend(zip(batch, outcomes, strict=True))
        return results

    async def _redeliver(self, queued: QueuedDecision) -> DecisionOutcome:
        """Send a queued decision again, unless Novo already holds it.

        An earlier attempt may have been applied with its answer lost (a timeout, a 5xx
        from a gateway, this process killed mid-call). Resending the same outcome is
        harmless to Novo (idempotent), but it is a second resolve of a decision taken
        once, so the record is read first and, when it carries this decision's outcome
        and reason, the decision is closed as delivered without a call.
        """
        tracked = await self._store.get(queued.interaction_id)
        snapshot = tracked.snapshot if tracked else None
        decision, body = await self._labelled(queued)
        taken = await self._taken_already(queued.interaction_id, body)
        if taken is None:
            return await self.deliver(queued, snapshot, source="redelivery")
        outcome = await self._delivered(queued, decision, body, snapshot, taken)
        count_decision(outcome.kind.value, source="redelivery", first_attempt=False)
        return outcome

    async def _taken_already(
        self, interaction_id: str, body: ResolveInteractionBody
    ) -> Interaction | None:
        """Novo's record when it already carries this body's outcome and reason (so an
        earlier attempt of this very decision was applied); None to send it."""
        try:
            async with asyncio.timeout(DELIVERY_ATTEMPT_SECONDS):
                current = await self._novo.get(interaction_id)
        except (TimeoutError, NovoError):
            return None  # sending finds out; Novo takes the same outcome again as a no-op
        if current.ending_reason != body.reason or current.is_pending:
            return None
        if recorded_outcome(current) != outcome_of(current, body):
            return None
        return current

    async def deliver(
        self, queued: QueuedDecision, snapshot: Interaction | None, *, source: str = "click"
    ) -> DecisionOutcome:
        outcome = await self._deliver(queued, snapshot)
        count_decision(outcome.kind.value, source=source, first_attempt=queued.attempts == 0)
        return outcome

    async def _deliver(
        self, queued: QueuedDecision, snapshot: Interaction | None
    ) -> DecisionOutcome:
        decision, body = await self._labelled(queued)
        try:
            async with asyncio.timeout(DELIVERY_ATTEMPT_SECONDS):
                result = await self._novo.resolve(queued.interaction_id, body, interaction=snapshot)
        except TimeoutError:
            return await self._later(queued, f"no answer within {DELIVERY_ATTEMPT_SECONDS:.0f}s")
        except ConflictError:
            return await self._on_conflict(queued, snapshot)
        except InteractionNotFoundError:
            return await self._gone(queued)
        except (BadRequestError, ResolveRuleError) as exc:
            return await self._rejected(queued, exc.message)
        except NovoError as exc:
            return await self._later(queued, str(exc))
        return await self._delivered(queued, decision, body, snapshot, result)

    async def deliver_batch(
        self, root_run_id: str, batch: Sequence[tuple[QueuedDecision, Interaction | None]]
    ) -> list[DecisionOutcome]:
        """Deliver queued decisions on one run's siblings with `resolveBatch`, in order.

        Each item keeps its own reason and its own outcome; a failed call
        leaves every item queued for redelivery one by one (resolving an item
        alone means the same as in a batch).
        """
        if not batch:
            return []
        labelled = await asyncio.gather(*(self._labelled(q) for q, _ in batch))
        items = [
            BatchResolveItem(
                id=queued.interaction_id,
                input_responses=body.input_responses,
                cancel=body.cancel,
                reason=body.reason,
            )
            for (queued, _), (_, body) in zip(batch, labelled, strict=True)
        ]
        calls = -(-len(items) // MAX_BATCH_ITEMS)
        try:
            async with asyncio.timeout(DELIVERY_ATTEMPT_SECONDS * calls):
                answered = await self._novo.resolve_batch(root_run_id, items)
        except TimeoutError:
            error = f"no answer within {DELIVERY_ATTEMPT_SECONDS * calls:.0f}s"
            return [await self._later(queued, error) for queued, _ in batch]
        except NovoError as exc:
            return [await self._later(queued, str(exc)) for queued, _ in batch]
        outcomes = await asyncio.gather(
            *(
                self._batch_item(queued, snapshot, decision, body, result.status)
                for (queued, snapshot), (decision, body), result in zip(
                    batch, labelled, answered.items, strict=True
                )
            )
        )
        for (queued, _), outcome in zip(batch, outcomes, strict=True):
            count_decision(outcome.kind.value, source="batch", first_attempt=queued.attempts == 0)
        return list(outcomes)

    async def _batch_item(
        self,
        queued: QueuedDecision,
        snapshot: Interaction | None,
        decision: SlackDecision,
        body: ResolveInteractionBody,
        status: str,
    ) -> DecisionOutcome:
        if status in ("resolved", "already_resolved"):
            try:
                async with asyncio.timeout(DELIVERY_ATTEMPT_SECONDS):
                    current = await self._novo.get(queued.interaction_id)
            except (TimeoutError, NovoError) as exc:
                log.warning("could not re-read %s after a batch: %r", queued.interaction_id, exc)
                current = None  # the next poll finds it no longer pending and shows it
            return await self._delivered(queued, decision, body, snapshot, current)
        if status == "conflict":
            return await self._on_conflict(queued, snapshot)
        if status == "not_found":
            return await self._gone(queued)
        return await self._rejected(queued, f"the item was refused ({status})")

    async def _labelled(
        self, queued: QueuedDecision
    ) -> tuple[SlackDecision, ResolveInteractionBody]:
        """The decision with the decider named, and the body carrying its reason."""
        decision = await self._named(queued.decision)
        if queued.standing_until is not None:
            reason = standing_reason(decision.verb, decision.actor, queued.standing_until)
        else:
            approvals = await self._approvers(queued, decision.actor)
            reason = slack_reason(decision.verb, approvals, via=decision.via)
        return decision, queued.body.model_copy(update={"reason": reason})

    async def _delivered(
        self,
        queued: QueuedDecision,
        decision: SlackDecision,
        body: ResolveInteractionBody,
        before: Interaction | None,
        result: Interaction | None,
    ) -> DecisionOutcome:
        interaction_id = queued.interaction_id
        known = result or before
        facts = interaction_facts(known, self._rule_of(known)) if known is not None else {}
        await self._store.record(
            "resolved",
            self._clock(),
            interaction_id=interaction_id,
            actor_id=decision.actor.user_id,
            body=body.to_wire(),
            answer=(
                {"status": result.status, "decision": result.decision}
                if result is not None
                else None
            ),
            **facts,
        )
        if result is not None:
            observe_final(before, result, self._rule_of(result))
            await self._store.update_snapshot(result, self._clock())
        await self._store.record_slack_decision(interaction_id, decision)
        await self._store.finish_decision(queued.id, "delivered", self._clock())
        await self._publisher.refresh_soon_by_id(interaction_id)
        if decision.reply is not None and self._mark_reply is not None:
            await self._mark_reply(decision.reply)  # first delivery or redelivery alike
        log.info("%s %s (%s)", decision.verb, interaction_id, decision.actor.user_id)
        return DecisionOutcome(OutcomeKind.DELIVERED, Delivered(decision.verb), result)

    async def _close_undelivered(
        self, queued: QueuedDecision, state: DecisionState, error: str
    ) -> None:
        """Close a decision Novo did not take; an allowance granted with it ended with it
        (in the same transaction), which the trail records here."""
        if not await self._store.finish_decision(queued.id, state, self._clock(), error):
            return
        refused = [
            a
            for a in await self._store.allowances_granted_on(queued.interaction_id)
            if a.ended == "refused"
        ]
        await self._store.record_many(
            [
                AuditEvent(
                    "allowance_refused",
                    self._clock(),
                    a.interaction_id,
                    a.granted_by.user_id,
                    {"allowance": a.id, "rule": a.rule, "why": state},
                )
                for a in refused
            ]
        )

    async def _gone(self, queued: QueuedDecision) -> DecisionOutcome:
        await self._close_undelivered(queued, "gone", "404")
        await self._store.record(
            "not_found", self._clock(), interaction_id=queued.interaction_id, status=404
        )
        await self._store.mark_gone(queued.interaction_id, self._clock())
        await self._publisher.refresh_soon_by_id(queued.interaction_id)
        return DecisionOutcome(OutcomeKind.GONE, Notice.GONE)

    async def _rejected(self, queued: QueuedDecision, message: str) -> DecisionOutcome:
        await self._close_undelivered(queued, "rejected", message)
        await self._store.record(
            "rejected", self._clock(), interaction_id=queued.interaction_id, message=message
        )
        await self._publisher.refresh_soon_by_id(queued.interaction_id)
        log.warning("Novo refused the decision on %s: %s", queued.interaction_id, message)
        return DecisionOutcome(OutcomeKind.REJECTED, BadAnswer(message, by_novo=True))

    async def _later(self, queued: QueuedDecision, error: str) -> DecisionOutcome:
        """Novo did not answer finally: keep the decision and try again after a while."""
        delay = self._redelivery_delay(queued.attempts)
        next_at = self._clock() + timedelta(seconds=delay)
        await self._store.retry_decision_later(queued.id, next_at, error, self._clock())
        await self._store.record(
            "delivery_failed",
            self._clock(),
            interaction_id=queued.interaction_id,
            error=error,
            attempt=queued.attempts + 1,
        )
        await self._publisher.refresh_soon_by_id(queued.interaction_id)
        # the first failure is news; the retries of one decision are not (the outbox
        # metrics and the audit trail count them)
        log.log(
            logging.WARNING if queued.attempts == 0 else logging.DEBUG,
            "could not deliver decision on %s (attempt %d): %s; retrying in %.1fs",
            queued.interaction_id,
            queued.attempts + 1,
            error,
            delay,
        )
        return DecisionOutcome(OutcomeKind.QUEUED, Notice.QUEUED)

    def _rule_of(self, interaction: Interaction) -> str:
        return self._gate.route(interaction).rule

    async def _approvers(self, queued: QueuedDecision, actor: SlackActor) -> list[Approval]:
        """Who the reason names: a quorum decision names exactly the approvals it was
        sealed with, each with its note; any other decision names its decider."""
        if not queued.approvers:
            return [Approval(actor, queued.decision.note)]
        names = await asyncio.gather(
            *(self._names(a.actor.user_id, a.actor.display_name) for a in queued.approvers)
        )
        return [
            Approval(SlackActor(a.actor.user_id, name), a.note)
            for a, name in zip(queued.approvers, names, strict=True)
        ]

    async def _named(self, decision: SlackDecision) -> SlackDecision:
        """The decision with the decider's display name, as the reason should carry it."""
        actor = decision.actor
        name = await self._names(actor.user_id, actor.display_name)
        if name == actor.display_name:
            return decision
        return SlackDecision(
            actor=SlackActor(actor.user_id, name),
            at=decision.at,
            verb=decision.verb,
            note=decision.note,
            via=decision.via,
            reply=decision.reply,
        )

    async def _on_conflict(
        self, queued: QueuedDecision, before: Interaction | None
    ) -> DecisionOutcome:
        interaction_id = queued.interaction_id
        await self._close_undelivered(queued, "conflict", "409")
        await self._store.record(
            "conflict", self._clock(), interaction_id=interaction_id, status=409
        )
        try:
            current = await self._novo.get(interaction_id)
        except InteractionNotFoundError:
            await self._store.mark_gone(interaction_id, self._clock())
            current = None
        except NovoError as exc:
            log.warning("could not re-read %s after a conflict: %s", interaction_id, exc)
            current = None
        if current is not None:
            observe_final(before, current, self._rule_of(current))
            await self._store.update_snapshot(current, self._clock())
        await self._publisher.refresh_soon_by_id(interaction_id)
        tracked = await self._store.get(interaction_id)
        if current is None or tracked is None:
            return DecisionOutcome(OutcomeKind.CONFLICT, Notice.DECIDED_FIRST)
        ended = Ended(current, tracked.decided_in_slack, lost_race=True)
        return DecisionOutcome(OutcomeKind.CONFLICT, ended, current)

    def _redelivery_delay(self, attempts: int) -> float:
        ceiling = min(self._redelivery_max, self._redelivery_base * (2**attempts))
        return random.uniform(ceiling / 2, ceiling)
