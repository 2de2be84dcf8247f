"""Reading over HTTP: auth, create, get, list with filters, pagination and order."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from novo_dev.sim import start_sim

Json = dict[str, Any]
Create = Callable[..., Awaitable[Json]]


def when(stamp: str) -> datetime:
    assert stamp.endswith("Z")
    return datetime.fromisoformat(stamp)


@pytest.fixture
async def locked() -> AsyncIterator[httpx.AsyncClient]:
    async with (
        await start_sim(api_key="s3cret") as sim,
        httpx.AsyncClient(base_url=sim.url) as http,
    ):
        yield http


@pytest.mark.parametrize(
    "header", [None, "", "Bearer wrong", "s3cret", "Basic s3cret", "Bearer s3cret2"]
)
async def test_public_routes_need_the_key(locked: httpx.AsyncClient, header: str | None) -> None:
    headers = {"Authorization": header} if header is not None else {}
    for method, path in [
        ("GET", "/v1/interactions"),
        ("GET", "/v1/interactions/int_x"),
        ("POST", "/v1/interactions/int_x/resolve"),
        ("POST", "/v1/runs/run_x/interactions/resolve"),
    ]:
        response = await locked.request(method, path, headers=headers, json={})
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "unauthorized"


async def test_right_key_passes_and_control_needs_none(locked: httpx.AsyncClient) -> None:
    created = await locked.post("/_sim/interactions", json={"kind": "approval_request"})
    assert created.status_code == 201
    got = await locked.get(
        f"/v1/interactions/{created.json()['id']}", headers={"Authorization": "Bearer s3cret"}
    )
    assert got.status_code == 200 and got.json() == created.json()


async def test_create_and_get_an_approval(client: httpx.AsyncClient, create: Create) -> None:
    made = await create(
        kind="approval_request",
        runId="run_w1",
        rootRunId="run_root",
        workerRef="wkr_1",
        toolName="deploy_service",
        input={"sha": "abc"},
        preview={"title": "Deploy"},
        stepNumber=3,
    )
    assert made["object"] == "interaction" and made["id"].startswith("int_")
    assert (made["runId"], made["rootRunId"], made["workerRef"]) == ("run_w1", "run_root", "wkr_1")
    assert made["hookId"].startswith("hook_") and made["request"] is None
    assert (made["status"], made["decision"], made["reason"], made["resolution"]) == (
        "pending",
        None,
        None,
        None,
    )
    assert when(made["expiresAt"]) - when(made["createdAt"]) == timedelta(seconds=900)
    assert made["resolvedAt"] is None and made["updatedAt"] == made["createdAt"]
    got = await client.get(f"/v1/interactions/{made['id']}")
    assert got.json() == made


async def test_question_defaults(create: Create, migration_request: Json) -> None:
    made = await create(kind="question", request=migration_request, expiresInSeconds=60.5)
    assert made["toolName"] == "ask_question" and made["hookId"] is None
    assert made["input"] is None and made["preview"] is None
    assert made["rootRunId"] == made["runId"] and made["workerRef"] is None
    assert made["request"]["questions"][0]["id"] == "q_env"
    assert when(made["expiresAt"]) - when(made["createdAt"]) == timedelta(seconds=60.5)


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "other"},
        {"kind": "question"},
        {"kind": "approval_request", "request": {"questions": [{"id": "q"}]}},
        {"kind": "approval_request", "expiresInSeconds": "soon"},
        {"kind": "approval_request", "surprise": 1},
        [],
    ],
)
async def test_create_refuses_a_bad_spec(client: httpx.AsyncClient, spec: Any) -> None:
    response = await client.post("/_sim/interactions", json=spec)
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request"


async def test_get_unknown_is_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/interactions/int_nope")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "interaction_not_found"
    assert response.json()["error"]["message"]


async def test_unknown_route_still_has_an_error_body(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/nowhere")
    assert response.status_code == 404 and "type" in response.json()["error"]


async def ids_of(client: httpx.AsyncClient, **params: Any) -> list[str]:
    response = await client.get("/v1/interactions", params={"limit": 100, **params})
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["object"] == "list"
    return [item["id"] for item in page["data"]]


async def test_filters_alone_and_combined(
    client: httpx.AsyncClient, create: Create, migration_request: Json
) -> None:
    root = await create(kind="approval_request", runId="run_root")
    worker = await create(kind="approval_request", runId="run_w", rootRunId="run_root")
    question = await create(kind="question", runId="run_root", request=migration_request)
    other = await create(kind="approval_request", runId="run_other")
    body = {"inputResponses": [{"requestId": worker["id"], "optionId": "deny"}]}
    assert (await client.post(f"/v1/interactions/{worker['id']}/resolve", json=body)).is_success

    assert await ids_of(client, runId="run_root") == [root["id"], worker["id"], question["id"]]
    assert await ids_of(client, runId="run_w") == [worker["id"]]
    assert await ids_of(client, status="resolved") == [worker["id"]]
    assert await ids_of(client, status="cancelled") == []
    assert await ids_of(client, kind="question") == [question["id"]]
    assert await ids_of(client, kind="approval_request", status="pending") == [
        root["id"],
        other["id"],
    ]
    assert await ids_of(client, runId="run_root", kind="approval_request", status="pending") == [
        root["id"]
    ]


@pytest.mark.parametrize(
    "params",
    [
        {"status": "done"},
        {"status": "PENDING"},
        {"kind": "approval"},
        {"runId": ""},
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "-1"},
        {"limit": "ten"},
        {"limit": "2.5"},
        {"cursor": "not-a-cursor"},
        {"cursor": "WyJ4Il0"},
    ],
)
async def test_bad_query_is_invalid_request(client: httpx.AsyncClient, params: Json) -> None:
    response = await client.get("/v1/interactions", params=params)
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request"


async def test_limit_bounds_and_default(client: httpx.AsyncClient, create: Create) -> None:
    made = [(await create(kind="approval_request"))["id"] for _ in range(21)]
    default = (await client.get("/v1/interactions")).json()
    assert len(default["data"]) == 20 and default["hasMore"] is True
    one = (await client.get("/v1/interactions", params={"limit": 1})).json()
    assert [i["id"] for i in one["data"]] == made[:1] and one["nextCursor"]
    full = (await client.get("/v1/interactions", params={"limit": 100})).json()
    assert [i["id"] for i in full["data"]] == made
    assert (full["hasMore"], full["nextCursor"]) == (False, None)


async def test_pages_stay_right_when_items_resolve_between_them(
    client: httpx.AsyncClient, create: Create
) -> None:
    made = [(await create(kind="approval_request", runId="run_p"))["id"] for _ in range(7)]
    seen: list[str] = []
    params: Json = {"status": "pending", "limit": 2}
    first = (await client.get("/v1/interactions", params=params)).json()
    seen += [i["id"] for i in first["data"]]
    for resolved in (made[0], made[3]):  # one already seen, one not yet
        body = {"inputResponses": [{"requestId": resolved, "optionId": "approve"}]}
        assert (await client.post(f"/v1/interactions/{resolved}/resolve", json=body)).is_success
    cursor = first["nextCursor"]
    while cursor:
        page = (await client.get("/v1/interactions", params={**params, "cursor": cursor})).json()
        seen += [i["id"] for i in page["data"]]
        cursor = page["nextCursor"]
        assert cursor is None or page["hasMore"]
    assert seen == [made[0], made[1], made[2], made[4], made[5], made[6]]


async def test_oldest_first(client: httpx.AsyncClient, create: Create) -> None:
    made = [(await create(kind="approval_request"))["id"] for _ in range(5)]
    page = (await client.get("/v1/interactions")).json()["data"]
    assert [i["id"] for i in page] == made
    stamps = [(when(i["createdAt"]), i["id"]) for i in page]
    assert stamps == sorted(stamps)
