"""The simulator's in-memory interactions and what the API does to them, without HTTP.

Every resolve-body rule and the idempotency comparison come from
`bot.novo.rules`, so the simulator cannot drift from the client. What lives
here is the server's side of Part 1 and Part 2 of the API doc: the record a
resolve leaves behind, pages cut by `paging.py`'s position cursors, expiry
that cancels a whole run, and tolerance of terminated runs.

The clock is injected so tests can move time; every public method first
applies expiry, so no caller ever sees a pending interaction whose
`expiresAt` has passed.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from bot.clock import Clock, utc_now
from bot.novo.errors import ResolveRuleError
from bot.novo.models import (
    TIMEOUT_REASON,
    BatchItemResult,
    BatchItemStatus,
    Decision,
    Interaction,
    InteractionStatus,
    Page,
    ResolveInteractionBody,
)
from bot.novo.rules import (
    MAX_BATCH_ITEMS,
    PAGE_LIMIT_DEFAULT,
    PAGE_LIMIT_MAX,
    check_resolve_body,
    decision_for,
    outcome_of,
    recorded_outcome,
)
from novo_dev.sim.errors import SimError, invalid_request, not_found
from novo_dev.sim.paging import ListFilter, decode_cursor, encode_cursor, sort_key
from novo_dev.sim.spec import InteractionSpec

DEFAULT_PARK_SECONDS = 900.0
QUESTION_TOOL_NAME = "ask_question"
DEFAULT_APPROVAL_TOOL_NAME = "custom_tool"

_ANSWER_FIELDS = {"request_id", "option_id", "option_ids", "text"}


def _to_millis(value: datetime) -> datetime:
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def new_id(prefix: str) -> str:
    """An id in the doc's `prefix_…` form."""
    return f"{prefix}_{secrets.token_hex(8)}"


def _sort_key_by_deadline(item: Interaction) -> tuple[datetime, str]:
    return (item.expires_at or item.created_at, item.id)


def _recorded_body(body: ResolveInteractionBody) -> dict[str, Any]:
    """The resolution as the API speaks it: the answers (or cancel) and the reason."""
    recorded: dict[str, Any]
    if body.cancel:
        recorded = {"cancel": True}
    else:
        recorded = {
            "inputResponses": [
                entry.model_dump(
                    mode="json", by_alias=True, exclude_none=True, include=_ANSWER_FIELDS
                )
                for entry in body.input_responses or []
            ]
        }
    recorded["reason"] = body.reason
    return recorded


