"""The control API (faults, log, reset), demo mode and the blocking entry point."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from novo_dev.sim import start_sim
from novo_dev.sim.demo_data import TEMPLATES
from tests.support import wait_until

Json = dict[str, Any]
Create = Callable[..., Awaitable[Json]]
REPO = Path(__file__).resolve().parents[2]


def when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


async def faults(client: httpx.AsyncClient, **spec: Any) -> None:
    response = await client.post("/_sim/faults", json=spec)
    assert response.status_code == 200, response.text


async def test_errors_on_one_route_only(client: httpx.AsyncClient, create: Create) -> None:
    item = await create(kind="approval_request")
    await faults(client, errorRate=1.0, status=503, routes="list")
    for _ in range(10):
        listed = await client.get("/v1/interactions")
        assert listed.status_code == 503
        assert listed.json()["error"]["type"] == "internal_error"
    assert (await client.get(f"/v1/interactions/{item['id']}")).status_code == 200
    await faults(client)
    assert (await client.get("/v1/interactions")).status_code == 200


async def test_rate_limit_applies_nothing(client: httpx.AsyncClient, create: Create) -> None:
    item = await create(kind="approval_request", runId="run_q")
    await faults(client, errorRate=1.0, status=429, routes="resolve")
    body = {"inputResponses": [{"requestId": item["id"], "optionId": "approve"}]}
    single = await client.post(f"/v1/interactions/{item['id']}/resolve", json=body)
    many = await client.post(
        "/v1/runs/run_q/interactions/resolve", json={"items": [{"id": item["id"], **body}]}
    )
    for response in (single, many):
        assert response.status_code == 429
        assert response.headers["Retry-After"] == "1"
        assert response.json()["error"]["type"] == "rate_limited"
    assert (await client.get(f"/v1/interactions/{item['id']}")).json()["status"] == "pending"


async def test_a_fault_after_apply_applies_the_request_and_loses_its_answer(
    client: httpx.AsyncClient, create: Create
) -> None:
    item = await create(kind="approval_request")
    await faults(client, errorRate=1.0, status=502, routes="resolve", afterApply=True)
    body = {"inputResponses": [{"requestId": item["id"], "optionId": "approve"}]}
    lost = await client.post(f"/v1/interactions/{item['id']}/resolve", json=body)
    assert lost.status_code == 502
    record = (await client.get(f"/v1/interactions/{item['id']}")).json()
    assert (record["status"], record["decision"]) == ("resolved", "allow")


async def test_expire_now_cancels_as_expiry_does_and_refuses_an_ended_one(
    client: httpx.AsyncClient, create: Create
) -> None:
    item = await create(kind="approval_request", expiresInSeconds=3600)
    expired = await client.post(f"/_sim/interactions/{item['id']}/expire")
    assert expired.status_code == 200
    record = (await client.get(f"/v1/interactions/{item['id']}")).json()
    assert (record["status"], record["decision"]) == ("cancelled", "cancel")
    assert record["resolution"] == {"reason": "interaction_timeout"}
    again = await client.post(f"/_sim/interactions/{item['id']}/expire")
    assert again.status_code == 409


async def test_error_rate_is_seeded(client: httpx.AsyncClient) -> None:
    async def statuses() -> list[int]:
        return [(await client.get("/v1/interactions")).status_code for _ in range(30)]

    await faults(client, errorRate=0.5, seed=42)
    first = await statuses()
    await faults(client, errorRate=0.5, seed=42)
    assert await statuses() == first
    assert set(first) == {200, 503}


async def test_latency(client: httpx.AsyncClient) -> None:
    await faults(client, latencyMs=150, routes="get")
    started = time.monotonic()
    assert (await client.get("/v1/interactions/int_x")).status_code == 404
    assert time.monotonic() - started >= 0.14


@pytest.mark.parametrize(
    "spec", [{"errorRate": 1.5}, {"status": 200}, {"routes": "post"}, {"errorRate": "1"}]
)
async def test_bad_fault_spec(client: httpx.AsyncClient, spec: Json) -> None:
    assert (await client.post("/_sim/faults", json=spec)).status_code == 400


async def test_log_records_public_requests_and_clears() -> None:
    async with (
        await start_sim(api_key="k") as sim,
        httpx.AsyncClient(base_url=sim.url, headers={"Authorization": "Bearer k"}) as http,
    ):
        await http.post("/_sim/faults", json={"errorRate": 1.0, "routes": "get"})
        await http.get("/v1/interactions", params={"status": "pending"})
        await http.get("/v1/interactions/int_x")
        await http.get("/v1/interactions", headers={"Authorization": "Bearer no"})
        log = (await http.get("/_sim/log")).json()["requests"]
        assert [(e["method"], e["path"], e["query"], e["status"]) for e in log] == [
            ("GET", "/v1/interactions", {"status": "pending"}, 200),
            ("GET", "/v1/interactions/int_x", {}, 503),
            ("GET", "/v1/interactions", {}, 401),
        ]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", e["at"]) for e in log)
        await http.delete("/_sim/log")
        assert (await http.get("/_sim/log")).json() == {"requests": []}


async def test_reset(client: httpx.AsyncClient, create: Create) -> None:
    await create(kind="approval_request", runId="run_t")
    await client.post("/_sim/runs/run_t/terminate")
    await faults(client, errorRate=1.0, routes="get")
    await client.get("/v1/interactions/int_x")
    assert (await client.post("/_sim/reset")).status_code == 200
    assert (await client.get("/_sim/log")).json() == {"requests": []}
    assert (await client.get("/v1/interactions")).json()["data"] == []
    assert (await client.get("/v1/interactions/int_x")).status_code == 404
    again = await create(kind="approval_request", runId="run_t")
    cancelled = await client.post(f"/v1/interactions/{again['id']}/resolve", json={"cancel": True})
    assert cancelled.json()["status"] == "cancelled"  # run_t is no longer terminated


def shapes(question: Json) -> set[str]:
    found = set()
    for q in question["request"]["questions"]:
        options = q["options"] or []
        if q["multiple"]:
            found.add("multi")
        elif len(options) == 3:
            found.add("single of 3")
        if len(options) > 100:
            found.add("over 100 options")
        if not options:
            found.add("multiline" if q["multiline"] else "single line")
        if q["allowOther"]:
            found.add("allowOther")
        if q["optional"]:
            found.add("optional")
    if len(question["request"]["questions"]) > 1:
        found.add("several")
    styles = {a.get("style") for a in question["request"]["actions"]}
    if "danger" in styles:
        found.add("danger action")
    return found


async def test_demo_seeds_every_shape_and_keeps_feeding() -> None:
    async with (
        await start_sim(demo=True, demo_interval_seconds=0.05) as sim,
        httpx.AsyncClient(base_url=sim.url) as http,
    ):
        seeded = (await http.get("/v1/interactions", params={"limit": 100})).json()["data"]
        assert len(seeded) >= sum(len(g.interactions) for g in TEMPLATES)
        assert {i["kind"] for i in seeded} == {"approval_request", "question"}
        found = set().union(*(shapes(i) for i in seeded if i["kind"] == "question"))
        assert found >= {
            "single of 3",
            "multi",
            "over 100 options",
            "single line",
            "multiline",
            "allowOther",
            "optional",
            "several",
            "danger action",
        }
        steps = [(i["runId"], i["stepNumber"]) for i in seeded]
        assert any(steps.count(step) >= 2 for step in steps), "no siblings in one step"
        windows = [when(i["expiresAt"]) - when(i["createdAt"]) for i in seeded]
        assert any(w <= timedelta(seconds=90) for w in windows), "nothing expires soon"
        assert any(i["kind"] == "approval_request" and i["workerRef"] is not None for i in seeded)
        await wait_until(lambda: len(sim.state.interactions()) > len(seeded) + 2)


async def test_run_sim_serves_until_sigterm() -> None:
    code = (
        "from novo_dev.sim import run_sim; "
        "run_sim('127.0.0.1', 0, api_key='hush-hush', park_seconds=60, demo=False)"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stderr=asyncio.subprocess.PIPE, cwd=REPO
    )
    assert process.stderr is not None
    try:
        async with asyncio.timeout(20):
            line = await process.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line.decode())
        assert match, line
        async with httpx.AsyncClient(base_url=match.group(1)) as http:
            ok = await http.get("/v1/interactions", headers={"Authorization": "Bearer hush-hush"})
            assert ok.status_code == 200
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(20):
            assert await process.wait() == 0
        rest = await process.stderr.read()
        assert b"hush-hush" not in line + rest
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
