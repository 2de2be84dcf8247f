"""Standing approvals in the store: a use happens once whoever races for it, an ending
is made once, a report is claimed once; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import cast

import pytest
from sqlalchemy import text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from bot.domain import Allowance, SlackDecision
from bot.services.approvals import approval_body
from bot.store import QueuedDecision, Store
from bot.store.allowances import PlannedUse
from bot.store.audit import AuditEvent
from bot.store.schema import allowances
from tests.postgres import asyncpg_url
from tests.support import wait_until

from .conftest import Database
from .helpers import ADA, NOW, grant, interaction

UNTIL = NOW + timedelta(hours=4)
LEASE = NOW + timedelta(seconds=8)


GRANT = grant()
MAX_SECONDS = 4 * 3600.0


async def _queued_grant(store: Store) -> QueuedDecision:
    """An approval of `int_grant` queued with an allowance, not delivered yet."""
    await store.claim_for_posting(interaction("int_grant"), "C1", NOW)
    queued = await store.enqueue_decision(
        "int_grant",
        approval_body("int_grant", True),
        SlackDecision(ADA, NOW, "Approved"),
        LEASE,
        grant=GRANT,
    )
    assert queued is not None
    return queued


async def _granted(store: Store) -> int:
    """An allowance in force: granted with an approval Novo took."""
    queued = await _queued_grant(store)
    await store.finish_decision(queued.id, "delivered", NOW)
    (allowance,) = await store.allowances_granted_on("int_grant")
    return allowance.id


def _plan(
    allowance: Allowance | None,
    interaction_id: str,
    max_seconds: float = MAX_SECONDS,
    events: tuple[AuditEvent, ...] = (),
) -> PlannedUse:
    assert allowance is not None
    return PlannedUse(
        interaction(interaction_id),
        allowance,
        approval_body(interaction_id, True),
        SlackDecision(ADA, NOW, "Approved"),
        LEASE,
        max_seconds,
        events,
    )


async def test_a_use_is_recorded_once_whoever_races_for_it(store: Store, peer: Store) -> None:
    allowance = await store.allowance(await _granted(store))
    plans = [_plan(allowance, "int_next")]
    results = await asyncio.gather(
        *(s.use_allowances(plans, NOW) for s in (store, peer, store, peer))
    )
    assert sorted(len(r) for r in results) == [0, 0, 0, 1]
    queued = await store.open_decision("int_next")
    assert queued is not None and queued.standing_until == UNTIL
    assert queued.decision.actor.user_id == "U0ADA"
    assert allowance is not None
    uses = await store.allowance_uses_of(allowance.id)
    assert [u.interaction_id for u in uses] == ["int_next"]


async def test_an_interaction_claimed_for_posting_is_not_used(store: Store) -> None:
    allowance = await store.allowance(await _granted(store))
    await store.claim_for_posting(interaction("int_posted"), "C1", NOW)
    assert await store.use_allowances([_plan(allowance, "int_posted")], NOW) == []
    assert await store.open_decision("int_posted") is None


async def test_an_allowance_ends_once_and_reports_are_claimed_once(
    store: Store, peer: Store
) -> None:
    allowance_id = await _granted(store)
    allowance = await store.allowance(allowance_id)
    await store.use_allowances([_plan(allowance, "int_a"), _plan(allowance, "int_b")], NOW)
    assert await store.claim_unreported_uses(NOW) == []  # not reported before Novo took them
    for interaction_id in ("int_a", "int_b"):
        queued = await store.open_decision(interaction_id)
        assert queued is not None
        await store.finish_decision(queued.id, "delivered", NOW)
    claims = await asyncio.gather(store.claim_unreported_uses(NOW), peer.claim_unreported_uses(NOW))
    assert sorted(len(c) for c in claims) == [0, 2]
    ends = await asyncio.gather(
        store.end_allowances([allowance_id], "revoked", NOW, by="U0GRACE"),
        peer.end_allowances([allowance_id], "expired", NOW),
    )
    assert sorted(len(e) for e in ends) == [0, 1]
    ended = await store.allowance(allowance_id)
    assert ended is not None and ended.ended in ("revoked", "expired")
    assert not ended.in_force(NOW)
    assert await store.open_allowances() == []


async def test_a_grant_takes_effect_only_once_its_approval_is_delivered(store: Store) -> None:
    queued = await _queued_grant(store)
    (allowance,) = await store.allowances_granted_on("int_grant")
    assert not await store.use_allowance(_plan(allowance, "int_early"), NOW)
    assert await store.open_decision("int_early") is None
    await store.finish_decision(queued.id, "delivered", NOW)
    assert await store.use_allowance(_plan(allowance, "int_later"), NOW)


async def test_an_approval_novo_refused_ends_its_allowance(store: Store) -> None:
    queued = await _queued_grant(store)
    await store.finish_decision(queued.id, "conflict", NOW, "409")
    (allowance,) = await store.allowances_granted_on("int_grant")
    assert allowance.ended == "refused"
    assert not await store.use_allowance(_plan(allowance, "int_next"), NOW)


async def test_each_use_checks_the_allowance_as_committed_now(store: Store, peer: Store) -> None:
    allowance = await store.allowance(await _granted(store))
    assert allowance is not None
    later = NOW + timedelta(hours=1)
    # the rule's max lowered to 30 minutes since the grant: an hour later it has ended
    assert not await store.use_allowance(_plan(allowance, "int_a", max_seconds=1800), later)
    assert await store.use_allowance(_plan(allowance, "int_b"), later)
    await peer.end_allowances([allowance.id], "revoked", later, by="U0GRACE")
    # the plan still carries the allowance as it was read before the revoke
    assert not await store.use_allowance(_plan(allowance, "int_c"), later)
    assert [u.interaction_id for u in await store.allowance_uses_of(allowance.id)] == ["int_b"]
    assert not await store.use_allowance(_plan(allowance, "int_d"), UNTIL)


async def test_a_use_and_its_audit_event_are_one_write(store: Store) -> None:
    allowance = await store.allowance(await _granted(store))
    event = AuditEvent("allowance_used", NOW, "int_a", "U0ADA", {"allowance": 1})
    assert await store.use_allowance(_plan(allowance, "int_a", events=(event,)), NOW)
    assert [e.event for e in await store.audit_entries(interaction_id="int_a")] == [
        "allowance_used"
    ]
    # an entry the store can't write (no time: the chain cannot hash it, and the column is
    # NOT NULL) undoes the use
    unwritable = AuditEvent("allowance_used", cast(datetime, None), "int_b", "U0ADA")
    with pytest.raises((AttributeError, IntegrityError)):
        await store.use_allowance(_plan(allowance, "int_b", events=(unwritable,)), NOW)
    assert await store.get("int_b") is None
    assert await store.open_decision("int_b") is None


async def test_a_use_waits_for_a_revoke_under_way_and_then_sees_it(postgres: Database) -> None:
    """PostgreSQL: a use locks the allowance's row, so a revoke being committed by another
    replica is waited for, and the use then finds the allowance ended (read without the
    lock, it would use the allowance as it was before the revoke)."""
    store = await postgres.open()
    try:
        allowance = await store.allowance(await _granted(store))
        assert allowance is not None
        other = create_async_engine(
            asyncpg_url(), connect_args={"server_settings": {"search_path": postgres.schema}}
        )
        try:
            async with other.begin() as revoking:
                await revoking.execute(
                    update(allowances)
                    .where(allowances.c.id == allowance.id)
                    .values(ended="revoked", ended_by_id="U0GRACE", ended_at=NOW)
                )
                use = asyncio.ensure_future(store.use_allowance(_plan(allowance, "int_a"), NOW))

                async def waiting() -> bool:
                    if use.done():
                        return True  # used without waiting: the assertion below says so
                    query = text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE wait_event_type = 'Lock' AND datname = current_database()"
                    )
                    return bool((await revoking.execute(query)).scalar())

                await wait_until(waiting, message="the use waiting for the revoke")
                assert not use.done()
            assert await use is False
        finally:
            await other.dispose()
        assert await store.open_decision("int_a") is None
    finally:
        await store.close()