class SimState:
    """All interactions of one simulator, and the terminated runs it has been told of."""

    def __init__(
        self, clock: Clock = utc_now, *, park_seconds: float = DEFAULT_PARK_SECONDS
    ) -> None:
        self._clock = clock
        self.park_seconds = park_seconds
        self._items: dict[str, Interaction] = {}
        # Ten thousand waiting are listed a hundred a page, each page a request of its
        # own: the list order is kept rather than sorted per page (createdAt and id never
        # change), and no deadline is looked for before the earliest one can have come.
        self._order: list[tuple[datetime, str]] = []
        self._quiet_until: datetime | None = None  # no pending deadline before it; None: unknown
        self._terminated: set[str] = set()
        self._seq = 0
        self._changed = asyncio.Event()

    def now(self) -> datetime:
        """The clock cut to the wire's milliseconds, so records compare as clients see them."""
        return _to_millis(self._clock())

    # -- creating and reading ---------------------------------------------------------------

    def create(self, spec: InteractionSpec) -> Interaction:
        self.expire_due()
        now = self.now()
        self._seq += 1
        # The sequence keeps ids in creation order when two share a createdAt.
        interaction_id = spec.id or f"int_{self._seq:06x}{secrets.token_hex(7)}"
        if interaction_id in self._items:
            raise SimError(409, "conflict", f"interaction {interaction_id!r} already exists")
        run_id = spec.run_id or new_id("run")
        is_question = spec.kind == "question"
        seconds = self.park_seconds if spec.expires_in_seconds is None else spec.expires_in_seconds
        item = Interaction(
            id=interaction_id,
            run_id=run_id,
            root_run_id=spec.root_run_id or run_id,
            worker_ref=spec.worker_ref,
            thread_id=spec.thread_id or new_id("thr"),
            agent_id=spec.agent_id or new_id("agt"),
            kind=spec.kind,
            status="pending",
            step_number=spec.step_number,
            tool_name=spec.tool_name
            or (QUESTION_TOOL_NAME if is_question else DEFAULT_APPROVAL_TOOL_NAME),
            tool_call_id=spec.tool_call_id or new_id("call"),
            hook_id=None if is_question else (spec.hook_id or new_id("hook")),
            input=None if is_question else ({} if spec.input is None else spec.input),
            preview=spec.preview,
            request=spec.request,
            expires_at=_to_millis(now + timedelta(seconds=seconds)),
            created_at=now,
            updated_at=now,
        )
        self._items[item.id] = item
        bisect.insort(self._order, sort_key(item))
        if self._quiet_until is not None and item.expires_at is not None:
            self._quiet_until = min(self._quiet_until, item.expires_at)
        self._changed.set()
        return item.model_copy(deep=True)

    def get(self, interaction_id: str) -> Interaction:
        self.expire_due()
        return self._find(interaction_id).model_copy(deep=True)

    def interactions(self) -> list[Interaction]:
        """Every interaction, oldest first."""
        self.expire_due()
        return [i.model_copy(deep=True) for i in sorted(self._items.values(), key=sort_key)]

    def list_page(
        self,
        where: ListFilter | None = None,
        *,
        limit: int = PAGE_LIMIT_DEFAULT,
        cursor: str | None = None,
    ) -> Page[dict[str, Any]]:
        """One page of the list, each record in its wire form: serialised straight from
        the state (a deep copy first cost three times the serialising, at every poll of
        every bridge under test), and no reader can change the state through it."""
        if not 1 <= limit <= PAGE_LIMIT_MAX:
            raise invalid_request(f"limit must be between 1 and {PAGE_LIMIT_MAX}")
        after = decode_cursor(cursor) if cursor is not None else None
        self.expire_due()
        where = where or ListFilter()
        start = 0 if after is None else bisect.bisect_right(self._order, after)
        found: list[Interaction] = []
        for _, interaction_id in itertools.islice(self._order, start, None):
            item = self._items[interaction_id]
            if where.matches(item):
                found.append(item)
                if len(found) > limit:
                    break
        has_more = len(found) > limit
        return Page[dict[str, Any]](
            data=[i.to_wire() for i in found[:limit]],
            has_more=has_more,
            next_cursor=encode_cursor(found[limit - 1]) if has_more else None,
        )

    def _find(self, interaction_id: str) -> Interaction:
        item = self._items.get(interaction_id)
        if item is None:
            raise not_found(interaction_id)
        return item

    # -- resolving ---------------------------------------------------------------------------

    def resolve(self, interaction_id: str, body: ResolveInteractionBody) -> Interaction:
        """Resolve one interaction.

        Raises `SimError` (404, 409) or `ResolveRuleError` (400 with its type).
        The body is checked against the interaction first, whatever its status:
        a finalized one answers 409 only to a body that would have been valid.
        """
        self.expire_due()
        item, _ = self._resolve(self._find(interaction_id), body)
        return item.model_copy(deep=True)

    def resolve_batch(self, root_run_id: str, items: Sequence[object]) -> list[BatchItemResult]:
        """Resolve each item on its own; a bad one rolls nothing back."""
        if len(items) > MAX_BATCH_ITEMS:
            raise invalid_request(f"a batch holds at most {MAX_BATCH_ITEMS} items")
        self.expire_due()
        return [self._batch_item(root_run_id, raw) for raw in items]

    def _batch_item(self, root_run_id: str, raw: object) -> BatchItemResult:
        fields = raw if isinstance(raw, dict) else {}
        raw_id = fields.get("id")
        if not isinstance(raw_id, str) or not raw_id:
            return BatchItemResult(id=None, status="invalid_body")
        item = self._items.get(raw_id)
        if item is None or item.root_run_id != root_run_id:
            return BatchItemResult(id=raw_id, status="not_found")
        status: BatchItemStatus
        try:
            body = ResolveInteractionBody.model_validate(
                {k: v for k, v in fields.items() if k != "id"}, strict=True
            )
            _, changed = self._resolve(item, body)
            status = "resolved" if changed else "already_resolved"
        except (ValidationError, ResolveRuleError):
            status = "invalid_body"
        except SimError as exc:
            if exc.status != 409:
                raise
            status = "conflict"
        return BatchItemResult(id=raw_id, status=status)

    def _resolve(self, item: Interaction, body: ResolveInteractionBody) -> tuple[Interaction, bool]:
        """(the record after the call, whether this call changed it)."""
        check_resolve_body(item, body)
        if not item.is_pending:
            if recorded_outcome(item) != outcome_of(item, body):
                raise SimError(
                    409,
                    "idempotency_key_conflict",
                    f"interaction {item.id!r} was already {item.status} with a different outcome",
                )
            return item, False
        now = self.now()
        decision: Decision | None = None
        if item.kind == "approval_request":
            entries = body.input_responses or []
            decision = "cancel" if body.cancel else decision_for(entries[0].option_id)
        # Part 1: a terminated run's interaction is finalized as resolved, whatever the body.
        status: InteractionStatus = (
            "cancelled" if body.cancel and not self._is_terminated(item) else "resolved"
        )
        done = item.model_copy(
            update={
                "status": status,
                "decision": decision,
                "reason": body.reason,
                "resolution": _recorded_body(body),
                "expires_at": None,
                "resolved_at": now,
                "updated_at": now,
            }
        )
        self._items[item.id] = done
        return done, True

    # -- runs, expiry, time ------------------------------------------------------------------

    def terminate(self, run_id: str) -> int:
        """Mark a run (and its workers) terminated; returns how many pending interactions it has.

        The interactions stay pending, as on the platform: nothing is waiting
        on them any more, but a resolve is still accepted and finalizes them.
        """
        self.expire_due()
        self._terminated.add(run_id)
        return sum(1 for i in self._items.values() if i.is_pending and self._is_terminated(i))

    def _is_terminated(self, item: Interaction) -> bool:
        return item.run_id in self._terminated or item.root_run_id in self._terminated

    def extend(self, interaction_id: str, seconds: float) -> Interaction:
        """Move a pending interaction's `expiresAt` later (a run with a longer maxDurationMs)."""
        if seconds < 0:
            raise invalid_request("seconds must not be negative")
        self.expire_due()
        item = self._find(interaction_id)
        if not item.is_pending or item.expires_at is None:
            raise SimError(409, "conflict", f"interaction {interaction_id!r} is {item.status}")
        moved = item.model_copy(
            update={
                "expires_at": _to_millis(item.expires_at + timedelta(seconds=seconds)),
                "updated_at": self.now(),
            }
        )
        self._items[item.id] = moved
        self._changed.set()
        return moved.model_copy(deep=True)

    def expire_now(self, interaction_id: str) -> Interaction:
        """Bring a pending interaction's `expiresAt` to now, so it expires as it would have
        on time (with its run's pending siblings), without anyone waiting for the moment."""
        self.expire_due()
        item = self._find(interaction_id)
        if not item.is_pending or item.expires_at is None:
            raise SimError(409, "conflict", f"interaction {interaction_id!r} is {item.status}")
        self._items[item.id] = item.model_copy(update={"expires_at": self.now()})
        self._quiet_until = None
        self.expire_due()
        self._changed.set()
        return self._items[item.id].model_copy(deep=True)

    def next_deadline(self) -> datetime | None:
        deadlines = [i.expires_at for i in self._items.values() if i.expires_at and i.is_pending]
        return min(deadlines, default=None)

    def expire_due(self) -> list[Interaction]:
        """Cancel every interaction whose `expiresAt` has passed, with its run's pending siblings.

        They are cancelled at the moment the first one expired, so the record
        is the same whether the background watcher or a request noticed it.
        """
        now = self.now()
        expired: list[Interaction] = []
        if self._quiet_until is not None and now < self._quiet_until:
            return expired
        while True:
            pending = [i for i in self._items.values() if i.is_pending]
            first = min(
                (i for i in pending if i.expires_at is not None and i.expires_at <= now),
                key=_sort_key_by_deadline,
                default=None,
            )
            if first is None or first.expires_at is None:
                # an extension or a resolution only moves the earliest deadline later
                self._quiet_until = self.next_deadline() or datetime.max.replace(tzinfo=UTC)
                return expired
            moment = first.expires_at
            for item in pending:
                if item.run_id == first.run_id:
                    expired.append(self._time_out(item, moment))

    def _time_out(self, item: Interaction, moment: datetime) -> Interaction:
        done = item.model_copy(
            update={
                "status": "cancelled",
                "decision": "cancel" if item.kind == "approval_request" else None,
                # as the API says: the echo `reason` stays null, the resolution says why
                "reason": None,
                "resolution": {"reason": TIMEOUT_REASON},
                "expires_at": None,
                "resolved_at": moment,
                "updated_at": moment,
            }
        )
        self._items[item.id] = done
        return done

    async def watch_expiry(self) -> None:
        """Expire interactions on time even when nobody calls the API.

        Sleeps until the next deadline, or until a create/extend/reset moves it.
        """
        while True:
            self.expire_due()
            self._changed.clear()
            deadline = self.next_deadline()
            timeout = None
            if deadline is not None:
                timeout = max(0.0, (deadline - self._clock()).total_seconds())
            # asyncio.timeout, not wait_for: on 3.11 wait_for returns normally when the
            # event fires as the task is cancelled, and the loop would then wait forever
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._changed.wait()

    def reset(self) -> None:
        self._items.clear()
        self._order.clear()
        self._quiet_until = None
        self._terminated.clear()
        self._changed.set()
