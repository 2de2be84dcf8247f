"""Expiry on a real clock: it happens with nobody calling, and takes the run's siblings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from novo_dev.sim import SimServer
from tests.support import wait_until

Json = dict[str, Any]
Create = Callable[..., Awaitable[Json]]


def when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


async def test_expiry_cancels_the_run_without_any_request(
    sim: SimServer,
    client: httpx.AsyncClient,
    create: Create,
    migration_request: Json,
) -> None:
    short = await create(kind="approval_request", runId="run_e", expiresInSeconds=0.3)
    sibling = await create(kind="question", runId="run_e", request=migration_request)
    other = await create(kind="approval_request", runId="run_f")
    deadline = sim.state.next_deadline()
    assert deadline == when(short["expiresAt"])
    await client.delete("/_sim/log")

    # next_deadline() only reads: it moves on only if the background task expired the run.
    await wait_until(lambda: sim.state.next_deadline() == when(other["expiresAt"]))
    assert (await client.get("/_sim/log")).json()["requests"] == []

    got = {
        i["id"]: i
        for i in (await client.get("/v1/interactions", params={"limit": 100})).json()["data"]
    }
    expired, gone_too = got[short["id"]], got[sibling["id"]]
    assert (expired["status"], expired["decision"]) == ("cancelled", "cancel")
    assert (gone_too["status"], gone_too["decision"]) == ("cancelled", None)
    for item in (expired, gone_too):
        assert item["reason"] is None  # the doc: only the resolution says why
        assert item["resolution"] == {"reason": "interaction_timeout"}
        assert item["expiresAt"] is None
        assert item["resolvedAt"] == short["expiresAt"]
    assert got[other["id"]]["status"] == "pending"

    answer = {"inputResponses": [{"requestId": short["id"], "optionId": "approve"}]}
    late = await client.post(f"/v1/interactions/{short['id']}/resolve", json=answer)
    assert late.status_code == 409
    assert late.json()["error"]["type"] == "idempotency_key_conflict"
    cancel = await client.post(f"/v1/interactions/{short['id']}/resolve", json={"cancel": True})
    assert cancel.status_code == 200 and cancel.json() == expired


async def test_extend(client: httpx.AsyncClient, create: Create) -> None:
    item = await create(kind="approval_request", expiresInSeconds=30)
    moved = await client.post(f"/_sim/interactions/{item['id']}/extend", json={"seconds": 60})
    assert moved.status_code == 200
    delta = when(moved.json()["expiresAt"]) - when(item["expiresAt"])
    assert delta == timedelta(seconds=60)
    read = await client.get(f"/v1/interactions/{item['id']}")
    assert read.json()["expiresAt"] == moved.json()["expiresAt"]

    missing = await client.post("/_sim/interactions/int_nope/extend", json={"seconds": 5})
    assert missing.status_code == 404
    bad = await client.post(f"/_sim/interactions/{item['id']}/extend", json={"seconds": "5"})
    assert bad.status_code == 400
    await client.post(f"/v1/interactions/{item['id']}/resolve", json={"cancel": True})
    done = await client.post(f"/_sim/interactions/{item['id']}/extend", json={"seconds": 5})
    assert done.status_code == 409
