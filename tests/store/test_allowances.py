"""Standing approvals in the store: a use happens once whoever races for it, an ending
is made once, a report is claimed once; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.domain import Allowance, SlackActor, SlackDecision
from bot.services.approvals import approval_body
from bot.store import Store
from bot.store.allowances import Grant, PlannedUse

from .helpers import NOW, interaction

ADA = SlackActor("U0ADA", "Ada Lovelace")
UNTIL = NOW + timedelta(hours=4)
LEASE = NOW + timedelta(seconds=8)


async def _granted(store: Store) -> int:
    await store.claim_for_posting(interaction("int_grant"), "C1", NOW)
    allowance = await store.grant_allowance(
        Grant("deploys", "run", "agt_1", "deploy_status", "run_1", ADA, NOW, UNTIL, "int_grant")
    )
    return allowance.id


def _plan(allowance: Allowance | None, interaction_id: str) -> PlannedUse:
    assert allowance is not None
    return PlannedUse(
        interaction(interaction_id),
        allowance,
        approval_body(interaction_id, True),
        SlackDecision(ADA, NOW, "Approved"),
        LEASE,
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
