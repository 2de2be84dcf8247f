"""Retries under injected faults, and expiry with short windows, against the simulator."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from bot.novo import errors
from bot.novo.client import NovoClient
from bot.novo.models import TIMEOUT_REASON, InputResponse, Interaction, ResolveInteractionBody
from novo_dev.sim.control import SimControl
from tests.support import wait_until

from .conftest import SIM_KEY


def approve(interaction_id: str) -> ResolveInteractionBody:
    return ResolveInteractionBody(
        input_responses=[InputResponse(request_id=interaction_id, option_id="approve")]
    )


def client_for(sim: Any, sleeps: list[float], **options: Any) -> NovoClient:
    """A client whose backoff is recorded, with a hook run during each wait."""
    on_wait: Callable[[], Awaitable[None]] | None = options.pop("on_wait", None)

    async def wait(seconds: float) -> None:
        sleeps.append(seconds)
        if on_wait is not None:
            await on_wait()

    return NovoClient(sim.url, SIM_KEY, sleep=wait, **options)


@pytest.mark.parametrize("route", ["all", "get"])
async def test_fault_cleared_while_retrying_then_succeeds(
    sim: Any, control: SimControl, sleeps: list[float], route: str
) -> None:
    created = await control.approval()
    await control.faults(errorRate=1, status=503, routes=route)
    await control.clear_log()

    async def heal() -> None:
        await control.faults()

    async with client_for(sim, sleeps, on_wait=heal) as novo:
        got = await novo.get(created["id"])
    assert got.id == created["id"]
    assert [c["status"] for c in await control.log()] == [503, 200]
    assert len(sleeps) == 1


async def test_resolve_retried_through_faults_is_applied_once(
    sim: Any, control: SimControl, sleeps: list[float]
) -> None:
    created = await control.approval()
    await control.faults(errorRate=1, status=502, routes="resolve")
    await control.clear_log()
    heal_after = iter([False, True])

    async def heal_on_second_wait() -> None:
        if next(heal_after):
            await control.faults()

    async with client_for(sim, sleeps, on_wait=heal_on_second_wait) as novo:
        resolved = await novo.resolve(created["id"], approve(created["id"]))
    assert (resolved.status, resolved.decision) == ("resolved", "allow")
    assert [c["status"] for c in await control.log()] == [502, 502, 200]


async def test_fault_throughout_gives_typed_error_after_n_plus_one_attempts(
    sim: Any, control: SimControl, sleeps: list[float]
) -> None:
    created = await control.approval()
    await control.faults(errorRate=1, status=503)
    await control.clear_log()
    async with client_for(sim, sleeps, max_retries=3) as novo:
        with pytest.raises(errors.InternalServerError) as caught:
            await novo.get(created["id"])
    assert (caught.value.status, caught.value.type) == (503, "internal_error")
    calls = await control.log()
    assert [c["status"] for c in calls] == [503] * 4
    assert len(sleeps) == 3
    assert all(0.0 <= s <= 8.0 for s in sleeps)


async def test_rate_limit_honours_the_servers_retry_after(
    sim: Any, control: SimControl, sleeps: list[float]
) -> None:
    await control.faults(errorRate=1, status=429, routes="list")

    async def heal() -> None:
        await control.faults()

    async with client_for(sim, sleeps, on_wait=heal) as novo:
        page = await novo.list_interactions()
    assert page.data == []
    assert sleeps == [1.0]  # the simulator's Retry-After


async def test_slow_server_times_out_after_n_plus_one_attempts(
    sim: Any, control: SimControl, sleeps: list[float]
) -> None:
    created = await control.approval()
    await control.faults(latencyMs=400, routes="get")
    await control.clear_log()
    async with client_for(sim, sleeps, timeout=0.05, max_retries=1) as novo:
        with pytest.raises(errors.NovoTimeoutError):
            await novo.get(created["id"])
    assert len(await control.log()) == 2
    assert len(sleeps) == 1


async def test_short_window_expires_the_whole_run(novo: NovoClient, control: SimControl) -> None:
    short = await control.approval(runId="run_short", expiresInSeconds=0.3)
    sibling = await control.question(
        {"title": "t", "questions": [{"id": "q", "prompt": "why?"}]}, runId="run_short"
    )
    assert short["expiresAt"] is not None

    async def expired_record() -> Interaction | None:
        record = await novo.get(short["id"])
        return None if record.is_pending else record

    expired: Interaction = await wait_until(expired_record, message="the expiry")
    # as the API says: the echo `reason` is null, the resolution says why
    assert (expired.status, expired.decision, expired.reason) == ("cancelled", "cancel", None)
    assert expired.resolution == {"reason": TIMEOUT_REASON}
    assert expired.timed_out and expired.ending_reason == TIMEOUT_REASON
    assert expired.expires_at is None

    other = await novo.get(sibling["id"])
    assert (other.status, other.decision, other.expires_at) == ("cancelled", None, None)

    with pytest.raises(errors.ConflictError):
        await novo.resolve(short["id"], approve(short["id"]))
    again = await novo.resolve(short["id"], ResolveInteractionBody(cancel=True))
    assert again.status == "cancelled"


async def test_expires_at_moves_when_the_window_is_extended(
    novo: NovoClient, control: SimControl
) -> None:
    created = await control.approval(expiresInSeconds=60)
    before = (await novo.get(created["id"])).expires_at
    await control.extend(created["id"], 120)
    after = (await novo.get(created["id"])).expires_at
    assert before is not None and after is not None
    assert after - before == timedelta(seconds=120)


async def test_expired_interactions_leave_the_pending_list(
    novo: NovoClient, control: SimControl
) -> None:
    keep = await control.approval(runId="run_keep")
    gone = await control.approval(runId="run_gone", expiresInSeconds=0.2)

    async def pending_ids() -> list[str]:
        return [i.id async for i in novo.list_interactions(status="pending")]

    async def gone_expired() -> bool:
        return gone["id"] not in await pending_ids()

    await wait_until(gone_expired, message="the short window to expire")
    assert await pending_ids() == [keep["id"]]
