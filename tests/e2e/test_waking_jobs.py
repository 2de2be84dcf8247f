"""Idle costs what the work costs: the redelivery, snooze and Home jobs touch the store
only when there is something for them, and work that comes while they sleep still goes
at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from bot.slack.ids import ActionId, OverflowValue
from tests.e2e.conftest import CHANNEL, Loop
from tests.support import wait_until

LIST_PATH = "/v1/interactions"


def _count_calls(target: Any, name: str) -> list[datetime]:
    """Wrap one store method so each call is noted (the store's callers are what is judged)."""
    calls: list[datetime] = []
    real: Callable[..., Awaitable[Any]] = getattr(target, name)

    async def noted(*args: Any, **kwargs: Any) -> Any:
        calls.append(datetime.now())
        return await real(*args, **kwargs)

    setattr(target, name, noted)
    return calls


async def _polls(loop: Loop) -> int:
    log = (await loop.http.get(f"{loop.sim.url}/_sim/log")).json()["requests"]
    return sum(1 for r in log if r["path"] == LIST_PATH and "cursor" not in r.get("query", {}))


async def _let_it_idle(loop: Loop, *noted: list[datetime], polls: int = 30) -> None:
    """Let the bridge poll on for `polls` polls (0.1 s each), twice, the `noted` calls
    forgotten before each: the first while holds the look each job takes at start-up."""

    async def polled_a_while() -> bool:
        return await _polls(loop) >= polls

    for _ in range(2):
        for calls in noted:
            calls.clear()
        await loop.http.delete(f"{loop.sim.url}/_sim/log")
        await wait_until(polled_a_while, message="the bridge polling on")


async def test_redelivery_sleeps_while_the_outbox_is_empty_and_wakes_for_a_decision(
    loop: Loop,
) -> None:
    created = await loop.create("approval_request")
    ts = await loop.posted(created["id"])
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    claims = _count_calls(store, "claim_due_decisions")
    looks = _count_calls(store, "next_decision_due")

    await _let_it_idle(loop, claims, looks, polls=25)  # well over two redelivery ticks
    assert claims == [] and looks == [], "the redelivery job read the store with nothing queued"

    # a decision Novo refuses for now is queued while the job sleeps: it still goes at once
    await loop.fault(errorRate=1.0, status=503, routes="resolve")
    await loop.driver.click_message_button("U0ADA", CHANNEL, ts, ActionId.APPROVE)
    await wait_until(
        lambda: [e for e in loop.slack.ephemerals("U0ADA") if "Couldn't reach Novo" in e.text],
        message="clicker told the decision is kept",
    )
    await loop.fault()  # Novo is back

    async def delivered() -> bool:
        return bool((await loop.api_get(created["id"]))["status"] == "resolved")

    # promptly: an idle job on SQLite looks only once a minute by itself
    await wait_until(delivered, message="the kept decision delivered promptly")
    assert claims, "delivered by the redelivery job"
    await loop.shows(ts, "Approved", "<@U0ADA>")


async def test_snoozes_and_home_refreshes_sleep_until_one_is_kept_or_opened(loop: Loop) -> None:
    created = await loop.create("approval_request", expiresInSeconds=3 * 3600)
    ts = await loop.posted(created["id"])
    assert loop.bridge.services is not None
    store = loop.bridge.services.store
    snooze_claims = _count_calls(store, "claim_due_snoozes")
    home_reads = _count_calls(store, "home_viewers")

    await _let_it_idle(loop, snooze_claims, home_reads)  # three snooze ticks, a Home one
    assert snooze_claims == [], "the snooze job read the store with no snooze kept"
    assert home_reads == [], "the Home refresh read the store with nobody looking"

    # a snooze kept while the job sleeps wakes it for when it falls due
    await loop.driver.choose_overflow(
        "U0ADA", CHANNEL, ts, ActionId.APPROVAL_OVERFLOW, OverflowValue.REMIND_15_MIN
    )
    await wait_until(lambda: loop.slack.ephemerals("U0ADA"), message="Ada told of her reminder")
    loop.clock.forward(timedelta(minutes=15))
    await wait_until(lambda: loop.slack.messages("U0ADA"), message="the reminder's DM")
    assert snooze_claims, "sent by the snooze job"

    # a Home tab opened wakes the refresh that keeps it true while it is looked at
    await loop.driver.open_home("U0ADA")
    await wait_until(lambda: home_reads, message="the Home refresh woken by the open")
